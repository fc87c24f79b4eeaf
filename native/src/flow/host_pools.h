// ③ Host pools (ntopng's HostPools): which pool a host belongs to, by its
// MAC first, then by the longest network (address or CIDR, on a VLAN) that
// holds it. Built on the JS thread from the pools' members, then swapped in
// whole (Engine::set_host_pools) and applied to every host at once; a host
// created later looks it up once, never per packet.
#pragma once
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "flow/local_nets.h"

namespace fg {

// ntopng's NO_HOST_POOL_ID; pool ids stay below 128 (UNLIMITED_NUM_HOST_POOLS)
constexpr uint8_t kNoHostPool = 0;
constexpr unsigned kMaxHostPools = 128;

class HostPoolTable {
 public:
  // An address or network member: a v4 network is v4-mapped (a /24 is /120).
  void add_net(const Cidr& c, uint16_t vlan, uint8_t pool) {
    Level* l = level(c.bits, c.v4);
    l->nets[key(c.net, c.bits, vlan)] = pool;
  }
  void add_mac(const uint8_t mac[6], uint8_t pool) { macs_[mac_key(mac)] = pool; }
  bool empty() const { return levels_.empty() && macs_.empty(); }

  uint8_t lookup(const IpAddr& ip, uint16_t vlan, const uint8_t* mac) const {
    if (mac && !macs_.empty()) {
      auto m = macs_.find(mac_key(mac));
      if (m != macs_.end()) return m->second;
    }
    for (const Level& l : levels_) {  // longest prefix first
      // a v4 network never holds a v6 address and the reverse (::/0 holds no v4 one)
      if (l.v4 != ip.is_v4()) continue;
      auto n = l.nets.find(key(ip, l.bits, vlan));
      if (n != l.nets.end()) return n->second;
    }
    return kNoHostPool;
  }

 private:
  struct Key {
    uint64_t hi, lo;
    uint16_t vlan;
    bool operator==(const Key& o) const { return hi == o.hi && lo == o.lo && vlan == o.vlan; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.hi * 0x9E3779B97F4A7C15ULL ^ (k.lo + 0x632BE59BD9B4E019ULL + (uint64_t(k.vlan) << 48));
      return size_t(h ^ (h >> 29));
    }
  };
  struct Level {
    uint8_t bits;
    bool v4;
    std::unordered_map<Key, uint8_t, KeyHash> nets;
  };

  static Key key(const IpAddr& a, uint8_t bits, uint16_t vlan) {
    uint8_t b[16];
    std::memcpy(b, a.b, 16);
    for (int i = 0; i < 16; i++) {
      int keep = int(bits) - i * 8;
      b[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : uint8_t(0xff << (8 - keep));
    }
    Key k{0, 0, vlan};
    for (int i = 0; i < 8; i++) k.hi = k.hi << 8 | b[i], k.lo = k.lo << 8 | b[8 + i];
    return k;
  }
  static uint64_t mac_key(const uint8_t* m) {
    uint64_t k = 0;
    for (int i = 0; i < 6; i++) k = k << 8 | m[i];
    return k;
  }
  Level* level(uint8_t bits, bool v4) {
    for (Level& l : levels_)
      if (l.bits == bits && l.v4 == v4) return &l;
    levels_.push_back(Level{bits, v4, {}});
    std::sort(levels_.begin(), levels_.end(), [](const Level& a, const Level& b) { return a.bits > b.bits; });
    for (Level& l : levels_)
      if (l.bits == bits && l.v4 == v4) return &l;
    return nullptr;
  }

  std::vector<Level> levels_;
  std::unordered_map<uint64_t, uint8_t> macs_;
};

}  // namespace fg
