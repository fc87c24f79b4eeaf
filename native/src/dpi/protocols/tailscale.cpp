// ④ Tailscale's peer-to-peer discovery ("disco") messages (tailscale
// disco/disco.go: a datagram opens with the 6-byte magic "TS" followed by
// U+1F4AC 💬 in UTF-8, then the sender's key and a sealed box), on
// Tailscale's default UDP port 41641 (tailscale.com/kb/1082, firewall
// ports). As nDPI: the flow's first datagram decides; port 41641 on either
// side, more than the magic alone, and the magic at the start. (Tailscale's
// coordination / DERP servers are nDPI's IP list, applied elsewhere.)
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kTailscalePort = 41641;
constexpr std::string_view kDiscoMagic{"TS\xf0\x9f\x92\xac", 6};

Verdict classify_tailscale(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= kDiscoMagic.size() || (c.cli_port != kTailscalePort && c.srv_port != kTailscalePort) ||
      !has_at(b, 0, kDiscoMagic))
    return Verdict::No;
  m.app = id(ProtoId::Tailscale);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(tailscale, {"Tailscale", id(ProtoId::Tailscale), kL4Udp, 1, classify_tailscale});

}  // namespace fg
