// ④ CPHA: Check Point's cluster high-availability protocol (ClusterXL's
// CCP, UDP port 8116 on both sides; Wireshark's "cpha" dissector: the magic
// 0x1A90, protocol version, cluster ids, then the HA message). As nDPI:
// IPv4 only, UDP from port 8116 to port 8116, more than 20 bytes opening
// with the magic 0x1A90, and sent from 0.0.0.0 (the address cluster
// members use for CCP in their default, broadcast mode). The flow's first
// payload packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kCphaPort = 8116;

Verdict classify_cpha(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.ip_version != 4 || c.cli_port != kCphaPort || c.srv_port != kCphaPort) return Verdict::No;
  if (b.size() <= 20 || b[0] != 0x1a || b[1] != 0x90 || c.p.src.v4() != 0) return Verdict::No;
  m.app = id(ProtoId::CPHA);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(cpha, {"CPHA", id(ProtoId::CPHA), kL4Udp, 1, classify_cpha});

}  // namespace fg
