#include "decode/decode.h"

namespace fg {

// BSD AF_ value in the writer's byte order (DLT_NULL) or network order (DLT_LOOP).
// AF_INET is 2 everywhere; AF_INET6 is 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS).
bool decode_null(Bytes b, bool network_order, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::NullTooShort);
  uint32_t af = network_order ? load_be32(b.data()) : load_le32(b.data());
  if (!network_order && af > 0xffff) af = load_be32(b.data());  // big-endian writer
  Bytes ip = b.subspan(4);
  switch (af) {
    case 2: return decode_ipv4(ip, p, s);
    case 10: case 24: case 28: case 30: return decode_ipv6(ip, p, s);
    default: return false;
  }
}

}  // namespace fg
