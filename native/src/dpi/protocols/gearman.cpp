// ④ Gearman binary protocol (gearman.org/protocol, "Binary Protocol"), TCP:
// a packet opens with a 4-byte magic code — "\0REQ" for a request, "\0RES"
// for a response — then a 4-byte type and a 4-byte data size (12-byte
// header), then the data. As nDPI: more than 12 bytes opening with either
// magic; one packet decides. The text admin protocol is not recognised.
// No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_gearman(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 12 || b[0] != 0 || !(has_at(b, 1, "REQ") || has_at(b, 1, "RES"))) return Verdict::No;
  m.app = id(ProtoId::Gearman);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(gearman, {"Gearman", id(ProtoId::Gearman), kL4Tcp, 1, classify_gearman});

}  // namespace fg
