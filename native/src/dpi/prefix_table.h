// ④ Longest-prefix lookup over a fixed set of IP prefixes, flattened into
// one sorted run of disjoint ranges (nDPI keeps a Patricia tree): one binary
// search per address, whatever the number of prefix lengths. IPv4 and IPv6
// share one 128-bit space (IPv4 v4-mapped, as IpAddr stores it). Used for
// nDPI's address lists (ip_match.cpp) and the operator's rules (user_rules).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "decode/packet.h"

namespace fg {

class PrefixTable {
 public:
  using U128 = unsigned __int128;
  struct Prefix {
    uint8_t b[16];
    unsigned len;    // 0..128 (an IPv4 /24 is a /120)
    uint16_t value;  // non-zero
  };

  static U128 to_u128(const uint8_t* b) {
    U128 v = 0;
    for (int i = 0; i < 16; i++) v = v << 8 | b[i];
    return v;
  }

  PrefixTable() = default;
  // The same network listed twice: the first wins; a prefix nested in
  // another overrides it inside.
  explicit PrefixTable(const std::vector<Prefix>& rows) {
    struct P {
      U128 start, end;
      unsigned len;
      uint16_t value;
      size_t row;
    };
    std::vector<P> ps;
    ps.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); i++) {
      const U128 m = mask_of(rows[i].len), start = to_u128(rows[i].b) & m;
      ps.push_back({start, start | ~m, rows[i].len, rows[i].value, i});
    }
    std::sort(ps.begin(), ps.end(), [](const P& x, const P& y) {
      if (x.start != y.start) return x.start < y.start;
      if (x.len != y.len) return x.len < y.len;
      return x.row < y.row;
    });
    ps.erase(std::unique(ps.begin(), ps.end(), [](const P& x, const P& y) { return x.start == y.start && x.len == y.len; }), ps.end());
    // Prefixes nest or are disjoint: a stack of the open ones.
    std::vector<const P*> open;
    auto close_before = [&](U128 at, bool all) {
      while (!open.empty() && (all || open.back()->end < at)) {
        const U128 end = open.back()->end;
        open.pop_back();
        if (end != ~U128(0)) emit(end + 1, open.empty() ? 0 : open.back()->value);
      }
    };
    emit(0, 0);
    for (const P& p : ps) {
      close_before(p.start, false);
      emit(p.start, p.value);
      open.push_back(&p);
    }
    close_before(0, true);
  }

  // Already disjoint ranges: range i covers [starts[i], starts[i + 1]),
  // starts ascending from 0.
  static PrefixTable from_ranges(std::vector<U128> starts, std::vector<uint16_t> values) {
    PrefixTable t;
    t.starts_ = std::move(starts), t.values_ = std::move(values);
    return t;
  }
  size_t ranges() const { return starts_.size(); }

  uint16_t find(const IpAddr& ip) const {
    if (starts_.empty()) return 0;
    const U128 a = to_u128(ip.b);
    const size_t i = size_t(std::upper_bound(starts_.begin(), starts_.end(), a) - starts_.begin());
    return i ? values_[i - 1] : 0;
  }
  bool empty() const { return starts_.size() <= 1 && (values_.empty() || !values_[0]); }

 private:
  static U128 mask_of(unsigned len) { return len == 0 ? U128(0) : ~U128(0) << (128 - len); }

  void emit(U128 at, uint16_t value) {
    if (!starts_.empty() && starts_.back() == at) {
      values_.back() = value;  // a longer prefix starting here overrides
      if (values_.size() > 1 && values_[values_.size() - 2] == value) starts_.pop_back(), values_.pop_back();
      return;
    }
    if (!values_.empty() && values_.back() == value) return;  // the same value runs on
    starts_.push_back(at), values_.push_back(value);
  }

  std::vector<U128> starts_;  // range i covers [starts_[i], starts_[i + 1])
  std::vector<uint16_t> values_;
};

}  // namespace fg
