#include "decode/decode.h"

namespace fg {

// RFC 7348: flags (I bit = valid VNI), reserved, VNI, reserved; then Ethernet.
bool decode_vxlan(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 8) return s.fail(DecodeError::VxlanTooShort);
  if (!(b[0] & 0x08)) return false;  // not VXLAN after all: keep the UDP flow
  if (!enter_tunnel(Tunnel::Vxlan, p, s)) return false;
  return decode_ethernet(b.subspan(8), p, s);
}

}  // namespace fg
