// ④ The Elder Scrolls Online (ZeniMax), TCP. Its client/server messages are
// undocumented; nDPI's observed form, kept exactly, on any port: a packet of
// at least 600 bytes whose first 4 bytes (big-endian) give the length of
// the rest, holding either the text "eso.live" or the bytes 8B 78 9C 01
// (a zlib stream header, 78 9C, inside the message) anywhere. nDPI notes
// their offset moves with the account name's length, hence the search.
// Any other packet rules the flow out, so the first one decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_teso(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() < 600 || load_be32(b.data()) != b.size() - 4) return Verdict::No;
  if (!contains(b, "eso.live") && !contains(b, "\x8b\x78\x9c\x01")) return Verdict::No;
  m.app = id(ProtoId::TES_Online);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(teso, {"TES_Online", id(ProtoId::TES_Online), kL4Tcp, 1, classify_teso});

}  // namespace fg
