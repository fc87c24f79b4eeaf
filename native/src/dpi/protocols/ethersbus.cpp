// ④ Ether-S-Bus (Saia-Burgess PCD S-Bus over UDP, port 5050): a frame
// opens with its length (32 bits, big-endian, the whole datagram), a
// version octet, a protocol type octet and a sequence number, then the
// S-Bus telegram, and closes with a CRC-16 (CCITT polynomial 0x1021,
// initial value 0, "XMODEM") over everything before it, big-endian.
// nDPI reads the flow's first datagram on any port: over 12 octets, the
// length equal to the datagram, octet 4 below 2, octet 5 zero and a valid
// CRC.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint16_t crc_xmodem(const uint8_t* p, size_t n) {
  uint16_t crc = 0;
  for (size_t i = 0; i < n; i++) {
    crc = uint16_t(crc ^ (p[i] << 8));
    for (int k = 0; k < 8; k++) crc = uint16_t(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc;
}

Verdict classify_ethersbus(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 12 || load_be32(b.data()) != b.size() || b[4] >= 2 || b[5] != 0) return Verdict::No;
  if (crc_xmodem(b.data(), b.size() - 2) != load_be16(b.data() + b.size() - 2)) return Verdict::No;
  m.app = id(ProtoId::Ether_S_Bus);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ethersbus, {"Ether-S-Bus", id(ProtoId::Ether_S_Bus), kL4Udp, 1, classify_ethersbus});

}  // namespace fg
