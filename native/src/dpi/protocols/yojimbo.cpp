// ④ Yojimbo (netcode.io game networking): the connection request packet —
// type byte 0, then the version string "NETCODE 1.02".
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_yojimbo(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 13 || b[0] != 0x00 || !has_at(b, 1, "NETCODE 1.0")) return Verdict::No;
  m.app = id(ProtoId::Yojimbo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(yojimbo, {"Yojimbo", id(ProtoId::Yojimbo), kL4Udp, 1, classify_yojimbo});

}  // namespace fg
