// ④ Nintendo (Switch online play, UDP): a datagram longer than 48 bytes
// opening 32 ab 98 64 02.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_nintendo(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 48 || !has_at(b, 0, "\x32\xab\x98\x64\x02")) return Verdict::No;
  m.app = id(ProtoId::Nintendo);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(nintendo, {"Nintendo", id(ProtoId::Nintendo), kL4Udp, 1, classify_nintendo});

}  // namespace fg
