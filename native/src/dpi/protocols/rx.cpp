// ④ RX (AFS's RPC transport, UDP). Each packet carries a 28-byte header
// whose type (1–13 but 12), flags (one of RX's values) and security index
// (0–3) are checked (nDPI's type/flags pairing falls through to accept
// every known pair); each packet keeps the connection epoch and id until one
// comes from the other nDPI direction, which must repeat both (nDPI's
// src/lib/protocols/rx.c). Directions are nDPI's (ndpi_direction.h): with
// equal ports over IPv6 every packet is direction 1, so nDPI never finds a
// reply there, nor does this. nDPI sets no packet limit of its own: it waits
// for the reply as long as the flow is inspected.
// State: the stored direction and the two ids folded to 32 bits (a mixing
// hash: two different id pairs pass for equal once in 2^32), so that
// LineCall's counters fit beside them (dpi.h, kScratchLine).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"

namespace fg {
namespace {

bool flags_known(uint8_t f) {
  // empty, client-initiated (1, 33), request-ack, last packet, "more" and
  // the plus combinations RX implementations send.
  return f == 0 || f == 1 || f == 2 || f == 3 || f == 4 || f == 5 || f == 6 || f == 9 || f == 33 || f == 34;
}

Verdict classify_rx(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 28) return Verdict::No;
  // type, flags, user status, then the security index (nDPI's ndpi_rx_header)
  const uint8_t type = b[20], flags = b[21], security = b[23];
  // Types data (1) to version (13); 12 (params 4) is not taken.
  if (type < 1 || type > 13 || type == 12 || !flags_known(flags) || security > 3) return Verdict::No;
  uint8_t* keep = c.scratch(kScratchRx);
  if (!keep) return Verdict::No;
  // keep[0]: nDPI direction of the packet whose ids are stored, + 1; the
  // epoch and connection id's fold at 1..4. Every payload packet reaches
  // here until the flow is decided, so ids stored from the other direction
  // mean it has sent payload (nDPI's per-direction payload counter), empty
  // datagrams aside.
  const uint8_t dir = uint8_t(ndpi_direction(c.p) + 1);
  const uint64_t ids = (uint64_t(load_be32(b.data())) << 32 | load_be32(b.data() + 4)) * 0x9e3779b97f4a7c15ULL;
  const uint32_t folded = uint32_t(ids ^ (ids >> 32));
  if (keep[0] && keep[0] != dir) {
    if (std::memcmp(keep + 1, &folded, 4) != 0) return Verdict::No;
    m.app = id(ProtoId::RX);
    return Verdict::Match;
  }
  keep[0] = dir;
  std::memcpy(keep + 1, &folded, 4);
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(rx, {"RX", id(ProtoId::RX), kL4Udp, kMaxDpiPackets, classify_rx});

}  // namespace fg
