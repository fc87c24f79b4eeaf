// ④ Java RMI (Java RMI specification §10.2 "RMI Transport Protocol"), TCP:
// the client's stream opens with the magic "JRMI" (0x4a524d49), a 16-bit
// version and the protocol byte (0x4b Stream, 0x4c SingleOp, 0x4d
// Multiplex). As nDPI: more than 5 bytes opening with "JRMI"; version and
// protocol are not looked at. One packet decides; no port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_jrmi(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 5 || !has_at(b, 0, "JRMI")) return Verdict::No;
  m.app = id(ProtoId::JRMI);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(jrmi, {"JRMI", id(ProtoId::JRMI), kL4Tcp, 1, classify_jrmi});

}  // namespace fg
