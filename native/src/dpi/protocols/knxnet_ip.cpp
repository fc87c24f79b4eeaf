// ④ KNXnet/IP (KNX Standard 03.08.02 Core §2.3, ISO 22510; UDP/TCP port
// 3671): a 6-octet header — header length 0x06, protocol version 0x10,
// service type identifier (16 bits: family high octet, service low octet)
// and the total length, header included, big-endian.
// nDPI reads the flow's first payload packet on any port: at least 10
// octets, header 0x06 0x10, a service type among the families' defined
// ones (core 0x0201-0x020c, device management 0x0310-0x0311, tunnelling
// 0x0420-0x0425, routing 0x0530-0x0533, remote configuration 0x0740-0x0743,
// security 0x0950-0x0955), and the total length equal to the payload; over
// TCP a segment holding several frames also counts when a second header
// (0x06 0x10 and a defined service) follows the first frame, with at least
// 10 octets from its start. The total length is not checked for sanity
// (nDPI reads the next header wherever it points).
#include "dpi/dpi.h"

namespace fg {
namespace {

bool service_known(uint16_t s) {
  const uint8_t family = uint8_t(s >> 8), code = uint8_t(s);
  switch (family) {
    case 0x02: return code >= 0x01 && code <= 0x0c;  // core
    case 0x03: return code >= 0x10 && code <= 0x11;  // device management
    case 0x04: return code >= 0x20 && code <= 0x25;  // tunnelling
    case 0x05: return code >= 0x30 && code <= 0x33;  // routing
    case 0x07: return code >= 0x40 && code <= 0x43;  // remote diagnosis and configuration
    case 0x09: return code >= 0x50 && code <= 0x55;  // security
    default: return false;
  }
}

Verdict classify_knxnet_ip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 10 || b[0] != 0x06 || b[1] != 0x10 || !service_known(load_be16(b.data() + 2))) return Verdict::No;
  const size_t total = load_be16(b.data() + 4);
  bool ok = total == b.size();
  if (!ok && c.p.l4_proto == kProtoTcp && total + 10 <= b.size())
    ok = load_be16(b.data() + total) == 0x0610 && service_known(load_be16(b.data() + total + 2));
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::KNXnet_IP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(knxnet_ip, {"KNXnet_IP", id(ProtoId::KNXnet_IP), kL4Both, 1, classify_knxnet_ip});

}  // namespace fg
