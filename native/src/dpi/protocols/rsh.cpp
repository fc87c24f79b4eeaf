// ④ rsh (BSD remote shell) over TCP 514: the client, bound to a privileged
// port (512–1023), first sends the decimal stderr port terminated by a NUL,
// alone or followed by the local user, remote user and command (each
// NUL-terminated).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_rsh(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.srv_port != 514 || c.cli_port < 512 || c.cli_port > 1023 || !c.from_client) return Verdict::No;
  size_t i = 0;
  while (i < b.size() && i < 6 && b[i] >= '0' && b[i] <= '9') i++;
  if (i == 0 || i == 6 || i >= b.size() || b[i] != 0) return Verdict::No;
  if (i + 1 != b.size()) {
    // Port, users and command in one segment: three more NUL-terminated strings.
    int strings = 0;
    for (size_t k = i + 1; k < b.size(); k++) {
      if (b[k] == 0) strings++;
      else if (b[k] < 0x20 || b[k] > 0x7e) return Verdict::No;
    }
    if (strings != 3 || b[b.size() - 1] != 0) return Verdict::No;
  }
  m.app = id(ProtoId::RSH);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rsh, {"RSH", id(ProtoId::RSH), kL4Tcp, 1, classify_rsh});

}  // namespace fg
