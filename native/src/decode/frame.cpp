// ② Link-type dispatch and the ethertype table.
#include "capture/source.h"
#include "decode/decode.h"

namespace fg {

const char* decode_error_name(DecodeError e) {
  static const char* const names[] = {
#define FG_X(e, n) n,
      FG_DECODE_ERRORS(FG_X)
#undef FG_X
  };
  return size_t(e) < kDecodeErrorCount ? names[size_t(e)] : "decode.unknown";
}

DecodeResult decode_frame(uint16_t linktype, Bytes b, Packet& p, DecodeStats& s) {
  const uint64_t before = s.failed;
  bool ok;
  switch (linktype) {
    case kLinkEthernet: ok = decode_ethernet(b, p, s); break;
    case kLinkRaw:
    case kLinkIpv4:
    case kLinkIpv6:
    case 12:  // DLT_RAW as some BSDs number it
    case 14: ok = decode_raw_ip(b, p, s); break;
    case kLinkSll: ok = decode_sll(b, p, s); break;
    case kLinkSll2: ok = decode_sll2(b, p, s); break;
    case kLinkNull: ok = decode_null(b, false, p, s); break;
    case kLinkLoop: ok = decode_null(b, true, p, s); break;
    case kLinkCiscoHdlc: ok = decode_hdlc(b, p, s); break;
    case kLinkPpp:
    case kLinkPppSerial: ok = decode_ppp_link(b, p, s); break;
    case kLinkPppEther: ok = decode_pppoe(b, p, s); break;
    case kLinkIeee80211: ok = decode_ieee80211(b, p, s); break;
    case kLinkRadiotap: ok = decode_radiotap(b, p, s); break;
    case kLinkPpi: ok = decode_ppi(b, p, s); break;
    default: ok = s.fail(DecodeError::UnknownLinkType);
  }
  if (ok && p.ip_version) return DecodeResult::Ip;
  if (s.failed != before) return DecodeResult::Malformed;
  s.non_ip++;
  return DecodeResult::NonIp;
}

bool decode_ethertype(uint16_t type, Bytes b, Packet& p, DecodeStats& s) {
  switch (type) {
    case 0x0800: return decode_ipv4(b, p, s);
    case 0x86dd: return decode_ipv6(b, p, s);
    case 0x8100:  // 802.1Q
    case 0x88a8:  // 802.1ad (QinQ outer)
    case 0x9100:  // pre-standard QinQ
      return decode_vlan(b, p, s);
    case 0x8847:
    case 0x8848: return decode_mpls(b, p, s);
    case 0x8864: return decode_pppoe(b, p, s);
    case 0x0806: return decode_arp(b, p, s);
    default: return false;  // LLDP, PPPoE discovery, …: not IP
  }
}

bool decode_raw_ip(Bytes b, Packet& p, DecodeStats& s) {
  if (b.empty()) return s.fail(DecodeError::Ipv4TooShort);
  switch (b[0] >> 4) {
    case 4: return decode_ipv4(b, p, s);
    case 6: return decode_ipv6(b, p, s);
    default: return s.fail(DecodeError::Ipv4BadVersion);
  }
}

bool enter_tunnel(Tunnel t, Packet& p, DecodeStats& s) {
  if (p.tunnel_depth >= kMaxTunnelDepth) return s.fail(DecodeError::TunnelTooDeep);
  if (p.tunnel_depth == 0) s.tunneled++;
  p.tunnel_depth++;
  p.tunnel = t;
  // The VLAN depth limit is per encapsulation: inner frames have their own tags.
  p.vlan_depth = 0;
  // The inner packet is the one tracked; outer L3/L4 values are replaced.
  p.ip_version = 0, p.l4_proto = 0, p.has_l4 = false;
  p.sport = p.dport = 0, p.tcp_flags = 0;
  p.is_fragment = p.first_fragment = false;
  p.payload = nullptr, p.payload_len = 0;
  return true;
}

}  // namespace fg
