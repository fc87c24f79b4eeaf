// ④ Checkmk agent protocol (Checkmk docs, "The Checkmk agent"; TCP 6556):
// the agent sends its report as plain text in sections, the first one
// "<<<check_mk>>>" with the agent version, OS and so on.
// As nDPI: a packet of 15 to 99 bytes opening with "<<<check_mk>>>" is
// Checkmk; packets over 128 bytes are passed over (a large transfer seen
// mid-way) up to the 6th payload packet and rule it out after; anything
// else (shorter, 100 to 128 bytes, another opening) rules it out.
// No port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_checkmk(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() > 128) return c.flow.dpi_packets > 6 ? Verdict::No : Verdict::NeedMore;
  if (b.size() < 15 || b.size() >= 100 || !has_at(b, 0, "<<<check_mk>>>")) return Verdict::No;
  m.app = id(ProtoId::CHECKMK);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(checkmk, {"CHECKMK", id(ProtoId::CHECKMK), kL4Tcp, 7, classify_checkmk});

}  // namespace fg
