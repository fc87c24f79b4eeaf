#include "decode/decode.h"

namespace fg {

constexpr int kMaxExtHeaders = 8;

// RFC 8200: fixed header, then extension headers until an upper layer.
bool decode_ipv6(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 40) return s.fail(DecodeError::Ipv6TooShort);
  if ((b[0] >> 4) != 6) return s.fail(DecodeError::Ipv6BadVersion);
  uint32_t plen = load_be16(b.data() + 4);
  if (plen == 0) plen = uint32_t(b.size() - 40);  // jumbogram or TSO
  p.ip_version = 6;
  p.dscp = uint8_t(((b[0] & 0x0f) << 4 | b[1] >> 4) >> 2);
  p.ttl = b[7];
  p.ip_len = 40 + plen;
  p.l3_offset = uint32_t(b.data() - p.frame);
  p.src.set_v6(b.data() + 8);
  p.dst.set_v6(b.data() + 24);
  uint8_t next = b[6];
  size_t avail = b.size() - 40 < plen ? b.size() - 40 : plen;
  Bytes rest = b.subspan(40, avail);
  uint32_t wire = plen;
  for (int i = 0;; i++) {
    switch (next) {
      case 0:    // hop-by-hop
      case 43:   // routing
      case 60:   // destination options
      case 135:  // mobility
      case 139:  // HIP
      case 140: {  // shim6
        if (i == kMaxExtHeaders) return s.fail(DecodeError::Ipv6TooManyExt);
        if (rest.size() < 8) return s.fail(DecodeError::Ipv6ExtTooShort);
        size_t len = (size_t(rest[1]) + 1) * 8;
        if (rest.size() < len) return s.fail(DecodeError::Ipv6ExtTooShort);
        next = rest[0];
        rest = rest.subspan(len);
        wire = wire > len ? uint32_t(wire - len) : 0;
        continue;
      }
      case 51: {  // AH: length in 4-byte units minus 2 (RFC 4302)
        if (i == kMaxExtHeaders) return s.fail(DecodeError::Ipv6TooManyExt);
        if (rest.size() < 8) return s.fail(DecodeError::Ipv6ExtTooShort);
        size_t len = (size_t(rest[1]) + 2) * 4;
        if (rest.size() < len) return s.fail(DecodeError::Ipv6ExtTooShort);
        next = rest[0];
        rest = rest.subspan(len);
        wire = wire > len ? uint32_t(wire - len) : 0;
        continue;
      }
      case 44: {  // fragment header
        if (rest.size() < 8) return s.fail(DecodeError::Ipv6ExtTooShort);
        uint16_t off = load_be16(rest.data() + 2) >> 3;
        bool more = (rest[3] & 1) != 0;
        next = rest[0];
        uint32_t id = load_be32(rest.data() + 4);
        rest = rest.subspan(8);
        wire = wire > 8 ? wire - 8 : 0;
        if (off || more) {
          s.fragments++;
          p.is_fragment = true;
          p.frag_id = id;
          p.first_fragment = off == 0;
          if (!p.first_fragment) {
            p.l4_proto = next;
            p.payload = rest.data(), p.payload_len = uint32_t(rest.size());
            p.l4_payload_wire = wire;
            return true;
          }
        }
        continue;
      }
      case 59:  // no next header
        p.l4_proto = 59;
        p.l4_payload_wire = 0;
        return true;
      default:
        p.l4_proto = next;
        p.l4_payload_wire = wire;
        return decode_ip_proto(next, rest, p, s);
    }
  }
}

}  // namespace fg
