// ④ Heroes of the Storm (Blizzard) over UDP ports 1119, 1120, 3724 or
// 6113: 20 to 122 bytes with 0x40 0x00 at offset 14, and either bytes 2-3
// 0x03 0x00 / 0x34 0x00 or the first 14 bytes all zero. Any other datagram
// rules the flow out, so the first one decides. nDPI (hots.c) registers it
// for IPv4 only: an IPv6 flow is never named so.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool hots_port(uint16_t p) { return p == 1119 || p == 1120 || p == 3724 || p == 6113; }

Verdict classify_hots(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.p.ip_version != 4) return Verdict::No;
  if (!hots_port(c.cli_port) && !hots_port(c.srv_port)) return Verdict::No;
  if (b.size() < 20 || b.size() > 122 || b[14] != 0x40 || b[15] != 0x00) return Verdict::No;
  bool ok = (b[3] == 0 && (b[2] == 0x03 || b[2] == 0x34));
  if (!ok) {
    ok = true;
    for (size_t i = 0; i < 14; i++) ok = ok && b[i] == 0;
  }
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::Heroes_of_the_Storm);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hots, {"Heroes_of_the_Storm", id(ProtoId::Heroes_of_the_Storm), kL4Udp, 1, classify_hots});

}  // namespace fg
