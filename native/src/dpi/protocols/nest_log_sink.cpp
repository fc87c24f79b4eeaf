// ④ Nest Log Sink: Google Nest devices' log upload to TCP port 11095 (a
// vendor protocol with no public document; nDPI's rule): on that port,
// payloads of at least 8 bytes whose header reads byte 1 ≤ 2, byte 2 0x00 or
// 0x10 and byte 3 0x13; the third such packet names the flow. Packets of
// another shape in between are skipped, a shorter one or another port rules
// it out.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kPort = 11095;
constexpr size_t kMinLen = 8;
constexpr uint8_t kMatches = 3;

Verdict classify_nest_log_sink(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < kMinLen || (c.cli_port != kPort && c.srv_port != kPort)) return Verdict::No;
  uint8_t* seen = c.scratch(kScratchNestLogSink);
  if (!seen) return Verdict::No;
  if (b[1] <= 0x02 && (b[2] == 0x00 || b[2] == 0x10) && b[3] == 0x13 && ++*seen == kMatches) {
    m.app = id(ProtoId::NestLogSink);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(nest_log_sink, {"NestLogSink", id(ProtoId::NestLogSink), kL4Tcp, kMaxDpiPackets, classify_nest_log_sink});

}  // namespace fg
