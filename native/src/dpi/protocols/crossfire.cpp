// ④ CrossFire (Smilegate's shooter), UDP and TCP. Undocumented; nDPI's two
// observed forms, kept exactly, on any port:
// - UDP: a 25-byte datagram opening C7 D9 19 99 02 00, with 7D 00 at
//   offset 22;
// - TCP: the launcher's HTTP request for its login notice (RFC 9112 §3
//   request line, §5 header fields): "GET /notice/login_big…" or
//   "GET /notice/login_small…", a request line of at least 30 bytes ending
//   "/index.asp HTTP/1.x", a Host of at least 13 characters starting
//   "crossfire" or "www.crossfire", and exactly 8 lines as nDPI's line
//   parser counts them (every CRLF ends one, the text after the last is one
//   more: a request line, 5 header fields and the blank line). HTTP names
//   the request first; CrossFire is asked next as its sub-protocol.
// Anything else rules the flow out, so the first packet decides.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

// nDPI's line table of the packet (http_sub.h): its count, the request
// line's length and the last Host value.
bool login_notice(Bytes b) {
  if (b.size() <= 4 || !has_at(b, 0, "GET /")) return false;
  const NdpiLines& l = ndpi_lines(b);
  if (l.n != 8 || l.len[0] < 30) return false;
  if (!has_at(b, 5, "notice/login_big") && !has_at(b, 5, "notice/login_small")) return false;
  if (!has_at(b, l.len[0] - 19, "/index.asp HTTP/1.")) return false;
  HeaderValue h[] = {{"Host:"}};  // never the request line, which opens "GET /"
  ndpi_header_values(b, h);
  const std::string_view host(h[0].value, h[0].len);
  return host.size() >= 13 && (host.substr(0, 9) == "crossfire" || host.substr(0, 13) == "www.crossfire");
}

Verdict classify_crossfire(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  bool hit;
  if (c.p.l4_proto == kProtoUdp) {
    const uint8_t* p = b.data();
    hit = b.size() == 25 && load_be32(p) == 0xc7d91999 && load_be16(p + 4) == 0x0200 && load_be16(p + 22) == 0x7d00;
  } else {
    hit = login_notice(b);
  }
  if (!hit) return Verdict::No;
  m.app = id(ProtoId::Crossfire);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(crossfire, {"Crossfire", id(ProtoId::Crossfire), kL4Both, 1, classify_crossfire});

}  // namespace fg
