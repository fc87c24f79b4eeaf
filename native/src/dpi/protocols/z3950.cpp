// ④ Z39.50 (ANSI/NISO information retrieval) over TCP: the association opens
// with a BER initRequest ([20], 0xb4) or initResponse ([21], 0xb5) whose
// definite length spans the segment, starting with the optional
// referenceId ([2]) or the protocolVersion bit string ([3]).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_z3950(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || (b[0] != 0xb4 && b[0] != 0xb5)) return Verdict::No;
  size_t hdr, len;
  if (b[1] < 0x80) hdr = 2, len = b[1];
  else if (b[1] == 0x81) hdr = 3, len = b[2];
  else if (b[1] == 0x82) hdr = 4, len = size_t(b[2]) << 8 | b[3];
  else return Verdict::No;
  if (hdr + len != b.size() || b.size() < hdr + 4) return Verdict::No;
  const uint8_t first = b[hdr];
  if (first != 0x82 && first != 0x83) return Verdict::No;
  if (first == 0x83 && (b[hdr + 1] == 0 || b[hdr + 1] > 2)) return Verdict::No;
  m.app = id(ProtoId::Z3950);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(z3950, {"Z3950", id(ProtoId::Z3950), kL4Tcp, 2, classify_z3950});

}  // namespace fg
