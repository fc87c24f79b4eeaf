// ④ NOE, Alcatel-Lucent's "New Office Environment" signalling between IP
// phones and the OmniPCX call server over UDP (proprietary, known from its
// traffic: 1-octet keep-alives, short 0x07 control frames, and frames
// opening 00 06 62 6c).
// nDPI reads the flow's first datagram on any port: a single octet 0x04 or
// 0x05; or 5 or 12 octets opening 0x07 0x00, a non-zero octet and 0x00; or
// at least 25 octets opening 0x00 0x06 0x62 0x6c.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_noe(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  const bool keepalive = n == 1 && (b[0] == 0x04 || b[0] == 0x05);
  const bool control = (n == 5 || n == 12) && b[0] == 0x07 && b[1] == 0x00 && b[2] != 0x00 && b[3] == 0x00;
  const bool data = n >= 25 && b[0] == 0x00 && b[1] == 0x06 && b[2] == 0x62 && b[3] == 0x6c;
  if (!keepalive && !control && !data) return Verdict::No;
  m.app = id(ProtoId::NOE);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(noe, {"NOE", id(ProtoId::NOE), kL4Udp, 1, classify_noe});

}  // namespace fg
