// ④ BFD (RFC 5880, single hop over UDP per RFC 5881), as nDPI names it from a
// flow's first datagram. Control (§4.1, to port 3784): 24-100 bytes, version
// below 2 in the top 3 bits, the Length byte (offset 3) equal to the datagram;
// nDPI is looser than the RFC on the version (1 only) and stricter on Length
// (§6.8.6 lets the datagram be longer). Echo (to port 3785): the RFC leaves its
// contents to the sender; nDPI takes the 12-byte form whose first 8 bytes are
// the big-endian value 1 and last 2 zero. The datagram's destination port
// counts; multihop BFD (RFC 5883, port 4784) is not named, as in nDPI.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kControlPort = 3784, kEchoPort = 3785;

bool echo(Bytes b) {
  if (b.size() != 12) return false;
  for (size_t i = 0; i < 7; i++)
    if (b[i] != 0) return false;
  return b[7] == 1 && b[10] == 0 && b[11] == 0;
}

bool control(Bytes b) {
  if (b.size() < 24 || b.size() > 100) return false;
  return (b[0] >> 5) < 2 && b[3] == b.size();
}

Verdict classify_bfd(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool ok = (c.p.dport == kEchoPort && echo(b)) || (c.p.dport == kControlPort && control(b));
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::BFD);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bfd, {"BFD", id(ProtoId::BFD), kL4Udp, 1, classify_bfd});

}  // namespace fg
