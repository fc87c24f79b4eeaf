// ④ IEC 62056 (DLMS/COSEM) over TCP or UDP in HDLC framing: a frame from
// flag 0x7e with format type 0xa0 to a closing flag 0x7e, at least 9 bytes
// (an SNRM request), whose frame check sequence (CRC-16/X.25 over the
// bytes between the opening flag and the FCS, stored little-endian) holds.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint16_t crc16_x25(const uint8_t* p, size_t n) {
  uint16_t crc = 0xffff;
  while (n--) {
    crc ^= *p++;
    for (int i = 0; i < 8; i++) crc = (crc & 1) ? (crc >> 1) ^ 0x8408 : crc >> 1;
  }
  return crc ^ 0xffff;
}

Verdict classify_iec62056(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t n = b.size();
  if (n < 9 || b[0] != 0x7e || b[1] != 0xa0 || b[n - 1] != 0x7e) return Verdict::No;
  uint16_t fcs = uint16_t(b[n - 3] | b[n - 2] << 8);
  if (crc16_x25(b.data() + 1, n - 4) != fcs) return Verdict::No;
  m.app = id(ProtoId::IEC62056);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(iec62056, {"IEC62056", id(ProtoId::IEC62056), kL4Both, 1, classify_iec62056});

}  // namespace fg
