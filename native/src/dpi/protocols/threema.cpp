// ④ Threema's chat server protocol (Threema "Cryptography Whitepaper",
// section "Chat protocol (message transport layer)": TCP to the chat
// servers on port 5222). Its handshake has fixed sizes: the client hello
// (ephemeral public key 32 + client cookie 16 = 48 bytes), the server hello
// (server cookie 16 + a NaCl box of the server's ephemeral key and the
// cookie echo = 80 bytes), then the client's login (191 bytes) and the
// server's login ack; after that every frame is a 16-bit little-endian
// length and that many bytes. As nDPI: 5222 on either side; payload
// packets 1, 2 and 3 of the flow 48, 80 and 191 bytes, packet 4 any size,
// and packet 5 exactly one length-prefixed frame (length + 2 = its size):
// the flow is Threema there, anything else rules it out (nDPI's
// src/lib/protocols/threema.c). Its packet numbers count retransmitted
// segments (packet_counter), which no dissector reads: so does dpi_packets.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kChatPort = 5222;

Verdict classify_threema(DpiCtx& c, Match& m) {
  if (c.cli_port != kChatPort && c.srv_port != kChatPort) return Verdict::No;
  const Bytes b = c.payload;
  switch (c.flow.dpi_packets) {
    case 1: return b.size() == 48 ? Verdict::NeedMore : Verdict::No;
    case 2: return b.size() == 80 ? Verdict::NeedMore : Verdict::No;
    case 3: return b.size() == 191 ? Verdict::NeedMore : Verdict::No;
    case 4: return Verdict::NeedMore;
    default: break;
  }
  if (b.size() < 2 || size_t(load_le16(b.data())) + 2 != b.size()) return Verdict::No;
  m.app = id(ProtoId::Threema);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(threema, {"Threema", id(ProtoId::Threema), kL4Tcp, 5, classify_threema});

}  // namespace fg
