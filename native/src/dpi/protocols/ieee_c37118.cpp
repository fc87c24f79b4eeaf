// ④ IEEE C37.118.2-2011 synchrophasor frames (§6.2, TCP 4712 / UDP 4713):
// SYNC (0xAA, then the frame type in bits 6-4 and the version in bits 3-0),
// FRAMESIZE (big-endian, the whole frame), IDCODE, SOC, FRACSEC … and a
// closing CHK, CRC-CCITT (polynomial 0x1021, initial 0xFFFF, §6.2 / Annex B)
// over everything before it.
// nDPI reads the flow's first payload packet, TCP or UDP, on any port: at
// least 17 octets, SYNC 0xAA, a frame type 0-5 (data, header, CFG-1, CFG-2,
// command, CFG-3; reading the whole high nibble of the second octet, so
// the reserved bit 7 must be 0), FRAMESIZE equal to the packet and a valid
// CHK. One frame per packet: a TCP segment holding two frames is not named.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint16_t crc_ccitt(const uint8_t* p, size_t n) {
  uint16_t crc = 0xffff;
  for (size_t i = 0; i < n; i++) {
    crc = uint16_t(crc ^ (p[i] << 8));
    for (int k = 0; k < 8; k++) crc = uint16_t(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc;
}

Verdict classify_ieee_c37118(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 17 || b[0] != 0xaa || (b[1] >> 4) >= 6) return Verdict::No;
  if (load_be16(b.data() + 2) != b.size()) return Verdict::No;
  if (crc_ccitt(b.data(), b.size() - 2) != load_be16(b.data() + b.size() - 2)) return Verdict::No;
  m.app = id(ProtoId::IEEE_C37118);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ieee_c37118, {"IEEE-C37118", id(ProtoId::IEEE_C37118), kL4Both, 1, classify_ieee_c37118});

}  // namespace fg
