// ④ Omron FINS, as nDPI recognises it. TCP: the 20-byte FINS/TCP header
// opens with "FINS". UDP: the 10-byte FINS header: ICF 0x80 / 0xc0 / 0xc1,
// reserved 0, gateway count 2, network addresses up to 0x7f, and both unit
// addresses among 0x00, 0xfe, 0xe1 and 0x10–0x1f.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool unit_ok(uint8_t u) { return u == 0x00 || u == 0xfe || u == 0xe1 || (u >= 0x10 && u <= 0x1f); }

Verdict classify_fins(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.l4_proto == kProtoTcp) {
    if (b.size() < 20 || std::memcmp(b.data(), "FINS", 4) != 0) return Verdict::No;
  } else {
    if (b.size() <= 10 || (b[0] != 0x80 && b[0] != 0xc0 && b[0] != 0xc1)) return Verdict::No;
    if (b[1] != 0 || b[2] != 0x02 || b[3] > 0x7f || b[6] > 0x7f) return Verdict::No;
    if (!unit_ok(b[5]) || !unit_ok(b[8])) return Verdict::No;
  }
  m.app = id(ProtoId::FINS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(fins, {"FINS", id(ProtoId::FINS), kL4Both, 1, classify_fins});

}  // namespace fg
