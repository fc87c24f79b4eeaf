// ② The IP protocol table: transport headers and IP-in-IP tunnels.
#include "decode/decode.h"

namespace fg {

bool decode_ip_proto(uint8_t proto, Bytes b, Packet& p, DecodeStats& s) {
  p.l4_offset = uint32_t(b.data() - p.frame);
  switch (proto) {
    case kProtoTcp: return decode_tcp(b, p, s);
    case kProtoUdp: return decode_udp(b, p, s);
    case kProtoIcmp: return decode_icmp(b, p, s);
    case kProtoIcmpv6: return decode_icmpv6(b, p, s);
    case kProtoGre: return decode_tunnel_or_outer(decode_gre, b, p, s);
    case kProtoIpip:
      if (!enter_tunnel(Tunnel::IpInIp, p, s)) return false;
      return decode_ipv4(b, p, s);
    case kProtoIpv6:
      if (!enter_tunnel(Tunnel::IpInIp, p, s)) return false;
      return decode_ipv6(b, p, s);
    default:
      p.payload = b.data(), p.payload_len = uint32_t(b.size());
      return true;
  }
}

}  // namespace fg
