// ④ RTMP (Adobe RTMP specification 1.0, §5.2 handshake), TCP on any port:
// the client opens with C0 (version byte 3) and C1 (1536 bytes), 1537 bytes
// in all, possibly over several segments; the server answers with S0, also
// 3. nDPI looks only at flows seen from their handshake: the first payload
// packet must start with 3; it adds up that direction's payload while it
// stays within 1537 bytes, and names RTMP when the other direction answers
// with 3 after exactly 1537 bytes. Anything else rules it out.
// Differences (one scratch byte where nDPI keeps a stage and a 16-bit
// total): we keep the client's total modulo 256 and rule out totals that
// the bytes the client direction carried on the wire (at least 40 or 60
// bytes of IP and TCP headers per packet) cannot reach; a total over 1537
// that is 1537 modulo 256 would still match, and a client that keeps
// sending more than 1537 bytes is ruled out only after kMaxPackets. nDPI
// also follows a server that speaks first with 3; we rule that out (RTMP's
// client always speaks first).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// Our group's one scratch byte: the flow is RTMP's candidate only while its
// first payload byte was 3 (no BFCP header starts so).
constexpr auto kSlot = kScratchRtmp;
constexpr uint32_t kC0C1 = 1537;
constexpr uint8_t kMaxPackets = 8;

Verdict classify_rtmp(DpiCtx& c, Match& m) {
  if (!c.flow.saw_syn) return Verdict::No;  // not seen from its beginning
  Bytes b = c.payload;
  uint8_t* total = c.scratch(kSlot);
  if (!total || b.empty()) return Verdict::No;
  if (c.flow.dpi_packets <= 1) {
    if (b[0] != 3 || !c.from_client || b.size() > kC0C1) return Verdict::No;
    *total = uint8_t(b.size());
    return Verdict::NeedMore;
  }
  if (c.from_client) {  // more of C0 + C1
    if (b.size() > kC0C1) return Verdict::No;
    *total = uint8_t(*total + b.size());
    return Verdict::NeedMore;
  }
  // The server's first payload: S0 after exactly C0 + C1.
  if (b[0] != 3 || *total != uint8_t(kC0C1)) return Verdict::No;
  const uint64_t headers = uint64_t(c.flow.pkts[0]) * (c.p.ip_version == 6 ? 60 : 40);
  if (c.flow.bytes[0] < headers + kC0C1) return Verdict::No;
  m.app = id(ProtoId::RTMP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rtmp, {"RTMP", id(ProtoId::RTMP), kL4Tcp, kMaxPackets, classify_rtmp});

}  // namespace fg
