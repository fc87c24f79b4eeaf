// ③ Open-addressing index shared by the flow, host and MAC tables: linear
// probing over 8-byte slots (hash tag + entry number). Entries live in a
// separate dense pool, so the load factor can stay at or below 1/2 without
// every entry paying for empty slots. Tags are compared before any key.
#pragma once
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace fg {

// Tables are anonymous mappings: zero until touched (nothing is faulted in
// before a slot is used), and large ones ask for transparent huge pages —
// lookups land at random in tens of megabytes, and with 4 KiB pages nearly
// every one would also miss the TLB.
struct MapDeleter {
  size_t bytes = 0;
  void operator()(void* p) const {
    if (p) ::munmap(p, bytes);
  }
};
template <class T>
using ZeroArray = std::unique_ptr<T[], MapDeleter>;

// Set while an engine that asked for it builds its tables: their pages are
// faulted in (and zeroed by the kernel) then, not on first use by a packet.
inline thread_local bool t_prefault_tables = false;

inline void prefault(void* p, size_t bytes) {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  if (t_prefault_tables) ::madvise(p, bytes, MADV_POPULATE_WRITE);
}

// `huge` false: 4 KiB pages (a sparse table touched at random, where a
// huge page per touch would hold far more than the entries used).
inline void* map_zeroed(size_t& bytes, bool huge = true) {
  constexpr size_t kHuge = size_t(2) << 20;
  bytes = (bytes + 4095) & ~size_t(4095);
  if (bytes < 2 * kHuge || !huge) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    prefault(p, bytes);
    return p;
  }
  // Align to 2 MiB so the whole table can be backed by huge pages.
  bytes = (bytes + kHuge - 1) & ~(kHuge - 1);
  size_t span = bytes + kHuge;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~uintptr_t(kHuge - 1);
  size_t head = start - reinterpret_cast<uintptr_t>(raw);
  if (head) ::munmap(raw, head);
  if (span - head > bytes) ::munmap(reinterpret_cast<void*>(start + bytes), span - head - bytes);
  ::madvise(reinterpret_cast<void*>(start), bytes, MADV_HUGEPAGE);
  prefault(reinterpret_cast<void*>(start), bytes);
  return reinterpret_cast<void*>(start);
}

template <class T>
ZeroArray<T> zero_array(size_t n, bool huge = true) {
  size_t bytes = (n ? n : 1) * sizeof(T);
  void* p = map_zeroed(bytes, huge);
  return ZeroArray<T>(static_cast<T*>(p), MapDeleter{bytes});
}

// The bytes of a mapping the kernel holds in memory (mincore): a table's
// memory is what its entries touched, not what it reserved. Asked by the
// statistics, never on the packet path.
inline size_t resident_bytes(const void* p, size_t bytes) {
  if (!p || !bytes) return 0;
  constexpr size_t kPage = 4096, kStep = 4096;  // pages per mincore call
  unsigned char vec[kStep];
  size_t pages = (bytes + kPage - 1) / kPage, in = 0;
  auto* at = static_cast<unsigned char*>(const_cast<void*>(p));
  for (size_t i = 0; i < pages; i += kStep) {
    const size_t n = pages - i < kStep ? pages - i : kStep;
    if (::mincore(at + i * kPage, n * kPage, vec) != 0) return bytes;  // cannot tell: count it all
    for (size_t j = 0; j < n; j++) in += vec[j] & 1;
  }
  return in * kPage;
}
// What a table's memory figure counts: the pages in memory, or the whole
// reservation (what a table full to its last entry would hold).
enum class Mem : uint8_t { Resident, Reserved };
template <class T>
size_t mem_bytes(const ZeroArray<T>& a, Mem m) {
  return m == Mem::Reserved ? a.get_deleter().bytes : resident_bytes(a.get(), a.get_deleter().bytes);
}

class HashIndex {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;

  // 1.5 slots per entry (load ≤ 2/3 when full: a probe stays within a cache
  // line or two) rather than a power of two's 2, a third less memory; the
  // home slot maps the hash's low 32 bits onto [0, cap) by multiplication.
  explicit HashIndex(uint32_t max_entries, bool huge = true) {
    cap_ = (uint64_t(max_entries) * 3 / 2 + 7) & ~uint64_t(7);
    if (cap_ < 16) cap_ = 16;
    slots_ = zero_array<uint64_t>(cap_, huge);
  }

  // A slot holds the hash's upper 32 bits (top bit forced on, so a used slot
  // is never 0) and the entry number: one cache line answers most probes
  // without touching an entry. Entries keep only the low 32 bits (home()).
  static uint64_t tag_of(uint64_t h) { return (h >> 32) | 0x80000000u; }
  uint64_t home(uint64_t h) const { return (uint64_t(uint32_t(h)) * cap_) >> 32; }
  uint64_t next(uint64_t i) const { return i + 1 == cap_ ? 0 : i + 1; }

  const uint64_t* slot_addr(uint64_t h) const { return &slots_[home(h)]; }

  // The first entry whose tag matches, without comparing keys: something to
  // prefetch before the real lookup (kNone when the probe ends first).
  uint32_t candidate(uint64_t h) const {
    const uint64_t t = tag_of(h);
    for (uint64_t i = home(h);; i = next(i)) {
      uint64_t s = slots_[i];
      if (s == 0) return kNone;
      if ((s >> 32) == t) return uint32_t(s);
    }
  }

  // eq(entry) -> bool compares a candidate's key.
  template <class Eq>
  uint32_t find(uint64_t h, Eq&& eq) const {
    const uint64_t t = tag_of(h);
    for (uint64_t i = home(h);; i = next(i)) {
      uint64_t s = slots_[i];
      if (s == 0) return kNone;
      if ((s >> 32) == t && eq(uint32_t(s))) return uint32_t(s);
    }
  }

  void insert(uint64_t h, uint32_t entry) {
    uint64_t i = home(h);
    while (slots_[i] != 0) i = next(i);
    slots_[i] = tag_of(h) << 32 | entry;
  }

  // hash_of(entry) gives back (at least the low 32 bits of) an entry's hash.
  template <class HashOf>
  void erase(uint64_t h, uint32_t entry, HashOf&& hash_of) {
    uint64_t i = home(h);
    while (!(slots_[i] != 0 && uint32_t(slots_[i]) == entry)) i = next(i);
    // Backward-shift deletion (Knuth 6.4 algorithm R): no tombstones.
    for (uint64_t j = next(i);; j = next(j)) {
      if (slots_[j] == 0) break;
      uint64_t at = home(hash_of(uint32_t(slots_[j])));
      // Move j into the hole at i unless j's home lies cyclically in (i, j].
      bool keep = (i <= j) ? (i < at && at <= j) : (i < at || at <= j);
      if (keep) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = 0;
  }

  uint64_t capacity() const { return cap_; }
  size_t memory_bytes(Mem m = Mem::Resident) const { return mem_bytes(slots_, m); }

 private:
  uint64_t cap_;
  ZeroArray<uint64_t> slots_;
};

// A pool of fixed-size entries reserved at construction (address space
// only) with a free-number stack: nothing is allocated after construction,
// and an entry's memory is touched when the entry is first handed out —
// never-used entries, and the stack's room for them, cost nothing.
// Entries for a share (0..1) of a table of n, rounded up: the pools sized
// from the flow and host tables (classifier state, side state) use it.
inline uint32_t share_of(uint32_t n, double share) {
  return uint32_t(double(n) * (share < 0 ? 0 : share > 1 ? 1 : share) + 0.999999);
}

template <class T>
class EntryPool {
 public:
  explicit EntryPool(uint32_t max) : max_(max) {
    static_assert(std::is_trivially_copyable_v<T>, "pool entries are raw memory");
    entries_ = zero_array<T>(max);
    free_ = zero_array<uint32_t>(max);
    used_ = zero_array<uint8_t>(max);
  }
  // Released entries first, the latest first (its lines are likely still
  // cached), then never-used ones from the low end: the entries in use stay
  // packed below span().
  uint32_t alloc() {
    uint32_t i;
    if (nfree_) i = free_[--nfree_];
    else if (span_ < max_) i = span_++;
    else return HashIndex::kNone;
    used_[i] = 1;
    return i;
  }
  void release(uint32_t i) {
    used_[i] = 0;
    free_[nfree_++] = i;
  }
  // Room for `max` entries (never below what has been handed out), every
  // entry at its number: references to entries stay valid. Builds the new
  // arrays before it lets the old go (may throw std::bad_alloc, changing nothing).
  void grow(uint32_t max) {
    if (max <= max_) return;
    ZeroArray<T> e = zero_array<T>(max);
    ZeroArray<uint32_t> f = zero_array<uint32_t>(max);
    ZeroArray<uint8_t> u = zero_array<uint8_t>(max);
    std::memcpy(static_cast<void*>(e.get()), entries_.get(), size_t(span_) * sizeof(T));
    std::memcpy(f.get(), free_.get(), size_t(nfree_) * sizeof(uint32_t));
    std::memcpy(u.get(), used_.get(), span_);
    entries_ = std::move(e), free_ = std::move(f), used_ = std::move(u), max_ = max;
  }
  T& operator[](uint32_t i) { return entries_[i]; }
  const T& operator[](uint32_t i) const { return entries_[i]; }
  bool used(uint32_t i) const { return used_[i] != 0; }
  uint32_t max() const { return max_; }
  uint32_t size() const { return span_ - nfree_; }
  // One past the highest slot ever handed out: every used slot lies below it,
  // so walks over a large, partly filled table stop here.
  uint32_t span() const { return span_; }
  // Resident: the entries' pages touched so far (all of them when the engine
  // faulted its tables in at start).
  size_t memory_bytes(Mem m = Mem::Resident) const { return mem_bytes(entries_, m) + mem_bytes(free_, m) + mem_bytes(used_, m); }

 private:
  uint32_t max_;
  uint32_t nfree_ = 0;  // released entries on the stack
  uint32_t span_ = 0;
  ZeroArray<T> entries_;
  ZeroArray<uint32_t> free_;
  ZeroArray<uint8_t> used_;
};

}  // namespace fg
