#include "decode/decode.h"

namespace fg {

// RFC 9293: data offset in 32-bit words, options skipped.
bool decode_tcp(Bytes b, Packet& p, DecodeStats& s) {
  if (b.size() < 20) return s.fail(DecodeError::TcpTooShort);
  uint32_t hlen = uint32_t(b[12] >> 4) * 4;
  if (hlen < 20) return s.fail(DecodeError::TcpBadHeaderLen);
  if (hlen > b.size()) return s.fail(DecodeError::TcpTooShort);
  p.sport = load_be16(b.data());
  p.dport = load_be16(b.data() + 2);
  p.tcp_seq = load_be32(b.data() + 4);
  p.tcp_ack = load_be32(b.data() + 8);
  p.tcp_flags = b[13];
  p.tcp_win = load_be16(b.data() + 14);
  p.has_l4 = true;
  p.payload = b.data() + hlen;
  p.payload_len = uint32_t(b.size() - hlen);
  p.l4_payload_wire = p.l4_payload_wire > hlen ? p.l4_payload_wire - hlen : 0;
  return true;
}

}  // namespace fg
