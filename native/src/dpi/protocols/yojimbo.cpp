// ④ Yojimbo (netcode.io game networking): the connection request packet —
// type byte 0, then "NETCODE " (nDPI reads those 8 bytes, not the version
// number after them), in a datagram of at least 9 bytes.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_yojimbo(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 9 || b[0] != 0x00 || !has_at(b, 1, "NETCODE ")) return Verdict::No;
  m.app = id(ProtoId::Yojimbo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(yojimbo, {"Yojimbo", id(ProtoId::Yojimbo), kL4Udp, 1, classify_yojimbo});

}  // namespace fg
