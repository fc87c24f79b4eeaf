// ④ Cloudflare WARP (developers.cloudflare.com, WARP "firewall" deployment
// page: its WireGuard-like tunnel on UDP 2408, with 500, 1701 and 4500 as
// fallbacks; MASQUE over QUIC on 443, 4443, 8443 and 8095). Its WireGuard
// variant has its own message types, so nDPI does not read the payload: a
// UDP flow whose address is in nDPI's CloudflareWarp IP list (the server's,
// else the client's: nDPI's guess by IP) and that has one of those ports on
// either side is WARP on its first datagram; anything else is ruled out.
// Dissectors asked earlier (IPsec on 500/4500, QUIC on 443 …) may claim the
// flow first, as in nDPI.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kWarpPorts[] = {2408, 500, 1701, 4500, 443, 4443, 8443, 8095};

Verdict classify_cloudflare_warp(DpiCtx& c, Match& m) {
  if (app_by_flow_ip(c.flow) != id(ProtoId::CloudflareWarp)) return Verdict::No;
  for (uint16_t port : kWarpPorts) {
    if (c.cli_port != port && c.srv_port != port) continue;
    m.app = id(ProtoId::CloudflareWarp);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(cloudflare_warp, {"CloudflareWarp", id(ProtoId::CloudflareWarp), kL4Udp, 1, classify_cloudflare_warp});

}  // namespace fg
