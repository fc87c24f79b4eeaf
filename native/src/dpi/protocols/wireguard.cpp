// ④ WireGuard over UDP: a message type byte followed by three reserved zero
// bytes; handshake initiation (1) is exactly 148 bytes, response (2) 92,
// cookie reply (3) 64.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_wireguard(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 32 || b[1] || b[2] || b[3]) return Verdict::No;
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
