// ④ Kismet's client/server protocol over TCP (Kismet documentation, the
// legacy text protocol on port 2501: the server greets with lines
// "*KISMET: <version> <start time> …", each sentence "*<NAME>: …").
// nDPI's rule, kept, on the first payload packet, any port: at least 9
// bytes starting "*KISMET: "; anything else rules Kismet out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_kismet(DpiCtx& c, Match& m) {
  if (!has_at(c.payload, 0, "*KISMET: ")) return Verdict::No;
  m.app = id(ProtoId::Kismet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kismet, {"Kismet", id(ProtoId::Kismet), kL4Tcp, 1, classify_kismet});

}  // namespace fg
