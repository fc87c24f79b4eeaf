#include "decode/decode.h"

namespace fg {

bool decode_ethernet(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 14) return s.fail(DecodeError::EthTooShort);
  if (!p.has_mac) {  // keep the outermost addresses: what the NIC saw
    std::memcpy(p.dst_mac, b.data(), 6);
    std::memcpy(p.src_mac, b.data() + 6, 6);
    p.has_mac = true;
  }
  uint16_t type = load_be16(b.data() + 12);
  if (type <= 1500) return false;  // 802.3 length field: LLC/SNAP (STP, CDP …), not IP
  return decode_ethertype(type, b.subspan(14), p, s);
}

}  // namespace fg
