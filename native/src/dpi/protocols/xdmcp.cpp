// ④ XDMCP (X Display Manager Control Protocol 1.1) as nDPI recognises it, on
// the flow's first payload packet. UDP to port 177: the 6-byte header with
// version 1, opcode 2 (Query; nDPI accepts no other opcode) and a length
// that is the rest of the datagram. TCP to 6000-6005: an X11 connection setup
// (X11 protocol, "Connection Setup") of exactly 48 bytes, little-endian ('l',
// 0), naming an 18-byte authorisation protocol with 16 bytes of data, i.e.
// MIT-MAGIC-COOKIE-1, which nDPI also calls XDMCP.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_xdmcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint16_t dport = c.p.dport;  // the packet's, whichever way it goes
  bool hit;
  if (c.p.l4_proto == kProtoTcp) {
    // byte order, unused, major, minor, name length, data length (LE)
    hit = dport >= 6000 && dport <= 6005 && b.size() == 48 && b[0] == 0x6c && b[1] == 0x00 && load_le16(b.data() + 6) == 18 &&
          load_le16(b.data() + 8) == 16;
  } else {
    hit = dport == 177 && b.size() >= 6 && b.size() == 6u + load_be16(b.data() + 4) && load_be16(b.data()) == 1 &&
          load_be16(b.data() + 2) == 2;
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::XDMCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(xdmcp, {"XDMCP", id(ProtoId::XDMCP), kL4Both, 1, classify_xdmcp});

}  // namespace fg
