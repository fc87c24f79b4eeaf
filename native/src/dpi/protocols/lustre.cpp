// ④ Lustre (LNet over TCP, IPv4 only): the socket LND hello carries a
// little-endian magic (0x45726963 or 0xacce7100) and, at offset 8, the
// destination's IPv4 address; mid-stream, an LNet message (type 0xc1) names
// the destination at offset 24 and its payload length at offset 52, the
// rest of the segment after a 96-byte header.
#include "dpi/dpi.h"

namespace fg {
namespace {

uint32_t le32(const uint8_t* p) { return p[0] | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

Verdict classify_lustre(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.p.dst.is_v4() || b.size() < 16) return Verdict::No;
  uint32_t dst = c.p.dst.v4();
  uint32_t magic = le32(b.data());
  bool ok = (magic == 0x45726963 || magic == 0xacce7100) && le32(b.data() + 8) == dst;
  if (!ok && b.size() >= 96 && magic == 0xc1)
    ok = le32(b.data() + 24) == dst && le32(b.data() + 52) == b.size() - 96;
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::Lustre);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(lustre, {"Lustre", id(ProtoId::Lustre), kL4Tcp, 1, classify_lustre});

}  // namespace fg
