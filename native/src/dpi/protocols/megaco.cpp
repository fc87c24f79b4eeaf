// ④ Megaco / H.248 text encoding (ITU-T H.248.1 Annex B; RFC 3525), UDP on
// any port: a message opens with the protocol token and version, then a
// space and the sender's mId. nDPI accepts the short form "!/1 " followed by
// an IPv4 address '[' or a domain name '<', and the long form "MEGACO/1 ["
// (long form with a domain name is not accepted, as in nDPI). Case as
// written. The first payload packet decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_megaco(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool short_form = has_at(b, 0, "!/1 ") && b.size() > 4 && (b[4] == '[' || b[4] == '<');
  const bool long_form = has_at(b, 0, "MEGACO/1 [");
  if (!short_form && !long_form) return Verdict::No;
  m.app = id(ProtoId::Megaco);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(megaco, {"Megaco", id(ProtoId::Megaco), kL4Udp, 1, classify_megaco});

}  // namespace fg
