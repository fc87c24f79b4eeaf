// ④ Avast SecureDNS: Avast's DNSCrypt-based resolver. Its clients' first
// datagram carries, at byte 11, the 4 bytes 00 01 32 09 followed by the
// label "securedns" (any case) at byte 15, in a datagram of at least 34
// bytes. As nDPI: UDP, any port, only the flow's first packet is looked at;
// anything else rules the flow out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_avast_securedns(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 34 || c.flow.dpi_packets > 1 || load_be32(b.data() + 11) != 0x00013209 || !has_at_upper(b, 15, "SECUREDNS"))
    return Verdict::No;
  m.app = id(ProtoId::AVASTSecureDNS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(avast_securedns, {"AVASTSecureDNS", id(ProtoId::AVASTSecureDNS), kL4Udp, 1, classify_avast_securedns});

}  // namespace fg
