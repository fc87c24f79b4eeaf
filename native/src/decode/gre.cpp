#include "decode/decode.h"

namespace fg {

// RFC 2784/2890 GRE (version 0) and RFC 2637 enhanced GRE (version 1, PPTP).
bool decode_gre(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::GreTooShort);
  uint16_t flags = load_be16(b.data());
  uint16_t proto = load_be16(b.data() + 2);
  uint8_t version = flags & 0x7;
  bool has_csum = flags & 0x8000, has_key = flags & 0x2000, has_seq = flags & 0x1000;
  size_t hlen = 4 + (has_csum ? 4 : 0) + (has_key ? 4 : 0) + (has_seq ? 4 : 0);
  if (version == 1) {
    if (flags & 0x0080) hlen += 4;  // acknowledgment number present
  } else if (version != 0) {
    return s.fail(DecodeError::GreBadVersion);
  }
  if (b.size() < hlen) return s.fail(DecodeError::GreTooShort);
  Bytes inner = b.subspan(hlen);
  switch (proto) {
    case 0x6558:  // transparent Ethernet bridging
      if (!enter_tunnel(Tunnel::Gre, p, s)) return false;
      return decode_ethernet(inner, p, s);
    case 0x880b:  // PPP (PPTP)
      if (!enter_tunnel(Tunnel::Gre, p, s)) return false;
      return decode_ppp(inner, p, s);
    case 0x88be:  // ERSPAN type II, or type I when no sequence number is present
      if (!enter_tunnel(Tunnel::Erspan, p, s)) return false;
      if (has_seq) {
        if (inner.size() < 8) return s.fail(DecodeError::ErspanTooShort);
        inner = inner.subspan(8);
      }
      return decode_ethernet(inner, p, s);
    case 0x22eb: {  // ERSPAN type III: 12 bytes, +8 with the platform sub-header (O bit)
      if (!enter_tunnel(Tunnel::Erspan, p, s)) return false;
      if (inner.size() < 12) return s.fail(DecodeError::ErspanTooShort);
      size_t elen = (inner[11] & 0x01) ? 20 : 12;
      if (inner.size() < elen) return s.fail(DecodeError::ErspanTooShort);
      return decode_ethernet(inner.subspan(elen), p, s);
    }
    default:
      if (!enter_tunnel(Tunnel::Gre, p, s)) return false;
      return decode_ethertype(proto, inner, p, s);
  }
}

}  // namespace fg
