// ④ Cisco VPN client's IPsec over UDP (the legacy Cisco VPN Client's
// "IPsec over UDP" transparent tunnelling, UDP port 10000 both ways). nDPI
// only considers flows whose two ports are both 10000, and names one whose
// datagram opens with the 4 bytes FE 57 7E 2B; other datagrams are let by
// until more than 5 packets of the flow were processed, empty datagrams
// counted (nDPI's num_processed_pkts, ciscovpn.c), after which it gives up.
// Any other port pair rules the flow out at once.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kCiscoVpnPort = 10000;
constexpr uint32_t kLead = 0xfe577e2b;
constexpr uint8_t kLastTry = 6;  // nDPI gives up once more than 5 packets were processed

Verdict classify_ciscovpn(DpiCtx& c, Match& m) {
  if (c.cli_port != kCiscoVpnPort || c.srv_port != kCiscoVpnPort) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() >= 4 && load_be32(b.data()) == kLead) {
    m.app = id(ProtoId::CiscoVPN);
    return Verdict::Match;
  }
  return c.flow.pkts[0] + c.flow.pkts[1] >= kLastTry ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(ciscovpn, {"CiscoVPN", id(ProtoId::CiscoVPN), kL4Udp, kLastTry, classify_ciscovpn});

}  // namespace fg
