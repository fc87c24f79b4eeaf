#include "engine/query.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "dpi/user_rules.h"

namespace fg {
namespace {

bool blacklisted(const IpAddr& ip) {
  const UserRules* u = user_rules();
  return u && u->blacklisted(ip);
}

// `dhcp`: the host named itself in a DHCP request (any of its parts, over
// shards). The other criteria read the key and flags every part shares.
bool host_matches(const HostKey& key, uint8_t flags, bool dhcp, const HostQuery& q) {
  if (q.vlan >= 0 && key.vlan != q.vlan) return false;
  switch (q.mode) {
    case HostMode::All: break;
    case HostMode::Local: if (!(flags & kHostLocal)) return false; break;
    case HostMode::Remote: if (flags & kHostLocal) return false; break;
    case HostMode::BroadcastDomain: if (!(flags & kHostBroadcastDomain)) return false; break;
    case HostMode::Broadcast: if (!(flags & kHostBroadcast)) return false; break;
    case HostMode::Multicast: if (!(flags & kHostMulticast)) return false; break;
    // hosts that named themselves in a DHCP request
    case HostMode::Dhcp: if (!dhcp) return false; break;
    // addresses a custom category network puts in Malware (as the rules are now)
    case HostMode::Blacklisted: {
      const UserRules* u = user_rules();
      if (!u || !u->blacklisted(key.ip)) return false;
      break;
    }
    // No host filters yet: this mode selects nothing rather than everything.
    case HostMode::Filtered: return false;
  }
  return allowed_ip(q.allowed, key.ip);
}

// Compares (ip, vlan): the tiebreak that keeps pages stable.
int cmp_key(const HostKey& a, const HostKey& b) {
  int c = std::memcmp(a.ip.b, b.ip.b, 16);
  if (c) return c;
  return int(a.vlan) - int(b.vlan);
}

template <class T>
int cmp3(T a, T b) { return a < b ? -1 : (a > b ? 1 : 0); }

// Orders just enough of `v` for the page [offset, offset + limit) and
// returns that page's bounds: a heap for first pages, a selection then a
// small sort for deep ones (a heap of 50 k entries costs more than a pass).
template <class T, class Less>
std::pair<size_t, size_t> sort_page(std::vector<T>& v, uint32_t offset, uint32_t limit, Less less) {
  size_t from = std::min<size_t>(offset, v.size());
  size_t to = std::min<size_t>(size_t(offset) + limit, v.size());
  if (from >= to) return {from, to};
  if (to - from >= v.size() / 2) {
    std::sort(v.begin(), v.end(), less);  // most of it asked for: a heap (partial_sort) is slower
  } else if (from > 1024) {
    std::nth_element(v.begin(), v.begin() + from, v.end(), less);
    std::partial_sort(v.begin() + from, v.begin() + to, v.end(), less);
  } else {
    std::partial_sort(v.begin(), v.begin() + to, v.end(), less);
  }
  return {from, to};
}

// Sort keys copied out of the tables once, so ordering compares a compact
// array rather than chasing 448-byte entries (a cache miss per compare).
struct SortKey {
  uint64_t k[3];
  uint64_t last;  // final tiebreak
  uint32_t idx;
  bool operator<(const SortKey& o) const {
    for (int i = 0; i < 3; i++)
      if (k[i] != o.k[i]) return k[i] < o.k[i];
    return last < o.last;
  }
};

inline uint64_t ip_hi(const IpAddr& a) { return uint64_t(load_be32(a.b)) << 32 | load_be32(a.b + 4); }
inline uint64_t ip_lo(const IpAddr& a) { return uint64_t(load_be32(a.b + 8)) << 32 | load_be32(a.b + 12); }
// Non-negative floats order like their bit patterns.
inline uint64_t float_key(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return f > 0 ? u : 0;
}

// The page of the selected hosts `sel` (ids below id_end: table slots, or
// merged hosts), ordered by q.sort, in order. key_of(id): its key;
// label_of(id): its name or address; primary_of(id): its sort value.
template <class KeyOf, class LabelOf, class PrimaryOf>
std::vector<uint32_t> host_page(std::vector<uint32_t>& sel, const HostQuery& q, uint32_t id_end, KeyOf key_of, LabelOf label_of,
                                PrimaryOf primary_of) {
  std::vector<uint32_t> order;  // the page's entries, in order
  size_t from = 0, to = 0;
  if (q.sort == HostSort::Name) {
    // Sorting by name orders what a UI shows: the name, or the address when
    // there is none.
    std::vector<std::string> label(id_end);
    for (uint32_t i : sel) label[i] = label_of(i);
    auto less = [&](uint32_t ia, uint32_t ib) {
      int c = label[ia].compare(label[ib]);
      if (c == 0) c = cmp_key(key_of(ia), key_of(ib));
      return q.desc ? c > 0 : c < 0;
    };
    std::tie(from, to) = sort_page(sel, q.offset, q.limit, less);
    order.assign(sel.begin() + from, sel.begin() + to);
  } else {
    std::vector<SortKey> keys(sel.size());
    for (size_t j = 0; j < sel.size(); j++) {
      const HostKey& k = key_of(sel[j]);
      keys[j] = {{primary_of(sel[j]), ip_hi(k.ip), ip_lo(k.ip)}, k.vlan, sel[j]};
    }
    auto less = [&](const SortKey& a, const SortKey& b) { return q.desc ? b < a : a < b; };
    std::tie(from, to) = sort_page(keys, q.offset, q.limit, less);
    for (size_t k = from; k < to; k++) order.push_back(keys[k].idx);
  }
  return order;
}

// Whether a part's name replaces the one kept so far: the better source
// wins, as when Pipeline::name_host names a host twice (on a tie the first
// part's stays, shards in worker order).
bool better_name(bool has, uint8_t src, uint32_t ms, bool kept, uint8_t kept_src, uint32_t kept_ms) {
  return has && (!kept || name_wins(src, ms, kept_src, kept_ms));
}

// A MAC's device type as shards learned it: networking once any shard saw
// enough hosts behind it, else the first one known.
uint8_t merge_devtype(uint8_t a, uint8_t b) {
  if (a == kDevNetworking || b == kDevNetworking) return kDevNetworking;
  return a != kDevUnknown ? a : b;
}

void merge_score(HostScore& a, const HostScore& b) {
  for (int d = 0; d < 2; d++)
    for (int c = 0; c < kScoreCategories; c++) a.score[d][c] += b.score[d][c];
  a.alerted_active += b.alerted_active;
  a.alerted_total[0] += b.alerted_total[0], a.alerted_total[1] += b.alerted_total[1];
}

// Check hits: counts of events are summed. The FlowHits-style figures are
// each shard's peak over a 1-2 s window: their sum bounds the host's true
// peak from above (the shards' peaks may fall in different windows). The
// distinct-server / name / country counts are estimates of distinct values
// (host_contacts.h) that may repeat across shards: the max, a lower bound.
void merge_check_hits(HostCheckHits& a, const HostCheckHits& b) {
  for (int c = 0; c < kHostCheckCount; c++) {
    const bool distinct = c == kDnsContacts || c == kNtpContacts || c == kSmtpContacts || c == kDomainNames || c == kCountriesContacts;
    for (int d = 0; d < 2; d++) a.hits[c][d] = distinct ? std::max(a.hits[c][d], b.hits[c][d]) : a.hits[c][d] + b.hits[c][d];
  }
}

// Two lists sorted by id into one, sorted, summing the entries both have.
template <class T, class Id, class Add>
void merge_by_id(std::vector<T>& into, const std::vector<T>& part, Id id, Add add) {
  if (part.empty()) return;
  std::vector<T> out;
  out.reserve(into.size() + part.size());
  size_t i = 0, j = 0;
  while (i < into.size() || j < part.size()) {
    if (j == part.size() || (i < into.size() && id(into[i]) < id(part[j]))) out.push_back(into[i++]);
    else if (i == into.size() || id(part[j]) < id(into[i])) out.push_back(part[j++]);
    else add(out.emplace_back(into[i++]), part[j++]);
  }
  into.swap(out);
}

// L7 counters: bytes, packets and flows summed. A duration is the 5 s
// periods with traffic, which every shard counts for itself: concurrent
// traffic in two shards would count a period twice, so the longest part's
// (a lower bound).
void merge_l7(HostL7Stats& a, const HostL7Stats& b) {
  merge_by_id(a.apps, b.apps, [](const HostAppStats& x) { return x.id; }, [](HostAppStats& x, const HostAppStats& y) {
    x.bytes_sent += y.bytes_sent, x.bytes_rcvd += y.bytes_rcvd, x.pkts_sent += y.pkts_sent, x.pkts_rcvd += y.pkts_rcvd;
    x.num_flows += y.num_flows, x.duration = std::max(x.duration, y.duration);
  });
  merge_by_id(a.cats, b.cats, [](const HostCatStats& x) { return x.id; }, [](HostCatStats& x, const HostCatStats& y) {
    x.bytes_sent += y.bytes_sent, x.bytes_rcvd += y.bytes_rcvd, x.duration = std::max(x.duration, y.duration);
  });
  merge_by_id(a.dscp, b.dscp, [](const HostDscpStats& x) { return x.dscp; }, [](HostDscpStats& x, const HostDscpStats& y) {
    x.bytes_sent += y.bytes_sent, x.bytes_rcvd += y.bytes_rcvd, x.pkts_sent += y.pkts_sent, x.pkts_rcvd += y.pkts_rcvd;
  });
}

// The host entry's own counters (its name is the row's: names are per shard).
void merge_host(Host& a, const Host& b) {
  if (!(a.flags & kHostHasMac) && (b.flags & kHostHasMac)) std::memcpy(a.mac, b.mac, 6);
  a.flags |= b.flags;  // identity flags agree; L7-full / crawler / has-MAC: any part's
  a.first_ns = std::min(a.first_ns, b.first_ns);
  a.services |= b.services;
  a.remote_access = uint8_t(std::min(255, a.remote_access + b.remote_access));
  a.incomplete_flows += b.incomplete_flows;
  for (int d = 0; d < 2; d++) {
    HostTraffic& t = a.traffic[d];
    const HostTraffic& u = b.traffic[d];
    t.last_ns = std::max(t.last_ns, u.last_ns);
    for (int f = 0; f < kFamCount; f++) {
      const uint64_t p = a.fam_pkts(d, f) + b.fam_pkts(d, f);
      t.fam_bytes[f] += u.fam_bytes[f];
      t.fam_pkts_lo[f] = uint32_t(p), a.fam_pkts_hi[d][f] = uint16_t(p >> 32);
    }
    t.udp_unicast += u.udp_unicast;
    HostPktStats& s = a.pkt[d];
    const HostPktStats& r = b.pkt[d];
    for (int k = 0; k < kSizeBins; k++) s.size_bins[k] += r.size_bins[k];
    s.syn += r.syn, s.synack += r.synack, s.finack += r.finack, s.rst += r.rst;
    s.scan_fin += r.scan_fin, s.scan_finack += r.scan_finack;
    a.unreachable[d][0] += b.unreachable[d][0], a.unreachable[d][1] += b.unreachable[d][1];
    a.retr[d] += b.retr[d], a.ooo[d] += b.ooo[d], a.lost[d] += b.lost[d], a.keepalive[d] += b.keepalive[d];
  }
  a.active_as_client += b.active_as_client, a.active_as_server += b.active_as_server;
  a.total_as_client += b.total_as_client, a.total_as_server += b.total_as_server;
  a.udp_sent_noncast += b.udp_sent_noncast;
  // throughput: each shard's flows' share, summed
  a.thpt_ts = std::max(a.thpt_ts, b.thpt_ts);
  a.thpt_bytes += b.thpt_bytes, a.thpt_pkts += b.thpt_pkts;
  a.bps += b.bps, a.pps += b.pps, a.prev_bps += b.prev_bps, a.prev_pps += b.prev_pps;
}

// One host slot's row as today's single-shard answer has it (its L7
// counters apart: read one at a time or for a page at once).
void read_host(const Pipeline& pl, uint32_t i, bool detail, bool brief, HostRow& r) {
  const Host& h = pl.hosts()[i];
  const char* nm = pl.names().get(h.name);
  r.h = h, r.name = nm ? nm : "", r.brief = brief;
  r.score = pl.host_score(i);
  r.pool = pl.host_pool(i);
  r.network = pl.host_network(i);
  if (h.flags & kHostHasMac) r.devtype = pl.mac_devtype(h.mac);
  r.blacklisted = blacklisted(h.key.ip);
  r.has_l7 = detail;
  if (detail) r.hits = pl.live_check_hits(i), r.read_contacts(pl.host_l7(), i), r.read_side_pools(pl, i), r.bins = pl.host_bins(i);
}

}  // namespace

void merge_host_row(HostRow& a, const HostRow& b) {
  if (better_name(!b.name.empty(), b.h.name_source, b.h.name_ms, !a.name.empty(), a.h.name_source, a.h.name_ms))
    a.name = b.name, a.h.name_source = b.h.name_source, a.h.name_ms = b.h.name_ms;
  merge_host(a.h, b.h);
  // pool and network follow from the address (and MAC) alike in every
  // part; a part that knew no MAC may have missed a MAC-based pool
  if (a.pool == kNoHostPool) a.pool = b.pool;
  if (a.network < 0) a.network = b.network;
  a.devtype = merge_devtype(a.devtype, b.devtype);
  a.blacklisted |= b.blacklisted;
  merge_score(a.score, b.score);
  if (!b.has_l7) return;  // not read with detail: nothing more in either
  merge_l7(a.l7, b.l7);
  merge_check_hits(a.hits, b.hits);
  a.blacklisted_flows[0] += b.blacklisted_flows[0], a.blacklisted_flows[1] += b.blacklisted_flows[1];
  a.oneway_in += b.oneway_in, a.oneway_out += b.oneway_out;
  // Each shard bins the gaps between the new flows it holds: with several
  // workers a host's gaps are between its flows on one worker (longer).
  a.bins.merge(b.bins);
  // Contact estimates are sketches of distinct values (host_contacts.h), one
  // per shard, and the same peer or server may be counted in several: with
  // several workers the largest part's estimate is kept, a lower bound of
  // the host's true distinct count (the sum would be an upper bound).
  a.no_tx_out = std::max(a.no_tx_out, b.no_tx_out), a.no_tx_in = std::max(a.no_tx_in, b.no_tx_in);
  for (int k = 0; k < 6; k++) a.server_contacts[k] = std::max(a.server_contacts[k], b.server_contacts[k]);
  for (int k = 0; k < 3; k++) a.cardinality[k] = std::max(a.cardinality[k], b.cardinality[k]);
  a.visited_now = std::max(a.visited_now, b.visited_now);
  if (b.has_icmp) {
    if (a.has_icmp) a.icmp.merge(b.icmp);
    else a.icmp = b.icmp, a.has_icmp = true;
  }
  if (b.has_ports) {
    if (a.has_ports) a.ports.merge(b.ports);
    else a.ports = b.ports, a.has_ports = true;
  }
  // Behavioural counters are forecasts fed by each shard's own series: not
  // additive. The part with the most traffic stands for the host.
  if (b.has_behaviour && (!a.has_behaviour || b.behaviour_bytes > a.behaviour_bytes))
    a.behaviour = b.behaviour, a.behaviour_bytes = b.behaviour_bytes, a.has_behaviour = true;
}

namespace {
// A host merged over shards (host pages' order, scores, checks): its parts'
// figures merged, the best-sourced part's name.
template <class T>
struct MergedHost {
  HostKey key;
  bool local;
  uint8_t name_src;
  uint32_t name_ms;
  const char* name;
  T fig;
};
// Every host of every shard once: init(fig, pl, slot) for its first part,
// add(fig, pl, slot) for the others; in first-seen order. keep(pl, slot):
// which parts count (criteria every part of a host shares).
template <class T, class Init, class Add, class Keep>
std::vector<MergedHost<T>> merge_all_hosts(const Views& v, Init init, Add add, Keep keep) {
  std::vector<MergedHost<T>> out;
  std::unordered_map<HostKey, uint32_t, HostKeyHash> at;
  at.reserve(v.front()->hosts().size() * 2);
  for (const Pipeline* pl : v) {
    const HostTable& ht = pl->hosts();
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i) || !keep(*pl, i)) continue;
      const Host& h = ht[i];
      const char* nm = pl->names().get(h.name);
      auto [it, fresh] = at.try_emplace(h.key, uint32_t(out.size()));
      if (fresh) {
        MergedHost<T>& m = out.emplace_back(MergedHost<T>{h.key, (h.flags & kHostLocal) != 0, h.name_source, h.name_ms, nm, {}});
        init(m.fig, *pl, i);
        continue;
      }
      MergedHost<T>& m = out[it->second];
      if (better_name(nm != nullptr, h.name_source, h.name_ms, m.name != nullptr, m.name_src, m.name_ms)) m.name = nm, m.name_src = h.name_source, m.name_ms = h.name_ms;
      add(m.fig, *pl, i);
    }
  }
  return out;
}
template <class T, class Init, class Add>
std::vector<MergedHost<T>> merge_all_hosts(const Views& v, Init init, Add add) {
  return merge_all_hosts<T>(v, init, add, [](const Pipeline&, uint32_t) { return true; });
}
}  // namespace

PageOrder order_hosts(const Views& v, const HostQuery& q) {
  PageOrder page;
  if (v.size() == 1) {
    // one shard: table slots, compact keys straight from the table
    const Pipeline& pl = *v.front();
    const HostTable& ht = pl.hosts();
    const NamePool& names = pl.names();
    std::vector<uint32_t> sel;
    sel.reserve(ht.size());
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i)) continue;
      const Host& h = ht[i];
      if (host_matches(h.key, h.flags, h.name_source == uint8_t(NameSource::Dhcp), q) && (q.pool < 0 || pl.host_pool(i) == q.pool)) sel.push_back(i);
    }
    page.total = uint32_t(sel.size());
    auto label = [&](uint32_t i) {
      const char* n = names.get(ht[i].name);
      return n ? std::string(n) : format_ip(ht[i].key.ip);
    };
    auto primary = [&](uint32_t i) -> uint64_t {
      const Host& h = ht[i];
      switch (q.sort) {
        case HostSort::Ip: case HostSort::Alerts: case HostSort::Name: return 0;
        case HostSort::Country: return pl.host_country(i);  // letters' order, none first
        case HostSort::Since: return h.first_ns;
        case HostSort::Last: return h.last_ns();
        case HostSort::Vlan: return h.key.vlan;
        case HostSort::NumFlows: return uint64_t(h.active_as_client) + h.active_as_server;
        case HostSort::Traffic: return h.bytes(0) + h.bytes(1);
        case HostSort::Thpt: return float_key(h.bps);
        case HostSort::Sent: return h.bytes(0);
        case HostSort::Rcvd: return h.bytes(1);
        case HostSort::Score: return uint64_t(pl.host_score(i).as_client()) + pl.host_score(i).as_server();
      }
      return 0;
    };
    std::vector<uint32_t> order = host_page(sel, q, ht.max(), [&](uint32_t i) -> const HostKey& { return ht[i].key; }, label, primary);
    page.entries.reserve(order.size());
    for (uint32_t i : order) page.entries.push_back({i, ht[i].serial, 0});
    return page;
  }
  // Several shards: the hosts' parts grouped by key, with what the query
  // filters and sorts on merged as merge_host_row merges their rows.
  struct Fig {
    bool dhcp, in_pool;
    uint16_t country;
    uint64_t first_ns, last_ns, sent, rcvd, flows, score;
    float bps;
  };
  auto fig = [&](Fig& f, const Pipeline& pl, uint32_t i) {
    const Host& h = pl.hosts()[i];
    const HostScore& sc = pl.host_score(i);
    f = {h.name_source == uint8_t(NameSource::Dhcp), pl.host_pool(i) == q.pool, pl.host_country(i), h.first_ns, h.last_ns(), h.bytes(0), h.bytes(1),
         uint64_t(h.active_as_client) + h.active_as_server, uint64_t(sc.as_client()) + sc.as_server(), h.bps};
  };
  auto add = [&](Fig& m, const Pipeline& pl, uint32_t i) {
    Fig f;
    fig(f, pl, i);
    m.dhcp |= f.dhcp, m.in_pool |= f.in_pool;
    if (!m.country) m.country = f.country;
    m.first_ns = std::min(m.first_ns, f.first_ns), m.last_ns = std::max(m.last_ns, f.last_ns);
    m.sent += f.sent, m.rcvd += f.rcvd, m.flows += f.flows, m.score += f.score, m.bps += f.bps;
  };
  // the criteria every part shares; DHCP and pool are judged on the merged host
  auto keep = [&](const Pipeline& pl, uint32_t i) {
    const Host& h = pl.hosts()[i];
    return host_matches(h.key, h.flags, true, q);
  };
  struct Merged {
    HostKey key;
    const char* name;
    Fig f;
  };
  std::vector<Merged> hosts;
  for (auto& m : merge_all_hosts<Fig>(v, fig, add, keep)) hosts.push_back({m.key, m.name, m.fig});
  std::vector<uint32_t> sel;
  sel.reserve(hosts.size());
  for (uint32_t j = 0; j < hosts.size(); j++)
    if ((q.mode != HostMode::Dhcp || hosts[j].f.dhcp) && (q.pool < 0 || hosts[j].f.in_pool)) sel.push_back(j);
  page.total = uint32_t(sel.size());
  auto label = [&](uint32_t j) { return hosts[j].name ? std::string(hosts[j].name) : format_ip(hosts[j].key.ip); };
  auto primary = [&](uint32_t j) -> uint64_t {
    const Fig& m = hosts[j].f;
    switch (q.sort) {
      case HostSort::Ip: case HostSort::Alerts: case HostSort::Name: return 0;
      case HostSort::Country: return m.country;
      case HostSort::Since: return m.first_ns;
      case HostSort::Last: return m.last_ns;
      case HostSort::Vlan: return hosts[j].key.vlan;
      case HostSort::NumFlows: return m.flows;
      case HostSort::Traffic: return m.sent + m.rcvd;
      case HostSort::Thpt: return float_key(m.bps);
      case HostSort::Sent: return m.sent;
      case HostSort::Rcvd: return m.rcvd;
      case HostSort::Score: return m.score;
    }
    return 0;
  };
  std::vector<uint32_t> order = host_page(sel, q, uint32_t(hosts.size()), [&](uint32_t j) -> const HostKey& { return hosts[j].key; }, label, primary);
  // the page's hosts by key: host_rows finds their parts again in every shard
  page.keys.reserve(order.size());
  page.entries.reserve(order.size());
  for (uint32_t j : order) {
    page.entries.push_back({uint32_t(page.keys.size()), 0, 0});
    page.keys.push_back(hosts[j].key);
  }
  return page;
}

std::vector<HostRow> host_rows(const Views& v, const PageOrder& o, size_t from, size_t n, bool detail, bool brief) {
  from = std::min(from, o.entries.size());
  n = std::min(n, o.entries.size() - from);
  const PageEntry* e = o.entries.data() + from;
  std::vector<HostRow> rows;
  if (o.keys.empty()) {
    // one shard: the entries are table slots, checked by serial
    const Pipeline& pl = *v.front();
    const HostTable& ht = pl.hosts();
    std::vector<uint32_t> idx;
    rows.reserve(n), idx.reserve(n);
    for (size_t k = 0; k < n; k++) {
      uint32_t i = e[k].index;
      if (!ht.used(i) || ht[i].serial != e[k].serial) continue;  // gone since the page was ordered
      read_host(pl, i, detail, brief, rows.emplace_back());
      idx.push_back(i);
    }
    if (detail && !idx.empty()) {
      std::vector<HostL7Stats> l7(idx.size());
      pl.host_l7().read_many(idx.data(), idx.size(), l7.data());
      for (size_t k = 0; k < l7.size(); k++) rows[k].l7 = std::move(l7[k]);
    }
    return rows;
  }
  // Several shards: each host's parts, read a shard at a time (its L7
  // counters for the whole slice at once), merged into the host's row; a
  // host no shard has any more is gone.
  rows.resize(n);
  std::vector<uint8_t> have(n, 0);
  std::vector<HostRow> parts;
  std::vector<uint32_t> idx, row_of;
  std::vector<HostL7Stats> l7;
  for (const Pipeline* pl : v) {
    const HostTable& ht = pl->hosts();
    parts.clear(), idx.clear(), row_of.clear();
    for (size_t k = 0; k < n; k++) {
      const HostKey& key = o.keys[e[k].index];
      const uint32_t i = ht.find(key, hash_host_key(key));
      if (i == HashIndex::kNone) continue;
      read_host(*pl, i, detail, brief, parts.emplace_back());
      idx.push_back(i), row_of.push_back(uint32_t(k));
    }
    if (detail && !idx.empty()) {
      l7.assign(idx.size(), HostL7Stats{});
      pl->host_l7().read_many(idx.data(), idx.size(), l7.data());
      for (size_t j = 0; j < l7.size(); j++) parts[j].l7 = std::move(l7[j]);
    }
    for (size_t j = 0; j < parts.size(); j++) {
      const uint32_t k = row_of[j];
      if (have[k]) merge_host_row(rows[k], parts[j]);
      else rows[k] = std::move(parts[j]), have[k] = 1;
    }
  }
  size_t out = 0;
  for (size_t k = 0; k < n; k++)
    if (have[k]) {
      if (out != k) rows[out] = std::move(rows[k]);
      out++;
    }
  rows.resize(out);
  return rows;
}

HostPage query_hosts(const Views& v, const HostQuery& q) {
  PageOrder o = order_hosts(v, q);
  HostPage page;
  page.total = o.total;
  page.rows = host_rows(v, o, 0, o.entries.size(), q.detail, q.brief);
  return page;
}

bool find_host(const Views& v, const IpAddr& ip, int vlan, HostRow& out) {
  HostKey key{ip, uint16_t(vlan >= 0 ? vlan : 0)};
  if (vlan < 0) {
    // VLAN 0 in any shard, else the first slot with that address (shards in worker order)
    bool found = false;
    const uint64_t h0 = hash_host_key(key);
    for (const Pipeline* pl : v) found = found || pl->hosts().find(key, h0) != HashIndex::kNone;
    for (size_t s = 0; s < v.size() && !found; s++) {
      const HostTable& ht = v[s]->hosts();
      for (uint32_t j = 0; j < ht.span() && !found; j++)
        if (ht.used(j) && ht[j].key.ip == ip) key.vlan = ht[j].key.vlan, found = true;
    }
    if (!found) return false;
  }
  const uint64_t h = hash_host_key(key);
  bool any = false;
  for (const Pipeline* pl : v) {
    const uint32_t i = pl->hosts().find(key, h);
    if (i == HashIndex::kNone) continue;
    HostRow part;
    HostRow& r = any ? part : out;  // one shard: read straight into `out`, nothing merged
    read_host(*pl, i, true, false, r);
    r.l7 = pl->host_l7().read(i);
    if (any) merge_host_row(out, part);
    any = true;
  }
  return any;
}


std::vector<HostScoreRow> query_host_scores(const Views& v, uint64_t threshold) {
  std::vector<HostScoreRow> out;
  auto above = [threshold](const HostScore& s) { return s.as_client() > threshold || s.as_server() > threshold; };
  if (v.size() == 1) {
    const Pipeline& pl = *v.front();
    const HostTable& ht = pl.hosts();
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i)) continue;
      const HostScore& s = pl.host_score(i);
      if (!above(s)) continue;
      const Host& h = ht[i];
      const char* n = pl.names().get(h.name);
      out.push_back({h.key, (h.flags & kHostLocal) != 0, n ? n : "", s});
    }
    return out;
  }
  // merged first: a host above the threshold only in its parts' sum counts
  auto hosts = merge_all_hosts<HostScore>(
      v, [](HostScore& s, const Pipeline& pl, uint32_t i) { s = pl.host_score(i); },
      [](HostScore& s, const Pipeline& pl, uint32_t i) { merge_score(s, pl.host_score(i)); });
  for (const auto& m : hosts)
    if (above(m.fig)) out.push_back({m.key, m.local, m.name ? m.name : "", m.fig});
  return out;
}

std::vector<HostCheckRow> query_host_checks(const Views& v, const double (&thresholds)[kHostCheckCount]) {
  std::vector<HostCheckRow> out;
  auto above = [&](const HostCheckHits& r) {
    for (int c = 0; c < kHostCheckCount; c++)
      if (thresholds[c] >= 0 && (r.hits[c][0] > thresholds[c] || r.hits[c][1] > thresholds[c])) return true;
    return false;
  };
  if (v.size() == 1) {
    const Pipeline& pl = *v.front();
    const HostTable& ht = pl.hosts();
    const HostCheckHits* hits = pl.last_check_hits();
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i) || !above(hits[i])) continue;
      const Host& h = ht[i];
      const char* n = pl.names().get(h.name);
      out.push_back({h.key, (h.flags & kHostLocal) != 0, n ? n : "", hits[i]});
    }
    return out;
  }
  // merged first: a host above a threshold only in its parts' sum counts
  auto hosts = merge_all_hosts<HostCheckHits>(
      v, [](HostCheckHits& r, const Pipeline& pl, uint32_t i) { r = pl.last_check_hits()[i]; },
      [](HostCheckHits& r, const Pipeline& pl, uint32_t i) { merge_check_hits(r, pl.last_check_hits()[i]); });
  for (const auto& m : hosts)
    if (above(m.fig)) out.push_back({m.key, m.local, m.name ? m.name : "", m.fig});
  return out;
}

namespace {

bool flow_matches(const Flow& f, const FlowQuery& q) {
  if (q.vlan >= 0 && f.key.vlan != q.vlan) return false;
  if (q.l4proto >= 0 && f.key.proto != q.l4proto) return false;
  // an application matches the flow's master or app; Unknown (0) only a flow with neither (ntopng's l7protoFilter)
  if (q.l7 > 0 && f.l7_master != q.l7 && f.l7_app != q.l7) return false;
  if (q.l7 == 0 && (f.l7_master != 0 || f.l7_app != 0)) return false;
  if (q.has_host) {
    if (!(f.key.lo == q.host || f.key.hi == q.host)) return false;
    if (q.host_vlan >= 0 && f.key.vlan != q.host_vlan) return false;
  }
  if (!q.allowed.empty() && !allowed_ip(q.allowed, f.key.lo) && !allowed_ip(q.allowed, f.key.hi)) return false;
  return true;
}

// A flow lives in one shard, but its hosts' names may have been learned in
// another (a DNS answer seen by another worker): the name of the best
// source over every shard's part of the host, as one worker would hold it.
void best_name(const Views& v, const HostKey& k, std::string& name, uint8_t& source) {
  const uint64_t h = hash_host_key(k);
  uint32_t ms = 0;
  for (const Pipeline* pl : v) {
    const uint32_t i = pl->hosts().find(k, h);
    if (i == HashIndex::kNone) continue;
    const Host& e = pl->hosts()[i];
    const char* nm = pl->names().get(e.name);
    if (better_name(nm != nullptr, e.name_source, e.name_ms, !name.empty(), source, ms)) name = nm, source = e.name_source, ms = e.name_ms;
  }
}

}  // namespace

PageOrder order_flows(const Views& v, const FlowQuery& q) {
  auto cli = [](const Flow& f) -> const IpAddr& { return f.cli_is_hi ? f.key.hi : f.key.lo; };
  auto srv = [](const Flow& f) -> const IpAddr& { return f.cli_is_hi ? f.key.lo : f.key.hi; };
  // compact keys (as for hosts): no compare chases a flow entry; ties by
  // serial (unique over the shards); k[2] keeps the shard
  std::vector<SortKey> keys;
  size_t all = 0;
  for (const Pipeline* pl : v) all += pl->flows().size();
  keys.reserve(all);
  for (uint32_t s = 0; s < v.size(); s++) {
    const FlowTable& ft = v[s]->flows();
    for (uint32_t i = 0; i < ft.span(); i++) {
      if (!ft.used(i)) continue;
      const Flow& f = ft[i];
      if (!flow_matches(f, q)) continue;
      uint64_t a = 0, b = 0;
      switch (q.sort) {
        case FlowSort::Bytes: a = f.bytes[0] + f.bytes[1]; break;
        case FlowSort::Packets: a = uint64_t(f.pkts[0]) + f.pkts[1]; break;
        case FlowSort::Thpt: a = float_key(f.bps); break;
        // ntopng's get_duration: 1 + last_seen − first_seen, in whole seconds
        case FlowSort::Duration: a = f.last_ns / 1000000000ULL - f.first_ns / 1000000000ULL; break;
        case FlowSort::FirstSeen: a = f.first_ns; break;
        case FlowSort::LastSeen: a = f.last_ns; break;
        case FlowSort::Client: a = ip_hi(cli(f)), b = ip_lo(cli(f)); break;
        case FlowSort::Server: a = ip_hi(srv(f)), b = ip_lo(srv(f)); break;
        case FlowSort::Vlan: a = f.key.vlan; break;
        case FlowSort::Proto: a = f.key.proto; break;
        case FlowSort::L7: a = uint64_t(f.l7_master) << 16 | f.l7_app; break;
        case FlowSort::Serial: a = f.serial; break;
        // ntopng's Flow::getScore: its alerts' scores (client and server shares)
        case FlowSort::Score: a = v[s]->flow_score(f); break;
      }
      keys.push_back({{a, b, 0}, uint64_t(f.serial) << 8 | s, i});
    }
  }
  PageOrder page;
  page.total = uint32_t(keys.size());
  auto less = [&](const SortKey& x, const SortKey& y) { return q.desc ? y < x : x < y; };
  auto [from, to] = sort_page(keys, q.offset, q.limit, less);
  page.entries.reserve(to - from);
  for (size_t k = from; k < to; k++) page.entries.push_back({keys[k].idx, uint32_t(keys[k].last >> 8), uint32_t(keys[k].last & 0xff)});
  return page;
}

std::vector<FlowRow> flow_rows(const Views& v, const PageOrder& o, size_t from, size_t n) {
  std::vector<FlowRow> rows;
  rows.reserve(n);
  for (size_t k = from; k < from + n && k < o.entries.size(); k++) {
    const PageEntry& e = o.entries[k];
    if (e.shard >= v.size()) continue;
    const Pipeline& pl = *v[e.shard];
    const FlowTable& ft = pl.flows();
    const HostTable& ht = pl.hosts();
    if (!ft.used(e.index) || ft[e.index].serial != e.serial) continue;  // gone since the page was ordered
    const Flow& f = ft[e.index];
    FlowRow r;
    r.f = f;
    r.tcp = pl.flow_tcp(e.index);
    const Classifier& dpi = pl.classifier();
    r.risks = dpi.risks(f);
    r.confidence = dpi.reported_confidence(f);
    if (dpi.has_state(f)) {
      r.host = dpi.host(f);
      // A TLS entry that read nothing (QUIC's state before its match, a
      // record walk's skip count) carries no metadata.
      if (const FlowMeta* m = dpi.meta(f); m && !(m->kind == MetaKind::Tls && !m->tls.flags)) {
        // a TLS entry is the first kTlsMetaBytes of a FlowMeta
        std::memcpy(static_cast<void*>(&r.meta), m, m->kind == MetaKind::Tls ? kTlsMetaBytes : sizeof(FlowMeta));
        r.has_meta = true;
        dpi.meta_text(*m, r.text);
        if (const TlsCert* c = dpi.cert(*m)) r.cert = *c, r.has_cert = true;
      }
      if (dpi.meta_kind(f) == MetaKind::Dns) r.dns = dpi.dns(f), r.dns_kind = true;
    }
    // an endpoint's flags, pool and name (over several shards: the best part's name)
    auto endpoint = [&](uint32_t slot, uint8_t& flags, uint8_t& pool, std::string& name, uint8_t& source) {
      if (slot == HashIndex::kNone) return;
      const Host& h = ht[slot];
      flags = h.flags, pool = pl.host_pool(slot);
      if (v.size() > 1) return best_name(v, h.key, name, source);
      const char* nm = pl.names().get(h.name);
      name = nm ? nm : "", source = h.name_source;
    };
    endpoint(f.cli_host, r.cli_flags, r.cli_pool, r.cli_name, r.cli_name_source);
    endpoint(f.srv_host, r.srv_flags, r.srv_pool, r.srv_name, r.srv_name_source);
    rows.push_back(std::move(r));
  }
  return rows;
}

FlowPage query_flows(const Views& v, const FlowQuery& q) {
  PageOrder o = order_flows(v, q);
  FlowPage page;
  page.total = o.total;
  page.rows = flow_rows(v, o, 0, o.entries.size());
  return page;
}

FlowCounts count_flows(const Views& v, const std::vector<Cidr>& allowed) {
  uint32_t l4[256] = {};
  std::map<uint32_t, std::pair<uint32_t, double>> l7;
  for (const Pipeline* pl : v) {
    const FlowTable& ft = pl->flows();
    for (uint32_t i = 0; i < ft.span(); i++) {
      if (!ft.used(i)) continue;
      const Flow& f = ft[i];
      if (!allowed.empty() && !allowed_ip(allowed, f.key.lo) && !allowed_ip(allowed, f.key.hi)) continue;
      l4[f.key.proto]++;
      auto& x = l7[uint32_t(f.l7_master) << 16 | f.l7_app];
      x.first++, x.second += f.bps;
    }
  }
  FlowCounts c;
  for (int p = 0; p < 256; p++)
    if (l4[p]) c.l4.emplace_back(uint8_t(p), l4[p]);
  for (auto& [k, x] : l7) c.l7.push_back({k, x.first, x.second});
  return c;
}

}  // namespace fg
