// ④ Activision (Call of Duty and other titles' game traffic) over UDP, by
// nDPI's rule (src/lib/protocols/activision.c; the format is unpublished):
// every packet at least 18 bytes; nDPI's direction of a UDP packet is 1 when
// its source port is below its destination port (the addresses decide when
// the ports are equal), and the first packet of direction 0 opens 0x0c02, of
// direction 1 0x0d02, at least 29 bytes; later packets open 0x29 (direction 0)
// or 0x28 (direction 1). A first packet carrying c0 a8 00 15 02 0c at offset
// 17 names the flow at once, else the fifth packet that kept the pattern.
// (An earlier version here also took 0x46/0x47 magics and named on port 3074
// from one packet: neither is nDPI's, so both went.)
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

// nDPI's packet_direction (ndpi_main.c, direction detection on by default):
// IPv4 source below destination, or any two different IPv6 addresses, give
// 1; for UDP with different ports the ports decide instead.
uint8_t ndpi_direction(const Packet& p) {
  if (p.sport != p.dport) return p.sport < p.dport ? 1 : 0;
  return p.src.is_v4() ? (p.src < p.dst ? 1 : 0) : (p.src == p.dst ? 0 : 1);
}

Verdict classify_activision(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 18) return Verdict::No;
  uint8_t* seen = c.scratch(kScratchActivision);
  if (!seen) return Verdict::No;  // nowhere to keep the directions seen
  const uint8_t dir = ndpi_direction(c.p), bit = uint8_t(1u << dir);
  if (!(*seen & bit)) {
    *seen |= bit;
    if (load_be16(b.data()) != (dir == 0 ? 0x0c02 : 0x0d02) || b.size() < 29) return Verdict::No;
    static const uint8_t kMark[6] = {0xc0, 0xa8, 0x00, 0x15, 0x02, 0x0c};
    if (std::memcmp(b.data() + 17, kMark, sizeof kMark) == 0) {
      m.app = id(ProtoId::Activision);
      return Verdict::Match;
    }
  } else if (b[0] != (dir == 0 ? 0x29 : 0x28)) {
    return Verdict::No;
  }
  if (c.flow.dpi_packets <= 4) return Verdict::NeedMore;
  m.app = id(ProtoId::Activision);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(activision, {"Activision", id(ProtoId::Activision), kL4Udp, 5, classify_activision});

}  // namespace fg
