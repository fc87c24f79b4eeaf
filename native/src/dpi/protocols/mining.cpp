// ④ Cryptocurrency mining over TCP, as nDPI knows it: a stratum-like JSON
// exchange ("worker":, "eth1.0", "method":, "blob":), or an Ethereum
// devp2p handshake (300–600 bytes, third byte 4) to ports 30300–30305.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_mining(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 10) return Verdict::No;
  if (b.size() > 300 && b.size() < 600 && b[2] == 0x04) {
    if (c.from_client && c.srv_port >= 30300 && c.srv_port <= 30305) {
      m.app = id(ProtoId::Mining);
      return Verdict::Match;
    }
    return Verdict::No;
  }
  if (!contains(b, "{")) return Verdict::No;
  if (contains(b, "\"eth1.0\"") || contains(b, "\"worker\":") || contains(b, "\"method\":") || contains(b, "\"blob\":")) {
    m.app = id(ProtoId::Mining);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(mining, {"Mining", id(ProtoId::Mining), kL4Tcp, 1, classify_mining});

}  // namespace fg
