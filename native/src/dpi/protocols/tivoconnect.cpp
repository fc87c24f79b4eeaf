// ④ TiVoConnect: the discovery beacon of TiVo DVRs (UDP broadcast and TCP,
// port 2190; TiVo's "TiVoConnect Discovery" note): lines of key=value ending
// in "\n", the first "tivoconnect=1", then method, platform, machine,
// identity, services, swversion. As nDPI's tivoconnect.c: TCP or UDP, any
// port, the flow's first payload packet opens with "tivoconnect=" in any
// case. It also raises a malformed-packet risk when a beacon line has no
// '=', when the beacon does not end with a line end, or when it holds a NUL
// byte (nDPI's line search stops there, leaving the rest unread). The
// fields it copies (identity, machine, platform, services) are not kept
// here. One packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// Lines without '=', a last line without "\n" or a NUL byte: a damaged beacon.
bool malformed_beacon(Bytes b) {
  size_t line = 0;
  for (size_t i = 0; i < b.size(); i++) {
    if (b[i] == 0) return true;
    if (b[i] != '\n') continue;
    bool has_eq = false;
    for (size_t j = line; j < i && !has_eq; j++) has_eq = b[j] == '=';
    if (!has_eq) return true;
    line = i + 1;
  }
  return line != b.size();
}

Verdict classify_tivoconnect(DpiCtx& c, Match& m) {
  if (!has_at_upper(c.payload, 0, "TIVOCONNECT=")) return Verdict::No;
  if (malformed_beacon(c.payload)) c.risk(Risk::MalformedPacket);
  m.app = id(ProtoId::TiVoConnect);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tivoconnect, {"TiVoConnect", id(ProtoId::TiVoConnect), kL4Both, 1, classify_tivoconnect});

}  // namespace fg
