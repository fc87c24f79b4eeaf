// ④ HSRP (Cisco Hot Standby Router Protocol), from its multicast hellos, as
// nDPI checks the flow's first datagram. IPv4, UDP 1985 on both sides:
// version 0 (RFC 2281 §5: 20 bytes or more, version byte 0, reserved byte 7
// zero) to 224.0.0.2, or version 2 to 224.0.0.102 (42 bytes or more: the
// Group State TLV, type 1 length 40, carrying version 2 at offset 2 and IP
// version 4 at offset 5). IPv6 (HSRPv2 only), UDP 2029 on both sides to
// ff02::66 with a TLV type of at most 4 first. nDPI looks at nothing else
// (opcode, state, authentication), and neither do we.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kPortV4 = 1985, kPortV6 = 2029;

bool v4_hello(const Packet& p, Bytes b) {
  const uint32_t dst = p.dst.v4();
  if (dst == 0xe0000002 && b.size() >= 20 && b[0] == 0 && b[7] == 0) return true;  // 224.0.0.2, v0
  return dst == 0xe0000066 && b.size() >= 42 && b[2] == 2 && b[5] == 4;         // 224.0.0.102, v2
}

bool v6_hello(const Packet& p, Bytes b) {
  static constexpr uint8_t kAllHsrp[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x66};
  for (size_t i = 0; i < 16; i++)
    if (p.dst.b[i] != kAllHsrp[i]) return false;
  return !b.empty() && b[0] <= 4;
}

Verdict classify_hsrp(DpiCtx& c, Match& m) {
  const Packet& p = c.p;
  Bytes b = c.payload;
  bool ok = false;
  if (p.ip_version == 4) ok = p.sport == kPortV4 && p.dport == kPortV4 && v4_hello(p, b);
  else if (p.ip_version == 6) ok = p.sport == kPortV6 && p.dport == kPortV6 && v6_hello(p, b);
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::HSRP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hsrp, {"HSRP", id(ProtoId::HSRP), kL4Udp, 1, classify_hsrp});

}  // namespace fg
