#include "decode/decode.h"

namespace fg {

// Cisco HDLC: address (0x0f unicast, 0x8f broadcast), control, ethertype
// (SLARP keepalives, 0x8035, are not IP).
bool decode_hdlc(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::HdlcTooShort);
  return decode_ethertype(load_be16(b.data() + 2), b.subspan(4), p, s);
}

// Captures of serial links labelled PPP (link types 9 and 50) often carry
// Cisco HDLC frames: an address byte of 0x0f or 0x8f (PPP's is 0xff, or none)
// says which (as tcpdump and nDPI's reader tell them apart).
bool decode_ppp_link(Bytes b, Packet& p, DecodeStats& s) {
  if (!b.empty() && (b[0] == 0x0f || b[0] == 0x8f)) return decode_hdlc(b, p, s);
  return decode_ppp(b, p, s);
}

}  // namespace fg
