// ④ Syncthing local discovery (UDP): announcements open with the magic
// 0x2ea7d90b, as nDPI checks.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_syncthing(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4 || load_be32(b.data()) != 0x2ea7d90b) return Verdict::No;
  m.app = id(ProtoId::Syncthing);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(syncthing, {"Syncthing", id(ProtoId::Syncthing), kL4Udp, 1, classify_syncthing});

}  // namespace fg
