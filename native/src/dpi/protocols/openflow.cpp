// ④ OpenFlow (ONF "OpenFlow Switch Specification" 1.5, §7.1 ofp_header):
// every message between switch and controller (TCP, port 6653) opens with
// version (0x06 for 1.5), message type, the big-endian length of the whole
// message and a transaction id. As nDPI: any port, the flow's first payload
// packet must be at least 8 bytes with version byte 0x06 (nDPI knows only
// 1.5: 1.0 to 1.4, 0x01 to 0x05, are not named), type below 36 and a length
// equal to the packet's payload (one message per segment). One packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_openflow(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8 || b[0] != 0x06 || b[1] >= 36 || load_be16(b.data() + 2) != b.size()) return Verdict::No;
  m.app = id(ProtoId::OpenFlow);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(openflow, {"OpenFlow", id(ProtoId::OpenFlow), kL4Tcp, 1, classify_openflow});

}  // namespace fg
