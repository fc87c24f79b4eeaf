// ③ Broadcast domains learned from ARP, as ntopng does: the sender and the
// target of an ARP exchange share a subnet; its prefix is the longest one
// (at most /28) holding both addresses. Domains wider than /16 are not
// taken (ntopng calls them too large). Few and rarely new: a flat array.
#pragma once
#include <cstdint>

namespace fg {

struct BcastDomain {
  uint32_t net;    // host byte order
  uint8_t cidr;
  uint64_t hits;
};

// One ARP packet naming a broadcast domain too large (ntopng's
// AlertsQueue::pushBroadcastDomainTooLargeAlert arguments).
struct BcastTooLarge {
  uint8_t src_mac[6], dst_mac[6];
  uint16_t vlan;
  uint32_t spa, tpa;  // host byte order
};

// Those of one minute: the first kMax kept, the others counted.
struct BcastTooLargeLog {
  static constexpr int kMax = 64;
  BcastTooLarge ev[kMax];
  uint32_t n = 0;
  uint64_t over = 0;
  void add(const BcastTooLarge& e) noexcept {
    if (n < kMax) ev[n++] = e;
    else over++;
  }
};

class BcastDomains {
 public:
  static constexpr int kMax = 256;
  static constexpr uint8_t kWidest = 16;

  // Returns the domain index when the pair names one (new or known), else -1.
  // `created` tells the caller to flag the hosts already inside it.
  int learn(uint32_t spa, uint32_t tpa, bool& created) {
    created = false;
    uint32_t diff = spa ^ tpa;
    // an ARP probe (sender 0), link-local addresses, or the same address
    if (!spa || !diff || (spa & 0xFFFF0000u) == 0xA9FE0000u || (tpa & 0xFFFF0000u) == 0xA9FE0000u) return -1;
    uint8_t cidr = 28;
    uint32_t mask = 0xFFFFFFF0u;
    while (mask && (spa & mask) != (tpa & mask)) mask <<= 1, cidr--;
    if (cidr < kWidest) return -1;
    uint32_t net = spa & mask;
    for (int i = 0; i < n_; i++)
      if (d_[i].cidr == cidr && d_[i].net == net) return d_[i].hits++, i;
    if (n_ == kMax) return -1;
    d_[n_] = {net, cidr, 1};
    created = true;
    return n_++;
  }

  // An ARP exchange whose sender and target share no subnet of /16 or
  // narrower (what learn() does not take): ntopng's broadcast domain too
  // large. Probes and link-local addresses excepted, as in learn().
  static bool too_large(uint32_t spa, uint32_t tpa) {
    uint32_t diff = spa ^ tpa;
    if (!spa || !diff || (spa & 0xFFFF0000u) == 0xA9FE0000u || (tpa & 0xFFFF0000u) == 0xA9FE0000u) return false;
    return (spa & 0xFFFF0000u) != (tpa & 0xFFFF0000u);
  }

  bool contains(uint32_t ip) const {
    for (int i = 0; i < n_; i++)
      if ((ip & mask(d_[i].cidr)) == d_[i].net) return true;
    return false;
  }

  int size() const { return n_; }
  const BcastDomain& operator[](int i) const { return d_[i]; }
  static uint32_t mask(uint8_t cidr) { return cidr ? 0xFFFFFFFFu << (32 - cidr) : 0; }

 private:
  BcastDomain d_[kMax];
  int n_ = 0;
};

}  // namespace fg
