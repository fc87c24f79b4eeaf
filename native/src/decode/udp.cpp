#include "decode/decode.h"

namespace fg {

constexpr uint16_t kPortVxlan = 4789;  // RFC 7348
constexpr uint16_t kPortGtpU = 2152;   // 3GPP TS 29.281
constexpr uint16_t kPortCapwapData = 5247;  // RFC 5415
constexpr uint16_t kPortTzsp = 37008;

bool decode_udp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::UdpTooShort);
  uint16_t len = load_be16(b.data() + 4);
  if (len != 0 && len < 8) return s.fail(DecodeError::UdpBadLen);
  p.sport = load_be16(b.data());
  p.dport = load_be16(b.data() + 2);
  p.has_l4 = true;
  Bytes body = b.subspan(8);
  if (len >= 8 && size_t(len - 8) < body.size()) body = body.first(len - 8);
  p.payload = body.data();
  p.payload_len = uint32_t(body.size());
  p.l4_payload_wire = p.l4_payload_wire > 8 ? p.l4_payload_wire - 8 : 0;
  if (p.dport == kPortVxlan) return decode_tunnel_or_outer(decode_vxlan, body, p, s);
  if (p.dport == kPortGtpU || p.sport == kPortGtpU) return decode_tunnel_or_outer(decode_gtpu, body, p, s);
  if (p.dport == kPortCapwapData || p.sport == kPortCapwapData) return decode_tunnel_or_outer(decode_capwap, body, p, s);
  if (p.dport == kPortTzsp || p.sport == kPortTzsp) return decode_tunnel_or_outer(decode_tzsp, body, p, s);
  return true;
}

}  // namespace fg
