#include "decode/decode.h"

namespace fg {

// 3GPP TS 29.281 GTPv1-U: flags, type, length, TEID; an optional 4-byte block
// when E, S or PN is set; extension headers chained when E is set. Only
// G-PDUs (type 255) carry user IP packets.
bool decode_gtpu(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::GtpTooShort);
  uint8_t flags = b[0];
  if ((flags >> 5) != 1 || !(flags & 0x10)) return false;  // not GTPv1 (GTP' is PT=0)
  if (b[1] != 0xff) return false;  // echo, error indication …: signalling only
  size_t off = 8;
  if (flags & 0x07) {
    if (b.size() < 12) return s.fail(DecodeError::GtpTooShort);
    off = 12;
    uint8_t next_ext = b[11];
    int guard = 0;
    while ((flags & 0x04) && next_ext != 0) {
      if (off >= b.size() || ++guard > 8) return s.fail(DecodeError::GtpBadHeader);
      size_t elen = size_t(b[off]) * 4;
      if (elen == 0 || off + elen > b.size()) return s.fail(DecodeError::GtpBadHeader);
      next_ext = b[off + elen - 1];
      off += elen;
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
