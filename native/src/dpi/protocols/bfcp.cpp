// ④ BFCP, the Binary Floor Control Protocol (RFC 4582 §5.1, RFC 8855 §5.1),
// TCP or UDP on any port. Common header: Ver(3) R(1) F(1) Res(3),
// Primitive(8), Payload Length(16), Conference ID(32), Transaction ID(16),
// User ID(16). nDPI wants version 1 with the bit after R (F in RFC 8855)
// clear, a primitive from 1 to 17 (FloorRequest … FloorRequestStatusAck),
// at least 12 bytes, and two such packets of the same conference: the first
// one remembered, the second one with the same Conference ID decides. Any
// other packet rules the flow out.
// Difference: nDPI keeps the whole 32-bit Conference ID; we keep one byte
// folded from its four (our one scratch byte), so two packets of different
// conferences whose folds agree (1 in 256) still match.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// Our group's one scratch byte; the flow is still BFCP's candidate only when
// every payload packet so far was a BFCP header, so the first one's first
// byte (version 1, never RTMP's 0x03) keeps other users of the slot apart.
constexpr auto kSlot = kScratchBfcp;

Verdict classify_bfcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 12) return Verdict::No;
  const uint8_t version = b[0] >> 5, f_bit = (b[0] >> 3) & 1;
  if (version != 1 || f_bit != 0 || b[1] < 1 || b[1] > 17) return Verdict::No;
  uint8_t* conf = c.scratch(kSlot);
  if (!conf) return Verdict::No;
  const uint8_t fold = uint8_t(b[4] ^ b[5] ^ b[6] ^ b[7]);
  // Every earlier payload packet passed the checks above (else the flow was
  // ruled out), so the first one is the one that stored its conference.
  if (c.flow.dpi_packets <= 1) {
    *conf = fold;
    return Verdict::NeedMore;
  }
  if (*conf != fold) return Verdict::No;
  m.app = id(ProtoId::BFCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bfcp, {"BFCP", id(ProtoId::BFCP), kL4Both, kMaxDpiPackets, classify_bfcp});

}  // namespace fg
