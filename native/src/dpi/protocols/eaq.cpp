// ④ EAQ, the Brazilian broadband quality measurement (Entidade Aferidora da
// Qualidade) probes, UDP port 6000 on either side as nDPI requires. No
// public specification: nDPI counts 16-byte datagrams whose first four bytes
// form a sequence value (b0·1000 + b1·100 + b2·10 + b3) equal to the
// previous one or one more, and names EAQ at the fourth; any other datagram
// rules the flow out.
// Difference: stateless (our group's one scratch byte goes to RTMP / BFCP,
// which a 16-byte datagram could also be a candidate of), so the sequence
// check between datagrams is not kept: four 16-byte datagrams on port 6000
// suffice here.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kProbeLen = 16;
constexpr uint8_t kProbes = 4;

Verdict classify_eaq(DpiCtx& c, Match& m) {
  if (c.cli_port != 6000 && c.srv_port != 6000) return Verdict::No;
  if (c.payload.size() != kProbeLen) return Verdict::No;
  // Every earlier payload packet was a probe, or the flow would be ruled out.
  if (c.flow.dpi_packets < kProbes) return Verdict::NeedMore;
  m.app = id(ProtoId::EAQ);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(eaq, {"EAQ", id(ProtoId::EAQ), kL4Udp, kProbes, classify_eaq});

}  // namespace fg
