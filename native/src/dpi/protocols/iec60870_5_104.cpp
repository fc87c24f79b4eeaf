// ④ IEC 60870-5-104 (IEC 60870-5-104 §5, TCP port 2404): a segment carries
// one or more APDUs, each an APCI — start octet 0x68, then the length of
// what follows (the four control octets and any ASDU) — and its body. nDPI
// decides on the flow's first payload segment, on any port: walking the
// frames from the start, each must open with 0x68 and a non-zero length,
// and the last must end exactly at the end of the segment. We keep that
// walk; like nDPI we do not check the control field's frame format nor the
// 253-octet maximum length.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint8_t kStart = 0x68;

Verdict classify_iec60870_5_104(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t at = 0;
  while (at + 1 < b.size()) {
    if (b[at] != kStart || b[at + 1] == 0) return Verdict::No;
    const size_t end = at + 2 + b[at + 1];
    if (end == b.size()) {
      m.app = id(ProtoId::IEC60870);
      return Verdict::Match;
    }
    at = end;  // past the end: the loop stops, no match
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(iec60870_5_104, {"IEC60870", id(ProtoId::IEC60870), kL4Tcp, 1, classify_iec60870_5_104});

}  // namespace fg
