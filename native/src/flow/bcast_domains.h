// ③ Broadcast domains learned from ARP, as ntopng does: the sender and the
// target of an ARP exchange share a subnet; its prefix is the longest one
// (at most /28) holding both addresses. Domains of /16 or wider are not
// taken (ntopng calls them too large: it keeps masks above 0xFFFF0000).
// Aggregated as ntopng's BroadcastDomains::addAddress: a domain inside one
// already known adds a hit to that one; a wider one takes the place of the
// narrower ones it holds (its tree is compacted after each add, their hits
// go with them). Few and rarely new: a flat array.
//
// ntopng derives the prefix from the numeric distance of the two addresses
// and widens it by one bit at most, so a pair straddling a larger boundary
// (x.x.x.63 / x.x.x.64) gets a /27 holding only one of them; here the
// prefix holds both (x.x.x.0/25).
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
  static constexpr uint8_t kWidest = 17;

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
    // inside a known domain (there is at most one: nested ones are compacted)
    for (int i = 0; i < n_; i++)
      if (d_[i].cidr <= cidr && (net & BcastDomains::mask(d_[i].cidr)) == d_[i].net) return d_[i].hits++, i;
    // the narrower domains it holds give way
    int k = 0;
    for (int i = 0; i < n_; i++)
      if (!((d_[i].net & mask) == net)) d_[k++] = d_[i];
    n_ = k;
    if (n_ == kMax) return -1;
    d_[n_] = {net, cidr, 1};
    created = true;
    return n_++;
  }

  // An ARP exchange whose sender and target share no subnet of /17 or
  // narrower (what learn() does not take): ntopng's broadcast domain too
  // large. Probes and link-local addresses excepted, as in learn().
  static bool too_large(uint32_t spa, uint32_t tpa) {
    uint32_t diff = spa ^ tpa;
    if (!spa || !diff || (spa & 0xFFFF0000u) == 0xA9FE0000u || (tpa & 0xFFFF0000u) == 0xA9FE0000u) return false;
    return (spa & 0xFFFF8000u) != (tpa & 0xFFFF8000u);
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
