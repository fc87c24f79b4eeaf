// ④ Activision (Call of Duty and other titles' game traffic) over UDP.
// Either packets open with 0x46 0x00 / 0x47 0x00, or each side's first
// packet opens 0x0c 0x02 or 0x0d 0x02 and later ones 0x28 / 0x29 (or the
// same magic again). Packets are at least 18 bytes. On the game port 3074
// the first such packet names the flow, elsewhere three in a row.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_activision(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 18) return Verdict::No;
  uint16_t magic = load_be16(b.data());
  bool hdr = magic == 0x0c02 || magic == 0x0d02;
  // PTPv2 signalling / management messages share these two bytes (message
  // type, version 2) and carry their own length at offset 2.
  if (c.cli_port == 319 || c.cli_port == 320 || c.srv_port == 319 || c.srv_port == 320) return Verdict::No;
  if (hdr && load_be16(b.data() + 2) == b.size()) return Verdict::No;
  if (magic == 0x4600 || magic == 0x4700) {
    // nothing direction-dependent
  } else if (c.flow.dpi_packets == 1) {
    if (!hdr) return Verdict::No;
  } else if (!hdr && b[0] != 0x28 && b[0] != 0x29) {
    return Verdict::No;
  }
  bool port = c.cli_port == 3074 || c.srv_port == 3074;
  if (!port && c.flow.dpi_packets < 3) return Verdict::NeedMore;
  m.app = id(ProtoId::Activision);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(activision, {"Activision", id(ProtoId::Activision), kL4Udp, 4, classify_activision});

}  // namespace fg
