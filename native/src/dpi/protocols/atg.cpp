// ④ ATG (Veeder-Root automatic tank gauge) over TCP port 10001: commands
// and replies start with SOH (0x01) and a function letter I/i/S/s and end
// with CR LF.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_atg(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != 10001 && c.srv_port != 10001) return Verdict::No;
  if (b.size() < 8 || b[0] != 0x01) return Verdict::No;
  if (b[1] != 'I' && b[1] != 'i' && b[1] != 'S' && b[1] != 's') return Verdict::No;
  if (b[b.size() - 2] != '\r' || b[b.size() - 1] != '\n') return Verdict::No;
  m.app = id(ProtoId::ATG);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(atg, {"ATG", id(ProtoId::ATG), kL4Tcp, 1, classify_atg});

}  // namespace fg
