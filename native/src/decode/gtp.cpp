#include "decode/decode.h"

namespace fg {

// 3GPP TS 29.281 GTPv1-U: flags, type, length, TEID; an optional 4-byte block
// when E, S or PN is set; extension headers chained when E is set. Only
// G-PDUs (type 255) carry user IP packets. As nDPI's reader tunnels them:
// version 1 whatever the PT bit, and with E set the first extension is read
// at offset 12 whatever the next-type byte before it says, each one's last
// byte 0 ending the chain.
bool decode_gtpu(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::GtpTooShort);
  uint8_t flags = b[0];
  if ((flags >> 5) != 1) return false;  // not GTPv1
  if (b[1] != 0xff) return false;  // echo, error indication …: signalling only
  size_t off = 8;
  if (flags & 0x07) {
    if (b.size() < 12) return s.fail(DecodeError::GtpTooShort);
    off = 12;
    if (flags & 0x04) {
      for (;;) {  // each extension is 4 bytes or more: the walk ends
        if (off >= b.size()) return s.fail(DecodeError::GtpBadHeader);
        size_t elen = size_t(b[off]) * 4;
        if (elen == 0 || off + elen > b.size()) return s.fail(DecodeError::GtpBadHeader);
        off += elen;
        if (b[off - 1] == 0) break;
      }
    }
  }
  if (off >= b.size()) return s.fail(DecodeError::GtpTooShort);
  Bytes inner = b.subspan(off);
  if (!enter_tunnel(Tunnel::GtpU, p, s)) return false;
  switch (inner[0] >> 4) {
    case 4: return decode_ipv4(inner, p, s);
    case 6: return decode_ipv6(inner, p, s);
    default: return false;
  }
}

}  // namespace fg
