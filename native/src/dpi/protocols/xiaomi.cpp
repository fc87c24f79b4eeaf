// ④ Xiaomi push (TCP), as nDPI recognises it: a 12-byte header, 0xc2fe0005,
// a 32-bit length covering the rest, then 0x00020016.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_xiaomi(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 12 || load_be32(b.data()) != 0xc2fe0005 || load_be32(b.data() + 8) != 0x00020016 ||
      uint64_t(load_be32(b.data() + 4)) + 12 != b.size())
    return Verdict::No;
  m.app = id(ProtoId::Xiaomi);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(xiaomi, {"Xiaomi", id(ProtoId::Xiaomi), kL4Tcp, 1, classify_xiaomi});

}  // namespace fg
