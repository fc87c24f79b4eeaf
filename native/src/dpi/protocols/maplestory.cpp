// ④ MapleStory (TCP, IPv4 and IPv6), nDPI's maplestory.c: the first
// payload packet decides (named or ruled out).
// - The game's 16-byte hello: 0x0e003a00, 0x0e003b00 or 0x0e004200, then
//   0x0100 and '2' or '3'.
// - Its HTTP updater, the request opening "GET /maple" and longer than
//   that: when longer than "GET /maple/patch" with '/' after "maple",
//   "patch" must follow it, the User-Agent be exactly "Patcher" and the Host
//   longer than and opening "patch."; otherwise "story/" must follow
//   "GET /maple" and the User-Agent be exactly "AspINet". Header values as
//   nDPI's line parser keeps them (http_sub.h: CRLF lines, the last line of
//   a name wins, spaces trimmed).
// HTTP names such a request first; MapleStory, one of HTTP's sub-protocols,
// is asked next on the same packet and renames the flow (classify.cpp).
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

Verdict hit(Match& m) {
  m.app = id(ProtoId::MapleStory);
  return Verdict::Match;
}

Verdict classify_maplestory(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const uint8_t* p = b.data();
  if (b.size() == 16) {
    const uint32_t w = load_be32(p);
    if ((w == 0x0e003a00 || w == 0x0e003b00 || w == 0x0e004200) && load_be16(p + 4) == 0x0100 && (p[6] == '2' || p[6] == '3'))
      return hit(m);
  }
  constexpr std::string_view kGet = "GET /maple";
  if (b.size() <= kGet.size() || !has_at(b, 0, kGet)) return Verdict::No;
  HeaderValue h[] = {{"User-agent:"}, {"Host:"}};
  ndpi_header_values(b, h);
  const std::string_view ua(h[0].value, h[0].len), host(h[1].value, h[1].len);
  if (b.size() > kGet.size() + 6 && b[kGet.size()] == '/') {  // longer than "GET /maple/patch"
    if (has_at(b, 11, "patch") && ua == "Patcher" && host.size() > 6 && host.substr(0, 6) == "patch.") return hit(m);
  } else if (has_at(b, kGet.size(), "story/") && ua == "AspINet") {
    return hit(m);
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(maplestory, {"MapleStory", id(ProtoId::MapleStory), kL4Tcp, 1, classify_maplestory});

}  // namespace fg
