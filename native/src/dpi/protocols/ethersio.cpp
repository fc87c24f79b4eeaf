// ④ EtherSIO (Saia-Burgess / SBC Ether-SIO, UDP port 6060): datagrams open
// with the ASCII magic "ESIO", then a version octet pair and a message type.
// nDPI reads the flow's first datagram on any port: at least 20 octets,
// "ESIO", octet 4 zero, octet 5 at most 2 and octet 6 zero.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ethersio(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 20 || !has_at(b, 0, "ESIO") || b[4] != 0 || b[5] > 2 || b[6] != 0) return Verdict::No;
  m.app = id(ProtoId::EtherSIO);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ethersio, {"EtherSIO", id(ProtoId::EtherSIO), kL4Udp, 1, classify_ethersio});

}  // namespace fg
