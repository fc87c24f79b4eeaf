// ③ The host table: bounded pool of Host entries keyed by (IP, VLAN), and the
// pool of names hosts learn (DNS answers, DHCP, TLS/HTTP server names …).
#pragma once
#include <cstring>

#include "flow/hash_index.h"
#include "flow/host.h"
#include "flow/table.h"

namespace fg {

// Hosts start unnamed: Pipeline::host_for sets Host::name to kNone.
using HostTable = Table<Host, HostKey>;

enum class NameSource : uint8_t { None = 0, Dns = 1, Dhcp = 2, Mdns = 3, Netbios = 4, Tls = 5, Http = 6, Quic = 7 };

// Which source wins when a host is named twice: the host's own claims
// (DHCP, mDNS, NetBIOS) over what others call it (DNS, then server names).
inline int name_priority(uint8_t src) {
  switch (NameSource(src)) {
    case NameSource::Dhcp: return 6;
    case NameSource::Mdns: return 5;
    case NameSource::Netbios: return 4;
    case NameSource::Dns: return 3;
    case NameSource::Tls:
    case NameSource::Quic: return 2;
    case NameSource::Http: return 1;
    case NameSource::None: return 0;
  }
  return 0;
}

// A name learned at `ms` (packet time in ms, wrapping at 2^32) replaces one
// kept from `kept_ms`: a better source, or the same source no earlier. With
// several workers names reach a host's parts out of order; the times keep
// the answer one worker would give (the latest of the best source).
inline uint32_t name_ms_of(uint64_t ns) { return uint32_t(ns / 1000000); }
inline bool name_wins(uint8_t src, uint32_t ms, uint8_t kept_src, uint32_t kept_ms) {
  const int a = name_priority(src), b = name_priority(kept_src);
  return a != b ? a > b : int32_t(ms - kept_ms) >= 0;
}

// Fixed 64-byte slots (63 characters): a host name is rarely longer, and a
// fixed slot keeps naming allocation-free on the packet path.
class NamePool {
 public:
  static constexpr size_t kLen = 64;
  explicit NamePool(uint32_t max) : pool_(max) {}
  uint32_t store(uint32_t slot, const char* s, size_t n) {
    if (slot == HashIndex::kNone) slot = pool_.alloc();
    if (slot == HashIndex::kNone) return slot;
    if (n >= kLen) n = kLen - 1;
    std::memcpy(pool_[slot].s, s, n);
    pool_[slot].s[n] = 0;
    return slot;
  }
  const char* get(uint32_t slot) const { return slot == HashIndex::kNone ? nullptr : pool_[slot].s; }
  void release(uint32_t slot) {
    if (slot != HashIndex::kNone) pool_.release(slot);
  }
  size_t memory_bytes(Mem m = Mem::Resident) const { return pool_.memory_bytes(m); }

 private:
  struct Slot { char s[kLen]; };
  EntryPool<Slot> pool_;
};

}  // namespace fg
