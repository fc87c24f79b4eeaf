// ④ LINE calls (LINE Corporation's VoIP; no public wire format, the shapes
// are those nDPI recognises, read from captures), reported as LineCall.
// nDPI's rules (src/lib/protocols/line.c), UDP, on every payload datagram
// until one decides:
//  1. IPv4 only, and only when the flow's address guess (server first,
//     then client: nDPI's guessed_protocol_id_by_ip) is LINE: a datagram of
//     110 bytes opening b6 18 00 6a; of 738+ bytes opening da|db with 06 02
//     at bytes 4–5; of 150+ bytes opening d9|d8, the high nibble of byte 1
//     9, d or e, and 06 02 at bytes 4–5; of 46 bytes opening b6130006, of 8
//     bytes b6070004, of 16 bytes b609000c; or any opening d0 then b3, b4,
//     da or db names the flow. Otherwise rule 2 reads the same datagram.
//  2. Any UDP flow, IPv4 or IPv6: byte 3 of each datagram is a counter,
//     kept per nDPI direction (ndpi_direction.h: with equal ports over
//     IPv6 every datagram is direction 1). A datagram of 10 bytes or less
//     rules LINE out. A direction's first datagram notes its byte 3 as the
//     base. A later one shaped as RTP or RTCP (rtp_shape.h) is stepped over
//     while the flow has fewer than 10 payload datagrams, and rules LINE
//     out from the 10th on; any other must carry base + the datagrams
//     counted so far (mod 256), else LINE is ruled out. Once both
//     directions counted 4, different bases name the flow and equal bases
//     rule it out.
// No packet budget of its own: nDPI reads until a rule decides.
// State: kScratchLine (dpi.h), the two bases then the two counts.
#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"
#include "dpi/protocols/rtp_shape.h"

namespace fg {
namespace {

// Rule 1's datagram shapes.
bool call_shape(Bytes b) {
  const size_t n = b.size();
  const uint8_t* p = b.data();
  if (n >= 2 && p[0] == 0xd0 && (p[1] == 0xb3 || p[1] == 0xb4 || p[1] == 0xda || p[1] == 0xdb)) return true;
  if (n < 8) return false;
  const uint32_t head = load_be32(p);
  if ((n == 110 && head == 0xb618006a) || (n == 46 && head == 0xb6130006) || (n == 8 && head == 0xb6070004) ||
      (n == 16 && head == 0xb609000c))
    return true;
  const bool tag = p[4] == 0x06 && p[5] == 0x02;
  if (n >= 738 && (p[0] == 0xda || p[0] == 0xdb) && tag) return true;
  const uint8_t hi = p[1] & 0xf0;
  return n >= 150 && (p[0] == 0xd9 || p[0] == 0xd8) && (hi == 0x90 || hi == 0xd0 || hi == 0xe0) && tag;
}

constexpr uint8_t kCounted = 4;     // datagrams each direction must count
constexpr uint8_t kRtpPackets = 10;  // RTP / RTCP stepped over below this many payload datagrams

Verdict classify_line(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (c.p.ip_version == 4 && app_by_flow_ip(c.flow) == id(ProtoId::Line) && call_shape(b)) {
    m.app = id(ProtoId::LineCall);
    return Verdict::Match;
  }
  if (b.size() <= 10) return Verdict::No;
  uint8_t* s = c.scratch(kScratchLine);
  if (!s) return Verdict::No;
  uint8_t* base = s;
  uint8_t* count = s + 2;
  const uint8_t d = ndpi_direction(c.p);
  if (count[d] == 0) {
    base[d] = b[3];
    count[d] = 1;
    return Verdict::NeedMore;
  }
  if (rtp_shape(b.data(), b.size()) != RtpShape::None) return c.flow.dpi_packets < kRtpPackets ? Verdict::NeedMore : Verdict::No;
  if (uint8_t(base[d] + count[d]) != b[3]) return Verdict::No;
  count[d]++;
  if (count[0] < kCounted || count[1] < kCounted) return Verdict::NeedMore;
  if (base[0] == base[1]) return Verdict::No;
  m.app = id(ProtoId::LineCall);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(line, {"LineCall", id(ProtoId::LineCall), kL4Udp, kMaxDpiPackets, classify_line});

}  // namespace fg
