#include "dpi/registry.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "decode/packet.h"
#include "dpi/user_rules.h"

namespace fg {
namespace {

#include "dpi/generated/protocols.inc"

const ProtoInfo kProtos[] = {
#define FG_X(id, name, is_app, breed, cat, udp, tcp) {id, name, is_app, breed, cat, udp, tcp},
    FG_PROTOCOLS(FG_X)
#undef FG_X
};

struct Category { uint16_t id; const char* name; };
const Category kCategories[] = {
#define FG_X(id, name) {id, name},
    FG_CATEGORIES(FG_X)
#undef FG_X
};

const char* const kBreeds[] = {
#define FG_X(id, name) name,
    FG_BREEDS(FG_X)
#undef FG_X
};

constexpr size_t kMaxId = 1024;

// id → index, and port → protocol for TCP and UDP, built once.
struct Tables {
  std::array<int16_t, kMaxId> by_id;
  std::unique_ptr<uint16_t[]> tcp_port, udp_port;
  Tables() : tcp_port(new uint16_t[65536]()), udp_port(new uint16_t[65536]()) {
    by_id.fill(-1);
    for (size_t i = 0; i < sizeof(kProtos) / sizeof(kProtos[0]); i++) {
      const ProtoInfo& p = kProtos[i];
      if (p.id < kMaxId) by_id[p.id] = int16_t(i);
      add_ports(p.tcp_ports, tcp_port.get(), p.id);
      add_ports(p.udp_ports, udp_port.get(), p.id);
    }
  }
  // A port two protocols list goes to the later one in the table, as in
  // nDPI, whose default-port tree overwrites a duplicate (TCP 445 guesses
  // SMBv23, 8080 HTTP_Proxy).
  static void add_ports(const char* list, uint16_t* table, uint16_t id) {
    for (const char* s = list; *s;) {
      char* end;
      long port = std::strtol(s, &end, 10);
      if (end == s) break;
      if (port > 0 && port < 65536) table[port] = id;
      s = *end == ',' ? end + 1 : end;
    }
  }
};

// Built at the first use; the callers' path is one load (a function-local
// static's guard made every caller save and restore six registers).
[[gnu::cold, gnu::noinline]] const Tables* build_tables() {
  static const Tables t;
  return &t;
}
std::atomic<const Tables*> g_tables{nullptr};
inline const Tables& tables() {
  const Tables* t = g_tables.load(std::memory_order_acquire);
  if (!t) g_tables.store(t = build_tables(), std::memory_order_release);
  return *t;
}

}  // namespace

const char* confidence_name(Confidence c) {
  switch (c) {
    case Confidence::Unknown: return "Unknown";
    case Confidence::MatchByPort: return "Match by port";
    case Confidence::DpiPartial: return "DPI (partial)";
    case Confidence::DpiCache: return "DPI (cache)";
    case Confidence::Dpi: return "DPI";
    case Confidence::MatchByIp: return "Match by IP";
    case Confidence::DpiPartialCache: return "DPI (partial cache)";
    case Confidence::CustomRule: return "Match by custom rule";
  }
  return "Unknown";
}

const ProtoInfo* proto_info(uint16_t id) {
  if (id < kMaxId) {
    int16_t i = tables().by_id[id];
    if (i >= 0) return &kProtos[i];
  }
  const UserRules* u = user_rules();
  return u ? u->proto(id) : nullptr;
}

bool builtin_proto(uint16_t id) { return id < kMaxId && tables().by_id[id] >= 0; }

size_t proto_count() { return sizeof(kProtos) / sizeof(kProtos[0]); }
const ProtoInfo& proto_at(size_t i) { return kProtos[i]; }

uint16_t proto_by_name(std::string_view name) {
  for (const ProtoInfo& p : kProtos)
    if (name == p.name) return p.id;
  if (const UserRules* u = user_rules())
    for (const auto& p : u->protos)
      if (name == p->name) return p->info.id;
  return 0;
}

const char* category_name(uint16_t id) {
  for (const Category& c : kCategories)
    if (c.id == id) return c.name;
  return "";
}
size_t category_count() { return sizeof(kCategories) / sizeof(kCategories[0]); }
uint16_t category_at(size_t i) { return kCategories[i].id; }

// nDPI's breeds a protocol is unsafe by (its Unsafe Protocol risk)
constexpr uint32_t kUnsafeBreeds = 0
#define FG_X(id, name)                                                                                                           \
  | (std::string_view(name) == "Unsafe" || std::string_view(name) == "Potentially Dangerous" || std::string_view(name) == "Dangerous" \
         ? uint32_t(1) << (id)                                                                                                   \
         : 0u)
    FG_BREEDS(FG_X)
#undef FG_X
    ;

bool unsafe_breed(uint16_t id) {
  const ProtoInfo* a = id ? proto_info(id) : nullptr;
  return a && a->breed < 32 && (kUnsafeBreeds >> a->breed & 1);
}

const char* breed_name(uint8_t breed) {
  return breed < sizeof(kBreeds) / sizeof(kBreeds[0]) ? kBreeds[breed] : "Unrated";
}

uint16_t guess_by_port(uint8_t l4_proto, uint16_t sport, uint16_t dport, bool* user_only) {
  if (user_only) *user_only = false;
  const Tables& t = tables();
  const uint16_t* table = l4_proto == kProtoTcp ? t.tcp_port.get() : l4_proto == kProtoUdp ? t.udp_port.get() : nullptr;
  if (!table || !sport || !dport) return 0;
  const UserRules* u = user_rules();
  for (const uint16_t port : {dport, sport}) {
    const uint16_t mine = u ? u->port_rule(l4_proto, port) : 0;
    if (mine) {
      if (user_only) *user_only = table[port] == 0;
      return mine;
    }
    if (table[port]) return table[port];
  }
  return 0;
}

}  // namespace fg
