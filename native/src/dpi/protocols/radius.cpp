// ④ RADIUS (RFC 2865 authentication, RFC 2866 accounting; UDP). As nDPI:
// only on ports 1812, 1813 or 18013 (an accounting alternative), either side;
// the legacy 1645/1646 are not taken. A datagram outside 20-4096 bytes
// (RFC 2865 §3) rules it out; one whose code is 1-13 (Access-Request …
// Status-Client, the RFC 2865/2866/2882 range) and whose Length field (§3,
// offset 2) is exactly the datagram names it. Other shapes wait, up to the
// flow's fourth payload packet, as nDPI does.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool radius_port(uint16_t p) { return p == 1812 || p == 1813 || p == 18013; }

Verdict classify_radius(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!radius_port(c.cli_port) && !radius_port(c.srv_port)) return Verdict::No;
  if (b.size() < 20 || b.size() > 4096) return Verdict::No;
  if (b[0] >= 1 && b[0] <= 13 && load_be16(b.data() + 2) == b.size()) {
    m.app = id(ProtoId::Radius);
    return Verdict::Match;
  }
  return c.flow.dpi_packets >= 4 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(radius, {"Radius", id(ProtoId::Radius), kL4Udp, 4, classify_radius});

}  // namespace fg
