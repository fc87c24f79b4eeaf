// ④ WS-Discovery (OASIS WS-Discovery 1.1 §2.4 / §3.1.1: SOAP-over-UDP
// messages — Hello, Bye, Probe, Resolve — multicast to 239.255.255.250 or
// [FF02::C], port 3702; each an XML document).
// nDPI's rule, kept, on the first payload packet: UDP to port 3702 (the
// packet's destination) at an IPv4 multicast address (224.0.0.0/4) or an
// IPv6 address in ff02::/32, at least 40 bytes, starting "<?xml". The
// unicast answers (ProbeMatches) are not named so; anything else rules WSD
// out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kPort = 3702;

Verdict classify_wsd(DpiCtx& c, Match& m) {
  const IpAddr& dst = c.p.dst;
  const bool multicast = dst.is_v4() ? (dst.v4() & 0xf0000000u) == 0xe0000000u : load_be32(dst.b) == 0xff020000u;
  if (!multicast || c.p.dport != kPort || c.payload.size() < 40 || !has_at(c.payload, 0, "<?xml")) return Verdict::No;
  m.app = id(ProtoId::WSD);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(wsd, {"WSD", id(ProtoId::WSD), kL4Udp, 1, classify_wsd});

}  // namespace fg
