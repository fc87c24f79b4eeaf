// ④ MPEG-DASH (ISO/IEC 23009-1) over HTTP, as nDPI names it: an HTTP
// sub-protocol, judged on the packet that named the flow HTTP (nDPI asks it
// right after its HTTP dissector matched), among that packet's CRLF lines:
// the first line ending ".mp4 HTTP/1.1", ".m4s HTTP/1.1" (a segment request)
// or "RTSP/1.0", or, before the blank line, a line starting "Content-Type:"
// and ending "video/mp4" or a line starting "DASH" — all case as written.
// Named Master.MpegDash, the master being the flow's (HTTP). On a flow not
// (yet) HTTP it waits two payload packets, then gives up, as nDPI does.
// The HTTP dissector (http.cpp) already names the first two forms itself;
// this one adds "RTSP/1.0" and "DASH" lines and nDPI's exact cases.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool ends_with(Bytes b, size_t at, size_t len, std::string_view s) { return len >= s.size() && has_at(b, at + len - s.size(), s); }

Verdict classify_mpeg_dash(DpiCtx& c, Match& m) {
  const uint16_t http = id(ProtoId::HTTP);
  if (c.flow.l7_app != http && c.flow.l7_master != http) return c.flow.dpi_packets > 2 ? Verdict::No : Verdict::NeedMore;
  Bytes b = c.payload;
  bool hit = false;
  size_t start = 0, lines = 0;
  // nDPI's HTTP line table: CRLF-ended lines, then the open last one when
  // there was at least one CRLF; 64 lines at most.
  for (size_t i = 0; i <= b.size() && lines < 64 && !hit; i++) {
    const bool crlf = i + 1 < b.size() && b[i] == '\r' && b[i + 1] == '\n';
    if (!crlf && !(i == b.size() && lines > 0)) continue;
    const size_t len = i - start;
    if (len == 0) break;  // the blank line ends the headers
    if (lines == 0 && (ends_with(b, start, len, "RTSP/1.0") || ends_with(b, start, len, ".mp4 HTTP/1.1") ||
                       ends_with(b, start, len, ".m4s HTTP/1.1")))
      hit = true;
    if ((has_at(b, start, "Content-Type:") && len >= 13 && ends_with(b, start, len, "video/mp4")) ||
        (len >= 4 && has_at(b, start, "DASH")))
      hit = true;
    if (!crlf) break;
    start = i + 2, i++, lines++;
  }
  if (!hit) return Verdict::No;
  m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  m.app = id(ProtoId::MpegDash);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mpeg_dash, {"MpegDash", id(ProtoId::MpegDash), kL4Tcp, 3, classify_mpeg_dash});

}  // namespace fg
