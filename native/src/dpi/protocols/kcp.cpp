// ④ KCP (reliable ARQ over UDP or TCP), as nDPI recognises it: a 24-byte
// segment header whose command (byte 4) is PUSH, ACK, WASK or WINS (81–84)
// and whose little-endian data length (offset 20) covers the rest exactly.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 24;

Verdict classify_kcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kHeader || b[4] < 81 || b[4] > 84) return Verdict::No;
  if (uint64_t(load_le32(b.data() + 20)) + kHeader != b.size()) return Verdict::No;
  m.app = id(ProtoId::KCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(kcp, {"KCP", id(ProtoId::KCP), kL4Both, 1, classify_kcp});

}  // namespace fg
