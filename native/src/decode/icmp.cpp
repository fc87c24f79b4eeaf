#include "decode/decode.h"

namespace fg {

// ICMP (RFC 792) and ICMPv6 (RFC 4443): type and code. Flows are keyed without
// ports; ntopng keys echo flows by identifier, which we keep in sport/dport 0.
bool decode_icmp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::IcmpTooShort);
  p.icmp_type = b[0];
  p.icmp_code = b[1];
  p.payload = b.data() + 4;
  p.payload_len = uint32_t(b.size() - 4);
  return true;
}

bool decode_icmpv6(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::Icmpv6TooShort);
  p.icmp_type = b[0];
  p.icmp_code = b[1];
  p.payload = b.data() + 4;
  p.payload_len = uint32_t(b.size() - 4);
  return true;
}

}  // namespace fg
