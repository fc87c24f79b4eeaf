// ④ TLS ClientHello (RFC 8446 §4.1.2, RFC 6066 §3): the server_name extension.
#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/fingerprints.h"
#include "dpi/names.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"
#include "dpi/user_rules.h"

#include <algorithm>
#include <cstring>
#include <strings.h>
#include <arpa/inet.h>

namespace fg {

bool tls_client_hello_sni(Bytes b, const char*& name, size_t& len) {
  // Record header: type 22 (handshake), version, length; then the handshake.
  if (b.size() < 5 + 4 + 38 || b[0] != 0x16) return false;
  return tls_handshake_sni(b.subspan(5), name, len);
}

bool tls_handshake_sni(Bytes b, const char*& name, size_t& len) {
  if (b.size() < 4 + 38 || b[0] != 0x01) return false;  // ClientHello
  size_t end = b.size();
  size_t off = 4 + 2 + 32;  // handshake header, client_version, random
  if (off >= end) return false;
  off += 1 + size_t(b[off]);  // session id
  if (off + 2 > end) return false;
  off += 2 + size_t(load_be16(b.data() + off));  // cipher suites
  if (off + 1 > end) return false;
  off += 1 + size_t(b[off]);  // compression methods
  if (off + 2 > end) return false;
  size_t ext_end = off + 2 + size_t(load_be16(b.data() + off));
  off += 2;
  if (ext_end > end) ext_end = end;  // the hello may continue in the next segment
  while (off + 4 <= ext_end) {
    uint16_t type = load_be16(b.data() + off), elen = load_be16(b.data() + off + 2);
    off += 4;
    if (off + elen > ext_end) return false;
    if (type == 0) {  // server_name: list length, then (type 0 host_name, length, name)
      if (elen < 5 || b[off + 2] != 0) return false;
      size_t nlen = load_be16(b.data() + off + 3);
      if (5 + nlen > elen) return false;
      name = reinterpret_cast<const char*>(b.data() + off + 5);
      len = nlen;
      return true;
    }
    off += elen;
  }
  return false;
}

}  // namespace fg

// Classification: a TLS handshake record (ClientHello, or a ServerHello when
// the capture starts after the client's), or DTLS over UDP; the SNI names
// the app (TLS.YouTube). Then, for metadata, the server's first records:
// ServerHello and, up to TLS 1.2, the certificate in clear.
namespace fg {
namespace {

// TLS on the mail ports is the mail protocol's secure variant, as nDPI
// refines it (SMTPS, IMAPS, POPS).
uint16_t tls_proto_by_port(const DpiCtx& c) {
  auto on = [&](uint16_t port) { return c.srv_port == port || c.cli_port == port; };
  if (on(465) || on(587)) return id(ProtoId::SMTPS);
  if (on(993)) return id(ProtoId::IMAPS);
  if (on(995)) return id(ProtoId::POPS);
  return id(ProtoId::TLS);
}

constexpr int64_t kDay = 86400;

// nDPI's certificate checks, against packet time.
void cert_risks(const DpiCtx& c, const TlsMeta& m, const TlsCert& t) {
  if (m.flags & kTlsSelfSigned) c.risk(Risk::TlsSelfSigned);
  if (!t.not_after) return;
  const int64_t now = int64_t(c.p.ts_ns / 1000000000ULL);
  // CA/Browser Forum: at most 398 days for certificates issued after 2020-09-01.
  if (t.not_before > 1598918400 && t.not_after - t.not_before > 398 * kDay) c.risk(Risk::TlsCertTooLong);
  if (now < t.not_before || now > t.not_after) c.risk(Risk::TlsCertExpired);
  else if (now > t.not_before && now > t.not_after - 30 * kDay) c.risk(Risk::TlsCertAboutToExpire);
}

// nDPI judges the TLS version at the ClientHello only (tls_hello_meta); the
// server's ALPN is judged when the client offered none (or was not seen).
void server_hello_risks(const DpiCtx& c, const TlsMeta& t, bool uncommon_alpn) {
  if (tls_weak_cipher(t.cipher)) c.risk(Risk::TlsWeakCipher);
  if (uncommon_alpn && !(t.flags & kTlsAlpnOffered)) c.risk(Risk::TlsUncommonAlpn);
}

// nDPI names a TLS flow its SNI left unnamed by the server certificate's
// names (subjectAltName dNSNames) against the host patterns.
// During the match itself (a capture starting at the ServerHello) the app
// is handed back here instead.
thread_local uint16_t t_cert_app = 0;

// The subjectAltName walk: the first name of a known application, and
// whether some name covers the SNI (nDPI's certificate-mismatch test).
struct SanScan {
  const DpiCtx* c;
  uint16_t app = 0;
  bool matched = false;
  bool any = false;  // the certificate has subjectAltName names
};

// nDPI's test of a name against the SNI (both lower case): equal, or for
// "*<rest>" the rest found in the SNI with no dot before the SNI's first
// (so "*.example.com" covers "a.b.example.com" too).
bool san_covers(const char* sni, size_t sni_len, const char* name, size_t len) {
  if (len && name[0] == '*') {
    const char* rest = name + 1;
    const size_t rl = len - 1;
    if (rl > sni_len) return false;
    for (size_t at = 0; at + rl <= sni_len; at++)
      if (strncasecmp(sni + at, rest, rl) == 0) {
        const char* dot = static_cast<const char*>(std::memchr(sni, '.', sni_len));
        return !dot || size_t(dot - sni) <= at;
      }
    return false;
  }
  return len == sni_len && strncasecmp(sni, name, len) == 0;
}

bool cert_name_app(void* ctx, const char* name, size_t len) {
  SanScan& s = *static_cast<SanScan*>(ctx);
  const char* sni = s.c->info ? s.c->info->host : "";
  const size_t sni_len = std::strlen(sni);
  s.any = true;  // the extension is there (first call, empty name)
  if (!len) return false;
  if (!s.matched && sni_len && san_covers(sni, sni_len, name, len)) s.matched = true;
  if (s.app) return false;
  if (len > 2 && name[0] == '*' && name[1] == '.') name += 2, len -= 2;
  if (len > 255) return false;
  char low[256];
  for (size_t i = 0; i < len; i++) low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? char(name[i] + 32) : name[i];
  s.app = app_by_host(low, len);
  return false;
}

// nDPI's certificate-subject list (tls_certificate_match): a fragment of
// the subject DN names the application when the certificate's names did
// not. nDPI looks at the subject only (the issuer "O=Cloudflare, Inc." signs
// half the web), through an automaton that lowercases pattern and text
// (AC_FEATURE_LC) and, of several fragments found, keeps the one ending
// last in the subject (its search runs to the end, each match overwriting
// the last).
struct DnApp {
  const char* fragment;
  ProtoId app;
};
constexpr DnApp kDnApps[] = {
    {"CN=AnyDesk Client", ProtoId::AnyDesk},
    {"O=philandro Software GmbH", ProtoId::AnyDesk},
    {"O=Kakao", ProtoId::KakaoTalk},
    {"O=ntop.org", ProtoId::ntop},
    {"O=Netflix", ProtoId::NetFlix},
    {"O=Cloudflare", ProtoId::Cloudflare},
    {"CN=simplednscrypt.org", ProtoId::DNScrypt},
    {"CN=*.gateway.messenger.live.com", ProtoId::Teams},
    {"OU=FortiGate", ProtoId::FortiClient},
    {"CN=www.update.microsoft.com", ProtoId::WindowsUpdate},
    {"CN=*.tunnelbear.com", ProtoId::TunnelBear},
    {"CN=cloudflareclient.com", ProtoId::CloudflareWarp},
    {"O=V Kontakte LLC", ProtoId::VK},
    {"O=Yandex LLC", ProtoId::Yandex},
    {"O=Riot Games, Inc.", ProtoId::RiotGames},
    {"O=Riot Games Inc", ProtoId::RiotGames},
    {"O=NoMachine", ProtoId::NoMachine},
    {"O=Private Internet Access", ProtoId::PrivateInternetAccess},
    {"O=Windscribe", ProtoId::Windscribe},
    {"O=Sonos, Inc", ProtoId::Sonos},
    {"CN=Snapchat Inc.", ProtoId::SnapchatCall},
    {"CN=NVIDIA GameStream", ProtoId::GeForceNow},
};

uint16_t dn_app(const char* subject) {
  uint16_t app = 0;
  size_t last_end = 0;
  for (const DnApp& d : kDnApps) {
    const size_t len = std::strlen(d.fragment);
    for (const char* at = strcasestr(subject, d.fragment); at; at = strcasestr(at + 1, d.fragment))
      if (const size_t end = size_t(at - subject) + len; end > last_end) last_end = end, app = id(d.app);
  }
  return app;
}

// nDPI's certificate cache (tls.c, lru.tls_cert): a server whose
// certificate subject named the application names later flows to it (its
// address and port) at their ClientHello or ServerHello, when nothing else
// named them: "DPI (cache)", and the numeric-host risk is dropped.
// The key is the TLS server's endpoint: the destination of a ClientHello,
// the source of the server's messages (whichever side began the capture).
thread_local bool t_cert_cached = false;  // t_cert_app came from the cache

void cert_dn_app(const DpiCtx& c, const char* subject) {
  const uint16_t app = dn_app(subject);
  if (!app) return;
  c.clf->remember(Classifier::Cache::TlsCert, c.p.src, c.p.sport, app, c.flow);  // the server's Certificate
  c.unrisk(Risk::NumericIpHost);
  if (c.extra) c.clf->refine(c.flow, c.flow.l7_app, app);
  else t_cert_app = app;
}

// At a ClientHello (`client_hello`) or ServerHello of a flow still plain TLS: the cache's answer, 0 = none.
uint16_t cert_cache_app(const DpiCtx& c, bool client_hello) {
  const uint16_t app = client_hello ? c.clf->cached(Classifier::Cache::TlsCert, c.p.dst, c.p.dport, c.flow)
                                    : c.clf->cached(Classifier::Cache::TlsCert, c.p.src, c.p.sport, c.flow);
  if (app) c.unrisk(Risk::NumericIpHost);
  return app;
}

// The certificate's fields, kept beside the flow's TLS entry (meta.h).
void keep_cert(const DpiCtx& c, const TlsCert& cert) {
  const FlowMeta* fm = c.clf->meta(c.flow);
  if (fm && fm->kind == MetaKind::Tls) c.clf->keep_cert(*const_cast<FlowMeta*>(fm), cert);
}

// The certificate message's body (after its 4-byte header): names, subject
// list and risks. Only a flow still plain TLS (or its mail variants) is named.
void read_certificate(const DpiCtx& c, TlsMeta& t, Bytes body) {
  const bool unnamed = !c.extra || c.flow.l7_master == 0;
  if (tls_first_cert_malicious(body)) c.risk(Risk::MaliciousCert);
  char dn[256];
  SanScan scan{&c};
  TlsCert cert{};
  const bool read = tls_read_certificate(body, t, cert, cert_name_app, &scan, dn, sizeof(dn));
  if (t.flags & kTlsCert) keep_cert(c, cert);
  if (read) {
    // nDPI tries every name, covering the SNI or not, unless the SNI matched
    // (subprotocol_detected): the host list (then the flow is named
    // already) or a custom category's hosts (ndpi_match_host_subprotocol).
    const size_t sni_len = c.info ? std::strlen(c.info->host) : 0;
    const bool covers = scan.matched || !sni_len || sni_len >= sizeof(c.info->host) - 1;
    if (scan.any && !covers) c.risk(Risk::TlsCertMismatch);
    const UserRules* u = sni_len ? user_rules() : nullptr;
    const bool sni_matched = u && u->category_by_name(std::string_view(c.info->host, sni_len));
    if (unnamed && scan.app && !sni_matched) {
      c.unrisk(Risk::NumericIpHost);
      if (c.extra) c.clf->refine(c.flow, c.flow.l7_app, scan.app);
      else t_cert_app = scan.app;
    }
    cert_risks(c, t, cert);
    // still unnamed after the certificate's names
    if (unnamed && (c.extra ? !c.flow.l7_master : !t_cert_app)) cert_dn_app(c, dn);
  }
}

// A Certificate message longer than its segment is gathered, as nDPI
// reassembles the handshake, up to the end of the first certificate (what
// is read of it), in one of a few per-thread buffers taken for the time
// of the gathering: no allocation per flow; with all in use (or a gap in
// the sequence) the segment's part is read as it is. A ClientHello record
// longer than its segment is gathered whole the same way (`hello`).
struct CertGather {
  const Flow* flow = nullptr;
  bool hello = false;      // a ClientHello's record, not the server's certificate
  uint64_t first_ns = 0;   // with `flow`: the same flow, not a later one at that address
  uint64_t used_ns = 0;    // packet time of the last use (the oldest is taken over)
  uint32_t next_seq = 0;   // the gathered side's next byte
  uint32_t need = 0, have = 0;
  uint32_t rec_left = 0;   // bytes of the current record still to come
  uint8_t hdr_have = 0;    // of a record header cut by the segment's end
  uint8_t hdr[5];
  uint8_t data[16384];
};
constexpr size_t kCertGathers = 8;
constexpr uint8_t kGathering = 0x80;  // srv_state bit (TCP): a certificate is being gathered

CertGather* gather_slot(const DpiCtx& c, bool take, bool hello = false) {
  static thread_local CertGather slots[kCertGathers];
  CertGather* oldest = &slots[0];
  for (CertGather& g : slots) {
    if (g.flow == &c.flow && g.first_ns == c.flow.first_ns && g.hello == hello) return &g;
    if (g.used_ns < oldest->used_ns) oldest = &g;
  }
  if (!take) return nullptr;
  // Free slots have used_ns 0; a slot idle for 10 s of packet time is stale.
  if (oldest->flow && c.p.ts_ns - oldest->used_ns < 10'000'000'000ULL) return nullptr;
  *oldest = CertGather{};
  oldest->flow = &c.flow, oldest->first_ns = c.flow.first_ns, oldest->used_ns = c.p.ts_ns, oldest->hello = hello;
  return oldest;
}

// Appends the segment to the gathering; true once done (read or given up).
bool gather_more(const DpiCtx& c, TlsMeta& t) {
  CertGather* g = gather_slot(c, false);
  if (!g) {
    t.srv_state &= uint8_t(~kGathering);
    return true;
  }
  Bytes b = c.payload;
  const int32_t ahead = int32_t(c.p.tcp_seq - g->next_seq);
  if (ahead < 0) return false;  // a retransmission
  bool done = ahead > 0;        // a gap: read what is there
  g->used_ns = c.p.ts_ns;
  g->next_seq += uint32_t(b.size());
  for (size_t off = 0; !done && off < b.size() && g->have < g->need;) {
    if (g->rec_left == 0) {  // the next record's header, perhaps cut by a segment's end
      while (g->hdr_have < 5 && off < b.size()) g->hdr[g->hdr_have++] = b[off++];
      if (g->hdr_have < 5) break;
      g->hdr_have = 0;
      if (g->hdr[0] != 22 || g->hdr[1] != 0x03) done = true;
      g->rec_left = load_be16(g->hdr + 3);
      continue;
    }
    const size_t take = std::min<size_t>({g->rec_left, b.size() - off, g->need - g->have});
    std::memcpy(g->data + g->have, b.data() + off, take);
    g->have += uint32_t(take), g->rec_left -= uint32_t(take), off += take;
  }
  if (g->have < g->need && !done) return false;
  read_certificate(c, t, Bytes(g->data + 4, g->have - 4));
  t.srv_state &= uint8_t(~kGathering);
  *g = CertGather{};
  return true;
}

// Starts gathering the Certificate message `msg` (its start, as far as the
// record and the segment hold it); false when no buffer is free.
bool gather_start(const DpiCtx& c, TlsMeta& t, Bytes msg, size_t hl, size_t rec_left, size_t seg_end_off) {
  if (c.p.l4_proto != kProtoTcp || msg.size() < 10) return false;
  // Up to the first certificate's end: header, list length, its length.
  const size_t first = size_t(msg[7]) << 16 | size_t(msg[8]) << 8 | msg[9];
  const size_t need = std::min({hl + 4, 10 + first, sizeof(CertGather::data)});
  if (msg.size() >= need) return false;  // all there already
  CertGather* g = gather_slot(c, true);
  if (!g) return false;
  std::memcpy(g->data, msg.data(), msg.size());
  g->have = uint32_t(msg.size()), g->need = uint32_t(need);
  g->rec_left = uint32_t(rec_left);
  g->next_seq = c.p.tcp_seq + uint32_t(seg_end_off);
  t.srv_state |= kGathering;
  return true;
}

// The server's stream, record by record, from the segments in order: what
// a segment does not hold is skipped (srv_skip) rather than reassembled.
// True when nothing more is to be read.
bool walk_server(const DpiCtx& c, TlsMeta& t) {
  if (t.srv_state & kGathering) return gather_more(c, t);
  Bytes b = c.payload;
  size_t off = 0;
  if (t.srv_skip) {
    if (t.srv_skip >= b.size()) {
      t.srv_skip -= uint32_t(b.size());
      return false;
    }
    off = t.srv_skip;
    t.srv_skip = 0;
  }
  while (off + 5 <= b.size()) {
    uint8_t type = b[off];
    if (type < 20 || type > 23 || b[off + 1] != 0x03) return true;  // lost track
    size_t len = load_be16(b.data() + off + 3);
    Bytes rec = b.subspan(off + 5, std::min(len, b.size() - off - 5));
    if (type == 21 && len == 2 && rec.size() == 2 && rec[0] == 2) c.risk(Risk::TlsFatalAlert);
    if (type == 20 || type == 23) return true;  // ChangeCipherSpec, data: the rest is encrypted
    if (type == 22) {
      // Handshake messages within what the segment holds of the record.
      size_t h = 0;
      while (h + 4 <= rec.size()) {
        uint8_t ht = rec[h];
        size_t hl = size_t(rec[h + 1]) << 16 | size_t(rec[h + 2]) << 8 | rec[h + 3];
        Bytes msg = rec.subspan(h, std::min(hl + 4, rec.size() - h));
        if (ht == 2 && !(t.flags & kTlsServerHello)) {
          bool uncommon = false, susp = false;
          Bytes alpn;
          if (tls_read_server_hello(msg, t, &alpn, &uncommon, &susp)) server_hello_risks(c, t, uncommon);
          if (!alpn.empty()) c.set_alpn(t.alpn_server, alpn);
          if (susp) c.risk(Risk::TlsSuspExtension);
          if (c.extra ? !c.flow.l7_master : !t_cert_app) {
            if (const uint16_t app = cert_cache_app(c, false)) {
              if (c.extra) c.clf->refine(c.flow, c.flow.l7_app, app, Confidence::DpiCache);
              else t_cert_app = app, t_cert_cached = true;
            }
          }
          if (t.version == 0x0304) return true;  // certificate encrypted
        } else if (ht == 11 && !(t.flags & kTlsCert)) {
          // The message and its record may go on in the next segments.
          const size_t rec_left = len - rec.size();
          if (rec_left && h + msg.size() == rec.size() && gather_start(c, t, msg, hl, rec_left, off + 5 + rec.size())) return false;
          read_certificate(c, t, msg.subspan(4));
          return true;
        } else if (ht == 14 || ht == 12) {
          return (t.flags & kTlsCert) != 0;  // ServerHelloDone / key exchange: past the certificate
        }
        h += 4 + hl;
      }
      if (len > rec.size() && (t.flags & kTlsServerHello)) {
        // Certificate message started beyond this segment? skip to the next record.
      }
    }
    off += 5 + len;
  }
  if (off > b.size()) t.srv_skip = uint32_t(off - b.size());
  return false;
}

// DTLS certificate names: the flow becomes DTLS.App (during the match the
// app is handed back through t_cert_app).
bool dtls_cert_name(void* ctx, const char* name, size_t len) {
  DpiCtx& c = *static_cast<DpiCtx*>(ctx);
  if (len > 2 && name[0] == '*' && name[1] == '.') name += 2, len -= 2;
  if (!len || len > 255) return false;
  char low[256];
  for (size_t i = 0; i < len; i++) low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? char(name[i] + 32) : name[i];
  const uint16_t app = app_by_host(low, len);
  if (!app) return false;
  if (c.extra) c.clf->refine(c.flow, id(ProtoId::DTLS), app);
  else t_cert_app = app;
  return true;
}

// A DTLS certificate body (after the handshake header): subjectAltName
// names DTLS.App; a plain DTLS flow is else named by the subject list.
void dtls_certificate(DpiCtx& c, TlsMeta& t, Bytes body);

// srv_state for DTLS: which side sent the ServerHello (the certificate's),
// and whether the ClientHello offered DTLS-SRTP (WebRTC, whose self-signed
// certificates nDPI does not flag).
constexpr uint8_t kDtlsServerIsClient = 1, kDtlsServerIsServer = 2, kDtlsSide = 3, kDtlsWebrtc = 4;

void dtls_certificate(DpiCtx& c, TlsMeta& t, Bytes body) {
  const bool unnamed = !c.extra || c.flow.l7_master == 0;
  if (tls_first_cert_malicious(body)) c.risk(Risk::MaliciousCert);
  char dn[256];
  TlsCert cert{};
  const bool read = tls_read_certificate(body, t, cert, dtls_cert_name, &c, dn, sizeof(dn));
  if (t.flags & kTlsCert) keep_cert(c, cert);
  if (!read) return;
  if (t.srv_state & kDtlsWebrtc) t.flags &= uint8_t(~kTlsSelfSigned);
  cert_risks(c, t, cert);
  const uint16_t named = c.extra ? (c.flow.l7_master == id(ProtoId::DTLS) ? c.flow.l7_app : 0) : t_cert_app;
  if (unnamed && !named)
    if (const uint16_t app = dn_app(dn)) {
      if (c.extra) c.clf->refine(c.flow, id(ProtoId::DTLS), app);
      else t_cert_app = app;
    }
}

}  // namespace

bool dtls_record(Bytes b) {
  return b.size() >= 13 && b[0] >= 20 && b[0] <= 23 && b[1] == 0xfe && (b[2] == 0xff || b[2] == 0xfd || b[2] == 0xfc) &&
         size_t(load_be16(b.data() + 11)) + 13 <= b.size();
}

bool dtls_read_records(DpiCtx& c) {
  FlowMeta* fm = c.meta(MetaKind::Tls);
  if (!fm) return true;
  TlsMeta& t = fm->tls;
  if (t.flags & kTlsCert) return true;
  Bytes b = c.payload;
  for (size_t off = 0; off + 13 <= b.size();) {
    if (!dtls_record(b.subspan(off))) break;
    const size_t len = load_be16(b.data() + off + 11);
    if (b[off] == 21 && len == 2 && b[off + 13] == 2) c.risk(Risk::TlsFatalAlert);  // an Alert in clear, fatal
    // Handshake in clear: epoch 0.
    if (b[off] == 22 && b[off + 3] == 0 && b[off + 4] == 0) {
      Bytes rec = b.subspan(off + 13, len);
      // Messages: type, length, message_seq, fragment_offset, fragment_length.
      for (size_t h = 0; h + 12 <= rec.size();) {
        const uint8_t ht = rec[h];
        const size_t frag_off = size_t(rec[h + 6]) << 16 | size_t(rec[h + 7]) << 8 | rec[h + 8];
        const size_t frag_len = size_t(rec[h + 9]) << 16 | size_t(rec[h + 10]) << 8 | rec[h + 11];
        Bytes frag = rec.subspan(h + 12, std::min(frag_len, rec.size() - h - 12));
        if (ht == 1 && frag_off == 0 && frag.size() == frag_len && !(t.srv_state & kDtlsWebrtc)) {
          HelloFacts facts;
          TlsMeta scratch{};
          if (tls_read_client_hello(rec.subspan(h, 12 + frag.size()), HelloTransport::Dtls, scratch, facts) && facts.use_srtp)
            t.srv_state |= kDtlsWebrtc;
        } else if (ht == 2 && frag_off == 0 && !(t.flags & kTlsServerHello) && frag.size() <= 512) {
          // tls_read_server_hello reads a TLS header: type, 24-bit length.
          uint8_t msg[4 + 512];
          msg[0] = 2, msg[1] = rec[h + 1], msg[2] = rec[h + 2], msg[3] = rec[h + 3];
          std::memcpy(msg + 4, frag.data(), frag.size());
          bool susp = false;
          Bytes alpn;
          if (tls_read_server_hello(Bytes(msg, 4 + frag.size()), t, &alpn, nullptr, &susp, true)) {
            if (!alpn.empty()) c.set_alpn(t.alpn_server, alpn);
            t.srv_state = uint8_t((t.srv_state & ~kDtlsSide) | (c.from_client ? kDtlsServerIsClient : kDtlsServerIsServer));
            if (tls_weak_cipher(t.cipher)) c.risk(Risk::TlsWeakCipher);
          }
          if (susp) c.risk(Risk::TlsSuspExtension);
        } else if (ht == 11 && (t.srv_state & kDtlsSide) == (c.from_client ? kDtlsServerIsClient : kDtlsServerIsServer)) {
          // The certificate may come in fragments: gathered up to the first
          // certificate's end, as nDPI reassembles them.
          if (frag_off == 0) {
            const size_t msg_len = size_t(rec[h + 1]) << 16 | size_t(rec[h + 2]) << 8 | rec[h + 3];
            const size_t first = frag.size() >= 6 ? (size_t(frag[3]) << 16 | size_t(frag[4]) << 8 | frag[5]) : 0;
            const size_t need = std::min({msg_len, 6 + first, sizeof(CertGather::data)});
            if (frag.size() < need && first && c.extra) {
              if (CertGather* g = gather_slot(c, true)) {
                std::memcpy(g->data, frag.data(), frag.size());
                g->have = uint32_t(frag.size()), g->need = uint32_t(need);
                t.srv_state |= kGathering;
                h += 12 + frag_len;
                continue;
              }
            }
            dtls_certificate(c, t, frag);
            return true;
          }
          if (t.srv_state & kGathering) {
            CertGather* g = gather_slot(c, false);
            if (!g) return true;
            g->used_ns = c.p.ts_ns;
            if (frag_off <= g->have && frag_off + frag.size() > g->have) {
              const size_t take = std::min<size_t>(frag_off + frag.size() - g->have, g->need - g->have);
              std::memcpy(g->data + g->have, frag.data() + (g->have - frag_off), take);
              g->have += uint32_t(take);
            }
            if (g->have >= g->need) {
              dtls_certificate(c, t, Bytes(g->data, g->have));
              t.srv_state &= uint8_t(~kGathering);
              *g = CertGather{};
              return true;
            }
          }
        }
        h += 12 + frag_len;
      }
    }
    off += 13 + len;
  }
  return false;
}

void tls_begins(DpiCtx& c, uint16_t master, uint16_t app) { c.clf->refine(c.flow, master, app); }

void tls_read_from(DpiCtx& c) {
  if (c.info) c.info->state[kTlsReadFrom] = uint8_t(std::min<uint32_t>(c.flow.packets(), 255));  // a TCP flow's window is 32
}

// Retransmissions and empty segments count too, though the reading passes them by.
bool tls_read_spent(const DpiCtx& c) {
  const uint32_t budget = c.flow.l7_app == id(ProtoId::RDP) ? 5 : 12;
  return !c.info || c.flow.packets() - c.info->state[kTlsReadFrom] > budget;
}

Verdict tls_after_starttls(DpiCtx& c) {
  if (tls_read_spent(c)) return Verdict::No;
  if (c.retrans) return Verdict::NeedMore;
  FlowMeta* fm = c.meta(MetaKind::Tls);
  if (!fm) return Verdict::No;
  TlsMeta& t = fm->tls;
  Bytes b = c.payload;
  if (c.from_client) {
    if (!(t.flags & kTlsClientHello) && b.size() > 9 && b[0] == 0x16 && b[1] == 0x03 && b[5] == 0x01)
      tls_hello_meta(c, b.subspan(5, std::min<size_t>(b.size() - 5, load_be16(b.data() + 3))), HelloTransport::Tcp);
    return Verdict::NeedMore;
  }
  // The protocol's own reply ("234 …") before the server's first record.
  if (!(t.flags & kTlsServerHello) && !(t.srv_state & kGathering) && (b.size() < 6 || b[0] != 0x16 || b[1] != 0x03))
    return Verdict::NeedMore;
  return walk_server(c, t) ? Verdict::No : Verdict::NeedMore;
}

size_t tls_sni_name(DpiCtx& c, const char* raw, size_t n, char (&out)[80]) {
  if (!valid_hostname(raw, n)) c.risk(Risk::InvalidCharacters), c.risk(Risk::PossibleExploit);
  const size_t len = ndpi_host_name(reinterpret_cast<const uint8_t*>(raw), n, out);
  if (len && numeric_host(out, len)) return c.set_host(out, len), 0;
  return len;
}

bool numeric_host(const char* s, size_t n) {
  // nDPI: the name parses as an IPv4 or IPv6 address (inet_pton).
  char z[64];
  if (!n || n >= sizeof(z)) return false;
  std::memcpy(z, s, n);
  z[n] = 0;
  unsigned char buf[16];
  return inet_pton(AF_INET, z, buf) == 1 || inet_pton(AF_INET6, z, buf) == 1;
}

void tls_hello_meta(DpiCtx& c, Bytes hs, HelloTransport tr, HelloFacts* out) {
  FlowMeta* fm = c.meta(MetaKind::Tls);
  // A zeroed stand-in only when the metadata pool had no entry (zeroing it
  // on every hello was most of this function's own time).
  TlsMeta scratch;
  if (!fm) scratch = TlsMeta{};
  TlsMeta& t = fm ? fm->tls : scratch;
  HelloFacts mine;
  HelloFacts& facts = out ? *out : mine;
  if (!tls_read_client_hello(hs, tr, t, facts)) return;
  if (fm && facts.alpn) c.set_alpn(t.alpn_client, Bytes(facts.alpn, facts.alpn_len));
  if (tr == HelloTransport::Quic) t.flags |= kTlsQuic;
  if ((t.flags & kTlsJa3c) && malicious_ja3(t.ja3c)) c.risk(Risk::MaliciousFingerprint);
  if (facts.sni && numeric_host(facts.sni, facts.sni_len)) c.risk(Risk::NumericIpHost);
  // nDPI judges the hello's own version field, not supported_versions.
  const uint16_t v = facts.legacy_version;
  if (v < 0x0303) c.risk(Risk::TlsObsoleteVersion);
  if (facts.has_alpn && facts.alpn_list && tls_uncommon_alpns(facts.alpn_list, facts.alpn_list_len)) c.risk(Risk::TlsUncommonAlpn);
  if (facts.susp_ext) c.risk(Risk::TlsSuspExtension);
  if (facts.long_padding) c.risk(Risk::Obfuscated);
  if (!facts.complete) return;  // an extension may be in the next segment
  // nDPI's domain fronting check: an encrypted SNI beside a clear one
  if (facts.esni && facts.sni && facts.sni_len && facts.sni[0]) c.risk(Risk::TlsSuspEsni);
  // Missing SNI from TLS 1.1 on (an empty name is none), with the ALPN/SNI
  // mismatch when an offered protocol starts with 'h'; no ALPN from TLS 1.2.
  if (v >= 0x0302 && !(facts.sni && facts.sni_len && facts.sni[0]) && !facts.esni) {
    c.risk(Risk::TlsMissingSni);
    bool h = false;
    if (facts.has_alpn && facts.alpn_list)
      tls_alpn_entries(facts.alpn_list, facts.alpn_list_len, [&](const uint8_t* a, size_t l) { return h = l && a[0] == 'h'; });
    if (h) c.risk(Risk::TlsAlpnSniMismatch);
  }
  if (v >= 0x0303 && !facts.has_alpn && tr != HelloTransport::Quic) c.risk(Risk::TlsNotCarryingHttps);
}

namespace {

// nDPI's Tor guess: Tor relays present random "www.<noise>.com|net" names.
bool tor_like(const char* s, size_t n) {
  return n > 8 && strncasecmp(s, "www.", 4) == 0 && (strncasecmp(s + n - 4, ".com", 4) == 0 || strncasecmp(s + n - 4, ".net", 4) == 0);
}

// Before the match, over TCP: a direction whose last segment ended inside a
// record resumes after it (nDPI reassembles the records; here the rest is
// skipped). One direction at a time: srv_skip bytes, srv_state bit 0x40
// when they are the client's. False when the whole segment is skipped.
constexpr uint8_t kPreSkipClient = 0x40;
constexpr uint8_t kPreNames = 0x20;  // that record (Application Data, Alert) names TLS if it ends a segment
// The flow's TLS metadata if it has some, without taking an entry (another
// protocol's dissector may need the flow's one).
FlowMeta* tls_meta_if_any(const DpiCtx& c) {
  const FlowMeta* fm = c.clf->meta(c.flow);
  return fm && fm->kind == MetaKind::Tls ? const_cast<FlowMeta*>(fm) : nullptr;
}

bool tcp_resume(const DpiCtx& c, Bytes b, size_t& start, bool& named) {
  FlowMeta* fm = tls_meta_if_any(c);
  if (!fm || !fm->tls.srv_skip || ((fm->tls.srv_state & kPreSkipClient) != 0) != c.from_client) return true;
  TlsMeta& t = fm->tls;
  if (t.srv_skip > b.size()) {
    t.srv_skip -= uint32_t(b.size());
    return false;
  }
  if (t.srv_skip == b.size()) named = (t.srv_state & kPreNames) != 0;  // the record ends the data
  start = t.srv_skip;
  t.srv_skip = 0, t.srv_state &= kTlsLooked;
  return start < b.size();
}

// nDPI's ndpi_looks_like_tls: a well-framed record makes TLS the flow's
// guess at give-up when its ports gave none (Classifier::give_up reads the
// mark; a flow on a port with a guess needs no mark).
void looks_like_tls(const DpiCtx& c) {
  if (guess_by_port(kProtoTcp, c.cli_port, c.srv_port)) return;
  if (FlowMeta* fm = c.meta(MetaKind::Tls)) fm->tls.srv_state |= kTlsLooked;
}

// nDPI's record walk (ndpi_search_tls_tcp) for a segment that does not open
// with a hello: a ChangeCipherSpec (1-byte body), an Alert or Application
// Data record ending the data (version 3.0–3.4) name the flow TLS; the
// handshake messages of other records must be well framed (else TLS is
// ruled out), and a ClientHello or ServerHello among them names it too.
Verdict tcp_records(const DpiCtx& c, Match& m, Bytes b, size_t off) {
  bool named = false, looked = false;
  auto look = [&] {  // once per segment: the mark stays
    if (!looked) looked = true, looks_like_tls(c);
  };
  while (off + 5 <= b.size()) {
    const uint8_t type = b[off];
    const size_t len = size_t(load_be16(b.data() + off + 3)) + 5;  // with the header
    if (off + len > b.size()) {  // goes on in the next segments
      // (kept for a TLS-looking record only: the entry is the flow's one)
      if (FlowMeta* fm = b[off + 1] == 0x03 ? c.meta(MetaKind::Tls) : nullptr) {
        const bool names = (type == 0x17 && len > 5) || type == 0x15;
        fm->tls.srv_skip = uint32_t(off + len - b.size());
        fm->tls.srv_state = uint8_t((fm->tls.srv_state & kTlsLooked) | (c.from_client ? kPreSkipClient : 0) | (names && b[off + 2] <= 0x04 ? kPreNames : 0));
      }
      break;
    }
    const bool version = b[off + 1] == 0x03 && b[off + 2] <= 0x04;
    const bool last = off + len == b.size();
    if (type == 0x14 && len == 6 && b[off + 1] == 0x03) named = true;
    if (type == 0x15) {
      if (len >= 7 && b[off + 5] == 2) c.risk(Risk::TlsFatalAlert);
      if (version && last) named = true;
    }
    if (len > 9 && type != 0x17) {
      // Handshake messages: 24-bit length (high byte 0), within the record.
      for (size_t p = 5; p + 4 <= len;) {
        const uint8_t* blk = b.data() + off + p;
        const size_t bl = size_t(blk[1]) << 16 | size_t(blk[2]) << 8 | blk[3];
        if (bl > len || blk[1] != 0) return named ? Verdict::Match : Verdict::No;
        const size_t take = std::min(bl + 4, b.size() - off);
        if (p + take > len) return named ? Verdict::Match : Verdict::No;
        look();
        if (blk[0] == 1 || blk[0] == 2) named = true;
        p += take;
      }
    } else if (len > 5 && type == 0x17) {
      if (len - 5 < 16384) look();  // a TLS record's size at most
      if (version && last) named = true;
    }
    off += len;
  }
  if (!named) return Verdict::NeedMore;
  if (FlowMeta* fm = tls_meta_if_any(c)) fm->tls.srv_skip = 0, fm->tls.srv_state = 0;
  m.app = tls_proto_by_port(c);
  return Verdict::Match;
}

// nDPI's DTLS walk (ndpi_search_tls_udp, is_dtls) before the match: records
// of type 20–23, version DTLS 1.0/1.2/1.3 (or 0x0100), a non-zero length
// short of the datagram's; a whole ClientHello or ServerHello (message length
// + 12 = record length), or Application Data, names the flow DTLS. A
// ChangeCipherSpec, a malformed record or records not filling the datagram
// rule DTLS out; a handshake fragment waits for the rest.
Verdict dtls_walk(const DpiCtx& c, Bytes b) {
  const size_t n = b.size();
  size_t off = 0;
  bool named = false, pending = false;
  while (off + 13 < n) {
    const uint8_t* r = b.data() + off;
    const bool version = (r[1] == 0xfe && (r[2] == 0xff || r[2] == 0xfd || r[2] == 0xfc)) || (r[1] == 0x01 && r[2] == 0x00);
    if (r[0] < 0x14 || r[0] > 0x17 || !version) return named ? Verdict::Match : Verdict::No;
    const size_t bl = load_be16(r + 11);
    if (bl == 0 || bl + 12 >= n) return named ? Verdict::Match : Verdict::No;
    if (r[0] == 0x16) {
      if (off + bl + 13 > n) return named ? Verdict::Match : Verdict::No;
      if (bl > 24) {
        const size_t hl = size_t(r[14]) << 16 | size_t(r[15]) << 8 | r[16];
        const size_t fl = size_t(r[22]) << 16 | size_t(r[23]) << 8 | r[24];
        if (hl + 12 == bl) {
          if (r[13] == 1 || r[13] == 2) named = true;
        } else if (hl + 12 > bl && fl + 12 <= bl) {
          pending = true;  // a fragment: nDPI gathers the message
        } else {
          return named ? Verdict::Match : Verdict::No;
        }
      }
    } else if (r[0] == 0x14) {
      return named ? Verdict::Match : Verdict::No;  // then encrypted
    } else if (r[0] == 0x15) {
      if (bl == 2 && r[13] == 2) c.risk(Risk::TlsFatalAlert);
    } else {
      return Verdict::Match;  // Application Data: DTLS mid-session
    }
    off += bl + 13;
  }
  if (named) return Verdict::Match;
  return off == n || pending ? Verdict::NeedMore : Verdict::No;
}

// A ClientHello record (`rec`, as far as it goes): its name, metadata and
// risks; the name in `m` (TLS.App, or a cached app).
void read_client_hello(DpiCtx& c, Match& m, Bytes rec) {
  const char* raw = nullptr;
  size_t raw_len = 0, len = 0;
  char name[80];
  if (tls_client_hello_sni(rec, raw, raw_len)) len = tls_sni_name(c, raw, raw_len, name);
  HelloFacts facts;
  tls_hello_meta(c, rec.subspan(5, std::min<size_t>(rec.size() - 5, load_be16(rec.data() + 3))), HelloTransport::Tcp, &facts);
  if (c.match_named(m, tls_proto_by_port(c), name, len) && tor_like(name, len)) m.master = id(ProtoId::TLS), m.app = id(ProtoId::Tor);
  if (!m.master) {
    if (const uint16_t app = cert_cache_app(c, true)) m.master = m.app, m.app = app, m.cached = true;
  }
}

// A ClientHello record of `record` bytes, cut by its first segment `b`:
// gathered when a buffer is free (and the record fits one).
bool hello_gather_start(const DpiCtx& c, Bytes b, size_t record) {
  if (record > sizeof(CertGather::data)) return false;
  CertGather* g = gather_slot(c, true, true);
  if (!g) return false;
  std::memcpy(g->data, b.data(), b.size());
  g->have = uint32_t(b.size()), g->need = uint32_t(record);
  g->next_seq = c.p.tcp_seq + uint32_t(b.size());
  return true;
}

// The hello's next segment: appended in sequence; read once whole, as nDPI
// then reads it (the flow's name, its metadata and risks; TLS's 12 packets
// from here). A gap ends the gathering: the flow stays plain TLS.
void hello_gather_more(DpiCtx& c, TlsMeta& t, CertGather& g) {
  Bytes b = c.payload;
  if (c.p.tcp_seq != g.next_seq) {
    if (int32_t(c.p.tcp_seq - g.next_seq) < 0) return;  // old bytes again (a segment overlapping the end is not taken)
    g = CertGather{}, t.hello_seq = 0;
    return;
  }
  const size_t take = std::min<size_t>(b.size(), g.need - g.have);
  std::memcpy(g.data + g.have, b.data(), take);
  g.have += uint32_t(take), g.next_seq += uint32_t(b.size()), g.used_ns = c.p.ts_ns;
  if (g.have < g.need) return;
  Match m;
  read_client_hello(c, m, Bytes(g.data, g.have));
  g = CertGather{}, t.hello_seq = 0;
  tls_read_from(c);
  if (m.master) c.clf->refine(c.flow, m.master, m.app, m.cached ? Confidence::DpiCache : Confidence::Dpi);
}

Verdict classify_tls(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    FlowMeta* fm = c.meta(MetaKind::Tls);
    if (!fm) return Verdict::No;
    if (c.p.l4_proto == kProtoUdp) return dtls_read_records(c) ? Verdict::No : Verdict::NeedMore;
    TlsMeta& t = fm->tls;
    // a hello being gathered: nDPI's match, and its 12 packets, come once it is whole
    CertGather* hello = t.hello_seq ? gather_slot(c, false, true) : nullptr;
    if (!hello && tls_read_spent(c)) return Verdict::No;
    if (c.retrans) return Verdict::NeedMore;
    // the ClientHello's side: the flow's client unless srv_state bit 0 says the TLS server is
    if (t.hello_seq && c.from_client == ((t.srv_state & 1) == 0)) {
      if (hello) {
        hello_gather_more(c, t, *hello);
        return Verdict::NeedMore;
      }
      if (c.p.tcp_seq == t.hello_seq && t.hello_app) c.clf->refine(c.flow, c.flow.l7_app, t.hello_app);
      // nDPI matches a cut ClientHello once it is whole: its reading starts here
      if (c.p.tcp_seq == t.hello_seq) t.hello_seq = 0, tls_read_from(c);
      return Verdict::NeedMore;
    }
    // srv_state 1: the capture began with the server's records, so the
    // flow's "client" is the TLS server.
    if (c.from_client != ((fm->tls.srv_state & 1) == 1)) return Verdict::NeedMore;
    return walk_server(c, fm->tls) ? Verdict::No : Verdict::NeedMore;
  }
  // nDPI's TCP reassembly starts with a record's content type (20–26): a
  // direction opening with anything else rules TLS out. A hello at the
  // start is read below; anything else is walked record by record.
  if (c.p.l4_proto == kProtoTcp) {
    size_t start = 0;
    bool named = false;
    if (!tcp_resume(c, b, start, named)) {
      if (!named) return Verdict::NeedMore;
      m.app = tls_proto_by_port(c);
      return Verdict::Match;
    }
    if (b[start] < 20 || b[start] > 26) return Verdict::No;
    // (nDPI reads a handshake record whatever its version bytes say)
    const bool hello = start == 0 && b.size() >= 6 && b[0] == 0x16 && (b[5] == 1 || b[5] == 2);
    if (!hello) return tcp_records(c, m, b, start);
    // nDPI splits the record into handshake messages: one whose length
    // overruns the record (or is 64 KiB or more) is "something went wrong",
    // which rules TLS out (ndpi_search_tls_wrapper).
    if (b.size() >= 9 && (b[6] != 0 || size_t(load_be16(b.data() + 7)) + 4 > load_be16(b.data() + 3))) return Verdict::No;
    if (FlowMeta* fm = tls_meta_if_any(c)) fm->tls.srv_skip = 0, fm->tls.srv_state = 0;  // the walk starts afresh
  }
  if (b.size() < 6) return c.p.l4_proto == kProtoUdp ? Verdict::No : Verdict::NeedMore;  // nDPI: no DTLS record fits
  if (c.p.l4_proto == kProtoUdp) {
    // DTLS (RFC 6347, 9147) as nDPI walks a datagram's records.
    const Verdict v = dtls_walk(c, b);
    if (v != Verdict::Match) return v;
    {
      m.app = id(ProtoId::DTLS);
      if (c.from_client && b.size() > 13 && b[13] == 0x01) tls_hello_meta(c, b.subspan(13), HelloTransport::Dtls);
      // Then the server's flight, maybe already in this datagram.
      t_cert_app = 0;
      m.more = !dtls_read_records(c);
      if (t_cert_app) m.master = m.app, m.app = t_cert_app;
      return Verdict::Match;
    }
  }
  uint8_t hs = b[5];
  // A ClientHello from either side (nDPI's processTLSBlock keeps its
  // direction, ch_direction): from the flow's server, the TLS server is the
  // flow's client (srv_state bit 0, as for a capture opening with the
  // server's flight).
  if (hs == 0x01) {
    const size_t record = size_t(load_be16(b.data() + 3)) + 5;
    // cut short: gathered and read once whole (named TLS till then), or
    // with every buffer in use read as far as it goes
    FlowMeta* fm = record > b.size() && c.p.l4_proto == kProtoTcp ? c.meta(MetaKind::Tls) : nullptr;
    if (fm && hello_gather_start(c, b, record)) m.app = tls_proto_by_port(c);
    else read_client_hello(c, m, b);
    fm = c.meta(MetaKind::Tls);
    m.more = fm != nullptr;
    tls_read_from(c);
    if (fm && !c.from_client) fm->tls.srv_state |= 1;
    // nDPI reads a ClientHello once its record is whole: one cut short
    // names the flow only when its next segment follows in sequence (a
    // lost segment leaves it plain TLS).
    if (fm && record > b.size()) {
      fm->tls.hello_app = m.master ? m.app : 0;
      fm->tls.hello_seq = c.p.tcp_seq + uint32_t(b.size());
      if (!fm->tls.hello_seq) fm->tls.hello_seq = 1;  // 0 means none
      if (m.master) m.app = m.master, m.master = 0;
    }
    return Verdict::Match;
  }
  if (hs == 0x02) {
    // From whichever side: a capture starting at the server's first flight
    // has the server as the flow's client.
    m.app = tls_proto_by_port(c);
    t_cert_app = 0, t_cert_cached = false;
    if (FlowMeta* fm = c.meta(MetaKind::Tls)) {
      fm->tls.srv_state = c.from_client ? 1 : 0;
      m.more = !walk_server(c, fm->tls);
      tls_read_from(c);
    }
    if (t_cert_app) m.master = m.app, m.app = t_cert_app, m.cached = t_cert_cached;
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(tls, {"TLS", id(ProtoId::TLS), kL4Both, 6, classify_tls});

}  // namespace fg
