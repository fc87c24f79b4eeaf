// ④ RTSP: a request line ending in " RTSP/1.0" (or 2.0) — its methods
// overlap HTTP's (OPTIONS), so the version decides — or an answer starting
// "RTSP/1.0 ".
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_rtsp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 9) return b.empty() ? Verdict::NeedMore : Verdict::No;
  if (has_at(b, 0, "RTSP/1.0 ") || has_at(b, 0, "RTSP/2.0 ")) {
    m.app = id(ProtoId::RTSP);
    return Verdict::Match;
  }
  if (b[0] < 'A' || b[0] > 'Z') return Verdict::No;
  const size_t limit = b.size() < 1024 ? b.size() : 1024;
  for (size_t i = 1; i + 1 < limit; i++) {
    if (b[i] != '\r' || b[i + 1] != '\n') continue;
    if (i >= 9 && (has_at(b, i - 9, " RTSP/1.0") || has_at(b, i - 9, " RTSP/2.0"))) {
      m.app = id(ProtoId::RTSP);
      return Verdict::Match;
    }
    return Verdict::No;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(rtsp, {"RTSP", id(ProtoId::RTSP), kL4Tcp, 2, classify_rtsp});

}  // namespace fg
