// ④ BGP-4 (RFC 4271, TCP port 179). Every message opens with the 19-byte
// header of §4.1: a 16-byte marker of all ones, a 16-bit length, a type
// (1 OPEN, 2 UPDATE, 3 NOTIFICATION, 4 KEEPALIVE). As nDPI, the first payload
// segment either way decides: a port 179 side, the marker, a type below 5 and
// a length no larger than the segment (it may hold several messages). Looser
// than the RFC as nDPI is: type 0 passes and the 19-4096 length bounds are not
// held; stricter: ROUTE-REFRESH (type 5, RFC 2918) does not name it.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kBgpPort = 179;
constexpr size_t kHeader = 19;  // marker 16, length 2, type 1

Verdict classify_bgp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != kBgpPort && c.srv_port != kBgpPort) return Verdict::No;
  if (b.size() < kHeader) return Verdict::No;
  for (size_t i = 0; i < 16; i++)
    if (b[i] != 0xff) return Verdict::No;
  if (load_be16(b.data() + 16) > b.size() || b[18] >= 5) return Verdict::No;
  m.app = id(ProtoId::BGP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(bgp, {"BGP", id(ProtoId::BGP), kL4Tcp, 1, classify_bgp});

}  // namespace fg
