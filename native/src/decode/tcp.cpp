#include "decode/decode.h"

namespace fg {

// RFC 9293: data offset in 32-bit words, options skipped. A header whose
// options were cut by the capture length still has ports, flags and
// sequence numbers: it is decoded, with no payload.
bool decode_tcp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 20) return s.fail(DecodeError::TcpTooShort);
  uint32_t hlen = uint32_t(b[12] >> 4) * 4;
  if (hlen < 20) return s.fail(DecodeError::TcpBadHeaderLen);
  if (hlen > b.size() && p.caplen == p.wirelen) return s.fail(DecodeError::TcpTooShort);
  const uint32_t in_capture = hlen < b.size() ? hlen : uint32_t(b.size());
  p.sport = load_be16(b.data());
  p.dport = load_be16(b.data() + 2);
  p.tcp_seq = load_be32(b.data() + 4);
  p.tcp_ack = load_be32(b.data() + 8);
  p.tcp_flags = b[13];
  p.tcp_win = load_be16(b.data() + 14);
  p.has_l4 = true;
  p.payload = b.data() + in_capture;
  p.payload_len = uint32_t(b.size() - in_capture);
  p.l4_payload_wire = p.l4_payload_wire > hlen ? p.l4_payload_wire - hlen : 0;
  return true;
}

}  // namespace fg
