// ④ TP-Link Smart Home Protocol (TPLINK_SHP): the JSON commands of TP-Link
// Kasa plugs and bulbs (TCP and UDP port 9999), obfuscated with an autokey
// XOR — the key starts at 171 and each cipher byte becomes the key of the
// next (as documented by the reverse-engineering of softScheck, "Reverse
// Engineering the TP-Link HS110"); over TCP a 32-bit big-endian length
// precedes the cipher text. As nDPI: any port, the flow's first payload
// packet (either direction), after the 4-byte length on TCP (not checked),
// holds at least 2 bytes that decrypt to '{' then '}' or '"' — the opening
// of a JSON object. One packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint8_t kFirstKey = 171;

Verdict classify_tplink_shp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t off = c.p.l4_proto == kProtoTcp ? 4 : 0;  // TCP's length prefix
  if (b.size() < off + 2) return Verdict::No;
  const uint8_t first = uint8_t(b[off] ^ kFirstKey);
  const uint8_t second = uint8_t(b[off + 1] ^ b[off]);
  if (first != '{' || (second != '}' && second != '"')) return Verdict::No;
  m.app = id(ProtoId::TPLINK_SHP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tplink_shp, {"TPLINK_SHP", id(ProtoId::TPLINK_SHP), kL4Both, 1, classify_tplink_shp});

}  // namespace fg
