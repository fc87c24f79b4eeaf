// ④ OICQ, QQ's original UDP protocol (header as documented by Wireshark's
// packet-oicq.c: flag 0x02, version, command, sequence, all big-endian,
// 7 bytes). As nDPI: the flow's first datagram has at least that header,
// flag 0x02, version 0x3b0b, and a command in 0x0001–0x00b5 or exactly
// 0x03f7; anything else rules the flow out. Ports are not required.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 7;

Verdict classify_oicq(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() < kHeader || b[0] != 0x02 || load_be16(b.data() + 1) != 0x3b0b) return Verdict::No;
  const uint16_t command = load_be16(b.data() + 3);
  if (command == 0 || (command > 0x00b5 && command != 0x03f7)) return Verdict::No;
  m.app = id(ProtoId::OICQ);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(oicq, {"OICQ", id(ProtoId::OICQ), kL4Udp, 1, classify_oicq});

}  // namespace fg
