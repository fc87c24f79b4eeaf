// ④ Call of Duty: Mobile over UDP: a 12-byte keep-alive ending "ping" to or
// from port 7500, or a large (over 350 bytes) 0xce-led game packet naming a
// loadout ("LOC_PREFAB_LOADOUTNAME_1"). Looked for in the first 4 packets.
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_cod_mobile(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool ok = false;
  if (b.size() == 12 && (c.cli_port == 7500 || c.srv_port == 7500))
    ok = std::memcmp(b.data() + 8, "ping", 4) == 0;
  if (!ok && b.size() > 350 && b[0] == 0xce) {
    std::string_view s(reinterpret_cast<const char*>(b.data()), b.size());
    ok = s.find("LOC_PREFAB_LOADOUTNAME_1") != std::string_view::npos;
  }
  if (ok) {
    m.app = id(ProtoId::CoD_Mobile);
    return Verdict::Match;
  }
  return c.flow.dpi_packets < 4 ? Verdict::NeedMore : Verdict::No;
}

}  // namespace

FG_DISSECTOR(cod_mobile, {"CoD_Mobile", id(ProtoId::CoD_Mobile), kL4Udp, 4, classify_cod_mobile});

}  // namespace fg
