// ④ Telnet (RFC 854/855): sessions open with option negotiation, packets
// made only of IAC (0xff) commands: WILL/WONT/DO/DONT <option>, or a
// subnegotiation IAC SB … IAC SE. After the match the session is read on
// as nDPI does for clear-text credentials: a "login:" prompt, then the
// line end closing the typed user name.
#include "dpi/dpi.h"
#include "dpi/payload.h"

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

enum TelnetState : uint8_t { kNoPrompt = 0, kPrompted = 1 };

Verdict read_on(DpiCtx& c) {
  Bytes b = c.payload;
  if (!c.info || b.empty() || b[0] == 0xff) return Verdict::NeedMore;  // negotiation
  uint8_t& st = c.info->state[0];
  if (st == kNoPrompt) {
    if (b.size() > 6 && has_at_upper(b, 0, "LOGIN:")) st = kPrompted;
    return Verdict::NeedMore;
  }
  // Typed (and echoed) a character or a word at a time until the line ends.
  if (b[0] == '\r' || b[0] == '\n') {
    c.risk(Risk::ClearTextCredentials);
    return Verdict::No;
  }
  return Verdict::NeedMore;
}

Verdict classify_telnet(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  if (!all_iac(c.payload)) return Verdict::No;
  m.app = id(ProtoId::Telnet);
  if (c.info) c.info->state[0] = kNoPrompt;
  m.more = true;
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(telnet, {"Telnet", id(ProtoId::Telnet), kL4Tcp, 2, classify_telnet});

}  // namespace fg
