// ④ IMO (messenger calls) over UDP, from its fixed-shape packets: 10 bytes
// opening 0x09 0x02, 11 bytes opening 0x00 0x09 0x03, or 1099 bytes
// opening 0x88 0x49 0x1a 0x00. (nDPI also counts two identical one-byte
// packets in a row, which needs state we do not keep.)
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_imo(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool ok = (b.size() == 10 && b[0] == 0x09 && b[1] == 0x02) ||
            (b.size() == 11 && b[0] == 0x00 && b[1] == 0x09 && b[2] == 0x03) ||
            (b.size() == 1099 && load_be32(b.data()) == 0x88491a00);
  if (ok) {
    m.app = id(ProtoId::IMO);
    return Verdict::Match;
  }
  return c.flow.dpi_packets < 10 ? Verdict::NeedMore : Verdict::No;
}

}  // namespace

FG_DISSECTOR(imo, {"IMO", id(ProtoId::IMO), kL4Udp, 10, classify_imo});

}  // namespace fg
