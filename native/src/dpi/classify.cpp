#include "dpi/classify.h"

#include <cstring>

namespace fg {
namespace {

struct Registry {
  Dissector list[kMaxDissectors];
  size_t n = 0;
};
Registry& registry() {
  static Registry r;
  return r;
}

uint16_t category_of(uint16_t master, uint16_t app) {
  // nDPI reports the application's category when there is one.
  const ProtoInfo* a = proto_info(app);
  if (a && a->category) return a->category;
  const ProtoInfo* m = proto_info(master);
  return m ? m->category : 0;
}

}  // namespace

bool register_dissector(const Dissector& d) {
  Registry& r = registry();
  if (r.n == kMaxDissectors) return false;
  r.list[r.n++] = d;
  return true;
}

void DpiCtx::set_host(const char* s, size_t n) const {
  if (!info) return;
  if (n >= sizeof(info->host)) n = sizeof(info->host) - 1;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    info->host[i] = (ch >= 'A' && ch <= 'Z') ? char(ch + 32) : ch;
  }
  info->host[n] = 0;
  info->host_len = uint8_t(n);
}

void DpiCtx::match_named(Match& m, uint16_t proto, const char* name, size_t len) const {
  uint16_t app = 0;
  if (len) {
    set_host(name, len);
    app = app_by_host(name, len);
  }
  m.master = app ? proto : 0;
  m.app = app ? app : proto;
}

// Flow::info is the pool entry + 1, so a zeroed flow has none.
Classifier::Classifier(uint32_t max_flows) : pool_(max_flows / 16 * 7 + 16) {}

FlowInfo* Classifier::ensure_info(Flow& f) noexcept {
  if (f.info) return &pool_[f.info - 1];
  uint32_t i = pool_.alloc();
  if (i == HashIndex::kNone) {
    info_full_++;
    return nullptr;
  }
  FlowInfo& fi = pool_[i];
  std::memset(&fi, 0, sizeof(fi));
  f.info = i + 1;
  return &fi;
}

void Classifier::release(Flow& f) noexcept {
  if (f.info) pool_.release(f.info - 1);
  f.info = 0;
}

void Classifier::set(Flow& f, uint16_t master, uint16_t app, Confidence c) noexcept {
  // nDPI names a lone application in `app` with no master (TLS, DNS …).
  if (master == app) master = 0;
  // Accounting counts the flow again under a new application (ntopng does too).
  if ((app ? app : master) != (f.l7_app ? f.l7_app : f.l7_master)) f.acct_counted = 0;
  f.l7_master = master;
  f.l7_app = app;
  f.l7_category = category_of(master, app);
  if (FlowInfo* fi = f.info ? &pool_[f.info - 1] : nullptr) fi->confidence = uint8_t(c);
}

void Classifier::start(Flow& f) noexcept {
  f.dpi_state = kDpiInspecting;
  uint16_t by_ip = 0;
  switch (f.key.proto) {
    case kProtoIcmp: by_ip = id(ProtoId::ICMP); break;
    case kProtoIcmpv6: by_ip = id(ProtoId::ICMPV6); break;
    case kProtoIgmp: by_ip = id(ProtoId::IGMP); break;
    case kProtoEsp:
    case 51: by_ip = id(ProtoId::IPSec); break;  // ESP, AH
    case kProtoGre: by_ip = id(ProtoId::GRE); break;
    case 89: by_ip = id(ProtoId::OSPF); break;
    case 112: by_ip = id(ProtoId::VRRP); break;
    case 132: by_ip = id(ProtoId::SCTP); break;
    case 8: by_ip = id(ProtoId::EGP); break;
    case 103: by_ip = id(ProtoId::IP_PIM); break;
    case kProtoIpip:
    case kProtoIpv6: by_ip = id(ProtoId::IP_in_IP); break;
    default: break;
  }
  if (by_ip) {
    set(f, 0, by_ip, Confidence::Dpi);
    f.dpi_state = kDpiDone;
  }
}

void Classifier::inspect(Flow& f, const Packet& p, bool from_client) noexcept {
  if (f.dpi_state != kDpiInspecting) return;
  if (!p.has_l4 || p.payload_len == 0) return;
  FlowInfo* fi = ensure_info(f);
  uint64_t excluded[2] = {fi ? fi->excluded[0] : 0, fi ? fi->excluded[1] : 0};
  auto exclude = [&](size_t i) { excluded[i >> 6] |= uint64_t(1) << (i & 63); };
  auto save = [&] {
    if (fi) fi->excluded[0] = excluded[0], fi->excluded[1] = excluded[1];
  };
  const uint8_t l4 = p.l4_proto == kProtoTcp ? kL4Tcp : kL4Udp;
  const uint16_t cli_port = from_client ? p.sport : p.dport, srv_port = from_client ? p.dport : p.sport;
  DpiCtx ctx{p, Bytes(p.payload, p.payload_len), from_client, f, fi, cli_port, srv_port};
  const Registry& r = registry();
  bool any_left = false;
  for (size_t i = 0; i < r.n; i++) {
    const Dissector& d = r.list[i];
    if (!(d.l4 & l4) || (excluded[i >> 6] >> (i & 63) & 1)) continue;
    if (f.dpi_packets > d.max_packets) {
      exclude(i);
      continue;
    }
    Match m;
    Verdict v = d.fn(ctx, m);
    if (v == Verdict::Match) {
      save();
      set(f, m.master, m.app ? m.app : d.id, Confidence::Dpi);
      f.dpi_state = kDpiDone;
      return;
    }
    if (v == Verdict::No) exclude(i);
    else any_left = true;
  }
  save();
  if (!any_left || f.dpi_packets >= kMaxDpiPackets) give_up(f);
}

void Classifier::give_up(Flow& f) noexcept {
  if (f.dpi_state != kDpiInspecting) return;
  f.dpi_state = kDpiGaveUp;
  const uint16_t cli_port = f.cli_is_hi ? f.key.port_hi : f.key.port_lo;
  const uint16_t srv_port = f.cli_is_hi ? f.key.port_lo : f.key.port_hi;
  if (uint16_t guess = guess_by_port(f.key.proto, cli_port, srv_port)) {
    ensure_info(f);
    set(f, 0, guess, Confidence::MatchByPort);
    return;
  }
  // nDPI's guess by address (its per-application IP lists), server first,
  // after the port guess as nDPI does by default: "Match by IP".
  const IpAddr& srv = f.cli_is_hi ? f.key.lo : f.key.hi;
  const IpAddr& cli = f.cli_is_hi ? f.key.hi : f.key.lo;
  uint16_t by_ip = app_by_ip(srv);
  if (!by_ip) by_ip = app_by_ip(cli);
  if (by_ip) {
    ensure_info(f);
    set(f, 0, by_ip, Confidence::MatchByIp);
    return;
  }
  if (lookup_.fn) {
    size_t len = 0;
    const char* name = lookup_.fn(lookup_.ctx, f.cli_is_hi ? f.key.lo : f.key.hi, f.key.vlan, len);
    if (uint16_t app = name ? app_by_host(name, len) : 0) {
      ensure_info(f);
      set(f, 0, app, Confidence::DpiCache);
    }
  }
}

}  // namespace fg
