// ④ Epic Games (Unreal Engine netcode) over UDP: the client's first packet
// is at least 34 bytes, its first big-endian word has bit 3 clear and bytes
// 10..33 are zero; the server's first answer repeats that word with bit 3
// set. nDPI compares the whole word; keeping no per-dissector state, we
// check the shape of both packets and the bit in the answer.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_epicgames(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets == 1) {
    if (!c.from_client || b.size() < 34 || (load_be32(b.data()) & 0x08)) return Verdict::No;
    for (size_t i = 10; i < 34; i++)
      if (b[i]) return Verdict::No;
    return Verdict::NeedMore;
  }
  if (c.from_client) return c.flow.dpi_packets < 4 ? Verdict::NeedMore : Verdict::No;
  if (b.size() <= 4 || !(load_be32(b.data()) & 0x08)) return Verdict::No;
  m.app = id(ProtoId::EpicGames);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(epicgames, {"EpicGames", id(ProtoId::EpicGames), kL4Udp, 6, classify_epicgames});

}  // namespace fg
