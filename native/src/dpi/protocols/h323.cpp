// ④ H.323 signalling, read as nDPI reads it, on the first payload packet:
// - TCP: a TPKT header (RFC 1006 §6: version 3, reserved 0, a 16-bit length
//   equal to the segment's payload) on a segment longer than 20 bytes, then
//   either H.245 (ITU-T H.245: the PER-encoded message whose
//   protocolIdentifier OID, length 6, opens at byte 7 with 0.0.8.245 =
//   00 08 81 75) or H.225.0 call signalling (ITU-T Q.931 §4.2/4.3: protocol
//   discriminator 0x08 at byte 4, then a call reference length of at most 3).
// - UDP, port 1719 on either side: H.225.0 RAS, whose PER encoding puts the
//   protocolIdentifier OID (length 6, 0.0.8.2250 = 00 08 91 4A) at byte 4,
//   on a datagram longer than 20 bytes.
// Anything else rules the flow out at once; no port for TCP (1720 only
// steers the order in which dissectors are asked).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kMinLen = 21;  // TPKT 4 + Q.931 header without IEs, as nDPI counts it

bool tpkt(Bytes b) { return b.size() > 4 && b[0] == 3 && b[1] == 0 && load_be16(b.data() + 2) == b.size(); }

Verdict classify_h323(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.l4_proto == kProtoTcp) {
    if (!tpkt(b) || b.size() < kMinLen) return Verdict::No;
    const bool h245 = b[7] == 0x06 && load_be32(b.data() + 8) == 0x00088175;
    const bool q931 = b[4] == 0x08 && (b[5] & 0x0f) <= 3;
    if (!h245 && !q931) return Verdict::No;
  } else {
    if (c.cli_port != 1719 && c.srv_port != 1719) return Verdict::No;
    if (b.size() < kMinLen || b[4] != 0x06 || load_be32(b.data() + 5) != 0x0008914a) return Verdict::No;
  }
  m.app = id(ProtoId::H323);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(h323, {"H323", id(ProtoId::H323), kL4Both, 1, classify_h323});

}  // namespace fg
