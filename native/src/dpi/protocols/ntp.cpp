// ④ NTP, as nDPI's ntp.c: a UDP packet from or to port 123 whose version
// field (bits 3..5 of the first byte) is 4 or less; neither mode nor length
// is read. The flow's first payload packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_ntp(DpiCtx& c, Match& m) {
  if (c.p.sport != 123 && c.p.dport != 123) return Verdict::No;
  Bytes b = c.payload;
  if (b.empty() || ((b[0] >> 3) & 7) > 4) return Verdict::No;
  m.app = id(ProtoId::NTP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ntp, {"NTP", id(ProtoId::NTP), kL4Udp, 1, classify_ntp});

}  // namespace fg
