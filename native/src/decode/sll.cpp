// Linux cooked captures (SLL, SLL2): what tcpdump -i any writes.
#include "decode/decode.h"

namespace fg {

// SLL: packet type, ARPHRD, addr len, addr[8], protocol (16 bytes).
bool decode_sll(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 16) return s.fail(DecodeError::SllTooShort);
  uint16_t alen = load_be16(b.data() + 4);
  if (load_be16(b.data() + 2) == 1 && alen == 6 && !p.has_mac) {  // ARPHRD_ETHER: source MAC
    std::memcpy(p.src_mac, b.data() + 6, 6);
    p.has_mac = true;
  }
  return decode_ethertype(load_be16(b.data() + 14), b.subspan(16), p, s);
}

// SLL2: protocol, reserved, ifindex, ARPHRD, packet type, addr len, addr[8] (20 bytes).
bool decode_sll2(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 20) return s.fail(DecodeError::Sll2TooShort);
  if (load_be16(b.data() + 8) == 1 && b[11] == 6 && !p.has_mac) {
    std::memcpy(p.src_mac, b.data() + 12, 6);
    p.has_mac = true;
  }
  return decode_ethertype(load_be16(b.data()), b.subspan(20), p, s);
}

}  // namespace fg
