// ④ HAProxy's PROXY protocol v1 over TCP: a "PROXY TCP4|TCP6 …\r\n" line
// naming the original endpoints, followed in the same segment by the
// proxied stream's first bytes. nDPI's search for the line end stops at a
// NUL byte.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_haproxy(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 9 || b[0] != 'P' || !has_at(b, 0, "PROXY TCP")) return Verdict::No;
  for (size_t i = 9; i + 1 < b.size(); i++) {
    if (b[i] == 0) break;
    if (b[i] == '\r' && b[i + 1] == '\n') {
      if (i + 2 == b.size()) return Verdict::No;  // nothing after the header line
      m.app = id(ProtoId::HAProxy);
      return Verdict::Match;
    }
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(haproxy, {"HAProxy", id(ProtoId::HAProxy), kL4Tcp, 1, classify_haproxy});

}  // namespace fg
