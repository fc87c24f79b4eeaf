// ④ BJNP, Canon's printer / scanner discovery and control protocol over UDP
// (port 8611 printers, 8612 scanners; no public specification — the
// header as CUPS' cups-bjnp backend and Wireshark's packet-bjnp read it:
// a 4-byte magic "BJNP" (commands, printer) or "MFNP" (scanner), then
// type, code, sequence, session id and payload length). nDPI also accepts
// "BNJB" and "BJNB".
// nDPI's rule, kept, on the first payload packet, any port: more than 4
// bytes starting with one of those four magics; anything else rules BJNP
// out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_bjnp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4) return Verdict::No;
  if (!has_at(b, 0, "BJNP") && !has_at(b, 0, "BNJB") && !has_at(b, 0, "BJNB") && !has_at(b, 0, "MFNP")) return Verdict::No;
  m.app = id(ProtoId::BJNP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bjnp, {"BJNP", id(ProtoId::BJNP), kL4Udp, 1, classify_bjnp});

}  // namespace fg
