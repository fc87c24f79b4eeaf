// ④ DRDA (Distributed Relational Database Architecture, Open Group DRDA
// Vol. 3 "DDM": the DSS header), TCP (IBM Db2, Apache Derby): each Data
// Stream Structure opens with a 6-byte header — 16-bit length, magic 0xD0,
// format byte, 16-bit correlation id — then a DDM object: its own 16-bit
// length (the DSS length minus 6) and 16-bit code point. As nDPI: the
// first 10 bytes must hold such a header (DSS length = DDM length + 6,
// magic 0xD0); when the packet is longer than that DSS, the DSSs chained
// after it are checked the same way while more than a header's worth of
// bytes remains, and they must end exactly at the end of the packet. A DSS
// longer than the packet (continued in the next segment) is accepted.
// One packet decides; no port required.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kHeader = 10;  // DSS header + DDM length and code point
constexpr uint8_t kMagic = 0xd0;

// The DSS at `at` is well formed: its length is 6 more than its DDM's.
bool dss_at(Bytes b, size_t at, size_t& len) {
  len = load_be16(b.data() + at);
  return b[at + 2] == kMagic && len == size_t(load_be16(b.data() + at + 6)) + 6;
}

Verdict classify_drda(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t len = 0;
  if (b.size() < kHeader || !dss_at(b, 0, len)) return Verdict::No;
  if (b.size() > len) {
    size_t at = len;  // len ≥ 6: every step moves on
    while (at + kHeader < b.size()) {
      if (!dss_at(b, at, len)) return Verdict::No;
      at += len;
    }
    if (at != b.size()) return Verdict::No;
  }
  m.app = id(ProtoId::DRDA);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(drda, {"DRDA", id(ProtoId::DRDA), kL4Tcp, 1, classify_drda});

}  // namespace fg
