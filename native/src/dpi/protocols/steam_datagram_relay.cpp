// ④ Steam Datagram Relay (Valve's relay network, GameNetworkingSockets'
// steamnetworkingsockets_udp / SDR client pings): a relay ping request
// carries the ASCII tag "sdping" after a 2-byte lead and is padded with
// zeros to a fixed size. As nDPI: the flow's first datagram, at least 100
// bytes, with "sdping" at bytes 2–7, any port; anything else rules it out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_steam_datagram_relay(DpiCtx& c, Match& m) {
  if (c.payload.size() < 100 || !has_at(c.payload, 2, "sdping")) return Verdict::No;
  m.app = id(ProtoId::SteamDatagramRelay);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(steam_datagram_relay, {"SteamDatagramRelay", id(ProtoId::SteamDatagramRelay), kL4Udp, 1, classify_steam_datagram_relay});

}  // namespace fg
