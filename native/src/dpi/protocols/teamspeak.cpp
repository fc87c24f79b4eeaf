// ④ TeamSpeak, as nDPI recognises it (packets of 20 bytes or more): TS3
// over UDP opens with "TS3INIT1"; TeamSpeak 2 over TCP with 0xf4be and a
// 01 / 02 / 03 00 connection type.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_teamspeak(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 20) return Verdict::No;
  if (c.p.l4_proto == kProtoUdp) {
    if (std::memcmp(b.data(), "TS3INIT1", 8) != 0) return Verdict::No;
  } else if (b[0] != 0xf4 || b[1] != 0xbe || b[2] < 1 || b[2] > 3 || b[3] != 0) {
    return Verdict::No;
  }
  m.app = id(ProtoId::TeamSpeak);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(teamspeak, {"TeamSpeak", id(ProtoId::TeamSpeak), kL4Both, 1, classify_teamspeak});

}  // namespace fg
