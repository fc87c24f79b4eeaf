// ④ HiSLIP, IVI-6.1 High-Speed LAN Instrument Protocol (§2.2, TCP port
// 4880): every message opens with a 16-octet header — prologue "HS",
// message type, control code, message parameter (32 bits), payload length
// (64 bits, big-endian) — then the payload.
// nDPI reads the flow's first payload segment on any port: at least 16
// octets, "HS", the payload length equal to the rest of the segment, and a
// message-type test that, as nDPI evaluates it (a signed subtraction),
// accepts every type below 127: the standard types 0-26 and more, not the
// vendor-specific 128-255. A segment holding several messages is not named.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 16;

Verdict classify_hislip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader || b[0] != 'H' || b[1] != 'S' || b[2] >= 127) return Verdict::No;
  const uint64_t len = uint64_t(load_be32(b.data() + 8)) << 32 | load_be32(b.data() + 12);
  if (len != b.size() - kHeader) return Verdict::No;
  m.app = id(ProtoId::HiSLIP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(hislip, {"HiSLIP", id(ProtoId::HiSLIP), kL4Tcp, 1, classify_hislip});

}  // namespace fg
