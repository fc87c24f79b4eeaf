// ④ Epic Games (Unreal Engine netcode) over UDP, IPv4 and IPv6, by nDPI's
// rule (epicgames.c; the handshake is unpublished): the flow's first
// payload datagram, sent either way, is at least 34 bytes, its first
// big-endian word has bit 3 clear and bytes 10..33 are zero, else the flow
// is ruled out. The first datagram from the other nDPI direction
// (ndpi_direction.h) must then open with that same word with bit 3 set:
// it names the flow, anything else rules it out. Datagrams repeating the
// first one's direction wait, up to the flow's fourth payload packet.
// (With equal ports over IPv6 every datagram has direction 1: no answer is
// ever seen, as in nDPI.)
// State: the first datagram's direction + 1 and its word, in the five
// kScratchEpicGames bytes (RX's on UDP; see dpi.h).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"

namespace fg {
namespace {

Verdict classify_epicgames(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  uint8_t* st = c.scratch(kScratchEpicGames);
  if (!st) return Verdict::No;  // nowhere to keep the first word
  const uint8_t dir = ndpi_direction(c.p);
  if (c.flow.dpi_packets == 1) {
    if (b.size() < 34 || (load_be32(b.data()) & 0x08)) return Verdict::No;
    for (size_t i = 10; i < 34; i++)
      if (b[i]) return Verdict::No;
    st[0] = uint8_t(dir + 1);
    std::memcpy(st + 1, b.data(), 4);
    return Verdict::NeedMore;
  }
  if (st[0] && st[0] != dir + 1) {  // the other direction's first datagram
    if (b.size() <= 4 || load_be32(b.data()) != (load_be32(st + 1) | 0x08)) return Verdict::No;
    m.app = id(ProtoId::EpicGames);
    return Verdict::Match;
  }
  return c.flow.dpi_packets >= 4 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(epicgames, {"EpicGames", id(ProtoId::EpicGames), kL4Udp, 4, classify_epicgames});

}  // namespace fg
