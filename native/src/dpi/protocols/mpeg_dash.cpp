// ④ MPEG-DASH (ISO/IEC 23009-1) over HTTP, as nDPI names it: an HTTP
// sub-protocol, judged on the packet that named the flow HTTP (nDPI asks it
// right after its HTTP dissector matched), among that packet's CRLF lines:
// the first line ending ".mp4 HTTP/1.1", ".m4s HTTP/1.1" (a segment request)
// or "RTSP/1.0", or, before the blank line, a line starting "Content-Type:"
// and ending "video/mp4" or a line starting "DASH" — all case as written.
// Named Master.MpegDash, the master being the flow's (HTTP). On a flow not
// (yet) HTTP it waits two payload packets, then gives up, as nDPI does.
// (Called on it as one of HTTP's sub-protocols, classify.cpp's list.)
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

bool ends_with(Bytes b, size_t at, size_t len, std::string_view s) { return len >= s.size() && has_at(b, at + len - s.size(), s); }

Verdict classify_mpeg_dash(DpiCtx& c, Match& m) {
  const uint16_t http = id(ProtoId::HTTP);
  if (c.flow.l7_app != http && c.flow.l7_master != http) return c.flow.dpi_packets > 2 ? Verdict::No : Verdict::NeedMore;
  Bytes b = c.payload;
  bool hit = false;
  size_t lines = 0;
  // nDPI's HTTP line table (http_sub.h), up to the blank line ending the headers.
  each_ndpi_line(b, [&](const char* l, size_t len) {
    if (len == 0) return true;
    const size_t start = size_t(reinterpret_cast<const uint8_t*>(l) - b.data());
    if (lines++ == 0 && (ends_with(b, start, len, "RTSP/1.0") || ends_with(b, start, len, ".mp4 HTTP/1.1") ||
                         ends_with(b, start, len, ".m4s HTTP/1.1")))
      hit = true;
    if ((has_at(b, start, "Content-Type:") && len >= 13 && ends_with(b, start, len, "video/mp4")) ||
        (len >= 4 && has_at(b, start, "DASH")))
      hit = true;
    return hit;
  });
  if (!hit) return Verdict::No;
  m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  m.app = id(ProtoId::MpegDash);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(mpeg_dash, {"MpegDash", id(ProtoId::MpegDash), kL4Tcp, 3, classify_mpeg_dash});

}  // namespace fg
