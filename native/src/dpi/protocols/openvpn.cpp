// ④ OpenVPN: the first byte is opcode << 3 | key id. The client opens with a
// hard reset (P_CONTROL_HARD_RESET_CLIENT_V1 1, _V2 7, _V3 10, key id 0)
// followed by its 8-byte session id; the server answers with its own hard
// reset (P_CONTROL_HARD_RESET_SERVER_V1 2 / _V2 8). Over TCP each packet has
// a 2-byte length prefix. Both halves are needed: one byte alone is too weak.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_openvpn(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t off = 0;
  if (c.p.l4_proto == kProtoTcp) {
    if (b.size() < 2 || load_be16(b.data()) != b.size() - 2) return Verdict::No;
    off = 2;
  }
  if (b.size() < off + 14) return Verdict::No;
  uint8_t op = b[off] >> 3, key = b[off] & 7;
  if (key != 0) return Verdict::No;
  if (c.flow.dpi_packets == 1) {
    if (!c.from_client || (op != 1 && op != 7 && op != 10)) return Verdict::No;
    return Verdict::NeedMore;
  }
  if (c.from_client) {
    // a retransmitted reset before the answer
    return (op == 1 || op == 7 || op == 10) && c.flow.dpi_packets < 4 ? Verdict::NeedMore : Verdict::No;
  }
  if (op != 2 && op != 8) return Verdict::No;
  m.app = id(ProtoId::OpenVPN);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(openvpn, {"OpenVPN", id(ProtoId::OpenVPN), kL4Both, 4, classify_openvpn});

}  // namespace fg
