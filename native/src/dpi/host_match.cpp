// ④ Hostname → application, with nDPI's host patterns (data/hosts.tsv, see
// data/hosts-README.md for nDPI's rules), matched as host_patterns.h says;
// the operator's host rules (-p, see user_rules.h) come first. Each pattern
// also carries its category, which nDPI gives a flow the pattern names and
// which picks the patterns of its built-in risk exceptions.
#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "dpi/dpi.h"
#include "dpi/host_patterns.h"
#include "dpi/user_rules.h"

namespace fg {
namespace {

#include "dpi/generated/hosts.inc"

struct HostRow {
  const char* pattern;
  uint16_t app;
  uint16_t category;
};
constexpr HostRow kHosts[] = {
#define FG_X(pattern, id, category) {pattern, id, category},
    FG_HOSTS(FG_X)
#undef FG_X
};
constexpr size_t kHostCount = sizeof(kHosts) / sizeof(kHosts[0]);
static_assert(kHostCount < 65535, "rows are 16-bit values");

// value: the row + 1
const HostPatterns& table() {
  static const HostPatterns t = [] {
    HostPatterns h;
    for (size_t i = 0; i < kHostCount; i++) h.add(kHosts[i].pattern, uint16_t(i + 1), false);
    return h;
  }();
  return t;
}

// nDPI's categories whose patterns are risk exceptions (data/categories.tsv)
constexpr uint16_t kCatConnCheck = 30, kCatCybersecurity = 33;

bool middle_char(char c) { return c == '.' || c == '-'; }

}  // namespace

uint16_t app_by_host(const char* host, size_t len, uint16_t* category) {
  if (category) *category = 0;
  if (len == 0 || len > 253) return 0;
  char buf[256];
  for (size_t i = 0; i < len; i++) buf[i] = (host[i] >= 'A' && host[i] <= 'Z') ? char(host[i] + 32) : host[i];
  while (len && buf[len - 1] == '.') len--;  // a fully qualified "example.com."
  std::string_view name(buf, len);
  const UserRules* u = user_rules();
  // The same names come back all the time (every flow to a service): the
  // answer for a recent name is remembered per worker thread, keyed by a
  // 64-bit digest of the lower-cased name, its length and the version of
  // the operator's rules it was found under.
  uint64_t key = mix64(len * 0x9e3779b97f4a7c15ULL + (u ? u->version : 0));
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, buf + i, std::min<size_t>(8, len - i));
    key = mix64(key ^ w);
  }
  struct Remembered {
    uint64_t key;
    uint16_t app;
    uint16_t category;  // + 1: a pattern of nDPI's named the app
  };
  static thread_local Remembered recent[1024] = {};
  Remembered& r = recent[key & 1023];
  if (!(r.key == key && key)) {
    uint16_t app = u ? u->hosts.find(name) : 0, cat = 0;
    if (!app)
      if (const uint16_t row = table().find(name)) app = kHosts[row - 1].app, cat = uint16_t(kHosts[row - 1].category + 1);
    r = {key, app, cat};
  }
  if (category) *category = r.category;
  return r.app;
}

uint64_t builtin_host_risk_mask(std::string_view name) {
  // ndpi_add_domain_risk_exceptions: these names and nDPI's own patterns of
  // connectivity checks and security vendors mask the risks their traffic
  // raises by design.
  static const std::vector<std::string_view> patterns = [] {
    std::vector<std::string_view> v = {".local", ".work", "akamaihd.net", "dropboxusercontent.com"};
    for (const HostRow& h : kHosts)
      if (h.category == kCatConnCheck || h.category == kCatCybersecurity) v.push_back(h.pattern);
    return v;
  }();
  // nDPI searches them with its domain automaton (at_end off: anywhere in
  // the name) and ANDs the flow's mask with what the match handler
  // accepted: the whole name, a pattern after a '.' (unless it starts with
  // '.' or '-'), one starting with '-', or one ending in '.' or '-' at the
  // name's start. As every pattern here has the same mask, only whether
  // one was accepted matters; but a pattern found in the name that the
  // handler refused still makes the search succeed with the untouched
  // (zero) result, which masks every risk ("x.local": none left).
  // Names come back all the time (every flow to a service): the answer for
  // a recent one is remembered per thread, keyed by a digest of the name.
  uint64_t key = mix64(name.size() * 0x9e3779b97f4a7c15ULL + 0x5bd1e995);
  for (size_t i = 0; i < name.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, name.data() + i, std::min<size_t>(8, name.size() - i));
    key = mix64(key ^ w);
  }
  key |= 1;
  struct Remembered {
    uint64_t key;
    uint64_t mask;
  };
  static thread_local Remembered recent[256] = {};
  Remembered& r = recent[key & 255];
  if (r.key == key) return r.mask;
  r.key = key, r.mask = ~uint64_t(0);
  bool found = false;
  for (std::string_view p : patterns) {
    for (size_t at = name.find(p); at != std::string_view::npos; at = name.find(p, at + 1)) {
      found = true;
      const size_t end = at + p.size();
      const bool accepted = (at == 0 && end == name.size()) || (at >= 1 && !middle_char(p.front()) && name[at - 1] == '.') ||
                            (at >= 1 && p.front() == '-') || (at == 0 && middle_char(p.back()));
      if (accepted) return r.mask = kHostExceptionMask;
    }
  }
  return r.mask = found ? 0 : ~uint64_t(0);
}

}  // namespace fg
