// ④ IPSec key exchange (IKE, RFC 2408 / 7296) over UDP: a 28-byte header —
// initiator SPI (never zero), responder SPI, next payload, version (major 1
// or 2 in the high nibble), exchange type, flags, message id, and a length
// covering the whole datagram. On 4500 (NAT traversal) a 4-byte zero
// non-ESP marker precedes it.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool exchange_ok(uint8_t major, uint8_t x) {
  if (major == 1) return x <= 5 || (x >= 32 && x <= 33);
  return x >= 34 && x <= 37;
}

Verdict classify_ipsec(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t off = 0;
  if (b.size() >= 4 && load_be32(b.data()) == 0) off = 4;
  if (b.size() < off + 28) return Verdict::No;
  const uint8_t* h = b.data() + off;
  if (load_be32(h) == 0 && load_be32(h + 4) == 0) return Verdict::No;
  uint8_t major = h[17] >> 4;
  if ((major != 1 && major != 2) || (h[17] & 0x0f) != 0) return Verdict::No;
  if (!exchange_ok(major, h[18])) return Verdict::No;
  if (load_be32(h + 24) != b.size() - off) return Verdict::No;
  m.app = id(ProtoId::IPSec);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ipsec, {"IPSec", id(ProtoId::IPSec), kL4Udp, 2, classify_ipsec});

}  // namespace fg
