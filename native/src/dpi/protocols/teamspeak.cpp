// ④ TeamSpeak, as nDPI recognises it. In packets of 20 bytes or more: TS3
// over UDP opens with "TS3INIT1"; TeamSpeak 2 over TCP with 0xf4be and a
// 01 / 02 / 03 00 connection type. Over UDP also the TS3 license / weblist
// exchange: short datagrams (16 bytes: 01 at 0, 02 at 3, zeros at 11–15;
// 4 or 8 bytes: 01 at 0 and 3; 5 bytes: 01 at 0, 02 at 3, 00 at 4) keep
// the flow a candidate, and the third payload packet of the flow being one
// of them names it.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool license_shaped(Bytes b) {
  const size_t n = b.size();
  if (n == 16) return b[0] == 0x01 && b[3] == 0x02 && load_be32(b.data() + 11) == 0 && b[15] == 0x00;
  if (n == 4 || n == 8) return b[0] == 0x01 && b[3] == 0x01;
  if (n == 5) return b[0] == 0x01 && b[3] == 0x02 && b[4] == 0x00;
  return false;
}

Verdict classify_teamspeak(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool udp = c.p.l4_proto == kProtoUdp;
  bool hit = false;
  if (b.size() >= 20) {
    if (udp) hit = std::memcmp(b.data(), "TS3INIT1", 8) == 0;
    else hit = b[0] == 0xf4 && b[1] == 0xbe && b[2] >= 1 && b[2] <= 3 && b[3] == 0;
  }
  if (!hit) {
    if (!udp || !license_shaped(b)) return Verdict::No;
    if (c.flow.dpi_packets != 3) return Verdict::NeedMore;
  }
  m.app = id(ProtoId::TeamSpeak);
  return Verdict::Match;
}

}  // namespace

// Three packets: a license-shaped third one names the flow, anything else
// there either names it or ends the candidacy.
FG_DISSECTOR(teamspeak, {"TeamSpeak", id(ProtoId::TeamSpeak), kL4Both, 3, classify_teamspeak});

}  // namespace fg
