// ④ Dofus (Ankama), TCP, both generations as nDPI knows them, on any port.
// Dofus 1.x speaks text messages, each a two-letter type (HG hello game,
// HC hello connection with its key, Af queue position, Ax server list, AT
// ticket, Ak key …) then data, ended by NUL. Dofus 2 frames binary
// messages: a 16-bit header (message id << 2 | size of the length field),
// the length, the body, with strings as 16-bit length + UTF-8.
// nDPI's conditions, kept exactly:
// - anywhere: a 13-byte packet with 05 08 at offset 1, 04 A0 at 5 and
//   01 94 at its end;
// - first packet: ending in NUL, more than 2 bytes, not opening "Ad" (nDPI
//   names HG, Af, HC and Ax/AX forms, but a reversed comparison in its last
//   test lets every such packet through, and we follow what it does): a
//   second packet of 11 bytes "AT…" ending in NUL, or 5 bytes 'A', 'T' or
//   'k', NUL at offset 4, then names the flow;
// - anywhere (Dofus 2): 11, 13 or 49 bytes opening 00 05 08 00 00 05, with
//   00 05 at offset 8 and 0x18 at 10 (ProtocolRequired), at 13 bytes ending
//   01 94, at 49 with the 16-bit length at 15 equal to the size less 17;
//   41+ bytes opening 01 B9 26 then two strings filling the packet exactly;
//   56 bytes opening 00 11 35 02 03 00 93 96 01 00 (Identification) then two
//   strings and a final 0x01 filling it exactly.
// Anything else rules the flow out (nDPI's dofus.c, TCP only, IPv4 and
// IPv6). nDPI keeps a stage for the text form; we need none: Dofus is first
// asked on the flow's first payload packet, which names the flow, rules it
// out or sets the stage, and its next call (the next segment that is not a
// retransmission, however many retransmissions came between) always
// decides, so no budget is set beyond the window.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict hit(Match& m) {
  m.app = id(ProtoId::Dofus);
  return Verdict::Match;
}

// Dofus 2 messages nDPI recognises; true names the flow.
bool dofus2(Bytes b) {
  const uint8_t* p = b.data();
  const size_t n = b.size();
  if ((n == 11 || n == 13 || n == 49) && load_be32(p) == 0x00050800 && load_be16(p + 4) == 0x0005 && load_be16(p + 8) == 0x0005 &&
      p[10] == 0x18) {
    if (n == 13 && load_be16(p + 11) != 0x0194) return false;
    if (n == 49 && size_t(load_be16(p + 15)) + 17 != n) return false;
    return true;
  }
  if (n >= 41 && load_be16(p) == 0x01b9 && p[2] == 0x26) {
    const size_t len = load_be16(p + 3);
    if (len + 7 > n) return false;
    const size_t len2 = load_be16(p + 5 + len);
    if (5 + len + 2 + len2 == n) return true;
    // falls to the last form, which needs another opening: no
  }
  if (n == 56 && std::memcmp(p, "\x00\x11\x35\x02\x03\x00\x93\x96\x01\x00", 10) == 0) {
    const size_t len = load_be16(p + 10);
    if (len + 14 > n) return false;
    const size_t len2 = load_be16(p + 12 + len);
    const size_t end = 12 + len + 2 + len2;
    return end + 1 == n && p[end] == 0x01;
  }
  return false;
}

Verdict classify_dofus(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  const size_t n = b.size();
  if (n == 13 && load_be16(p + 1) == 0x0508 && load_be16(p + 5) == 0x04a0 && load_be16(p + 11) == 0x0194) return hit(m);
  if (c.flow.dpi_packets == 1) {
    if (n > 2 && p[n - 1] == 0 && !has_at(b, 0, "Ad")) return Verdict::NeedMore;  // a Dofus 1 text message, perhaps
  } else {
    if (n == 11 && has_at(b, 0, "AT") && p[10] == 0) return hit(m);
    if (n == 5 && p[0] == 'A' && (p[1] == 'T' || p[1] == 'k') && p[4] == 0) return hit(m);
  }
  return dofus2(b) ? hit(m) : Verdict::No;
}

}  // namespace

FG_DISSECTOR(dofus, {"Dofus", id(ProtoId::Dofus), kL4Tcp, kMaxDpiPackets, classify_dofus});

}  // namespace fg
