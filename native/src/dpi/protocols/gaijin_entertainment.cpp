// ④ Gaijin Entertainment (War Thunder, Enlisted, Crossout …), UDP. No public
// document describes the game's transport; nDPI knows two observed forms
// and we keep exactly those, on any port:
// - a 52-byte datagram opening 8F FF 00 (the third byte zero), then
//   82 FF 00 01 at offset 4 (the game's connection packet);
// - a datagram over 100 bytes opening with the name of a launcher or
//   updater statistics event in text: "embeddedupdater.", "app.start" or
//   "app.stage".
// Any other datagram rules the flow out, so the first one decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_gaijin(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  bool hit = false;
  if (b.size() == 52) {
    hit = load_be16(b.data()) == 0x8fff && b[2] == 0 && load_be32(b.data() + 4) == 0x82ff0001;
  } else if (b.size() > 100) {
    hit = has_at(b, 0, "embeddedupdater.") || has_at(b, 0, "app.start") || has_at(b, 0, "app.stage");
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::GaijinEntertainment);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(gaijin_entertainment, {"GaijinEntertainment", id(ProtoId::GaijinEntertainment), kL4Udp, 1, classify_gaijin});

}  // namespace fg
