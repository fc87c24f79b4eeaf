// ④ BFCP, the Binary Floor Control Protocol (RFC 4582 §5.1, RFC 8855 §5.1),
// TCP or UDP on any port. Common header: Ver(3) R(1) F(1) Res(3),
// Primitive(8), Payload Length(16), Conference ID(32), Transaction ID(16),
// User ID(16). nDPI wants version 1 with the bit after R (F in RFC 8855)
// clear, a primitive from 1 to 17 (FloorRequest … FloorRequestStatusAck),
// at least 12 bytes, and two such packets of the same conference: the first
// one remembered, the second one with the same Conference ID decides. Any
// other packet rules the flow out.
// State: a 16-bit fold of the Conference ID (kScratchBfcp and, by
// transport, kScratchBfcpTcp or kScratchBfcpUdp: no more bytes are free).
// Difference: two packets of different conferences whose folds agree
// (1 in 65536) still match.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// The flow is still BFCP's candidate only when every payload packet so far
// was a BFCP header, whose first byte (version 1: 0x20..0x37) rules out the
// other users of these bytes before they store anything: RTMP (0x03 first,
// and asked before BFCP on each packet), HalfLife2 (0xff first) (dpi.h).

Verdict classify_bfcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 12) return Verdict::No;
  const uint8_t version = b[0] >> 5, f_bit = (b[0] >> 3) & 1;
  if (version != 1 || f_bit != 0 || b[1] < 1 || b[1] > 17) return Verdict::No;
  uint8_t* lo = c.scratch(kScratchBfcp);
  uint8_t* hi = c.scratch(c.p.l4_proto == kProtoTcp ? kScratchBfcpTcp : kScratchBfcpUdp);
  if (!lo || !hi) return Verdict::No;
  const uint32_t h = load_be32(b.data() + 4) * 0x9e3779b1u;
  const uint8_t key_lo = uint8_t(h >> 24), key_hi = uint8_t(h >> 16);
  // Every earlier payload packet passed the checks above (else the flow was
  // ruled out), so the first one is the one that stored its conference.
  if (c.flow.dpi_packets <= 1) {
    *lo = key_lo, *hi = key_hi;
    return Verdict::NeedMore;
  }
  if (*lo != key_lo || *hi != key_hi) return Verdict::No;
  m.app = id(ProtoId::BFCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bfcp, {"BFCP", id(ProtoId::BFCP), kL4Both, kMaxDpiPackets, classify_bfcp});

}  // namespace fg
