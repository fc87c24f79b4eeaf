#include "decode/decode.h"

namespace fg {

constexpr int kMaxMplsDepth = 8;

// RFC 3032 label stack entries; the payload after bottom-of-stack has no type
// field, so the first nibble tells IPv4 / IPv6 (RFC 4928 avoids 4/6 for PW).
bool decode_mpls(Bytes b, Packet& p, DecodeStats& s) {
  for (;;) {
    if (b.size() < 4) return s.fail(DecodeError::MplsTooShort);
    if (++p.mpls_depth > kMaxMplsDepth) return s.fail(DecodeError::MplsTooDeep);
    bool bottom = (b[2] & 0x01) != 0;  // RFC 3032: bottom-of-stack bit
    b = b.subspan(4);
    if (bottom) break;
  }
  if (b.empty()) return s.fail(DecodeError::MplsTooShort);
  switch (b[0] >> 4) {
    case 4: return decode_ipv4(b, p, s);
    case 6: return decode_ipv6(b, p, s);
    case 0:  // RFC 4385 pseudowire control word, then Ethernet
      if (b.size() < 4) return s.fail(DecodeError::MplsTooShort);
      return decode_ethernet(b.subspan(4), p, s);
    default: return false;
  }
}

}  // namespace fg
