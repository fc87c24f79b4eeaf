// ④ Hostname → application, with nDPI's host patterns (data/hosts.tsv, see
// data/hosts-README.md). Built once into a hash map of domain suffixes: a
// name is looked up suffix by suffix at label boundaries, longest first, so
// "r3---sn-x.googlevideo.com" finds "googlevideo.com".
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dpi/dpi.h"

namespace fg {
namespace {

#include "dpi/generated/hosts.inc"

struct HostTable {
  std::unordered_map<std::string_view, uint16_t> suffix;  // "googlevideo.com"
  std::vector<std::pair<std::string_view, uint16_t>> label_prefix;  // "amazon." : a label sequence anywhere
  HostTable() {
    static const std::pair<const char*, uint16_t> kHosts[] = {
#define FG_X(pattern, id) {pattern, id},
        FG_HOSTS(FG_X)
#undef FG_X
        {"", 0}};
    for (const auto& [pattern, id] : kHosts) {
      std::string_view p(pattern);
      if (p.empty() || !id) continue;
      if (p.front() == '.') p.remove_prefix(1);
      if (p.empty()) continue;
      if (p.back() == '.') label_prefix.emplace_back(p, id);
      else suffix.emplace(p, id);
    }
  }
};

const HostTable& table() {
  static const HostTable t;
  return t;
}

}  // namespace

uint16_t app_by_host(const char* host, size_t len) {
  if (len == 0 || len > 253) return 0;
  char buf[256];
  for (size_t i = 0; i < len; i++) buf[i] = (host[i] >= 'A' && host[i] <= 'Z') ? char(host[i] + 32) : host[i];
  while (len && buf[len - 1] == '.') len--;  // a fully qualified "example.com."
  std::string_view name(buf, len);
  const HostTable& t = table();
  for (size_t at = 0; at < name.size();) {
    auto it = t.suffix.find(name.substr(at));
    if (it != t.suffix.end()) return it->second;
    size_t dot = name.find('.', at);
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  for (const auto& [p, id] : t.label_prefix) {
    size_t pos = name.find(p);
    while (pos != std::string_view::npos) {
      if (pos == 0 || name[pos - 1] == '.') return id;
      pos = name.find(p, pos + 1);
    }
  }
  return 0;
}

}  // namespace fg
