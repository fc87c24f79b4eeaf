#include "dpi/classify.h"

#include "dpi/dga.h"
#include "dpi/ndpi_direction.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"
#include "dpi/protocols/ssh.h"
#include "dpi/url_risk.h"
#include "dpi/user_rules.h"
#include "flow/local_nets.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

namespace fg {

static Risk program_risk(Bytes b);
namespace {

constexpr size_t kIdSpace = 1024;  // above nDPI's highest protocol id

struct Registry {
  Dissector list[kMaxDissectors];
  size_t n = 0;
  // Per L4 (kL4Tcp, kL4Udp), the dissectors that run on it in list order;
  // a flow's exclusion bits are positions in its L4's list, so a packet
  // visits only its candidates, not every dissector.
  uint8_t on_l4[3][kMaxPerL4] = {};
  size_t count[3] = {};
  uint64_t slots[3][kMaxPerL4 / 64] = {};  // positions in use
  // Per L4, the position of the first dissector of each protocol id + 1 (0:
  // none): nDPI asks the dissector of the port's guessed protocol first.
  uint8_t by_id[3][kIdSpace] = {};
};
Registry& registry() {
  static Registry r;
  return r;
}

uint16_t category_of(uint16_t master, uint16_t app) {
  const UserRules* u = user_rules();
  // a protocol's category: the one the operator gave it, else nDPI's
  auto cat = [u](uint16_t id) -> uint16_t {
    const ProtoInfo* p = proto_info(id);
    const uint16_t c = p ? p->category : 0;
    return u ? u->category_of(id, c) : c;
  };
  // nDPI (ndpi_get_proto_category): mail and DNS carry their own category
  // whatever the application (DNS.Google is Network) ...
  for (ProtoId p : {ProtoId::POP3, ProtoId::SMTP, ProtoId::IMAP, ProtoId::POPS, ProtoId::SMTPS, ProtoId::IMAPS, ProtoId::DNS})
    if (master == id(p)) return cat(master);
  // ... otherwise the application's category when it has one.
  if (const uint16_t a = app ? cat(app) : 0) return a;
  return master ? cat(master) : 0;
}

// nDPI's custom categories (ndpi_fill_ip_protocol_category, then
// ndpi_fill_protocol_category): a category the operator gave the flow's
// client or server address, else its name (SNI, Host, DNS query), replaces
// the protocol's. 0 when none applies, else category + 1.
uint16_t custom_category(const Flow& f, const FlowInfo* fi, const UserRules& u) {
  const DpiSides s = dpi_sides(f);
  const IpAddr &cli = s.cli, &srv = s.srv;
  if (!u.cat_ips.empty())
    if (uint16_t c = u.category_by_ip(cli) ? u.category_by_ip(cli) : u.category_by_ip(srv)) return c;
  if (fi && fi->host[0] && !u.cat_hosts.empty()) return u.category_by_name(std::string_view(fi->host, strnlen(fi->host, sizeof(fi->host))));
  return 0;
}

// nDPI's sub-protocol lists (ndpi_set_proto_subprotocols) that name
// dissectors, in its order; empty for every other protocol. (DCERPC's one,
// PROFINET_IO, is read by dcerpc.cpp on the packet it matches.)
std::span<const uint16_t> sub_protocols(uint16_t parent) {
  static constexpr uint16_t kHttp[] = {
      id(ProtoId::Crossfire), id(ProtoId::SOAP),  id(ProtoId::BitTorrent), id(ProtoId::Gnutella), id(ProtoId::MapleStory),
      id(ProtoId::Zattoo),    id(ProtoId::WorldOfWarcraft), id(ProtoId::IRC), id(ProtoId::IPP), id(ProtoId::MpegDash),
      id(ProtoId::RTSP),      id(ProtoId::Thrift), id(ProtoId::JSON_RPC), id(ProtoId::HL7)};
  if (parent == id(ProtoId::HTTP)) return kHttp;
  return {};
}

}  // namespace

bool register_dissector(const Dissector& d) {
  Registry& r = registry();
  // Full lists are a build mistake: fail at load, not by a silently missing dissector.
  bool full = r.n == kMaxDissectors;
  for (uint8_t l4 : {kL4Tcp, kL4Udp})
    if ((d.l4 & l4) && r.count[l4] == kMaxPerL4) full = true;
  if (full) {
    std::fprintf(stderr, "flowgate: no room for dissector %s (raise kMaxDissectors / kMaxPerL4)\n", d.name);
    std::abort();
  }
  for (uint8_t l4 : {kL4Tcp, kL4Udp}) {
    if (!(d.l4 & l4)) continue;
    const size_t at = r.count[l4]++;
    r.on_l4[l4][at] = uint8_t(r.n);
    r.slots[l4][at >> 6] |= uint64_t(1) << (at & 63);
    if (d.id < kIdSpace && !r.by_id[l4][d.id]) r.by_id[l4][d.id] = uint8_t(at + 1);
  }
  r.list[r.n++] = d;
  return true;
}

namespace {

// NDPI_ENTROPY_PLAINTEXT's bound: below it a payload counts as plain text
constexpr float kPayloadEntropyPlain = 4.941f;

// Whether nDPI's ndpi_entropy of the bytes (Shannon, bits per byte, summed
// in float by byte value) reaches its plain-text bound. The same sum, with
// each count's term computed once (the terms are the same floats, added in
// the same order: the same result to the bit), and skipped where bounds
// decide: at most 30 byte values cannot reach it (log2 30 = 4.907), and the
// collision entropy, never above Shannon's, may pass it alone; the margins
// dwarf float rounding.
bool payload_entropy_high(const uint8_t* b, size_t n) {
  if (n == 0) return false;
  uint16_t counts[256] = {};  // a payload is under 64 KiB
  for (size_t i = 0; i < n; i++) counts[b[i]]++;
  unsigned distinct = 0;
  uint64_t squares = 0;
  for (uint32_t c : counts) distinct += c != 0, squares += uint64_t(c) * c;
  if (distinct <= 30) return false;
  if (-std::log2(double(squares) / (double(n) * double(n))) >= double(kPayloadEntropyPlain) + 1e-3) return true;
  float memo[64];
  uint64_t have = 0;  // memo[c] holds count c's term
  float e = 0.0f;
  for (uint32_t c : counts) {
    if (!c) continue;
    float term;
    if (c < 64 && (have >> c & 1)) {
      term = memo[c];
    } else {
      const float q = float(c) / float(n);
      term = q * log2f(1 / q);
      if (c < 64) memo[c] = term, have |= uint64_t(1) << c;
    }
    e += term;
  }
  return e >= kPayloadEntropyPlain;
}

}  // namespace

void DpiCtx::set_host(const char* s, size_t n) const {
  if (!info) return;
  if (n >= sizeof(info->host)) n = sizeof(info->host) - 1;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    info->host[i] = (ch >= 'A' && ch <= 'Z') ? char(ch + 32) : ch;
  }
  info->host[n] = 0;

}

void DpiCtx::body_entropy(Bytes body) const {
  // held in the risk's bit until the end of the packet (Classifier::after_dissection)
  if (!extra && info) clf->set_risk(clf->entry_of(info), Risk::SuspEntropy, payload_entropy_high(body.data(), body.size()));
}

void DpiCtx::risk(Risk r) const {
  if (info) clf->set_risk(clf->entry_of(info), r, true);
}
void DpiCtx::unrisk(Risk r) const {
  if (info) clf->set_risk(clf->entry_of(info), r, false);
}
bool DpiCtx::has_risk(Risk r) const { return info && clf->has_risk(clf->entry_of(info), r); }

FlowMeta* DpiCtx::meta(MetaKind k) const { return info ? clf->ensure_meta(flow, info, k) : nullptr; }
void DpiCtx::set_meta_str(MetaStr& ref, size_t cap, const char* s, size_t n) const { clf->set_meta_str(ref, cap, s, n); }
void DpiCtx::set_alpn(MetaStr& ref, Bytes s) const { clf->set_alpn(ref, reinterpret_cast<const char*>(s.data()), s.size()); }

bool DpiCtx::match_named(Match& m, uint16_t proto, const char* name, size_t len) const {
  uint16_t app = 0;
  bool dga = false;
  if (len) {
    set_host(name, len);
    app = app_by_host(name, len);
    // nDPI judges only names that no application claims.
    if (!app && dga_suspicious(name, len)) risk(Risk::SuspDgaDomain), dga = true;
  }
  m.master = app ? proto : 0;
  m.app = app ? app : proto;
  return dga;
}

Verdict read_on_for_login(DpiCtx& c, const char* starts_tls) {
  if (!c.from_client) return Verdict::NeedMore;
  if (user_or_pass(c.payload)) {
    c.risk(Risk::ClearTextCredentials);
    return Verdict::No;
  }
  return command_at(c.payload, 0, starts_tls) ? Verdict::No : Verdict::NeedMore;
}

// Flow::info is the pool entry + 1, so a zeroed flow has none.
// The pools are shares of the flow table (PipelineLimits: by default all of
// it, the pages touched as entries are used); a full pool refuses and counts.
Classifier::Classifier(uint32_t max_flows, double info_share, double meta_share)
    : pool_(pool_size(max_flows, info_share)),
      done_(pool_.max()),
      names_(pool_.max()),
      risks2_(zero_array<uint32_t>(pool_.max())),
      meta_(std::min(pool_size(max_flows, meta_share), kMaxMeta)),
      tls_(std::min(pool_size(max_flows, meta_share), kMaxMeta)),
      certs_(std::min(pool_size(max_flows, meta_share), kMaxMeta)),
      strs_(strs_for(meta_.max(), 3)),
      alpns_(strs_for(tls_.max(), 2)) {
  // The address, name and port tables are built on first use: here, with
  // the engine, rather than as a stall of tens of milliseconds on the
  // first packets.
  app_by_ip(IpAddr{});
  risk_by_ip(IpAddr{});
  app_by_host("localhost", 9);
  guess_by_port(kProtoTcp, 0, 0);
  Risk r;
  url_risk("/?a=b", 5, r);  // compiles the URL injection patterns (≈ 12 ms) now
}

void Classifier::grow(uint32_t max_flows, double info_share, double meta_share) {
  const uint32_t info = pool_size(max_flows, info_share), meta = std::min(pool_size(max_flows, meta_share), kMaxMeta);
  if (info > pool_.max()) {
    ZeroArray<uint32_t> r = zero_array<uint32_t>(info);
    std::memcpy(r.get(), risks2_.get(), size_t(pool_.span()) * sizeof(uint32_t));
    pool_.grow(info);
    risks2_ = std::move(r);
    done_.grow(info), names_.grow(info);
  }
  meta_.grow(meta), tls_.grow(meta), certs_.grow(meta), strs_.grow(strs_for(meta_.max(), 3)), alpns_.grow(strs_for(tls_.max(), 2));
}

template <class Pool>
void Classifier::set_str(Pool& p, MetaStr& ref, size_t cap, const char* s, size_t n) noexcept {
  drop_str(p, ref);
  n = strnlen(s, n < cap ? n : cap - 1);  // as copy_str keeps it, read as a C string
  if (!n) return;
  const uint32_t i = p.intern(s, n, str_hash(s, n));
  if (i == HashIndex::kNone) return void(meta_full_++);
  ref = i + 1;
}
void Classifier::set_meta_str(MetaStr& ref, size_t cap, const char* s, size_t n) noexcept { set_str(strs_, ref, cap, s, n); }
void Classifier::set_alpn(MetaStr& ref, const char* s, size_t n) noexcept { set_str(alpns_, ref, kAlpnCap, s, n); }

void Classifier::meta_text(const FlowMeta& m, MetaText& out) const noexcept {
  if (m.kind == MetaKind::Tls) {
    copy_cstr(out.tls.alpn_client, sizeof(out.tls.alpn_client), alpn(m.tls.alpn_client));
    copy_cstr(out.tls.alpn_server, sizeof(out.tls.alpn_server), alpn(m.tls.alpn_server));
  } else if (m.kind == MetaKind::Http) {
    copy_cstr(out.http.user_agent, sizeof(out.http.user_agent), meta_str(m.http.user_agent));
    copy_cstr(out.http.content_type, sizeof(out.http.content_type), meta_str(m.http.content_type));
    copy_cstr(out.http.server, sizeof(out.http.server), meta_str(m.http.server));
  } else if (m.kind == MetaKind::Ssh) {
    copy_cstr(out.ssh.banner_c, sizeof(out.ssh.banner_c), meta_str(m.ssh.banner_c));
    copy_cstr(out.ssh.banner_s, sizeof(out.ssh.banner_s), meta_str(m.ssh.banner_s));
  }
}

FlowMeta* Classifier::ensure_meta(Flow& f, FlowInfo* fi, MetaKind k) noexcept {
  (void)f;
  if (!fi) return nullptr;
  const bool tls = k == MetaKind::Tls;
  if (uint32_t m = fi->meta_index()) {
    if (fi->kind != uint8_t(k)) return nullptr;
    return tls ? reinterpret_cast<FlowMeta*>(&tls_[m - 1]) : &meta_[m - 1];
  }
  // Another kind, or this kind refused once already (counted once per flow).
  if (fi->kind != uint8_t(MetaKind::None)) return nullptr;
  uint32_t i = tls ? tls_.alloc() : meta_.alloc();
  fi->kind = uint8_t(k);
  if (i == HashIndex::kNone) {
    meta_full_++;
    return nullptr;
  }
  FlowMeta* e = tls ? reinterpret_cast<FlowMeta*>(&tls_[i]) : &meta_[i];
  std::memset(static_cast<void*>(e), 0, tls ? kTlsMetaBytes : sizeof(FlowMeta));
  e->kind = k;
  fi->set_meta_index(i + 1);
  return e;
}

void Classifier::keep_cert(FlowMeta& m, const TlsCert& c) noexcept {
  if (!m.cert) {
    const uint32_t i = certs_.alloc();
    if (i == HashIndex::kNone) return void(meta_full_++);
    m.cert = i + 1;
  }
  certs_[m.cert - 1] = c;
}

FlowInfo* Classifier::ensure_info(Flow& f) noexcept {
  if (f.info) return live(f);
  uint32_t i = pool_.alloc();
  if (i == HashIndex::kNone) {
    info_full_++;
    return nullptr;
  }
  FlowInfo& fi = pool_[i];
  std::memset(&fi, 0, sizeof(fi));
  risks2_[i] = 0;
  f.info = i + 1;
  return &fi;
}

void Classifier::release(Flow& f) noexcept {
  if (f.info) {
    const uint32_t m = meta_index_of(f);
    if (m) {
      if (meta_kind(f) == MetaKind::Tls) {
        FlowMeta& e = *reinterpret_cast<FlowMeta*>(&tls_[m - 1]);
        if (e.cert) certs_.release(e.cert - 1);
        drop_str(alpns_, e.tls.alpn_client), drop_str(alpns_, e.tls.alpn_server);
        tls_.release(m - 1);
      } else {
        FlowMeta& e = meta_[m - 1];
        if (e.kind == MetaKind::Http) drop_str(strs_, e.http.user_agent), drop_str(strs_, e.http.content_type), drop_str(strs_, e.http.server);
        else if (e.kind == MetaKind::Ssh) drop_str(strs_, e.ssh.banner_c), drop_str(strs_, e.ssh.banner_s);
        meta_.release(m - 1);
      }
    }
    if (f.info & kSettled) {
      const uint32_t i = (f.info & ~kSettled) - 1;
      drop_str(names_, done_[i].host);
      done_.release(i);
    } else {
      pool_.release(f.info - 1);
    }
  }
  f.info = 0;
}

void Classifier::settle(Flow& f) noexcept {
  if (!f.info || (f.info & kSettled)) return;
  const uint32_t e = f.info - 1;
  const FlowInfo& fi = pool_[e];
  const uint32_t i = done_.alloc();
  if (i == HashIndex::kNone) return;
  FlowResult& r = done_[i];
  r = FlowResult{};
  if (fi.host[0]) {
    const size_t n = strnlen(fi.host, sizeof(fi.host));
    const uint32_t h = names_.intern(fi.host, n, str_hash(fi.host, n));
    if (h == HashIndex::kNone) return done_.release(i);
    r.host = h + 1;
  }
  r.results_from(fi, risks2_[e]);
  r.ssh_unanswered = ssh_unanswered(fi);
  pool_.release(e);
  f.info = kSettled | (i + 1);
}

bool Classifier::ssh_unanswered_of(const Flow& f) const noexcept {
  if (const FlowResult* r = result(f)) return r->ssh_unanswered;
  return ssh_unanswered(*info(f));
}

// A settled flow asked for its FlowInfo again (a naming after the
// classifier was done with it): the result goes back into one.
FlowInfo* Classifier::unsettle(Flow& f) noexcept {
  const uint32_t e = pool_.alloc();
  if (e == HashIndex::kNone) return info_full_++, nullptr;
  const uint32_t i = (f.info & ~kSettled) - 1;
  FlowResult& r = done_[i];
  FlowInfo& fi = pool_[e];
  std::memset(&fi, 0, sizeof(fi));
  if (r.host) copy_cstr(fi.host, sizeof(fi.host), names_.name(r.host - 1));
  drop_str(names_, r.host);
  r.results_into(fi, risks2_[e]);
  done_.release(i);
  f.info = e + 1;
  return &fi;
}

namespace {

// nDPI's ndpi_reconcile_protocols, run whenever a flow is named (a
// dissector, the give-up): generic names refined by the application the
// flow's addresses belong to (server first, as ndpi_guess_host_protocol_id).
// Not kept: its MS Teams cache of other flows' endpoints.
void reconcile(const Flow& f, uint16_t& master, uint16_t& app, Confidence& c) {
  const uint16_t azure = id(ProtoId::Azure), google = id(ProtoId::Google), microsoft = id(ProtoId::Microsoft);
  if (app != azure && app != id(ProtoId::STUN) && app != id(ProtoId::TLS) && app != microsoft && app != google) return;
  // the addresses' application, looked up only where a branch asks for it
  auto by_ip = [&] { return app_by_flow_ip(f); };
  // Teams calls relayed on UDP 3478–3481 (ndpi_reconcile_msteams_udp): the confidence stays.
  auto teams_call_port = [&] {
    auto in = [](uint16_t p) { return p >= 3478 && p <= 3481; };
    return f.key.proto == kProtoUdp && (in(f.key.port_lo) || in(f.key.port_hi));
  };
  if (app == azure) {
    if (teams_call_port()) app = id(ProtoId::Skype_TeamsCall);
  } else if (app == id(ProtoId::STUN)) {
    if (master == 0 && teams_call_port() && by_ip() == azure) master = app, app = id(ProtoId::Skype_TeamsCall);
  } else if (app == id(ProtoId::TLS)) {
    if (master == 0 && by_ip() == id(ProtoId::Telegram)) master = app, app = id(ProtoId::Telegram), c = Confidence::DpiPartial;
  } else if (app == microsoft) {
    const uint16_t ms = by_ip();
    if (ms == id(ProtoId::Microsoft365) || ms == id(ProtoId::MS_OneDrive) || ms == id(ProtoId::Outlook) || ms == id(ProtoId::Skype_Teams))
      app = ms, c = Confidence::DpiPartial;
  } else if (by_ip() == id(ProtoId::GoogleCloud)) {  // app is Google
    app = id(ProtoId::GoogleCloud), c = Confidence::DpiPartial;
  }
}

// nDPI (ndpi_automa_match_string_subprotocol): a flow its host pattern names
// takes the pattern's own category (googlesyndication.com: Google, in
// Advertisement), except under mail and DNS, whose category is their own,
// and for an application the operator gave a category. The flow's name is
// looked up again (a name cut to FlowInfo::host's 39 characters is not).
uint16_t host_category(uint16_t master, uint16_t app, const FlowInfo& fi, uint16_t dflt) {
  for (ProtoId p : {ProtoId::POP3, ProtoId::SMTP, ProtoId::IMAP, ProtoId::POPS, ProtoId::SMTPS, ProtoId::IMAPS, ProtoId::DNS})
    if (master == id(p)) return dflt;
  const size_t n = strnlen(fi.host, sizeof(fi.host));
  if (n >= sizeof(fi.host) - 1) return dflt;
  if (const UserRules* u = user_rules(); u && u->category.count(app)) return dflt;
  uint16_t cat = 0;
  return app_by_host(fi.host, n, &cat) == app && cat ? uint16_t(cat - 1) : dflt;
}

}  // namespace

// Dissectors that set the flow's name only after naming it (see set()).
static bool name_after_naming(uint16_t p) {
  return p == id(ProtoId::HTTP) || p == id(ProtoId::HTTP_Connect) || p == id(ProtoId::HTTP_Proxy) || p == id(ProtoId::Munin) ||
         p == id(ProtoId::MGCP) || p == id(ProtoId::Whois_DAS) || p == id(ProtoId::DHCP);
}

void Classifier::set(Flow& f, uint16_t master, uint16_t app, Confidence c, bool name_after) noexcept {
  // nDPI names a lone application in `app` with no master (TLS, DNS …).
  if (master == app) master = 0;
  reconcile(f, master, app, c);
  const bool first = !f.l7_app && !f.l7_master;
  // Accounting counts the flow again under a new application (ntopng does too).
  if ((app ? app : master) != (f.l7_app ? f.l7_app : f.l7_master)) f.acct_counted = 0;
  f.l7_master = master;
  f.l7_app = app;
  f.l7_category = category_of(master, app);
  FlowInfo* fi = live(f);
  if (fi) fi->confidence = uint8_t(c);
  // ndpi_reconcile_protocols runs on every naming: an unsafe breed on either
  // name raises Unsafe Protocol for good (FTP_CONTROL turning FTPS keeps it)
  if (fi && (unsafe_breed(master) || unsafe_breed(app))) set_risk(entry_of(fi), Risk::UnsafeProtocol, true);
  // ... and evaluates the host risk exceptions (ndpi_handle_risk_exceptions)
  // once, when the flow has a risk by then and a name: the mask of the name
  // it had then stays; a flow named while it had none keeps what is raised
  // after. Some dissectors set the name only after naming the flow (http.c
  // on its first naming, munin.c, mgcp.c, whoisdas.c, dhcp.c; dns.c on a
  // response that came without its query: Match::name_after).
  if (fi && fi->host[0] && !(risks2_[entry_of(fi)] & kHostMaskChecked) && !name_after && !(first && name_after_naming(app ? app : master)) &&
      risky_at_naming(f)) {
    const uint64_t mk = builtin_host_risk_mask(std::string_view(fi->host, strnlen(fi->host, sizeof(fi->host))));
    risks2_[entry_of(fi)] |= uint32_t(mk == ~uint64_t(0) ? 1 : mk ? 2 : 3) << kHostMaskShift;
  }
  // (a pattern's application always sits over the dissector's protocol)
  if (fi && master && fi->host[0]) f.l7_category = host_category(master, app, *fi, f.l7_category);
  if (app == id(ProtoId::Ookla) && c == Confidence::Dpi) remember_ookla(f);
  if (const UserRules* u = user_rules())
    if (const uint16_t cat = custom_category(f, fi, *u)) f.l7_category = cat - 1;
}

void Classifier::start(Flow& f) noexcept {
  f.dpi_state = kDpiInspecting;
  if (const UserRules* u = user_rules()) {
    if (custom_rule(f, *u)) return settle(f);
    if (const uint16_t cat = custom_category(f, nullptr, *u)) f.l7_category = cat - 1;
  }
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
    case 113: by_ip = id(ProtoId::PGM); break;
    case kProtoIpip:
    case kProtoIpv6: by_ip = id(ProtoId::IP_in_IP); break;
    default: break;
  }
  if (by_ip) {
    set(f, 0, by_ip, Confidence::Dpi);
    f.dpi_state = kDpiDone;
  }
}

// nDPI's ndpi_do_guess for custom protocols, which have priority over
// everything else: a port rule of one (the flow is that protocol, no
// master), else an address rule of one on the server, then the client
// (master: the ports' guess). Rules naming nDPI's own protocols only add
// to its port and address lists (guess_by_port, app_by_ip).
bool Classifier::custom_rule(Flow& f, const UserRules& u) noexcept {
  const bool l4 = f.key.proto == kProtoTcp || f.key.proto == kProtoUdp;
  const DpiSides s = dpi_sides(f);
  const IpAddr &cli = s.cli, &srv = s.srv;
  const uint16_t cli_port = s.cport, srv_port = s.sport;
  uint16_t master = 0, app = l4 ? guess_by_port(f.key.proto, cli_port, srv_port) : 0;
  if (!u.proto(app)) {
    app = u.ip_rule(srv, l4 ? srv_port : 0);
    if (!u.proto(app)) app = u.ip_rule(cli, l4 ? cli_port : 0);
    if (!u.proto(app)) return false;
    if (l4) master = guess_by_port(f.key.proto, cli_port, srv_port);
  }
  ensure_info(f);
  set(f, master, app, Confidence::CustomRule);
  f.dpi_state = kDpiDone;
  return true;
}

// nDPI's ndpi_do_guess on a flow's first packet, when the port it guesses
// from is one only the operator's rules give (to one of nDPI's own
// protocols: tcp:81@HTTP): that packet goes no further (no dissector, no
// entropy) and dissection starts with the next; with an address of the
// flow in nDPI's lists, the flow is given up at once (guessed). True when
// the packet stops here.
bool Classifier::user_port_first(Flow& f) noexcept {
  if (f.key.proto != kProtoTcp && f.key.proto != kProtoUdp) return false;
  const DpiSides s = dpi_sides(f);
  bool user_only = false;
  if (!guess_by_port(f.key.proto, s.cport, s.sport, &user_only) || !user_only) return false;
  if (app_by_flow_ip(f)) give_up(f);
  return true;
}

void Classifier::extra(Flow& f, FlowInfo& fi, const Packet& p, bool from_client, bool retrans) noexcept {
  dpi_next_packet();
  const Registry& r = registry();
  if (f.pkts[0] + f.pkts[1] > dpi_window(f) || fi.extra >= r.n) {
    f.dpi_state = kDpiDone;
    return;
  }
  const uint16_t cli_port = from_client ? p.sport : p.dport, srv_port = from_client ? p.dport : p.sport;
  DpiCtx ctx{p, Bytes(p.payload, p.payload_len), from_client, f, &fi, cli_port, srv_port, this, true, retrans};
  Match m;
  if (r.list[fi.extra].fn(ctx, m) != Verdict::NeedMore) f.dpi_state = kDpiDone;
}

void Classifier::packet(Flow& f, const Packet& p, bool from_client, bool retrans) noexcept {
  step(f, p, from_client, retrans);
  if (!wants(f)) settle(f);
}

void Classifier::step(Flow& f, const Packet& p, bool from_client, bool retrans) noexcept {
  if (!p.has_l4) return;
  const uint32_t n = f.pkts[0] + f.pkts[1];
  if (f.key.proto == kProtoTcp) {
    // nDPI's connection tracking (ndpi_connection_tracking), on each packet it
    // processes: a segment with no flag (NULL scan), with FIN+PSH+URG alone
    // (XMAS scan), or a lone FIN sent from nDPI's direction 0 (FIN scan).
    const uint8_t fl = p.tcp_flags;
    if (fl == 0 || fl == (kFin | kPsh | kUrg) || (fl == kFin && ndpi_direction(p) == 0)) f.tcp_issues = 1;
    // Its packets_limit_per_flow: the 32nd packet, with payload or not, ends
    // the flow's dissection undissected (a give-up for an unnamed flow).
    if (n > kTcpDpiWindow) {
      if (f.dpi_state == kDpiExtra) f.dpi_state = kDpiDone;
      else give_up(f);
      return;
    }
  }
  if (f.dpi_state == kDpiExtra) {
    // nDPI's reading after the match (ndpi_process_extra_packet) takes every
    // packet: retransmissions go to the reader, which passes them by or reads
    // them as nDPI's does. A segment without payload changes nothing in them
    // but the count of packets read, which each takes from the flow's (so
    // does SMTP's wait for its 220 after STARTTLS).
    if (p.payload_len) {
      if (FlowInfo* fi = live(f)) extra(f, *fi, p, from_client, retrans);
      else f.dpi_state = kDpiDone;
    }
    // ndpiReader ends a UDP flow's dissection with its 25th packet
    if (f.key.proto != kProtoTcp && n >= dpi_window(f) && f.dpi_state == kDpiExtra) f.dpi_state = kDpiDone;
    return;
  }
  if (f.dpi_state != kDpiInspecting) return;
  if (n == 1 && user_port_first(f)) {
    f.dpi_first_skipped = p.payload_len != 0;
    return;
  }
  if (n > dpi_window(f)) {  // UDP: only packets without payload since the last look
    give_up(f);
    return;
  }
  FlowInfo* fi = p.payload_len ? ensure_info(f) : live(f);
  const bool named = f.l7_app || f.l7_master;
  bool done = p.payload_len && !retrans && inspect(f, fi, p, from_client);
  if (!named && (f.l7_app || f.l7_master)) judge_ports(f);  // named by this packet
  else if (!named && fi && p.payload_len && !retrans && f.dpi_packets <= 5)
    if (const Risk r = program_risk(Bytes(p.payload, p.payload_len)); r != Risk(0)) set_risk(entry_of(fi), r, true);
  // ndpiReader gives a UDP flow up once it processed its 25th packet
  if (f.key.proto != kProtoTcp && n >= dpi_window(f)) done = true;
  // nDPI's last checks on a packet it dissected: a flow named on it too, or
  // one it is about to give up (before the give-up's guess)
  if (fi) after_dissection(f, *fi, p);
  if (done) give_up(f);
}

// A dissector's payload packets are spent. One that decides on the first
// packet it reads (max_packets 1: nDPI's dissectors that rule themselves out
// on a miss) reads the flow's second when nDPI stopped its first before any
// dissector; those that count the flow's packets count that one too.
static bool over_budget(const Flow& f, const Dissector& d) {
  return f.dpi_packets - (d.max_packets == 1 ? f.dpi_first_skipped : 0) > d.max_packets;
}

bool Classifier::inspect(Flow& f, FlowInfo* fi, const Packet& p, bool from_client) noexcept {
  dpi_next_packet();
  // The third word is readable only while no name sits in host: once a
  // dissector set one without matching, its dissectors are asked again.
  const bool third = fi && !fi->host[0];
  uint64_t excluded[3] = {fi ? fi->excluded[0] : 0, fi ? fi->excluded[1] : 0, 0};
  if (third) std::memcpy(&excluded[2], fi->host + kMaskInHost, 8);
  auto exclude = [&](size_t i) { excluded[i >> 6] |= uint64_t(1) << (i & 63); };
  auto save = [&] {
    if (!fi) return;
    fi->excluded[0] = excluded[0], fi->excluded[1] = excluded[1];
    if (third && !fi->host[0]) std::memcpy(fi->host + kMaskInHost, &excluded[2], 8);
  };
  const uint8_t l4 = p.l4_proto == kProtoTcp ? kL4Tcp : kL4Udp;
  const uint16_t cli_port = from_client ? p.sport : p.dport, srv_port = from_client ? p.dport : p.sport;
  DpiCtx ctx{p, Bytes(p.payload, p.payload_len), from_client, f, fi, cli_port, srv_port, this};
  const Registry& r = registry();
  bool any_left = false;
  // A dissector's match decides the flow; a sub-protocol's overrides it.
  auto take = [&](const Dissector& d, size_t i, const Match& m) {
    // The mask is dead from here: its bytes hold DnsMeta and the index of
    // the dissector reading on (written by the dissector, kept as is).
    set(f, m.master, m.app ? m.app : d.id, m.cached ? Confidence::DpiCache : m.by_ip ? Confidence::MatchByIp : Confidence::Dpi, m.name_after);
    if (f.dpi_state == kDpiInspecting) f.dpi_state = kDpiDone;
    if (m.more && fi) {
      fi->extra = uint8_t(i);
      f.dpi_state = kDpiExtra;
    }
  };
  auto is_excluded = [&](size_t slot) { return excluded[slot >> 6] >> (slot & 63) & 1; };
  // nDPI's check_ndpi_subprotocols, as check_ndpi_detection_func runs it
  // after a match on this packet: over the sub-protocols of the flow's app
  // (its detected_protocol_stack[0]), then over those of its master
  // (stack[1]) as the first pass left it. Nothing stops a pass: every
  // candidate is asked, each match renames the flow and a later one
  // overrides it (the last match wins; later candidates see the names the
  // earlier ones set). A sub-protocol naming the flow already (HTTP.Zattoo
  // by its host) or ruled out (on an earlier packet, or earlier on this
  // one) is skipped.
  auto ask_subs = [&] {
    for (int pass = 0; pass < 2; pass++) {
      for (uint16_t sub : sub_protocols(pass == 0 ? f.l7_app : f.l7_master)) {
        if (sub == f.l7_app || sub == f.l7_master) continue;
        const size_t slot = sub < kIdSpace && r.by_id[l4][sub] ? r.by_id[l4][sub] - 1u : kMaxPerL4;
        if (slot >= kMaxPerL4 || is_excluded(slot)) continue;
        const size_t i = r.on_l4[l4][slot];
        const Dissector& d = r.list[i];
        if (over_budget(f, d)) continue;
        Match m;
        const Verdict v = d.fn(ctx, m);
        if (v == Verdict::No) exclude(slot);  // not asked again in the second pass
        if (v != Verdict::Match) continue;
        // nDPI's HTTP reading on (extra_packets_func) goes on after a
        // sub-protocol's match (its response still raises risks; a name with a
        // master is only changed as http.c changes it), except after
        // BitTorrent, whose own reading replaces it.
        if (!m.more && f.dpi_state == kDpiExtra && sub == id(ProtoId::BitTorrent)) f.dpi_state = kDpiDone;
        take(d, i, m);
      }
    }
  };
  // One dissector's turn; true when it matched (the flow is decided).
  auto ask = [&](size_t slot) -> bool {
    const size_t i = r.on_l4[l4][slot];
    const Dissector& d = r.list[i];
    if (over_budget(f, d)) {
      exclude(slot);
      return false;
    }
    Match m;
    Verdict v = d.fn(ctx, m);
    if (v == Verdict::Match) {
      exclude(slot);  // not asked again as a sub-protocol of itself
      take(d, i, m);
      ask_subs();
      return true;
    }
    if (v == Verdict::No) exclude(slot);
    else any_left = true;
    return false;
  };
  // nDPI's order (check_ndpi_detection_func): the dissector of the protocol
  // the ports suggest first, then every candidate in registration order.
  size_t first = kMaxPerL4;
  uint16_t guess = guess_by_port(p.l4_proto, cli_port, srv_port);
  if (wireguard_guessed(f, fi)) guess = id(ProtoId::WireGuard);  // its speculation replaced the ports' guess
  if (guess < kIdSpace && r.by_id[l4][guess]) first = r.by_id[l4][guess] - 1u;
  if (first < kMaxPerL4 && !is_excluded(first) && ask(first)) return false;
  static_assert(kMaxPerL4 == 192 && kMaxDissectors <= 256, "three mask words, uint8_t indices");
  for (size_t w = 0; w < 3; w++) {
    // this word's candidates, lowest position (registration order) first
    for (uint64_t cand = r.slots[l4][w] & ~excluded[w]; cand; cand &= cand - 1) {
      const size_t slot = w * 64 + size_t(__builtin_ctzll(cand));
      if (slot != first && ask(slot)) return false;
    }
  }
  save();
  return !any_left;
}

// nDPI's cache keys, built as its dissectors build them (its LRU caches keep
// whole 64-bit keys, in the slots lru_slot gives): an IPv4 address as the
// network-order word read on this (little-endian) host, a port in network
// order, an IPv6 address through ndpi_quick_hash64 — a weak polynomial hash
// whose collisions make nDPI's caches answer for unrelated flows; kept, as
// the names those answers give are nDPI's.
namespace {
uint64_t ndpi_hash64(const IpAddr& ip) {
  uint64_t h = 177;
  for (uint8_t b : ip.b) h = h * 31 + uint64_t(int64_t(int8_t(b)));  // nDPI hashes `char`s: signed here
  return h ^ 16;
}
uint64_t ndpi_v4(const IpAddr& ip) { return load_le32(ip.b + 12); }
uint64_t net_port(uint16_t port) { return uint16_t(port << 8 | port >> 8); }
}  // namespace

uint64_t Classifier::endpoint_key(Cache which, const IpAddr& ip, uint16_t port) noexcept {
  if (ip.is_v4()) return ndpi_v4(ip) << 32 | net_port(port);
  // STUN's IPv6 key takes the port in host order (get_stun_lru_key)
  return ndpi_hash64(ip) << 16 | (which == Cache::Stun ? port : net_port(port));
}

uint64_t Classifier::peers_key(const IpAddr& cli, const IpAddr& srv) noexcept {
  if (cli.is_v4()) return ndpi_v4(cli) << 32 | ndpi_v4(srv);
  return ndpi_hash64(cli) << 32 | (ndpi_hash64(srv) & 0xffffffffu);
}

uint64_t Classifier::host_key(const IpAddr& ip) noexcept { return ip.is_v4() ? ndpi_v4(ip) : ndpi_hash64(ip); }

uint16_t Classifier::cached_key(Cache which, uint64_t key, const Flow& f) const noexcept {
  const CacheEntry& e = slot(which, key);
  return e.key == key && f.last_ns / 1000000000u >= e.sec ? e.app : 0;
}

void Classifier::remember_key(Cache which, uint64_t key, uint16_t app, const Flow& f) noexcept {
  slot(which, key) = {key, uint32_t(f.last_ns / 1000000000u), app};
}

bool Classifier::ruled_out(const Flow& f, uint16_t proto) const noexcept {
  const FlowInfo* fi = info(f);
  const Registry& r = registry();
  const uint8_t l4 = f.key.proto == kProtoTcp ? kL4Tcp : kL4Udp;
  if (!fi || proto >= kIdSpace || !r.by_id[l4][proto]) return false;
  const size_t slot = r.by_id[l4][proto] - 1u;
  uint64_t word = slot < 128 ? fi->excluded[slot >> 6] : 0;
  if (slot >= 128) {
    if (fi->host[0]) return false;  // the third word gave way to a name
    std::memcpy(&word, fi->host + kMaskInHost, 8);
  }
  return word >> (slot & 63) & 1;
}

bool Classifier::bittorrent_known(const Flow& f) const noexcept {
  const auto [cli, srv, cport, sport] = dpi_sides(f);
  return cached_key(Cache::BitTorrent, peers_key(cli, srv), f) || cached(Cache::BitTorrent, cli, cport, f) || cached(Cache::BitTorrent, srv, sport, f);
}

uint64_t Classifier::mining_key(const Flow& f) noexcept {
  const DpiSides s = dpi_sides(f);  // nDPI keys its caches by its own client and server
  return peers_key(s.cli, s.srv);
}

void Classifier::remember_mining(const Flow& f, uint16_t app) noexcept {
  const uint64_t key = mining_key(f);
  mining_[lru_slot(key, kCacheSlots)] = {key, uint32_t(f.last_ns / 1000000000u), app};
}

uint16_t Classifier::mining_known(const Flow& f) const noexcept {
  const uint64_t key = mining_key(f);
  const CacheEntry& e = mining_[lru_slot(key, kCacheSlots)];
  return e.key == key && f.last_ns / 1000000000u >= e.sec ? e.app : 0;
}

namespace {
constexpr uint32_t kOoklaTtl = 120;  // nDPI's lru.ookla.ttl default, seconds
uint64_t ookla_key(const IpAddr& cli) { return Classifier::host_key(cli); }
}  // namespace

void Classifier::remember_ookla(const Flow& f) noexcept {
  const uint64_t key = ookla_key(dpi_sides(f).cli);
  ookla_[lru_slot(key, kCacheSlots)] = {key, uint32_t(f.last_ns / 1000000000u), id(ProtoId::Ookla)};
}

bool Classifier::ookla_known(const Flow& f) const noexcept {
  const DpiSides s = dpi_sides(f);
  if (s.sport != 8080) return false;
  const uint64_t key = ookla_key(s.cli);
  const CacheEntry& e = ookla_[lru_slot(key, kCacheSlots)];
  const uint32_t now = uint32_t(f.last_ns / 1000000000u);
  return e.app && e.key == key && now >= e.sec && now - e.sec <= kOoklaTtl;
}

namespace {

bool printable(uint8_t ch) { return ch >= 0x20 && ch <= 0x7e; }

// nDPI's fully_enc_heuristic (after "Ex1–Ex4" of the paper it cites): bits
// set per byte between 3.4 and 4.6, not six printable bytes first, no run of
// 20 printable bytes, at most half of them printable.
bool looks_fully_encrypted(const uint8_t* b, size_t n) {
  if (n == 0) return false;
  // bits set, eight bytes at a time (a portable build has no POPCNT: the
  // builtin is a library call, which a call per byte made)
  uint64_t bits = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, b + i, 8);
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    bits += (x * 0x0101010101010101ULL) >> 56;
  }
  for (; i < n; i++) bits += uint32_t(__builtin_popcount(b[i]));
  const float ratio = float(bits) / float(n);
  if (ratio <= 3.4 || ratio >= 4.6) return false;
  const size_t head = n < 6 ? n : 6;
  size_t k = 0;
  while (k < head && printable(b[k])) k++;
  if (k == head) return false;
  size_t count = 0, run = 0;
  for (size_t i = 0; i < n; i++) {
    if (!printable(b[i])) {
      run = 0;
      continue;
    }
    count++;
    if (++run >= 20) return false;
  }
  return !(float(count) / float(n) > 0.5);
}

// nDPI's categories ndpi_entropy2risk names (data/categories.tsv)
constexpr uint16_t kCatUnspecified = 0, kCatDataTransfer = 4, kCatWeb = 5, kCatDownload = 7;

}  // namespace

void Classifier::after_dissection(Flow& f, FlowInfo& fi, const Packet& p) noexcept {
  const uint32_t entry = uint32_t(&fi - &pool_[0]);
  // fully_enc_heuristic, on the flow's first payload packet when no
  // dissector named the flow on it and nDPI saw the TCP handshake: marks the
  // flow (first_pkt_fully_encrypted); the risk is raised only if it is given
  // up unnamed (risks()).
  if (f.key.proto == kProtoTcp && p.payload_len && f.dpi_packets == 1 && !f.l7_app && !f.l7_master &&
      seen_flow_beginning(f, p.tcp_flags) && looks_fully_encrypted(p.payload, p.payload_len))
    set_risk(entry, Risk::FullyEncrypted, true);
  // nDPI's entropy check: on the packets it dissects while fewer than 5
  // carried payload (a packet without payload has none: entropy 0), never
  // after a fully encrypted first packet. A flow named plain HTTP on this
  // packet keeps the entropy held from before (nDPI does not recompute it
  // then), which is what the risk's state says while the flow was unnamed.
  if (has_risk(entry, Risk::FullyEncrypted) || f.dpi_packets >= 5) return;
  if (!p.payload_len) {  // entropy 0 (a flow is never named on a packet without payload)
    set_risk(entry, Risk::SuspEntropy, false);
    return;
  }
  // the entropy only where it decides (ndpi_entropy2risk's other tests first)
  bool on = entropy_matters(f, fi);
  if (on) on = f.l7_app == id(ProtoId::HTTP) ? has_risk(entry, Risk::SuspEntropy) : payload_entropy_high(p.payload, p.payload_len);
  set_risk(entry, Risk::SuspEntropy, on);
}

bool Classifier::entropy_matters(const Flow& f, const FlowInfo& fi) const noexcept {
  const uint32_t entry = uint32_t(&fi - &pool_[0]);
  auto in_stack = [&](uint16_t x) { return f.l7_app == x || f.l7_master == x; };
  if (in_stack(id(ProtoId::TLS)) || in_stack(id(ProtoId::QUIC)) || in_stack(id(ProtoId::DTLS))) return false;
  // unnamed, or named by anything weaker than DPI
  const Confidence c = Confidence(fi.confidence);
  if (c != Confidence::Dpi && c != Confidence::DpiCache) return true;
  // named by DPI: only where something already looks off, or the category
  // is one where high entropy is unexpected
  const uint16_t cat = f.l7_category;
  return has_risk(entry, Risk::BinaryDataTransfer) || has_risk(entry, Risk::BinaryAppTransfer) || has_risk(entry, Risk::PossibleExploit) ||
         has_risk(entry, Risk::HttpSuspContent) || has_risk(entry, Risk::DnsSuspTraffic) || has_risk(entry, Risk::MalformedPacket) ||
         malware_server(f) || (cat == kCatDownload && in_stack(id(ProtoId::HTTP))) || cat == kCatDataTransfer || cat == kCatUnspecified ||
         cat == kCatWeb;
}

bool Classifier::malware_server(const Flow& f) const noexcept {
  // nDPI's ndpi_fill_ip_protocol_category (with the operator's category
  // networks): the client's address has no category and the server's is in
  // Malware.
  const UserRules* u = user_rules();
  if (!u || u->cat_ips.empty()) return false;
  const DpiSides s = dpi_sides(f);
  return !u->category_by_ip(s.cli) && u->category_by_ip(s.srv) == UserRules::kMalware + 1;
}

void Classifier::first_icmp(Flow& f, const Packet& p) noexcept {
  // nDPI (its ICMP guess, on the flow's first packet): the entropy of what
  // follows the 8-byte ICMP header, judged before the flow has a name.
  // Our ICMP payload starts after type, code and checksum.
  if (p.l4_proto != kProtoIcmp || p.payload_len <= 4) return;
  if (!payload_entropy_high(p.payload + 4, p.payload_len - 4)) return;
  if (FlowInfo* fi = ensure_info(f)) {
    fi->confidence = uint8_t(Confidence::Dpi);
    set_risk(entry_of(fi), Risk::SuspEntropy, true);
  }
  if (!wants(f)) settle(f);
}

void Classifier::tcp_giveup_issues(Flow& f) const noexcept {
  // nDPI's ndpi_check_tcp_flags keys the flags on its packet direction (the
  // side with the higher port sends direction 0; equal ports: the address
  // decides, see ndpi_direction.h), not on who opened the flow.
  const auto [cli, srv, cport, sport] = dpi_sides(f);
  const uint8_t dc = ndpi_direction(cli, cport, srv, sport), ds = ndpi_direction(srv, sport, cli, cport);
  uint8_t flags[2] = {0, 0};
  uint32_t pkts[2] = {0, 0};
  flags[dc] |= f.tcp_flags[0], pkts[dc] += f.pkts[0];
  flags[ds] |= f.tcp_flags[1], pkts[ds] += f.pkts[1];
  // refused: SYN from direction 0 and RST from either, before any payload
  // (3WH + RST that exchanged data is a closed connection); else probing:
  // a RST from direction 1, which sent that one packet only
  const bool payload = f.dpi_packets != 0;
  if ((flags[0] & kSyn) && ((flags[1] & kRst) || (flags[0] & kRst)) && !payload) f.tcp_issues = 1;
  else if ((flags[1] & kRst) && pkts[1] == 1) f.tcp_issues = 1;
}

void Classifier::give_up(Flow& f) noexcept {
  // nDPI's give-up (ndpiReader's, on a flow its dissection did not complete:
  // still unnamed, or read on for metadata) checks the TCP flags first.
  if (f.key.proto == kProtoTcp && wants(f)) tcp_giveup_issues(f);
  if (f.dpi_state == kDpiExtra) f.dpi_state = kDpiDone;
  if (f.dpi_state != kDpiInspecting) return;
  f.dpi_state = kDpiGaveUp;
  const DpiSides sides = dpi_sides(f);
  const uint16_t cli_port = sides.cport, srv_port = sides.sport;
  // nDPI's give-up asks its BitTorrent cache first ("DPI (partial cache)"),
  // once per flow: not when BitTorrent's dissector already asked it and
  // ruled the flow out.
  if ((f.key.proto == kProtoTcp || f.key.proto == kProtoUdp) && !ruled_out(f, id(ProtoId::BitTorrent)) && bittorrent_known(f)) {
    ensure_info(f);
    set(f, 0, id(ProtoId::BitTorrent), Confidence::DpiPartialCache);
    named_by_cache(f);
    return;
  }
  // then its mining cache, for a flow of any IP protocol
  if (const uint16_t mined = mining_known(f)) {
    ensure_info(f);
    set(f, 0, mined, Confidence::DpiPartialCache);
    named_by_cache(f);
    return;
  }
  // then its Ookla cache (TCP or UDP: nDPI asks it for any flow to port 8080)
  if (ookla_known(f)) {
    ensure_info(f);
    set(f, 0, id(ProtoId::Ookla), Confidence::DpiPartialCache);
    named_by_cache(f);
    return;
  }
  uint16_t guess = guess_by_port(f.key.proto, cli_port, srv_port);
  if (wireguard_guessed(f, info(f))) guess = id(ProtoId::WireGuard);
  // TLS's own guess (ndpi_looks_like_tls), where the ports gave none
  if (!guess && f.key.proto == kProtoTcp)
    if (const FlowMeta* fm = meta(f); fm && fm->kind == MetaKind::Tls && (fm->tls.srv_state & kTlsLooked)) guess = id(ProtoId::TLS);
  // nDPI drops the port's guess of SNMP or NetFlow over UDP when their own
  // dissector ruled the flow out (is_udp_not_guessable_protocol).
  if ((guess == id(ProtoId::SNMP) || guess == id(ProtoId::NetFlow)) && f.key.proto == kProtoUdp && ruled_out(f, guess)) guess = 0;
  if (guess) {
    ensure_info(f);
    set(f, 0, guess, Confidence::MatchByPort);
    return;
  }
  // nDPI's guess by address (its per-application IP lists), server first,
  // after the port guess as nDPI does by default: "Match by IP".
  if (const uint16_t by_ip = app_by_flow_ip(f)) {
    ensure_info(f);
    set(f, 0, by_ip, Confidence::MatchByIp);
    return;
  }
}

namespace {

bool port_listed(const char* list, uint16_t a, uint16_t b) {
  // "80,8080" or ranges "6881-6889"
  for (const char* s = list; *s;) {
    unsigned lo = 0, hi;
    while (*s >= '0' && *s <= '9') lo = lo * 10 + unsigned(*s++ - '0');
    hi = lo;
    if (*s == '-') {
      s++, hi = 0;
      while (*s >= '0' && *s <= '9') hi = hi * 10 + unsigned(*s++ - '0');
    }
    if ((a >= lo && a <= hi) || (b >= lo && b <= hi)) return true;
    while (*s && *s != ',') s++;
    if (*s == ',') s++;
  }
  return false;
}

// nDPI's ndpi_is_multi_or_broadcast, for a packet's destination.
bool ndpi_multi_or_broadcast(const IpAddr& a) {
  if (a.is_v4()) {
    const uint32_t v = a.v4();
    return (v & 0xe0000000u) == 0xe0000000u || (v & 0xff) == 0xff || (v & 0xff) == 0;
  }
  return a.b[0] == 0xff;
}

// nDPI's ndpi_is_public_ipv4: none of 10/8, 172.16/12, 192.168/16, 127/8, 224/4
bool public_v4(const IpAddr& a) {
  const uint8_t* b = a.b + 12;
  return !(b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168) || b[0] == 127 || (b[0] & 0xf0) == 224);
}

}  // namespace

// The risks nDPI holds when a dissector names a flow: those its dissectors
// raised so far (as most do, TLS and DNS among them, before naming; the
// port's is judged after), its connection tracking's for this packet (one
// way so far, TCP issues) and its address lists' (from the first packet).
bool Classifier::risky_at_naming(const Flow& f) const noexcept {
  return stored_words(f) || f.tcp_issues || one_way_for_ndpi(f) || ip_list_risk(f) != 0;
}

// nDPI's one-way test (ndpi_connection_tracking, then its reader's packet
// accounting): packets one way only, as the reader counts them (a packet cut
// by the snap length it never saw: Flow::whole_dirs), not to a group, which
// expects no answer — by nDPI's approximation (ndpi_is_multi_or_broadcast:
// IPv4 224/3 or a last byte of 0 or 255, IPv6 ff00::/8). Over IPv6 with
// equal ports (or none) nDPI counts every packet in one direction
// (ndpi_direction.h), so the test holds until a packet comes back after nDPI
// is done with the flow (the reader clears the risk then).
bool Classifier::one_way_for_ndpi(const Flow& f) const noexcept {
  const bool one_way = ndpi_one_sided(f) ? !f.back_after_dpi : f.whole_dirs != 3;
  return one_way && !ndpi_multi_or_broadcast(dpi_sides(f).srv);
}

// Known protocol on a non-standard port, judged once, as
// ndpi_detection_process_packet does after the first packet that named the
// flow (by DPI, or from a cache a dissector reads on a packet — STUN, TLS
// certificates, BitTorrent, tinc; a port guess at give-up is not judged):
// with the name then (a flow named STUN, or TLS before its certificate
// named it, keeps what was judged). With P the master's default ports (the
// application's when there is no master):
//  - the ports suggest another protocol: raised when the server port is not
//    in P (exceptions: ntop over HTTP; IMAPS/POPS/SMTPS suggested for TLS,
//    ndpi_check_protocol_port_mismatch_exceptions);
//  - else, the ports suggesting nothing: raised when neither port is in P
//    nor in the application's own default ports (FTP_DATA excepted);
//  - nothing when P is empty.
void Classifier::judge_ports(const Flow& f) noexcept {
  if (const Confidence c = Confidence(confidence(f)); c != Confidence::Dpi && c != Confidence::DpiCache) return;
  const uint16_t app = f.l7_app, master = f.l7_master;
  if (!(master || app) || (f.key.proto != kProtoTcp && f.key.proto != kProtoUdp)) return;
  const DpiSides sides = dpi_sides(f);
  const uint16_t cli_port = sides.cport, srv_port = sides.sport;
  const bool tcp = f.key.proto == kProtoTcp;
  auto defaults = [&](uint16_t p) -> const char* {
    const ProtoInfo* x = proto_info(p);
    const char* ports = x ? (tcp ? x->tcp_ports : x->udp_ports) : nullptr;
    return ports && *ports ? ports : nullptr;
  };
  const char* ports = defaults(master ? master : app);
  if (!ports) return;
  const bool ntop = master == id(ProtoId::HTTP) && app == id(ProtoId::ntop);
  const uint16_t guess = guess_by_port(f.key.proto, cli_port, srv_port);
  bool raise = false;
  if (guess && guess != master && guess != app) {
    const bool excepted = ntop || (master == id(ProtoId::TLS) && (guess == id(ProtoId::IMAPS) || guess == id(ProtoId::POPS) || guess == id(ProtoId::SMTPS)));
    raise = !excepted && !port_listed(ports, srv_port, srv_port);
  } else if (!ntop && !guess && !port_listed(ports, srv_port, cli_port) && app != id(ProtoId::FTP_DATA)) {
    const char* own = defaults(app);
    raise = !own || !port_listed(own, srv_port, cli_port);
  }
  if (raise) set_word_risk(words(f), Risk::KnownProtoNonStdPort, true);
}

// ndpi_detection_process_packet's look for programs in the first 5 payload
// packets of a flow still unknown after them: a Portable Executable (an MZ
// header whose PE offset, read little-endian at 0x3C, points at "PE\0\0"
// inside the packet) or an ELF (version ≤ 6) is a Binary Application
// Transfer, a "#!/" or "#! " script a Possible Exploit.
static Risk program_risk(Bytes b) {
  if (b.size() >= 0x3C + 4 && b[0] == 'M' && b[1] == 'Z') {
    const uint32_t pe = load_le32(b.data() + 0x3C);
    if (pe < b.size() - 4 && load_be32(b.data() + pe) == 0x50450000u) return Risk::BinaryAppTransfer;
  }
  if (b.size() >= 24 && load_be32(b.data()) == 0x7f454c46u && load_le32(b.data() + 20) <= 6) return Risk::BinaryAppTransfer;
  if (b.size() >= 3 && b[0] == '#' && b[1] == '!' && (b[2] == '/' || b[2] == ' ')) return Risk::PossibleExploit;
  return Risk(0);
}

uint8_t Classifier::ip_list_risk(const Flow& f) const noexcept {
  // Not for a flow a custom rule named: nDPI returns before the check there.
  if (Confidence(confidence(f)) == Confidence::CustomRule) return 0;
  // nDPI looks its client up (never the server), over IPv4 only between two
  // public addresses
  const DpiSides s = dpi_sides(f);
  if (s.cli.is_v4() && !(public_v4(s.cli) && public_v4(s.srv))) return 0;
  return risk_by_ip(s.cli);
}

uint64_t Classifier::risks(const Flow& f) const noexcept {
  uint64_t m = stored_risks(f);
  auto set = [&](Risk r) { m |= uint64_t(1) << uint8_t(r); };
  const uint16_t app = f.l7_app, master = f.l7_master;
  const Confidence conf = Confidence(reported_confidence(f));
  // nDPI (ndpi_reconcile_protocols): the names' breeds (earlier names' are stored by set()).
  if (unsafe_breed(master) || unsafe_breed(app)) set(Risk::UnsafeProtocol);
  if (app == id(ProtoId::RDP) || (app == id(ProtoId::AnyDesk) && f.key.proto == kProtoTcp)) set(Risk::DesktopFileSharing);
  // ntop over HTTP is never on a wrong port (http.c clears the risk when the
  // server names itself, which is after the ports were judged)
  if (master == id(ProtoId::HTTP) && app == id(ProtoId::ntop)) m &= ~(uint64_t(1) << uint8_t(Risk::KnownProtoNonStdPort));
  // nDPI's give-up raises Fully Encrypted for a flow its caches did not name
  // either (the mark stays on a flow a dissector named later, for the
  // entropy check it turns off)
  if (f.dpi_state != kDpiGaveUp) m &= ~(uint64_t(1) << uint8_t(Risk::FullyEncrypted));
  if (f.tcp_issues) set(Risk::TcpIssues);
  if (const uint8_t r = ip_list_risk(f)) set(Risk(r));
  if (malware_server(f)) set(Risk::MalwareHost);
  // nDPI's probing attempt (ndpi_check_probing_attempt), for SSH named by
  // its dissector (TLS's and mail's forms are not judged here).
  if (app == id(ProtoId::SSH) && !master && conf == Confidence::Dpi && has_state(f) && ssh_probing_attempt(f, ssh_unanswered_of(f))) set(Risk::ProbingAttempt);
  // Packets one way only, except for protocols that are one-way by design
  // (ndpi_reconcile_protocols)
  const DpiSides sides = dpi_sides(f);
  const IpAddr& srv = sides.srv;
  if (one_way_for_ndpi(f)) {
    const bool udp = f.key.proto == kProtoUdp;
    bool oneway = app == id(ProtoId::RTP) || app == id(ProtoId::NetFlow) || app == id(ProtoId::sFlow) || app == id(ProtoId::collectd) ||
                  (udp && (app == id(ProtoId::Syslog) || app == id(ProtoId::MDNS) || app == id(ProtoId::Sonos)));
    if (!oneway) set(Risk::Unidirectional);
  }
  // nDPI's built-in exceptions on the flow's name, then the operator's
  // (protos.txt's ip_risk_mask / host_risk_mask)
  if (m) {
    const std::string_view name = host(f);
    switch (f.info ? *words(f).w2 >> kHostMaskShift : 0) {  // the host exceptions as nDPI evaluated them (set())
      case 2: m &= kHostExceptionMask; break;
      case 3: m = 0; break;
      default: break;
    }
    if (const UserRules* u = user_rules(); m && u && !u->risk_masks.empty()) {
      m &= u->risk_mask(sides.cli, srv, name);
    }
  }
  return m;
}

}  // namespace fg
