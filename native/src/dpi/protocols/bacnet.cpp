// ④ BACnet/IP (UDP), as nDPI recognises it: a BVLC header of type 0x81, a
// function up to 0x0b and a 16-bit length equal to the packet's.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_bacnet(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 4 || b[0] != 0x81 || b[1] > 0x0b || load_be16(b.data() + 2) != b.size()) return Verdict::No;
  m.app = id(ProtoId::BACnet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bacnet, {"BACnet", id(ProtoId::BACnet), kL4Udp, 1, classify_bacnet});

}  // namespace fg
