// ③ Per-host application (L7), category and DSCP counters, as ntopng's
// nDPIStats and DSCP stats of a host. Most hosts see one or two applications
// while a few see dozens, so the counters live in a bounded pool of 64-byte
// chunks chained from Host::l7_head rather than in the host entry. Chunks are
// taken and given back only by the sweep / flow expiry (never per packet).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flow/hash_index.h"

namespace fg {

// Entries are packed u32 words; a 0 word ends a chunk's entries. Word 0:
// kind << 14 | id in the low half, the sweep pass of the last credit (mod
// 2^16) in the high half. Counters are 48-bit, in (sent, rcvd) pairs of three words: the
// two low halves, then both high 16 bits.
struct alignas(64) L7Chunk {
  uint32_t next;      // next chunk + 1; 0 ends the chain
  uint32_t w[15];
};
static_assert(sizeof(L7Chunk) == 64);

enum L7Kind : uint32_t { kL7App = 1, kL7Cat = 2, kL7Dscp = 3 };

struct HostAppStats {
  uint16_t id;
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
  uint32_t num_flows, duration;
};
struct HostCatStats {
  uint16_t id;
  uint64_t bytes_sent, bytes_rcvd;
  uint32_t duration;
};
struct HostDscpStats {
  uint8_t dscp;
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
};
struct HostL7Stats {
  std::vector<HostAppStats> apps;    // by id
  std::vector<HostCatStats> cats;
  std::vector<HostDscpStats> dscp;
};

// One accounting step of one flow, from one host's side.
struct L7Credit {
  uint16_t app, cat;
  uint8_t dscp_sent, dscp_rcvd;      // the flow's current DSCP per direction
  bool new_flow;                     // first step of this flow under `app`
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
};

class HostL7Pool {
 public:
  // Words per entry of each kind: header, [flows, duration | duration], pairs.
  static constexpr uint32_t kWords[4] = {0, 9, 5, 7};
  static constexpr uint32_t kChunkWords = 15;

  explicit HostL7Pool(uint32_t max_chunks) : pool_(max_chunks ? max_chunks : 1), max_(max_chunks) {}

  // Credits one step to a host's two chains (chunk + 1 each): applications
  // in heads[0]; categories and DSCP, few per host and wanted by every step,
  // in heads[1] so they are found without walking the applications. All or
  // nothing: false, and nothing changed, when the pool cannot hold a new entry.
  bool credit(uint32_t* heads, const L7Credit& c, uint32_t pass) noexcept {
    struct Want { uint32_t key; uint64_t s_b, r_b, s_p, r_p; uint32_t* at; };
    Want want[4];
    int n = 0;
    want[n++] = {kL7App << 14 | (c.app & 0x3fff), c.bytes_sent, c.bytes_rcvd, c.pkts_sent, c.pkts_rcvd, nullptr};
    want[n++] = {kL7Cat << 14 | (c.cat & 0x3fff), c.bytes_sent, c.bytes_rcvd, 0, 0, nullptr};
    if (c.dscp_sent == c.dscp_rcvd) {
      want[n++] = {kL7Dscp << 14 | (c.dscp_sent & 63), c.bytes_sent, c.bytes_rcvd, c.pkts_sent, c.pkts_rcvd, nullptr};
    } else {  // a direction that carried nothing creates no entry
      if (c.pkts_sent) want[n++] = {kL7Dscp << 14 | (c.dscp_sent & 63), c.bytes_sent, 0, c.pkts_sent, 0, nullptr};
      if (c.pkts_rcvd) want[n++] = {kL7Dscp << 14 | (c.dscp_rcvd & 63), 0, c.bytes_rcvd, 0, c.pkts_rcvd, nullptr};
    }
    auto chain_of = [](const Want& x) { return x.key >> 14 == kL7App ? 0 : 1; };
    int missing = 0;
    for (int h = 0; h < 2; h++) {
      int left = 0;
      for (int k = 0; k < n; k++) left += chain_of(want[k]) == h;
      for (uint32_t ch = heads[h]; ch && left; ch = pool_[ch - 1].next) {
        uint32_t* w = pool_[ch - 1].w;
        for (uint32_t i = 0; i < kChunkWords && w[i];) {
          for (int k = 0; k < n; k++)
            if (!want[k].at && (w[i] & 0xffff) == want[k].key) want[k].at = &w[i], left--;
          i += kWords[w[i] >> 14 & 3];
        }
      }
      missing += left;
    }
    if (missing) {
      // New entries go to a chain's head chunk while they fit, then to a new head.
      uint32_t need = 0;
      for (int h = 0; h < 2; h++) {
        uint32_t used = heads[h] ? used_words(pool_[heads[h] - 1]) : kChunkWords;
        for (int k = 0; k < n; k++) {
          if (want[k].at || chain_of(want[k]) != h) continue;
          uint32_t sz = kWords[want[k].key >> 14];
          if (used + sz > kChunkWords) need++, used = 0;
          used += sz;
        }
      }
      if (pool_.size() + need > max_) return false;
      for (int k = 0; k < n; k++) {
        if (want[k].at) continue;
        uint32_t& head = heads[chain_of(want[k])];
        uint32_t sz = kWords[want[k].key >> 14];
        uint32_t u = head ? used_words(pool_[head - 1]) : kChunkWords;
        if (u + sz > kChunkWords) {
          uint32_t ch = pool_.alloc();
          std::memset(&pool_[ch], 0, sizeof(L7Chunk));
          pool_[ch].next = head;
          head = ch + 1;
          u = 0;
        }
        uint32_t* e = &pool_[head - 1].w[u];
        e[0] = want[k].key | uint32_t(uint16_t(pass - 1)) << 16;  // the first credit adds a period
        want[k].at = e;
      }
    }
    for (int k = 0; k < n; k++) {
      uint32_t* e = want[k].at;
      const uint32_t kind = e[0] >> 14 & 3;
      if (kind != kL7Dscp) {
        // ntopng's nDPIStats adds its 5 s housekeeping period once per period
        // with traffic; we add our 5 s sweep pass once per pass with a credit.
        uint32_t* dur = kind == kL7App ? &e[2] : &e[1];
        if (uint16_t(e[0] >> 16) != uint16_t(pass)) {
          *dur += kPeriod;
          e[0] = (e[0] & 0xffff) | uint32_t(uint16_t(pass)) << 16;
        }
      }
      Want& x = want[k];
      switch (kind) {
        case kL7App:
          e[1] += c.new_flow;
          add_pair(e + 3, x.s_b, x.r_b);
          add_pair(e + 6, x.s_p, x.r_p);
          break;
        case kL7Cat: add_pair(e + 2, x.s_b, x.r_b); break;
        case kL7Dscp:
          add_pair(e + 1, x.s_b, x.r_b);
          add_pair(e + 4, x.s_p, x.r_p);
          break;
      }
    }
    return true;
  }

  void release(uint32_t* heads) noexcept {
    for (int h = 0; h < 2; h++) {
      while (heads[h]) {
        uint32_t next = pool_[heads[h] - 1].next;
        pool_.release(heads[h] - 1);
        heads[h] = next;
      }
    }
  }

  // Copies a chain out of another pool (table rebuild); the caller made sure
  // this pool has room.
  uint32_t copy_from(const HostL7Pool& o, uint32_t head) {
    uint32_t first = 0, *link = &first;
    for (uint32_t ch = head; ch; ch = o.pool_[ch - 1].next) {
      uint32_t j = pool_.alloc();
      pool_[j] = o.pool_[ch - 1];
      pool_[j].next = 0;
      *link = j + 1;
      link = &pool_[j].next;
    }
    return first;
  }

  HostL7Stats read(const uint32_t* heads) const;

  // Where a host's chains start: worth fetching before credit() walks them.
  const void* chunk_addr(uint32_t head) const { return &pool_[head - 1]; }
  uint32_t used() const { return pool_.size(); }
  uint32_t max() const { return max_; }
  size_t memory_bytes() const { return max_ ? pool_.memory_bytes() : 0; }

  static constexpr uint32_t kPeriod = 5;  // s: a sweep pass, and ntopng's housekeeping frequency

 private:
  static uint32_t used_words(const L7Chunk& c) {
    uint32_t i = 0;
    while (i < kChunkWords && c.w[i]) i += kWords[c.w[i] >> 14 & 3];
    return i;
  }
  static void add_pair(uint32_t* p, uint64_t s, uint64_t r) {
    uint64_t a = (uint64_t(p[2] & 0xffff) << 32 | p[0]) + s;
    uint64_t b = (uint64_t(p[2] >> 16) << 32 | p[1]) + r;
    p[0] = uint32_t(a), p[1] = uint32_t(b);
    p[2] = uint32_t(a >> 32 & 0xffff) | uint32_t(b >> 32 & 0xffff) << 16;
  }
  static uint64_t pair_sent(const uint32_t* p) { return uint64_t(p[2] & 0xffff) << 32 | p[0]; }
  static uint64_t pair_rcvd(const uint32_t* p) { return uint64_t(p[2] >> 16) << 32 | p[1]; }

  EntryPool<L7Chunk> pool_;
  uint32_t max_;
};

inline HostL7Stats HostL7Pool::read(const uint32_t* heads) const {
  HostL7Stats s;
  for (int h = 0; h < 2; h++) {
    for (uint32_t ch = heads[h]; ch; ch = pool_[ch - 1].next) {
      const uint32_t* w = pool_[ch - 1].w;
      for (uint32_t i = 0; i < kChunkWords && w[i];) {
        const uint32_t* e = &w[i];
        const uint32_t kind = e[0] >> 14 & 3, id = e[0] & 0x3fff;
        switch (kind) {
          case kL7App:
            s.apps.push_back({uint16_t(id), pair_sent(e + 3), pair_rcvd(e + 3), pair_sent(e + 6), pair_rcvd(e + 6), e[1], e[2]});
            break;
          case kL7Cat: s.cats.push_back({uint16_t(id), pair_sent(e + 2), pair_rcvd(e + 2), e[1]}); break;
          case kL7Dscp:
            s.dscp.push_back({uint8_t(id), pair_sent(e + 1), pair_rcvd(e + 1), pair_sent(e + 4), pair_rcvd(e + 4)});
            break;
        }
        i += kWords[kind];
      }
    }
  }
  auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
  std::sort(s.apps.begin(), s.apps.end(), by_id);
  std::sort(s.cats.begin(), s.cats.end(), by_id);
  std::sort(s.dscp.begin(), s.dscp.end(), [](const auto& a, const auto& b) { return a.dscp < b.dscp; });
  return s;
}

}  // namespace fg
