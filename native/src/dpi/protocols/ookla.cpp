// ④ Ookla Speedtest's own TCP/UDP test protocol (the line-based
// "speedtest server" protocol on port 8080: the client greets with "HI",
// the server answers "HELLO <version> …", then PING / DOWNLOAD / UPLOAD
// commands). As nDPI: 8080 on either side is required; the flow's first
// payload packet must open with "HI" and its second with "HELLO", whichever
// side sends them; anything else rules the flow out. Stateless: being asked
// on the second packet means the first one was "HI".
// Every DPI naming of a flow Ookla (this match, host names, HTTP's URL,
// Referer and policy request) feeds nDPI's Ookla client cache, asked at
// give-up for flows to port 8080 (Classifier::remember_ookla / ookla_known).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kOoklaPort = 8080;

Verdict classify_ookla(DpiCtx& c, Match& m) {
  if (c.cli_port != kOoklaPort && c.srv_port != kOoklaPort) return Verdict::No;
  const uint8_t n = c.flow.dpi_packets;
  if (n == 1 && has_at(c.payload, 0, "HI")) return Verdict::NeedMore;
  if (n == 2 && has_at(c.payload, 0, "HELLO")) {
    m.app = id(ProtoId::Ookla);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ookla, {"Ookla", id(ProtoId::Ookla), kL4Both, 2, classify_ookla});

}  // namespace fg
