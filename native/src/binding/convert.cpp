#include "binding/convert.h"

#include "dpi/user_rules.h"

#include "dpi/registry.h"
#include "dpi/risk.h"
#include "dpi/tls_parse.h"

#include <chrono>
#include <cstdio>

namespace fg {
namespace {

constexpr double kNsPerSec = 1e9;

std::string mac_text(const uint8_t* m) {
  char buf[18];
  std::snprintf(buf, sizeof(buf), "%02X:%02X:%02X:%02X:%02X:%02X", m[0], m[1], m[2], m[3], m[4], m[5]);
  return buf;
}

double secs(uint64_t ns) { return double(ns / 1000000000ULL); }

// IpAddress::compute_key: an IPv4 address in host order; an IPv6 one the sum
// of its four 32-bit words as memory holds them (little-endian here), word i
// shifted left by 2i bits, modulo 2^32.
static uint32_t ntopng_ip_key(const IpAddr& a) {
  if (a.is_v4()) return a.v4();
  uint32_t k = 0;
  for (int i = 0; i < 4; i++) k += load_le32(a.b + 4 * i) << (2 * i);
  return k;
}

// Flow::key: ports as stored (network byte order, read as host words), VLAN,
// L4 protocol and both addresses' keys summed modulo 2^32; symmetric in the
// two ends. ntopng also adds an ICMP unreachable's quoted tuple (its ICMP
// flows are split by it; the engine keys them by their addresses only).
static uint32_t ntopng_flow_key(const Flow& f) {
  auto net16 = [](uint16_t p) { return uint32_t(uint16_t(p << 8 | p >> 8)); };
  return net16(f.key.port_lo) + net16(f.key.port_hi) + f.key.vlan + f.key.proto + ntopng_ip_key(f.key.lo) + ntopng_ip_key(f.key.hi);
}

// ntopng's ValueTrend: 1 up, 2 down, 3 stable.
int trend(float now, float before) {
  if (now > before) return 1;
  if (now < before) return 2;
  return 3;
}

Napi::Object traffic(Napi::Env env, uint64_t bs, uint64_t br, uint64_t ps, uint64_t pr,
                     Napi::Object o = Napi::Object()) {
  if (o.IsEmpty()) o = Napi::Object::New(env);
  o.Set("bytes_sent", double(bs));
  o.Set("bytes_rcvd", double(br));
  o.Set("packets_sent", double(ps));
  o.Set("packets_rcvd", double(pr));
  return o;
}

Napi::Object pkt_stats(Napi::Env env, const Host& h, int d) {
  static const char* const kBins[kSizeBins] = {"upTo64", "upTo128", "upTo256", "upTo512", "upTo1024",
                                               "upTo1518", "upTo2500", "upTo6500", "upTo9000", "above9000"};
  Napi::Object o = Napi::Object::New(env);
  Napi::Object size = Napi::Object::New(env);
  const HostPktStats& ps = h.pkt[d];
  for (int i = 0; i < kSizeBins; i++) size.Set(kBins[i], double(ps.size_bins[i]));
  Napi::Object fl = Napi::Object::New(env);
  fl.Set("syn", double(ps.syn));
  fl.Set("synack", double(ps.synack));
  fl.Set("finack", double(ps.finack));
  fl.Set("rst", double(ps.rst));
  o.Set("size", size);
  o.Set("tcp_flags", fl);
  return o;
}

Napi::Object tcp_stats(Napi::Env env, const Host& h, int d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("retransmissions", double(h.retr[d]));
  o.Set("keep_alive", double(h.keepalive[d]));
  o.Set("lost", double(h.lost[d]));
  o.Set("out_of_order", double(h.ooo[d]));
  return o;
}

const char* name_source(uint8_t s) {
  static const char* const kNames[] = {"", "dns", "dhcp", "mdns", "netbios", "tls", "http", "quic"};
  return s < sizeof(kNames) / sizeof(kNames[0]) ? kNames[s] : "";
}

std::string hex(const uint8_t* p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(n * 2, '0');
  for (size_t i = 0; i < n; i++) s[2 * i] = kHex[p[i] >> 4], s[2 * i + 1] = kHex[p[i] & 15];
  return s;
}

void set_str(Napi::Object& o, const char* k, const char* v) {
  if (v[0]) o.Set(k, v);
}

void meta_to_js(Napi::Env env, Napi::Object& o, const FlowMeta& m, const MetaText& text, const TlsCert* cert) {
  Napi::Object x = Napi::Object::New(env);
  switch (m.kind) {
    case MetaKind::Tls: {
      const TlsMeta& t = m.tls;
      if (t.version) {
        x.Set("version", double(t.version));
        x.Set("version_name", tls_version_name(t.version));
        x.Set("cipher", double(t.cipher));
        set_str(x, "cipher_name", tls_cipher_name(t.cipher));
      }
      if (t.client_version) x.Set("client_version", double(t.client_version));
      set_str(x, "alpn_client", text.tls.alpn_client);
      set_str(x, "alpn_server", text.tls.alpn_server);
      if (t.flags & kTlsJa3c) {
        x.Set("ja3", hex(t.ja3c, 16));
        x.Set("ja4", std::string(t.ja4.a, sizeof(t.ja4.a)) + '_' + hex(t.ja4.b, 6) + '_' + hex(t.ja4.c, 6));
      }
      if (t.flags & kTlsJa3s) x.Set("ja3s", hex(t.ja3s, 16));
      set_str(x, "issuer_dn", cert ? cert->issuer : "");
      set_str(x, "subject_dn", cert ? cert->subject : "");
      if (cert && cert->not_after) {
        x.Set("not_before", double(cert->not_before));
        x.Set("not_after", double(cert->not_after));
      }
      x.Set("quic", bool(t.flags & kTlsQuic));
      o.Set("tls", x);
      break;
    }
    case MetaKind::Http: {
      const HttpMeta& h = m.http;
      set_str(x, "method", http_method_name(h.method));
      set_str(x, "url", h.url);
      set_str(x, "user_agent", text.http.user_agent);
      if (h.status) x.Set("status", double(h.status));
      set_str(x, "content_type", text.http.content_type);
      set_str(x, "server", text.http.server);
      o.Set("http", x);
      break;
    }
    case MetaKind::Ssh: {
      const SshMeta& s = m.ssh;
      set_str(x, "client_banner", text.ssh.banner_c);
      set_str(x, "server_banner", text.ssh.banner_s);
      if (s.flags & kSshHasshC) x.Set("hassh_client", hex(s.hassh_c, 16));
      if (s.flags & kSshHasshS) x.Set("hassh_server", hex(s.hassh_s, 16));
      o.Set("ssh", x);
      break;
    }
    default: break;
  }
}

}  // namespace

const char* tunnel_name(uint8_t t) {
  static const char* const kNames[] = {"", "GRE", "ERSPAN", "VXLAN", "GTP-U", "IP-in-IP", "CAPWAP", "TZSP"};
  return t < sizeof(kNames) / sizeof(kNames[0]) ? kNames[t] : "";
}

// {syn_scan: {attacker, victim}, …} for the checks `asked` selects.
static Napi::Object check_hits(Napi::Env env, const HostCheckHits& h, const bool (&asked)[kHostCheckCount]) {
  Napi::Object o = Napi::Object::New(env);
  for (int c = 0; c < kHostCheckCount; c++) {
    if (!asked[c]) continue;
    Napi::Object x = Napi::Object::New(env);
    x.Set("attacker", double(h.hits[c][0]));
    x.Set("victim", double(h.hits[c][1]));
    o.Set(kHostCheckNames[c], x);
  }
  return o;
}

Napi::Object host_check_row_to_js(Napi::Env env, const HostCheckRow& r, const double (&thresholds)[kHostCheckCount]) {
  bool asked[kHostCheckCount];
  for (int c = 0; c < kHostCheckCount; c++) asked[c] = thresholds[c] >= 0;
  Napi::Object o = Napi::Object::New(env);
  o.Set("ip", format_ip(r.key.ip));
  o.Set("vlan", double(r.key.vlan));
  o.Set("local", r.local);
  o.Set("name", r.name);
  o.Set("hits", check_hits(env, r.hits, asked));
  return o;
}

// Per score category (network, security): the host's shares as client and as server.
static Napi::Object score_breakdown(Napi::Env env, const HostScore& s) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array cli = Napi::Array::New(env, kScoreCategories), srv = Napi::Array::New(env, kScoreCategories);
  for (uint32_t c = 0; c < kScoreCategories; c++) cli.Set(c, double(s.score[0][c])), srv.Set(c, double(s.score[1][c]));
  o.Set("as_client", cli);
  o.Set("as_server", srv);
  return o;
}

Napi::Object host_score_row_to_js(Napi::Env env, const HostScoreRow& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("ip", format_ip(r.key.ip));
  o.Set("vlan", double(r.key.vlan));
  o.Set("local", r.local);
  o.Set("name", r.name);
  o.Set("score_as_client", double(r.score.as_client()));
  o.Set("score_as_server", double(r.score.as_server()));
  o.Set("score_breakdown", score_breakdown(env, r.score));
  return o;
}

Napi::Object host_to_js(Napi::Env env, const HostRow& r) {
  const Host& h = r.h;
  Napi::Object o = Napi::Object::New(env);
  o.Set("ip", format_ip(h.key.ip));
  o.Set("vlan", double(h.key.vlan));
  o.Set("ip_version", h.key.ip.is_v4() ? 4 : 6);
  o.Set("serial", double(h.serial));
  o.Set("mac", (h.flags & kHostHasMac) ? Napi::Value(Napi::String::New(env, mac_text(h.mac))) : env.Null());
  o.Set("name", r.name.empty() ? env.Null() : Napi::Value(Napi::String::New(env, r.name)));
  o.Set("name_source", name_source(h.name_source));
  o.Set("localhost", bool(h.flags & kHostLocal));
  o.Set("host_pool_id", double(r.pool));
  o.Set("local_network_id", double(r.network));
  o.Set("devtype", double(r.devtype));
  o.Set("privatehost", bool(h.flags & kHostPrivate));
  o.Set("is_broadcast", bool(h.flags & kHostBroadcast));
  o.Set("is_multicast", bool(h.flags & kHostMulticast));
  o.Set("broadcast_domain_host", bool(h.flags & kHostBroadcastDomain));
  o.Set("crawler_bot", bool(h.flags & kHostCrawlerBot));
  o.Set("first_seen", secs(h.first_ns));
  o.Set("last_seen", secs(h.last_ns()));
  o.Set("duration", secs(h.last_ns() - h.first_ns) + 1);
  o.Set("bytes_sent", double(h.bytes(0)));
  o.Set("bytes_rcvd", double(h.bytes(1)));
  o.Set("packets_sent", double(h.pkts(0)));
  o.Set("packets_rcvd", double(h.pkts(1)));
  static const char* const kFam[kFamCount] = {"tcp", "udp", "icmp", "other_ip"};
  const HostTraffic& s = h.traffic[0];
  const HostTraffic& rv = h.traffic[1];
  if (!r.brief)
    for (int f = 0; f < kFamCount; f++)
      o.Set(kFam[f], traffic(env, s.fam_bytes[f], rv.fam_bytes[f], h.fam_pkts(0, f), h.fam_pkts(1, f)));
  o.Set("active_flows_as_client", double(h.active_as_client));
  o.Set("active_flows_as_server", double(h.active_as_server));
  o.Set("total_flows_as_client", double(h.total_as_client));
  o.Set("total_flows_as_server", double(h.total_as_server));
  o.Set("unreachable_flows_as_client", double(h.unreachable[kUnreachPort][0]));
  o.Set("unreachable_flows_as_server", double(h.unreachable[kUnreachPort][1]));
  o.Set("host_unreachable_flows_as_client", double(h.unreachable[kUnreachHost][0]));
  o.Set("host_unreachable_flows_as_server", double(h.unreachable[kUnreachHost][1]));
  o.Set("throughput_bps", double(h.bps));
  o.Set("throughput_pps", double(h.pps));
  o.Set("throughput_trend_bps", trend(h.bps, h.prev_bps));
  o.Set("throughput_trend_pps", trend(h.pps, h.prev_pps));
  if (!r.brief) {
    Napi::Object ps = Napi::Object::New(env);
    ps.Set("sent", pkt_stats(env, h, 0));
    ps.Set("recv", pkt_stats(env, h, 1));
    o.Set("pktStats", ps);
    Napi::Object ts = Napi::Object::New(env);
    ts.Set("sent", tcp_stats(env, h, 0));
    ts.Set("rcvd", tcp_stats(env, h, 1));
    o.Set("tcpPacketStats", ts);
    Napi::Object udp = Napi::Object::New(env);
    udp.Set("unicast", double(h.traffic[0].udp_unicast));
    udp.Set("non_unicast", double(h.udp_sent_noncast));
    o.Set("udpBytesSent", udp);
  }
  o.Set("l7_pool_full", bool(h.flags & kHostL7Full));
  o.Set("is_blacklisted", r.blacklisted);
  o.Set("score_as_client", double(r.score.as_client()));
  o.Set("score_as_server", double(r.score.as_server()));
  if (!r.brief) o.Set("score_breakdown", score_breakdown(env, r.score));
  o.Set("active_alerted_flows", double(r.score.alerted_active));
  o.Set("alerted_flows_as_client", double(r.score.alerted_total[0]));
  o.Set("alerted_flows_as_server", double(r.score.alerted_total[1]));
  if (r.has_l7) {
    const HostL7Stats& l = r.l7;
    Napi::Array apps = Napi::Array::New(env, l.apps.size());
    for (size_t i = 0; i < l.apps.size(); i++) {
      const HostAppStats& a = l.apps[i];
      Napi::Object x = Napi::Object::New(env);
      x.Set("id", double(a.id));
      traffic(env, a.bytes_sent, a.bytes_rcvd, a.pkts_sent, a.pkts_rcvd, x);
      x.Set("num_flows", double(a.num_flows));
      x.Set("duration", double(a.duration));
      apps.Set(uint32_t(i), x);
    }
    Napi::Array cats = Napi::Array::New(env, l.cats.size());
    for (size_t i = 0; i < l.cats.size(); i++) {
      const HostCatStats& c = l.cats[i];
      Napi::Object x = Napi::Object::New(env);
      x.Set("id", double(c.id));
      x.Set("bytes_sent", double(c.bytes_sent));
      x.Set("bytes_rcvd", double(c.bytes_rcvd));
      x.Set("duration", double(c.duration));
      cats.Set(uint32_t(i), x);
    }
    Napi::Array dscp = Napi::Array::New(env, l.dscp.size());
    for (size_t i = 0; i < l.dscp.size(); i++) {
      const HostDscpStats& d = l.dscp[i];
      Napi::Object x = Napi::Object::New(env);
      x.Set("dscp", double(d.dscp));
      traffic(env, d.bytes_sent, d.bytes_rcvd, d.pkts_sent, d.pkts_rcvd, x);
      dscp.Set(uint32_t(i), x);
    }
    o.Set("ndpi", apps);
    o.Set("ndpi_categories", cats);
    o.Set("dscp", dscp);
    static constexpr bool kAll[kHostCheckCount] = {true, true, true, true, true};
    o.Set("hits", check_hits(env, r.hits, kAll));
    o.Set("services", double(h.services));
    o.Set("no_tx_peers_as_client", double(r.no_tx_out));
    o.Set("no_tx_peers_as_server", double(r.no_tx_in));
    o.Set("oneway_flows_as_server", double(r.oneway_in));
    o.Set("oneway_flows_as_client", double(r.oneway_out));
    o.Set("blacklisted_flows_as_server", double(r.blacklisted_flows[0]));
    o.Set("blacklisted_flows_as_client", double(r.blacklisted_flows[1]));
    if (r.has_icmp) {
      Napi::Array ia = Napi::Array::New(env, r.icmp.n);
      for (uint32_t k = 0; k < r.icmp.n; k++) {
        const IcmpPair& x = r.icmp.e[k];
        Napi::Object y = Napi::Object::New(env);
        y.Set("v6", bool(x.v6));
        y.Set("type", double(x.type));
        y.Set("code", double(x.code));
        y.Set("sent", double(x.sent));
        y.Set("rcvd", double(x.rcvd));
        if (x.sent) y.Set("last_host_sent_peer", format_ip(x.sent_peer));
        if (x.rcvd) y.Set("last_host_rcvd_peer", format_ip(x.rcvd_peer));
        ia.Set(k, y);
      }
      o.Set("icmp_stats", ia);
    }
    if (r.has_ports) {
      Napi::Array pa = Napi::Array::New(env, r.ports.n);
      for (uint32_t k = 0; k < r.ports.n; k++) {
        const UsedPort& x = r.ports.e[k];
        Napi::Object y = Napi::Object::New(env);
        y.Set("tcp", bool(x.tcp));
        y.Set("server", bool(x.server));
        y.Set("port", double(x.port));
        y.Set("master", double(x.master));
        y.Set("app", double(x.app));
        pa.Set(k, y);
      }
      o.Set("used_ports", pa);
    }
    {
      // [as client, as server] × [new-flow gaps, durations] × 8 ranges (flow/host_bins.h)
      Napi::Array fb = Napi::Array::New(env, 2);
      for (uint32_t role = 0; role < 2; role++) {
        Napi::Array freq = Napi::Array::New(env, HostFlowBins::kBins), dur = Napi::Array::New(env, HostFlowBins::kBins);
        for (uint32_t k = 0; k < HostFlowBins::kBins; k++) freq.Set(k, double(r.bins.frequency[role][k])), dur.Set(k, double(r.bins.duration[role][k]));
        Napi::Array x = Napi::Array::New(env, 2);
        x.Set(0u, freq), x.Set(1u, dur);
        fb.Set(role, x);
      }
      o.Set("flow_bins", fb);
    }
    if (r.has_behaviour) {
      // [score as client, as server, active flows as client, as server], then the RSI indexes
      Napi::Array des = Napi::Array::New(env, HostBehaviour::kDes);
      for (uint32_t k = 0; k < HostBehaviour::kDes; k++) {
        const DesCounter& d = r.behaviour.des[k];
        Napi::Object y = Napi::Object::New(env);
        y.Set("anomaly", d.anomaly());
        y.Set("value", double(d.value));
        y.Set("lower_bound", double(d.lower));
        y.Set("upper_bound", double(d.upper));
        y.Set("tot_num_anomalies", double(d.tot_anomalies));
        des.Set(k, y);
      }
      Napi::Array rsi = Napi::Array::New(env, HostBehaviour::kRsi);
      for (uint32_t k = 0; k < HostBehaviour::kRsi; k++) rsi.Set(k, double(r.behaviour.rsi_index[k]));
      Napi::Object b = Napi::Object::New(env);
      b.Set("des", des);
      b.Set("anomaly_index", rsi);
      b.Set("visited_now", double(r.visited_now));
      o.Set("behaviour", b);
    }
    if (h.flags & kHostLocal) {
      static const char* const kNames[6] = {"dns", "smtp", "imap", "pop", "ntp", "domain_names"};
      Napi::Object sc = Napi::Object::New(env);
      for (int k = 0; k < 6; k++) sc.Set(kNames[k], double(r.server_contacts[k]));
      o.Set("server_contacts", sc);
      static const char* const kCard[3] = {"num_contacted_hosts_as_client", "num_host_contacts_as_server", "num_contacted_services_as_client"};
      Napi::Object card = Napi::Object::New(env);
      for (int k = 0; k < 3; k++) card.Set(kCard[k], double(r.cardinality[k]));
      o.Set("cardinality", card);
    }
  }
  return o;
}

Napi::Object flow_to_js(Napi::Env env, const FlowRow& r) {
  const Flow& f = r.f;
  Napi::Object o = Napi::Object::New(env);
  const IpAddr& cip = f.cli_is_hi ? f.key.hi : f.key.lo;
  const IpAddr& sip = f.cli_is_hi ? f.key.lo : f.key.hi;
  uint16_t cport = f.cli_is_hi ? f.key.port_hi : f.key.port_lo;
  uint16_t sport = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  char key[24];
  std::snprintf(key, sizeof(key), "%u", ntopng_flow_key(f));
  o.Set("key", key);
  o.Set("hash_id", double(f.serial));
  o.Set("vlan", double(f.key.vlan));
  o.Set("proto", double(f.key.proto));
  o.Set("ip_version", double(f.ip_version));
  o.Set("tunnel", tunnel_name(f.tunnel));
  Napi::Object c = Napi::Object::New(env);
  c.Set("ip", format_ip(cip));
  c.Set("port", double(cport));
  c.Set("name", r.cli_name);
  c.Set("localhost", bool(r.cli_flags & kHostLocal));
  c.Set("is_broadcast", bool(r.cli_flags & kHostBroadcast));
  c.Set("is_multicast", bool(r.cli_flags & kHostMulticast));
  c.Set("broadcast_domain_host", bool(r.cli_flags & kHostBroadcastDomain));
  c.Set("dhcp", r.cli_name_source == uint8_t(NameSource::Dhcp));
  c.Set("host_pool_id", double(r.cli_pool));
  c.Set("blacklisted", bool(f.cli_bl));
  Napi::Object s = Napi::Object::New(env);
  s.Set("ip", format_ip(sip));
  s.Set("port", double(sport));
  s.Set("name", r.srv_name);
  s.Set("localhost", bool(r.srv_flags & kHostLocal));
  s.Set("is_broadcast", bool(r.srv_flags & kHostBroadcast));
  s.Set("is_multicast", bool(r.srv_flags & kHostMulticast));
  s.Set("broadcast_domain_host", bool(r.srv_flags & kHostBroadcastDomain));
  s.Set("dhcp", r.srv_name_source == uint8_t(NameSource::Dhcp));
  s.Set("host_pool_id", double(r.srv_pool));
  s.Set("blacklisted", bool(f.srv_bl));
  o.Set("client", c);
  o.Set("server", s);
  o.Set("first_seen", secs(f.first_ns));
  o.Set("last_seen", secs(f.last_ns));
  o.Set("first_seen_ns", double(f.first_ns));
  o.Set("last_seen_ns", double(f.last_ns));
  o.Set("duration", double(f.last_ns - f.first_ns) / kNsPerSec);
  o.Set("cli2srv_packets", double(f.pkts[0]));
  o.Set("srv2cli_packets", double(f.pkts[1]));
  o.Set("cli2srv_bytes", double(f.bytes[0]));
  o.Set("srv2cli_bytes", double(f.bytes[1]));
  o.Set("packets", double(f.pkts[0]) + double(f.pkts[1]));
  o.Set("bytes", double(f.bytes[0] + f.bytes[1]));
  o.Set("thpt_bps", double(f.bps));
  o.Set("thpt_pps", double(f.pps));
  o.Set("cli2srv_tcp_flags", double(f.tcp_flags[0]));
  o.Set("srv2cli_tcp_flags", double(f.tcp_flags[1]));
  o.Set("cli2srv_dscp", double(f.dscp[0]));
  o.Set("srv2cli_dscp", double(f.dscp[1]));
  o.Set("cli2srv_ttl", double(f.ttl[0]));
  o.Set("srv2cli_ttl", double(f.ttl[1]));
  Napi::Object tcp = Napi::Object::New(env);
  auto pair = [&](uint32_t a, uint32_t b) {
    Napi::Object p = Napi::Object::New(env);
    p.Set("cli2srv", double(a));
    p.Set("srv2cli", double(b));
    return p;
  };
  tcp.Set("retransmissions", pair(f.retr[0], f.retr[1]));
  tcp.Set("out_of_order", pair(f.ooo[0], f.ooo[1]));
  tcp.Set("lost", pair(f.lost[0], f.lost[1]));
  // ntopng's latencies in ms (µs / 1000): network, each side of the handshake; the application's
  Napi::Object nw = Napi::Object::New(env);
  nw.Set("cli", double(r.tcp.client_latency()) / 1000);
  nw.Set("srv", double(r.tcp.srv_lat) / 1000);
  tcp.Set("nw_latency", nw);
  tcp.Set("appl_latency", double(r.tcp.appl) / 1000);
  o.Set("tcp", tcp);
  o.Set("icmp_type", double(f.icmp_type()));
  o.Set("icmp_code", double(f.icmp_code()));
  o.Set("l7_master", double(f.l7_master));
  o.Set("l7_app", double(f.l7_app));
  o.Set("l7_category", double(f.l7_category));
  o.Set("l7_confidence", confidence_name(Confidence(r.confidence)));
  o.Set("dpi_done", f.dpi_state != 0);
  o.Set("host_name", r.host);
  Napi::Array risks = Napi::Array::New(env), ids = Napi::Array::New(env);
  uint32_t nr = 0;
  for (uint8_t i = 0; i < 64; i++)
    if (r.risks >> i & 1) {
      ids.Set(nr, double(i));
      risks.Set(nr++, risk_name(i));
    }
  o.Set("risks", risks);
  o.Set("risk_ids", ids);
  if (r.has_meta) meta_to_js(env, o, r.meta, r.text, r.has_cert ? &r.cert : nullptr);
  if (r.dns_kind) {
    Napi::Object d = Napi::Object::New(env);
    d.Set("query_type", double(r.dns.qtype));
    if (r.dns.flags & 1) {
      d.Set("rcode", double(r.dns.rcode));
      d.Set("answers", double(r.dns.answers));
    }
    o.Set("dns", d);
  }
  return o;
}

// Interface statistics travel as one Float64Array filled here (no property
// set per counter: building ~110 properties natively cost ~65 µs a call);
// ts/bindings/engine.ts names the slots from stats_layout().
#define FG_STATS_SCALARS(X)                                                                           \
  X(packets, s.packets) X(bytes, s.bytes) X(ip_packets, s.ip_packets) X(ip_bytes, s.ip_bytes)            \
  X(ipv4_packets, s.ipv4_packets) X(ipv6_packets, s.ipv6_packets) X(packets_upload, s.packets_upload)    \
  X(bytes_upload, s.bytes_upload) X(packets_download, s.packets_download)                                \
  X(bytes_download, s.bytes_download) X(local2remote, s.local2remote) X(remote2local, s.remote2local)    \
  X(local2local, s.local2local) X(remote2remote, s.remote2remote) X(broadcast_packets, s.broadcast_packets) \
  X(multicast_packets, s.multicast_packets) X(tcp_retransmissions, s.retransmissions)                    \
  X(tcp_out_of_order, s.out_of_order) X(tcp_lost, s.lost) X(tcp_keep_alive, s.keepalive)                 \
  X(num_flows, pl.flows().size()) X(num_hosts, pl.hosts().size()) X(num_local_hosts, s.local_hosts) X(num_rcvd_only_hosts, s.rx_only_hosts) X(num_local_rcvd_only_hosts, s.local_rx_only_hosts) X(num_local_hosts_anomalies, s.local_host_anomalies) X(num_remote_hosts_anomalies, s.remote_host_anomalies)     \
  X(num_devices, pl.macs()) X(max_macs, pl.max_macs()) X(max_flows, pl.flows().max()) X(max_hosts, pl.hosts().max())                \
  X(flows_created, s.flows_created) X(flows_expired, s.flows_expired) X(flow_table_full, s.flow_table_full) \
  X(hosts_created, s.hosts_created) X(hosts_expired, s.hosts_expired) X(host_table_full, s.host_table_full) \
  X(mac_table_full, s.mac_table_full) X(host_l7_pool_full, s.host_l7_pool_full) X(host_contacts_full, s.host_contacts_full) X(host_side_full, s.host_side_full)                          \
  X(host_l7_entries, pl.host_l7().used()) X(host_l7_entries_max, pl.host_l7().max())                       \
  X(orphan_fragments, s.orphan_fragments) X(expired_ring_drops, s.expired_ring_drops) X(names_untold, s.names_untold)                    \
  X(drops, e.kernel_drops()) X(first_seen_ns, s.first_ns) X(last_seen_ns, s.last_ns) X(now_ns, pl.now_ns()) \
  X(throughput_bps, s.bps) X(throughput_pps, s.pps) X(memory_bytes, 0.0)                   \
  X(flow_memory_bytes, 0.0) X(flow_reserved_bytes, 0.0) /* stats_fill_memory */ \
  X(alerted_flows_notice, s.alerted_flows[kSevNotice]) X(alerted_flows_warning, s.alerted_flows[kSevWarning])  \
  X(alerted_flows_error, s.alerted_flows[kSevError]) X(alerted_flows_other, s.alerted_flows[kSevNone] + s.alerted_flows[kSevUncounted]) \
  X(score_as_client, s.score_as_cli) X(score_as_server, s.score_as_srv)                                  \
  X(flow_info_full, pl.classifier().info_full()) X(flow_meta_full, pl.classifier().meta_full())         \
  X(flow_score_full, pl.score_full()) X(flow_iec_full, pl.iec_full())                                     \
  X(host_memory_bytes, 0.0) X(host_reserved_bytes, 0.0) \
  X(malformed, s.decode.total_errors()) X(read_only_packets, e.read_only_packets())                      \
  X(read_only_bytes, e.read_only_bytes()) X(decode_non_ip, s.decode.non_ip)                              \
  X(decode_ip_fragments, s.decode.fragments) X(decode_tunnel_packets, s.decode.tunneled) \
  X(ticks, e.ticks()) X(ticks_late, e.ticks_late())

namespace {
#define FG_COUNT(name, v) +1
constexpr size_t kStatsScalars = 0 FG_STATS_SCALARS(FG_COUNT);
#undef FG_COUNT
// slots: scalars, decode errors, l4 packets/bytes [256], dscp packets/bytes [64],
// broadcast domain count then (net, cidr, hits) triplets
constexpr size_t kStatsDecode = kStatsScalars;
constexpr size_t kStatsL4 = kStatsDecode + kDecodeErrorCount;
constexpr size_t kStatsDscp = kStatsL4 + 512;
constexpr size_t kStatsBcast = kStatsDscp + 128;
constexpr size_t kStatsSize = kStatsBcast + 1 + 3 * BcastDomains::kMax;
}  // namespace

size_t stats_size() { return kStatsSize; }

namespace {

enum StatSlot : size_t {
#define FG_SLOT(name, v) kSlot_##name,
  FG_STATS_SCALARS(FG_SLOT)
#undef FG_SLOT
};

void fill_one(const Engine& e, const Pipeline& pl, double* out) {
  const IfaceStats& s = pl.stats();
  size_t i = 0;
#define FG_FILL(name, v) out[i++] = double(v);
  FG_STATS_SCALARS(FG_FILL)
#undef FG_FILL
  for (size_t k = 0; k < kDecodeErrorCount; k++) out[kStatsDecode + k] = double(s.decode.errors[k]);
  for (int p = 0; p < 256; p++) out[kStatsL4 + p] = double(s.l4_packets[p]), out[kStatsL4 + 256 + p] = double(s.l4_bytes[p]);
  for (int d = 0; d < 64; d++) out[kStatsDscp + d] = double(s.dscp_packets[d]), out[kStatsDscp + 64 + d] = double(s.dscp_bytes[d]);
  const BcastDomains& bd = pl.bcast_domains();
  out[kStatsBcast] = bd.size();
  for (int k = 0; k < bd.size(); k++) {
    out[kStatsBcast + 1 + 3 * k] = bd[k].net;
    out[kStatsBcast + 2 + 3 * k] = bd[k].cidr;
    out[kStatsBcast + 3 + 3 * k] = double(bd[k].hits);
  }
}

// Hosts and devices over shards, each counted once (in the first shard that
// holds a part of it); a host is receive-only when no part of it sent.
Engine::Distinct count_distinct(const Views& v) {
  Engine::Distinct d{};
  for (size_t s = 0; s < v.size(); s++) {
    const HostTable& ht = v[s]->hosts();
    for (uint32_t i = 0; i < ht.span(); i++) {
      if (!ht.used(i)) continue;
      const Host& h = ht[i];
      bool first = true, sent = h.pkts(0) != 0;
      for (size_t t = 0; t < v.size(); t++) {
        if (t == s) continue;
        const uint32_t j = v[t]->hosts().find(h.key, h.hash);
        if (j == HashIndex::kNone) continue;
        if (t < s) {
          first = false;
          break;
        }
        sent |= v[t]->hosts()[j].pkts(0) != 0;
      }
      if (!first) continue;
      const bool local = h.flags & kHostLocal;
      d.hosts++, d.local += local;
      if (!sent && !(h.flags & (kHostBroadcast | kHostMulticast))) d.rx_only++, d.local_rx_only += local;
    }
    const EntryPool<Mac>& mt = v[s]->mac_table();
    for (uint32_t i = 0; i < mt.span(); i++) {
      if (!mt.used(i)) continue;
      bool first = true;
      for (size_t t = 0; t < s && first; t++) first = v[t]->find_mac(mt[i].addr) == nullptr;
      d.devices += first;
    }
  }
  return d;
}

}  // namespace

// One worker: its counters. Several: counters summed, times at their ends,
// hosts and devices counted once, broadcast domains from worker 0 (which
// counts every ARP frame; the others only learn the domains).
void stats_fill(const Engine& e, const Views& v, double* out) {
  if (v.size() == 1) return fill_one(e, *v[0], out);
  std::vector<double> part(kStatsSize);
  std::fill(out, out + kStatsSize, 0.0);
  double first = 0, last = 0, now = 0;
  uint64_t key = 0;
  for (size_t s = 0; s < v.size(); s++) {
    std::fill(part.begin(), part.end(), 0.0);
    fill_one(e, *v[s], part.data());
    for (size_t k = 0; k < kStatsBcast; k++) out[k] += part[k];
    if (s == 0) std::copy(part.begin() + kStatsBcast, part.end(), out + kStatsBcast);
    if (part[kSlot_first_seen_ns] && (!first || part[kSlot_first_seen_ns] < first)) first = part[kSlot_first_seen_ns];
    last = std::max(last, part[kSlot_last_seen_ns]), now = std::max(now, part[kSlot_now_ns]);
    const IfaceStats& st = v[s]->stats();
    for (uint64_t x : {st.hosts_created, st.hosts_expired, st.rx_only_hosts, st.macs_created}) key = mix64(key + x);
  }
  out[kSlot_first_seen_ns] = first, out[kSlot_last_seen_ns] = last, out[kSlot_now_ns] = now;
  // the engine's own figures, once
  out[kSlot_drops] = double(e.kernel_drops());
  out[kSlot_read_only_packets] = double(e.read_only_packets()), out[kSlot_read_only_bytes] = double(e.read_only_bytes());
  out[kSlot_ticks] = double(e.ticks()), out[kSlot_ticks_late] = double(e.ticks_late());
  out[kSlot_max_flows] = e.max_flows(), out[kSlot_max_hosts] = e.max_hosts(), out[kSlot_max_macs] = v[0]->max_macs();
  // Distinct counts walk every shard's hosts: kept while no shard created,
  // expired or un-received a host (then they cannot have changed), and
  // while capture runs at most every 250 ms.
  Engine::Distinct& d = e.distinct_cache();
  const uint64_t t = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  const bool running = e.state() == EngineState::Running;
  if (key != d.key && (!running || t - d.at_ns >= 250000000ULL)) {
    const uint64_t at = t;
    d = count_distinct(v);
    d.key = key, d.at_ns = at;
  }
  out[kSlot_num_hosts] = double(d.hosts), out[kSlot_num_local_hosts] = double(d.local);
  out[kSlot_num_rcvd_only_hosts] = double(d.rx_only), out[kSlot_num_local_rcvd_only_hosts] = double(d.local_rx_only);
  out[kSlot_num_devices] = double(d.devices);
}

void stats_fill_memory(const Views& v, double* out, MemoryFigures& c) {
  const uint64_t t = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  if (!c.valid || t - c.at_ns >= 1000000000ULL) {
    c = MemoryFigures{};
    for (const Pipeline* pl : v) {
      c.all += double(pl->memory_bytes());
      c.flows += double(pl->flow_memory_bytes(Mem::Resident)), c.flows_reserved += double(pl->flow_memory_bytes(Mem::Reserved));
      c.hosts += double(pl->host_memory_bytes(Mem::Resident)), c.hosts_reserved += double(pl->host_memory_bytes(Mem::Reserved));
    }
    c.at_ns = t, c.valid = true;
  }
  out[kSlot_memory_bytes] = c.all;
  out[kSlot_flow_memory_bytes] = c.flows, out[kSlot_flow_reserved_bytes] = c.flows_reserved;
  out[kSlot_host_memory_bytes] = c.hosts, out[kSlot_host_reserved_bytes] = c.hosts_reserved;
}

Napi::Object stats_layout(Napi::Env env) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array names = Napi::Array::New(env, kStatsScalars);
  uint32_t i = 0;
#define FG_NAME(name, v) names.Set(i++, #name);
  FG_STATS_SCALARS(FG_NAME)
#undef FG_NAME
  o.Set("scalars", names);
  o.Set("decode", double(kStatsDecode));
  o.Set("l4", double(kStatsL4));
  o.Set("dscp", double(kStatsDscp));
  o.Set("bcast", double(kStatsBcast));
  o.Set("size", double(kStatsSize));
  return o;
}

Napi::Object l7_stats_to_js(Napi::Env env, const Views& v) {
  // one shard: its arrays as they are; several: summed by id (a flow, so
  // its counters, lives in one shard; the arrays may differ in length)
  std::vector<IfaceL7Counter> sum_apps, sum_cats;
  auto read = [&](auto get, std::vector<IfaceL7Counter>& sum, uint32_t& n) -> const IfaceL7Counter* {
    if (v.size() == 1) return get(*v.front(), n);
    for (const Pipeline* pl : v) {
      uint32_t m = 0;
      const IfaceL7Counter* c = get(*pl, m);
      if (m > sum.size()) sum.resize(m, IfaceL7Counter{});
      for (uint32_t i = 0; i < m; i++) sum[i].bytes += c[i].bytes, sum[i].packets += c[i].packets, sum[i].flows += c[i].flows;
    }
    n = uint32_t(sum.size());
    return sum.data();
  };
  Napi::Object o = Napi::Object::New(env);
  uint32_t n = 0;
  const IfaceL7Counter* a = read([](const Pipeline& pl, uint32_t& k) { return pl.iface_apps(k); }, sum_apps, n);
  Napi::Array apps = Napi::Array::New(env);
  for (uint32_t i = 0, k = 0; i < n; i++) {
    if (!a[i].packets) continue;
    Napi::Object x = Napi::Object::New(env);
    x.Set("id", double(i));
    x.Set("bytes", double(a[i].bytes));
    x.Set("packets", double(a[i].packets));
    x.Set("num_flows", double(a[i].flows));
    apps.Set(k++, x);
  }
  const IfaceL7Counter* c = read([](const Pipeline& pl, uint32_t& k) { return pl.iface_cats(k); }, sum_cats, n);
  Napi::Array cats = Napi::Array::New(env);
  for (uint32_t i = 0, k = 0; i < n; i++) {
    if (!c[i].packets) continue;
    Napi::Object x = Napi::Object::New(env);
    x.Set("id", double(i));
    x.Set("bytes", double(c[i].bytes));
    x.Set("packets", double(c[i].packets));
    cats.Set(k++, x);
  }
  o.Set("apps", apps);
  o.Set("categories", cats);
  return o;
}

Napi::Object dpi_registry(Napi::Env env) {
  Napi::Object o = Napi::Object::New(env);
  // nDPI's protocols, then the operator's (user_rules.h), with the
  // categories the operator gave
  const std::shared_ptr<const UserRules> u = user_rules_shared();
  const size_t n_custom = u ? u->protos.size() : 0;
  Napi::Array protos = Napi::Array::New(env, proto_count() + n_custom);
  for (size_t i = 0; i < proto_count() + n_custom; i++) {
    const ProtoInfo& p = i < proto_count() ? proto_at(i) : u->protos[i - proto_count()]->info;
    Napi::Object x = Napi::Object::New(env);
    x.Set("id", double(p.id));
    x.Set("name", p.name);
    x.Set("is_app", p.is_app);
    x.Set("breed", breed_name(p.breed));
    x.Set("category", double(u ? u->category_of(p.id, p.category) : p.category));
    x.Set("custom", i >= proto_count());
    x.Set("udp_ports", p.udp_ports);
    x.Set("tcp_ports", p.tcp_ports);
    protos.Set(uint32_t(i), x);
  }
  Napi::Array cats = Napi::Array::New(env, category_count());
  for (size_t i = 0; i < category_count(); i++) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("id", double(category_at(i)));
    x.Set("name", category_name(category_at(i)));
    cats.Set(uint32_t(i), x);
  }
  Napi::Array conf = Napi::Array::New(env);
  for (uint8_t c = 0; c <= kConfidenceLast; c++) conf.Set(uint32_t(c), confidence_name(Confidence(c)));
  o.Set("protocols", protos);
  o.Set("categories", cats);
  o.Set("confidence", conf);
  Napi::Array risks = Napi::Array::New(env, kRiskMax);
  for (uint8_t i = 0; i < kRiskMax; i++) risks.Set(uint32_t(i), risk_name(i));
  o.Set("risks", risks);
  return o;
}

Napi::Object expired_layout(Napi::Env env) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("size", double(sizeof(ExpiredFlow)));
  Napi::Object f = Napi::Object::New(env);
  auto field = [&](const char* name, size_t off, const char* type) {
    Napi::Array a = Napi::Array::New(env, 2);
    a.Set(0u, double(off));
    a.Set(1u, type);
    f.Set(name, a);
  };
#define FG_F(m, t) field(#m, offsetof(ExpiredFlow, m), t)
  FG_F(cli_ip, "ip16"); FG_F(srv_ip, "ip16");
  FG_F(first_ns, "u64"); FG_F(last_ns, "u64");
  FG_F(cli2srv_bytes, "u64"); FG_F(srv2cli_bytes, "u64");
  FG_F(cli2srv_pkts, "u32"); FG_F(srv2cli_pkts, "u32");
  FG_F(serial, "u32"); FG_F(retr, "u32"); FG_F(ooo, "u32"); FG_F(lost, "u32");
  FG_F(cli_port, "u16"); FG_F(srv_port, "u16"); FG_F(vlan, "u16");
  FG_F(l7_master, "u16"); FG_F(l7_app, "u16"); FG_F(l7_category, "u16");
  FG_F(proto, "u8"); FG_F(ip_version, "u8"); FG_F(cli_flags, "u8"); FG_F(srv_flags, "u8");
  FG_F(tunnel, "u8"); FG_F(reason, "u8"); FG_F(dscp_cli, "u8"); FG_F(dscp_srv, "u8");
  FG_F(ttl_cli, "u8"); FG_F(ttl_srv, "u8"); FG_F(confidence, "u8");
  FG_F(risks, "u64"); FG_F(kind, "u8"); FG_F(cli_location, "u8"); FG_F(srv_location, "u8");
  FG_F(icmp_type, "u8"); FG_F(icmp_code, "u8"); FG_F(tcp_state, "u8"); FG_F(cli_pool, "u8"); FG_F(srv_pool, "u8"); FG_F(blacklisted, "u8"); FG_F(devtypes, "u8"); FG_F(goodput_pct, "u8");
  FG_F(cli_mac, "mac"); FG_F(srv_mac, "mac");
  FG_F(info, "str"); FG_F(cli_name, "str"); FG_F(srv_name, "str");
  FG_F(cli_nw_latency_us, "u32"); FG_F(srv_nw_latency_us, "u32");
#undef FG_F
  o.Set("fields", f);
  return o;
}

}  // namespace fg
