// ④ sFlow (sFlow version 5, sflow.org "sFlow Version 5", datagram format):
// agents send UDP datagrams to a collector (port 6343 by default) that open
// with the datagram version (5), the agent address type (1 IPv4, 2 IPv6),
// the agent address, sub-agent id, sequence number, uptime and the sample
// count, all 32-bit big-endian. As nDPI: any port, each datagram at least
// 24 bytes with version 5 and address type 1 or 2; one such datagram is
// only a candidate, the flow is named on its second payload packet (nDPI's
// packet counter at 2), and any datagram not so shaped ends the search.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_sflow(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 24 || load_be32(b.data()) != 5) return Verdict::No;
  const uint32_t addr_type = load_be32(b.data() + 4);
  if (addr_type != 1 && addr_type != 2) return Verdict::No;
  if (c.flow.dpi_packets < 2) return Verdict::NeedMore;  // one datagram is not enough
  m.app = id(ProtoId::sFlow);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(sflow, {"sFlow", id(ProtoId::sFlow), kL4Udp, kMaxDpiPackets, classify_sflow});

}  // namespace fg
