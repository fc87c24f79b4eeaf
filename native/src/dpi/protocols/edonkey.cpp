// ④ eDonkey/eMule over TCP: a protocol marker (0xE3 eDonkey, 0xC5 eMule,
// 0xD4 packed) and a little-endian length equal to the rest of the segment
// (opcode and data).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_edonkey(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 6) return b.empty() ? Verdict::NeedMore : Verdict::No;
  if (b[0] != 0xe3 && b[0] != 0xc5 && b[0] != 0xd4) return Verdict::No;
  const uint32_t len = uint32_t(b[1]) | uint32_t(b[2]) << 8 | uint32_t(b[3]) << 16 | uint32_t(b[4]) << 24;
  if (len == 0 || len != b.size() - 5) return Verdict::No;
  m.app = id(ProtoId::eDonkey);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(edonkey, {"eDonkey", id(ProtoId::eDonkey), kL4Tcp, 2, classify_edonkey});

}  // namespace fg
