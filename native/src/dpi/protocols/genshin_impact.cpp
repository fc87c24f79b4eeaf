// ④ Genshin Impact, as nDPI reads it (src/lib/protocols/genshin_impact.c),
// on the packet at hand, over either L4:
// - TCP: at least 18 bytes, 0x01, a big-endian 32-bit length equal to the
//   whole segment, 0x01 or 0x07 at offset 5, 0x4da6 at offset 16;
// - UDP: the flow's first packet, at least 20 bytes, reading 0x000000ff,
//   0x00000000, (any), 0x499602d2, 0xffffffff as big-endian words (the
//   game's KCP-style connect handshake).
// Any other packet ends the flow's turn.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_genshin_impact(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  if (c.p.l4_proto == kProtoTcp) {
    if (b.size() < 18 || p[0] != 0x01 || load_be32(p + 1) != b.size() || (p[5] != 0x01 && p[5] != 0x07) || load_be16(p + 16) != 0x4da6)
      return Verdict::No;
  } else {
    if (c.flow.dpi_packets != 1 || b.size() < 20) return Verdict::No;
    if (load_be32(p) != 0xff || load_be32(p + 4) != 0 || load_be32(p + 12) != 0x499602d2 || load_be32(p + 16) != 0xffffffff)
      return Verdict::No;
  }
  m.app = id(ProtoId::GenshinImpact);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(genshin_impact, {"GenshinImpact", id(ProtoId::GenshinImpact), kL4Both, 1, classify_genshin_impact});

}  // namespace fg
