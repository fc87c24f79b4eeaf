// ④ NetEase Games (UDP, IPv4 and IPv6), nDPI's netease_games.c: three
// titles' openings, on any port: a 12-byte packet from nDPI's client
// (below), 0x01 first, 0x01d0 (little-endian) at 2 and 0x01010100
// (little-endian) at 8 (Lost Light, Badlanders, Naraka); 0xb3af8de8 first
// in a packet of 30 bytes or more (Lost Light); bytes 07 08 08 0c first in
// one longer than 30 (Naraka: Bladepoint). Any other datagram rules the
// flow out, so the first one decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

// nDPI's current_pkt_from_client_to_server on UDP. nDPI's client sent the
// flow's first packet (ours), except when that packet went from a port
// below 1024 to one above 1024: then its receiver is. Packets are told
// apart by nDPI's direction, which over IPv6 with equal ports is the same
// both ways: every packet is the client's there.
bool from_ndpi_client(const DpiCtx& c) {
  if (c.p.sport == c.p.dport && !c.p.src.is_v4()) return true;
  const bool swapped = c.cli_port < 1024 && c.srv_port > 1024;
  return c.from_client != swapped;
}

Verdict classify_netease_games(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  const bool hello = b.size() == 12 && from_ndpi_client(c) && p[0] == 0x01 && load_le16(p + 2) == 0x01d0 && load_le32(p + 8) == 0x01010100;
  const bool lost_light = b.size() >= 30 && load_be32(p) == 0xb3af8de8;
  const bool naraka = b.size() > 30 && load_le32(p) == 0x0c080807;
  if (!hello && !lost_light && !naraka) return Verdict::No;
  m.app = id(ProtoId::NetEaseGames);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(netease_games, {"NetEaseGames", id(ProtoId::NetEaseGames), kL4Udp, 1, classify_netease_games});

}  // namespace fg
