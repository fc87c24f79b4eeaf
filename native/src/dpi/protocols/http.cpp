// ④ HTTP/1.x requests (RFC 9112): the Host header names the server.
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

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

// WebDAV's methods (RFC 4918), which nDPI reports as HTTP.WebDAV.
bool webdav_method(Bytes b) {
  static const char* const kMethods[] = {"PROPFIND ", "PROPPATCH ", "MKCOL ", "COPY ", "MOVE ", "LOCK ", "UNLOCK "};
  for (const char* m : kMethods) {
    size_t n = std::strlen(m);
    if (b.size() >= n && std::memcmp(b.data(), m, n) == 0) return true;
  }
  return false;
}

}  // namespace

namespace {

// The Host header among the lines of b, starting with the line at `from`
// (0: b begins with a line, as a continuation segment does).
bool host_line(Bytes b, size_t from, const char*& name, size_t& len) {
  const char* s = reinterpret_cast<const char*>(b.data());
  size_t n = b.size();
  for (size_t i = from; i + 5 < n;) {
    if (s[i] == '\r' || s[i] == '\n') return false;  // end of headers
    if (strncasecmp(s + i, "host:", 5) == 0) {
      size_t v = i + 5;
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
    const void* nl = std::memchr(s + i, '\n', n - i);
    if (!nl) return false;
    i = size_t(static_cast<const char*>(nl) - s) + 1;
  }
  return false;
}

}  // namespace

bool http_request_host(Bytes b, const char*& name, size_t& len) {
  if (!starts_with_method(b) && !webdav_method(b)) return false;
  const void* nl = std::memchr(b.data(), '\n', b.size());
  return nl && host_line(b, size_t(static_cast<const uint8_t*>(nl) - b.data()) + 1, name, len);
}

}  // namespace fg

// Classification: a request line from the client (or a status line from
// the server); the Host header names the app (HTTP.YouTube). Metadata: the
// request line and User-Agent, then the response's status, Content-Type
// and Server (the first response packet).
namespace fg {
namespace {

bool status_line(Bytes b) { return b.size() >= 9 && std::memcmp(b.data(), "HTTP/1.", 7) == 0; }

// nDPI's request test (http_request_url_offset, is_request): a first byte
// among its methods' upper-case initials, then one of its methods in any
// case; the URL starts after the spaces that follow. A URL opening with
// "rtsp://" (compared over at most the bytes there are) is RTSP's, not a
// request. Returns the URL's offset, 0 when this is no request.
size_t request_url(Bytes b) {
  static constexpr std::string_view kMethods[] = {"GET ",      "POST ",       "OPTIONS ",    "HEAD ",        "PUT ",
                                                  "PATCH ",    "DELETE ",     "CONNECT ",    "PROPFIND ",    "PROPPATCH ",
                                                  "MKCOL ",    "MOVE ",       "COPY ",       "LOCK ",        "UNLOCK ",
                                                  "REPORT ",   "RPC_CONNECT ", "RPC_IN_DATA ", "RPC_OUT_DATA "};
  if (b.empty() || !std::memchr("CDGHLMOPRU", b[0], 10)) return 0;
  for (std::string_view m : kMethods) {
    if (!has_at_upper(b, 0, m)) continue;
    size_t u = m.size();
    while (u < b.size() && u < m.size() + 2048 && b[u] == ' ') u++;
    const size_t k = std::min<size_t>(7, b.size() - u);
    if (strncasecmp(reinterpret_cast<const char*>(b.data()) + u, "rtsp://", k) == 0) return 0;
    return u;
  }
  return 0;
}

// RPC over HTTP's methods (MS-RPCH 2.1.2.1): nDPI's HTTP.MS_RPCH.
bool rpch_method(Bytes b) { return has_at_upper(b, 0, "RPC_CONNECT ") || has_at_upper(b, 0, "RPC_IN_DATA ") || has_at_upper(b, 0, "RPC_OUT_DATA "); }

uint8_t method_of(Bytes b) {
  static const struct { const char* s; HttpMethod m; } kMethods[] = {
      {"GET ", HttpMethod::Get}, {"POST ", HttpMethod::Post}, {"HEAD ", HttpMethod::Head}, {"PUT ", HttpMethod::Put},
      {"DELETE ", HttpMethod::Delete}, {"OPTIONS ", HttpMethod::Options}, {"PATCH ", HttpMethod::Patch},
      {"CONNECT ", HttpMethod::Connect}};
  for (const auto& k : kMethods)
    if (b.size() >= std::strlen(k.s) && std::memcmp(b.data(), k.s, std::strlen(k.s)) == 0) return uint8_t(k.m);
  return 0;
}

// The request target is an absolute "http://" URI (a request to a proxy).
bool absolute_uri(Bytes b) {
  const char* s = reinterpret_cast<const char*>(b.data());
  const char* sp = static_cast<const char*>(std::memchr(s, ' ', b.size()));
  if (!sp) return false;
  const size_t at = size_t(sp - s) + 1;
  return b.size() - at > 7 && strncasecmp(s + at, "http://", 7) == 0;
}

// Calls fn(name, name_len, value, value_len) per header line; returns the
// offset of the body (after the blank line), or 0 when the headers are cut.
template <class F>
size_t each_header(Bytes b, F&& fn) {
  const char* s = reinterpret_cast<const char*>(b.data());
  size_t n = b.size(), i = 0;
  while (i < n && s[i] != '\n') i++;  // request / status line
  while (++i < n) {
    size_t e = i;
    while (e < n && s[e] != '\n') e++;
    size_t le = e > i && s[e - 1] == '\r' ? e - 1 : e;
    if (le == i) return e < n ? e + 1 : 0;  // blank line
    const char* colon = static_cast<const char*>(std::memchr(s + i, ':', le - i));
    if (colon) {
      size_t v = size_t(colon - s) + 1;
      while (v < le && (s[v] == ' ' || s[v] == '\t')) v++;
      fn(s + i, size_t(colon - s) - i, s + v, le - v);
    }
    if (e >= n) return 0;
    i = e;
  }
  return 0;
}

bool is(const char* name, size_t len, const char* want) { return std::strlen(want) == len && strncasecmp(name, want, len) == 0; }

// nDPI's User-Agent checks (src/lib/protocols/http.c, ndpi_check_user_agent),
// nothing added: empty or missing; over 12 characters, all letters, at least
// a fifth of them capitals; "<?" at the start or a '$' anywhere; "://" not
// at the start and not after 'p' or 's' (http://, https://); shorter than 4
// or longer than 256 characters, "test" at the start, '{' or '}' anywhere.
// "jndi:ldap://" at the start is a possible exploit (Log4J) instead.
// Bits: 1 suspicious, 2 possible exploit.
constexpr uint8_t kUaSuspicious = 1, kUaExploit = 2;

uint8_t check_ua(const char* v, size_t n) {
  if (n == 0) return kUaSuspicious;
  bool bad = false;
  if (n > 12) {
    size_t i = 0, upper = 0;
    for (; i < n && ((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z')); i++)
      if (v[i] >= 'A' && v[i] <= 'Z') upper++;
    if (i == n && float(upper) / float(n) >= 0.2f) bad = true;
  }
  if ((n >= 2 && std::memcmp(v, "<?", 2) == 0) || std::memchr(v, '$', n)) bad = true;
  for (size_t i = 1; i + 3 <= n; i++)
    if (std::memcmp(v + i, "://", 3) == 0) {  // the first one only, as strstr finds it
      if (v[i - 1] != 'p' && v[i - 1] != 's') bad = true;
      break;
    }
  if (n >= 12 && std::memcmp(v, "jndi:ldap://", 12) == 0) return uint8_t((bad ? kUaSuspicious : 0) | kUaExploit);
  if (n < 4 || n > 256 || std::memcmp(v, "test", 4) == 0 || std::memchr(v, '{', n) || std::memchr(v, '}', n)) bad = true;
  return bad ? kUaSuspicious : 0;
}

bool contains_nocase(const char* v, size_t n, const char* want) {
  const size_t k = std::strlen(want);
  for (size_t i = 0; i + k <= n; i++)
    if (strncasecmp(v + i, want, k) == 0) return true;
  return false;
}

bool starts(const char* v, size_t n, const char* want) {
  size_t k = std::strlen(want);
  return n >= k && strncasecmp(v, want, k) == 0;
}

// nDPI's HTTP sub-protocols known from a Content-Type (either direction).
uint16_t app_by_content_type(const char* v, size_t n) {
  if (starts(v, n, "application/ocsp-request") || starts(v, n, "application/ocsp-response")) return id(ProtoId::OCSP);
  if (starts(v, n, "application/ipp")) return id(ProtoId::IPP);
  if (starts(v, n, "application/vnd.apple.mpegurl") || starts(v, n, "application/x-mpegurl")) return id(ProtoId::HLS);
  return 0;
}

// The request's own sub-protocol: WebDAV methods, a Content-Type; 0 when
// none. (SOAP, JSON-RPC, MPEG-DASH … are HTTP's sub-protocol dissectors,
// asked on the packet that named the flow HTTP, as in nDPI.)
uint16_t request_app(Bytes b) {
  if (webdav_method(b)) return id(ProtoId::WebDAV);
  if (rpch_method(b)) return id(ProtoId::MS_RPCH);
  uint16_t app = 0;
  each_header(b, [&](const char* name, size_t nl, const char* v, size_t vl) {
    if (!app && is(name, nl, "content-type")) app = app_by_content_type(v, vl);
  });
  return app;
}

void read_request(DpiCtx& c, Bytes b) {
  FlowMeta* fm = c.meta(MetaKind::Http);
  const char* s = reinterpret_cast<const char*>(b.data());
  size_t n = b.size();
  size_t sp = 0;
  while (sp < n && s[sp] != ' ') sp++;
  size_t u = sp + 1, ue = u;
  while (ue < n && s[ue] != ' ' && s[ue] != '\r' && s[ue] != '\n') ue++;
  if (u > n) u = ue = n;
  bool ua_seen = false, host_numeric = false;
  each_header(b, [&](const char* name, size_t nl, const char* v, size_t vl) {
    if (is(name, nl, "user-agent")) {
      const uint8_t u = check_ua(v, vl);
      ua_seen = !(u & kUaSuspicious);
      if (u & kUaExploit) c.risk(Risk::PossibleExploit);
      if (fm) copy_str(fm->http.user_agent, sizeof(fm->http.user_agent), v, vl);
    } else if (is(name, nl, "authorization")) {
      // nDPI: "Basic" or "Digest" anywhere in the value.
      if (contains_nocase(v, vl, "basic") || contains_nocase(v, vl, "digest")) c.risk(Risk::ClearTextCredentials);
    } else if (is(name, nl, "host")) {
      size_t hl = vl;
      const char* colon = static_cast<const char*>(std::memchr(v, ':', vl));
      if (colon && v[0] != '[') hl = size_t(colon - v);
      host_numeric = numeric_host(v, hl);
    }
  });
  if (!ua_seen) c.risk(Risk::HttpSuspUserAgent);  // missing, or a suspicious shape
  if (host_numeric) c.risk(Risk::NumericIpHost);
  if (!fm) return;
  fm->http.method = method_of(b);
  copy_str(fm->http.url, sizeof(fm->http.url), s + u, ue - u);
}

// Returns the sub-protocol the response's Content-Type names, or 0.
uint16_t read_response(DpiCtx& c, Bytes b) {
  FlowMeta* fm = c.meta(MetaKind::Http);
  const char* s = reinterpret_cast<const char*>(b.data());
  unsigned status = 0;
  for (size_t i = 9; i < 12 && i < b.size() && s[i] >= '0' && s[i] <= '9'; i++) status = status * 10 + unsigned(s[i] - '0');
  if (status >= 400) c.risk(Risk::ErrorCode);
  bool octets = false, executable = false;
  uint16_t app = 0;
  size_t body = each_header(b, [&](const char* name, size_t nl, const char* v, size_t vl) {
    if (is(name, nl, "content-type")) {
      app = app_by_content_type(v, vl);
      if (fm) copy_str(fm->http.content_type, sizeof(fm->http.content_type), v, vl);
      static const char* const kExe[] = {"application/x-dosexec", "application/x-msdownload", "application/x-executable",
                                         "application/vnd.microsoft.portable-executable"};
      for (const char* k : kExe)
        if (vl >= std::strlen(k) && strncasecmp(v, k, std::strlen(k)) == 0) executable = true;
      octets = vl >= 24 && strncasecmp(v, "application/octet-stream", 24) == 0;
    } else if (is(name, nl, "server")) {
      if (fm) copy_str(fm->http.server, sizeof(fm->http.server), v, vl);
    }
  });
  // An executable in the body: Windows PE ("MZ") or ELF.
  if (body && body + 4 <= b.size() && ((s[body] == 'M' && s[body + 1] == 'Z') || std::memcmp(s + body, "\x7f" "ELF", 4) == 0))
    executable = true;
  if (executable) c.risk(Risk::BinaryAppTransfer);
  else if (octets) c.risk(Risk::BinaryDataTransfer);
  if (fm) fm->http.status = uint16_t(status);
  return app;
}

// FlowInfo::state[0] after a request matched: whether its Host line may
// still come in the next client segment.
enum : uint8_t { kHostDone = 0, kHostPending = 1 };

bool headers_end(Bytes b) {
  const char* s = reinterpret_cast<const char*>(b.data());
  for (size_t i = 0; i + 1 < b.size(); i++)
    if (s[i] == '\n' && (s[i + 1] == '\n' || (s[i + 1] == '\r' && i + 2 < b.size() && s[i + 2] == '\n'))) return true;
  return false;
}

Verdict classify_http(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    if (c.from_client && !status_line(b)) {
      // A request whose first segment ended before its Host line (a long
      // URL): the name is in the next client segment, where nDPI reads it too.
      const char* host = nullptr;
      size_t len = 0;
      if (c.info && c.info->state[0] == kHostPending) {
        if (http_request_host(b, host, len) || host_line(b, 0, host, len)) {
          c.set_host(host, len);
          if (uint16_t app = app_by_host(host, len)) c.clf->refine(c.flow, id(ProtoId::HTTP), app);
        }
        if (len || headers_end(b)) c.info->state[0] = kHostDone;
      }
      return Verdict::NeedMore;
    }
    if (!status_line(b)) return Verdict::NeedMore;
    uint16_t app = read_response(c, b);
    if (app) c.clf->refine(c.flow, id(ProtoId::HTTP), app);
    return Verdict::No;
  }
  // Request or response by its first line, not by direction: a capture
  // that starts mid-connection shows the response first.
  if (request_url(b)) {
    const char* host = nullptr;
    size_t len = 0;
    if (!http_request_host(b, host, len)) len = 0;
    // A tunnel request (CONNECT) or an absolute URI names a proxy: nDPI's
    // HTTP_Connect and HTTP_Proxy stand in for HTTP.
    uint16_t proto = id(ProtoId::HTTP);
    if (method_of(b) == uint8_t(HttpMethod::Connect)) proto = id(ProtoId::HTTP_Connect);
    else if (absolute_uri(b)) proto = id(ProtoId::HTTP_Proxy);
    c.match_named(m, proto, host, len);
    if (uint16_t app = request_app(b)) m.master = proto, m.app = app;
    read_request(c, b);
    if (c.info) c.info->state[0] = len || headers_end(b) ? kHostDone : kHostPending;
    m.more = true;
    return Verdict::Match;
  }
  if (status_line(b)) {
    m.app = id(ProtoId::HTTP);
    if (uint16_t app = read_response(c, b)) m.master = id(ProtoId::HTTP), m.app = app;
    return Verdict::Match;
  }
  return c.from_client ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(http, {"HTTP", id(ProtoId::HTTP), kL4Tcp, 4, classify_http});

}  // namespace fg
