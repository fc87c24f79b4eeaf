// ④ RDP (MS-RDPBCGR §2.2.1.1): the client opens with a TPKT header
// (03 00 <length>) carrying an X.224 Connection Request (code 0xe0, dst-ref
// 0, class 0), followed by "Cookie: mstshash=…" or an RDP negotiation
// request; the server's Connection Confirm (0xd0) is accepted too. A request
// asking for TLS security (requestedProtocols bit 0, PROTOCOL_SSL) is read on
// for up to 5 packets: a TLS handshake record names the flow TLS.RDP and the
// handshake is read as TLS's. nDPI reads that flag at byte 43 of the request
// whatever the cookie's length (where requestedProtocols lies after the
// shortest cookies); so do we, to name the same flows.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

enum RdpState : uint8_t { kTlsAsked = 1, kInTls = 2 };

// After a request for TLS security: the first handshake record, within 5 packets.
Verdict read_on(DpiCtx& c) {
  uint8_t& st = c.info->state[0];
  uint8_t& seen = c.info->state[1];
  if (st == kInTls) return tls_after_starttls(c);
  if (c.payload.size() > 1 && c.payload[0] == 0x16) {
    tls_begins(c, id(ProtoId::TLS), id(ProtoId::RDP));
    st = kInTls;
    return tls_after_starttls(c);
  }
  return ++seen < 5 ? Verdict::NeedMore : Verdict::No;
}

Verdict classify_rdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return read_on(c);
  if (b.size() < 11) return Verdict::No;
  if (b[0] != 3 || b[1] != 0 || size_t(b[2] << 8 | b[3]) != b.size()) return Verdict::No;
  if (b[4] != b.size() - 5) return Verdict::No;  // X.224 length indicator
  const uint8_t code = b[5] & 0xf0;
  if (code != 0xe0 && code != 0xd0) return Verdict::No;
  if (b[6] != 0 || b[7] != 0 || b[10] != 0) return Verdict::No;  // dst-ref, class 0
  // A CR carries the routing cookie or an RDP negotiation request
  // (type 1, length 8) at its end; a CC an RDP negotiation response or
  // failure (type 2 / 3, length 8). Other ISO transports (MMS …) carry TSAPs.
  const size_t n = b.size();
  bool rdp;
  if (code == 0xe0) {
    static const char kCookie[] = "Cookie: mstshash=";
    rdp = (n >= 11 + sizeof(kCookie) - 1 && std::memcmp(b.data() + 11, kCookie, sizeof(kCookie) - 1) == 0) ||
          (n >= 19 && b[n - 8] == 1 && b[n - 6] == 8 && b[n - 5] == 0);
  } else {
    rdp = n == 19 && (b[11] == 2 || b[11] == 3) && b[13] == 8 && b[14] == 0;
  }
  if (!rdp) return Verdict::No;
  m.app = id(ProtoId::RDP);
  if (code == 0xe0 && c.from_client && n > 43 && (b[43] & 0x01) && c.info) {
    c.info->state[0] = kTlsAsked, c.info->state[1] = 0;
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rdp, {"RDP", id(ProtoId::RDP), kL4Tcp, 3, classify_rdp});

}  // namespace fg
