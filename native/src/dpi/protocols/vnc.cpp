// ④ VNC (RFB, TCP): both ends open with the 12-byte version banner
// "RFB xxx.yyy\n" (003.003 … 004.001), server first; the client's answer
// confirms it.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool digits(Bytes b, size_t at) { return b[at] >= '0' && b[at] <= '9' && b[at + 1] >= '0' && b[at + 1] <= '9' && b[at + 2] >= '0' && b[at + 2] <= '9'; }

bool banner(Bytes b) {
  return b.size() == 12 && std::memcmp(b.data(), "RFB ", 4) == 0 && digits(b, 4) && b[7] == '.' && digits(b, 8) && b[11] == '\n';
}

Verdict classify_vnc(DpiCtx& c, Match& m) {
  if (!banner(c.payload)) return Verdict::No;
  // Stateless: any earlier packet was a banner too, or this dissector would
  // have answered no already.
  if (c.flow.dpi_packets < 2) return Verdict::NeedMore;
  m.app = id(ProtoId::VNC);
  c.risk(Risk::DesktopFileSharing);  // remote desktop, as nDPI flags it
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(vnc, {"VNC", id(ProtoId::VNC), kL4Tcp, 2, classify_vnc});

}  // namespace fg
