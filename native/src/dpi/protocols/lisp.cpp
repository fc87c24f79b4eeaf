// ④ LISP (Locator/ID Separation Protocol): over UDP the data plane runs
// between port 4341 on both ends and the control plane between 4342 on both
// ends. Over TCP (the reliable transport for control messages) port 4342 at
// either end, as nDPI reads it: 8 bytes or more, a 16-bit length at offset
// 2 not below the segment's, and the segment ending with the end marker
// 9f ac ad e9 (a message in one segment).
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
    const size_t n = b.size();
    if (n < 8 || load_be16(b.data() + 2) < n) return Verdict::No;
    if (b[n - 4] != 0x9f || b[n - 3] != 0xac || b[n - 2] != 0xad || b[n - 1] != 0xe9) return Verdict::No;
  }
  m.app = id(ProtoId::LISP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(lisp, {"LISP", id(ProtoId::LISP), kL4Both, 1, classify_lisp});

}  // namespace fg
