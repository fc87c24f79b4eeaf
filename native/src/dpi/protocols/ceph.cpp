// ④ Ceph's messenger protocol over TCP (Ceph developer documentation,
// "Messenger v2" / msgr v1: a connection opens with each side sending a
// banner, "ceph v027" for v1, "ceph v2\n" for v2; monitors listen on 6789
// and 3300).
// nDPI's rule, kept, on the first payload packet, any port: more than 6
// bytes starting "ceph v"; anything else rules Ceph out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_ceph(DpiCtx& c, Match& m) {
  if (c.payload.size() <= 6 || !has_at(c.payload, 0, "ceph v")) return Verdict::No;
  m.app = id(ProtoId::Ceph);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ceph, {"Ceph", id(ProtoId::Ceph), kL4Tcp, 1, classify_ceph});

}  // namespace fg
