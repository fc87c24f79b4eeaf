// ④ VNC (RFB, TCP): both ends open with the 12-byte version banner
// "RFB xxx.yyy\n". nDPI reads only its first seven bytes ("RFB 003" or
// "RFB 004") and the line feed at 11; the rest of the version is free.
// The first payload packet must be such a banner and the second one too.
// nDPI also wants the second from the other direction; with no scratch
// byte left to remember the first one's, that detail is not checked here
// (two banners from one side do not happen in practice).
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
  // Stateless: any earlier packet was a banner too, or this dissector would
  // have answered no already.
  // nDPI's vnc_stage: the banner on the first packet it reads, the other on the second
  if (c.flow.dissected() < 2) return Verdict::NeedMore;
  if (c.flow.dissected() > 2) return Verdict::No;
  m.app = id(ProtoId::VNC);
  c.risk(Risk::DesktopFileSharing);  // remote desktop, as nDPI flags it
  return Verdict::Match;
}

}  // namespace

// No packet budget: its first two dissected packets decide.
FG_DISSECTOR(vnc, {"VNC", id(ProtoId::VNC), kL4Tcp, 255, classify_vnc});

}  // namespace fg
