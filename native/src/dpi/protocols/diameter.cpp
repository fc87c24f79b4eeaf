// ④ Diameter (RFC 6733 §3, TCP, any port), on the flow's first payload: a
// 20-byte header, version 1, a base-protocol command (257 CER/CEA, 258 RAR/RAA,
// 271 ACR/ACA, 274 ASR/ASA, 275 STR/STA, 280 DWR/DWA, 282 DPR/DPA) or RFC
// 4006's 272 CCR/CCA. Stricter than the RFC, as nDPI: the flags byte must be
// exactly R, P, E or T (0x80, 0x40, 0x20, 0x10), so a plain answer (0x00) or
// a proxiable request (0xc0) fails; looser: the message length is unchecked,
// and nDPI adds the command code's high byte at bits 8-15 (0x010001 is 257).
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 20;

Verdict classify_diameter(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader || b[0] != 1) return Verdict::No;
  const uint8_t flags = b[4];
  if (flags != 0x80 && flags != 0x40 && flags != 0x20 && flags != 0x10) return Verdict::No;
  const uint32_t code = uint32_t(b[7]) + (uint32_t(b[6]) << 8) + (uint32_t(b[5]) << 8);
  switch (code) {
    case 257: case 258: case 271: case 272: case 274: case 275: case 280: case 282:
      m.app = id(ProtoId::Diameter);
      return Verdict::Match;
    default:
      return Verdict::No;
  }
}

}  // namespace

FG_DISSECTOR(diameter, {"Diameter", id(ProtoId::Diameter), kL4Tcp, 1, classify_diameter});

}  // namespace fg
