// ④ CORBA: over TCP a GIOP (or zipped ZIOP) message header, magic "GIOP" /
// "ZIOP", 24 to 144 bytes (a later, shorter message still names the flow);
// over UDP the multicast MIOP packet header, magic "MIOP", above 32 bytes.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_corba(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const void* p = b.data();
  bool ok;
  if (c.p.l4_proto == 6)
    ok = b.size() >= 24 && b.size() <= 144 && (std::memcmp(p, "GIOP", 4) == 0 || std::memcmp(p, "ZIOP", 4) == 0);
  else
    ok = b.size() > 32 && std::memcmp(p, "MIOP", 4) == 0;
  if (!ok) return c.p.l4_proto == 6 && b.size() > 144 ? Verdict::NeedMore : Verdict::No;
  m.app = id(ProtoId::Corba);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(corba, {"Corba", id(ProtoId::Corba), kL4Both, 4, classify_corba});

}  // namespace fg
