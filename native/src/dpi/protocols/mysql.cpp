// ④ MySQL: the server speaks first with its handshake (protocol 10): a
// 3-byte little-endian length covering the rest, sequence 0, protocol byte
// 10, then a NUL-terminated server version starting with a digit, the
// 4-byte connection id, 8 bytes of salt and a NUL filler.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_mysql(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.from_client) return c.flow.dpi_packets < 2 ? Verdict::NeedMore : Verdict::No;
  if (b.size() < 38) return Verdict::No;
  size_t len = b[0] | (size_t(b[1]) << 8) | (size_t(b[2]) << 16);
  if (len + 4 != b.size() || b[3] != 0 || b[4] != 0x0a) return Verdict::No;
  if (b[5] < '0' || b[5] > '9') return Verdict::No;
  size_t i = 6;
  while (i < b.size() && i < 70 && b[i] != 0) {
    if (b[i] < 0x20 || b[i] > 0x7e) return Verdict::No;
    i++;
  }
  if (i >= b.size() || b[i] != 0) return Verdict::No;
  // connection id (4), salt part 1 (8), filler 0
  if (i + 13 >= b.size() || b[i + 13] != 0) return Verdict::No;
  m.app = id(ProtoId::MySQL);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mysql, {"MySQL", id(ProtoId::MySQL), kL4Tcp, 2, classify_mysql});

}  // namespace fg
