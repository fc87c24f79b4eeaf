// ④ RTMP (Adobe RTMP specification 1.0, §5.2 handshake), TCP on any port:
// one side opens with C0 (version byte 3) and C1 (1536 bytes), 1537 bytes
// in all, possibly over several segments; the other answers with S0, also
// 3. As nDPI's rtmp.c reads it:
// - only a flow seen from its three-way handshake is a candidate (else
//   ruled out at once);
// - the flow's first payload packet must open with 3: its nDPI direction
//   (ndpi_direction.h, not who opened the flow) becomes the opening side
//   and its length the count; any other first byte rules RTMP out;
// - each later packet of that side adds its length to a 16-bit count
//   (wrapping as nDPI's does) and waits while the count is at most 1537;
// - a packet of the other side opening with 3 after exactly 1537 bytes
//   names the flow; anything else (another first byte, another count, a
//   count past 1537) rules RTMP out.
// No packet budget of its own, as nDPI (the flow's window bounds it).
// State: the stage byte kScratchRtmp (side + 1, shared with BFCP: a flow
// whose first payload opens with 3 is never BFCP's candidate) and the count
// in kScratchRtmpLen (TCP flows only, dpi.h).
#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kC0C1 = 1537;

Verdict classify_rtmp(DpiCtx& c, Match& m) {
  if (!seen_flow_beginning(c)) return Verdict::No;
  Bytes b = c.payload;
  uint8_t* stage = c.scratch(kScratchRtmp);
  uint8_t* count = c.scratch(kScratchRtmpLen);
  if (!stage || !count || b.empty()) return Verdict::No;
  const uint8_t dir = ndpi_direction(c.p);
  if (*stage == 0) {
    if (b[0] != 3) return Verdict::No;
    *stage = uint8_t(dir + 1);
    const uint16_t n = uint16_t(b.size());
    count[0] = uint8_t(n), count[1] = uint8_t(n >> 8);
    return Verdict::NeedMore;
  }
  uint16_t n = uint16_t(count[0] | count[1] << 8);
  if (*stage == dir + 1) {  // more of the opening side
    n = uint16_t(n + b.size());
    count[0] = uint8_t(n), count[1] = uint8_t(n >> 8);
    if (n <= kC0C1) return Verdict::NeedMore;
  }
  if (b[0] != 3 || n != kC0C1) return Verdict::No;
  m.app = id(ProtoId::RTMP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rtmp, {"RTMP", id(ProtoId::RTMP), kL4Tcp, kMaxDpiPackets, classify_rtmp});

}  // namespace fg
