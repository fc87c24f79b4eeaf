// ④ Telnet (RFC 854/855): sessions open with option negotiation, packets
// made only of IAC (0xff) commands: WILL/WONT/DO/DONT <option>, or a
// subnegotiation IAC SB … IAC SE.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool all_iac(Bytes b) {
  size_t i = 0, cmds = 0;
  while (i < b.size()) {
    if (b[i] != 0xff || i + 1 >= b.size()) return false;
    uint8_t cmd = b[i + 1];
    if (cmd >= 0xfb && cmd <= 0xfe) {  // WILL WONT DO DONT
      if (i + 2 >= b.size()) return false;
      i += 3;
    } else if (cmd == 0xfa) {  // SB … IAC SE
      size_t j = i + 2;
      while (j + 1 < b.size() && !(b[j] == 0xff && b[j + 1] == 0xf0)) j++;
      if (j + 1 >= b.size()) return false;
      i = j + 2;
    } else {
      return false;
    }
    cmds++;
  }
  return cmds > 0;
}

Verdict classify_telnet(DpiCtx& c, Match& m) {
  if (!all_iac(c.payload)) return Verdict::No;
  m.app = id(ProtoId::Telnet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(telnet, {"Telnet", id(ProtoId::Telnet), kL4Tcp, 2, classify_telnet});

}  // namespace fg
