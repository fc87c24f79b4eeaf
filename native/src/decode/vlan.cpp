#include "decode/decode.h"

namespace fg {

// IEEE 802.1Q / 802.1ad: TCI (PCP, DEI, 12-bit VID), then the next ethertype.
bool decode_vlan(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 4) return s.fail(DecodeError::VlanTooShort);
  if (p.vlan_depth == kMaxVlanDepth) return s.fail(DecodeError::VlanTooDeep);
  uint16_t vid = load_be16(b.data()) & 0x0fff;
  p.vlan[p.vlan_depth++] = vid;
  p.vlan_id = vid;  // innermost tag keys the flow, as ntopng and nDPI do
  return decode_ethertype(load_be16(b.data() + 2), b.subspan(4), p, s);
}

}  // namespace fg
