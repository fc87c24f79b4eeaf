// ④ RTSP: a request line ending in " RTSP/1.0" (or 2.0) — its methods
// overlap HTTP's (OPTIONS), so the version decides — or an answer starting
// "RTSP/1.0 ".
#include <cstring>

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
  // the request line ends at the first CRLF (within 1 KB)
  const size_t limit = b.size() < 1024 ? b.size() : 1024;
  const void* cr = std::memchr(b.data() + 1, '\r', limit - 1);
  if (!cr) return Verdict::No;
  const size_t i = size_t(static_cast<const uint8_t*>(cr) - b.data());
  if (i + 1 >= limit || b[i + 1] != '\n') return Verdict::No;
  if (i >= 9 && (has_at(b, i - 9, " RTSP/1.0") || has_at(b, i - 9, " RTSP/2.0"))) {
    m.app = id(ProtoId::RTSP);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(rtsp, {"RTSP", id(ProtoId::RTSP), kL4Tcp, 2, classify_rtsp});

}  // namespace fg
