// ③ The flow table: a bounded pool of Flow entries behind a HashIndex.
#pragma once
#include "flow/flow.h"
#include "flow/hash_index.h"

namespace fg {

class FlowTable {
 public:
  explicit FlowTable(uint32_t max_flows) : index_(max_flows), pool_(max_flows) {}

  // The entry for `k`, created zeroed if absent; kNone when the table is full.
  uint32_t find(const FlowKey& k, uint64_t h) const {
    return index_.find(h, [&](uint32_t i) { return pool_[i].key == k; });
  }
  uint32_t create(const FlowKey& k, uint64_t h) {
    uint32_t i = pool_.alloc();
    if (i == HashIndex::kNone) return i;
    Flow& f = pool_[i];
    f = Flow{};
    f.key = k;
    f.hash = h;
    index_.insert(h, i);
    return i;
  }
  void erase(uint32_t i) {
    index_.erase(pool_[i].hash, i, [&](uint32_t j) { return pool_[j].hash; });
    pool_.release(i);
  }
  const uint64_t* slot_addr(uint64_t h) const { return index_.slot_addr(h); }
  uint32_t candidate(uint64_t h) const { return index_.candidate(h); }
  Flow& operator[](uint32_t i) { return pool_[i]; }
  const Flow& operator[](uint32_t i) const { return pool_[i]; }
  bool used(uint32_t i) const { return pool_.used(i); }
  uint32_t size() const { return pool_.size(); }
  uint32_t max() const { return pool_.max(); }
  size_t memory_bytes() const { return index_.memory_bytes() + pool_.memory_bytes(); }

 private:
  HashIndex index_;
  EntryPool<Flow> pool_;
};

// TCP retransmission / out-of-order / lost accounting for one direction,
// following ntopng's Flow::updateTcpSeqNum so figures compare with it.
void tcp_seq_update(Flow& f, int dir, uint32_t seq, uint8_t flags, uint32_t payload_len,
                    uint32_t& retr, uint32_t& ooo, uint32_t& lost, uint32_t& keepalive);

}  // namespace fg
