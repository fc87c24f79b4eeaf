// ⑥ Single-producer single-consumer ring of fixed-size records: the worker
// pushes (never blocks; a full ring drops and counts), the JS thread drains
// whole records into a caller's buffer.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

namespace fg {

template <class Rec>
class SpscRing {
 public:
  explicit SpscRing(uint32_t pow2_capacity) : cap_(pow2_capacity), mask_(pow2_capacity - 1) {
    buf_.reset(new Rec[cap_]);
  }
  bool push(const Rec& r) {
    uint64_t h = head_.load(std::memory_order_relaxed);
    if (h - tail_.load(std::memory_order_acquire) >= cap_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    buf_[h & mask_] = r;
    head_.store(h + 1, std::memory_order_release);
    return true;
  }
  // Copies up to `max` records into `out`; returns how many.
  size_t drain(Rec* out, size_t max) {
    uint64_t t = tail_.load(std::memory_order_relaxed);
    uint64_t h = head_.load(std::memory_order_acquire);
    size_t n = 0;
    while (t != h && n < max) out[n++] = buf_[t++ & mask_];
    tail_.store(t, std::memory_order_release);
    return n;
  }
  size_t size() const { return size_t(head_.load() - tail_.load()); }
  size_t capacity() const { return size_t(cap_); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  const uint64_t cap_, mask_;
  std::unique_ptr<Rec[]> buf_;
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace fg
