// ④ iQIYI (PPStream's streaming, UDP): a datagram of 121–299 bytes that
// names "PPStream".
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_iqiyi(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 120 || b.size() >= 300 || !contains(b, "PPStream")) return Verdict::No;
  m.app = id(ProtoId::iQIYI);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(iqiyi, {"iQIYI", id(ProtoId::iQIYI), kL4Udp, 1, classify_iqiyi});

}  // namespace fg
