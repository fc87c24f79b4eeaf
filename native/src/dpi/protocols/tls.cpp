// ④ TLS ClientHello (RFC 8446 §4.1.2, RFC 6066 §3): the server_name extension.
#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/tls_parse.h"

#include <algorithm>
#include <cstring>
#include <strings.h>

namespace fg {

bool tls_client_hello_sni(Bytes b, const char*& name, size_t& len) {
  // Record header: type 22 (handshake), version 3.x, length; then the handshake.
  if (b.size() < 5 + 4 + 38 || b[0] != 0x16 || b[1] != 0x03) return false;
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
      return plausible_name(name, len);
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
void cert_risks(const DpiCtx& c, const TlsMeta& t) {
  if (t.issuer[0] && std::strcmp(t.issuer, t.subject) == 0) c.risk(Risk::TlsSelfSigned);
  if (!t.not_after) return;
  const int64_t now = int64_t(c.p.ts_ns / 1000000000ULL);
  if (now < t.not_before || now > t.not_after) c.risk(Risk::TlsCertExpired);
  else if (t.not_after - now < 30 * kDay) c.risk(Risk::TlsCertAboutToExpire);
  // CA/Browser Forum: at most 398 days for certificates issued after 2020-09-01.
  if (t.not_before >= 1598918400 && t.not_after - t.not_before > 398 * kDay) c.risk(Risk::TlsCertTooLong);
}

// TLS ≤ 1.1 (SSLv3 included), from what the client offers as nDPI judges
// it: a TLS 1.2 client served TLS 1.0 is not flagged. DTLS is not TLS.
bool obsolete(uint16_t v) { return v >= 0x0300 && v < 0x0303; }

void server_hello_risks(const DpiCtx& c, const TlsMeta& t) {
  if (!(t.flags & kTlsClientHello) && obsolete(t.version)) c.risk(Risk::TlsObsoleteVersion);
  if (tls_weak_cipher(t.cipher)) c.risk(Risk::TlsWeakCipher);
}

// nDPI names a TLS flow its SNI left unnamed by the server certificate's
// names (subject CN, subjectAltName dNSNames) against the host patterns.
// During the match itself (a capture starting at the ServerHello) the app
// is handed back here instead.
thread_local uint16_t t_cert_app = 0;

bool cert_name_app(void* ctx, const char* name, size_t len) {
  DpiCtx& c = *static_cast<DpiCtx*>(ctx);
  if (len > 2 && name[0] == '*' && name[1] == '.') name += 2, len -= 2;
  if (!len || len > 255) return false;
  char low[256];
  for (size_t i = 0; i < len; i++) low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? char(name[i] + 32) : name[i];
  const uint16_t app = app_by_host(low, len);
  if (!app) return false;
  if (c.extra) c.clf->refine(c.flow, c.flow.l7_app, app);
  else t_cert_app = app;
  return true;
}

// nDPI's certificate-organisation list (tls_certificate_match): a DN
// fragment of the issuer or subject names the application when the
// certificate's names did not.
struct DnApp {
  const char* fragment;
  ProtoId app;
};
constexpr DnApp kDnApps[] = {
    {"O=Fortinet", ProtoId::FortiClient},
    {"O=Windscribe", ProtoId::Windscribe},
    {"CN=AnyDesk Client", ProtoId::AnyDesk},
    {"O=philandro Software GmbH", ProtoId::AnyDesk},
};

void cert_dn_app(const DpiCtx& c, const TlsMeta& t) {
  for (const DnApp& d : kDnApps) {
    if (!std::strstr(t.issuer, d.fragment) && !std::strstr(t.subject, d.fragment)) continue;
    if (c.extra) c.clf->refine(c.flow, c.flow.l7_app, id(d.app));
    else t_cert_app = id(d.app);
    return;
  }
}

// The server's stream, record by record, from the segments in order: what
// a segment does not hold is skipped (srv_skip) rather than reassembled.
// True when nothing more is to be read.
bool walk_server(const DpiCtx& c, TlsMeta& t) {
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
          if (tls_read_server_hello(msg, t)) server_hello_risks(c, t);
          if (t.version == 0x0304) return true;  // certificate encrypted
        } else if (ht == 11 && !(t.flags & kTlsCert)) {
          // Only a flow still plain TLS (or its mail variants) is named.
          const bool unnamed = !c.extra || (c.flow.l7_master == 0 && c.flow.l7_app == tls_proto_by_port(c));
          if (tls_read_certificate(msg.subspan(4), t, unnamed ? cert_name_app : nullptr, const_cast<DpiCtx*>(&c))) {
            cert_risks(c, t);
            // still unnamed after the certificate's names
            if (unnamed && (c.extra ? c.flow.l7_app == tls_proto_by_port(c) && !c.flow.l7_master : !t_cert_app)) cert_dn_app(c, t);
          }
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

}  // namespace

bool numeric_host(const char* s, size_t n) {
  if (!n) return false;
  bool v4 = true;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '.' || (s[i] >= '0' && s[i] <= '9'))) v4 = false;
  return v4 || s[0] == '[' || std::memchr(s, ':', n) != nullptr;
}

void tls_hello_meta(DpiCtx& c, Bytes hs, HelloTransport tr) {
  FlowMeta* fm = c.meta(MetaKind::Tls);
  TlsMeta scratch{};
  TlsMeta& t = fm ? fm->tls : scratch;
  HelloFacts facts;
  if (!tls_read_client_hello(hs, tr, t, facts)) return;
  if (tr == HelloTransport::Quic) t.flags |= kTlsQuic;
  if (facts.sni && numeric_host(facts.sni, facts.sni_len)) c.risk(Risk::NumericIpHost);
  if (obsolete(t.client_version)) c.risk(Risk::TlsObsoleteVersion);
  if (!facts.complete) return;  // an extension may be in the next segment
  // nDPI expects SNI and ALPN from TLS 1.2 on (and from DTLS).
  if (t.client_version < 0x0303) return;
  if (!facts.has_sni) {
    c.risk(Risk::TlsMissingSni);
    if (facts.has_alpn) c.risk(Risk::TlsAlpnSniMismatch);
  }
  if (!facts.has_alpn && tr != HelloTransport::Quic) c.risk(Risk::TlsNotCarryingHttps);
}

namespace {

// nDPI's Tor guess: Tor relays present random "www.<noise>.com|net" names.
bool tor_like(const char* s, size_t n) {
  return n > 8 && strncasecmp(s, "www.", 4) == 0 && (strncasecmp(s + n - 4, ".com", 4) == 0 || strncasecmp(s + n - 4, ".net", 4) == 0);
}

Verdict classify_tls(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    FlowMeta* fm = c.meta(MetaKind::Tls);
    if (!fm) return Verdict::No;
    if (c.from_client) return Verdict::NeedMore;
    return walk_server(c, fm->tls) ? Verdict::No : Verdict::NeedMore;
  }
  if (b.size() < 6) return Verdict::NeedMore;
  if (c.p.l4_proto == kProtoUdp) {
    // DTLS: handshake record, version 0xfeff / 0xfefd (RFC 6347, 9147).
    if (b[0] == 0x16 && b[1] == 0xfe && (b[2] == 0xff || b[2] == 0xfd)) {
      m.app = id(ProtoId::DTLS);
      if (c.from_client && b.size() > 13 && b[13] == 0x01) tls_hello_meta(c, b.subspan(13), HelloTransport::Dtls);
      return Verdict::Match;
    }
    return Verdict::No;
  }
  if (b[0] != 0x16 || b[1] != 0x03 || b[2] > 0x04) return Verdict::No;
  uint8_t hs = b[5];
  if (hs == 0x01 && c.from_client) {
    const char* name = nullptr;
    size_t len = 0;
    if (!tls_client_hello_sni(b, name, len)) len = 0;
    tls_hello_meta(c, b.subspan(5, std::min<size_t>(b.size() - 5, load_be16(b.data() + 3))), HelloTransport::Tcp);
    if (c.match_named(m, tls_proto_by_port(c), name, len) && tor_like(name, len)) m.master = id(ProtoId::TLS), m.app = id(ProtoId::Tor);
    m.more = c.meta(MetaKind::Tls) != nullptr;
    return Verdict::Match;
  }
  if (hs == 0x02) {
    m.app = tls_proto_by_port(c);
    if (!c.from_client) {
      t_cert_app = 0;
      if (FlowMeta* fm = c.meta(MetaKind::Tls)) m.more = !walk_server(c, fm->tls);
      if (t_cert_app) m.master = m.app, m.app = t_cert_app;
    }
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(tls, {"TLS", id(ProtoId::TLS), kL4Both, 6, classify_tls});

}  // namespace fg
