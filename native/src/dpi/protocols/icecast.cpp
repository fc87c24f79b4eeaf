// ④ Icecast streaming (icecast.org docs; the SOURCE method of its source
// protocol, the "ice-*" stream headers; the server's "Server: Icecast x.y"),
// TCP on any port, IPv4 or IPv6, as nDPI's icecast.c tells it on each
// payload segment:
// - a segment of 7 to 499 bytes opening with "SOURCE " (a source client
//   feeding a mount point), either way, is searched for a line longer than
//   4 bytes starting "ice-" (ice-name, ice-public …): one names the flow;
//   when it holds no line at all, every later segment (either way) is
//   searched too;
// - otherwise client segments are waited through up to the flow's 9th
//   payload packet, and a segment of the server decides: a Server header
//   whose value starts "Icecast" with more after names the flow; anything
//   else rules Icecast out.
// The lines are nDPI's CRLF split (http_sub.h): nDPI's Icecast would split
// at LF, but only a packet no dissector split before; RTSP, asked before it
// on every packet while a candidate (the flow's first ones at least), has
// always split it at CRLF already, and Icecast reads that split.
// A GET to an Icecast server is named HTTP first (by the HTTP dissector, as
// in nDPI, where Icecast is no HTTP sub-protocol).
// State: bit 7 of kScratchTcpBits (dpi.h): a SOURCE segment without lines
// was seen.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr uint8_t kStageBit = 0x80;

// Whether the packet has lines at all; `ice` set when one longer than 4
// bytes starts "ice-".
bool lines(Bytes b, bool& ice) {
  ice = false;
  bool any = false;
  each_ndpi_line(b, [&](const char* l, size_t n) {
    any = true;
    ice = n > 4 && std::memcmp(l, "ice-", 4) == 0;
    return ice;
  });
  return any;
}

// The Server header's value (nDPI's server line) starts "Icecast" and has
// more after it.
bool icecast_server(Bytes b) {
  const char* v;
  size_t n;
  return ndpi_header_value(b, "Server:", v, n) && n > 7 && std::memcmp(v, "Icecast", 7) == 0;
}

Verdict classify_icecast(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* bits = c.scratch(kScratchTcpBits);
  const bool staged = bits && (*bits & kStageBit);
  if (staged || (b.size() >= 7 && b.size() < 500 && has_at(b, 0, "SOURCE "))) {
    bool ice;
    const bool any = lines(b, ice);
    if (ice) {
      m.app = id(ProtoId::IceCast);
      return Verdict::Match;
    }
    if (!any && !staged && bits) {
      *bits |= kStageBit;
      return Verdict::NeedMore;
    }
  }
  if (c.from_client) return c.flow.dpi_packets < 10 ? Verdict::NeedMore : Verdict::No;
  if (!icecast_server(b)) return Verdict::No;
  m.app = id(ProtoId::IceCast);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(icecast, {"IceCast", id(ProtoId::IceCast), kL4Tcp, 10, classify_icecast});

}  // namespace fg
