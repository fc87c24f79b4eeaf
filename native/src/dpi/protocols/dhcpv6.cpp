// ④ DHCPv6 over UDP: client port 546 and server port 547 on both ends, a
// message type (1 Solicit .. 13 Relay-Reply) then a 3-byte transaction id.
// Over IPv6 only: nDPI registers its dissector for IPv6 UDP.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool dhcpv6_port(uint16_t p) { return p == 546 || p == 547; }

Verdict classify_dhcpv6(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.ip_version != 6 || b.size() < 4 || !dhcpv6_port(c.cli_port) || !dhcpv6_port(c.srv_port)) return Verdict::No;
  if (b[0] < 1 || b[0] > 13) return Verdict::No;
  m.app = id(ProtoId::DHCPV6);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dhcpv6, {"DHCPV6", id(ProtoId::DHCPV6), kL4Udp, 1, classify_dhcpv6});

}  // namespace fg
