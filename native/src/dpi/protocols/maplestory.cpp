// ④ MapleStory (TCP). The game's 16-byte hello (0x0e003a00, 0x0e003b00 or
// 0x0e004200, then 0x0100 and '2' or '3'), or its HTTP updater: "GET
// /maple/patch…" with User-Agent "Patcher" from a "patch.…" host, or "GET
// /maplestory/…" with User-Agent "AspINet". Registered before HTTP, which
// would otherwise take the request.
#include <strings.h>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// The value of header `name` (lower case, with its colon), or an empty view.
std::string_view header(Bytes b, std::string_view name) {
  const char* s = reinterpret_cast<const char*>(b.data());
  const size_t n = b.size();
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\n' || n - (i + 1) < name.size() || strncasecmp(s + i + 1, name.data(), name.size()) != 0) continue;
    size_t v = i + 1 + name.size();
    while (v < n && s[v] == ' ') v++;
    size_t e = v;
    while (e < n && s[e] != '\r' && s[e] != '\n') e++;
    return {s + v, e - v};
  }
  return {};
}

Verdict classify_maplestory(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint8_t* p = b.data();
  if (b.size() == 16) {
    uint32_t w = load_be32(p);
    if ((w == 0x0e003a00 || w == 0x0e003b00 || w == 0x0e004200) && load_be16(p + 4) == 0x0100 && (p[6] == '2' || p[6] == '3')) {
      m.app = id(ProtoId::MapleStory);
      return Verdict::Match;
    }
  }
  if (b.size() <= 10 || !has_at(b, 0, "GET /maple")) return Verdict::No;
  const std::string_view ua = header(b, "user-agent:");
  bool hit;
  if (b.size() > 16 && b[10] == '/') {
    const std::string_view host = header(b, "host:");
    hit = has_at(b, 11, "patch") && ua == "Patcher" && host.size() > 6 && host.substr(0, 6) == "patch.";
  } else {
    hit = has_at(b, 10, "story/") && ua == "AspINet";
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::MapleStory);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(maplestory, {"MapleStory", id(ProtoId::MapleStory), kL4Tcp, 1, classify_maplestory});

}  // namespace fg
