// ④ TLS ClientHello (RFC 8446 §4.1.2, RFC 6066 §3): the server_name extension.
#include "dpi/dpi.h"
#include "dpi/names.h"

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
// the app (TLS.YouTube).
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

Verdict classify_tls(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 6) return Verdict::NeedMore;
  if (c.p.l4_proto == kProtoUdp) {
    // DTLS: handshake record, version 0xfeff / 0xfefd (RFC 6347, 9147).
    if (b[0] == 0x16 && b[1] == 0xfe && (b[2] == 0xff || b[2] == 0xfd)) {
      m.app = id(ProtoId::DTLS);
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
    c.match_named(m, tls_proto_by_port(c), name, len);
    return Verdict::Match;
  }
  if (hs == 0x02) {
    m.app = tls_proto_by_port(c);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(tls, {"TLS", id(ProtoId::TLS), kL4Both, 6, classify_tls});

}  // namespace fg
