// ④ Avast antivirus updates over TCP: "NOSA", then the message length
// (16-bit, big-endian) equal to the segment's payload.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_avast(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 6 || !has_at(b, 0, "NOSA") || load_be16(b.data() + 4) != b.size()) return Verdict::No;
  m.app = id(ProtoId::AVAST);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(avast, {"AVAST", id(ProtoId::AVAST), kL4Tcp, 1, classify_avast});

}  // namespace fg
