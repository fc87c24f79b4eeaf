// ④ RIPE Atlas (Magellan) probes (UDP): 25-byte datagrams opening with
// "MGLNDD", as nDPI checks.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_ripe_atlas(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() != 25 || std::memcmp(b.data(), "MGLNDD", 6) != 0) return Verdict::No;
  m.app = id(ProtoId::RipeAtlas);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ripe_atlas, {"RipeAtlas", id(ProtoId::RipeAtlas), kL4Udp, 1, classify_ripe_atlas});

}  // namespace fg
