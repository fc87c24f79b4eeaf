// ④ AliCloud (Alibaba Cloud's agent channel, TCP), as nDPI recognises it:
// a 0xcefabeba magic, then a 32-bit PDU length that either covers the rest
// of the packet or, on an 8-byte header-only packet, is non-zero.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_alicloud(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 8) return Verdict::No;
  if (load_be32(b.data()) == 0xcefabeba) {
    uint32_t len = load_be32(b.data() + 4);
    if ((b.size() == 8 && len > 0) || len == b.size() - 8) {
      m.app = id(ProtoId::AliCloud);
      return Verdict::Match;
    }
  }
  return c.flow.dpi_packets > 3 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(alicloud, {"AliCloud", id(ProtoId::AliCloud), kL4Tcp, 4, classify_alicloud});

}  // namespace fg
