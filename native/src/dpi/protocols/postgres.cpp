// ④ PostgreSQL: the client opens with a StartupMessage (int32 length,
// protocol 3.0 = 196608, then NUL-terminated parameter pairs ending in a
// NUL), or an SSLRequest / GSSENCRequest (length 8, code 80877103 / 80877104).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_postgres(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client || b.size() < 8) return Verdict::No;
  uint32_t len = load_be32(b.data()), code = load_be32(b.data() + 4);
  if (len != b.size()) return Verdict::No;
  if (len == 8 && (code == 80877103 || code == 80877104)) {
    m.app = id(ProtoId::PostgreSQL);
    return Verdict::Match;
  }
  if (code != 196608 || len < 12 || b[len - 1] != 0) return Verdict::No;
  m.app = id(ProtoId::PostgreSQL);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(postgres, {"PostgreSQL", id(ProtoId::PostgreSQL), kL4Tcp, 2, classify_postgres});

}  // namespace fg
