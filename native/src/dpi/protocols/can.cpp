// ④ CAN over IP (TCP or UDP), as nDPI recognises it: a header starting with
// the signature "ISO11898", then a version byte and a frame count; a
// version other than 1 raises a malformed packet (src/lib/protocols/can.c).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_can(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 10 || std::memcmp(b.data(), "ISO11898", 8) != 0) return Verdict::No;
  if (b[8] != 0x01) c.risk(Risk::MalformedPacket);
  m.app = id(ProtoId::Controller_Area_Network);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(can, {"Controller_Area_Network", id(ProtoId::Controller_Area_Network), kL4Both, 1, classify_can});

}  // namespace fg
