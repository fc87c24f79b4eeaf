// ④ WireGuard over UDP: a message type byte followed by three reserved zero
// bytes; handshake initiation (1) is exactly 148 bytes, response (2) 92,
// cookie reply (3) 64. TunnelBear's handshake has the same layout at
// 204 / 100 bytes: its initiation waits for the response, which names the
// flow WireGuard.TunnelBear (nDPI's rule).
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_wireguard(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 32 || b[1] || b[2] || b[3]) return Verdict::No;
  if (b[0] == 1 && b.size() == 204) return Verdict::NeedMore;
  if (b[0] == 2 && b.size() == 100) {
    m.master = id(ProtoId::WireGuard), m.app = id(ProtoId::TunnelBear);
    return Verdict::Match;
  }
  size_t want;
  switch (b[0]) {
    case 1: want = 148; break;
    case 2: want = 92; break;
    case 3: want = 64; break;
    default: return Verdict::No;
  }
  if (b.size() != want) return Verdict::No;
  m.app = id(ProtoId::WireGuard);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(wireguard, {"WireGuard", id(ProtoId::WireGuard), kL4Udp, 2, classify_wireguard});

}  // namespace fg
