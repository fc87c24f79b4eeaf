// ④ Riot Games' UDP game traffic (League of Legends, Valorant …; no public
// specification, the patterns are nDPI's, read from captures). As nDPI, on
// the flow's first datagram, any port: over 8 bytes ending with the
// trailer aa aa aa aa bb bb bb bb; or exactly 53 bytes ending with
// 3c b1 1f 2d ea 23 46 0c. Anything else rules the flow out.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_riotgames(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const size_t n = b.size();
  if (n <= 8) return Verdict::No;
  const uint32_t a = load_be32(b.data() + n - 8), z = load_be32(b.data() + n - 4);
  if ((a == 0xaaaaaaaa && z == 0xbbbbbbbb) || (n == 53 && a == 0x3cb11f2d && z == 0xea23460c)) {
    m.app = id(ProtoId::RiotGames);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(riotgames, {"RiotGames", id(ProtoId::RiotGames), kL4Udp, 1, classify_riotgames});

}  // namespace fg
