// ④ RESP, the Redis serialization protocol (redis.io "Redis serialization
// protocol specification"), TCP: the flow's first payload, at least 10 bytes,
// opens with an array "*", a bulk string "$" or a RESP3 set "~" type byte,
// then its decimal count and CRLF ("*2\r\n$3\r\nGET\r\n…"). As nDPI: at most
// 3 digits, none at all accepted too, no sign (so no "*-1" null array); simple
// strings "+", errors "-", integers ":" and inline commands are not
// recognised. One packet decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_resp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 10 || (b[0] != '*' && b[0] != '$' && b[0] != '~')) return Verdict::No;
  size_t i = 1;
  for (; i < 4 && b[i] != '\r'; i++)
    if (b[i] < '0' || b[i] > '9') return Verdict::No;
  if (b[i] != '\r' || b[i + 1] != '\n') return Verdict::No;  // i ≤ 4 < 10 - 1
  m.app = id(ProtoId::RESP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(resp, {"RESP", id(ProtoId::RESP), kL4Tcp, 1, classify_resp});

}  // namespace fg
