// ③ The packet path of one worker: decode → flow → hosts → interface
// counters, plus the time-driven sweep (expiry, throughput). Everything is
// preallocated; process_batch() allocates nothing, takes no lock and never throws.
#pragma once
#include <cstdint>
#include <memory>

#include "capture/source.h"
#include "decode/decode.h"
#include "dpi/classify.h"
#include "dpi/names.h"
#include "egress/egress.h"
#include "engine/iface_stats.h"
#include "engine/records.h"
#include "engine/ring.h"
#include "flow/bcast_domains.h"
#include "flow/behaviour_maps.h"
#include "flow/top_sites.h"
#include "flow/site_names.h"
#include "flow/host_icmp.h"
#include "flow/host_ports.h"
#include "flow/host_behaviour.h"
#include "flow/flow_table.h"
#include "flow/hash_index.h"
#include "flow/host_checks.h"
#include "flow/host_l7.h"
#include "flow/host_liveness.h"
#include "flow/host_pools.h"
#include "flow/iec104.h"
#include "geo/country_table.h"
#include "flow/host_table.h"
#include "flow/local_nets.h"
#include "flow/scores.h"
#include "flow/host_bins.h"

namespace fg {

struct PipelineLimits {
  uint32_t max_flows = 131072;   // ntopng's default
  uint32_t max_hosts = 131072;
  uint32_t max_macs = 16384;
  uint64_t flow_idle_ns = 60ULL * 1000000000;        // ntopng: 60 s
  uint64_t flow_lifetime_ns = 0;                     // 0: no lifetime split (ntopng)
  uint64_t periodic_dump_ns = 300ULL * 1000000000;   // snapshot flows every 300 s of their life (ntopng's periodic dump); 0 = off
  uint64_t local_host_idle_ns = 300ULL * 1000000000;  // ntopng: local 300 s
  uint64_t remote_host_idle_ns = 60ULL * 1000000000;  //         remote 60 s
  bool dpi = true;                                   // classify applications
  bool checks = true;                                // host-check counters and flow/host scores (off: the checks' cost, measured)
  uint32_t l7_entries_per_host = 5;                  // per-host L7 table: 40 B entries per host slot
  // The pools below reserve address space; an entry's pages are touched at
  // its first use (EntryPool), so a share of 1 costs only what is used.
  double flow_info_share = 1;                        // classifier state (FlowInfo, 64 B) for this share of the flow table
  double flow_meta_share = 1;                        // protocol metadata (FlowMeta, 128 B) for this share
  double host_side_share = 1;                        // local hosts' side state (sites, ICMP, used ports, behaviour: 1.5 KB) for this share of the host table
  uint32_t behaviour_map_entries = 8192;             // service and periodicity map keys (each)
  uint32_t iec_learning_s = 21600;                   // IEC 60870-5-104 transitions learned this long (ntopng's CONST_IEC104_LEARNING_TIME)
};

// ntopng's DeviceType (ntop_typedefs.h): what a MAC is learned to be
enum DeviceType : uint8_t { kDevUnknown = 0, kDevWorkstation = 3, kDevNetworking = 8 };

struct Mac {
  uint8_t addr[6];
  uint8_t devtype;  // DeviceType
  uint8_t hosts;    // hosts first seen behind it (saturating): past 8 it is a networking device
  uint64_t hash;
  uint64_t first_ns, last_ns;
  uint64_t bytes_sent, bytes_rcvd, pkts_sent, pkts_rcvd;
};

// Traffic per VLAN and per local network, credited by flow accounting steps
// as ntopng's periodic flow update does (VLAN: sent = client→server; local
// network: ingress / egress across its border, inner when both ends are in it).
struct VlanTraffic {
  uint64_t bytes[2], pkts[2];  // [0] client→server, [1] server→client
};
struct NetTraffic {
  uint64_t ingress, egress, inner;  // bytes
  uint64_t packets;                 // of the same traffic (ingress + egress + inner)
  // TCP retransmitted, out-of-order and lost packets of flows with an end in
  // the network (ntopng's tcpPacketStats.{ingress,egress,inner} summed: a flow
  // between two networks counts in both, one inside a network once)
  uint64_t retr, ooo, lost;
};

// Per country (ntopng's Country stats): a flow between two countries is
// egress (what the end sent) and ingress (what it received) of each, one
// inside a country is inner traffic of it, once.
struct CountryTraffic {
  uint64_t ingress, egress, inner;  // bytes
};

enum class Mode : uint8_t { Full = 0, ReadOnly = 1, DecodeOnly = 2 };

class Pipeline {
 public:
  Pipeline(const PipelineLimits& lim, SpscRing<ExpiredFlow>* expired);

  static constexpr size_t kBatch = 256;
  static constexpr uint64_t kSweepPeriodNs = 5ULL * 1000000000;  // a full pass over every table
  // Up to kBatch packets, in capture order.
  void process_batch(const RawPacket* raw, size_t n, const NetConfig& nets) noexcept;
  // Another worker's ARP frame: only the broadcast domain it names is
  // learned (not counted, no too-large event: that worker logs it).
  void learn_arp(const RawPacket& raw) noexcept;
  // Benchmark stage: decode only, counting packets and decode errors.
  void decode_only(const RawPacket& raw) noexcept;
  // Advances the clock (also when no packets arrive) and runs a slice of the
  // sweep proportional to the time passed.
  void advance(uint64_t now_ns) noexcept;
  // Expires every flow now (end of capture when asked, or shutdown).
  void flush_all() noexcept;
  // Expires up to `max` active flows now (reason Flushed); returns how many.
  // The service's shutdown: what is still active goes to the flow store.
  uint32_t expire_some(uint32_t max) noexcept;
  // credit every flow's counters not yet accounted (end of a replay)
  void account_all() noexcept;
  const BcastDomains& bcast_domains() const { return bcast_; }
  const BehaviourMap& service_map() const { return services_; }
  const BehaviourMap& periodicity_map() const { return periodicity_; }
  // top visited sites (flow/top_sites.h): the interface's, a host slot's (nullptr: none)
  const TopSites& iface_sites() const { return if_sites_; }
  // The host's sites (false: none named yet).
  bool host_sites(uint32_t slot, TopSites& out) const noexcept;
  // a local host's ICMP statistics (flow/host_icmp.h; nullptr: none)
  const HostIcmp* host_icmp(uint32_t slot) const { return host_icmp_[slot] ? &icmp_pool_[host_icmp_[slot] - 1] : nullptr; }
  // a local host's used ports (flow/host_ports.h; nullptr: none)
  const HostPorts* host_ports(uint32_t slot) const { return host_ports_[slot] ? &ports_pool_[host_ports_[slot] - 1] : nullptr; }
  // a local host's behavioural counters (flow/host_behaviour.h; nullptr: none yet)
  const HostBehaviour* host_behaviour(uint32_t slot) const {
    if (!host_behaviour_[slot]) return nullptr;
    return &(hosts_[slot].flags & kHostLocal ? behaviour_pool_ : remote_behaviour_pool_)[host_behaviour_[slot] - 1];
  }
  // The minute's host-check hits of every host slot, then the counters reset
  // (at each engine tick; host_checks.h). A slot whose host was created since
  // reads zero hits.
  void close_host_checks_minute(uint64_t boundary_ns) noexcept;
  const HostCheckHits* last_check_hits() const { return check_hits_.get(); }
  // The last closed minute's network-check figures, by local network index (kMaxNets entries).
  const NetCheckHits* last_net_check_hits() const { return net_check_hits_; }
  // The last closed minute's ARP packets naming a broadcast domain too large.
  const BcastTooLargeLog& last_bcast_too_large() const { return too_large_[1]; }
  // The current minute so far (what ntopng's host Lua fields hits.* show).
  HostCheckHits live_check_hits(uint32_t slot) const noexcept { return hits_of(checks_[slot], hosts_[slot]); }
  size_t host_checks_memory_bytes(Mem m = Mem::Resident) const { return mem_bytes(checks_, m) + mem_bytes(check_hits_, m) + mem_bytes(host_scores_, m); }
  // the per-host side pools (sites, ICMP, used ports, behaviour) and the side arrays indexed by host slot
  size_t host_side_memory_bytes(Mem m = Mem::Resident) const {
    return sites_pool_.memory_bytes(m) + sites_few_.memory_bytes(m) + site_names_.memory_bytes(m) + icmp_pool_.memory_bytes(m) + ports_pool_.memory_bytes(m) + behaviour_pool_.memory_bytes(m) + remote_behaviour_pool_.memory_bytes(m) +
           size_t(hosts_.max()) * 20 /* host_net_, host_pool_, host_country_, host_sites_, host_icmp_, host_ports_, host_behaviour_ */;
  }
  // Flow scores (flow/scores.h): a new table re-scores every active flow
  // now (JS thread, under the batch lock; allocates nothing).
  void set_risk_scores(const RiskScoreTable& t) noexcept;
  const RiskScoreTable& risk_scores() const { return score_table_; }
  const HostScore& host_score(uint32_t slot) const { return host_scores_[slot]; }
  const HostFlowBins& host_bins(uint32_t slot) const { return host_bins_[slot]; }
  // Host pools (flow/host_pools.h): a new table re-assigns every host now
  // (JS thread, under the batch lock); hosts created later look it up once.
  void set_host_pools(std::shared_ptr<const HostPoolTable> t) noexcept;
  uint8_t host_pool(uint32_t slot) const { return host_pool_[slot]; }
  // the host's local network (index in the local network list), -1 when none
  int16_t host_network(uint32_t slot) const { return host_net_[slot] == kNoNet ? -1 : host_net_[slot]; }
  // Flows whose score could not be kept: the side pool was full.
  uint64_t score_full() const { return score_full_; }
  size_t flow_scores_memory_bytes(Mem m = Mem::Resident) const { return score_pool_.memory_bytes(m); }
  // what the flow's alerts are worth now (0: never alerted), client and server shares summed
  uint32_t flow_score(const Flow& f) const noexcept {
    if (!f.score) return 0;
    const FlowScore& e = score_pool_[f.score - 1];
    uint32_t t = 0;
    for (int c = 0; c < kScoreCategories; c++) t += uint32_t(e.cli[c]) + e.srv[c];
    return t;
  }
  // the arrays beside the flow table, by slot: goodput counters, TCP latencies
  size_t flow_side_memory_bytes() const { return size_t(flows_.max()) * (sizeof(uint32_t) + sizeof(TcpTiming)); }
  const TcpTiming& flow_tcp(uint32_t slot) const { return flow_tcp_[slot]; }
  // IEC 60870-5-104 (flow/iec104.h): the allowed type ids below 128 as a
  // bitmap, all ones while the check is off (JS thread, under the batch
  // lock: a batch sees the old set or the new one).
  void set_iec_allowed(uint64_t lo, uint64_t hi) noexcept { iec_cfg_.allowed[0] = lo, iec_cfg_.allowed[1] = hi; }
  // IEC flows whose state could not be kept: the side pool was full.
  uint64_t iec_full() const { return iec_full_; }
  size_t flow_iec_memory_bytes(Mem m = Mem::Resident) const { return iec_pool_.memory_bytes(m) + iec_index_.memory_bytes(m); }
  // Everything kept per flow slot, per host slot (interface statistics).
  size_t flow_memory_bytes(Mem m) const {
    return flows_.memory_bytes(m) + flow_side_memory_bytes() + dpi_.memory_bytes(m) + flow_scores_memory_bytes(m) + flow_iec_memory_bytes(m);
  }
  size_t host_memory_bytes(Mem m) const {
    return hosts_.memory_bytes(m) + names_.memory_bytes(m) + l7_.memory_bytes(m) + host_checks_memory_bytes(m) + host_side_memory_bytes(m) + mem_bytes(host_bins_, m);
  }
  // Rebuilds the flow and host tables with new maximums (ntopng's incr_flows),
  // keeping every entry. Allocates: JS thread, under the batch lock. Returns
  // false (and changes nothing) when a maximum is below the current count.
  bool resize(uint32_t max_flows, uint32_t max_hosts);

  // After process_batch(): packet i of the batch as decoded, and its flow's
  // state right after it was counted (what the egress stage decides on).
  const Packet* batch_packets() const { return pkts_; }
  const PacketFlowRef* batch_flow_refs() const { return refs_; }

  const FlowTable& flows() const { return flows_; }
  const HostTable& hosts() const { return hosts_; }
  const NamePool& names() const { return names_; }
  const Classifier& classifier() const { return dpi_; }
  const IfaceStats& stats() const { return stats_; }
  const HostL7Table& host_l7() const { return l7_; }
  // Interface counters by application id and by category id.
  const IfaceL7Counter* iface_apps(uint32_t& n) const { n = n_apps_; return if_apps_.get(); }
  const IfaceL7Counter* iface_cats(uint32_t& n) const { n = n_cats_; return if_cats_.get(); }
  const VlanTraffic* vlan_traffic() const { return vlans_.get(); }  // kVlans entries
  const NetTraffic* net_traffic() const { return net_traffic_; }
  const CountryTraffic* country_traffic() const { return country_traffic_; }  // kCountrySlots entries (geo/country_table.h)
  uint16_t host_country(uint32_t slot) const { return host_country_[slot]; }    // kMaxNets entries, by local network index
  static constexpr uint32_t kVlans = 4096;
  static constexpr uint32_t kMaxNets = 255;  // local networks past the 255th get no counters
  uint32_t macs() const { return mac_pool_.size(); }
  uint8_t mac_devtype(const uint8_t* mac) const noexcept;  // DeviceType of a known MAC (kDevUnknown otherwise)
  void learn_mac_devtype(const uint8_t* mac, uint8_t type) noexcept;  // sets it when still unknown
  uint32_t max_macs() const { return mac_pool_.max(); }
  const EntryPool<Mac>& mac_table() const { return mac_pool_; }
  const Mac* find_mac(const uint8_t* mac) const noexcept;
  uint64_t now_ns() const { return now_ns_; }
  size_t memory_bytes() const;
  const PipelineLimits& limits() const { return lim_; }
  // Flow and host serials from `first` in steps of `step` (a worker's share
  // of an interface's serials: unique over its shards). Before any packet.
  void set_serials(uint32_t first, uint32_t step) noexcept { next_flow_serial_ = next_host_serial_ = first, serial_step_ = step; }
  // Several workers: host parts expire only when idle in every worker (host_liveness.h).
  void set_liveness(std::shared_ptr<HostLiveness> l, uint32_t worker) noexcept { liveness_ = std::move(l), worker_ = worker; }
  // Several workers: a name this worker learns for an address (DNS answer,
  // DHCP …) is told to every other worker, whose hosts may hold that address
  // (one worker's name cache serves every host). `out`: a ring to each.
  struct NameNote {
    IpAddr ip;
    uint16_t vlan;
    uint8_t src, len;
    uint32_t ms;  // when it was learned (name_ms_of)
    char name[NamePool::kLen];
  };
  void set_name_rings(std::vector<SpscRing<NameNote>*> out) { name_out_ = std::move(out); }
  // Another worker's name, learned here as if read here.
  void learn_told_name(const NameNote& n) noexcept { learn_name(n.ip, n.vlan, n.name, n.len, NameSource(n.src), n.ms, false); }

 private:
  struct BatchItem {
    FlowKey key;
    uint64_t hash;
    uint32_t flow;   // found in the prefetch stage, or kNone
    bool swapped;    // the packet's source is key.hi
    bool ip;         // decoded as IP
    bool checks;     // a TCP SYN or RST, or ICMP: count_checks() will touch its hosts' check lines
    uint64_t host_hash[2];  // a new flow's source and destination hosts (prefetch stages)
  };
  void account(const Packet& p, BatchItem& it, const NetConfig& nets) noexcept;
  void prefetch_flow(BatchItem& it) noexcept;
  void prefetch_hosts(const BatchItem& it) noexcept;
  void count_checks(const Packet& p, uint8_t seen, uint32_t si, uint32_t di) noexcept;
  uint32_t host_for(const IpAddr& ip, uint16_t vlan, const uint8_t* mac, const NetConfig& nets) noexcept;
  // new_host: a host was just created behind this MAC (ntopng's Mac::incUses)
  void count_mac(const uint8_t* mac, uint32_t bytes, bool sent, bool new_host = false) noexcept;
  void expire_flow(uint32_t i, FlowEnd why) noexcept;
  // The flow's score from its risks now; a compare when its alerts did not
  // change. The one-way risk is judged by the sweep's first step over the
  // flow (and cleared by its first answer): a packet keeps it as scored, so
  // a new flow's first packets do not raise and drop it.
  static constexpr uint64_t kOneWay = uint64_t(1) << uint8_t(Risk::Unidirectional);
  static constexpr uint64_t kAlertMask = (uint64_t(1) << kAlertBits) - 1;
  void rescore(uint32_t fi, bool keep_oneway) noexcept {
    const Flow& f = flows_[fi];
    uint64_t r = dpi_.risks(f);
    if (keep_oneway) r = (r & ~kOneWay) | (f.oneway_scored ? kOneWay : 0);
    rescore_with(fi, r);
  }
  void rescore_with(uint32_t fi, uint64_t risks) noexcept {
    const uint64_t a = risks & score_table_.alerting & kAlertMask;
    if (!a && !flows_[fi].scored) return;  // nothing scored, nothing to score: the side entry is not read
    const Flow& f = flows_[fi];
    if (a != (f.score ? uint64_t(score_pool_[f.score - 1].alerts) : 0)) apply_score(fi, score_of(a, score_table_));
  }
  void apply_score(uint32_t fi, const FlowScore& next) noexcept;
  // What the classifier's result of a flow depends on, to see whether an inspected packet changed it.
  // (twice per inspected packet: the stored words compared raw, not expanded)
  struct RiskSig {
    uint64_t words;
    uint32_t apps;
    bool tcp_issues;
    bool operator!=(const RiskSig& o) const { return words != o.words || apps != o.apps || tcp_issues != o.tcp_issues; }
  };
  RiskSig risk_sig(const Flow& f) const noexcept {
    return {dpi_.stored_words(f), uint32_t(f.l7_app) | uint32_t(f.l7_master) << 16, bool(f.tcp_issues)};
  }
  // The record of a flow (ended, or a periodic snapshot) into the expired ring.
  void emit_record(uint32_t fi, RecordKind kind, FlowEnd why) noexcept;
  void flow_info_text(const Flow& f, char* out, size_t cap) const noexcept;
  void account_flow(Flow& f, uint32_t fi, bool sample_thpt) noexcept;
  void credit_host(uint32_t hi, const L7Credit& c) noexcept;
  void classified(Flow& f, uint32_t idx) noexcept;
  bool behaviour(const Flow& f) noexcept;
  void ended_one_way(const Flow& f) noexcept;
  void visited(uint32_t host, const char* name, size_t len, uint32_t name_hash) noexcept;
  void count_icmp(const Packet& p, uint32_t host, bool sent, const IpAddr& peer) noexcept;
  void note_ports(Flow& f) noexcept;
  void iec_segment(uint32_t fi, const Packet& p, int dir) noexcept;
  // a flow slot's IEC pool entry (HashIndex::kNone: none)
  uint32_t iec_entry(uint32_t slot) const noexcept {
    if (flows_[slot].iec_state != 1) return HashIndex::kNone;
    return iec_index_.find(iec_hash(slot), [&](uint32_t e) { return iec_pool_[e].slot == slot; });
  }
  const IecFlow* iec_of(uint32_t slot) const noexcept {
    const uint32_t e = iec_entry(slot);
    return e == HashIndex::kNone ? nullptr : &iec_pool_[e];
  }
  // A host slot's entry in a side pool (sites, ICMP), taken at its first use
  // (`ref`: the entry + 1); nullptr when none is left (counted).
  template <class T>
  T* pooled(EntryPool<T>& pool, uint32_t& ref) noexcept {
    if (!ref) {
      const uint32_t e = pool.alloc();
      if (e == HashIndex::kNone) return stats_.host_side_full++, nullptr;
      pool[e].n = 0;
      ref = e + 1;
    }
    return &pool[ref - 1];
  }
  static uint32_t sites_slots(uint32_t max_hosts, double share) { return std::max(share_of(max_hosts, share), 64u); }
  void rx_only_gone(const Host& h) noexcept {
    if (h.flags & (kHostBroadcast | kHostMulticast)) return;
    stats_.rx_only_hosts--;
    if (h.flags & kHostLocal) stats_.local_rx_only_hosts--;
  }
  void contact(uint32_t host, ContactKind kind, uint32_t h) noexcept;
  void tcp_timing(TcpTiming& t, Flow& f, const Packet& p, int dir) noexcept;
  void credit_nets(const Flow& f, uint32_t c2s, uint32_t s2c, uint32_t pkts) noexcept;
  void credit_countries(const Flow& f, uint32_t c2s, uint32_t s2c) noexcept;
  void credit_net_tcp(const Flow& f, uint32_t retr, uint32_t ooo, uint32_t lost) noexcept;
  // A used slot whose flow carried something since its last accounting step.
  bool to_credit(uint32_t j) const noexcept {
    if (!flows_.used(j)) return false;
    const Flow& g = flows_[j];
    return g.pkts[0] != g.acct_pkts[0] || g.pkts[1] != g.acct_pkts[1];
  }
  // Requests the L7 entries flow slot j's next accounting step will touch.
  void prefetch_l7(uint32_t j) const noexcept {
    const Flow& g = flows_[j];
    const uint16_t app = g.l7_app ? g.l7_app : g.l7_master;
    if (g.cli_host != HashIndex::kNone) l7_.request(g.cli_host, app, g.l7_category, g.dscp[0], g.dscp[1]);
    if (g.srv_host != HashIndex::kNone) l7_.request(g.srv_host, app, g.l7_category, g.dscp[1], g.dscp[0]);
  }
  static constexpr uint32_t kL7Ahead = 4;  // flows to credit ahead (each asks for up to 8 entries)
  // A scout runs ahead of a walk over flow slots from..from+n (mod the table
  // size) and requests the L7 entries of the next kL7Ahead flows that have
  // something to credit, however many idle or empty slots lie between them.
  struct L7Scout {
    bool on;
    uint32_t from, n;
    uint32_t next = 0, pending = 0;  // the next slot (offset from `from`) to look at; flows requested, not yet credited
    void top_up(const Pipeline& pl, uint32_t k) noexcept {
      if (!on) return;
      if (next <= k) next = k, pending = 0;
      const uint32_t fspan = pl.flows_.span();
      while (pending < kL7Ahead && next < n) {
        uint32_t j = from + next < fspan ? from + next : from + next - fspan;
        if (pl.to_credit(j)) pl.prefetch_l7(j), pending++;
        next++;
      }
    }
  };
  void sweep(uint32_t nf, uint32_t nh, uint32_t nl) noexcept;  // slots of the flow, host and L7 tables
  // A pass visits slot k at k/span of its period, as if the debt started one
  // slot short: the first slot at once, not one slot's share of time later.
  void restart_sweep() noexcept { sweep_debt_[0] = sweep_debt_[1] = sweep_debt_[2] = kSweepPeriodNs - 1; }
  bool frag_ports(const Packet& p, uint16_t& sport, uint16_t& dport) noexcept;
  void learn_name(const IpAddr& ip, uint16_t vlan, const char* name, size_t len, NameSource src, uint32_t ms, bool tell = true) noexcept;
  void name_host(Host& h, const char* name, size_t len, NameSource src, uint32_t ms) noexcept;

  PipelineLimits lim_;
  FlowTable flows_;
  HostTable hosts_;
  BcastDomains bcast_;
  BehaviourMap services_, periodicity_;
  TopSites if_sites_{};
  EntryPool<SiteList> sites_pool_;          // local hosts that visited more than SiteListFew::kFew sites (a share of the host slots, at least 64)
  EntryPool<SiteListFew> sites_few_;        // local hosts' first sites (as sites_pool_)
  SiteNames site_names_;                    // the names both hold (room for every id they can hold)
  static constexpr uint32_t kFewSites = 0x80000000u;  // host_sites_: the entry is sites_few_'s
  std::unique_ptr<uint32_t[]> host_sites_;  // per host slot: its sites_pool_ (or flagged, sites_few_) entry + 1, 0 none
  EntryPool<HostIcmp> icmp_pool_;           // local hosts that sent or received ICMP (as sites_pool_)
  std::unique_ptr<uint32_t[]> host_icmp_;   // per host slot: its icmp_pool_ entry + 1, 0 none
  EntryPool<HostPorts> ports_pool_;         // local hosts with used ports (as sites_pool_)
  std::unique_ptr<uint32_t[]> host_ports_;  // per host slot: its ports_pool_ entry + 1, 0 none
  EntryPool<HostBehaviour> behaviour_pool_;         // local hosts' behavioural counters (as sites_pool_)
  EntryPool<HostBehaviour> remote_behaviour_pool_;  // remote hosts' (the same share of slots, a pool apart)
  std::unique_ptr<uint32_t[]> host_behaviour_;      // per host slot: its entry + 1 in the pool of its kind (local or remote), 0 none
  void learn_bcast_domain(const Packet& p, bool log = true) noexcept;
  NamePool names_;
  Classifier dpi_;
  HashIndex mac_index_;
  EntryPool<Mac> mac_pool_;
  IfaceStats stats_;
  HostL7Table l7_;
  std::unique_ptr<IfaceL7Counter[]> if_apps_, if_cats_;
  std::unique_ptr<VlanTraffic[]> vlans_;
  NetTraffic net_traffic_[kMaxNets] = {};
  CountryTraffic country_traffic_[kCountrySlots] = {};
  // Host-check counters and the last minute's hits, by host slot (zeroed when the slot gets a host).
  ZeroArray<HostCheckCounters> checks_;
  ZeroArray<HostCheckHits> check_hits_;
  // The same per local network (NetworkStats' counters), and the last minute's figures.
  NetCheckCounters net_checks_[kMaxNets] = {};
  NetCheckHits net_check_hits_[kMaxNets] = {};
  // [0] the current minute's broadcast-domain-too-large ARP packets, [1] the last closed one's
  BcastTooLargeLog too_large_[2];
  // Scores: the table, what each alerted flow credited (entry Flow::score),
  // each host's sums (by host slot). A fifth of the flows may carry alerts
  // at once; past that a flow's alerts are not scored (score_full_).
  static uint32_t score_entries(uint32_t max_flows) { return max_flows / 5 + 16; }
  RiskScoreTable score_table_;
  EntryPool<FlowScore> score_pool_;
  uint64_t score_full_ = 0;
  ZeroArray<HostScore> host_scores_;
  ZeroArray<HostFlowBins> host_bins_;  // by host slot (flow/host_bins.h)
  // Local network index of each host slot (kNoNet: not local), set when the host is created.
  static constexpr uint8_t kNoNet = 0xff;
  std::unique_ptr<uint8_t[]> host_net_;
  std::unique_ptr<uint16_t[]> host_country_;  // per host slot, looked up when the host is created
  // Host pool id of each host slot (kNoHostPool: the default pool), and the table it came from.
  std::unique_ptr<uint8_t[]> host_pool_;
  // per flow slot: its TCP payload bytes, both ways (ntopng's goodput bytes;
  // the low goodput check), saturating at 2^32 - 1 (kGoodputSaturated: more
  // than 4 GiB of payload, no low goodput)
  std::unique_ptr<uint32_t[]> flow_goodput_;
  std::unique_ptr<TcpTiming[]> flow_tcp_;  // per flow slot: its TCP latencies (flow.h)
  static constexpr uint32_t kGoodputSaturated = 0xffffffffu;
  // IEC 60870-5-104 flows' state (flow/iec104.h): an entry per IEC flow
  // (Flow::iec_state 1), found by the flow's slot through iec_index_; a
  // 256th of the flow table, at least 16 (a flow refused is counted once, in
  // iec_full_). No per-slot array: most flows are not IEC.
  static uint32_t iec_entries(uint32_t max_flows) {
    const uint32_t n = max_flows / 256;
    return n < 16 ? 16 : n;
  }
  static uint64_t iec_hash(uint32_t slot) { return uint64_t(slot) * 0x9E3779B97F4A7C15ull; }
  EntryPool<IecFlow> iec_pool_;
  HashIndex iec_index_;
  IecConfig iec_cfg_;
  uint64_t iec_full_ = 0;
  std::shared_ptr<const HostPoolTable> pools_;
  uint8_t pool_of(const Host& h) const noexcept {
    return pools_ ? pools_->lookup(h.key.ip, h.key.vlan, (h.flags & kHostHasMac) ? h.mac : nullptr) : kNoHostPool;
  }
  uint32_t n_apps_ = 0, n_cats_ = 0;
  SpscRing<ExpiredFlow>* expired_;
  Packet pkts_[kBatch];
  BatchItem items_[kBatch];
  PacketFlowRef refs_[kBatch];
  uint64_t now_ns_ = 0;
  uint64_t last_sweep_ns_ = 0;
  uint64_t sweep_debt_[3] = {};  // flow, host and L7 slots owed to the sweep (scaled by kSweepPeriod)
  uint32_t flow_cursor_ = 0, host_cursor_ = 0;
  uint32_t sweep_pass_ = 0;   // full passes over the flow table (one per 5 s)
  uint32_t next_flow_serial_ = 1, next_host_serial_ = 1, serial_step_ = 1;
  std::shared_ptr<HostLiveness> liveness_;  // null with one worker
  uint32_t worker_ = 0;                     // this worker's index in liveness_
  std::vector<SpscRing<NameNote>*> name_out_;  // empty with one worker

  // Names learned for addresses (DNS answers, DHCP …), also for hosts that
  // do not exist yet: a host created later picks its name up here.
  struct NameCacheEntry { IpAddr ip; uint16_t vlan; uint8_t src; uint8_t len; uint32_t ms; char name[NamePool::kLen]; };
  static constexpr uint32_t kNameCacheSlots = 16384;
  std::unique_ptr<NameCacheEntry[]> name_cache_;

  // First fragments remember their ports so later fragments join the flow.
  struct FragEntry { IpAddr src, dst; uint32_t id; uint8_t proto; uint8_t used; uint16_t sport, dport; uint64_t ts; };
  static constexpr uint32_t kFragSlots = 4096;
  std::unique_ptr<FragEntry[]> frags_;
};

}  // namespace fg
