// ④ Source Engine server queries (Valve Developer Community, "Server
// queries": A2S_INFO). A client asks a game server for its details with a
// UDP datagram: the -1 header (FF FF FF FF), the request byte 'T' (0x54)
// and the NUL-terminated string "Source Engine Query".
// nDPI looks only at the datagram's tail, on any port and either way: at
// least 20 bytes, the last one NUL, the 19 before it "Source Engine Query".
// Anything else rules the flow out at once, so the first datagram decides.
// Like nDPI, the header and request byte are not read, and a request
// carrying the 4-byte challenge after the string (servers asking for one
// since late 2020) is not recognised.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr std::string_view kQuery = "Source Engine Query";

Verdict classify_source_engine(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (b.size() < kQuery.size() + 1 || b[b.size() - 1] != 0) return Verdict::No;
  if (!has_at(b, b.size() - 1 - kQuery.size(), kQuery)) return Verdict::No;
  m.app = id(ProtoId::Source_Engine);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(source_engine, {"Source_Engine", id(ProtoId::Source_Engine), kL4Udp, 1, classify_source_engine});

}  // namespace fg
