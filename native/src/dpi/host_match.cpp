// ④ Hostname → application, with nDPI's host patterns (data/hosts.tsv, see
// data/hosts-README.md for nDPI's rules), matched as host_patterns.h says;
// the operator's host rules (-p, see user_rules.h) come first.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/host_patterns.h"
#include "dpi/user_rules.h"

namespace fg {
namespace {

#include "dpi/generated/hosts.inc"

const HostPatterns& table() {
  static const HostPatterns t = [] {
    static const std::pair<const char*, uint16_t> kHosts[] = {
#define FG_X(pattern, id) {pattern, id},
        FG_HOSTS(FG_X)
#undef FG_X
        {"", 0}};
    HostPatterns h;
    for (const auto& [pattern, id] : kHosts) h.add(pattern, id, false);
    return h;
  }();
  return t;
}

}  // namespace

uint16_t app_by_host(const char* host, size_t len) {
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
  };
  static thread_local Remembered recent[1024] = {};
  Remembered& r = recent[key & 1023];
  if (r.key == key && key) return r.app;
  uint16_t app = u ? u->hosts.find(name) : 0;
  if (!app) app = table().find(name);
  r = {key, app};
  return app;
}

}  // namespace fg
