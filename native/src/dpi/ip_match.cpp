// ④ Address → application, with nDPI's per-application IP prefix lists
// (data/ip-ranges.tsv, see data/README.md). Built once into disjoint ranges
// where the longest matching prefix wins, as in nDPI's Patricia tree. IPv4
// and IPv6 share one 128-bit space (IPv4 v4-mapped, as IpAddr stores it).
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

// The lists flattened into one sorted run of disjoint ranges, each holding
// the application of the longest prefix covering it (0 for none): one
// binary search per address, whatever the number of prefix lengths.
struct IpTable {
  std::vector<U128> starts;   // range i covers [starts[i], starts[i + 1])
  std::vector<uint16_t> apps;

  void emit(U128 at, uint16_t app) {
    if (!starts.empty() && starts.back() == at) {
      apps.back() = app;  // a longer prefix starting here overrides
      if (apps.size() > 1 && apps[apps.size() - 2] == app) starts.pop_back(), apps.pop_back();
      return;
    }
    if (!apps.empty() && apps.back() == app) return;  // same application runs on
    starts.push_back(at), apps.push_back(app);
  }

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
    struct Prefix {
      U128 start, end;
      unsigned len;
      uint16_t app;
      size_t row;
    };
    std::vector<Prefix> ps;
    ps.reserve(sizeof(kRows) / sizeof(kRows[0]));
    for (size_t i = 0; i < sizeof(kRows) / sizeof(kRows[0]); i++) {
      const Row& r = kRows[i];
      const U128 m = mask_of(r.len), start = to_u128(r.b) & m;
      ps.push_back({start, start | ~m, r.len, r.app, i});
    }
    // Outer prefixes before the ones nested in them; the same network listed
    // twice: the first row wins.
    std::sort(ps.begin(), ps.end(), [](const Prefix& x, const Prefix& y) {
      if (x.start != y.start) return x.start < y.start;
      if (x.len != y.len) return x.len < y.len;
      return x.row < y.row;
    });
    ps.erase(std::unique(ps.begin(), ps.end(), [](const Prefix& x, const Prefix& y) { return x.start == y.start && x.len == y.len; }),
             ps.end());
    // Prefixes nest or are disjoint: a stack of the open ones.
    std::vector<const Prefix*> open;
    auto close_before = [&](U128 at, bool all) {
      while (!open.empty() && (all || open.back()->end < at)) {
        const U128 end = open.back()->end;
        open.pop_back();
        if (end != ~U128(0)) emit(end + 1, open.empty() ? 0 : open.back()->app);
      }
    };
    emit(0, 0);
    for (const Prefix& p : ps) {
      close_before(p.start, false);
      emit(p.start, p.app);
      open.push_back(&p);
    }
    close_before(0, true);
  }

  uint16_t find(const IpAddr& ip) const {
    const U128 a = to_u128(ip.b);
    const size_t i = size_t(std::upper_bound(starts.begin(), starts.end(), a) - starts.begin());
    return i ? apps[i - 1] : 0;
  }
};

const IpTable& table() {
  static const IpTable t;
  return t;
}

}  // namespace

uint16_t app_by_ip(const IpAddr& ip) { return table().find(ip); }

}  // namespace fg
