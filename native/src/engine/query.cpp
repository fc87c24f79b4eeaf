#include "engine/query.h"

#include <algorithm>
#include <map>

namespace fg {
namespace {

bool allowed_ip(const std::vector<Cidr>& allowed, const IpAddr& a) {
  if (allowed.empty()) return true;
  for (const auto& c : allowed)
    if (c.contains(a)) return true;
  return false;
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
    // No blacklists or host filters yet: these modes select nothing rather than everything.
    case HostMode::Filtered:
    case HostMode::Blacklisted: return false;
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
  if (from > 1024) {
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

HostPage query_hosts(const Pipeline& pl, const HostQuery& q) {
  const HostTable& ht = pl.hosts();
  const NamePool& names = pl.names();
  std::vector<uint32_t> sel;
  sel.reserve(ht.size());
  for (uint32_t i = 0; i < ht.max(); i++)
    if (ht.used(i) && host_matches(ht[i], q)) sel.push_back(i);
  HostPage page;
  page.total = uint32_t(sel.size());
  auto name_of = [&](const Host& h) -> const char* {
    const char* n = names.get(h.name);
    return n ? n : "";
  };
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
        case HostSort::Ip: case HostSort::Alerts: case HostSort::Country: case HostSort::Name: break;
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
  if (!order.empty()) {
    page.rows.reserve(order.size());
    for (uint32_t i : order) {
      const Host& h = ht[i];
      HostRow& r = page.rows.emplace_back();
      r.h = h, r.name = name_of(h);
      r.score = pl.host_score(i);
      r.has_l7 = q.detail;
      if (q.detail) r.hits = pl.live_check_hits(i);
    }
    if (q.detail) {
      std::vector<HostL7Stats> l7(order.size());
      pl.host_l7().read_many(order.data(), order.size(), l7.data());
      for (size_t k = 0; k < l7.size(); k++) page.rows[k].l7 = std::move(l7[k]);
    }
  }
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
    for (uint32_t j = 0; i == HashIndex::kNone && j < ht.max(); j++)
      if (ht.used(j) && ht[j].key.ip == ip) i = j;
  }
  if (i == HashIndex::kNone) return false;
  out.h = ht[i];
  const char* n = pl.names().get(out.h.name);
  out.name = n ? n : "";
  out.has_l7 = true;
  out.l7 = pl.host_l7().read(i);
  out.hits = pl.live_check_hits(i);
  out.score = pl.host_score(i);
  return true;
}

std::vector<HostScoreRow> query_host_scores(const Pipeline& pl, uint64_t threshold) {
  const HostTable& ht = pl.hosts();
  std::vector<HostScoreRow> out;
  for (uint32_t i = 0; i < ht.max(); i++) {
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
  for (uint32_t i = 0; i < ht.max(); i++) {
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

FlowPage query_flows(const Pipeline& pl, const FlowQuery& q) {
  const FlowTable& ft = pl.flows();
  const HostTable& ht = pl.hosts();
  std::vector<uint32_t> sel;
  sel.reserve(ft.size());
  for (uint32_t i = 0; i < ft.max(); i++) {
    if (!ft.used(i)) continue;
    const Flow& f = ft[i];
    if (q.vlan >= 0 && f.key.vlan != q.vlan) continue;
    if (q.l4proto >= 0 && f.key.proto != q.l4proto) continue;
    if (q.l7 >= 0 && f.l7_master != q.l7 && f.l7_app != q.l7) continue;
    if (q.has_host) {
      if (!(f.key.lo == q.host || f.key.hi == q.host)) continue;
      if (q.host_vlan >= 0 && f.key.vlan != q.host_vlan) continue;
    }
    if (!q.allowed.empty() && !allowed_ip(q.allowed, f.key.lo) && !allowed_ip(q.allowed, f.key.hi)) continue;
    sel.push_back(i);
  }
  FlowPage page;
  page.total = uint32_t(sel.size());
  auto cli = [](const Flow& f) -> const IpAddr& { return f.cli_is_hi ? f.key.hi : f.key.lo; };
  auto srv = [](const Flow& f) -> const IpAddr& { return f.cli_is_hi ? f.key.lo : f.key.hi; };
  auto key_cmp = [&](const Flow& a, const Flow& b) -> int {
    switch (q.sort) {
      case FlowSort::Bytes: return cmp3(a.bytes[0] + a.bytes[1], b.bytes[0] + b.bytes[1]);
      case FlowSort::Packets: return cmp3(uint64_t(a.pkts[0]) + a.pkts[1], uint64_t(b.pkts[0]) + b.pkts[1]);
      case FlowSort::Thpt: return cmp3(a.bps, b.bps);
      case FlowSort::Duration: return cmp3(a.last_ns - a.first_ns, b.last_ns - b.first_ns);
      case FlowSort::FirstSeen: return cmp3(a.first_ns, b.first_ns);
      case FlowSort::LastSeen: return cmp3(a.last_ns, b.last_ns);
      case FlowSort::Client: return std::memcmp(cli(a).b, cli(b).b, 16);
      case FlowSort::Server: return std::memcmp(srv(a).b, srv(b).b, 16);
      case FlowSort::Vlan: return cmp3(a.key.vlan, b.key.vlan);
      case FlowSort::Proto: return cmp3(a.key.proto, b.key.proto);
      case FlowSort::L7: return cmp3(uint32_t(a.l7_master) << 16 | a.l7_app, uint32_t(b.l7_master) << 16 | b.l7_app);
      case FlowSort::Serial: return cmp3(a.serial, b.serial);
    }
    return 0;
  };
  auto less = [&](uint32_t ia, uint32_t ib) {
    int c = key_cmp(ft[ia], ft[ib]);
    if (c == 0) c = cmp3(ft[ia].serial, ft[ib].serial);
    return q.desc ? c > 0 : c < 0;
  };
  auto [from, to] = sort_page(sel, q.offset, q.limit, less);
  if (from < to) {
    page.rows.reserve(to - from);
    for (size_t k = from; k < to; k++) {
      const Flow& f = ft[sel[k]];
      FlowRow r;
      r.f = f;
      r.risks = pl.classifier().risks(f);
      if (const FlowInfo* fi = pl.classifier().info(f)) {
        r.host.assign(fi->host, strnlen(fi->host, sizeof(fi->host)));
        r.confidence = fi->confidence;
        if (const FlowMeta* m = pl.classifier().meta(f)) r.meta = *m, r.has_meta = true;
        if (fi->kind == uint8_t(MetaKind::Dns)) r.dns = fi->dns, r.dns_kind = true;
      } else if (f.l7_app) {
        r.confidence = uint8_t(Confidence::Dpi);
      }
      if (f.cli_host != HashIndex::kNone) {
        const Host& h = ht[f.cli_host];
        const char* n = pl.names().get(h.name);
        r.cli_name = n ? n : "";
        r.cli_flags = h.flags, r.cli_name_source = h.name_source;
      }
      if (f.srv_host != HashIndex::kNone) {
        const Host& h = ht[f.srv_host];
        const char* n = pl.names().get(h.name);
        r.srv_name = n ? n : "";
        r.srv_flags = h.flags, r.srv_name_source = h.name_source;
      }
      page.rows.push_back(std::move(r));
    }
  }
  return page;
}

FlowCounts count_flows(const Pipeline& pl, const std::vector<Cidr>& allowed) {
  const FlowTable& ft = pl.flows();
  uint32_t l4[256] = {};
  std::map<uint32_t, uint32_t> l7;
  for (uint32_t i = 0; i < ft.max(); i++) {
    if (!ft.used(i)) continue;
    const Flow& f = ft[i];
    if (!allowed.empty() && !allowed_ip(allowed, f.key.lo) && !allowed_ip(allowed, f.key.hi)) continue;
    l4[f.key.proto]++;
    l7[uint32_t(f.l7_master) << 16 | f.l7_app]++;
  }
  FlowCounts c;
  for (int p = 0; p < 256; p++)
    if (l4[p]) c.l4.emplace_back(uint8_t(p), l4[p]);
  for (auto& [k, v] : l7) c.l7.emplace_back(k, v);
  return c;
}

}  // namespace fg
