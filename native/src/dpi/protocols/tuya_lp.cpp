// ④ Tuya LAN Protocol (TuyaLP): the local messages of Tuya smart-home
// devices (UDP broadcasts on ports 6666/6667; Tuya's embedded SDK,
// lan_protocol.h): a frame between the prefix 0x000055AA and the suffix
// 0x0000AA55, after the prefix a sequence number, a command word and a
// length, all 32-bit big-endian. As nDPI: any port, the datagram at least
// 16 bytes, opening with the prefix and closing with the suffix, and not
// shorter than the 32-bit value at offset 4 (nDPI's length test reads the
// sequence-number field). One datagram decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_tuya_lp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n < 16 || load_be32(b.data()) != 0x000055aa) return Verdict::No;
  if (n < load_be32(b.data() + 4)) return Verdict::No;
  if (load_be32(b.data() + n - 4) != 0x0000aa55) return Verdict::No;
  m.app = id(ProtoId::TuyaLP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tuya_lp, {"TuyaLP", id(ProtoId::TuyaLP), kL4Udp, 1, classify_tuya_lp});

}  // namespace fg
