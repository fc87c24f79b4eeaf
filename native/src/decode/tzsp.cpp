#include "decode/decode.h"

namespace fg {

// TZSP (TaZmen Sniffer Protocol, UDP 37008: what MikroTik and other sniffers
// stream): version 1, type, encapsulated protocol, then tagged fields ended by
// the END tag (1); PADDING (0) is one byte, every other tag type + length +
// value. Types 0 (received tag list) and 1 (packet for transmit) carry a
// frame: Ethernet (1) or 802.11 (18). Others (configuration, keepalive, port
// opener) or other encapsulations stay a flow of the outer UDP.
// nDPI's reader takes type 0 over Ethernet and the frame after the first tag
// only; walking to END reads the same frames and also those with options.
bool decode_tzsp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::TzspTooShort);
  const uint8_t version = b[0], type = b[1];
  const uint16_t encap = load_be16(b.data() + 2);
  if (version != 1 || type > 1 || (encap != 1 && encap != 18)) return false;
  size_t off = 4;
  for (;;) {
    if (off >= b.size()) return s.fail(DecodeError::TzspTooShort);
    const uint8_t tag = b[off];
    if (tag == 1) {
      off++;
      break;
    }
    if (tag == 0) {
      off++;
      continue;
    }
    if (off + 2 > b.size()) return s.fail(DecodeError::TzspTooShort);
    off += 2 + size_t(b[off + 1]);
  }
  if (!enter_tunnel(Tunnel::Tzsp, p, s)) return false;
  return encap == 1 ? decode_ethernet(b.subspan(off), p, s) : decode_ieee80211(b.subspan(off), p, s);
}

}  // namespace fg
