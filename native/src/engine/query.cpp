#include "engine/query.h"

#include <algorithm>
#include <map>

#include "dpi/user_rules.h"

namespace fg {
namespace {

bool blacklisted(const IpAddr& ip) {
  const UserRules* u = user_rules();
  return u && u->blacklisted(ip);
}

bool host_matches(const Host& h, const HostQuery& q) {
  if (q.vlan >= 0 && h.key.vlan != q.vlan) return false;
  switch (q.mode) {
    case HostMode::All: break;
    case HostMode::Local: if (!(h.flags & kHostLocal)) return false; break;
    case HostMode::Remote: if (h.flags & kHostLocal) return false; break;
    case HostMode::BroadcastDomain: if (!(h.flags & kHostBroadcastDomain)) return false; break;
    case HostMode::Broadcast: if (!(h.flags & kHostBroadcast)) return false; break;
    case HostMode::Multicast: if (!(h.flags & kHostMulticast)) return false; break;
    // hosts that named themselves in a DHCP request
    case HostMode::Dhcp: if (h.name_source != uint8_t(NameSource::Dhcp)) return false; break;
    // addresses a custom category network puts in Malware (as the rules are now)
    case HostMode::Blacklisted: {
      const UserRules* u = user_rules();
      if (!u || !u->blacklisted(h.key.ip)) return false;
      break;
    }
    // No host filters yet: this mode selects nothing rather than everything.
    case HostMode::Filtered: return false;
  }
  return allowed_ip(q.allowed, h.key.ip);
}

// Compares by the key first, then (ip, vlan) so pages are stable.
int cmp_host_tiebreak(const Host& a, const Host& b) {
  int c = std::memcmp(a.key.ip.b, b.key.ip.b, 16);
  if (c) return c;
  return int(a.key.vlan) - int(b.key.vlan);
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

}  // namespace

PageOrder order_hosts(const Pipeline& pl, const HostQuery& q) {
  const HostTable& ht = pl.hosts();
  const NamePool& names = pl.names();
  std::vector<uint32_t> sel;
  sel.reserve(ht.size());
  for (uint32_t i = 0; i < ht.span(); i++)
    if (ht.used(i) && host_matches(ht[i], q) && (q.pool < 0 || pl.host_pool(i) == q.pool)) sel.push_back(i);
  PageOrder page;
  page.total = uint32_t(sel.size());
  // Sorting by name orders what a UI shows: the name, or the address when
  // there is none.
  std::vector<std::string> label;
  if (q.sort == HostSort::Name) {
    label.resize(ht.max());
    for (uint32_t i : sel) {
      const char* n = names.get(ht[i].name);
      label[i] = n ? n : format_ip(ht[i].key.ip);
    }
  }
  std::vector<uint32_t> order;  // the page's entries, in order
  size_t from = 0, to = 0;
  if (q.sort == HostSort::Name) {
    auto less = [&](uint32_t ia, uint32_t ib) {
      int c = label[ia].compare(label[ib]);
      if (c == 0) c = cmp_host_tiebreak(ht[ia], ht[ib]);
      return q.desc ? c > 0 : c < 0;
    };
    std::tie(from, to) = sort_page(sel, q.offset, q.limit, less);
    order.assign(sel.begin() + from, sel.begin() + to);
  } else {
    std::vector<SortKey> keys(sel.size());
    for (size_t j = 0; j < sel.size(); j++) {
      const Host& h = ht[sel[j]];
      uint64_t primary = 0;
      switch (q.sort) {
        case HostSort::Ip: case HostSort::Alerts: case HostSort::Name: break;
        case HostSort::Country: primary = pl.host_country(sel[j]); break;  // letters' order, none first
        case HostSort::Since: primary = h.first_ns; break;
        case HostSort::Last: primary = h.last_ns(); break;
        case HostSort::Vlan: primary = h.key.vlan; break;
        case HostSort::NumFlows: primary = uint64_t(h.active_as_client) + h.active_as_server; break;
        case HostSort::Traffic: primary = h.bytes(0) + h.bytes(1); break;
        case HostSort::Thpt: primary = float_key(h.bps); break;
        case HostSort::Sent: primary = h.bytes(0); break;
        case HostSort::Rcvd: primary = h.bytes(1); break;
        case HostSort::Score: primary = uint64_t(pl.host_score(sel[j]).as_client()) + pl.host_score(sel[j]).as_server(); break;
      }
      keys[j] = {{primary, ip_hi(h.key.ip), ip_lo(h.key.ip)}, h.key.vlan, sel[j]};
    }
    auto less = [&](const SortKey& a, const SortKey& b) { return q.desc ? b < a : a < b; };
    std::tie(from, to) = sort_page(keys, q.offset, q.limit, less);
    for (size_t k = from; k < to; k++) order.push_back(keys[k].idx);
  }
  page.entries.reserve(order.size());
  for (uint32_t i : order) page.entries.push_back({i, ht[i].serial});
  return page;
}

std::vector<HostRow> host_rows(const Pipeline& pl, const PageEntry* e, size_t n, bool detail, bool brief) {
  const HostTable& ht = pl.hosts();
  std::vector<HostRow> rows;
  std::vector<uint32_t> idx;
  rows.reserve(n), idx.reserve(n);
  for (size_t k = 0; k < n; k++) {
    uint32_t i = e[k].index;
    if (!ht.used(i) || ht[i].serial != e[k].serial) continue;  // gone since the page was ordered
    const Host& h = ht[i];
    HostRow& r = rows.emplace_back();
    const char* nm = pl.names().get(h.name);
    r.h = h, r.name = nm ? nm : "", r.brief = brief;
    r.score = pl.host_score(i);
    r.pool = pl.host_pool(i);
    r.network = pl.host_network(i);
    if (h.flags & kHostHasMac) r.devtype = pl.mac_devtype(h.mac);
    r.blacklisted = blacklisted(h.key.ip);
    r.has_l7 = detail;
    if (detail) r.hits = pl.live_check_hits(i), r.read_contacts(pl.host_l7(), i), r.read_side_pools(pl, i);
    idx.push_back(i);
  }
  if (detail && !idx.empty()) {
    std::vector<HostL7Stats> l7(idx.size());
    pl.host_l7().read_many(idx.data(), idx.size(), l7.data());
    for (size_t k = 0; k < l7.size(); k++) rows[k].l7 = std::move(l7[k]);
  }
  return rows;
}

HostPage query_hosts(const Pipeline& pl, const HostQuery& q) {
  PageOrder o = order_hosts(pl, q);
  HostPage page;
  page.total = o.total;
  page.rows = host_rows(pl, o.entries.data(), o.entries.size(), q.detail, q.brief);
  return page;
}

bool find_host(const Pipeline& pl, const IpAddr& ip, int vlan, HostRow& out) {
  const HostTable& ht = pl.hosts();
  uint32_t i = HashIndex::kNone;
  if (vlan >= 0) {
    HostKey k{ip, uint16_t(vlan)};
    i = ht.find(k, hash_host_key(k));
  } else {
    HostKey k{ip, 0};
    i = ht.find(k, hash_host_key(k));
    for (uint32_t j = 0; i == HashIndex::kNone && j < ht.span(); j++)
      if (ht.used(j) && ht[j].key.ip == ip) i = j;
  }
  if (i == HashIndex::kNone) return false;
  out.h = ht[i];
  const char* n = pl.names().get(out.h.name);
  out.name = n ? n : "";
  out.has_l7 = true;
  out.l7 = pl.host_l7().read(i);
  out.hits = pl.live_check_hits(i);
  out.read_contacts(pl.host_l7(), i);
  out.read_side_pools(pl, i);
  out.score = pl.host_score(i);
  out.pool = pl.host_pool(i);
  out.network = pl.host_network(i);
  if (out.h.flags & kHostHasMac) out.devtype = pl.mac_devtype(out.h.mac);
  out.blacklisted = blacklisted(out.h.key.ip);
  return true;
}

std::vector<HostScoreRow> query_host_scores(const Pipeline& pl, uint64_t threshold) {
  const HostTable& ht = pl.hosts();
  std::vector<HostScoreRow> out;
  for (uint32_t i = 0; i < ht.span(); i++) {
    if (!ht.used(i)) continue;
    const HostScore& s = pl.host_score(i);
    if (s.as_client() <= threshold && s.as_server() <= threshold) continue;
    const Host& h = ht[i];
    const char* n = pl.names().get(h.name);
    out.push_back({h.key, (h.flags & kHostLocal) != 0, n ? n : "", s});
  }
  return out;
}

std::vector<HostCheckRow> query_host_checks(const Pipeline& pl, const double (&thresholds)[kHostCheckCount]) {
  const HostTable& ht = pl.hosts();
  const HostCheckHits* hits = pl.last_check_hits();
  std::vector<HostCheckRow> out;
  for (uint32_t i = 0; i < ht.span(); i++) {
    if (!ht.used(i)) continue;
    const HostCheckHits& r = hits[i];
    bool above = false;
    for (int c = 0; c < kHostCheckCount && !above; c++)
      above = thresholds[c] >= 0 && (r.hits[c][0] > thresholds[c] || r.hits[c][1] > thresholds[c]);
    if (!above) continue;
    const Host& h = ht[i];
    const char* n = pl.names().get(h.name);
    out.push_back({h.key, (h.flags & kHostLocal) != 0, n ? n : "", r});
  }
  return out;
}

namespace {

bool flow_matches(const Flow& f, const FlowQuery& q) {
  if (q.vlan >= 0 && f.key.vlan != q.vlan) return false;
  if (q.l4proto >= 0 && f.key.proto != q.l4proto) return false;
  if (q.l7 >= 0 && f.l7_master != q.l7 && f.l7_app != q.l7) return false;
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
  for (const Pipeline* pl : v) {
    const uint32_t i = pl->hosts().find(k, h);
    if (i == HashIndex::kNone) continue;
    const Host& e = pl->hosts()[i];
    const char* nm = pl->names().get(e.name);
    if (!nm) continue;
    if (name.empty() || name_priority(e.name_source) > name_priority(source)) name = nm, source = e.name_source;
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
    r.risks = pl.classifier().risks(f);
    if (const FlowInfo* fi = pl.classifier().info(f)) {
      r.host.assign(fi->host, strnlen(fi->host, sizeof(fi->host)));
      r.confidence = fi->confidence;
      // A TLS entry that read nothing (QUIC's state before its match, a
      // record walk's skip count) carries no metadata.
      if (const FlowMeta* m = pl.classifier().meta(f); m && !(m->kind == MetaKind::Tls && !m->tls.flags)) r.meta = *m, r.has_meta = true;
      if (fi->kind == uint8_t(MetaKind::Dns)) r.dns = fi->dns, r.dns_kind = true;
    } else if (f.l7_app) {
      r.confidence = uint8_t(Confidence::Dpi);
    }
    if (f.cli_host != HashIndex::kNone) {
      const Host& h = ht[f.cli_host];
      r.cli_flags = h.flags, r.cli_pool = pl.host_pool(f.cli_host);
      if (v.size() > 1) {
        best_name(v, h.key, r.cli_name, r.cli_name_source);
      } else {
        const char* nm = pl.names().get(h.name);
        r.cli_name = nm ? nm : "", r.cli_name_source = h.name_source;
      }
    }
    if (f.srv_host != HashIndex::kNone) {
      const Host& h = ht[f.srv_host];
      r.srv_flags = h.flags, r.srv_pool = pl.host_pool(f.srv_host);
      if (v.size() > 1) {
        best_name(v, h.key, r.srv_name, r.srv_name_source);
      } else {
        const char* nm = pl.names().get(h.name);
        r.srv_name = nm ? nm : "", r.srv_name_source = h.name_source;
      }
    }
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
