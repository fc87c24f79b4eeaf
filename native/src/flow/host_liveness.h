// ③ Host lifetimes over workers. A host has a part in each worker that saw
// one of its flows; a part idle in its own worker must live on while the
// host is alive in another, or the merged host would lose that part's
// counters (one worker keeps a host until it is idle everywhere).
//
// Each worker's sweep publishes, per host part it visits (every 5 s of its
// packet time), when the part was last active or that it has active flows;
// each worker publishes its clock per batch. A worker drops an idle part
// only when, in every other worker that holds a part of the host, that part
// is idle past the limit too and that worker's clock has reached this one's
// (a worker behind may still see the host before this time). So a host's
// parts expire as the one host would, within the sweep's 5 s, the
// granularity one worker has as well. Written per sweep step and per batch,
// never per packet; no lock.
//
// A slot per host hash and worker holds [busy:1][tag:15][ms:48]; a slot
// another host took (tag differs) tells nothing, as an empty one.
//
// Apart from those, the interface counts a host's parts (enter / leave, a
// compare-and-swap per part made or dropped, never per packet): the part
// that finds none is the host created, the last to go the host expired, so
// two workers making a host's first parts at once count it once.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

namespace fg {

class HostLiveness {
 public:
  HostLiveness(uint32_t max_hosts, uint32_t workers) : workers_(workers) {
    uint64_t n = 1024;
    while (n < uint64_t(max_hosts) * 2) n <<= 1;
    mask_ = n - 1;
    at_.reset(new std::atomic<uint64_t>[n * workers]());
    clocks_.reset(new Clock[workers]());
    parts_.reset(new std::atomic<uint64_t>[n]());
  }
  // A worker made a part of the host: true when no other part exists (a
  // host created on the interface).
  bool enter(uint64_t host_hash) noexcept {
    const uint64_t t = part_tag(host_hash);
    for (int attempt = 0; attempt < 8; attempt++) {
      std::atomic<uint64_t>* free = nullptr;
      uint64_t seen = 0;
      for (uint64_t k = 0; k < kWindow; k++) {
        std::atomic<uint64_t>& a = parts_[(host_hash + k) & mask_];
        uint64_t v = a.load(std::memory_order_acquire);
        while ((v & kPartTag) == t)  // the host's slot (a count of 0: its parts all went)
          if (a.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) return (v & kParts) == 0;
        if (!free && (v & kParts) == 0) free = &a, seen = v;  // empty, or a gone host's
      }
      if (!free) break;
      // not known here: the first free slot of the window; when another
      // worker took it first for this host, the next pass joins it
      if (free->compare_exchange_strong(seen, t | 1, std::memory_order_acq_rel)) return true;
    }
    return true;  // no room in the window: counted as a host of its own
  }
  // A worker dropped its part: true when it was the host's last (a host
  // expired on the interface).
  bool leave(uint64_t host_hash) noexcept {
    const uint64_t t = part_tag(host_hash);
    for (uint64_t k = 0; k < kWindow; k++) {
      std::atomic<uint64_t>& a = parts_[(host_hash + k) & mask_];
      uint64_t v = a.load(std::memory_order_acquire);
      while ((v & kPartTag) == t && (v & kParts))
        if (a.compare_exchange_weak(v, v - 1, std::memory_order_acq_rel)) return (v & kParts) == 1;
    }
    return true;  // not counted at enter (a full window): it goes alone
  }
  // Worker w's part of a host: last active at last_ns, or busy (active flows).
  void publish(uint32_t w, uint64_t host_hash, uint64_t last_ns, bool busy) noexcept {
    const uint64_t v = (busy ? kBusy : 0) | tag(host_hash) | ((last_ns / 1000000) & kMs);
    at_[slot(w, host_hash)].store(v, std::memory_order_relaxed);
  }
  void clock(uint32_t w, uint64_t now_ns) noexcept { clocks_[w].ns.store(now_ns, std::memory_order_relaxed); }
  // May worker w drop its idle part of the host now?
  bool others_idle(uint32_t w, uint64_t host_hash, uint64_t now_ns, uint64_t idle_ns) const noexcept {
    for (uint32_t j = 0; j < workers_; j++) {
      if (j == w) continue;
      const uint64_t v = at_[slot(j, host_hash)].load(std::memory_order_relaxed);
      if (!v || (v & kTag) != tag(host_hash)) continue;  // no part there (or not known)
      if (v & kBusy) return false;
      if ((v & kMs) * 1000000 + idle_ns >= now_ns) return false;
      if (clocks_[j].ns.load(std::memory_order_relaxed) < now_ns) return false;
    }
    return true;
  }
  // Worker w dropped its part: it tells nothing any more.
  void forget(uint32_t w, uint64_t host_hash) noexcept {
    std::atomic<uint64_t>& a = at_[slot(w, host_hash)];
    uint64_t v = a.load(std::memory_order_relaxed);
    if ((v & kTag) == tag(host_hash)) a.compare_exchange_strong(v, 0, std::memory_order_relaxed);
  }
  size_t memory_bytes() const { return (mask_ + 1) * (workers_ + 1) * sizeof(uint64_t) + workers_ * sizeof(Clock); }

 private:
  static constexpr uint64_t kBusy = uint64_t(1) << 63, kTag = uint64_t(0x7fff) << 48, kMs = (uint64_t(1) << 48) - 1;
  // parts_: [tag:32][parts:32], probed over a window of slots from the hash's own
  static constexpr uint64_t kPartTag = ~uint64_t(0) << 32, kParts = 0xffffffffu, kWindow = 16;
  static uint64_t part_tag(uint64_t h) { return (h | uint64_t(1) << 63) & kPartTag; }
  static uint64_t tag(uint64_t h) { return ((h >> 48) & 0x7fff) << 48; }
  size_t slot(uint32_t w, uint64_t h) const { return size_t(w) * (mask_ + 1) + (h & mask_); }
  struct alignas(64) Clock {
    std::atomic<uint64_t> ns{0};
  };
  uint32_t workers_;
  uint64_t mask_;
  std::unique_ptr<std::atomic<uint64_t>[]> at_;
  std::unique_ptr<Clock[]> clocks_;
  std::unique_ptr<std::atomic<uint64_t>[]> parts_;
};

}  // namespace fg
