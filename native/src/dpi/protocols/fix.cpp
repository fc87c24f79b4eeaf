// ④ FIX (Financial Information eXchange, TCP): every message opens with the
// BeginString tag, "8=FIX." (or "8=FIXT."): nDPI (src/lib/protocols/fix.c)
// takes "8=FIX" and any byte after it, on a segment over 5 bytes, and also
// "8=O\x01" followed by the BodyLength tag "9=".
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_fix(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 5 || b[0] != '8' || b[1] != '=') return Verdict::No;
  if (std::memcmp(b.data() + 2, "FIX", 3) != 0 && std::memcmp(b.data() + 2, "O\x01" "9=", 4) != 0)
    return Verdict::No;
  m.app = id(ProtoId::FIX);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(fix, {"FIX", id(ProtoId::FIX), kL4Tcp, 1, classify_fix});

}  // namespace fg
