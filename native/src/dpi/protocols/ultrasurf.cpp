// ④ UltraSurf, a censorship-circumvention proxy with an undocumented,
// obfuscated protocol; its client's TCP connections open with a fixed
// 8-byte prologue CC 1C 30 41 5B A4 38 66 (as reverse-engineered and used
// by nDPI). The flow's first payload packet decides, any port, either
// direction: at least 8 bytes opening with those bytes.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kPrologue{"\xcc\x1c\x30\x41\x5b\xa4\x38\x66", 8};

Verdict classify_ultrasurf(DpiCtx& c, Match& m) {
  if (!has_at(c.payload, 0, kPrologue)) return Verdict::No;
  m.app = id(ProtoId::UltraSurf);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ultrasurf, {"UltraSurf", id(ProtoId::UltraSurf), kL4Tcp, 1, classify_ultrasurf});

}  // namespace fg
