// ④ SD-RTN (Agora's Software Defined Real-time Network), as nDPI recognises
// it (UDP): byte 6 is 0x21 and a "\x04SNI" tag at offset 12 introduces a
// length-prefixed (16-bit, then a zero byte) server name, kept as the host.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_sd_rtn(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 20 || b[6] != 0x21 || load_be32(b.data() + 12) != 0x04534e49) return Verdict::No;
  size_t len = load_be16(b.data() + 16);
  if (len + 19 > b.size() || b[18] != 0) return Verdict::No;
  c.set_host(reinterpret_cast<const char*>(b.data() + 19), len);
  m.app = id(ProtoId::SD_RTN);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(sd_rtn, {"SD-RTN", id(ProtoId::SD_RTN), kL4Udp, 1, classify_sd_rtn});

}  // namespace fg
