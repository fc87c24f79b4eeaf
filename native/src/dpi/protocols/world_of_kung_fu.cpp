// ④ World of Kung Fu (an online game), TCP. Undocumented; nDPI keeps one
// observed 16-byte packet and so do we, exactly, on any port: opening
// 0C 00 00 00 D2 00 0C 00, 0x16 at offset 9, zero 16-bit words at offsets
// 10 and 14. Any other packet rules the flow out (the first one decides).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_world_of_kung_fu(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  if (b.size() != 16 || load_be32(p) != 0x0c000000 || load_be32(p + 4) != 0xd2000c00 || p[9] != 0x16 ||
      load_be16(p + 10) != 0 || load_be16(p + 14) != 0)
    return Verdict::No;
  m.app = id(ProtoId::WorldOfKungFu);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(world_of_kung_fu, {"WorldOfKungFu", id(ProtoId::WorldOfKungFu), kL4Tcp, 1, classify_world_of_kung_fu});

}  // namespace fg
