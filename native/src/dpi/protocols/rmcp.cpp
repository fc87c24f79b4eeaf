// ④ RMCP, the Remote Management Control Protocol (DMTF DSP0136 ASF 2.0
// §3.2.2.1; IPMI 2.0 §13.1.3), UDP port 623: a 4-byte header — version 6
// (RMCP 1.0), reserved 0, sequence number (255: no ACK wanted), class of
// message (bit 7: ACK; low bits: 6 ASF, 7 IPMI, 8 OEM).
// nDPI's rule, kept, on the first payload packet, any port: at least 4
// bytes, version 6, reserved 0, not an ACK with sequence 255, class ASF
// or IPMI; anything else rules RMCP out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_rmcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 4 || b[0] != 0x06 || b[1] != 0x00) return Verdict::No;
  const bool ack = b[3] & 0x80;
  const uint8_t cls = b[3] & 0x7f;
  if ((ack && b[2] == 0xff) || (cls != 6 && cls != 7)) return Verdict::No;
  m.app = id(ProtoId::RMCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rmcp, {"RMCP", id(ProtoId::RMCP), kL4Udp, 1, classify_rmcp});

}  // namespace fg
