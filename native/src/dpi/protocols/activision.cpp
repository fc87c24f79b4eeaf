// ④ Activision (Call of Duty and other titles' game traffic) over UDP, by
// nDPI's rule (src/lib/protocols/activision.c; the format is unpublished):
// every packet at least 18 bytes; in nDPI's packet direction
// (ndpi_direction.h: 1 when the source port is the lower), the first packet
// of direction 0 opens 0x0c02, of direction 1 0x0d02, at least 29 bytes;
// later packets open 0x29 (direction 0) or 0x28 (direction 1). A first
// packet carrying c0 a8 00 15 02 0c at offset 17 names the flow at once,
// else the fifth payload packet that kept the pattern does.
// The directions seen are bits 0-1 of kScratchActivision (bits 2-4 are
// StarCraft's). (An earlier version here also took 0x46/0x47 magics and
// named on port 3074 from one packet: neither is nDPI's, so both went.)
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"

namespace fg {
namespace {

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
