// ④ TeamViewer. Over TCP its packets open 0x17 0x24, and once one did,
// the session's later ones 0x11 0x30; over UDP (more than 13 bytes) byte 0
// is 0 and bytes 11–12 are 0x17 0x24. The fourth such packet names the
// flow, or the first on TeamViewer's port 5938. Packets of another shape
// in between are skipped once the flow has started like TeamViewer, with
// no packet limit of its own (as nDPI).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_teamviewer(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* stage = c.scratch(kScratchTeamViewer);
  if (!stage) return Verdict::No;
  const bool port = c.cli_port == 5938 || c.srv_port == 5938;
  bool hit;
  if (c.p.l4_proto == kProtoUdp) {
    if (b.size() <= 13 || b[0] != 0 || b[11] != 0x17 || b[12] != 0x24) return Verdict::No;
    hit = ++*stage == 4 || port;
    if (hit) c.risk(Risk::DesktopFileSharing);  // remote assistance
  } else {
    if (b.size() <= 2) return Verdict::No;
    if (b[0] == 0x17 && b[1] == 0x24) {
      hit = ++*stage == 4 || port;
    } else if (*stage) {
      hit = b[0] == 0x11 && b[1] == 0x30 && ++*stage == 4;
    } else {
      return Verdict::No;
    }
  }
  if (!hit) return Verdict::NeedMore;
  m.app = id(ProtoId::TeamViewer);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(teamviewer, {"TeamViewer", id(ProtoId::TeamViewer), kL4Both, kMaxDpiPackets, classify_teamviewer});

}  // namespace fg
