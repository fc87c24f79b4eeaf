// ④ Kerberos v5, as nDPI's kerberos.c: a packet to or from port 88 (either
// end, else excluded), over UDP the message itself, over TCP behind a
// 4-byte length. A message length of 12000 or more, or below the packet's,
// excludes; a whole message of more than 64 bytes is Kerberos when its
// msg-type is one nDPI knows: the first "03 02 01 xx" with xx not 5 (that
// is pvno) whose 03 lies 8..15 bytes into the message (else the byte 19
// bytes in) gives xx, and xx must be AS-REQ 0x0a, TGS-REQ 0x0c, TGS-REP
// 0x0d, AS-REP 0x0e or KRB-ERROR 0x1e. Anything else excludes.
// A TCP message longer than the segment: nDPI gathers the segments and
// decides on the whole, by the same bytes near its start; with no buffer we
// decide on the first segment when it holds them (a message over 64 bytes
// in all), else wait and read the next packets on their own.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kPort = 88;

// nDPI's msg-type test on a message starting at `base` (its bytes up to
// base + 19 available).
bool known_msg_type(Bytes b, size_t base) {
  size_t i = 8;
  for (; i < 16; i++) {
    const uint8_t* p = b.data() + base + i;
    if (p[0] == 0x03 && p[1] == 0x02 && p[2] == 0x01 && p[3] != 0x05) break;
  }
  const uint8_t t = b[base + i + 3];
  return t == 0x0a || t == 0x0c || t == 0x1e || t == 0x0d || t == 0x0e;
}

Verdict classify_kerberos(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.sport != kPort && c.p.dport != kPort) return Verdict::No;
  if (b.size() < 4) return Verdict::No;
  const bool tcp = c.p.l4_proto == kProtoTcp;
  const size_t base = tcp ? 4 : 0;
  const size_t expected = b.size() - base;
  const size_t klen = tcp ? load_be32(b.data()) : expected;
  if (klen >= 12000 || klen < expected) return Verdict::No;
  if (klen > expected) {  // TCP: the message goes on in later segments
    if (b.size() < base + 20) return Verdict::NeedMore;
    if (klen + 4 <= 64 || !known_msg_type(b, base)) return Verdict::No;
  } else if (b.size() <= 64 || !known_msg_type(b, base)) {
    return Verdict::No;
  }
  m.app = id(ProtoId::Kerberos);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kerberos, {"Kerberos", id(ProtoId::Kerberos), kL4Both, 8, classify_kerberos});

}  // namespace fg
