// ③ Strings that recur across many entries kept once, by reference: each
// holder keeps an id into the pool and a reference; the last release frees
// the string. Fixed size (an EntryPool and a HashIndex), no allocation
// after construction. Used for the hosts' top sites (flow/site_names.h)
// and the flows' protocol strings (dpi/meta.h: User-Agent, Server, SSH
// banners …).
#pragma once
#include <cstdint>
#include <cstring>

#include "flow/hash_index.h"
#include "util/bytes.h"

namespace fg {

// FNV-1a over a string's bytes: the hash InternedNames entries are keyed by.
inline uint32_t fnv1a(const char* s, size_t n) noexcept {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ uint8_t(s[i])) * 16777619u;
  return h;
}

// A faster hash for strings no one else hashes (8 bytes a step): the
// flows' interned strings.
inline uint32_t str_hash(const char* s, size_t n) noexcept {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (; n >= 8; s += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, s, 8);
    h = mix64(h ^ w);
  }
  if (n) {
    uint64_t w = 0;
    for (size_t k = 0; k < n; k++) w |= uint64_t(uint8_t(s[k])) << (8 * k);  // not a memcpy call of variable size
    h = mix64(h ^ w ^ 0xff00000000000000ULL);
  }
  return uint32_t(h ^ (h >> 32));
}

// Strings keyed by (the caller's 32-bit hash, the string cut to kLen - 1
// characters): two strings alike in their first kLen - 1 characters but
// hashed apart stay two entries.
template <uint32_t kLen>
class InternedNames {
 public:
  // The index is not given huge pages: strings land at random in it, and a
  // 2 MiB page faulted in per string would cost more than interning saves.
  explicit InternedNames(uint32_t max) : pool_(max), index_(max, false) {}

  // The string's id, kNone when nothing holds it (no reference taken).
  uint32_t find(const char* s, size_t len, uint32_t h) const noexcept {
    if (len >= kLen) len = kLen - 1;
    return index_.find(key(h), [&](uint32_t i) {
      const Entry& e = pool_[i];
      return e.hash == h && std::strncmp(e.s, s, len) == 0 && e.s[len] == 0;
    });
  }
  // A reference to the string, added if new (kNone: the pool is full).
  uint32_t intern(const char* s, size_t len, uint32_t h) noexcept {
    if (len >= kLen) len = kLen - 1;
    uint32_t i = find(s, len, h);
    if (i == HashIndex::kNone) {
      i = pool_.alloc();
      if (i == HashIndex::kNone) return i;
      Entry& e = pool_[i];
      e.refs = 0, e.hash = h;
      std::memcpy(e.s, s, len), e.s[len] = 0;
      index_.insert(key(h), i);
    }
    pool_[i].refs++;
    return i;
  }
  // Drops a reference; the last one frees the string.
  void release(uint32_t i) noexcept {
    if (--pool_[i].refs) return;
    index_.erase(key(pool_[i].hash), i, [&](uint32_t j) { return key(pool_[j].hash); });
    pool_.release(i);
  }
  const char* name(uint32_t i) const { return pool_[i].s; }
  uint32_t hash(uint32_t i) const { return pool_[i].hash; }
  uint32_t max() const { return pool_.max(); }
  // Room for `max` strings, ids unchanged (holders keep theirs). May throw
  // std::bad_alloc, changing nothing.
  void grow(uint32_t max) {
    if (max <= pool_.max()) return;
    HashIndex ix(max, false);
    for (uint32_t i = 0; i < pool_.span(); i++)
      if (pool_.used(i)) ix.insert(key(pool_[i].hash), i);
    pool_.grow(max);
    index_ = std::move(ix);
  }
  size_t memory_bytes(Mem m = Mem::Resident) const { return pool_.memory_bytes(m) + index_.memory_bytes(m); }

  struct Entry {  // the length is where the NUL is
    uint32_t refs, hash;
    char s[kLen];
  };

 private:
  // the index takes its tag from the upper 32 bits: spread the 32-bit hash over 64
  static uint64_t key(uint32_t h) { return mix64(h); }
  EntryPool<Entry> pool_;
  HashIndex index_;
};

}  // namespace fg
