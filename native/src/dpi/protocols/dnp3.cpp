// ④ DNP3 over TCP (IEEE 1815-2012 §8 data link layer, carried as is over
// TCP port 20000): every link frame opens with a 10-byte header — the start
// octets 0x05 0x64, length, control, destination and source addresses and a
// CRC. nDPI reads the flow's first payload segment only and on any port:
// at least the 10 header bytes, opening with 0x05 0x64. Like nDPI we check
// neither the length octet nor the header CRC.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kLinkHeader = 10;

Verdict classify_dnp3(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kLinkHeader || b[0] != 0x05 || b[1] != 0x64) return Verdict::No;
  m.app = id(ProtoId::DNP3);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dnp3, {"DNP3", id(ProtoId::DNP3), kL4Tcp, 1, classify_dnp3});

}  // namespace fg
