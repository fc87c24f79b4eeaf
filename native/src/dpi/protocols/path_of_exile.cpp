// ④ Path of Exile (TCP game login): the first packet, 26–49 bytes with the
// character's name inside, opens 0x00, 0x0300 at 1, 0x00 at 6, 0x0200 at 7,
// and ends with the words 0x00000000, 0x40000001.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_path_of_exile(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n <= 25 || n >= 50 || b[0] != 0 || b[6] != 0) return Verdict::No;
  const uint8_t* p = b.data();
  if (load_be16(p + 1) != 0x0300 || load_be16(p + 7) != 0x0200 || load_be32(p + n - 8) != 0 || load_be32(p + n - 4) != 0x40000001)
    return Verdict::No;
  m.app = id(ProtoId::PathofExile);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(path_of_exile, {"PathofExile", id(ProtoId::PathofExile), kL4Tcp, 1, classify_path_of_exile});

}  // namespace fg
