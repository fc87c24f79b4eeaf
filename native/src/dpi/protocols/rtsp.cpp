// ④ RTSP (TCP), as nDPI reads it. Any packet whose first line (up to the
// first CRLF; none without one) ends with "RTSP/1.0", or whose Accept or
// Content-Type value ends with "application/x-rtsp-tunnelled" (RTSP over an
// HTTP tunnel), is RTSP, kept under the flow's master or, without one, its
// current protocol (nDPI's ndpi_set_detected_protocol_keeping_master):
// HTTP.RTSP when asked as HTTP's sub-protocol. Otherwise the first
// payload packet's direction is noted: a packet of the other direction of
// more than 20 bytes that opens with "RTSP/1.0 " or holds "rtsp://" in its
// first 31 bytes (before a NUL) names the flow; the first direction may
// send one more packet while the flow has fewer than three; anything else
// rules RTSP out (three packets at most).
// Differences kept: nDPI notes the first packet's direction in the flow;
// no scratch byte is left for it, so the client's direction stands in for
// it (the client speaks first in RTSP). nDPI also runs this dissector on
// UDP, waiting there while RTP or RTCP are still candidates; this one is
// TCP only.
#include <strings.h>

#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr char kTunnelled[] = "application/x-rtsp-tunnelled";

// nDPI's Accept line or its content line (Content-type, cut at ';') ends
// with the tunnelling type; one pass over the lines for both.
bool tunnelled(Bytes b) {
  HeaderValue h[] = {{"Accept:"}, {"Content-type:"}};
  ndpi_header_values(b, h);
  const char* ct;
  size_t ct_len;
  return (h[0].found && value_ends(h[0].value, h[0].len, kTunnelled)) ||
         (h[1].found && ndpi_content_cut(h[1].value, h[1].len, ct, ct_len) && value_ends(ct, ct_len, kTunnelled));
}

bool first_line_rtsp(Bytes b) {
  bool hit = false;
  each_ndpi_line(b, [&](const char* l, size_t n) {
    hit = value_ends(l, n, "RTSP/1.0");
    return true;  // the first line only
  });
  return hit;
}

// "rtsp://" within the first 31 bytes, before any NUL.
bool rtsp_url_near_start(Bytes b) {
  size_t n = b.size() < 31 ? b.size() : 31;
  if (const void* nul = std::memchr(b.data(), 0, n)) n = size_t(static_cast<const uint8_t*>(nul) - b.data());
  return contains(b.first(n), "rtsp://");
}

Verdict classify_rtsp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool hit = first_line_rtsp(b) || tunnelled(b);
  if (!hit) {
    if (c.flow.dpi_packets == 1) return Verdict::NeedMore;  // the first direction is noted
    if (c.from_client) return c.flow.dpi_packets < 3 ? Verdict::NeedMore : Verdict::No;
    hit = b.size() > 20 && (has_at(b, 0, "RTSP/1.0 ") || rtsp_url_near_start(b));
    if (!hit) return Verdict::No;
  }
  m.master = c.flow.l7_master ? c.flow.l7_master : c.flow.l7_app;
  m.app = id(ProtoId::RTSP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rtsp, {"RTSP", id(ProtoId::RTSP), kL4Tcp, 3, classify_rtsp});

}  // namespace fg
