// ④ Armagetron Advanced (a Tron light-cycle game), UDP. Its network layer
// sends datagrams of messages: a 16-bit descriptor (message type), a 16-bit
// message id and the data length in 16-bit words, then the data; the
// datagram ends with the sender's 16-bit id (0 from a client). No published
// specification exists beyond the game's source. nDPI's three forms, kept
// exactly, on any port, for a datagram of more than 10 bytes:
// - login (descriptor 11): opening 00 0B 00 00, the length non-zero and
//   filling the datagram exactly (2 × words + 8), 00 08 next, the last two
//   bytes zero; with the opening but a wrong length the flow is ruled out;
// - sync (descriptor 28): 16 bytes, a non-zero id, length 4 (else ruled
//   out), then 00 00 05 00 00 01 00 00 and a zero sender id;
// - net sync (descriptor 24): over 50 bytes, a non-zero id, length non-zero
//   and within the datagram (else ruled out), the words at offsets 8 and 12
//   equal, and after the 16-bit count at 14 and that many bytes,
//   00 01 00 00 or 00 00 00 01, the datagram ending in a zero sender id.
// Anything else rules the flow out, so the first datagram decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_armagetron(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  const size_t n = b.size();
  if (n <= 10) return Verdict::No;
  const size_t words = load_be16(p + 4);
  const bool ends_zero = load_be16(p + n - 2) == 0;
  bool hit = false;
  if (load_be32(p) == 0x000b0000) {
    if (words == 0 || words * 2 + 8 != n) return Verdict::No;
    hit = load_be16(p + 6) == 0x0008 && ends_zero;
  }
  if (!hit && n == 16 && load_be16(p) == 0x001c && load_be16(p + 2) != 0) {
    if (words != 4) return Verdict::No;
    hit = load_be32(p + 6) == 0x00000500 && load_be32(p + 10) == 0x00010000 && ends_zero;
  }
  if (!hit && n > 50 && load_be16(p) == 0x0018 && load_be16(p + 2) != 0) {
    if (words == 0 || words * 2 + 8 > n) return Verdict::No;
    if (load_be16(p + 8) == load_be16(p + 12)) {
      const size_t at = 16 + size_t(load_be16(p + 14));
      if (at + 4 < n) {
        const uint32_t w = load_be32(p + at);
        hit = (w == 0x00010000 || w == 0x00000001) && ends_zero;
      }
    }
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Armagetron);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(armagetron, {"Armagetron", id(ProtoId::Armagetron), kL4Udp, 1, classify_armagetron});

}  // namespace fg
