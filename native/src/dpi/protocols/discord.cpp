// ④ Discord voice, as nDPI recognises it (UDP): the 8-byte keep-alive
// 0x1337cafe, or IP discovery: a 74-byte request (type 0x0001, length 70)
// as the flow's first packet, answered by a 74-byte response (type 0x0002)
// carrying the client's public address.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_discord(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t n = c.flow.dpi_packets;
  if (b.size() == 8 && load_be32(b.data()) == 0x1337cafe) {
    m.app = id(ProtoId::Discord);
    return Verdict::Match;
  }
  if (b.size() == 74) {
    uint32_t w = load_be32(b.data());
    if (n == 1 && w == 0x00010046) return Verdict::NeedMore;
    if (n == 2 && w == 0x00020046) {
      m.app = id(ProtoId::Discord);
      return Verdict::Match;
    }
  }
  return n >= 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(discord, {"Discord", id(ProtoId::Discord), kL4Udp, 5, classify_discord});

}  // namespace fg
