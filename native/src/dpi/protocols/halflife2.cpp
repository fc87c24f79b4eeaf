// ④ Half-Life 2 (Source engine, UDP): a request of at least 20 bytes that
// opens 0xffffffff and ends "000\0", answered from the other side by a
// datagram of the same shape.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool shaped(Bytes b) { return b.size() >= 20 && load_be32(b.data()) == 0xffffffff && load_be32(b.data() + b.size() - 4) == 0x30303000; }

Verdict classify_halflife2(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* asked = c.scratch(kScratchHalfLife2);  // direction of the request + 1
  if (!asked || !shaped(b)) return Verdict::No;
  const uint8_t dir = c.from_client ? 1 : 2;
  if (!*asked) {
    *asked = dir;
    return Verdict::NeedMore;
  }
  if (*asked == dir) return Verdict::No;
  m.app = id(ProtoId::HalfLife2);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(halflife2, {"HalfLife2", id(ProtoId::HalfLife2), kL4Udp, 2, classify_halflife2});

}  // namespace fg
