// ④ CORBA (GIOP over TCP): a 24–144-byte message opening with "GIOP", as
// nDPI checks.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_corba(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 24 || b.size() > 144 || std::memcmp(b.data(), "GIOP", 4) != 0) return Verdict::No;
  m.app = id(ProtoId::Corba);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(corba, {"Corba", id(ProtoId::Corba), kL4Tcp, 1, classify_corba});

}  // namespace fg
