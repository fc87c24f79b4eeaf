#include "decode/decode.h"

namespace fg {

// RFC 2516 session stage: ver/type, code, session id, length, then PPP.
bool decode_pppoe(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 6) return s.fail(DecodeError::PppoeTooShort);
  uint16_t len = load_be16(b.data() + 4);
  Bytes ppp = b.subspan(6);
  if (len < ppp.size()) ppp = ppp.first(len);
  return decode_ppp(ppp, p, s);
}

// RFC 1661 PPP: optional address/control (0xff 0x03), 1- or 2-byte protocol.
bool decode_ppp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() >= 2 && b[0] == 0xff && b[1] == 0x03) b = b.subspan(2);
  if (b.empty()) return s.fail(DecodeError::PppTooShort);
  uint16_t proto;
  if (b[0] & 0x01) {  // protocol field compression (RFC 1661 §6.5)
    proto = b[0];
    b = b.subspan(1);
  } else {
    if (b.size() < 2) return s.fail(DecodeError::PppTooShort);
    proto = load_be16(b.data());
    b = b.subspan(2);
  }
  switch (proto) {
    case 0x0021: return decode_ipv4(b, p, s);
    case 0x0057: return decode_ipv6(b, p, s);
    case 0x0281:  // MPLS unicast (RFC 3032 over PPP)
    case 0x0283: return decode_mpls(b, p, s);
    default: return false;  // LCP, IPCP, CHAP …
  }
}

}  // namespace fg
