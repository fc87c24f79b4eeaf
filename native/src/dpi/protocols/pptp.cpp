// ④ PPTP control connection over TCP: a 16-bit length equal to the segment's
// payload, message type 1 (control), the magic cookie 0x1a2b3c4d and, as
// nDPI reads it, control type 1 (Start-Control-Connection-Request) only.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_pptp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 10 || ((size_t(b[0]) << 8) | b[1]) != b.size() || b[2] != 0 || b[3] != 1 ||
      b[4] != 0x1a || b[5] != 0x2b || b[6] != 0x3c || b[7] != 0x4d || b[8] != 0 || b[9] != 1)
    return Verdict::No;
  m.app = id(ProtoId::PPTP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(pptp, {"PPTP", id(ProtoId::PPTP), kL4Tcp, 1, classify_pptp});

}  // namespace fg
