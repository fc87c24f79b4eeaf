// ④ AMQP 0-9-1 (TCP), as nDPI recognises it: a frame header (type up to 3,
// channel, 32-bit size under 32 KiB that, with the 8 bytes of framing,
// covers the packet), then a method frame's class 10–110 (connection …
// tunnel) and method up to 120. nDPI keeps looking for up to 5 packets.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_amqp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() > 11 && b[0] <= 3) {
    uint32_t len = load_be32(b.data() + 3);
    uint16_t cls = load_be16(b.data() + 7), method = load_be16(b.data() + 9);
    if (uint64_t(len) + 8 >= b.size() && len < 32768 && cls >= 10 && cls <= 110 && method <= 120) {
      m.app = id(ProtoId::AMQP);
      return Verdict::Match;
    }
  }
  return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(amqp, {"AMQP", id(ProtoId::AMQP), kL4Tcp, 6, classify_amqp});

}  // namespace fg
