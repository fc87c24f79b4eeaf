// ④ Sonos speakers' UDP on the local network, by nDPI's heuristic: towards
// a private or loopback (non-multicast) IPv4 address, 48-byte datagrams on port 12301,
// or datagrams to port 7080 shorter than 200 bytes or of 1001–1099 bytes
// (audio frames).
#include "dpi/dpi.h"
#include "flow/local_nets.h"

namespace fg {
namespace {

// nDPI's "not public" IPv4 (ndpi_is_public_ipv4): RFC 1918, loopback and
// multicast only — not link-local, shared (100.64/10) nor 0/8.
bool not_public_v4(const IpAddr& a) {
  const uint32_t v = a.v4();
  return (v >> 24) == 10 || (v >> 20) == 0xac1 || (v >> 16) == 0xc0a8 || (v >> 24) == 127 || (v >> 28) == 0xe;
}

Verdict classify_sonos(DpiCtx& c, Match& m) {
  const IpAddr& dst = c.p.dst;
  if (!dst.is_v4() || !not_public_v4(dst) || is_multicast(dst)) return Verdict::No;
  const size_t n = c.payload.size();
  const bool ok = n == 48 ? (c.p.sport == 12301 || c.p.dport == 12301)
                          : c.p.dport == 7080 && (n < 200 || (n > 1000 && n < 1100));
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::Sonos);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(sonos, {"Sonos", id(ProtoId::Sonos), kL4Udp, 1, classify_sonos});

}  // namespace fg
