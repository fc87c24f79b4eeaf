// ③ The host table: bounded pool of Host entries keyed by (IP, VLAN), and the
// pool of names hosts learn (DNS answers, DHCP, TLS/HTTP server names …).
#pragma once
#include <cstring>

#include "flow/hash_index.h"
#include "flow/host.h"

namespace fg {

class HostTable {
 public:
  explicit HostTable(uint32_t max_hosts) : index_(max_hosts), pool_(max_hosts) {}

  uint32_t find(const HostKey& k, uint64_t h) const {
    return index_.find(h, [&](uint32_t i) { return pool_[i].key == k; });
  }
  uint32_t create(const HostKey& k, uint64_t h) {
    uint32_t i = pool_.alloc();
    if (i == HashIndex::kNone) return i;
    Host& e = pool_[i];
    e = Host{};
    e.key = k;
    e.hash = h;
    e.name = HashIndex::kNone;
    index_.insert(h, i);
    return i;
  }
  void erase(uint32_t i) {
    index_.erase(pool_[i].hash, i, [&](uint32_t j) { return pool_[j].hash; });
    pool_.release(i);
  }
  const uint64_t* slot_addr(uint64_t h) const { return index_.slot_addr(h); }
  Host& operator[](uint32_t i) { return pool_[i]; }
  const Host& operator[](uint32_t i) const { return pool_[i]; }
  bool used(uint32_t i) const { return pool_.used(i); }
  uint32_t size() const { return pool_.size(); }
  uint32_t max() const { return pool_.max(); }
  size_t memory_bytes() const { return index_.memory_bytes() + pool_.memory_bytes(); }

 private:
  HashIndex index_;
  EntryPool<Host> pool_;
};

enum class NameSource : uint8_t { None = 0, Dns = 1, Dhcp = 2, Mdns = 3, Netbios = 4, Tls = 5, Http = 6, Quic = 7 };

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
  size_t memory_bytes() const { return pool_.memory_bytes(); }

 private:
  struct Slot { char s[kLen]; };
  EntryPool<Slot> pool_;
};

}  // namespace fg
