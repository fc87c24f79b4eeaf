// ④ tinc VPN's meta protocol (tinc 1.0 docs, "The meta-protocol": lines of
// space-separated fields, the request number first, TCP port 655). A
// connection opens with each side's ID request "0 <name> 17\n" (17: the
// protocol version), then each side's METAKEY request "1 <cipher> <digest>
// <maclength> <compression> <key in hex>\n". nDPI (IPv4 only: its tinc
// dissector is not registered for IPv6) wants exactly that order in the
// flow's first four TCP payload packets, either direction: two ID lines
// (a name not starting with a space, the version field "17\n" ending the
// packet), then two METAKEY lines (four numeric fields each followed by a
// space, then upper-case hex / digits up to a '\n'); the fourth names the
// flow, any packet out of shape rules it out.
// Stateless: since every packet either advances nDPI's stage or ends the
// search, the stage is the number of payload packets read before this one
// (retransmissions, which nDPI reads not, left out: Flow::dissected).
// A named connection's endpoints (client address, server address and port)
// are remembered, as nDPI does, in a small most-recent-first table (nDPI's
// 10 entries): the first datagram of a later UDP flow between the same two
// addresses with that port on the server's side (tinc's tunnel, §"The UDP
// tunnel") names it TINC from the cache and uses the entry up; any other UDP
// flow is ruled out at its first datagram.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// One table per engine thread (one classifier each), like host_match's cache.
struct TincPeer {
  uint32_t cli, srv;
  uint16_t port;
  bool operator==(const TincPeer&) const = default;
};
constexpr size_t kTincPeers = 10;
thread_local TincPeer t_peers[kTincPeers];
thread_local size_t t_npeers = 0;

// Most recent first; the oldest falls out of a full table.
void remember(const TincPeer& e) {
  size_t i = 0;
  while (i < t_npeers && !(t_peers[i] == e)) i++;
  if (i == t_npeers && t_npeers < kTincPeers) t_npeers++;
  if (i == kTincPeers) i--;
  for (; i > 0; i--) t_peers[i] = t_peers[i - 1];
  t_peers[0] = e;
}

bool forget(const TincPeer& e) {
  for (size_t i = 0; i < t_npeers; i++) {
    if (!(t_peers[i] == e)) continue;
    for (size_t j = i + 1; j < t_npeers; j++) t_peers[j - 1] = t_peers[j];
    t_npeers--;
    return true;
  }
  return false;
}

bool digit(uint8_t ch) { return ch >= '0' && ch <= '9'; }

// "0 <name> 17\n", nothing after.
bool id_line(Bytes b) {
  if (b.size() <= 6 || !has_at(b, 0, "0 ") || b[2] == ' ') return false;
  size_t i = 3;
  while (i < b.size() && b[i] != ' ') i++;
  return i < b.size() && b.size() - (i + 1) == 3 && has_at(b, i + 1, "17\n");
}

// "1 <n> <n> <n> <n> <KEY>\n" (the first field's first character is only
// checked not to be a space, the others' digits may be absent, as nDPI).
bool metakey_line(Bytes b) {
  if (b.size() <= 11 || !has_at(b, 0, "1 ") || b[2] == ' ') return false;
  size_t i = 3;
  for (int field = 0; field < 4; field++) {
    while (i < b.size() && digit(b[i])) i++;
    if (i >= b.size() || b[i] != ' ') return false;
    i++;
  }
  while (i < b.size() && (digit(b[i]) || (b[i] >= 'A' && b[i] <= 'Z'))) i++;
  return i < b.size() && b[i] == '\n';
}

Verdict classify_tinc(DpiCtx& c, Match& m) {
  const Packet& p = c.p;
  if (p.ip_version != 4) return Verdict::No;
  if (p.l4_proto == kProtoUdp) {
    // either way round: this datagram's sender as the TCP connection's client or server
    const bool hit = forget({p.src.v4(), p.dst.v4(), p.dport}) | forget({p.dst.v4(), p.src.v4(), p.sport});
    if (!hit) return Verdict::No;
    m.app = id(ProtoId::TINC);
    m.cached = true;
    return Verdict::Match;
  }
  const uint8_t stage = uint8_t(c.flow.dissected() - 1);  // nDPI's tinc_state: one step per packet it read
  if (stage < 2) return id_line(c.payload) ? Verdict::NeedMore : Verdict::No;
  if (stage > 3 || !metakey_line(c.payload)) return Verdict::No;
  if (stage == 2) return Verdict::NeedMore;
  const IpAddr& cli = c.from_client ? p.src : p.dst;
  const IpAddr& srv = c.from_client ? p.dst : p.src;
  remember({cli.v4(), srv.v4(), c.srv_port});
  m.app = id(ProtoId::TINC);
  return Verdict::Match;
}

}  // namespace

// No packet budget: the stage (its first four dissected packets) decides.
FG_DISSECTOR(tinc, {"TINC", id(ProtoId::TINC), kL4Both, 255, classify_tinc});

}  // namespace fg
