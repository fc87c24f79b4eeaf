// ④ PostgreSQL, as nDPI's postgres.c: a request as the flow's first payload
// packet (either direction), its int32 length equal to the packet (8 bytes
// or more): an SSLRequest (code 80877103), a GSSENCRequest (80877104) or a
// StartupMessage (any code below 0x40000, protocol 3.0 being 0x30000);
// then the answer as the next payload packet: 'S' or 'N' alone (SSL
// accepted / refused), 'G' or 'N' alone (GSS), or an Authentication message
// ('R', int32 length equal to the packet less one byte, a request code
// below 10; or length 8 and code 0). Anything else excludes.
// nDPI remembers which request came and in which direction; no scratch slot
// is free for it, so the second packet is taken when it is any of those
// answers (a 1-byte answer to a StartupMessage, or an answer sent the same
// way as the request, would pass here and not in nDPI).
#include "dpi/dpi.h"

namespace fg {
namespace {

bool request(Bytes b) {
  if (b.size() <= 7 || load_be32(b.data()) != b.size()) return false;
  const uint32_t code = load_be32(b.data() + 4);
  return code == 80877103 || code == 80877104 || code < 0x00040000;
}

bool answer(Bytes b) {
  if (b.size() == 1) return b[0] == 'S' || b[0] == 'N' || b[0] == 'G';
  if (b.size() <= 8 || b[0] != 'R') return false;
  const uint32_t len = load_be32(b.data() + 1), code = load_be32(b.data() + 5);
  return (len == b.size() - 1 && code < 10) || (len == 8 && code == 0);
}

Verdict classify_postgres(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dissected() == 1) return request(b) ? Verdict::NeedMore : Verdict::No;
  if (c.flow.dissected() != 2 || !answer(b)) return Verdict::No;
  m.app = id(ProtoId::PostgreSQL);
  return Verdict::Match;
}

}  // namespace

// No packet budget: the stage (its first two dissected packets) decides.
FG_DISSECTOR(postgres, {"PostgreSQL", id(ProtoId::PostgreSQL), kL4Tcp, 255, classify_postgres});

}  // namespace fg
