#include "decode/decode.h"

namespace fg {

// Cisco HDLC: address, control, ethertype.
bool decode_hdlc(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::HdlcTooShort);
  return decode_ethertype(load_be16(b.data() + 2), b.subspan(4), p, s);
}

}  // namespace fg
