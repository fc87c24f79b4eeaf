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
#include <strings.h>
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

struct Lines {
  size_t count = 0;       // nDPI's parsed_lines
  size_t first_len = 0;   // the request line's length
  std::string_view host;  // the last Host field's value, spaces stripped
};

// The payload split at CRLF as nDPI's line parser does it.
Lines http_lines(Bytes b) {
  constexpr std::string_view kHost = "Host:";
  const char* s = reinterpret_cast<const char*>(b.data());
  const size_t n = b.size();
  Lines out;
  auto line = [&](size_t start, size_t end) {
    if (out.count == 0) {
      out.first_len = end - start;
      return;
    }
    if (end - start <= kHost.size() || strncasecmp(s + start, kHost.data(), kHost.size()) != 0) return;
    size_t v = start + kHost.size(), e = end;
    while (v < e && s[v] == ' ') v++;
    while (e > v && s[e - 1] == ' ') e--;
    out.host = std::string_view(s + v, e - v);
  };
  size_t start = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    const void* cr = std::memchr(s + i, '\r', n - 1 - i);
    if (!cr) break;
    i = size_t(static_cast<const char*>(cr) - s);
    if (s[i + 1] != '\n') continue;
    line(start, i);
    out.count++;
    start = i + 2;
    i++;
  }
  if (out.count) {
    line(start, n);
    out.count++;
  }
  return out;
}

bool login_notice(Bytes b) {
  if (b.size() <= 4 || !has_at(b, 0, "GET /")) return false;
  const Lines l = http_lines(b);
  if (l.count != 8 || l.first_len < 30) return false;
  if (!has_at(b, 5, "notice/login_big") && !has_at(b, 5, "notice/login_small")) return false;
  if (!has_at(b, l.first_len - 19, "/index.asp HTTP/1.")) return false;
  return l.host.size() >= 13 && (l.host.substr(0, 9) == "crossfire" || l.host.substr(0, 13) == "www.crossfire");
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
