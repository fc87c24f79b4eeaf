// ③ Host lifetimes over workers. A host has a part in each worker that saw
// one of its flows; a part idle in its own worker must live on while the
// host is active in another, or the merged host would lose that part's
// counters (one worker keeps a host until it is idle everywhere). Each
// worker's sweep publishes, per host, when its part was last alive (now
// when it has active flows) into buckets shared by the workers, and expires
// a part only when the latest time any worker published is past the idle
// limit too. Written once per host per sweep pass (5 s), never per packet;
// buckets are hashed without keys, so a collision only keeps a part longer.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

namespace fg {

class HostLiveness {
 public:
  // Buckets: a power of two at least twice the host table.
  explicit HostLiveness(uint32_t max_hosts, uint64_t now_ns = 0) {
    uint64_t n = 1024;
    while (n < uint64_t(max_hosts) * 2) n <<= 1;
    mask_ = n - 1;
    at_.reset(new std::atomic<uint64_t>[n]);
    for (uint64_t i = 0; i < n; i++) at_[i].store(now_ns, std::memory_order_relaxed);
  }
  void publish(uint64_t host_hash, uint64_t alive_ns) noexcept {
    std::atomic<uint64_t>& a = at_[host_hash & mask_];
    uint64_t cur = a.load(std::memory_order_relaxed);
    while (cur < alive_ns && !a.compare_exchange_weak(cur, alive_ns, std::memory_order_relaxed)) {
    }
  }
  uint64_t alive(uint64_t host_hash) const noexcept { return at_[host_hash & mask_].load(std::memory_order_relaxed); }
  size_t memory_bytes() const { return (mask_ + 1) * sizeof(uint64_t); }

 private:
  uint64_t mask_;
  std::unique_ptr<std::atomic<uint64_t>[]> at_;
};

}  // namespace fg
