// ④ Mumble UDP ping, as nDPI reads it (src/lib/protocols/mumble.c): every
// client packet of 12 bytes opening with four zero bytes is a ping (an
// 8-byte ident follows) and keeps the flow waiting; once a ping was seen,
// a 24-byte packet in either direction (the answer: version, the ident
// echoed, user counts, bandwidth) names the flow. Anything else ends it.
// Kept difference: nDPI also compares the echoed ident with the last
// ping's; every scratch slot is taken, so the 8-byte ident cannot be
// carried from one packet to the next here.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_mumble(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.from_client && b.size() == 12) return load_be32(b.data()) == 0 ? Verdict::NeedMore : Verdict::No;
  // Every earlier packet was a ping (anything else ended the flow's turn).
  if (c.flow.dpi_packets > 1 && b.size() == 24) {
    m.app = id(ProtoId::Mumble);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

// nDPI waits for the answer as long as the client keeps pinging.
FG_DISSECTOR(mumble, {"Mumble", id(ProtoId::Mumble), kL4Udp, kMaxDpiPackets, classify_mumble});

}  // namespace fg
