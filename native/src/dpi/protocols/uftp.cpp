// ④ UFTP (Dennis Bush's encrypted multicast file transfer, uftp "protocol
// description" of versions 4 and 5, UDP port 1044): a 16-byte header —
// version (0x40 or 0x50), message function, hop and session fields, group
// and sender ids — then the message, whose first byte repeats the function.
// As nDPI: UDP, any port, a datagram longer than 23 bytes, version byte
// 0x40 or 0x50, a function below 22, the header's last byte zero and byte
// 16 equal to the function. The flow's first payload packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_uftp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 23 || (b[0] != 0x40 && b[0] != 0x50)) return Verdict::No;
  if (b[1] >= 22 || b[15] != 0 || b[16] != b[1]) return Verdict::No;
  m.app = id(ProtoId::UFTP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(uftp, {"UFTP", id(ProtoId::UFTP), kL4Udp, 1, classify_uftp});

}  // namespace fg
