// ④ Warcraft III on Battle.net (BNETDocs: the BNCS and W3GS message
// headers), TCP or UDP. A Battle.net client opens its TCP connection with
// the one-byte protocol selector 0x01 (game), then sends BNCS messages:
// 0xFF, message id, 16-bit little-endian length counting the 4-byte header.
// Game traffic (W3GS, LAN games over UDP and TCP) uses the same header
// with 0xF7 first.
// nDPI: a 1-byte 0x01 is allowed as the flow's first payload packet; any
// other packet must open with 0xFF or 0xF7, its length field pointing past
// its end is fine only if 0xF7 messages (length 3..1500) follow back to
// back and end exactly at the payload's end. Any packet breaking that rules
// the flow out; the third payload packet (either way) that keeps it names
// the flow. No port is required. The walk's offset is kept in 32 bits
// (nDPI's 16 could only wrap on payloads near 64 KiB).
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint8_t kBncs = 0xff, kW3gs = 0xf7;
constexpr uint8_t kSelectorGame = 0x01;
constexpr uint32_t kMaxMessage = 1500;

// The payload is a 0xFF/0xF7 message followed by whole 0xF7 messages.
bool messages_fill(Bytes b) {
  const size_t n = b.size();
  if (n < 4 || (b[0] != kBncs && b[0] != kW3gs)) return false;
  size_t at = load_le16(b.data() + 2);
  while (at + 4 <= n && b[at] == kW3gs) {
    const uint32_t len = load_le16(b.data() + at + 2);
    if (len <= 2 || len > kMaxMessage) break;
    at += len;
  }
  return at == n;
}

Verdict classify_warcraft3(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (c.flow.dpi_packets == 1 && b.size() == 1 && b[0] == kSelectorGame) return Verdict::NeedMore;
  if (!messages_fill(b)) return Verdict::No;
  if (c.flow.dpi_packets <= 2) return Verdict::NeedMore;
  m.app = id(ProtoId::Warcraft3);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(warcraft3, {"Warcraft3", id(ProtoId::Warcraft3), kL4Both, kMaxDpiPackets, classify_warcraft3});

}  // namespace fg
