// ② ARP (Ethernet/IPv4 only): not IP, so not a flow, but its sender and
// target addresses teach the engine the broadcast domains (flow/bcast_domains.h).
#include "decode/decode.h"

namespace fg {

bool decode_arp(Bytes b, Packet& p, DecodeStats&) {
  // htype 1 (Ethernet), ptype IPv4, hlen 6, plen 4: 28 bytes
  if (b.size() < 28 || load_be16(b.data()) != 1 || load_be16(b.data() + 2) != 0x0800 || b[4] != 6 || b[5] != 4) return false;
  uint16_t op = load_be16(b.data() + 6);
  if (op != 1 && op != 2) return false;
  p.arp_op = uint8_t(op);
  p.arp_spa = load_be32(b.data() + 14);
  p.arp_tpa = load_be32(b.data() + 24);
  return false;  // not IP: counted as non_ip
}

}  // namespace fg
