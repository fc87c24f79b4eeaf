// A process-wide immutable snapshot replaced whole from the JS thread and
// read from any thread without a lock: each thread keeps its own reference
// to the snapshot it last saw and refreshes it when the version moved (one
// atomic load while nothing changed). The reference keeps the snapshot
// alive for that thread until it looks again after a change.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace fg {

template <class T, class Tag = T>
class Published {
 public:
  // The snapshot in force on this thread (nullptr: none).
  static const T* here() {
    // One trivially constructed thread_local on the fast path (the addon is
    // dlopen()ed: each thread_local access is a __tls_get_addr call, and a
    // non-trivial one adds its init guard); the reference that keeps the
    // snapshot alive is touched only when the version moved.
    thread_local Seen seen{nullptr, 0};
    const Seen s = seen;  // both fields from one lookup of the thread's copy
    if (version_.load(std::memory_order_acquire) != s.version) [[unlikely]]
      return refresh(seen);
    return s.ptr;
  }
  static std::shared_ptr<const T> shared() {
    std::lock_guard<std::mutex> lk(mu_);
    return current_;
  }
  // Replaces the snapshot; returns its version (1, 2 …).
  static uint64_t publish(std::shared_ptr<const T> t) {
    std::lock_guard<std::mutex> lk(mu_);
    const uint64_t v = version_.load(std::memory_order_relaxed) + 1;
    current_ = std::move(t);
    version_.store(v, std::memory_order_release);
    return v;
  }
  static uint64_t next_version() { return version_.load(std::memory_order_relaxed) + 1; }

 private:
  struct Seen {
    const T* ptr;
    uint64_t version;
  };
  // Out of line: inlined, its lock and reference counting made every caller
  // of here() save and restore registers on the fast path too.
  [[gnu::noinline, gnu::cold]] static const T* refresh(Seen& seen) {
    thread_local std::shared_ptr<const T> mine;
    std::lock_guard<std::mutex> lk(mu_);
    mine = current_;
    seen = {mine.get(), version_.load(std::memory_order_relaxed)};
    return seen.ptr;
  }
  static inline std::mutex mu_;
  static inline std::shared_ptr<const T> current_;
  static inline std::atomic<uint64_t> version_{0};
};

}  // namespace fg
