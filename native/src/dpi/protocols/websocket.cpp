// ④ WebSocket frames seen without their HTTP upgrade (RFC 6455 §5.2), as
// nDPI's src/lib/protocols/websocket.c reads them: the flow's first payload
// packet (TCP) decides. Its first byte is a text, binary, close, ping or
// pong opcode, FIN set or not, no reserved bit (continuation frames are left
// out), and its 7-bit length is exactly the rest of the segment after the
// 2-byte header. The mask bit is not looked at: nDPI's test for it never
// holds, so a masked frame passes only when its 4 key bytes are counted in
// that length.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_websocket(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 2) return Verdict::No;
  const uint8_t op = b[0] & 0x7f;
  if ((b[0] & 0x70) || !(op == 1 || op == 2 || op == 8 || op == 9 || op == 10)) return Verdict::No;
  if (b.size() != 2u + (b[1] & 0x7f)) return Verdict::No;
  m.app = id(ProtoId::WebSocket);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(websocket, {"WebSocket", id(ProtoId::WebSocket), kL4Tcp, 1, classify_websocket});

}  // namespace fg
