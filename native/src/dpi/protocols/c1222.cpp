// ④ ANSI C12.22 (IEEE 1703 / ANSI C12.22-2008 §5, TCP or UDP port 1153):
// each message is an ACSE APDU in BER — tag 0x60 ([APPLICATION 0],
// constructed), its length, then the elements, the called AP title
// (context tag 0xA2) usually first, holding a universal OID (tag 0x06).
// nDPI reads the flow's first payload packet on any port: at least 50
// octets, 0x60, a one-octet length equal to the packet's length minus 2
// taken modulo 256 (nDPI never reads BER long-form lengths), then 0xA2 at
// octet 2 and 0x06 at octet 4.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_c1222(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 50 || b[0] != 0x60 || b[1] != uint8_t(b.size() - 2)) return Verdict::No;
  if (b[2] != 0xa2 || b[4] != 0x06) return Verdict::No;
  m.app = id(ProtoId::ANSI_C1222);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(c1222, {"ANSI_C1222", id(ProtoId::ANSI_C1222), kL4Both, 1, classify_c1222});

}  // namespace fg
