// ④ Radmin remote administration (Famatech; TCP 4899; no public spec: its
// messages, as seen on the wire, open with the bytes 01 00 00 00, a
// message-size byte, then the body). nDPI
// names a flow Radmin on either of two exchanges, every packet in between
// ruling it out:
//  - the client's 10-byte hello (size byte 1, bytes 8–9 = 08 08), then the
//    server's 46-byte answer (size byte 0x25, bytes 7–10 = 02 12 08 02,
//    byte 13 = 0x0A);
//  - two 14-byte packets (either direction) with size byte 5 and bytes 8–9
//    = 27 27.
// The first packet of either exchange opens a stage kept in the group's
// scratch byte. A match raises the desktop / file sharing risk.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint32_t kLead = 0x01000000;

bool lead(Bytes b, uint8_t size) { return load_be32(b.data()) == kLead && b[4] == size; }

Verdict classify_radmin(DpiCtx& c, Match& m) {
  uint8_t* stage = c.scratch(kScratchRadmin);
  if (!stage) return Verdict::No;
  Bytes b = c.payload;
  if (c.from_client && b.size() == 10 && !*stage && lead(b, 1) && b[8] == 8 && b[9] == 8) {
    *stage = 1;
    return Verdict::NeedMore;
  }
  bool hit = !c.from_client && b.size() == 46 && *stage && lead(b, 0x25) && load_be32(b.data() + 7) == 0x02120802 &&
             b[13] == 0x0a;
  if (!hit && b.size() == 14 && lead(b, 5) && load_be16(b.data() + 8) == 0x2727) {
    if (!*stage) {
      *stage = 1;
      return Verdict::NeedMore;
    }
    hit = true;
  }
  if (!hit) return Verdict::No;
  c.risk(Risk::DesktopFileSharing);
  m.app = id(ProtoId::Radmin);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(radmin, {"Radmin", id(ProtoId::Radmin), kL4Tcp, kMaxDpiPackets, classify_radmin});

}  // namespace fg
