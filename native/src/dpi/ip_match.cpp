// ④ Address → application, with nDPI's per-application IP prefix lists
// (data/ip-ranges.tsv, see data/README.md); the longest matching prefix
// wins, as in nDPI's Patricia tree. The operator's address rules (-p, see
// user_rules.h) come first. Address → risk likewise, with the lists nDPI
// loads into its ip_risk tree (data/ip-risks.tsv).
#include <cstdint>
#include <vector>

#include "dpi/dpi.h"
#include "dpi/prefix_table.h"
#include "dpi/user_rules.h"

namespace fg {
namespace {

#include "dpi/generated/ip-ranges.inc"
#include "dpi/generated/ip-risks.inc"

// A generated prefix list (X(len, value, address bytes…)) as a PrefixTable.
struct Row {
  uint8_t b[16];
  unsigned len;
  uint16_t value;
};
template <size_t N>
std::vector<PrefixTable::Prefix> prefixes(const Row (&rows)[N]) {
  std::vector<PrefixTable::Prefix> out;
  out.reserve(N);
  for (const Row& r : rows) {
    PrefixTable::Prefix p{};
    std::copy(r.b, r.b + 16, p.b);
    p.len = r.len, p.value = r.value;
    out.push_back(p);
  }
  return out;
}
#define FG_X(len, id, ...) {{__VA_ARGS__}, len, id},

const PrefixTable& table() {
  static const Row kRows[] = {FG_IP_RANGES(FG_X)};
  static const PrefixTable t(prefixes(kRows));
  return t;
}

const PrefixTable& risk_table() {
  static const Row kRows[] = {FG_IP_RISKS(FG_X)};
  static const PrefixTable t(prefixes(kRows));
  return t;
}
#undef FG_X

}  // namespace

uint8_t risk_by_ip(const IpAddr& ip) { return uint8_t(risk_table().find(ip)); }

uint16_t app_by_ip(const IpAddr& ip) {
  if (const UserRules* u = user_rules())
    if (uint16_t id = u->ip_rule(ip, 0)) return id;
  return table().find(ip);
}

}  // namespace fg
