#include "flow/behaviour_maps.h"

#include "util/bytes.h"

namespace fg {

BehaviourMap::BehaviourMap(uint32_t max_entries) : max_(max_entries) {
  // a power of two at least twice the entries: probes stay short when full
  // (turned off, max 0: 16 slots never used)
  cap_ = 16;
  while (cap_ < uint64_t(max_entries) * 2) cap_ <<= 1;
  mask_ = cap_ - 1;
  e_ = zero_array<BehaviourEntry>(cap_);
}

static uint64_t hash_key(const BehaviourKey& k) {
  uint64_t w[5];
  std::memcpy(w, &k, sizeof w);  // the two addresses, then port, vlan, master, app
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ k.l4;
  for (uint64_t v : w) h = mix64(h ^ v);
  return h;
}

BehaviourEntry* BehaviourMap::find_or_add(const BehaviourKey& k, uint64_t t_ns, bool& created) noexcept {
  created = false;
  for (uint32_t i = uint32_t(hash_key(k)) & mask_;; i = (i + 1) & mask_) {
    BehaviourEntry& e = e_[i];
    if (e.used) {
      if (e.k == k) return &e;
      continue;
    }
    if (n_ >= max_) {
      full_++;
      return nullptr;
    }
    e.used = 1, e.k = k, n_++;
    e.first_ns = e.last_ns = e.burst_ns = t_ns;
    created = true;
    return &e;
  }
}

void BehaviourMap::add_service_use(BehaviourEntry& e, uint64_t t_ns) noexcept {
  e.uses++;
  if (t_ns < e.first_ns) e.first_ns = t_ns;
  if (t_ns > e.last_ns) e.last_ns = t_ns;
}

void BehaviourMap::add_start(BehaviourEntry& e, uint64_t t_ns) noexcept {
  e.uses++;
  if (e.observations == 0) {  // the key's first flow
    e.observations = 1;
    return;
  }
  // a start before the last burst (a flow classified late) or within a burst: no interval
  if (t_ns < e.burst_ns + uint64_t(kBurstMs) * 1000000) return;
  const uint64_t d = (t_ns - e.burst_ns) / 1000000;
  const uint32_t dms = d > 0xffffffffULL ? 0xffffffffu : uint32_t(d);
  const uint64_t tol = e.period_ms / 100 * kTolPct > kTolMinMs ? e.period_ms / 100 * kTolPct : kTolMinMs;
  if (e.period_ms && (dms > e.period_ms ? dms - e.period_ms : e.period_ms - dms) <= tol) {
    // one more interval of the run: the mean of its n intervals
    const uint64_t n = e.observations;  // intervals so far + 1
    e.period_ms = uint32_t((uint64_t(e.period_ms) * (n - 1) + dms) / n);
    e.observations++;
  } else {
    // a new run from the previous burst
    e.first_ns = e.burst_ns;
    e.period_ms = dms;
    e.observations = 2;
  }
  e.burst_ns = e.last_ns = t_ns;
}

}  // namespace fg
