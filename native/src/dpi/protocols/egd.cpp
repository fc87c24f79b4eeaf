// ④ Ethernet Global Data (GE industrial exchange) over UDP port 18246: a
// 32-byte header opening with PDU type 13 and version 1, then the data.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_egd(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != 18246 && c.srv_port != 18246) return Verdict::No;
  if (b.size() < 32 || b[0] != 0x0d || b[1] != 0x01) return Verdict::No;
  m.app = id(ProtoId::EthernetGlobalData);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(egd, {"EthernetGlobalData", id(ProtoId::EthernetGlobalData), kL4Udp, 1, classify_egd});

}  // namespace fg
