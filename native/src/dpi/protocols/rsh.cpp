// ④ rsh (BSD remote shell) over TCP 514: the client, bound to a privileged
// port (512–1023), first sends the decimal stderr port terminated by a NUL,
// alone or followed by the local user, remote user and command (each
// NUL-terminated). The user names sent in clear are nDPI's clear-text
// credentials: read on after the match when they come in a later segment.
#include "dpi/dpi.h"

namespace fg {
namespace {

// Local user, remote user, command: printable, each NUL-terminated.
bool users_and_command(Bytes b) {
  if (b.size() < 3 || b[b.size() - 1] != 0) return false;
  int strings = 0;
  for (uint8_t ch : b) {
    if (ch == 0) strings++;
    else if (ch < 0x20 || ch > 0x7e) return false;
  }
  return strings == 3;
}

Verdict classify_rsh(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    if (!c.from_client) return Verdict::NeedMore;
    if (users_and_command(b)) c.risk(Risk::ClearTextCredentials);
    return Verdict::No;
  }
  if (c.srv_port != 514 || c.cli_port < 512 || c.cli_port > 1023 || !c.from_client) return Verdict::No;
  size_t i = 0;
  while (i < b.size() && i < 6 && b[i] >= '0' && b[i] <= '9') i++;
  if (i == 0 || i == 6 || i >= b.size() || b[i] != 0) return Verdict::No;
  m.app = id(ProtoId::RSH);
  if (i + 1 == b.size()) {
    m.more = true;  // the users follow
    return Verdict::Match;
  }
  // Port, users and command in one segment.
  if (!users_and_command(b.subspan(i + 1))) return Verdict::No;
  c.risk(Risk::ClearTextCredentials);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rsh, {"RSH", id(ProtoId::RSH), kL4Tcp, 1, classify_rsh});

}  // namespace fg
