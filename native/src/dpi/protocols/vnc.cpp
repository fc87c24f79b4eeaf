// ④ VNC (RFB, TCP): both ends open with the 12-byte version banner
// "RFB xxx.yyy\n". nDPI reads only its first seven bytes ("RFB 003" or
// "RFB 004") and the line feed at 11; the rest of the version is free.
// The first payload packet read must be such a banner and the second one
// too, from the other direction (nDPI's vnc_stage: 1 + the first one's
// direction; kept in bits 4-5 of the kScratchUsenet byte, the second's
// side not checked when the scratch bytes are taken).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool banner(Bytes b) {
  return b.size() == 12 && (std::memcmp(b.data(), "RFB 003", 7) == 0 || std::memcmp(b.data(), "RFB 004", 7) == 0) &&
         b[11] == '\n';
}

Verdict classify_vnc(DpiCtx& c, Match& m) {
  if (!banner(c.payload)) return Verdict::No;
  // any earlier packet read was a banner too, or this dissector would have answered no already
  uint8_t* keep = c.scratch(kScratchUsenet);
  const uint8_t side = c.from_client ? 1 : 2;
  if (c.flow.dissected() < 2) {
    if (keep) *keep = uint8_t((*keep & ~0x30) | side << 4);
    return Verdict::NeedMore;
  }
  if (c.flow.dissected() > 2 || (keep && (*keep >> 4 & 3) == side)) return Verdict::No;
  m.app = id(ProtoId::VNC);
  c.risk(Risk::DesktopFileSharing);  // remote desktop, as nDPI flags it
  return Verdict::Match;
}

}  // namespace

// No packet budget: its first two dissected packets decide.
FG_DISSECTOR(vnc, {"VNC", id(ProtoId::VNC), kL4Tcp, 255, classify_vnc});

}  // namespace fg
