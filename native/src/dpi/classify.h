// ④ The classifier of one worker: the dissector dispatch and the pool of
// FlowInfo entries (see dpi.h).
#pragma once
#include <cstdint>

#include "dpi/dpi.h"
#include "flow/hash_index.h"

namespace fg {

// kDpiExtra: classified, one dissector still reads metadata (Match::more).
enum DpiState : uint8_t { kDpiInspecting = 0, kDpiDone = 1, kDpiGaveUp = 2, kDpiExtra = 3 };

class Classifier {
 public:
  explicit Classifier(uint32_t max_flows);

  // A new flow: protocols known from the IP protocol alone (ICMP, GRE …).
  void start(Flow& f) noexcept;
  // A payload packet of a flow still being inspected (or read for metadata).
  void inspect(Flow& f, const Packet& p, bool from_client) noexcept;
  static bool wants(const Flow& f) noexcept { return f.dpi_state == kDpiInspecting || f.dpi_state == kDpiExtra; }
  // No more packets will be inspected (the flow ends, or the limit passed):
  // nDPI's give-up, which guesses by port.
  void give_up(Flow& f) noexcept;
  // The flow leaves the table.
  void release(Flow& f) noexcept;

  const FlowInfo* info(const Flow& f) const noexcept { return f.info ? &pool_[f.info - 1] : nullptr; }
  const FlowMeta* meta(const Flow& f) const noexcept {
    const FlowInfo* fi = info(f);
    uint32_t m = fi ? fi->meta_index() : 0;
    return m ? &meta_[m - 1] : nullptr;
  }
  // nDPI's risk mask (bit = ndpi_risk_enum id): what dissectors raised, plus
  // what follows from the flow's protocol, ports and counters.
  uint64_t risks(const Flow& f) const noexcept;
  uint64_t info_full() const { return info_full_; }
  uint64_t meta_full() const { return meta_full_; }
  size_t memory_bytes() const { return pool_.memory_bytes() + meta_.memory_bytes(); }

  FlowMeta* ensure_meta(Flow& f, FlowInfo* fi, MetaKind k) noexcept;
  // A dissector reading on after its match names the application (TLS
  // certificate names): master.app, by DPI.
  void refine(Flow& f, uint16_t master, uint16_t app, Confidence c = Confidence::Dpi) noexcept { set(f, master, app, c); }

  // nDPI's endpoint caches (its LRUs lru.stun and lru.tls_cert, 1024
  // entries each): the application a flow was found to carry, remembered
  // per endpoint (address, port) so later flows from or to it are named
  // alike ("DPI (cache)"). Direct-mapped, 0 = none.
  enum class Cache : uint8_t { Stun = 0, TlsCert = 1 };
  uint16_t cached(Cache which, const IpAddr& ip, uint16_t port) const noexcept;
  void remember(Cache which, const IpAddr& ip, uint16_t port, uint16_t app) noexcept;

 private:
  FlowInfo* ensure_info(Flow& f) noexcept;
  // While inspecting: the dissector of `proto` answered no on this flow.
  bool ruled_out(const Flow& f, uint16_t proto) const noexcept;
  void extra(Flow& f, FlowInfo& fi, const Packet& p, bool from_client) noexcept;
  void set(Flow& f, uint16_t master, uint16_t app, Confidence c) noexcept;

  EntryPool<FlowInfo> pool_;
  EntryPool<FlowMeta> meta_;
  struct CacheEntry {
    uint64_t key;
    uint16_t app;
  };
  static constexpr size_t kCacheSlots = 1024;
  CacheEntry caches_[2][kCacheSlots] = {};
  uint64_t info_full_ = 0, meta_full_ = 0;
};

}  // namespace fg
