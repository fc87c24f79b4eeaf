// ④ RDP over TCP (MS-RDPBCGR §2.2.1.1): the client opens with a TPKT header
// (03 00 <length>) carrying an X.224 Connection Request (code 0xe0),
// followed by a routing cookie or an RDP negotiation request; the server's
// Connection Confirm (0xd0) is accepted too. A request
// asking for TLS security (requestedProtocols bit 0, PROTOCOL_SSL) is read on
// for up to 5 packets: a TLS handshake record names the flow TLS.RDP and
// the handshake is read as TLS's — off RDP's port only the server's (nDPI's
// TLS buffer for the client's side begins with the request). nDPI reads that flag at byte 43 of the request
// whatever the cookie's length (where requestedProtocols lies after the
// shortest cookies); so do we, to name the same flows.
// Kept difference: nDPI also reads RDP over UDP port 3389 (RDPUDP SYN /
// SYN-ACK and mid-flow packets), comparing 3-byte sequence prefixes across
// packets; every scratch slot is taken, so that part is not done here.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

enum RdpState : uint8_t { kTlsAsked = 1, kInTls = 2 };

// After a request for TLS security: the first handshake record, within 5
// packets of any kind (tls_read_from; TLS's reading keeps that count), a
// retransmission passed by as TLS's reading does.
Verdict read_on(DpiCtx& c) {
  uint8_t& st = c.info->state[0];
  if (st == kInTls) return tls_after_starttls(c);
  if (tls_read_spent(c)) return Verdict::No;  // RDP's 5
  if (c.retrans) return Verdict::NeedMore;
  if (c.payload.size() > 1 && c.payload[0] == 0x16) {
    // nDPI's TLS reassembly for the request's side holds the request when
    // its TLS dissector read it before RDP matched (the ports did not guess
    // RDP, whose dissector nDPI would then have asked first): a record from
    // that side is garbage to it and ends the read.
    if (c.from_client && c.info->state[2]) return Verdict::No;
    // nDPI's reading here hands TLS only the segments that open with a
    // record: a handshake record cut short is never whole to it
    if (c.payload.size() < 5 || size_t(load_be16(c.payload.data() + 3)) + 5 > c.payload.size()) return Verdict::NeedMore;
    tls_begins(c, id(ProtoId::TLS), id(ProtoId::RDP));
    st = kInTls;
    return tls_after_starttls(c);
  }
  return Verdict::NeedMore;
}

Verdict classify_rdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return read_on(c);
  // nDPI's test (src/lib/protocols/rdp.c), on the flow's first packet: a
  // TPKT header whose length is the segment's and an X.224 length
  // indicator for the rest; from the client a Connection Request (0xe0)
  // with an RDP negotiation request (type 1, length 8 at offsets 11 / 13)
  // or "Cookie:" at offset 11; from the server a Connection Confirm (0xd0)
  // with a negotiation response (type 2, length 8).
  const size_t n = b.size();
  if (n <= 13 || b[0] != 3 || b[1] != 0 || load_be16(b.data() + 2) != n || b[4] != n - 5) return Verdict::No;
  bool rdp;
  if (c.from_client)
    rdp = b[5] == 0xe0 && ((b[11] == 0x01 && b[13] == 0x08) || (n > 17 && std::memcmp(b.data() + 11, "Cookie:", 7) == 0));
  else
    rdp = b[5] == 0xd0 && b[11] == 0x02 && b[13] == 0x08;
  if (!rdp) return Verdict::No;
  m.app = id(ProtoId::RDP);
  if (c.from_client && n > 43 && (b[43] & 0x01) && c.info) {
    c.info->state[0] = kTlsAsked;
    tls_read_from(c);
    c.info->state[2] = guess_by_port(kProtoTcp, c.cli_port, c.srv_port) != id(ProtoId::RDP);
    m.more = true;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rdp, {"RDP", id(ProtoId::RDP), kL4Tcp, 3, classify_rdp});

}  // namespace fg
