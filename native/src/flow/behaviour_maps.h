// ③ Behaviour maps (ntopng's Service Map and Periodicity Map): one entry per
// (client, server, server port, L4 protocol, application, VLAN), updated once
// per flow when its classification is done, from the flow's first-seen time
// (ntopng: Flow::setProtocolDetectionCompleted → updateServiceMap /
// updateFlowPeriodicity, keyed on get_first_seen()).
//
// - Service map: flows between two local hosts (the east-west services a
//   lateral movement would use): uses (flows), first and last seen, info.
// - Periodicity map: every flow's start time; a key whose flows start at a
//   regular pace is periodic. The pace is the mean of the intervals between
//   consecutive starts; an interval counts when it is within the tolerance of
//   the mean (max(kTolMinMs, kTolPct % of it)); one that is not starts a new
//   run from the previous start. Starts closer than kBurstMs to the previous
//   one are one burst (a DNS A + AAAA pair): they count as uses, not as
//   intervals. Listed from kMinObservations starts in the run.
//
// Fixed capacity, open addressing, no deletion (ntopng keeps its maps until
// an administrator resets them); keys that find no room are counted.
#pragma once
#include <cstdint>
#include <cstring>

#include "decode/packet.h"
#include "flow/hash_index.h"

namespace fg {

struct BehaviourKey {
  IpAddr cli, srv;
  uint16_t port, vlan;  // the server's port
  uint16_t master, app;
  uint8_t l4;
  uint8_t pad[7];
  bool operator==(const BehaviourKey& o) const { return std::memcmp(this, &o, sizeof *this) == 0; }
};

struct BehaviourEntry {
  BehaviourKey k;
  uint64_t first_ns, last_ns;  // service: first and last flow start; periodicity: the run's first start, its last start
  uint64_t burst_ns;           // periodicity: the last start that opened a burst (intervals are measured from it)
  uint32_t uses;               // flows seen with this key
  uint32_t period_ms;          // periodicity: the run's mean interval (0: one start so far)
  uint32_t observations;       // periodicity: starts in the current run (bursts)
  uint8_t used;
  char info[61];               // the first flow's info (ntopng's getFlowInfo), cut
};

class BehaviourMap {
 public:
  static constexpr uint32_t kBurstMs = 1000;
  static constexpr uint32_t kTolMinMs = 2000;
  static constexpr uint32_t kTolPct = 10;
  static constexpr uint32_t kMinObservations = 4;

  explicit BehaviourMap(uint32_t max_entries);
  // nullptr when the key is new and there is no room (counted in full());
  // `created`: a new entry, whose info the caller fills.
  BehaviourEntry* find_or_add(const BehaviourKey& k, uint64_t t_ns, bool& created) noexcept;
  void add_service_use(BehaviourEntry& e, uint64_t t_ns) noexcept;
  void add_start(BehaviourEntry& e, uint64_t t_ns) noexcept;
  static bool periodic(const BehaviourEntry& e) { return e.observations >= kMinObservations; }

  uint32_t size() const { return n_; }
  uint32_t max() const { return max_; }
  uint64_t full() const { return full_; }
  const BehaviourEntry& slot(uint32_t i) const { return e_[i]; }
  uint32_t slots() const { return cap_; }
  size_t memory_bytes() const { return mem_bytes(e_, Mem::Resident); }

 private:
  uint32_t cap_, mask_, max_, n_ = 0;
  uint64_t full_ = 0;
  ZeroArray<BehaviourEntry> e_;
};

}  // namespace fg
