// ④ The classifier of one worker: the dissector dispatch and the pool of
// FlowInfo entries (see dpi.h).
#pragma once
#include <cstdint>

#include "dpi/dpi.h"
#include "flow/hash_index.h"

namespace fg {

enum DpiState : uint8_t { kDpiInspecting = 0, kDpiDone = 1, kDpiGaveUp = 2 };

// The name a DNS answer (or DHCP, mDNS …) gave an address, for nDPI's DNS
// cache: a flow nothing else classified is named by its server's name.
struct NameLookup {
  const void* ctx = nullptr;
  const char* (*fn)(const void* ctx, const IpAddr& ip, uint16_t vlan, size_t& len) = nullptr;
};

class Classifier {
 public:
  explicit Classifier(uint32_t max_flows);
  void set_name_lookup(NameLookup l) { lookup_ = l; }

  // A new flow: protocols known from the IP protocol alone (ICMP, GRE …).
  void start(Flow& f) noexcept;
  // A payload packet of a flow still being inspected.
  void inspect(Flow& f, const Packet& p, bool from_client) noexcept;
  // No more packets will be inspected (the flow ends, or the limit passed):
  // nDPI's give-up, which guesses by port.
  void give_up(Flow& f) noexcept;
  // The flow leaves the table.
  void release(Flow& f) noexcept;

  const FlowInfo* info(const Flow& f) const noexcept { return f.info ? &pool_[f.info - 1] : nullptr; }
  uint64_t info_full() const { return info_full_; }
  size_t memory_bytes() const { return pool_.memory_bytes(); }

 private:
  FlowInfo* ensure_info(Flow& f) noexcept;
  void set(Flow& f, uint16_t master, uint16_t app, Confidence c) noexcept;

  EntryPool<FlowInfo> pool_;
  NameLookup lookup_;
  uint64_t info_full_ = 0;
};

}  // namespace fg
