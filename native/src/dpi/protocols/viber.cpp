// ④ Viber (Rakuten Viber's proprietary messaging and call transport; no
// public specification, the shapes are those nDPI recognises, read from
// captures). Ports are not required.
//  - TCP: the first payload packet, at least 11 bytes, opens with its own
//    length (little-endian 16-bit) and then has either 0xfcff at bytes 6–7
//    and 0x80 at byte 9, or 0x0380 at bytes 4–5 and 0x0a at byte 10;
//    otherwise the flow is ruled out.
//  - UDP: the first datagram over 5 bytes decides: bytes 2–3 read 03 00; or
//    09 00 in a 20-byte datagram; or 01 00 05 00 at bytes 2–5; or 19 00 or
//    1b 00 in a 34-byte one. nDPI skips a flow its RTP dissector (asked
//    before Viber) already found RTP/RTCP-shaped: we recompute that here, the
//    datagram being RTP or RTCP in shape where RTP would look (not from/to
//    30303, not to 5355, 5353, 9600 or a port below 1024) within the flow's
//    first 3 payload packets, unless the ports guess Viber (7985, 7987,
//    5242, 5243, 4244 over UDP): then nDPI asks Viber first. Shorter datagrams wait, up to the 4th packet.
//    IPv4 broadcast (255.255.255.255 either way) is never Viber.
// nDPI's Viber IP list and host names (viber.com …) are outside this file.
#include "dpi/dpi.h"
#include "dpi/registry.h"
#include "dpi/protocols/rtp_shape.h"

namespace fg {
namespace {

bool tcp_shape(Bytes b) {
  if (b.size() < 11 || load_le16(b.data()) != b.size()) return false;
  return (load_be16(b.data() + 6) == 0xfcff && b[9] == 0x80) || (load_be16(b.data() + 4) == 0x0380 && b[10] == 0x0a);
}

bool udp_shape(Bytes b) {
  const size_t n = b.size();
  if (b[3] != 0x00) return false;
  switch (b[2]) {
    case 0x03: return true;
    case 0x09: return n == 20;
    case 0x01: return b[4] == 0x05 && b[5] == 0x00;
    case 0x19:
    case 0x1b: return n == 34;
    default: return false;
  }
}

// Would nDPI's RTP dissector have counted this datagram (rtp/rtcp stage > 0)?
bool rtp_counted(const DpiCtx& c) {
  const uint16_t sport = c.p.sport, dport = c.p.dport;
  if (sport == 30303 || dport == 30303 || dport == 5355 || dport == 5353 || dport == 9600 || dport <= 1023) return false;
  if (c.flow.dpi_packets > 3) return false;
  if (guess_by_port(c.p.l4_proto, c.cli_port, c.srv_port) == id(ProtoId::Viber)) return false;
  return rtp_shape(c.payload.data(), c.payload.size()) != RtpShape::None;
}

Verdict classify_viber(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (c.p.l4_proto == kProtoTcp) {
    if (!tcp_shape(b)) return Verdict::No;
    m.app = id(ProtoId::Viber);
    return Verdict::Match;
  }
  if (c.p.ip_version == 4 && (c.p.src.v4() == 0xffffffff || c.p.dst.v4() == 0xffffffff)) return Verdict::No;
  if (b.size() <= 5) return c.flow.dpi_packets > 3 ? Verdict::No : Verdict::NeedMore;
  if (rtp_counted(c) || !udp_shape(b)) return Verdict::No;
  m.app = id(ProtoId::Viber);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(viber, {"Viber", id(ProtoId::Viber), kL4Both, 4, classify_viber});

}  // namespace fg
