// ④ League of Legends: Wild Rift (Riot Games, mobile), UDP. Riot publishes
// nothing on its game transport; nDPI knows its observed forms and we keep
// exactly those, on any port:
// - a 22-byte datagram opening 01 02 C8 41 and ending "A0B1";
// - a 69-byte datagram opening 04 00 00 00, which nDPI notes as a first
//   step, then a 359-byte one opening 10 00 00 00.
// Any other datagram rules the flow out. nDPI keeps a per-flow stage for the
// second form; we need none: this dissector is asked again only while every
// earlier datagram was such a 69-byte one (any other answer is final), so
// the stage is set exactly when this is not the flow's first payload packet.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_lol_wild_rift(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const size_t n = b.size();
  if (n == 22 && load_be32(b.data()) == 0x0102c841 && load_be32(b.data() + n - 4) == 0x41304231) {
    m.app = id(ProtoId::LoLWildRift);
    return Verdict::Match;
  }
  if (n == 69 && load_be32(b.data()) == 0x04000000) return Verdict::NeedMore;
  if (c.flow.dpi_packets > 1 && n == 359 && load_be32(b.data()) == 0x10000000) {
    m.app = id(ProtoId::LoLWildRift);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(lol_wild_rift, {"LoLWildRift", id(ProtoId::LoLWildRift), kL4Udp, kMaxDpiPackets, classify_lol_wild_rift});

}  // namespace fg
