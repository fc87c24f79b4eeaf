#include "engine/pipeline.h"

#include "dpi/user_rules.h"

namespace fg {
namespace {

constexpr uint64_t kSecond = 1000000000ULL;
constexpr uint64_t kSweepPeriod = Pipeline::kSweepPeriodNs;
static_assert(HostL7Table::kPeriod * kSecond == kSweepPeriod, "L7 duration grows by one sweep pass");
static_assert(kRiskMax <= kAlertBits, "a FlowScore keeps every risk bit");
static_assert(kTcpIecUnexpectedTypeId == kIecUnexpectedTypeId << 2 && kTcpIecInvalidTransition == kIecInvalidTransition << 2 &&
                  kTcpIecInvalidCommandTransition == kIecInvalidCommandTransition << 2,
              "the record's IEC bits are IecFlow::alerts shifted by 2");
constexpr uint32_t kNdpiRetransWindow = 0x10000;  // nDPI's default tcp_max_retransmission_window_size

int family_of(uint8_t proto) {
  switch (proto) {
    case kProtoTcp: return kFamTcp;
    case kProtoUdp: return kFamUdp;
    case kProtoIcmp:
    case kProtoIcmpv6: return kFamIcmp;
    default: return kFamOther;
  }
}

bool mac_is_group(const uint8_t* m) { return m[0] & 0x01; }  // broadcast or multicast

uint32_t l7_entries(uint32_t max_hosts, uint32_t per_host) {
  uint64_t n = uint64_t(max_hosts) * per_host;
  return uint32_t(n < HostL7Table::kMaxEntries ? n : HostL7Table::kMaxEntries);
}

bool names_port(const Packet& p) {
  if (p.l4_proto == kProtoTcp) return p.sport == 53;  // DNS answers over TCP
  if (p.l4_proto != kProtoUdp) return false;
  for (uint16_t port : {53, 5353, 5355, 137, 67, 68})
    if (p.sport == port || p.dport == port) return true;
  return false;
}

}  // namespace

Pipeline::Pipeline(const PipelineLimits& lim, SpscRing<ExpiredFlow>* expired)
    : lim_(lim),
      flows_(lim.max_flows),
      hosts_(lim.max_hosts),
      services_(lim.behaviour_map_entries),
      periodicity_(lim.behaviour_map_entries),
      sites_pool_(sites_slots(lim.max_hosts, lim.host_side_share)),
      sites_few_(sites_slots(lim.max_hosts, lim.host_side_share)),
      site_names_(site_names_for(sites_pool_.max(), sites_few_.max())),
      icmp_pool_(sites_slots(lim.max_hosts, lim.host_side_share)),
      ports_pool_(sites_slots(lim.max_hosts, lim.host_side_share)),
      behaviour_pool_(sites_slots(lim.max_hosts, lim.host_side_share)),
      remote_behaviour_pool_(sites_slots(lim.max_hosts, lim.host_side_share)),
      names_(lim.max_hosts / 2 + 1),
      dpi_(lim.max_flows, lim.flow_info_share, lim.flow_meta_share),
      mac_index_(lim.max_macs),
      mac_pool_(lim.max_macs),
      l7_(l7_entries(lim.max_hosts, lim.l7_entries_per_host), lim.max_hosts),
      checks_(zero_array<HostCheckCounters>(lim.max_hosts)),
      check_hits_(zero_array<HostCheckHits>(lim.max_hosts)),
      score_pool_(score_entries(lim.max_flows)),
      host_scores_(zero_array<HostScore>(lim.max_hosts)),
      host_bins_(zero_array<HostFlowBins>(lim.max_hosts)),
      iec_pool_(iec_entries(lim.max_flows)),
      iec_index_(iec_entries(lim.max_flows)),
      expired_(expired),
      name_cache_(new NameCacheEntry[kNameCacheSlots]()),
      frags_(new FragEntry[kFragSlots]()) {
  // every id an application can have: nDPI's and the operator's custom ones
  n_apps_ = kMaxAppId;
  for (size_t i = 0; i < category_count(); i++)
    if (category_at(i) >= n_cats_) n_cats_ = category_at(i) + 1u;
  if_apps_.reset(new IfaceL7Counter[n_apps_]());
  if_cats_.reset(new IfaceL7Counter[n_cats_]());
  vlans_.reset(new VlanTraffic[kVlans]());
  host_net_.reset(new uint8_t[lim.max_hosts]);
  std::memset(host_net_.get(), kNoNet, lim.max_hosts);
  host_pool_.reset(new uint8_t[lim.max_hosts]());
  flow_goodput_.reset(new uint32_t[lim.max_flows]());
  flow_tcp_.reset(new TcpTiming[lim.max_flows]());
  iec_cfg_.learning_s = lim.iec_learning_s;
  host_country_.reset(new uint16_t[lim.max_hosts]());
  host_sites_.reset(new uint32_t[lim.max_hosts]());
  host_icmp_.reset(new uint32_t[lim.max_hosts]());
  host_ports_.reset(new uint32_t[lim.max_hosts]());
  host_behaviour_.reset(new uint32_t[lim.max_hosts]());
  restart_sweep();
}

void Pipeline::set_host_pools(std::shared_ptr<const HostPoolTable> t) noexcept {
  pools_ = t && !t->empty() ? std::move(t) : nullptr;
  for (uint32_t i = 0; i < hosts_.span(); i++)
    if (hosts_.used(i)) host_pool_[i] = pool_of(hosts_[i]);
}

void Pipeline::name_host(Host& h, const char* name, size_t len, NameSource src, uint32_t ms) noexcept {
  if (h.name != HashIndex::kNone && !name_wins(uint8_t(src), ms, h.name_source, h.name_ms)) return;
  h.name = names_.store(h.name, name, len);
  if (h.name != HashIndex::kNone) h.name_source = uint8_t(src), h.name_ms = ms;
}

void Pipeline::learn_name(const IpAddr& ip, uint16_t vlan, const char* name, size_t len, NameSource src, uint32_t ms, bool tell) noexcept {
  if (len >= NamePool::kLen) len = NamePool::kLen - 1;
  if (tell && !name_out_.empty()) {
    NameNote n{ip, vlan, uint8_t(src), uint8_t(len), ms, {}};
    std::memcpy(n.name, name, len);
    for (SpscRing<NameNote>* r : name_out_)
      if (!r->push(n)) stats_.names_untold++;
  }
  HostKey k{ip, vlan};
  uint64_t h = hash_host_key(k);
  NameCacheEntry& c = name_cache_[h & (kNameCacheSlots - 1)];
  if (!(c.len && c.ip == ip && c.vlan == vlan && !name_wins(uint8_t(src), ms, c.src, c.ms))) {
    c.ip = ip, c.vlan = vlan, c.src = uint8_t(src), c.len = uint8_t(len), c.ms = ms;
    std::memcpy(c.name, name, len);
  }
  uint32_t i = hosts_.find(k, h);
  if (i != HashIndex::kNone) name_host(hosts_[i], name, len, src, ms);
}

size_t Pipeline::memory_bytes() const {
  return flows_.memory_bytes() + flow_side_memory_bytes() + flow_iec_memory_bytes() + hosts_.memory_bytes() + names_.memory_bytes() + mac_index_.memory_bytes() +
         mac_pool_.memory_bytes() + dpi_.memory_bytes() + score_pool_.memory_bytes() + l7_.memory_bytes() + host_checks_memory_bytes() + mem_bytes(host_bins_, Mem::Resident) + services_.memory_bytes() + periodicity_.memory_bytes() + host_side_memory_bytes() + (n_apps_ + n_cats_) * sizeof(IfaceL7Counter) + kFragSlots * sizeof(FragEntry) + kNameCacheSlots * sizeof(NameCacheEntry) + sizeof(*this);
}

static uint64_t mac_hash(const uint8_t* mac) noexcept {
  uint64_t v = 0;
  std::memcpy(&v, mac, 6);
  return mix64(v ^ 0x2545f4914f6cdd1dULL);
}

// ntopng's Mac::checkDeviceTypeFromManufacturer, the part that needs no
// manufacturer list: the OUIs of virtual machine platforms are workstations.
static uint8_t devtype_of_oui(const uint8_t* mac) noexcept {
  static constexpr uint8_t kVm[][3] = {{0x00, 0x50, 0x56}, {0x00, 0x0C, 0x29}, {0x00, 0x05, 0x69}, {0x00, 0x03, 0xFF},
                                       {0x00, 0x1C, 0x42}, {0x00, 0x0F, 0x4B}, {0x00, 0x16, 0x3E}, {0x08, 0x00, 0x27}};
  for (const auto& o : kVm)
    if (std::memcmp(mac, o, 3) == 0) return kDevWorkstation;
  return kDevUnknown;
}

const Mac* Pipeline::find_mac(const uint8_t* mac) const noexcept {
  uint32_t i = mac_index_.find(mac_hash(mac), [&](uint32_t j) { return std::memcmp(mac_pool_[j].addr, mac, 6) == 0; });
  return i == HashIndex::kNone ? nullptr : &mac_pool_[i];
}

uint8_t Pipeline::mac_devtype(const uint8_t* mac) const noexcept {
  const Mac* m = find_mac(mac);
  return m ? m->devtype : uint8_t(kDevUnknown);
}

void Pipeline::learn_mac_devtype(const uint8_t* mac, uint8_t type) noexcept {
  uint32_t i = mac_index_.find(mac_hash(mac), [&](uint32_t j) { return std::memcmp(mac_pool_[j].addr, mac, 6) == 0; });
  if (i != HashIndex::kNone && mac_pool_[i].devtype == kDevUnknown) mac_pool_[i].devtype = type;
}

void Pipeline::count_mac(const uint8_t* mac, uint32_t bytes, bool sent, bool new_host) noexcept {
  if (mac_is_group(mac)) return;
  uint64_t h = mac_hash(mac);
  uint32_t i = mac_index_.find(h, [&](uint32_t j) { return std::memcmp(mac_pool_[j].addr, mac, 6) == 0; });
  if (i == HashIndex::kNone) {
    if (!sent) return;  // a device is something that sent a frame
    i = mac_pool_.alloc();
    if (i == HashIndex::kNone) {
      stats_.mac_table_full++;
      return;
    }
    Mac& m = mac_pool_[i];
    std::memset(&m, 0, sizeof(m));
    std::memcpy(m.addr, mac, 6);
    m.hash = h;
    m.first_ns = now_ns_;
    m.devtype = devtype_of_oui(mac);
    mac_index_.insert(h, i);
    stats_.macs_created++;
  }
  Mac& m = mac_pool_[i];
  m.last_ns = now_ns_;
  // ntopng: a MAC more than 8 hosts use is a router's (networking, never changed again)
  if (new_host && m.hosts < 255 && ++m.hosts > 8) m.devtype = kDevNetworking;
  if (sent) m.bytes_sent += bytes, m.pkts_sent++;
  else m.bytes_rcvd += bytes, m.pkts_rcvd++;
}

uint32_t Pipeline::host_for(const IpAddr& ip, uint16_t vlan, const uint8_t* mac, const NetConfig& nets) noexcept {
  HostKey k{ip, vlan};
  uint64_t h = hash_host_key(k);
  uint32_t i = hosts_.find(k, h);
  if (i != HashIndex::kNone) {
    // A local host now behind another MAC (an address reassigned, a spoofer):
    // it takes the MAC of its latest frame, which the IP reassignment check reads.
    Host& e = hosts_[i];
    if (mac && (e.flags & kHostHasMac) && !mac_is_group(mac) && std::memcmp(e.mac, mac, 6) != 0) {
      std::memcpy(e.mac, mac, 6);
      if (pools_) host_pool_[i] = pool_of(e);
    }
    return i;
  }
  i = hosts_.create(k, h);
  if (i == HashIndex::kNone) {
    stats_.host_table_full++;
    return i;
  }
  Host& e = hosts_[i];
  e.name = HashIndex::kNone;
  e.serial = next_host_serial_, next_host_serial_ += serial_step_;
  checks_[i] = HostCheckCounters{};
  check_hits_[i] = HostCheckHits{};
  host_scores_[i] = HostScore{};
  host_bins_[i] = HostFlowBins{};
  e.first_ns = e.traffic[0].last_ns = e.traffic[1].last_ns = now_ns_;
  e.thpt_ts = now_ns_;
  uint8_t fl = 0;
  const int net = nets.local_index(ip);
  if (net >= 0) fl |= kHostLocal;
  host_net_[i] = net >= 0 && net < int(kMaxNets) ? uint8_t(net) : kNoNet;
  if (is_multicast(ip)) fl |= kHostMulticast;
  if (is_limited_broadcast(ip) || nets.is_subnet_broadcast(ip)) fl |= kHostBroadcast;
  if (is_private(ip)) fl |= kHostPrivate;
  if (ip.is_v4() && bcast_.contains(ip.v4())) fl |= kHostBroadcastDomain;
  // Only local hosts get a MAC: a remote host's frames carry the router's.
  if (mac && (fl & kHostLocal) && !mac_is_group(mac)) {
    std::memcpy(e.mac, mac, 6);
    fl |= kHostHasMac;
  }
  e.flags = fl;
  host_pool_[i] = pool_of(e);
  // its country, once (private and group addresses have none, as in ntopng)
  const CountryTable* ct = (fl & (kHostPrivate | kHostMulticast | kHostBroadcast)) ? nullptr : country_table();
  host_country_[i] = ct ? ct->find(ip) : 0;
  host_sites_[i] = host_icmp_[i] = host_ports_[i] = host_behaviour_[i] = 0;
  if (fl & kHostLocal) stats_.local_hosts++;
  if (!(fl & (kHostBroadcast | kHostMulticast))) stats_.rx_only_hosts++, stats_.local_rx_only_hosts += fl & kHostLocal;
  // A device (MAC) is learned with the hosts behind it.
  if (mac) count_mac(mac, 0, true, true);
  const NameCacheEntry& c = name_cache_[h & (kNameCacheSlots - 1)];
  if (c.len && c.ip == ip && c.vlan == vlan) name_host(e, c.name, c.len, NameSource(c.src), c.ms);
  // several workers: a new part of a host another worker holds is not a new
  // host; published at once (its flow follows), so the others know it
  if (!liveness_ || liveness_->enter(h)) stats_.hosts_created++;
  if (liveness_) liveness_->publish(worker_, h, now_ns_, true);
  return i;
}

bool Pipeline::frag_ports(const Packet& p, uint16_t& sport, uint16_t& dport) noexcept {
  uint64_t h = mix64(hash_host_key(HostKey{p.src, 0}) ^ hash_host_key(HostKey{p.dst, 1}) ^ p.frag_id ^
                     (uint64_t(p.l4_proto) << 40));
  FragEntry& e = frags_[h & (kFragSlots - 1)];
  if (p.first_fragment) {
    e.src = p.src, e.dst = p.dst, e.id = p.frag_id, e.proto = p.l4_proto, e.used = 1;
    e.sport = p.sport, e.dport = p.dport, e.ts = now_ns_;
    return true;
  }
  if (e.used && e.id == p.frag_id && e.proto == p.l4_proto && e.src == p.src && e.dst == p.dst) {
    sport = e.sport, dport = e.dport;
    return true;
  }
  return false;
}

// The batch is processed in stages so that the memory each packet needs is
// requested early (prefetch) and arrives while other packets are worked on:
// decode and hash all, then find flows, then load their hosts, then count.
void Pipeline::process_batch(const RawPacket* raw, size_t n, const NetConfig& nets) noexcept {
  if (n > kBatch) n = kBatch;
  for (size_t i = 0; i < n; i++) {
    Packet& p = pkts_[i];
    BatchItem& it = items_[i];
    p.reset(raw[i].ts_ns > now_ns_ ? raw[i].ts_ns : now_ns_, raw[i].wirelen, raw[i].caplen);
    p.frame = raw[i].data;
    now_ns_ = p.ts_ns;
    if (stats_.first_ns == 0) stats_.first_ns = p.ts_ns;
    stats_.packets++;
    stats_.bytes += raw[i].wirelen;
    it.ip = decode_frame(raw[i].linktype, Bytes(raw[i].data, raw[i].caplen), p, stats_.decode) == DecodeResult::Ip;
    it.flow = HashIndex::kNone;
    refs_[i] = PacketFlowRef{0, 0, 0, 0, 0, uint8_t(it.ip), 0};
    if (!it.ip) {
      // Devices are counted from every frame; IP ones on flow creation below.
      if (p.has_mac) count_mac(p.src_mac, raw[i].wirelen, true), count_mac(p.dst_mac, raw[i].wirelen, false);
      if (p.arp_op) learn_bcast_domain(p);
      continue;
    }
    uint16_t sport = p.sport, dport = p.dport;
    if (p.is_fragment && !frag_ports(p, sport, dport)) stats_.orphan_fragments++;
    it.key = make_flow_key(p, sport, dport, it.swapped);
    it.hash = hash_flow_key(it.key);
    it.checks = lim_.checks && ((p.tcp_flags & (kSyn | kRst)) || p.l4_proto == kProtoIcmp || p.l4_proto == kProtoIcmpv6);  // flags are 0 but for TCP
    __builtin_prefetch(flows_.slot_addr(it.hash));
  }
  stats_.last_ns = now_ns_;
  // A rolling prefetch: while packet i is counted, the index slot of packet
  // i+12 (requested above too, but most of a batch's first requests are out
  // of L1 by then), the flow of packet i+6 and the host lines of packet i+3
  // are on their way. Few enough requests in flight to all be served.
  constexpr size_t kIndexAhead = 12, kFlowAhead = 6, kHostAhead = 3;
  for (size_t i = 0; i < n && i < kFlowAhead; i++)
    if (items_[i].ip) prefetch_flow(items_[i]);
  for (size_t i = 0; i < n && i < kHostAhead; i++)
    if (items_[i].ip) prefetch_hosts(items_[i]);
  for (size_t i = 0; i < n; i++) {
    if (size_t a = i + kIndexAhead; a < n && items_[a].ip) __builtin_prefetch(flows_.slot_addr(items_[a].hash));
    if (size_t b = i + kFlowAhead; b < n && items_[b].ip) prefetch_flow(items_[b]);
    if (size_t c = i + kHostAhead; c < n && items_[c].ip) prefetch_hosts(items_[c]);
    if (!items_[i].ip) continue;
    now_ns_ = pkts_[i].ts_ns;
    account(pkts_[i], items_[i], nets);
  }
  now_ns_ = stats_.last_ns;
}

void Pipeline::prefetch_flow(BatchItem& it) noexcept {
  it.flow = flows_.candidate(it.hash);
  if (it.flow != HashIndex::kNone) {
    const char* f = reinterpret_cast<const char*>(&flows_[it.flow]);
    __builtin_prefetch(f, 1);
    __builtin_prefetch(f + 64, 1);
  } else {  // about to be created: its hosts will be looked up
    const Packet& p = pkts_[&it - items_];
    it.host_hash[0] = hash_host_key(HostKey{p.src, p.vlan_id});
    it.host_hash[1] = hash_host_key(HostKey{p.dst, p.vlan_id});
    __builtin_prefetch(hosts_.slot_addr(it.host_hash[0]));
    __builtin_prefetch(hosts_.slot_addr(it.host_hash[1]));
  }
}

void Pipeline::prefetch_hosts(const BatchItem& it) noexcept {
  if (it.flow == HashIndex::kNone) {
    // A new flow: its hosts' index slots were requested with the flow's; now
    // the identity line host_for() compares and the host-check line the
    // flow's creation counts in (of the likely entries: tags, not keys).
    for (uint64_t hh : it.host_hash) {
      const uint32_t h = hosts_.candidate(hh);
      if (h == HashIndex::kNone) continue;
      __builtin_prefetch(&hosts_[h]);
      if (lim_.checks) __builtin_prefetch(&checks_[h], 1);
    }
    return;
  }
  const Flow& f = flows_[it.flow];
  const bool from_cli = it.swapped == f.cli_is_hi;
  uint32_t src = from_cli ? f.cli_host : f.srv_host, dst = from_cli ? f.srv_host : f.cli_host;
  // The two lines count() touches: traffic[d] and pkt[d].
  if (src != HashIndex::kNone) {
    const Host& h = hosts_[src];
    __builtin_prefetch(&h.traffic[0], 1);
    __builtin_prefetch(&h.pkt[0], 1);
  }
  if (dst != HashIndex::kNone) {
    const Host& h = hosts_[dst];
    __builtin_prefetch(&h.traffic[1], 1);
    __builtin_prefetch(&h.pkt[1], 1);
  }
  // and the host-check line count_checks() will touch
  if (it.checks) {
    if (src != HashIndex::kNone) __builtin_prefetch(&checks_[src], 1);
    if (dst != HashIndex::kNone) __builtin_prefetch(&checks_[dst], 1);
  }
  // and the classifier's line of a flow still under inspection (its
  // exclusion masks: the first thing inspect() reads)
  if (f.info && Classifier::wants(f) && pkts_[&it - items_].payload_len) dpi_.prefetch(f);
}

// nDPI's retransmission test (ndpi_connection_tracking) on a TCP flow whose
// packets all have its direction 1 (IPv6 between equal ports: dpi/dpi.h
// ndpi_one_sided). Its pair of next bytes is then one slot, set by
// whichever side last initialised it; the other slot only says whether it
// was. Initialising: while either slot is 0, or on a SYN before any
// payload, a packet with ACK sets the slot to its own next byte, and the
// other from its ACK unless it is the flow's first packet. Then a payload
// packet within 64 KiB past the slot moves it to its own next byte (the
// slot changes sides when the other side's numbers fall there); one outside
// is a retransmission (after a payload packet). With random initial
// sequence numbers only one side's packets reach the dissectors. The slot
// is its side's tcp_next (both follow that side's bytes in sequence). A
// RST empties both slots. Flow::ndpi_seq: bit 0 both slots set, bit 1 the
// side (dir) whose next byte the slot holds.
static bool one_sided_skip(Flow& f, const Packet& p, int dir) noexcept {
  const bool ack = p.tcp_flags & kAck, syn = p.tcp_flags & kSyn;
  bool set = f.ndpi_seq & 1, skip = false;
  int side = f.ndpi_seq >> 1 & 1;
  if (!set || (syn && f.dpi_packets == 0)) {
    if (ack) side = dir, set = set || f.pkts[0] + f.pkts[1] > 1;
  } else if (p.l4_payload_wire) {
    if (uint32_t(p.tcp_seq - f.tcp_next[side]) > kNdpiRetransWindow) skip = f.tcp_last_payload;
    else side = dir;
  }
  if (p.tcp_flags & kRst) set = false;
  f.ndpi_seq = uint8_t(set | side << 1);
  return skip;
}

void Pipeline::account(const Packet& p, BatchItem& it, const NetConfig& nets) noexcept {
  const uint32_t len = p.wirelen;
  stats_.ip_packets++;
  stats_.ip_bytes += len;
  (p.ip_version == 4 ? stats_.ipv4_packets : stats_.ipv6_packets)++;
  stats_.l4_packets[p.l4_proto]++;
  stats_.l4_bytes[p.l4_proto] += len;
  stats_.dscp_packets[p.dscp]++;
  stats_.dscp_bytes[p.dscp] += len;

  const bool swapped = it.swapped;
  uint32_t fi = flows_.find(it.key, it.hash);
  if (fi != HashIndex::kNone) {
    // The sweep may not have visited this flow yet: a packet after the idle
    // (or lifetime) limit starts a new flow, exactly when the limit says.
    const Flow& old = flows_[fi];
    if (now_ns_ - old.last_ns > lim_.flow_idle_ns) {
      expire_flow(fi, FlowEnd::Idle);
      fi = HashIndex::kNone;
    } else if (lim_.flow_lifetime_ns && now_ns_ - old.first_ns > lim_.flow_lifetime_ns) {
      expire_flow(fi, FlowEnd::Lifetime);
      fi = HashIndex::kNone;
    }
  }
  if (fi == HashIndex::kNone) {
    fi = flows_.create(it.key, it.hash);
    if (fi == HashIndex::kNone) {
      stats_.flow_table_full++;
      return;
    }
    Flow& f = flows_[fi];
    f.serial = next_flow_serial_, next_flow_serial_ += serial_step_;
    f.first_ns = now_ns_;
    f.ip_version = p.ip_version;
    f.tunnel = uint8_t(p.tunnel);
    f.first_hi = swapped;
    f.icmp.type = p.icmp_type, f.icmp.code = p.icmp_code;  // 0 but for ICMP: a TCP flow's ndpi_seq starts at 0
    // The client sent the first SYN; a SYN-ACK seen first came from the server.
    bool src_is_client = !(p.l4_proto == kProtoTcp && (p.tcp_flags & (kSyn | kAck)) == (kSyn | kAck));
    // A TCP flow first seen mid-stream (no SYN) belongs to the side with the
    // higher port: the lower one is the service (ntopng's Flow::check_swap,
    // its issue 5058; UDP is left as first seen, as there).
    const uint16_t psrc = swapped ? it.key.port_hi : it.key.port_lo, pdst = swapped ? it.key.port_lo : it.key.port_hi;
    if (p.l4_proto == kProtoTcp && !(p.tcp_flags & kSyn) && psrc && pdst && psrc < pdst &&
        !(is_multicast(p.dst) || is_limited_broadcast(p.dst) || p.dst.is_unspecified()))
      src_is_client = false;
    f.cli_is_hi = src_is_client ? swapped : !swapped;
    // nDPI decides its own client at the flow's first packet
    // (ndpi_connection_tracking): as the SYN says; else the side of a port
    // under 1024 facing one above is the server; else the sender is the
    // client. Dissectors see the flow as nDPI does.
    bool ndpi_src_is_client = true;
    if (p.l4_proto == kProtoTcp && (p.tcp_flags & kSyn)) ndpi_src_is_client = !(p.tcp_flags & kAck);
    else if (p.l4_proto == kProtoTcp || p.l4_proto == kProtoUdp) ndpi_src_is_client = !(psrc < 1024 && pdst > 1024);
    f.dpi_flip = ndpi_src_is_client != src_is_client;
    if (lim_.dpi) {
      dpi_.start(f);  // knows client and server (the operator's address rules)
      if (p.l4_proto == kProtoIcmp) dpi_.first_icmp(f, p);
    } else {
      f.dpi_state = kDpiGaveUp;
    }
    const IpAddr& cli = src_is_client ? p.src : p.dst;
    const IpAddr& srv = src_is_client ? p.dst : p.src;
    const uint8_t* cli_mac = p.has_mac ? (src_is_client ? p.src_mac : p.dst_mac) : nullptr;
    const uint8_t* srv_mac = p.has_mac ? (src_is_client ? p.dst_mac : p.src_mac) : nullptr;
    f.cli_host = host_for(cli, p.vlan_id, cli_mac, nets);
    f.srv_host = host_for(srv, p.vlan_id, srv_mac, nets);
    const uint32_t now_s = uint32_t(now_ns_ / kSecond);
    if (f.cli_host != HashIndex::kNone) {
      Host& h = hosts_[f.cli_host];
      h.active_as_client++, h.total_as_client++;
      host_bins_[f.cli_host].flow_begin(0, now_s);
      f.cli_local = (h.flags & kHostLocal) != 0, f.cli_bcast = (h.flags & kHostBroadcast) != 0;
    }
    if (f.srv_host != HashIndex::kNone) {
      Host& h = hosts_[f.srv_host];
      h.active_as_server++, h.total_as_server++;
      host_bins_[f.srv_host].flow_begin(1, now_s);
      f.srv_local = (h.flags & kHostLocal) != 0, f.srv_bcast = (h.flags & kHostBroadcast) != 0;
    }
    // ntopng's Flow constructor: a flow from a blacklisted client counts on
    // its server, else one to a blacklisted server on its client
    if (const UserRules* u = user_rules(); u && !u->cat_ips.empty()) {
      f.cli_bl = u->blacklisted(cli), f.srv_bl = u->blacklisted(srv);
      if (l7_.enabled() && (f.cli_bl | f.srv_bl)) {
        bool ok = true;
        if (f.cli_bl) ok = f.srv_host == HashIndex::kNone || l7_.count_add(f.srv_host, kCountBlacklisted, 0);
        else ok = f.cli_host == HashIndex::kNone || l7_.count_add(f.cli_host, kCountBlacklisted, 1);
        if (!ok) stats_.host_contacts_full++;
      }
    }
    // Flow flood: ntopng's Host::incNumFlows, at the flow's first packet.
    const uint32_t secs = uint32_t(now_ns_ / kSecond);
    if (lim_.checks) {
      if (f.cli_host != HashIndex::kNone) checks_[f.cli_host].flows[0].inc(secs);
      if (f.srv_host != HashIndex::kNone) {
        checks_[f.srv_host].flows[1].inc(secs);
        // NetworkStats::incNumFlows(as server) of the server's local network
        if (host_net_[f.srv_host] != kNoNet) net_checks_[host_net_[f.srv_host]].flows_srv.inc(secs);
      }
    }
    // An ICMP flow opened by an unreachable message: its sender is the
    // client (as ntopng counts them, at flow creation).
    if (int k = unreachable_kind(p.l4_proto, p.icmp_type, p.icmp_code); k >= 0) {
      if (f.cli_host != HashIndex::kNone) hosts_[f.cli_host].unreachable[k][0]++;
      if (f.srv_host != HashIndex::kNone) hosts_[f.srv_host].unreachable[k][1]++;
    }
    // Scored from its classification (here when known from the IP protocol
    // alone), its first answer or the sweep's first step (a new flow is
    // one-way until answered, which the sweep judges).
    if (lim_.checks && (f.l7_app | f.l7_master)) rescore(fi, true);
    stats_.flows_created++;
    flow_goodput_[fi] = 0;
    flow_tcp_[fi] = TcpTiming{};
    flows_[fi].iec_state = 0;
  }
  Flow& f = flows_[fi];
  const int dir = swapped == f.cli_is_hi ? 0 : 1;  // 0: client → server
  f.last_ns = now_ns_;
  f.pkts[dir]++;
  const bool cut = p.cut();  // captured short of its IP length: no dissector reads it (below)
  if (!(f.whole_dirs >> dir & 1) && !cut) f.whole_dirs |= uint8_t(1 << dir);
  const uint64_t before = f.bytes[dir];
  f.bytes[dir] += len;
  // Keeps every accounting delta below 2^31 (they are taken from 32 bits).
  if (__builtin_expect(((before ^ f.bytes[dir]) >> 30) != 0, 0)) account_flow(f, fi, false);
  f.dscp[dir] = p.dscp;
  f.ttl[dir] = p.ttl;
  PacketFlowRef& ref = refs_[&it - items_];

  Host* src = nullptr;
  Host* dst = nullptr;
  uint32_t si = dir == 0 ? f.cli_host : f.srv_host, di = dir == 0 ? f.srv_host : f.cli_host;
  if (si != HashIndex::kNone) src = &hosts_[si];
  if (di != HashIndex::kNone) dst = &hosts_[di];

  uint32_t retr = 0, ooo = 0, lost = 0, ka = 0;
  // What the flow had seen before this packet (the host-check counters' "first FIN/RST of a flow").
  uint8_t flow_flags = 0;
  // FIN scan (host_checks.h): the flow's first FIN; a FIN or ACK until the flow saw both
  uint32_t scan_fin = 0, scan_finack = 0;
  bool dpi_skip = false;  // a TCP retransmission, which nDPI's dissectors never see
  bool old_data = false;  // TCP payload with no byte past the next one expected that way (a retransmission)
  if (p.l4_proto == kProtoTcp && p.has_l4) {
    flow_flags = f.tcp_flags[0] | f.tcp_flags[1];
    if (lim_.checks) {
      scan_fin = p.tcp_flags & ~flow_flags & kFin;
      scan_finack = uint32_t((p.tcp_flags & (kFin | kAck)) != 0) & uint32_t((flow_flags & (kFin | kAck)) != (kFin | kAck));
    }
    f.tcp_flags[dir] |= p.tcp_flags;
    if (p.tcp_flags & kSyn) f.saw_syn = 1;
    if (!f.tcp_timed) tcp_timing(flow_tcp_[fi], f, p, dir);
    if (p.l4_payload_wire) {
      f.tcp_data = 1;
      uint32_t& g = flow_goodput_[fi];
      g = p.l4_payload_wire > kGoodputSaturated - g ? kGoodputSaturated : g + p.l4_payload_wire;
    }
    // a window of 0 on FIN or RST is how a connection ends, not a full receiver (ntopng ignores those too)
    if (p.tcp_win == 0 && !(p.tcp_flags & (kFin | kRst))) f.tcp_zero_win = 1;
    // nDPI (ndpi_connection_tracking) gives no TCP dissector a retransmitted
    // segment: payload starting outside [next, next + 64 KiB) of its
    // direction once both directions' next bytes are known, after a segment
    // that carried payload. (Its own next byte stands still on such a
    // segment where ntopng's rules, kept here, move it back: both agree on
    // what follows in sequence.)
    // nDPI knows both directions' next bytes once it saw each, or once a
    // packet with ACK other than the flow's first gave it the other side's
    // from its acknowledgement number (a flow seen from its middle, one
    // side silent so far); a side's first payload then lies where that
    // number said, in sequence.
    dpi_skip = ndpi_one_sided(f) ? one_sided_skip(f, p, dir)
                                 : p.l4_payload_wire && f.tcp_next[dir] && f.tcp_last_payload &&
                                       uint32_t(p.tcp_seq - f.tcp_next[dir]) > kNdpiRetransWindow &&
                                       (f.tcp_next[dir ^ 1] || (f.packets() > 2 && (flow_flags & kAck)));
    f.tcp_last_payload = p.l4_payload_wire != 0;
    old_data = p.l4_payload_wire && f.tcp_next[dir] && int32_t(p.tcp_seq + p.l4_payload_wire - f.tcp_next[dir]) <= 0;
    tcp_seq_update(f, dir, p.tcp_seq, p.tcp_flags, p.l4_payload_wire, retr, ooo, lost, ka);
    stats_.retransmissions += retr, stats_.out_of_order += ooo, stats_.lost += lost, stats_.keepalive += ka;
    if ((retr | ooo | lost) && (f.cli_local | f.srv_local)) credit_net_tcp(f, retr, ooo, lost);
  }

  const int fam = family_of(p.l4_proto);
  const int bin = size_bin(len);
  const bool tcp = p.l4_proto == kProtoTcp && p.has_l4;
  // Per host and direction d (0 sent, 1 received).
  auto count = [&](Host& h, int d) {
    h.traffic[d].last_ns = now_ns_;
    h.traffic[d].fam_bytes[fam] += len;
    h.count_packet(d, fam);
    HostPktStats& ps = h.pkt[d];
    ps.size_bins[bin]++;
    if (tcp) {
      uint8_t fl = p.tcp_flags;
      if ((fl & (kSyn | kAck)) == kSyn) ps.syn++;
      if ((fl & (kSyn | kAck)) == (kSyn | kAck)) ps.synack++;
      if ((fl & (kFin | kAck)) == (kFin | kAck)) ps.finack++;
      if (fl & kRst) ps.rst++;
      ps.scan_fin += scan_fin, ps.scan_finack += scan_finack;
      if (retr | ooo | lost | ka) h.retr[d] += retr, h.ooo[d] += ooo, h.lost[d] += lost, h.keepalive[d] += ka;
    }
  };
  const bool src_local = dir == 0 ? f.cli_local : f.srv_local;
  const bool dst_local = dir == 0 ? f.srv_local : f.cli_local;
  const bool dst_bcast = dir == 0 ? f.srv_bcast : f.cli_bcast;
  if (src) {
    // its first packet sent: no longer receive-only (the low words read first: they are in a hot line)
    const uint32_t* lo = src->traffic[0].fam_pkts_lo;
    if (!(lo[0] | lo[1] | lo[2] | lo[3]) && src->pkts(0) == 0) rx_only_gone(*src);
    count(*src, 0);
    if (p.l4_proto == kProtoUdp) {
      bool noncast = is_multicast(p.dst) || is_limited_broadcast(p.dst) || dst_bcast;
      if (noncast) src->udp_sent_noncast += len;
      else src->traffic[0].udp_unicast += len;
    }
  }
  if (dst) count(*dst, 1);
  if ((p.l4_proto == kProtoIcmp || p.l4_proto == kProtoIcmpv6) && lim_.checks) {
    if (src && src_local) count_icmp(p, si, true, p.dst);
    if (dst && dst_local) count_icmp(p, di, false, p.src);
  }
  if (it.checks) count_checks(p, flow_flags, si, di);

  // Payload: names (naming protocols on every packet, as answers keep coming
  // on one flow; other payloads on the first packets only) and classification.
  if (p.payload_len) {
    const bool first = f.dpi_packets < kNamePackets;
    if (f.dpi_packets < 255 && !cut) f.dpi_packets++;
    if (first || names_port(p)) {
      const IpAddr& cli = f.cli_is_hi ? f.key.hi : f.key.lo;
      const IpAddr& srv = f.cli_is_hi ? f.key.lo : f.key.hi;
      NameSink sink{this, [](void* c, const IpAddr& ip, uint16_t vlan, const char* n, size_t l, NameSource s) {
                      Pipeline* pl = static_cast<Pipeline*>(c);
                      pl->learn_name(ip, vlan, n, l, s, name_ms_of(pl->now_ns_));
                    }};
      inspect_names(p, dir == 0, cli, srv, sink);
      // ntopng's mDNS device types (Flow.cpp): the services an mDNS response announces tell what
      // its sender is (ntopng credits the flow's client; here the frame's sender, who announced them)
      if (p.has_mac && p.l4_proto == kProtoUdp && (p.sport == 5353 || p.dport == 5353))
        if (uint8_t t = mdns_device_type(Bytes(p.payload, p.payload_len))) learn_mac_devtype(p.src_mac, t);
    }
  }
  // Classification: every packet of a flow nDPI still processes (its
  // connection tracking and checks see segments without payload too; a
  // retransmission reaches no dissector). A packet captured shorter than
  // its IP length is not one: the reader nDPI's results come from drops it
  // (ndpiReader's get_ndpi_flow_info; nDPI itself would read a cut IPv4 TCP
  // segment as far as it goes, and no other cut packet).
  if (!Classifier::wants(f)) {
    // a packet from the side that did not open the flow, after nDPI's last one
    if (!f.back_after_dpi && lim_.dpi && swapped != bool(f.first_hi) && !cut) {
      f.back_after_dpi = 1;
      // the one-way risk nDPI held over IPv6 with equal ports goes now (Classifier::risks)
      if (f.oneway_scored && ndpi_one_sided(f)) rescore(fi, false);
    }
  } else if (!cut) {
    const RiskSig sig = risk_sig(f);
    // nDPI's client side: over IPv6 between equal ports every packet has the
    // first one's direction (dpi/ndpi_direction.h), so all are the client's,
    // or all the server's after a first SYN-ACK
    const bool dpi_from_client = ndpi_one_sided(f) ? dpi_cli_is_hi(f) == bool(f.first_hi) : (dir == 0) != f.dpi_flip;
    if (dpi_skip && p.payload_len && f.dpi_state == kDpiInspecting && f.dpi_retrans < 3) f.dpi_retrans++;
    dpi_.packet(f, p, dpi_from_client, dpi_skip);
    if (risk_sig(f) != sig) {
      if (lim_.checks) rescore(fi, true);
      // ntopng's Flow: a client whose flow nDPI flags as a crawler or bot is
      // one from then on (Host::setCrawlerBotScannerHost)
      if (dpi_.has_stored(f, Risk::CrawlerBot) && f.cli_host != HashIndex::kNone) hosts_[f.cli_host].flags |= kHostCrawlerBot;
    }
  }
  // ... as is one whose address nDPI's crawler lists hold (its ip_risk
  // check, on the flow's first packet)
  if (lim_.dpi && f.pkts[0] + f.pkts[1] == 1 && f.cli_host != HashIndex::kNone && dpi_.ip_list_risk(f) == uint8_t(Risk::CrawlerBot))
    hosts_[f.cli_host].flags |= kHostCrawlerBot;
  // ntopng's IEC104Stats: every new TCP segment of an IEC flow, from the one that classified it on
  if (p.payload_len && lim_.checks && tcp && !old_data && (f.l7_app == id(ProtoId::IEC60870) || f.l7_master == id(ProtoId::IEC60870))) iec_segment(fi, p, dir);
  // The first packet back: the flow is no longer one-way.
  if (f.oneway_scored && f.pkts[dir] == 1 && f.pkts[dir ^ 1] != 0) rescore(fi, false);
  ref.has_flow = 1;
  ref.flow_pkts = f.pkts[0] + f.pkts[1];
  ref.master = f.l7_master, ref.app = f.l7_app;
  ref.classified = f.dpi_state != kDpiInspecting || f.l7_app != 0;

  if (src_local && !dst_local) {
    stats_.local2remote += len, stats_.bytes_upload += len, stats_.packets_upload++;
  } else if (!src_local && dst_local) {
    stats_.remote2local += len, stats_.bytes_download += len, stats_.packets_download++;
  } else if (src_local) {
    stats_.local2local += len;
  } else {
    stats_.remote2remote += len;
  }
  if (is_multicast(p.dst)) stats_.multicast_packets++;
  else if (dst_bcast) stats_.broadcast_packets++;
}

// ntopng's TCP latencies (Flow::updateTcpFlags, the 3WH; Flow's payload
// update, the application's): times in whole µs of packet time, as ntopng's
// timevals, halved as its timeval_diff(…, 1) halves them.
void Pipeline::tcp_timing(TcpTiming& t, Flow& f, const Packet& p, int dir) noexcept {
  const uint64_t us = now_ns_ / 1000 - f.first_ns / 1000;
  if (us >= 0x7ffffffe) return;  // 35 minutes into the flow: nothing left to time
  const uint32_t at = uint32_t(us) + 1;
  constexpr uint32_t kMaxHalfUs = 6000000;  // ntopng: a latency of more than 5 whole seconds is dropped
  if (!t.twh_over()) {
    const uint8_t fl = p.tcp_flags & uint8_t(~(kEce | kCwr));
    if (fl == kSyn) {
      if (!t.syn) t.syn = at;
    } else if (fl == (kSyn | kAck)) {
      if (!t.synack && t.syn) {
        t.synack = at;
        const uint32_t half = (at - t.syn) / 2;
        t.srv_lat = half < kMaxHalfUs ? half : 0;
      }
    } else {
      // the handshake's ACK (with PSH for TCP Fast Open), or anything else: the handshake is over
      if ((fl == kAck || fl == (kAck | kPsh)) && t.synack) {
        const uint32_t half = (at - t.synack) / 2;
        t.cli_lat = half < kMaxHalfUs ? half : 0;
      }
      t.cli_lat |= 1u << 31;
    }
  }
  // the application: the last client payload before the first server one
  if (p.l4_payload_wire && !t.appl) {
    if (dir == 0) t.c2s = at;
    else if (t.c2s) t.appl = at - t.c2s;
  }
  if (t.twh_over() && t.appl) f.tcp_timed = 1;
}

// The side counters of host_checks.h for a TCP packet with SYN or RST, or an
// ICMP packet, from host slot si to di (kNone: no host), as ntopng's
// Flow::updateTcpFlags (packet interfaces) and Flow::updateICMPFlood count
// them; `seen`: the flow's TCP flags before this packet.
void Pipeline::count_checks(const Packet& p, uint8_t seen, uint32_t si, uint32_t di) noexcept {
  const uint32_t secs = uint32_t(now_ns_ / kSecond);
  HostCheckCounters* src = si != HashIndex::kNone ? &checks_[si] : nullptr;
  HostCheckCounters* dst = di != HashIndex::kNone ? &checks_[di] : nullptr;
  if (p.l4_proto != kProtoTcp) {
    // ntopng counts ICMP packets with more than 2 bytes of L4 (a later fragment's bytes too)
    if (p.is_fragment && !p.first_fragment && p.payload_len <= 2) return;
    if (src) src->icmp[0].inc(secs);
    if (dst) dst->icmp[1].inc(secs);
    return;
  }
  // ECE and CWR may accompany a valid handshake (ntopng's TCP_3WH_MASK)
  const uint8_t fl = p.tcp_flags, hs = fl & uint8_t(~(kEce | kCwr));
  if (hs == kSyn) {
    if (src) src->syn[0]++;
    if (dst) dst->syn[1]++;
    // NetworkStats::updateSynAlertsCounter of the receiver's network
    if (dst && host_net_[di] != kNoNet) net_checks_[host_net_[di]].syn_recvd++;
  } else if (hs == (kSyn | kAck)) {
    if (src) src->synack[0]++;
    if (dst) dst->synack[1]++;
    // NetworkStats::updateSynAckAlertsCounter of the sender's network
    if (src && host_net_[si] != kNoNet) net_checks_[host_net_[si]].synack_sent++;
  }
  if ((fl & kRst) && !(seen & kRst)) {
    if (src) src->rst[0].inc(secs);
    if (dst) dst->rst[1].inc(secs);
  }
}

void Pipeline::close_host_checks_minute(uint64_t boundary_ns) noexcept {
  const uint32_t n = hosts_.span();
  // LocalHostStats' countries window: read each minute, emptied every 5 minutes
  const bool five = (boundary_ns / 1000000000ULL) % 300 == 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!hosts_.used(i)) continue;
    Host& h = hosts_[i];
    HostCheckHits& r = check_hits_[i];
    r = hits_of(checks_[i], h);
    reset_checks(checks_[i], h);
    r.hits[kScanDetection][0] = h.incomplete_flows, h.incomplete_flows = 0;
    r.hits[kRemoteConnection][0] = h.remote_access;
    if ((h.flags & kHostLocal) && l7_.enabled()) {
      // ntopng's ServerContacts skip a host that is itself such a server
      // (its DNS check asks isNtpServer(), a slip kept out here)
      r.hits[kDnsContacts][0] = h.services & kSvcDns ? 0 : l7_.contact_estimate(i, kContactDns);
      r.hits[kNtpContacts][0] = h.services & kSvcNtp ? 0 : l7_.contact_estimate(i, kContactNtp);
      r.hits[kSmtpContacts][0] = h.services & kSvcSmtp ? 0 : l7_.contact_estimate(i, kContactSmtp);
      r.hits[kDomainNames][0] = l7_.contact_take(i, kContactDomains);
      r.hits[kCountriesContacts][0] = five ? l7_.contact_take(i, kContactCountries) : l7_.contact_estimate(i, kContactCountries);
    }
    // HostStats' behavioural counters, every host's (a local host's in one
    // side pool, a remote host's in another)
    const bool local = (h.flags & kHostLocal) != 0;
    if (HostBehaviour* b = pooled(local ? behaviour_pool_ : remote_behaviour_pool_, host_behaviour_[i])) {
      const HostScore& sc = host_scores_[i];
      // the names visited in the window, read and emptied when observed (LocalHostStats::updateStats)
      const uint32_t now_s = uint32_t(boundary_ns / kSecond);
      const uint64_t visited = local && b->des_due(now_s) && l7_.enabled() ? l7_.contact_take(i, kContactVisited) : 0;
      const uint64_t des[HostBehaviour::kDes] = {sc.as_client(), sc.as_server(), h.active_as_client, h.active_as_server, visited};
      uint64_t rsi[HostBehaviour::kRsi] = {h.bytes(0), h.bytes(1), h.pkts(0), h.pkts(1)};
      for (int f = 0; f < kFamCount; f++) rsi[4 + 2 * f] = h.traffic[0].fam_bytes[f], rsi[5 + 2 * f] = h.traffic[1].fam_bytes[f];
      // NetworkInterface::incHostAnomalies(local, remote)
      (local ? stats_.local_host_anomalies : stats_.remote_host_anomalies) += b->minute(now_s, des, rsi, local);
    }
  }
  for (uint32_t n = 0; n < kMaxNets; n++) {
    net_check_hits_[n] = net_hits_of(net_checks_[n]);
    reset_net_checks(net_checks_[n]);
  }
  too_large_[1] = too_large_[0];
  too_large_[0].n = 0, too_large_[0].over = 0;
}

void Pipeline::decode_only(const RawPacket& raw) noexcept {
  Packet& p = pkts_[0];
  p.reset(raw.ts_ns, raw.wirelen, raw.caplen);
  p.frame = raw.data;
  if (raw.ts_ns > now_ns_) now_ns_ = raw.ts_ns;
  stats_.packets++;
  stats_.bytes += raw.wirelen;
  if (decode_frame(raw.linktype, Bytes(raw.data, raw.caplen), p, stats_.decode) == DecodeResult::Ip) stats_.ip_packets++;
}

void Pipeline::learn_arp(const RawPacket& raw) noexcept {
  Packet& p = pkts_[0];
  DecodeStats scratch{};
  p.reset(raw.ts_ns, raw.wirelen, raw.caplen);
  p.frame = raw.data;
  decode_frame(raw.linktype, Bytes(raw.data, raw.caplen), p, scratch);
  if (p.arp_op) learn_bcast_domain(p, false);
}

static uint8_t location(const IpAddr& a, bool local) {
  return uint8_t(is_multicast(a) ? Location::Multicast : local ? Location::Local : Location::Remote);
}

void Pipeline::emit_record(uint32_t slot, RecordKind kind, FlowEnd why) noexcept {
  if (!expired_) return;
  const Flow& f = flows_[slot];
  ExpiredFlow r;
  std::memset(&r, 0, sizeof(r));
  const IpAddr& cli = f.cli_is_hi ? f.key.hi : f.key.lo;
  const IpAddr& srv = f.cli_is_hi ? f.key.lo : f.key.hi;
  std::memcpy(r.cli_ip, cli.b, 16);
  std::memcpy(r.srv_ip, srv.b, 16);
  r.cli_port = f.cli_is_hi ? f.key.port_hi : f.key.port_lo;
  r.srv_port = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  r.first_ns = f.first_ns, r.last_ns = f.last_ns;
  r.cli2srv_bytes = f.bytes[0], r.srv2cli_bytes = f.bytes[1];
  r.cli2srv_pkts = f.pkts[0], r.srv2cli_pkts = f.pkts[1];
  r.serial = f.serial;
  r.retr = f.retr[0] + f.retr[1], r.ooo = f.ooo[0] + f.ooo[1], r.lost = f.lost[0] + f.lost[1];
  r.vlan = f.key.vlan, r.proto = f.key.proto, r.ip_version = f.ip_version;
  r.l7_master = f.l7_master, r.l7_app = f.l7_app, r.l7_category = f.l7_category;
  r.cli_flags = f.tcp_flags[0], r.srv_flags = f.tcp_flags[1];
  r.tunnel = f.tunnel, r.reason = uint8_t(why), r.kind = uint8_t(kind);
  r.dscp_cli = f.dscp[0], r.dscp_srv = f.dscp[1];
  r.ttl_cli = f.ttl[0], r.ttl_srv = f.ttl[1];
  r.confidence = dpi_.reported_confidence(f);
  r.risks = dpi_.risks(f);
  r.cli_location = location(cli, f.cli_local), r.srv_location = location(srv, f.srv_local);
  r.blacklisted = uint8_t(f.cli_bl | f.srv_bl << 1);
  r.icmp_type = f.icmp_type(), r.icmp_code = f.icmp_code();
  r.tcp_state = uint8_t(f.tcp_data * kTcpData | f.tcp_zero_win * kTcpZeroWindow);
  const IecFlow* iec = iec_of(slot);
  if (iec) r.tcp_state |= uint8_t(iec->alerts << 2);
  // ntopng's Flow::isNotPurged: not an idle flow being purged, yet idle for ten idle timeouts
  if (!(kind == RecordKind::End && why == FlowEnd::Idle) && now_ns_ > f.last_ns && now_ns_ - f.last_ns > 10 * lim_.flow_idle_ns) r.tcp_state |= kTcpNotPurged;
  // ntopng's Flow::get_goodput_ratio, 100 × goodput / (bytes + 1), in whole percent (TCP flows; 0 otherwise)
  r.goodput_pct = flow_goodput_[slot] == kGoodputSaturated ? 100 : uint8_t(uint64_t(flow_goodput_[slot]) * 100 / (f.bytes[0] + f.bytes[1] + 1));
  if (f.key.proto == kProtoTcp) r.cli_nw_latency_us = flow_tcp_[slot].client_latency(), r.srv_nw_latency_us = flow_tcp_[slot].srv_lat;
  r.cli_pool = f.cli_host != HashIndex::kNone ? host_pool_[f.cli_host] : kNoHostPool;
  r.srv_pool = f.srv_host != HashIndex::kNone ? host_pool_[f.srv_host] : kNoHostPool;
  if (f.cli_host != HashIndex::kNone) {
    const Host& h = hosts_[f.cli_host];
    std::memcpy(r.cli_mac, h.mac, 6);
    copy_cstr(r.cli_name, sizeof(r.cli_name), names_.get(h.name));
    r.devtypes = uint8_t(mac_devtype(h.mac) << 4);
  }
  if (f.srv_host != HashIndex::kNone) {
    const Host& h = hosts_[f.srv_host];
    std::memcpy(r.srv_mac, h.mac, 6);
    copy_cstr(r.srv_name, sizeof(r.srv_name), names_.get(h.name));
    r.devtypes |= uint8_t(mac_devtype(h.mac) & 0x0f);
  }
  flow_info_text(f, r.info, sizeof(r.info));
  if (iec) iec104_info(*iec, r.info, sizeof(r.info));  // ntopng's getFlowInfo puts IEC104Stats' first
  if (!expired_->push(r)) stats_.expired_ring_drops++;
}

// ntopng's Flow::getFlowInfo, from what the dissectors kept: the DNS query,
// HTTP's host + URL (nDPI's http.url), the TLS/QUIC SNI or another server
// name, else SSH's server (or client) banner.
void Pipeline::flow_info_text(const Flow& f, char* out, size_t cap) const noexcept {
  out[0] = 0;
  if (!dpi_.has_state(f)) return;
  const FlowMeta* m = dpi_.meta(f);
  const std::string_view host = dpi_.host(f);
  if (m && m->kind == MetaKind::Http && (!host.empty() || m->http.url[0])) {
    // nDPI's URL: the target alone for a tunnel (CONNECT) or an absolute
    // URI, the host alone when the target is the host, else host + target
    const char* url = m->http.url;
    size_t n = host.size();
    if (f.l7_app == id(ProtoId::HTTP_Connect) || std::strncmp(url, "http://", 7) == 0) n = 0;
    else if (n && std::strncmp(url, host.data(), n) == 0 && url[n] == 0) url = "";
    if (n >= cap) n = cap - 1;
    std::memcpy(out, host.data(), n);
    copy_cstr(out + n, cap - n, url);
    return;
  }
  if (!host.empty()) return copy_str(out, cap, host.data(), host.size());
  if (m && m->kind == MetaKind::Ssh) copy_cstr(out, cap, dpi_.meta_str(m->ssh.banner_s ? m->ssh.banner_s : m->ssh.banner_c));
}

// nDPI categories of ntopng's RemoteAccess flow check (data/categories.tsv)
constexpr uint16_t kCatVpn = 2, kCatRemoteAccess = 12, kCatFileSharing = 29;
static bool remote_access_category(uint16_t c) { return c == kCatVpn || c == kCatRemoteAccess || c == kCatFileSharing; }

void Pipeline::expire_flow(uint32_t i, FlowEnd why) noexcept {
  Flow& f = flows_[i];
  dpi_.give_up(f);  // nDPI guesses by port when a flow ends unclassified
  account_flow(f, i, false);
  if (lim_.checks && (f.key.proto == kProtoTcp || f.key.proto == kProtoUdp) && (f.pkts[0] == 0 || f.pkts[1] == 0)) ended_one_way(f);
  emit_record(i, RecordKind::End, why);
  if (f.score) {
    if (f.scored) apply_score(i, FlowScore{});  // its score leaves its hosts
    score_pool_.release(f.score - 1);
    f.score = 0;
  }
  dpi_.release(f);
  if (const uint32_t e = iec_entry(i); e != HashIndex::kNone) {
    iec_index_.erase(iec_hash(i), e, [&](uint32_t x) { return iec_hash(iec_pool_[x].slot); });
    iec_pool_.release(e);
  }
  f.iec_state = 0;
  // Flow::get_duration: whole seconds between first and last seen
  const uint32_t dur_s = uint32_t(f.last_ns / kSecond) - uint32_t(f.first_ns / kSecond);
  if (f.cli_host != HashIndex::kNone) {
    Host& c = hosts_[f.cli_host];
    c.active_as_client--;
    host_bins_[f.cli_host].flow_end(0, dur_s);
    if (f.host_fx && !(f.cli_local && f.srv_local) && remote_access_category(f.l7_category) && c.remote_access) c.remote_access--;
    // ScanDetection's incomplete flows (ntopng's flow end): TCP whose client
    // sent nothing but SYN or that carried no payload; UDP never answered,
    // to a unicast server
    if (lim_.checks) {
      bool incomplete = false;
      if (f.key.proto == kProtoTcp) incomplete = f.tcp_flags[0] == kSyn || !f.tcp_data;
      else if (f.key.proto == kProtoUdp)
        incomplete = f.pkts[1] == 0 && f.srv_host != HashIndex::kNone && !(hosts_[f.srv_host].flags & (kHostBroadcast | kHostMulticast)) && !(f.cli_is_hi ? f.key.lo : f.key.hi).is_unspecified();
      c.incomplete_flows += incomplete;
    }
  }
  if (f.srv_host != HashIndex::kNone) hosts_[f.srv_host].active_as_server--, host_bins_[f.srv_host].flow_end(1, dur_s);
  flows_.erase(i);
  stats_.flows_expired++;
}

// One accounting step: what the flow carried since the previous step is
// credited to the interface and to both hosts under the flow's current
// application, category and DSCP marks (ntopng's periodic flow update; what
// was credited before a later classification stays where it was).
void Pipeline::account_flow(Flow& f, uint32_t fi, bool sample_thpt) noexcept {
  if (lim_.checks && !f.host_fx && f.dpi_state != kDpiInspecting) classified(f, fi);
  if (f.ports_noted != 3 && (f.cli_local | f.srv_local)) note_ports(f);
  const uint32_t now_ms = uint32_t((now_ns_ - f.first_ns) / 1000000);
  uint32_t db[2], dp[2];
  for (int d = 0; d < 2; d++) {
    db[d] = uint32_t(f.bytes[d]) - f.acct_bytes[d], dp[d] = f.pkts[d] - f.acct_pkts[d];
    f.acct_bytes[d] = uint32_t(f.bytes[d]), f.acct_pkts[d] = f.pkts[d];
  }
  // Throughput over the time since the previous step (a 1 GiB step between
  // two sweeps only shortens the window); under a second it keeps its value.
  const uint32_t dt = now_ms - f.thpt_ts;
  if (sample_thpt && dt >= 1000) {
    double secs = double(dt) / 1e3;
    f.bps = float(double(uint64_t(db[0]) + db[1]) * 8 / secs);
    f.pps = float(double(uint64_t(dp[0]) + dp[1]) / secs);
  }
  f.thpt_ts = now_ms;
  if (!(dp[0] | dp[1])) return;
  const uint16_t app = f.l7_app ? f.l7_app : f.l7_master;
  const bool new_flow = !f.acct_counted;
  f.acct_counted = 1;
  if (app < n_apps_) {
    IfaceL7Counter& a = if_apps_[app];
    a.bytes += uint64_t(db[0]) + db[1], a.packets += uint64_t(dp[0]) + dp[1], a.flows += new_flow;
  }
  if (f.l7_category < n_cats_) {
    IfaceL7Counter& c = if_cats_[f.l7_category];
    c.bytes += uint64_t(db[0]) + db[1], c.packets += uint64_t(dp[0]) + dp[1], c.flows += new_flow;
  }
  VlanTraffic& v = vlans_[f.key.vlan & (kVlans - 1)];
  v.bytes[0] += db[0], v.bytes[1] += db[1], v.pkts[0] += dp[0], v.pkts[1] += dp[1];
  if (f.cli_local | f.srv_local) credit_nets(f, db[0], db[1], dp[0] + dp[1]);
  credit_countries(f, db[0], db[1]);
  if (f.cli_host != HashIndex::kNone)
    credit_host(f.cli_host, {app, f.l7_category, f.dscp[0], f.dscp[1], new_flow, db[0], db[1], dp[0], dp[1]});
  if (f.srv_host != HashIndex::kNone)
    credit_host(f.srv_host, {app, f.l7_category, f.dscp[1], f.dscp[0], new_flow, db[1], db[0], dp[1], dp[0]});
}

// ntopng's Flow::update_hosts_stats for countries: the client's country
// counts what the client sent as egress and what it received as ingress,
// the server's the reverse; one country at both ends counts it once, inner.
void Pipeline::credit_countries(const Flow& f, uint32_t c2s, uint32_t s2c) noexcept {
  const uint16_t cc = f.cli_host != HashIndex::kNone ? host_country_[f.cli_host] : 0;
  const uint16_t sc = f.srv_host != HashIndex::kNone ? host_country_[f.srv_host] : 0;
  if (!(cc | sc)) return;
  if (cc == sc) {
    country_traffic_[cc].inner += uint64_t(c2s) + s2c;
    return;
  }
  if (cc) country_traffic_[cc].egress += c2s, country_traffic_[cc].ingress += s2c;
  if (sc) country_traffic_[sc].ingress += c2s, country_traffic_[sc].egress += s2c;
}

// ntopng's Flow::update_hosts_stats: the client's network counts what the
// client sent as egress and what it received as ingress, the server's the
// reverse; both ends in one network count once, as inner traffic.
void Pipeline::credit_nets(const Flow& f, uint32_t c2s, uint32_t s2c, uint32_t pkts) noexcept {
  const uint8_t cn = f.cli_local && f.cli_host != HashIndex::kNone ? host_net_[f.cli_host] : kNoNet;
  const uint8_t sn = f.srv_local && f.srv_host != HashIndex::kNone ? host_net_[f.srv_host] : kNoNet;
  if (cn != kNoNet && cn == sn) {
    net_traffic_[cn].inner += uint64_t(c2s) + s2c, net_traffic_[cn].packets += pkts;
    return;
  }
  if (cn != kNoNet) net_traffic_[cn].egress += c2s, net_traffic_[cn].ingress += s2c, net_traffic_[cn].packets += pkts;
  if (sn != kNoNet) net_traffic_[sn].ingress += c2s, net_traffic_[sn].egress += s2c, net_traffic_[sn].packets += pkts;
}

// ntopng's Flow::updateTcpPacketStats for networks (a TCP anomaly, not every packet)
void Pipeline::credit_net_tcp(const Flow& f, uint32_t retr, uint32_t ooo, uint32_t lost) noexcept {
  const uint8_t cn = f.cli_local && f.cli_host != HashIndex::kNone ? host_net_[f.cli_host] : kNoNet;
  const uint8_t sn = f.srv_local && f.srv_host != HashIndex::kNone ? host_net_[f.srv_host] : kNoNet;
  for (uint8_t n : {cn, sn == cn ? kNoNet : sn})
    if (n != kNoNet) net_traffic_[n].retr += retr, net_traffic_[n].ooo += ooo, net_traffic_[n].lost += lost;
}

// What a flow's classification tells about its hosts, applied once, at the
// first accounting step after inspection ended (ntopng: at protocol
// detection, and in the periodic host update for the contacts): the server
// roles seen (Flow::updateTCPHostServices / updateUDPHostServices), the
// client's contacts with DNS, NTP and SMTP servers and the name its flow
// named (LocalHostStats, local clients only), and its remote-access flows
// (the RemoteAccess flow check's incrRemoteAccess, undone at the flow's end).
void Pipeline::classified(Flow& f, uint32_t idx) noexcept {
  f.host_fx = 1;
  const uint16_t lower = f.l7_master ? f.l7_master : f.l7_app;  // ndpi_get_lower_proto
  const bool has_cli = f.cli_host != HashIndex::kNone, has_srv = f.srv_host != HashIndex::kNone;
  const bool answered = f.pkts[1] != 0;
  uint8_t svc = 0;
  ContactKind kind = ContactKind(0);
  const bool udp = f.key.proto == kProtoUdp, tcp = f.key.proto == kProtoTcp;
  switch (lower) {
    case id(ProtoId::DNS): svc = udp ? kSvcDns : 0, kind = kContactDns; break;
    case id(ProtoId::NTP): svc = udp ? kSvcNtp : 0, kind = kContactNtp; break;
    case id(ProtoId::SMTP): case id(ProtoId::SMTPS): svc = tcp && answered ? kSvcSmtp : 0, kind = kContactSmtp; break;
    case id(ProtoId::IMAP): case id(ProtoId::IMAPS): svc = tcp && answered ? kSvcImap : 0, kind = kContactImap; break;
    case id(ProtoId::POP3): case id(ProtoId::POPS): svc = tcp && answered ? kSvcPop : 0, kind = kContactPop; break;
    case id(ProtoId::DHCP):
      // the DHCP server is whichever end uses port 67, unless it is a broadcast address
      if (udp) {
        const bool cli_is_srv = (f.cli_is_hi ? f.key.port_hi : f.key.port_lo) == 67;
        const uint32_t s = cli_is_srv ? f.cli_host : f.srv_host;
        if (s != HashIndex::kNone && !(cli_is_srv ? f.cli_bcast : f.srv_bcast)) hosts_[s].services |= kSvcDhcp;
      }
      break;
  }
  if (svc && has_srv) hosts_[f.srv_host].services |= svc;
  // ntopng's Flow::processDetectedProtocolData: a flow whose key the
  // periodicity map holds as periodic carries nDPI's periodic-flow risk
  if (behaviour(f) && dpi_.add_risk(f, Risk::PeriodicFlow)) rescore(idx, true);
  if (!has_cli) return;
  // ntopng's Flow::deferredInitialization: a local end counts the other end's country
  if (has_srv) {
    const uint16_t cc = host_country_[f.cli_host], sc = host_country_[f.srv_host];
    if (f.cli_local && sc) contact(f.cli_host, kContactCountries, uint32_t(mix64(sc) >> 32));
    if (f.srv_local && cc) contact(f.srv_host, kContactCountries, uint32_t(mix64(cc) >> 32));
  }
  auto ip_hash = [](const IpAddr& ip) {
    uint64_t a, b;
    std::memcpy(&a, ip.b, 8), std::memcpy(&b, ip.b + 8, 8);
    return uint32_t(mix64(a ^ mix64(b)) >> 32);
  };
  const IpAddr& cli_ip = f.cli_is_hi ? f.key.hi : f.key.lo;
  const IpAddr& srv_ip = f.cli_is_hi ? f.key.lo : f.key.hi;
  if (has_srv && f.srv_local) contact(f.srv_host, kContactPeersIn, ip_hash(cli_ip));
  if (has_srv && f.cli_local) contact(f.cli_host, kContactPeersOut, ip_hash(srv_ip));
  if (remote_access_category(f.l7_category) && !(f.cli_local && f.srv_local)) {
    uint8_t& n = hosts_[f.cli_host].remote_access;
    if (n < 255) n++;
  }
  if (!f.cli_local) return;
  if (kind && has_srv) contact(f.cli_host, kind, ip_hash(srv_ip));
  const std::string_view host = dpi_.host(f);
  if (host.empty()) return;
  const char* const fhost = host.data();
  // the name the flow carries, hashed once for the domain-name and service sketches
  const size_t len = host.size();
  const uint32_t name = dpi_.host_hash(f, host);
  contact(f.cli_host, kContactDomains, name);
  // LocalHostStats::incrVisitedWebSite, from Flow's HTTP, TLS / QUIC / Tor (not DoH) and DNS (no error)
  // cases; incContactedService in the same cases (TLS's DoH too)
  switch (lower) {
    case id(ProtoId::HTTP): {
      contact(f.cli_host, kContactServices, name);
      size_t n = len;  // the Host without its ":port"
      while (n && fhost[n - 1] >= '0' && fhost[n - 1] <= '9') n--;
      visited(f.cli_host, fhost, n && fhost[n - 1] == ':' ? n - 1 : len, name);
      break;
    }
    case id(ProtoId::TLS): case id(ProtoId::QUIC): case id(ProtoId::Tor):
      contact(f.cli_host, kContactServices, name);
      if (f.l7_app != id(ProtoId::DoH_DoT)) visited(f.cli_host, fhost, len, name);
      break;
    case id(ProtoId::DNS):
      if (dpi_.meta_kind(f) != MetaKind::Dns || dpi_.dns(f).rcode == 0) contact(f.cli_host, kContactServices, name), visited(f.cli_host, fhost, len, name);
      break;
  }
}

// The flow's start into the behaviour maps (flow/behaviour_maps.h): every
// flow into the periodicity map, local-to-local ones into the service map.
// True when the flow's key is periodic (its start counted).
bool Pipeline::behaviour(const Flow& f) noexcept {
  if (!lim_.behaviour_map_entries) return false;
  BehaviourKey k{};
  k.cli = f.cli_is_hi ? f.key.hi : f.key.lo;
  k.srv = f.cli_is_hi ? f.key.lo : f.key.hi;
  k.port = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  k.vlan = f.key.vlan, k.master = f.l7_master, k.app = f.l7_app, k.l4 = f.key.proto;
  bool created;
  auto put = [&](BehaviourMap& m) -> BehaviourEntry* {
    BehaviourEntry* e = m.find_or_add(k, f.first_ns, created);
    if (created) flow_info_text(f, e->info, sizeof e->info);
    return e;
  };
  if (f.cli_local && f.srv_local)
    if (BehaviourEntry* e = put(services_)) services_.add_service_use(*e, f.first_ns);
  BehaviourEntry* e = put(periodicity_);
  if (!e) return false;
  periodicity_.add_start(*e, f.first_ns);
  return BehaviourMap::periodic(*e);
}

// ntopng's Flow::~Flow for a TCP/UDP flow that ended one-way: the client
// counts the (server, port) it got nothing back from, the server the
// (client, port) it did not answer and the port.
void Pipeline::ended_one_way(const Flow& f) noexcept {
  if (f.cli_host == HashIndex::kNone || f.srv_host == HashIndex::kNone) return;
  const IpAddr& cli = f.cli_is_hi ? f.key.hi : f.key.lo;
  const IpAddr& srv = f.cli_is_hi ? f.key.lo : f.key.hi;
  const uint16_t port = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  auto pair = [port](const IpAddr& a) {
    uint64_t x, y;
    std::memcpy(&x, a.b, 8), std::memcpy(&y, a.b + 8, 8);
    return uint32_t(mix64(x ^ mix64(y ^ port)) >> 32);
  };
  contact(f.cli_host, kContactNoTxOut, pair(srv));
  contact(f.srv_host, kContactNoTxIn, pair(cli));
  contact(f.srv_host, kContactNoTxPorts, uint32_t(mix64(port) >> 32));
  if (l7_.enabled()) {
    if (!l7_.count_add(f.srv_host, kCountOneWay, 0)) stats_.host_contacts_full++;
    if (!l7_.count_add(f.cli_host, kCountOneWay, 1)) stats_.host_contacts_full++;
  }
}

// A site a local client visited: on the interface's list and the host's
// (a pool entry taken at its first site; none left: counted, not kept).
// `name_hash`: the flow's name as classified() hashed it, for the 5-minute
// window of names (LocalHostStats::incContactedHosts).
void Pipeline::visited(uint32_t host, const char* name, size_t len, uint32_t name_hash) noexcept {
  const char* site;
  size_t n;
  if (!site_of(name, len, site, n)) return;
  contact(host, kContactVisited, name_hash);
  const uint32_t h = fnv1a(site, n);
  if_sites_.add(site, n, h);
  uint32_t& ref = host_sites_[host];
  const uint32_t id = site_names_.find(site, n, h);  // none: a site no list holds yet
  if (!ref || (ref & kFewSites)) {
    uint32_t few = ref & ~kFewSites;  // the short list's entry + 1 (taken at the host's first site)
    SiteListFew* f = pooled(sites_few_, few);
    if (!f) return;
    ref = kFewSites | few;
    const SiteVisit v = f->add(site_names_, id, site, n, h);
    if (v != SiteVisit::NoRoom) return void(stats_.host_side_full += v == SiteVisit::NoName);
    // one site more than the short list holds: it moves to a full one
    const uint32_t e = sites_pool_.alloc();
    if (e == HashIndex::kNone) return void(stats_.host_side_full++);
    f->into(sites_pool_[e]);
    sites_few_.release(few - 1);
    ref = e + 1;
  }
  if (sites_pool_[ref - 1].add(site_names_, id, site, n, h) == SiteVisit::NoName) stats_.host_side_full++;
}

bool Pipeline::host_sites(uint32_t slot, TopSites& out) const noexcept {
  const uint32_t ref = host_sites_[slot];
  if (!ref) return false;
  if (ref & kFewSites) sites_few_[(ref & ~kFewSites) - 1].into(site_names_, out);
  else sites_pool_[ref - 1].into(site_names_, out);
  return true;
}

// One ICMP packet a local host sent or received (flow/host_icmp.h).
void Pipeline::count_icmp(const Packet& p, uint32_t host, bool sent, const IpAddr& peer) noexcept {
  HostIcmp* x = pooled(icmp_pool_, host_icmp_[host]);
  if (x && !x->add(p.l4_proto == kProtoIcmpv6, p.icmp_type, p.icmp_code, sent, peer, p.vlan_id)) stats_.host_contacts_full++;
}

// ntopng's Flow::updateServerPortsStats and updateClientContactedPorts, at
// each accounting step (ntopng: at detection and each periodic update) until
// the classification is final and both ends are noted: a local server's port
// once it answered — TCP opened by a client SYN and never reset by the
// server, FTP data left out; UDP from a higher client port —, a local
// client's contacted server port under the same SYN / port rule. Noted
// again while the flow is inspected, so the port ends with the final name.
void Pipeline::note_ports(Flow& f) noexcept {
  const bool tcp = f.key.proto == kProtoTcp, final = f.dpi_state != kDpiInspecting;
  if (!tcp && f.key.proto != kProtoUdp) return void(f.ports_noted = 3);
  const uint16_t cport = f.cli_is_hi ? f.key.port_hi : f.key.port_lo, sport = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  const bool opened = tcp ? (f.tcp_flags[0] & kSyn) != 0 : cport > sport;
  if (!opened) {
    if (final) f.ports_noted = 3;
    return;
  }
  auto note = [&](uint32_t host, bool server) {
    HostPorts* x = pooled(ports_pool_, host_ports_[host]);
    if (x && !x->add(tcp, server, sport, f.l7_master, f.l7_app)) stats_.host_contacts_full++;
  };
  if (!(f.ports_noted & 1)) {
    if (!f.srv_local || f.srv_host == HashIndex::kNone) f.ports_noted |= 1;
    else if (f.bytes[1] && !(tcp && (f.tcp_flags[1] & kRst))) {
      const bool ftp_data = f.l7_master == id(ProtoId::FTP_DATA) || f.l7_app == id(ProtoId::FTP_DATA);
      if (!(tcp && ftp_data)) note(f.srv_host, true);
      if (final) f.ports_noted |= 1;
    }
  }
  if (!(f.ports_noted & 2)) {
    const bool local = f.cli_local && f.cli_host != HashIndex::kNone;
    if (local) note(f.cli_host, false);
    if (final || !local) f.ports_noted |= 2;
  }
}

// One TCP segment of an IEC 60870-5-104 flow (flow/iec104.h); its state is
// taken at the first one that can hold an APDU.
void Pipeline::iec_segment(uint32_t fi, const Packet& p, int dir) noexcept {
  if (p.payload_len < 2u + kIecMinLen) return;
  Flow& f = flows_[fi];
  if (f.iec_state == 2) return;
  uint32_t e;
  if (f.iec_state == 0) {
    e = iec_pool_.alloc();
    if (e == HashIndex::kNone) {
      f.iec_state = 2;
      iec_full_++;
      return;
    }
    iec_pool_[e] = IecFlow{};
    iec_pool_[e].slot = fi;
    iec_index_.insert(iec_hash(fi), e);
    f.iec_state = 1;
  } else {
    e = iec_entry(fi);
  }
  // ntopng's Flow::get_duration: 1 + last seen - first seen, in whole seconds
  const uint64_t duration_s = 1 + now_ns_ / kSecond - f.first_ns / kSecond;
  iec104_segment(iec_pool_[e], iec_cfg_, p.payload, p.payload_len, dir, p.sport == 2404, duration_s);
}

void Pipeline::contact(uint32_t host, ContactKind kind, uint32_t h) noexcept {
  if (!l7_.enabled()) return;
  if (!l7_.contact_add(host, kind, h)) stats_.host_contacts_full++;
}

void Pipeline::credit_host(uint32_t hi, const L7Credit& c) noexcept {
  // The table keeps its own copy of the full flag: a credit reads no host line.
  if (!l7_.enabled() || l7_.full(hi)) return;
  // A host the table cannot serve stops here rather than keep partial sums.
  if (!l7_.credit(hi, c, sweep_pass_)) {
    l7_.set_full(hi);
    hosts_[hi].flags |= kHostL7Full;
    stats_.host_l7_pool_full++;
  }
}

void Pipeline::sweep(uint32_t nf, uint32_t nh, uint32_t nl) noexcept {
  const uint32_t fspan = flows_.span(), hspan = hosts_.span();
  if (nf > fspan) nf = fspan;
  if (flow_cursor_ >= fspan) flow_cursor_ = 0;
  L7Scout scout{l7_.enabled(), flow_cursor_, nf};
  for (uint32_t k = 0; k < nf; k++) {
    scout.top_up(*this, k);
    if (scout.on && to_credit(flow_cursor_) && scout.pending) scout.pending--;
    uint32_t i = flow_cursor_;
    if (++flow_cursor_ == fspan) flow_cursor_ = 0, sweep_pass_++;
    if (!flows_.used(i)) continue;
    Flow& f = flows_[i];
    if (now_ns_ - f.last_ns > lim_.flow_idle_ns) {
      expire_flow(i, FlowEnd::Idle);
      continue;
    }
    if (lim_.flow_lifetime_ns && now_ns_ - f.first_ns > lim_.flow_lifetime_ns) {
      expire_flow(i, FlowEnd::Lifetime);
      continue;
    }
    if (lim_.periodic_dump_ns) {
      // a long-lived flow's snapshot each period of its life (ntopng's
      // periodic flow dump); the store writes what changed since the last one
      const uint8_t epoch = uint8_t(((now_ns_ - f.first_ns) / lim_.periodic_dump_ns) & 3);
      if (epoch != f.dump_epoch) {
        f.dump_epoch = epoch;
        emit_record(i, RecordKind::Periodic, FlowEnd::Idle);
      }
    }
    account_flow(f, i, true);
    if (lim_.checks && !f.score_judged) {
      // one-way or not, now; an answered flow's risks only change with its
      // classification, which the packet path re-scores
      if (f.pkts[0] == 0 || f.pkts[1] == 0 || f.oneway_scored) rescore(i, false);
      f.score_judged = 1;
    }
  }
  if (nh > hspan) nh = hspan;
  if (host_cursor_ >= hspan) host_cursor_ = 0;
  for (uint32_t k = 0; k < nh; k++) {
    uint32_t i = host_cursor_;
    host_cursor_ = host_cursor_ + 1 == hspan ? 0 : host_cursor_ + 1;
    if (!hosts_.used(i)) continue;
    Host& e = hosts_[i];
    uint64_t idle = (e.flags & kHostLocal) ? lim_.local_host_idle_ns : lim_.remote_host_idle_ns;
    const bool busy = e.active_as_client != 0 || e.active_as_server != 0;
    if (liveness_) liveness_->publish(worker_, e.hash, e.last_ns(), busy);
    if (!busy && now_ns_ - e.last_ns() > idle && (!liveness_ || liveness_->others_idle(worker_, e.hash, now_ns_, idle))) {
      if (liveness_) liveness_->forget(worker_, e.hash);
      if (!liveness_ || liveness_->leave(e.hash)) stats_.hosts_expired++;  // the host's last part
      names_.release(e.name);
      if (e.flags & kHostLocal) stats_.local_hosts--;
      if (e.pkts(0) == 0) rx_only_gone(e);
      if (const uint32_t r = host_sites_[i]) {
        if (r & kFewSites) sites_few_[(r & ~kFewSites) - 1].release_names(site_names_), sites_few_.release((r & ~kFewSites) - 1);
        else sites_pool_[r - 1].release_names(site_names_), sites_pool_.release(r - 1);
        host_sites_[i] = 0;
      }
      if (host_icmp_[i]) icmp_pool_.release(host_icmp_[i] - 1), host_icmp_[i] = 0;
      if (host_ports_[i]) ports_pool_.release(host_ports_[i] - 1), host_ports_[i] = 0;
      if (host_behaviour_[i]) (e.flags & kHostLocal ? behaviour_pool_ : remote_behaviour_pool_).release(host_behaviour_[i] - 1), host_behaviour_[i] = 0;
      if (l7_.enabled()) l7_.host_gone(i);
      hosts_.erase(i);
      continue;
    }
    uint64_t dt = now_ns_ - e.thpt_ts;
    if (dt >= kSecond) {
      uint64_t b = e.bytes(0) + e.bytes(1), pk = e.pkts(0) + e.pkts(1);
      double secs = double(dt) / 1e9;
      e.prev_bps = e.bps, e.prev_pps = e.pps;
      e.bps = float(double(b - e.thpt_bytes) * 8 / secs);
      e.pps = float(double(pk - e.thpt_pkts) / secs);
      e.thpt_bytes = b, e.thpt_pkts = uint32_t(pk), e.thpt_ts = now_ns_;
    }
  }
  // Entries of expired hosts are reclaimed at the same pace (a pass per 5 s).
  if (l7_.enabled()) l7_.clean(nl);
}

void Pipeline::advance(uint64_t now_ns) noexcept {
  if (now_ns > now_ns_) now_ns_ = now_ns;
  if (liveness_) liveness_->clock(worker_, now_ns_);
  if (last_sweep_ns_ == 0) {
    last_sweep_ns_ = now_ns_;
    stats_.thpt_ts = now_ns_;
    return;
  }
  uint64_t dt = now_ns_ - last_sweep_ns_;
  if (dt == 0) return;
  last_sweep_ns_ = now_ns_;
  // A full pass over each table every kSweepPeriod of engine time: idle
  // timeouts are tens of seconds, and ntopng refreshes throughputs every 5 s.
  // A pass covers the slots in use (span), not the whole preallocation.
  const uint64_t step = dt > kSweepPeriod ? kSweepPeriod : dt;
  auto owed = [&](uint64_t& debt, uint32_t slots) {
    debt += step * slots;
    const uint64_t n = debt / kSweepPeriod;
    debt -= n * kSweepPeriod;
    return uint32_t(n < slots ? n : slots);
  };
  const uint32_t nf = owed(sweep_debt_[0], flows_.span()), nh = owed(sweep_debt_[1], hosts_.span());
  const uint32_t nl = l7_.enabled() ? owed(sweep_debt_[2], l7_.slots()) : 0;
  if (nf | nh | nl) sweep(nf, nh, nl);
  uint64_t idt = now_ns_ - stats_.thpt_ts;
  if (idt >= kSecond) {
    double secs = double(idt) / 1e9;
    stats_.bps = double(stats_.bytes - stats_.thpt_bytes) * 8 / secs;
    stats_.pps = double(stats_.packets - stats_.thpt_pkts) / secs;
    stats_.thpt_bytes = stats_.bytes, stats_.thpt_pkts = stats_.packets, stats_.thpt_ts = now_ns_;
  }
}

bool Pipeline::resize(uint32_t max_flows, uint32_t max_hosts) {
  if (max_flows < flows_.size() || max_hosts < hosts_.size() || max_flows == 0 || max_hosts < 2) return false;
  // Hosts keep their names only if the new pool can hold them all.
  uint32_t named = 0;
  for (uint32_t i = 0; i < hosts_.span(); i++)
    if (hosts_.used(i) && hosts_[i].name != HashIndex::kNone) named++;
  if (named > max_hosts / 2 + 1) return false;
  // The per-host L7 table follows the host table's size, but never below what
  // it holds: a rebuild keeps every live entry (and drops stale ones).
  uint32_t l7_max = l7_entries(max_hosts, lim_.l7_entries_per_host), l7_live = l7_.enabled() ? l7_.live() : 0;
  HostL7Table nl(l7_max > l7_live ? l7_max : l7_live, max_hosts);
  FlowTable nf(max_flows);
  HostTable nh(max_hosts);
  NamePool nn(max_hosts / 2 + 1);
  std::unique_ptr<uint32_t[]> moved(new uint32_t[hosts_.max()]);
  std::unique_ptr<uint8_t[]> nnet(new uint8_t[max_hosts]);
  std::memset(nnet.get(), kNoNet, max_hosts);
  std::unique_ptr<uint8_t[]> npool(new uint8_t[max_hosts]());
  std::unique_ptr<uint16_t[]> ncountry(new uint16_t[max_hosts]());
  std::unique_ptr<uint32_t[]> nsites(new uint32_t[max_hosts]()), nicmp(new uint32_t[max_hosts]()), nports(new uint32_t[max_hosts]()), nbehaviour(new uint32_t[max_hosts]());
  ZeroArray<HostCheckCounters> nchecks = zero_array<HostCheckCounters>(max_hosts);
  ZeroArray<HostCheckHits> nhits = zero_array<HostCheckHits>(max_hosts);
  ZeroArray<HostScore> nhscores = zero_array<HostScore>(max_hosts);
  ZeroArray<HostFlowBins> nhbins = zero_array<HostFlowBins>(max_hosts);
  std::unique_ptr<uint32_t[]> ngoodput(new uint32_t[max_flows]());
  std::unique_ptr<TcpTiming[]> ntcp(new TcpTiming[max_flows]());
  const uint32_t niecs = std::max(iec_entries(max_flows), iec_pool_.size());
  EntryPool<IecFlow> niecpool(niecs);
  HashIndex niecindex(niecs);
  const uint32_t nscored = score_entries(max_flows);
  EntryPool<FlowScore> nfscores(nscored > score_pool_.size() ? nscored : score_pool_.size());
  std::fill(moved.get(), moved.get() + hosts_.max(), HashIndex::kNone);
  for (uint32_t i = 0; i < hosts_.span(); i++) {
    if (!hosts_.used(i)) continue;
    uint32_t j = nh.create(hosts_[i].key, hosts_[i].hash);
    Host& h = nh[j];
    h = hosts_[i];  // the name is re-stored below, L7 entries after the loop
    if (const char* name = names_.get(h.name)) {
      h.name = nn.store(HashIndex::kNone, name, std::strlen(name));
      if (h.name == HashIndex::kNone) h.name_source = 0;
    }
    moved[i] = j;
    nnet[j] = host_net_[i];
    npool[j] = host_pool_[i];
    ncountry[j] = host_country_[i];
    nsites[j] = host_sites_[i], nicmp[j] = host_icmp_[i], nports[j] = host_ports_[i], nbehaviour[j] = host_behaviour_[i];
    nchecks[j] = checks_[i], nhits[j] = check_hits_[i];
    nhscores[j] = host_scores_[i];
    nhbins[j] = host_bins_[i];
  }
  if (nl.enabled()) nl.adopt(l7_, moved.get());
  for (uint32_t i = 0; i < flows_.span(); i++) {
    if (!flows_.used(i)) continue;
    uint32_t j = nf.create(flows_[i].key, hash_flow_key(flows_[i].key));
    Flow& f = nf[j];
    f = flows_[i];
    ngoodput[j] = flow_goodput_[i];
    ntcp[j] = flow_tcp_[i];
    if (const IecFlow* x = iec_of(i)) {  // iec_state is copied with the flow
      const uint32_t e = niecpool.alloc();
      niecpool[e] = *x;
      niecpool[e].slot = j;
      niecindex.insert(iec_hash(j), e);
    }
    if (f.score) {
      const uint32_t e = nfscores.alloc();
      nfscores[e] = score_pool_[f.score - 1];
      f.score = e + 1;
    }
    if (f.cli_host != HashIndex::kNone) f.cli_host = moved[f.cli_host];
    if (f.srv_host != HashIndex::kNone) f.srv_host = moved[f.srv_host];
  }
  // The pools sized as shares of the tables grow with them (entries keep their
  // numbers, so flows and host slots keep their references); they never shrink.
  dpi_.grow(max_flows, lim_.flow_info_share, lim_.flow_meta_share);
  const uint32_t side = sites_slots(max_hosts, lim_.host_side_share);
  sites_pool_.grow(side), sites_few_.grow(side), icmp_pool_.grow(side), ports_pool_.grow(side), behaviour_pool_.grow(side), remote_behaviour_pool_.grow(side);
  site_names_.grow(site_names_for(sites_pool_.max(), sites_few_.max()));  // ids stay: the host lists keep theirs
  flows_ = std::move(nf);
  flow_goodput_ = std::move(ngoodput);
  flow_tcp_ = std::move(ntcp);
  iec_pool_ = std::move(niecpool), iec_index_ = std::move(niecindex);
  hosts_ = std::move(nh);
  names_ = std::move(nn);
  l7_ = std::move(nl);
  host_net_ = std::move(nnet);
  host_pool_ = std::move(npool);
  host_country_ = std::move(ncountry);
  host_sites_ = std::move(nsites), host_icmp_ = std::move(nicmp), host_ports_ = std::move(nports), host_behaviour_ = std::move(nbehaviour);
  checks_ = std::move(nchecks), check_hits_ = std::move(nhits);
  host_scores_ = std::move(nhscores), score_pool_ = std::move(nfscores);
  host_bins_ = std::move(nhbins);
  lim_.max_flows = max_flows, lim_.max_hosts = max_hosts;
  flow_cursor_ = host_cursor_ = 0;
  sweep_pass_++;
  restart_sweep();
  return true;
}

// The flow's hosts get the difference between its old and new shares
// (Host::incScoreValue / decScoreValue); becoming alerted or not moves the
// alerted-flow counters (setNormalToAlertedCounters, and their decrement
// when an alerted flow goes), a change of predominant alert moves the
// interface's severity counters (setPredominantAlert).
void Pipeline::apply_score(uint32_t fi, const FlowScore& next) noexcept {
  Flow& f = flows_[fi];
  if (!f.score) {
    if (!next.alerts) return;  // never alerted: nothing to credit or take back
    const uint32_t e = score_pool_.alloc();
    if (e == HashIndex::kNone) {
      score_full_++;
      return;
    }
    score_pool_[e] = FlowScore{};
    f.score = e + 1;
  }
  FlowScore& cur = score_pool_[f.score - 1];
  const bool was = cur.alerts != 0, now = next.alerts != 0;
  const bool first = now && !cur.counted;  // alerted for the first time
  if (f.cli_host != HashIndex::kNone) {
    HostScore& h = host_scores_[f.cli_host];
    for (int c = 0; c < kScoreCategories; c++) h.score[0][c] += uint32_t(next.cli[c]) - cur.cli[c], stats_.score_as_cli += uint64_t(next.cli[c]) - cur.cli[c];
    if (was != now) h.alerted_active += now ? 1 : -1;
    h.alerted_total[0] += first;
  }
  if (f.srv_host != HashIndex::kNone) {
    HostScore& h = host_scores_[f.srv_host];
    for (int c = 0; c < kScoreCategories; c++) h.score[1][c] += uint32_t(next.srv[c]) - cur.srv[c], stats_.score_as_srv += uint64_t(next.srv[c]) - cur.srv[c];
    if (was != now) h.alerted_active += now ? 1 : -1;
    h.alerted_total[1] += first;
  }
  if (was) stats_.alerted_flows[cur.group]--;
  if (now) stats_.alerted_flows[next.group]++;
  const uint8_t counted = cur.counted | first;
  cur = next;
  cur.counted = counted;
  f.scored = now;
  f.oneway_scored = (next.alerts >> uint8_t(Risk::Unidirectional)) & 1;
}

void Pipeline::set_risk_scores(const RiskScoreTable& t) noexcept {
  score_table_ = t;
  for (uint32_t i = 0; i < flows_.span(); i++)
    if (flows_.used(i)) apply_score(i, score_of(dpi_.risks(flows_[i]) & t.alerting, t)), flows_[i].score_judged = 1;
}

void Pipeline::learn_bcast_domain(const Packet& p, bool log) noexcept {
  const uint32_t spa = p.arp_spa, tpa = p.arp_tpa;
  if (BcastDomains::too_large(spa, tpa)) {
    if (!log) return;
    BcastTooLarge e{};
    if (p.has_mac) std::memcpy(e.src_mac, p.src_mac, 6), std::memcpy(e.dst_mac, p.dst_mac, 6);
    e.vlan = p.vlan_id, e.spa = spa, e.tpa = tpa;
    too_large_[0].add(e);
    return;
  }
  bool created;
  int d = bcast_.learn(spa, tpa, created);
  if (d < 0 || !created) return;
  // A new domain (rare): flag the IPv4 hosts already inside it.
  const BcastDomain& b = bcast_[d];
  for (uint32_t i = 0; i < hosts_.span(); i++) {
    if (!hosts_.used(i)) continue;
    Host& h = hosts_[i];
    if (h.key.ip.is_v4() && (h.key.ip.v4() & BcastDomains::mask(b.cidr)) == b.net) h.flags |= kHostBroadcastDomain;
  }
}

void Pipeline::account_all() noexcept {
  L7Scout scout{l7_.enabled(), 0, flows_.span()};
  for (uint32_t i = 0; i < flows_.span(); i++) {
    scout.top_up(*this, i);
    if (!flows_.used(i)) continue;
    if (to_credit(i) && scout.pending) scout.pending--;
    account_flow(flows_[i], i, false);
  }
}

uint32_t Pipeline::expire_some(uint32_t max) noexcept {
  uint32_t n = 0;
  for (uint32_t i = 0; i < flows_.span() && n < max; i++) {
    if (!flows_.used(i)) continue;
    expire_flow(i, FlowEnd::Flushed);
    n++;
  }
  return n;
}

void Pipeline::flush_all() noexcept {
  L7Scout scout{l7_.enabled(), 0, flows_.span()};
  for (uint32_t i = 0; i < flows_.span(); i++) {
    scout.top_up(*this, i);
    if (!flows_.used(i)) continue;
    if (to_credit(i) && scout.pending) scout.pending--;
    expire_flow(i, FlowEnd::Flushed);
  }
}

}  // namespace fg
