// ④ Teredo (RFC 4380): IPv6 carried in UDP over IPv4, its servers on UDP
// port 3544. As nDPI, the flow's first datagram decides, and loosely: an
// IPv4 packet not sent to a multicast group (224.0.0.0/4), port 3544 on
// either side, and at least 40 bytes, the size of the IPv6 header (§5.1.1)
// any Teredo packet carries: a bubble, data, or one led by the origin
// indication or authentication header (both §5.1.1). nDPI reads none of the
// bytes themselves (version nibble, headers), so neither do we.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kTeredoPort = 3544;
constexpr size_t kIpv6Header = 40;

Verdict classify_teredo(DpiCtx& c, Match& m) {
  const Packet& p = c.p;
  if (p.ip_version != 4 || (p.dst.v4() & 0xf0000000) == 0xe0000000) return Verdict::No;
  if (c.cli_port != kTeredoPort && c.srv_port != kTeredoPort) return Verdict::No;
  if (c.payload.size() < kIpv6Header) return Verdict::No;
  m.app = id(ProtoId::Teredo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(teredo, {"Teredo", id(ProtoId::Teredo), kL4Udp, 1, classify_teredo});

}  // namespace fg
