// ④ Tencent Games (TCP), as nDPI recognises it: packets over 50 bytes
// opening with one of its fixed headers (0x3366000b 000b, 0x4366aa00 with
// 0x10e68601 at 12, 0xaa000000 with 0x10e68601 at 10), or a zero word, a
// 16-bit length covering the rest and 0x7801, or 0x4215f787 with a zero
// 16-bit word at 6.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_tencent_games(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 50) return Verdict::No;
  const uint32_t w = load_be32(b.data());
  const bool hit = (w == 0x3366000b && load_be16(b.data() + 4) == 0x000b) ||
                   (w == 0x4366aa00 && load_be32(b.data() + 12) == 0x10e68601) ||
                   (w == 0xaa000000 && load_be32(b.data() + 10) == 0x10e68601) ||
                   (load_be16(b.data()) == 0 && load_be16(b.data() + 2) == uint16_t(b.size() - 4) &&
                    load_be16(b.data() + 4) == 0x7801) ||
                   (w == 0x4215f787 && load_be16(b.data() + 6) == 0);
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::TencentGames);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tencent_games, {"TencentGames", id(ProtoId::TencentGames), kL4Tcp, 1, classify_tencent_games});

}  // namespace fg
