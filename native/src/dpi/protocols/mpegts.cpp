// ④ MPEG transport stream over UDP: the datagram is a whole number of
// 188-byte packets, each starting with the 0x47 sync byte, as nDPI checks.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kTsPacket = 188;

Verdict classify_mpegts(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() == 0 || b.size() % kTsPacket != 0) return Verdict::No;
  for (size_t off = 0; off < b.size(); off += kTsPacket)
    if (b[off] != 0x47) return Verdict::No;
  m.app = id(ProtoId::MPEG_TS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mpegts, {"MPEG_TS", id(ProtoId::MPEG_TS), kL4Udp, 1, classify_mpegts});

}  // namespace fg
