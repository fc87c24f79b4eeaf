// ④ Lotus Notes / HCL Domino's Notes Remote Procedure Call over TCP (port
// 1352; proprietary, no public specification: the signature is nDPI's —
// the connection's opening packet carries 00 00 02 00 00 40 02 0F at
// offset 6, after its length prefix).
// nDPI's rule: only on a flow seen from its TCP handshake, only the first
// payload packet (either direction): more than 16 bytes with those 8 bytes
// at offset 6 names it, any port. It never names it later, so every other
// case is a no here (nDPI lets the dissector idle through 3 packets first,
// which changes nothing it reports).
// "Seen from its handshake" is nDPI's ndpi_seen_flow_beginning
// (lotus_notes.c, ndpi_main.c): the client's SYN, the server's SYN+ACK and
// an ACK without SYN, read from the flags each side sent
// (seen_flow_beginning, dpi.h); nDPI also checks their order, we do not.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_lotus_notes(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets != 1 || !seen_flow_beginning(c) || b.size() <= 16) return Verdict::No;
  if (!has_at(b, 6, std::string_view("\x00\x00\x02\x00\x00\x40\x02\x0f", 8))) return Verdict::No;
  m.app = id(ProtoId::LotusNotes);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(lotus_notes, {"LotusNotes", id(ProtoId::LotusNotes), kL4Tcp, 1, classify_lotus_notes});

}  // namespace fg
