// ④ Toca Boca (children's games, UDP): a datagram of at least 13 bytes
// opening with eight 0x7d; a first packet of at least 24 bytes with
// 0xffff0001 at 0 and 0x02ff0104 at 12; or one of at least 32 bytes with
// 1–3 at 2, 0x01ff0000 or 0x01000000 at 12 and 0x14 at 16.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_tocaboca(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  const size_t n = b.size();
  bool hit = n >= 13 && load_be32(p) == 0x7d7d7d7d && load_be32(p + 4) == 0x7d7d7d7d;
  hit = hit || (c.flow.dpi_packets == 1 && n >= 24 && load_be32(p) == 0xffff0001 && load_be32(p + 12) == 0x02ff0104);
  if (!hit && n >= 32) {
    const uint16_t kind = load_be16(p + 2);
    const uint32_t w = load_be32(p + 12);
    hit = kind >= 1 && kind <= 3 && (w == 0x01ff0000 || w == 0x01000000) && load_be32(p + 16) == 0x14;
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::TocaBoca);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tocaboca, {"TocaBoca", id(ProtoId::TocaBoca), kL4Udp, 1, classify_tocaboca});

}  // namespace fg
