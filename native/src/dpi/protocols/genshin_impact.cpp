// ④ Genshin Impact over UDP: the flow's first packet, at least 20 bytes,
// reads 0x000000ff, 0x00000000, (any), 0x499602d2, 0xffffffff as big-endian
// words (the game's KCP-style connect handshake).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_genshin_impact(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets != 1 || b.size() < 20) return Verdict::No;
  const uint8_t* p = b.data();
  if (load_be32(p) != 0xff || load_be32(p + 4) != 0 || load_be32(p + 12) != 0x499602d2 || load_be32(p + 16) != 0xffffffff)
    return Verdict::No;
  m.app = id(ProtoId::GenshinImpact);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(genshin_impact, {"GenshinImpact", id(ProtoId::GenshinImpact), kL4Udp, 1, classify_genshin_impact});

}  // namespace fg
