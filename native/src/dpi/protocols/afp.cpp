// ④ AFP over TCP (Apple Filing Protocol, "AFP over TCP" in Apple's AFP
// Programming Guide: the Data Stream Interface, DSI, header of 16 bytes —
// flags (0 request, 1 reply), command (1 DSICloseSession … 8
// DSIAttention), request id, data offset / error code, total data length,
// reserved 0), port 548 usually.
// nDPI's rule, kept, on any port: a payload of 16 to 128 bytes whose DSI
// header has flags 0 or 1, a command 1..8, reserved 0 and a data length the
// payload holds names AFP; one over 128 bytes (bulk data, no sign either
// way) is passed over until the 6th payload packet, after which it rules AFP
// out; any other payload rules it out at once.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kDsiHeader = 16, kMaxSmall = 128;

Verdict classify_afp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kDsiHeader) return Verdict::No;
  if (b.size() > kMaxSmall) return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
  const uint8_t flags = b[0], command = b[1];
  const uint32_t data_len = load_be32(b.data() + 8), reserved = load_be32(b.data() + 12);
  if (flags > 1 || command < 1 || command > 8 || reserved != 0 || data_len > b.size() - kDsiHeader) return Verdict::No;
  m.app = id(ProtoId::AFP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(afp, {"AFP", id(ProtoId::AFP), kL4Tcp, kMaxDpiPackets, classify_afp});

}  // namespace fg
