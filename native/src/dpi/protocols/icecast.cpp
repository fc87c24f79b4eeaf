// ④ Icecast streaming (icecast.org docs; the SOURCE method of its source
// protocol, the "ice-*" stream headers; the server's "Server: Icecast x.y"),
// TCP on any port, as nDPI tells it:
// - a client packet under 500 bytes opening with "SOURCE " (a source client
//   feeding a mount point) whose LF-terminated lines include one longer than
//   4 bytes starting "ice-" (ice-name, ice-public …); when that packet holds
//   no complete line at all, the next packets are searched for it too;
// - otherwise client packets are waited through (up to the 9th payload
//   packet) and the server's first answer decides: a Server header (CRLF
//   lines, name in any case) whose value starts "Icecast" with more after.
// A GET to an Icecast server is named HTTP first (by the HTTP dissector, as
// in nDPI, where Icecast is no HTTP sub-protocol).
// Difference: when a SOURCE packet holds no complete line, nDPI searches the
// flow's next packets (either way) for the "ice-" line; we are stateless
// (our group's one scratch byte is RTMP's / BFCP's, and a later packet cannot
// tell whose it is), so only packets that open with "SOURCE " are searched.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr size_t kMaxLines = 63;  // nDPI's line table (64) less the open line

// An LF-terminated line (CR before the LF dropped) longer than 4 bytes that
// starts "ice-".
bool ice_line(Bytes b) {
  size_t start = 0, lines = 0;
  for (size_t i = 0; i < b.size() && lines < kMaxLines; i++) {
    if (b[i] != '\n') continue;
    size_t len = i - start;
    if (len && b[i - 1] == '\r') len--;
    if (len > 4 && has_at(b, start, "ice-")) return true;
    start = i + 1, lines++;
  }
  return false;
}

// The last "Server:" header among the CRLF lines (none when the packet has
// no CRLF), its value without surrounding spaces, starts "Icecast" and has
// more after it.
bool icecast_server(Bytes b) {
  const char* v;
  size_t n;
  return ndpi_header_value(b, "Server:", v, n) && n > 7 && std::memcmp(v, "Icecast", 7) == 0;
}

Verdict classify_icecast(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool source = b.size() >= 7 && b.size() < 500 && has_at(b, 0, "SOURCE ");
  if (source && ice_line(b)) {
    m.app = id(ProtoId::IceCast);
    return Verdict::Match;
  }
  if (c.from_client) return c.flow.dpi_packets < 10 ? Verdict::NeedMore : Verdict::No;
  if (!icecast_server(b)) return Verdict::No;
  m.app = id(ProtoId::IceCast);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(icecast, {"IceCast", id(ProtoId::IceCast), kL4Tcp, 10, classify_icecast});

}  // namespace fg
