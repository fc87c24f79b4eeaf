// ④ Mumble UDP ping, as nDPI reads it (src/lib/protocols/mumble.c): every
// client packet of 12 bytes opening with four zero bytes is a ping (an
// 8-byte ident follows) and keeps the flow waiting; once a ping was seen,
// a 24-byte packet in either direction echoing the last ping's ident at
// byte 4 (the answer: version, ident, user counts, bandwidth) names the
// flow. Anything else ends it.
// State: the last ident folded to 32 bits (a collision in 2^32 passes), in
// the kScratchMumble bytes: RX's on UDP, free here since a flow opening
// with a 12-byte ping has RX, EpicGames and EAQ ruled out on it (dpi.h).
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

uint32_t ident_fold(const uint8_t* p) {
  const uint64_t v = (uint64_t(load_be32(p)) << 32 | load_be32(p + 4)) * 0x9e3779b97f4a7c15ULL;
  return uint32_t(v ^ (v >> 32));
}

Verdict classify_mumble(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* st = c.scratch(kScratchMumble);
  if (!st) return Verdict::No;  // nowhere to keep the ident
  if (c.from_client && b.size() == 12) {
    if (load_be32(b.data()) != 0) return Verdict::No;
    const uint32_t k = ident_fold(b.data() + 4);
    std::memcpy(st, &k, 4);
    return Verdict::NeedMore;
  }
  // Every earlier packet was a ping (anything else ended the flow's turn).
  if (c.flow.dpi_packets > 1 && b.size() == 24) {
    const uint32_t k = ident_fold(b.data() + 4);
    if (std::memcmp(st, &k, 4) != 0) return Verdict::No;
    m.app = id(ProtoId::Mumble);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

// nDPI waits for the answer as long as the client keeps pinging.
FG_DISSECTOR(mumble, {"Mumble", id(ProtoId::Mumble), kL4Udp, kMaxDpiPackets, classify_mumble});

}  // namespace fg
