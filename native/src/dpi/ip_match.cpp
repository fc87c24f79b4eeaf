// ④ Address → application, with nDPI's per-application IP prefix lists
// (data/ip-ranges.tsv, see data/README.md). Built once: one sorted array of
// masked networks per prefix length present, searched longest length first,
// so the longest matching prefix wins as in nDPI's Patricia tree. IPv4 and
// IPv6 share one 128-bit space (IPv4 v4-mapped, as IpAddr stores it).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dpi/dpi.h"

namespace fg {
namespace {

#include "dpi/generated/ip-ranges.inc"

using U128 = unsigned __int128;

U128 to_u128(const uint8_t* b) {
  U128 v = 0;
  for (int i = 0; i < 16; i++) v = v << 8 | b[i];
  return v;
}

U128 mask_of(unsigned len) { return len == 0 ? U128(0) : ~U128(0) << (128 - len); }

struct Net {
  U128 net;
  uint16_t app;
  bool operator<(const Net& o) const { return net < o.net; }
};

struct IpTable {
  struct Level {
    unsigned len;
    U128 mask;
    std::vector<Net> nets;  // sorted by network
  };
  std::vector<Level> levels;  // longest prefix first

  IpTable() {
    struct Row {
      uint8_t b[16];
      unsigned len;
      uint16_t app;
    };
    static const Row kRows[] = {
#define FG_X(len, id, ...) {{__VA_ARGS__}, len, id},
        FG_IP_RANGES(FG_X)
#undef FG_X
    };
    std::vector<Level> by_len(129);
    for (const Row& r : kRows) {
      Level& l = by_len[r.len];
      l.len = r.len;
      l.mask = mask_of(r.len);
      l.nets.push_back({to_u128(r.b) & l.mask, r.app});
    }
    for (unsigned len = 129; len-- > 0;) {
      Level& l = by_len[len];
      if (l.nets.empty()) continue;
      // Same network listed twice: the first row wins.
      std::stable_sort(l.nets.begin(), l.nets.end());
      l.nets.erase(std::unique(l.nets.begin(), l.nets.end(), [](const Net& a, const Net& b) { return a.net == b.net; }),
                   l.nets.end());
      levels.push_back(std::move(l));
    }
  }

  uint16_t find(const IpAddr& ip) const {
    const U128 a = to_u128(ip.b);
    for (const Level& l : levels) {
      const Net key{a & l.mask, 0};
      auto it = std::lower_bound(l.nets.begin(), l.nets.end(), key);
      if (it != l.nets.end() && it->net == key.net) return it->app;
    }
    return 0;
  }
};

const IpTable& table() {
  static const IpTable t;
  return t;
}

}  // namespace

uint16_t app_by_ip(const IpAddr& ip) { return table().find(ip); }

}  // namespace fg
