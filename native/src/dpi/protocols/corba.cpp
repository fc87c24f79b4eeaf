// ④ CORBA: over TCP a GIOP (or zipped ZIOP) message header, magic "GIOP" /
// "ZIOP", in a packet of at least 24 bytes (nDPI sets no upper bound); over
// UDP the multicast MIOP packet header, magic "MIOP", above 32 bytes. Only
// the first payload packet is read: nDPI gives up on any other.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_corba(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const void* p = b.data();
  bool ok;
  if (c.p.l4_proto == 6)
    ok = b.size() >= 24 && (std::memcmp(p, "GIOP", 4) == 0 || std::memcmp(p, "ZIOP", 4) == 0);
  else
    ok = b.size() > 32 && std::memcmp(p, "MIOP", 4) == 0;
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::Corba);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(corba, {"Corba", id(ProtoId::Corba), kL4Both, 1, classify_corba});

}  // namespace fg
