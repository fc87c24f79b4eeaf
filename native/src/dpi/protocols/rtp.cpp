// ④ RTP (UDP), after nDPI's heuristic: version 2, at least the 12-byte
// header, a payload type among the static audio/video ones (0–34) or the
// dynamic range (96–127), and not the RTCP range. One such packet could be
// chance, so the flow's first two payload packets must both look like RTP
// (stateless: a first packet that does not is a No, so reaching the second
// packet means the first passed). Not on Ethereum's 30303, which looks alike,
// nor towards a well-known port.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_rtp(DpiCtx& c, Match& m) {
  if (c.srv_port == 30303 || c.cli_port == 30303 || c.srv_port <= 1023) return Verdict::No;
  if (!rtp_shaped(c.payload)) return Verdict::No;
  if (c.flow.dpi_packets < 3) return Verdict::NeedMore;
  m.app = id(ProtoId::RTP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rtp, {"RTP", id(ProtoId::RTP), kL4Udp, 3, classify_rtp});

}  // namespace fg
