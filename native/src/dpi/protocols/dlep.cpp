// ④ DLEP, the Dynamic Link Exchange Protocol (RFC 8175): a router and its
// radio modem discover each other with UDP Peer Discovery / Peer Offer
// signals that open with "DLEP" (§11: the signal prefix, then a 16-bit
// signal type and length and data items), then talk over a TCP session on
// port 854 whose messages open with a 16-bit type and a 16-bit length of
// what follows (§11). As nDPI: over UDP, any port, a datagram longer than
// 27 bytes opening with "DLEP"; over TCP, port 854 on either side, more than
// 8 bytes, a message type below 17 and a length equal to the payload minus
// 4 (one message per segment). The flow's first payload packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kDlepPort = 854;

Verdict classify_dlep(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.l4_proto == kProtoUdp) {
    if (b.size() <= 27 || !has_at(b, 0, "DLEP")) return Verdict::No;
  } else {
    if (c.cli_port != kDlepPort && c.srv_port != kDlepPort) return Verdict::No;
    if (b.size() <= 8 || load_be16(b.data()) >= 0x11) return Verdict::No;
    if (load_be16(b.data() + 2) != uint16_t(b.size() - 4)) return Verdict::No;
  }
  m.app = id(ProtoId::DLEP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dlep, {"DLEP", id(ProtoId::DLEP), kL4Both, 1, classify_dlep});

}  // namespace fg
