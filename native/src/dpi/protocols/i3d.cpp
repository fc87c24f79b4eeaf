// ④ i3D.net game-server hosting traffic: the UDP protocol of game servers
// hosted there has no public document; nDPI recognises two fixed headers
// (datagrams of at least 74 bytes, first payload packet, any port, either
// direction):
//  - bytes 0–3 = 00 01 00 46 or 00 02 00 46, bytes 4–7 = 00 03 CF A8;
//  - bytes 0–1 = 90 78 or 90 67 (an RTP-like first word: version 2, the
//    extension bit set), bytes 8–11 = 00 03 CF A9 (the source id) and
//    bytes 12–15 = BE DE 00 03 (RFC 8285's one-byte header extension, three
//    words long).
// Reported as plain i3D (nDPI sets it as the lower protocol alone, which it
// prints as the application).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_i3d(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 74) return Verdict::No;
  const uint32_t w0 = load_be32(b.data());
  const uint16_t h0 = load_be16(b.data());
  const bool game = (w0 == 0x00010046 || w0 == 0x00020046) && load_be32(b.data() + 4) == 0x0003cfa8;
  const bool media = (h0 == 0x9078 || h0 == 0x9067) && load_be32(b.data() + 8) == 0x0003cfa9 && load_be32(b.data() + 12) == 0xbede0003;
  if (!game && !media) return Verdict::No;
  m.app = id(ProtoId::i3D);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(i3d, {"i3D", id(ProtoId::i3D), kL4Udp, 1, classify_i3d});

}  // namespace fg
