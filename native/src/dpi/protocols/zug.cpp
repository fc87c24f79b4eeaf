// ④ ZUG consensus protocol (Casper / UDP), as nDPI's zug.c: a datagram of 5
// bytes or more opening 00 7a 55 47 ("\0zUG": nDPI's constant has a lower-case
// z, whatever its comment says) and a 0x10 byte; the first datagram decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_zug(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 5 || load_be32(b.data()) != 0x007a5547 || b[4] != 0x10) return Verdict::No;
  m.app = id(ProtoId::ZUG);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(zug, {"ZUG", id(ProtoId::ZUG), kL4Udp, 1, classify_zug});

}  // namespace fg
