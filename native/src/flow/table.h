// ③ A bounded table of fixed entries behind a HashIndex: what the flow and
// host tables share. An entry type has `key` (with ==) and `hash`.
#pragma once
#include "flow/hash_index.h"

namespace fg {

template <class Entry, class Key>
class Table {
 public:
  explicit Table(uint32_t max) : index_(max), pool_(max) {}

  uint32_t find(const Key& k, uint64_t h) const {
    return index_.find(h, [&](uint32_t i) { return pool_[i].key == k; });
  }
  // A zeroed entry for `k`; kNone when the table is full.
  uint32_t create(const Key& k, uint64_t h) {
    uint32_t i = pool_.alloc();
    if (i == HashIndex::kNone) return i;
    Entry& e = pool_[i];
    e = Entry{};
    e.key = k;
    e.hash = h;
    index_.insert(h, i);
    return i;
  }
  void erase(uint32_t i) {
    index_.erase(pool_[i].hash, i, [&](uint32_t j) { return pool_[j].hash; });
    pool_.release(i);
  }
  const uint64_t* slot_addr(uint64_t h) const { return index_.slot_addr(h); }
  uint32_t candidate(uint64_t h) const { return index_.candidate(h); }
  Entry& operator[](uint32_t i) { return pool_[i]; }
  const Entry& operator[](uint32_t i) const { return pool_[i]; }
  bool used(uint32_t i) const { return pool_.used(i); }
  uint32_t size() const { return pool_.size(); }
  uint32_t max() const { return pool_.max(); }
  uint32_t span() const { return pool_.span(); }  // every used slot is below it
  size_t memory_bytes(Mem m = Mem::Resident) const { return index_.memory_bytes(m) + pool_.memory_bytes(m); }

 private:
  HashIndex index_;
  EntryPool<Entry> pool_;
};

}  // namespace fg
