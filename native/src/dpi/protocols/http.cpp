// ④ HTTP/1.x requests (RFC 9112): the Host header names the server.
#include <strings.h>

#include <cstring>

#include "dpi/dpi.h"
#include "dpi/names.h"

namespace fg {
namespace {

bool starts_with_method(Bytes b) {
  static const char* const kMethods[] = {"GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT "};
  for (const char* m : kMethods) {
    size_t n = std::strlen(m);
    if (b.size() >= n && std::memcmp(b.data(), m, n) == 0) return true;
  }
  return false;
}

}  // namespace

bool http_request_host(Bytes b, const char*& name, size_t& len) {
  if (!starts_with_method(b)) return false;
  const char* s = reinterpret_cast<const char*>(b.data());
  size_t n = b.size();
  for (size_t i = 0; i + 7 < n; i++) {
    if (s[i] != '\n') continue;
    if (i + 1 < n && (s[i + 1] == '\r' || s[i + 1] == '\n')) return false;  // end of headers
    if (strncasecmp(s + i + 1, "host:", 5) != 0) continue;
    size_t v = i + 6;
    while (v < n && (s[v] == ' ' || s[v] == '\t')) v++;
    size_t e = v;
    while (e < n && s[e] != '\r' && s[e] != '\n') e++;
    while (e > v && (s[e - 1] == ' ' || s[e - 1] == '\t')) e--;  // RFC 9112 §5: optional whitespace
    // Drop a port, but not the colons of a bracketed IPv6 literal.
    size_t colon = e;
    for (size_t k = v; k < e; k++) {
      if (s[k] == ']') colon = e;
      else if (s[k] == ':') colon = k;
    }
    if (v == e) return false;
    if (s[v] != '[') e = colon;
    name = s + v;
    len = e - v;
    return plausible_name(name, len);
  }
  return false;
}

}  // namespace fg

// Classification: a request line from the client (or a status line from
// the server); the Host header names the app (HTTP.YouTube).
namespace fg {
namespace {

bool status_line(Bytes b) { return b.size() >= 9 && std::memcmp(b.data(), "HTTP/1.", 7) == 0; }

Verdict classify_http(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.from_client) {
    if (!starts_with_method(b)) return Verdict::No;
    const char* host = nullptr;
    size_t len = 0;
    if (!http_request_host(b, host, len)) len = 0;
    c.match_named(m, id(ProtoId::HTTP), host, len);
    return Verdict::Match;
  }
  if (status_line(b)) {
    m.app = id(ProtoId::HTTP);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(http, {"HTTP", id(ProtoId::HTTP), kL4Tcp, 4, classify_http});

}  // namespace fg
