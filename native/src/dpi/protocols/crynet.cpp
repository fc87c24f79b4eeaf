// ④ CryNetwork (CryEngine games, UDP), as nDPI recognises it: the first
// byte is the length less 10 and must be 0x3c (70-byte datagrams), with
// fixed bytes 0x01 at 16, 0x07 at 20 and 0x0307 at 24.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_crynet(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 26 || b.size() != size_t(b[0]) + 10) return Verdict::No;
  if (b[0] != 0x3c || b[16] != 0x01 || b[20] != 0x07 || load_be16(b.data() + 24) != 0x0307)
    return Verdict::No;
  m.app = id(ProtoId::CryNetwork);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(crynet, {"CryNetwork", id(ProtoId::CryNetwork), kL4Udp, 1, classify_crynet});

}  // namespace fg
