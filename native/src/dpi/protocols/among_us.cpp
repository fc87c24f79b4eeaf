// ④ Among Us (UDP, game servers on port 22023 and up), carried by the Hazel
// networking library. A client opens with Hazel's Hello message: send option
// 0x08 (Hello), a 16-bit nonce, the Hazel version byte 0, then the game's
// broadcast version as a little-endian 32-bit number (year * 25000 +
// month * 1800 + day * 50 + revision), then the player's name and more.
// nDPI accepts exactly one form: more than 9 bytes opening 08 00 01 00
// (Hello, nonce 1, Hazel version 0) and 80 d9 02 03 (version 50518400,
// i.e. 2020.10.8), on any port; any other datagram rules the flow out, so
// the first one decides. We keep that single form, nothing looser.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint32_t kHelloNonce1 = 0x08000100;  // Hello, nonce 1, Hazel version 0
constexpr uint32_t kVersion = 0x80d90203;      // 50518400 little-endian: 2020.10.8

Verdict classify_among_us(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() <= 9 || load_be32(b.data()) != kHelloNonce1 || load_be32(b.data() + 4) != kVersion) return Verdict::No;
  m.app = id(ProtoId::AmongUs);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(among_us, {"AmongUs", id(ProtoId::AmongUs), kL4Udp, 1, classify_among_us});

}  // namespace fg
