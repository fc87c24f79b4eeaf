#include "decode/decode.h"

namespace fg {

// RFC 791. Options are skipped (IHL); a total length above what was captured
// means snaplen cut the packet: decode what is there. Ethernet padding beyond
// the total length is trimmed.
bool decode_ipv4(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 20) return s.fail(DecodeError::Ipv4TooShort);
  if ((b[0] >> 4) != 4) return s.fail(DecodeError::Ipv4BadVersion);
  uint32_t ihl = uint32_t(b[0] & 0x0f) * 4;
  if (ihl < 20 || ihl > b.size()) return s.fail(DecodeError::Ipv4BadHeaderLen);
  uint32_t total = load_be16(b.data() + 2);
  if (total == 0) total = uint32_t(b.size());  // TSO: the NIC fills it in later
  if (total < ihl) return s.fail(DecodeError::Ipv4BadTotalLen);
  p.ip_version = 4;
  p.dscp = b[1] >> 2;
  p.ttl = b[8];
  p.ip_len = total;
  p.l3_offset = uint32_t(b.data() - p.frame);
  p.src.set_v4(b.data() + 12);
  p.dst.set_v4(b.data() + 16);
  uint16_t frag = load_be16(b.data() + 6);
  uint16_t frag_off = frag & 0x1fff;
  bool more = (frag & 0x2000) != 0;
  uint8_t proto = b[9];
  p.l4_proto = proto;
  Bytes body = b.subspan(ihl, (total < b.size() ? total : b.size()) - ihl);
  uint32_t body_wire = total - ihl;
  if (frag_off || more) {
    s.fragments++;
    p.is_fragment = true;
    p.frag_id = load_be16(b.data() + 4);
    p.first_fragment = frag_off == 0;
    if (!p.first_fragment) {  // no L4 header here: the flow stage maps it by id
      p.payload = body.data(), p.payload_len = uint32_t(body.size());
      p.l4_payload_wire = body_wire;
      return true;
    }
  }
  p.l4_payload_wire = body_wire;
  return decode_ip_proto(proto, body, p, s);
}

}  // namespace fg
