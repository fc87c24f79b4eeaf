// ④ SMPP over TCP, as nDPI's smpp.c: a payload of 16 bytes or more (a
// shorter one excludes) whose first PDU's length either equals the payload
// or starts a chain of non-zero lengths that ends exactly at its end (else
// a later segment is tried, the flow's first three payload packets in all).
// Then the first PDU's command id: a first byte of 0x00 or 0x80, a known
// command in the low 24 bits and, for the commands nDPI knows the shape
// of, a zero status on requests and a first-PDU length in range. The other
// ids of a known command (generic_nack's request, outbind's or
// alert_notification's response…) pass as nDPI lets them.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

bool known_command(uint32_t cmd) {
  const uint32_t req = cmd & 0x00ffffffu;
  return req <= 0x09 || req == 0x0b || req == 0x15 || req == 0x21 || req == 0x102 || req == 0x103;
}

// nDPI's per-command checks on the first PDU's length `l` and status.
bool shape_ok(uint32_t cmd, uint32_t l, uint32_t status) {
  const bool st0 = status == 0;
  switch (cmd) {
    case 0x80000000: case 0x80000006: case 0x80000008: case 0x80000007: case 0x80000015: return l <= 16;
    case 0x00000001: case 0x00000002: case 0x00000009: return st0 && l >= 26;
    case 0x80000001: case 0x80000002: case 0x80000009: case 0x80000103: return l >= 18;
    case 0x0000000b: case 0x00000003: return st0 && l >= 20;
    case 0x00000006: case 0x00000015: return st0 && l <= 16;
    case 0x00000004: case 0x00000021: case 0x00000005: return st0 && l >= 33;
    case 0x80000004: return st0 ? l >= 18 : l <= 16;
    case 0x80000021: return l >= 26;
    case 0x80000005: return l >= 17;
    case 0x00000103: return st0 && l >= 26;
    case 0x80000003: return l >= 21;
    case 0x00000008: return st0 && l >= 24;
    case 0x00000007: return st0 && l >= 25;
    case 0x00000102: return st0 && l >= 22;
    default: return true;
  }
}

Verdict classify_smpp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint32_t n = uint32_t(b.size());
  if (n < 16) return Verdict::No;
  const uint32_t len = be32(b.data());
  if (len != n) {
    // a chain of PDUs filling the segment; a zero (or absurd) length or a
    // chain that misses the end: try a later segment
    uint64_t total = len;
    while (total < n - 4) {
      const uint32_t l = be32(b.data() + total);
      if (l == 0 || l > 0x7fffffffu - total) return Verdict::NeedMore;
      total += l;
    }
    if (total != n) return Verdict::NeedMore;
  }
  if (b[4] != 0x00 && b[4] != 0x80) return Verdict::No;
  const uint32_t cmd = be32(b.data() + 4);
  if (!known_command(cmd) || !shape_ok(cmd, len, be32(b.data() + 8))) return Verdict::No;
  m.app = id(ProtoId::SMPP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(smpp, {"SMPP", id(ProtoId::SMPP), kL4Tcp, 3, classify_smpp});

}  // namespace fg
