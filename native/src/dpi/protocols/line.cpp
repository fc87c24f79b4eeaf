// ④ LINE calls (LINE Corporation's VoIP; no public wire format, the shapes
// are those nDPI recognises, read from captures), reported as LineCall.
// What nDPI decides, and what we keep:
//  - IPv4 flows whose server address (else the client's: nDPI's guess by
//    IP) is in nDPI's LINE IP list: a datagram of 110 bytes opening
//    b6 18 00 6a; of 738+ bytes opening da|db with 06 02 at bytes 4–5; of
//    150+ bytes opening d9|d8, the high nibble of byte 1 9, d or e, and
//    06 02 at bytes 4–5; of 46 bytes opening b6130006, 8 bytes b6070004,
//    16 bytes b609000c; or any opening d0 then b3, b4, da or db. Kept.
//  - Any UDP flow (no IP condition): over-10-byte datagrams whose 4th byte
//    counts up by one per packet from a base, per direction, RTP/RTCP
//    packets in between ignored for the first 9 packets; 4 counted per
//    direction with different bases is LineCall, the same base rules it
//    out. NOT kept: that needs a base and a count per direction (4 bytes
//    carried across packets) and group G has one scratch byte, given to
//    Xbox. So a flow outside LINE's addresses is ruled out at once here,
//    and on LINE's addresses an over-10-byte datagram of no known shape
//    keeps the flow open (nDPI keeps it while its counter holds) up to the
//    10th payload packet.
#include "dpi/dpi.h"

namespace fg {
namespace {

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

Verdict classify_line(DpiCtx& c, Match& m) {
  if (c.p.ip_version != 4) return Verdict::No;
  if (app_by_flow_ip(c.flow) != id(ProtoId::Line)) return Verdict::No;
  if (call_shape(c.payload)) {
    m.app = id(ProtoId::LineCall);
    return Verdict::Match;
  }
  return c.payload.size() > 10 ? Verdict::NeedMore : Verdict::No;
}

}  // namespace

FG_DISSECTOR(line, {"LineCall", id(ProtoId::LineCall), kL4Udp, 10, classify_line});

}  // namespace fg
