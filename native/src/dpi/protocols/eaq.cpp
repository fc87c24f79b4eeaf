// ④ EAQ, the Brazilian broadband quality measurement (Entidade Aferidora da
// Qualidade) probes, UDP. No public specification; nDPI's rule (eaq.c),
// followed: every datagram of the flow must be 16 bytes long with port 6000
// on one side (anything else rules EAQ out); its first four bytes give a
// sequence value b0·1000 + b1·100 + b2·10 + b3; from the second probe on,
// that value must equal the previous probe's or be one more; the fourth
// probe names the flow.
// State: the previous value (at most 283305, 3 bytes) in kScratchEaq, RX's
// and EpicGames' bytes (dpi.h): a flow keeps EAQ a candidate only when its first
// datagram is 16 bytes, which rules RX (28 bytes or more) and EpicGames (34
// or more) out before they store anything; the probe count is the flow's
// payload packets, each of which was a probe.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kProbeLen = 16;
constexpr uint8_t kProbes = 4;

Verdict classify_eaq(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (c.p.sport != 6000 && c.p.dport != 6000) return Verdict::No;
  if (b.size() != kProbeLen) return Verdict::No;
  uint8_t* prev = c.scratch(kScratchEaq);
  if (!prev) return Verdict::No;  // nowhere to keep the sequence
  const uint32_t seq = uint32_t(b[0]) * 1000 + uint32_t(b[1]) * 100 + uint32_t(b[2]) * 10 + b[3];
  if (c.flow.dpi_packets > 1) {
    const uint32_t last = uint32_t(prev[0]) << 16 | uint32_t(prev[1]) << 8 | prev[2];
    if (seq != last && seq != last + 1) return Verdict::No;
  }
  prev[0] = uint8_t(seq >> 16), prev[1] = uint8_t(seq >> 8), prev[2] = uint8_t(seq);
  if (c.flow.dpi_packets < kProbes) return Verdict::NeedMore;
  m.app = id(ProtoId::EAQ);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(eaq, {"EAQ", id(ProtoId::EAQ), kL4Udp, kProbes, classify_eaq});

}  // namespace fg
