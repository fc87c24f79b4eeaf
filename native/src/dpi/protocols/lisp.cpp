// ④ LISP (Locator/ID Separation Protocol): over UDP the data plane runs
// between port 4341 on both ends and the control plane between 4342 on both
// ends. Over TCP (the reliable transport for control messages) port 4342,
// each message opening with a 16-bit type and a 16-bit length that covers
// at least the 4-byte header and fits the segment.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_lisp(DpiCtx& c, Match& m) {
  if (c.payload.empty()) return Verdict::No;
  if (c.p.l4_proto == 17) {
    if (c.cli_port != c.srv_port || (c.cli_port != 4341 && c.cli_port != 4342)) return Verdict::No;
  } else {
    Bytes b = c.payload;
    if (c.srv_port != 4342 && c.cli_port != 4342) return Verdict::No;
    if (b.size() < 4 || load_be16(b.data()) == 0) return Verdict::No;
    uint16_t len = load_be16(b.data() + 2);
    if (len < 4 || len > b.size()) return Verdict::No;
  }
  m.app = id(ProtoId::LISP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(lisp, {"LISP", id(ProtoId::LISP), kL4Both, 1, classify_lisp});

}  // namespace fg
