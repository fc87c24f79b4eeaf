// ④ Guild Wars (ArenaNet), TCP. The game's protocol is undocumented; nDPI
// keeps three observed packets, and so do we, exactly, on any port:
// - 64 bytes with 05 0C at offset 1 and "@2&P" at offset 50;
// - 16 bytes with 04 0C at offset 1, A6 72 at offset 4, 0x01 at offset 8
//   and 0x04 at offset 12;
// - 21 bytes opening 01 00, with F1 00 10 00 at offset 5 and 0x01 at 9.
// Any other packet rules the flow out, so the first one decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_guildwars(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  bool hit = false;
  switch (b.size()) {
    case 64: hit = load_be16(p + 1) == 0x050c && has_at(b, 50, "@2&P"); break;
    case 16: hit = load_be16(p + 1) == 0x040c && load_be16(p + 4) == 0xa672 && p[8] == 0x01 && p[12] == 0x04; break;
    case 21: hit = load_be16(p) == 0x0100 && load_be32(p + 5) == 0xf1001000 && p[9] == 0x01; break;
    default: break;
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Guildwars);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(guildwars, {"Guildwars", id(ProtoId::Guildwars), kL4Tcp, 1, classify_guildwars});

}  // namespace fg
