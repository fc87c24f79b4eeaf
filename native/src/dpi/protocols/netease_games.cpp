// ④ NetEase Games (UDP), three titles' openings: a 12-byte client packet
// 0x01, ?, 0x01d0 (little-endian) at 2 and 0x01010100 (little-endian) at 8
// (Lost Light, Badlanders, Naraka); 0xb3af8de8 first in a packet of 30
// bytes or more (Lost Light); bytes 07 08 08 0c first in one longer than 30
// (Naraka: Bladepoint).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_netease_games(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  const bool hello = b.size() == 12 && c.from_client && p[0] == 0x01 && load_le16(p + 2) == 0x01d0 && load_le32(p + 8) == 0x01010100;
  const bool lost_light = b.size() >= 30 && load_be32(p) == 0xb3af8de8;
  const bool naraka = b.size() > 30 && load_le32(p) == 0x0c080807;
  if (!hello && !lost_light && !naraka) return Verdict::No;
  m.app = id(ProtoId::NetEaseGames);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(netease_games, {"NetEaseGames", id(ProtoId::NetEaseGames), kL4Udp, 1, classify_netease_games});

}  // namespace fg
