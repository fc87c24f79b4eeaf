// ④ HTTP/1.x requests (RFC 9112): the Host header names the server.
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dga.h"
#include "dpi/dpi.h"
#include "dpi/names.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"
#include "dpi/url_risk.h"

namespace fg {
namespace {

// The request's method as the flow metadata keeps it (0: none of these).
uint8_t method_of(Bytes b) {
  static const struct { const char* s; HttpMethod m; } kMethods[] = {
      {"GET ", HttpMethod::Get}, {"POST ", HttpMethod::Post}, {"HEAD ", HttpMethod::Head}, {"PUT ", HttpMethod::Put},
      {"DELETE ", HttpMethod::Delete}, {"OPTIONS ", HttpMethod::Options}, {"PATCH ", HttpMethod::Patch},
      {"CONNECT ", HttpMethod::Connect}};
  for (const auto& k : kMethods)
    if (b.size() >= std::strlen(k.s) && std::memcmp(b.data(), k.s, std::strlen(k.s)) == 0) return uint8_t(k.m);
  return 0;
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
  if (!method_of(b) && !webdav_method(b)) return false;
  const void* nl = std::memchr(b.data(), '\n', b.size());
  return nl && host_line(b, size_t(static_cast<const uint8_t*>(nl) - b.data()) + 1, name, len);
}

}  // namespace fg

// Classification, as nDPI 4.11's HTTP dissector (http.c) and its line
// parser (ndpi_parse_packet_line_info) do it: the first payload packet is a
// request (named by its first line and Host) or a response (HTTP, renamed by
// the request that follows); anything else rules HTTP out. After the match
// the dissector reads on up to 8 packets, request and response alike, until
// it has both a host name and a status code. The risks only HTTP raises
// (suspicious header or content, RCE URL) have no FlowInfo bit: they live in
// the flow's HTTP metadata (HttpMeta::risks). The sub-protocol dissectors
// nDPI asks on the matching packet are classify.cpp's (ask_subs).
namespace fg {
namespace {

struct Str {
  const char* p = nullptr;
  size_t n = 0;
  explicit operator bool() const { return p != nullptr; }
};

// What nDPI's line parser keeps of a packet: lines end at CRLF only (none
// without a CRLF, at most 64); per header it knows, the last line naming it
// (name in any case, the line longer than the name), value trimmed of
// spaces, absent when empty; Content-type cut at ';' and '\r'.
struct Lines {
  bool any = false;  // at least one CRLF
  bool susp = false;  // a suspicious header name (suspicious_header)
  size_t line0 = 0;  // the first line's length
  Str host, ua, content, disp, server, origin, referer, auth;
  size_t body = 0, body_len = 0;  // after the last CRLFCRLF followed by data
};

// strncasecmp(a, key, n) == 0 in the C locale, a holding n bytes.
bool c_ncase_eq(const char* a, size_t n, const char* key) {
  auto low = [](unsigned char ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; };
  for (size_t i = 0; i < n; i++) {
    const int x = low(static_cast<unsigned char>(a[i])), y = low(static_cast<unsigned char>(key[i]));
    if (x != y) return false;
    if (x == 0) return true;
  }
  return true;
}

// nDPI's ndpi_check_http_header: a header line whose first letter is one of
// these (upper case, as written) and whose name (up to its first ':'),
// compared without case over its own length, matches the start of one of
// the keys: what some malware beacons send (risk HttpSuspHeader).
bool suspicious_header(const char* l, size_t n) {
  static const char* const kA[] = {"Arch", nullptr}, *const kC[] = {"Cores", nullptr}, *const kM[] = {"Mem", nullptr},
                           *const kO[] = {"Os", "Osname", "Osversion", nullptr}, *const kR[] = {"Root", nullptr},
                           *const kS[] = {"S", nullptr}, *const kT[] = {"TLS_version", nullptr}, *const kU[] = {"Uuid", nullptr},
                           *const kX[] = {"X-Hire-Me", nullptr};
  const char* const* keys;
  switch (l[0]) {
    case 'A': keys = kA; break;
    case 'C': keys = kC; break;
    case 'M': keys = kM; break;
    case 'O': keys = kO; break;
    case 'R': keys = kR; break;
    case 'S': keys = kS; break;
    case 'T': keys = kT; break;
    case 'U': keys = kU; break;
    case 'X': keys = kX; break;
    default: return false;
  }
  const void* colon = std::memchr(l, ':', n);
  if (!colon) return false;
  const size_t name = size_t(static_cast<const char*>(colon) - l);
  for (size_t i = 0; keys[i]; i++)
    if (c_ncase_eq(l, name, keys[i])) return true;
  return false;
}

void header_line(Lines& h, const char* l, size_t n, bool first) {
  if (n == 0) return;
  if (first) {
    // a status line ("HTTP/1.x Nxx", N 1–5), or a first line without ':'
    if (n >= 13 && strncasecmp(l, "HTTP/1.", 7) == 0 && l[9] > '0' && l[9] < '6') return;
    if (!std::memchr(l, ':', n)) return;
  }
  std::string_view k;
  Str* f = nullptr;
  auto is = [&](std::string_view name, Str& field) {
    if (!f && n > name.size() && strncasecmp(l, name.data(), name.size()) == 0) k = name, f = &field;
  };
  switch (l[0] | 0x20) {
    case 'a': is("Authorization:", h.auth); break;
    case 'c': is("Content-Disposition:", h.disp), is("Content-type:", h.content); break;
    case 'h': is("Host:", h.host); break;
    case 'o': is("Origin:", h.origin); break;
    case 'r': is("Referer:", h.referer); break;
    case 's': is("Server:", h.server); break;
    case 'u': is("User-agent:", h.ua); break;
    default: return;
  }
  if (!f) return;
  const char* v = l + k.size();
  size_t m = n - k.size();
  while (m && *v == ' ') v++, m--;
  while (m && v[m - 1] == ' ') m--;
  if (f == &h.content) {
    if (const void* x = std::memchr(v, ';', m)) m = size_t(static_cast<const char*>(x) - v);
    if (const void* x = std::memchr(v, '\r', m)) m = size_t(static_cast<const char*>(x) - v);
  }
  *f = m ? Str{v, m} : Str{};
}

Lines parse_lines(Bytes b) {
  Lines h;
  const char* s = reinterpret_cast<const char*>(b.data());
  const size_t n = b.size();
  if (n < 3) return h;
  size_t start = 0, lines = 0, i = 0;
  // nDPI's header check reads the counted lines up to the first empty one
  bool open = true;
  auto judge = [&](const char* l, size_t len) {
    if (len == 0) open = false;
    else if (open && !h.susp) h.susp = suspicious_header(l, len);
  };
  while (i + 1 < n) {
    const void* q = std::memchr(s + i, '\r', n - 1 - i);
    if (!q) break;
    i = size_t(static_cast<const char*>(q) - s);
    if (s[i + 1] != '\n') {
      i++;
      continue;
    }
    if (i + 4 < n && s[i + 2] == '\r' && s[i + 3] == '\n') h.body = i + 4, h.body_len = n - (i + 4);
    if (lines == 0) h.line0 = i;
    h.any = true;
    header_line(h, s + start, i - start, lines == 0);
    if (lines >= 63) return h;  // the 64th line is read for its header, not counted
    judge(s + start, i - start);
    lines++, start = i + 2, i += 2;
  }
  if (lines) header_line(h, s + start, n - start, false), judge(s + start, n - start);
  return h;
}

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

// FlowInfo::state while reading on (nDPI's per-flow HTTP fields).
enum : size_t { kStage = 0, kAsym = 1, kFlags = 2, kFlags2 = 3, kMethod = 4, kAtMatch = 5, kBinLen = 6, kBin = 7 };
enum : uint8_t {  // kFlags
  kUaSet = 1, kStatusSet = 2, kUrlSet = 4, kRespCt = 8, kUaJava = 16, kJavaVm = 32, kWordpress = 64, kMsHost = 128,
};
enum : uint8_t {  // kFlags2
  kUaMsrpc = 1, kUaSteam = 2, kUaDelivery = 4, kUrlOokla = 8, kUrlXiaomi = 16, kUrlWinUpd = 32, kUrl204 = 64,
  kUaEmpty = 128,  // the User-Agent kept opens with a NUL (empty as nDPI's C string)
};
// nDPI's method codes (ndpi_http_str2method) as far as they matter here.
enum : uint8_t { kMNone = 0, kMGet, kMPost, kMWebDav, kMRpc, kMOther };

uint8_t ndpi_method(const char* m, size_t len) {
  if (len < 3) return kMNone;
  switch (m[0]) {
    case 'G': return kMGet;
    case 'O': case 'H': case 'D': case 'T': return kMOther;
    case 'L': case 'M': case 'U': return kMWebDav;  // LOCK, MOVE / MKCOL, UNLOCK
    case 'C': return len == 4 ? kMWebDav : kMOther;  // COPY, else CONNECT
    case 'P':
      if (m[1] == 'O') return kMPost;
      if (m[1] == 'A' || m[1] == 'U') return kMOther;
      if (m[1] == 'R' && len >= 5 && (std::memcmp(m, "PROPF", 5) == 0 || std::memcmp(m, "PROPP", 5) == 0)) return kMWebDav;
      return kMNone;
    case 'R':
      if (len >= 11 && (std::memcmp(m, "RPC_CONNECT", 11) == 0 || std::memcmp(m, "RPC_IN_DATA", 11) == 0 ||
                        std::memcmp(m, "RPC_OUT_DAT", 11) == 0))
        return kMRpc;
      return kMNone;
    default: return kMNone;
  }
}

// strncasecmp(a, word, n) with a holding n bytes and word NUL-terminated.
bool ncase_eq(const char* a, size_t n, const char* word) {
  for (size_t i = 0; i < n; i++) {
    const char w = word[i];
    if ((a[i] | 0x20) != (w | 0x20) || (a[i] == 0) != (w == 0)) return false;
    if (w == 0) return true;
  }
  return true;
}

bool contains(const char* v, size_t n, std::string_view w) { return find_bytes(v, n, w) != nullptr; }
// `w` in the concatenation of a and b (nDPI's URL: Host value, then path).
bool contains_joined(Str a, Str b, std::string_view w) {
  if (contains(a.p, a.n, w) || contains(b.p, b.n, w)) return true;
  for (size_t k = 1; k < w.size(); k++)
    if (k <= a.n && w.size() - k <= b.n && std::memcmp(a.p + a.n - k, w.data(), k) == 0 &&
        std::memcmp(b.p, w.data() + k, w.size() - k) == 0)
      return true;
  return false;
}
bool ends_with(const char* v, size_t n, std::string_view w) { return n >= w.size() && std::memcmp(v + n - w.size(), w.data(), w.size()) == 0; }
// a then b ends with w / starts with w.
bool ends_joined(Str a, Str b, std::string_view w) {
  if (b.n >= w.size()) return ends_with(b.p, b.n, w);
  const size_t k = w.size() - b.n;
  return a.n >= k && std::memcmp(a.p + a.n - k, w.data(), k) == 0 && (!b.n || std::memcmp(b.p, w.data() + k, b.n) == 0);
}
bool starts_joined(Str a, Str b, std::string_view w) {
  if (a.n >= w.size()) return std::memcmp(a.p, w.data(), w.size()) == 0;
  return a.n + b.n >= w.size() && (!a.n || std::memcmp(a.p, w.data(), a.n) == 0) && std::memcmp(b.p, w.data() + a.n, w.size() - a.n) == 0;
}

// nDPI's User-Agent checks (ndpi_check_user_agent), nothing added: over 12
// characters, all letters, at least a fifth of them capitals; "<?" at the
// start or a '$' anywhere; "://" not at the start and not after 'p' or 's';
// "jndi:ldap://" at the start is a possible exploit (Log4J), else shorter
// than 4 or longer than 256 characters, "test" at the start, '{' or '}'.
// A crawler: "+http:" or " http:", or "crawler" / "bot" in any case.
// Lengths count the whole value; nDPI's string searches stop at a NUL.
void check_ua(DpiCtx& c, const char* v, size_t n) {
  bool bad = false;
  const size_t t = strnlen(v, n);
  if (n > 12) {
    size_t i = 0, upper = 0;
    for (; i < n && ((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z')); i++)
      if (v[i] >= 'A' && v[i] <= 'Z') upper++;
    if (i == n && float(upper) / float(n) >= 0.2f) bad = true;
  }
  if ((t >= 2 && std::memcmp(v, "<?", 2) == 0) || std::memchr(v, '$', t)) bad = true;
  // the first "://" only, as strstr finds it
  if (const char* at = t > 1 ? find_bytes(v + 1, t - 1, "://") : nullptr; at && at[-1] != 'p' && at[-1] != 's')
    bad = true;
  if (t >= 12 && std::memcmp(v, "jndi:ldap://", 12) == 0) c.risk(Risk::PossibleExploit);
  else if (n < 4 || n > 256 || (t >= 4 && std::memcmp(v, "test", 4) == 0) || std::memchr(v, '{', t) || std::memchr(v, '}', t)) bad = true;
  if (bad) c.risk(Risk::HttpSuspUserAgent);
  if (contains(v, t, "+http:") || contains(v, t, " http:") || contains_nocase(v, t, "crawler") || contains_nocase(v, t, "bot"))
    c.risk(Risk::CrawlerBot);
}

// sscanf(s, "%d.%d.%d.%d") == 4: four integers (spaces and a sign allowed
// before each), a '.' right after each of the first three.
bool four_ints(const char* s, size_t n) {
  size_t i = 0;
  for (int part = 0; part < 4; part++) {
    if (part) {
      if (i >= n || s[i] != '.') return false;
      i++;
    }
    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    const size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return false;
  }
  return true;
}

// glibc's inet_addr (an exact parse, nothing may follow): one to four
// parts, each decimal, octal (leading 0) or hex (0x), the last filling the
// bytes left; INADDR_NONE (all ones) when invalid. Host byte order.
uint32_t inet_addr_of(const char* s, size_t n) {
  constexpr uint32_t kNone = 0xffffffffu;
  static constexpr uint32_t kMax[4] = {0xffffffffu, 0xffffffu, 0xffffu, 0xffu};
  uint32_t parts[3] = {}, val = 0;
  size_t i = 0, np = 0;
  for (;;) {
    if (i >= n || s[i] < '0' || s[i] > '9') return kNone;
    uint32_t base = 10;
    val = 0;
    if (s[i] == '0') {
      i++;
      base = 8;
      if (i < n && (s[i] == 'x' || s[i] == 'X')) base = 16, i++;
    }
    for (; i < n; i++) {
      const char ch = s[i];
      if (ch >= '0' && ch <= '9') {
        if (base == 8 && ch > '7') return kNone;
        val = val * base + uint32_t(ch - '0');
      } else if (base == 16 && ((ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'))) {
        val = val << 4 | uint32_t((ch | 0x20) - 'a' + 10);
      } else {
        break;
      }
    }
    if (i < n && s[i] == '.') {
      if (np > 2 || val > 0xff) return kNone;
      parts[np++] = val;
      i++;
      continue;
    }
    break;
  }
  if (i != n || val > kMax[np]) return kNone;
  uint32_t ip = val;
  for (size_t k = 0; k < np; k++) ip |= parts[k] << (24 - 8 * k);
  return ip;
}

// nDPI's host_server_name from the Host value (ndpi_hostname_sni_set, all
// normalisations): its last 79 bytes up to a NUL, lower case, a tab made a
// space and other unprintable bytes '?', trailing spaces dropped; then cut
// at its first ':'. Returns the length written to out (80 bytes); `named`:
// the text was not empty before the cut (nDPI's hostname_just_set).
size_t ndpi_host_text(const char* v, size_t n, char* out, bool& named) {
  const char* from = n > 79 ? v + n - 79 : v;
  size_t k = 0;
  for (const char* e = v + n; from < e && *from; from++) {
    char ch = *from;
    if (ch >= 'A' && ch <= 'Z') ch = char(ch + 32);
    if (ch == '\t') ch = ' ';
    if (ch < 0x20 || ch > 0x7e) ch = '?';
    out[k++] = ch;
  }
  while (k && out[k - 1] == ' ') k--;
  named = k > 0;
  if (const void* colon = std::memchr(out, ':', k)) k = size_t(static_cast<const char*>(colon) - out);
  return k;
}

// inet_addr() then inet_ntoa() gives the text back: a dotted quad, each
// part 0–255 in decimal without leading zeros.
bool canonical_ipv4(const char* s, size_t n) {
  size_t i = 0;
  for (int part = 0; part < 4; part++) {
    if (part) {
      if (i >= n || s[i] != '.') return false;
      i++;
    }
    size_t d = i;
    unsigned v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && i - d < 4) v = v * 10 + unsigned(s[i++] - '0');
    if (i == d || v > 255 || (s[d] == '0' && i - d > 1)) return false;
  }
  return i == n;
}

// "Apache/x.y.z" before 2.4.0, "nginx/x.y.z" before 1.22.0.
bool obsolete_server(const char* s, size_t n) {
  if (n <= 7) return false;
  size_t off;
  uint32_t min;
  if (strncasecmp(s, "Apache/", 7) == 0) off = 7, min = 2004000;
  else if (strncasecmp(s, "nginx/", 6) == 0) off = 6, min = 1022000;
  else return false;
  size_t e = off;
  while (e < n && e - off < 15 && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.')) e++;
  uint32_t part[3] = {};
  size_t i = off;
  for (int k = 0; k < 3; k++) {
    if (k) {
      if (i >= e || s[i] != '.') return false;
      i++;
    }
    const size_t d = i;
    while (i < e && s[i] >= '0' && s[i] <= '9') part[k] = part[k] * 10 + uint32_t(s[i++] - '0');
    if (i == d) return false;
  }
  return part[0] * 1000000 + part[1] * 1000 + part[2] < min;
}

// nDPI's names for the flow: its detected_protocol_stack [1] (master) and [0].
struct Name {
  uint16_t master = 0, app = 0;
  void set(uint16_t upper, uint16_t lower) {
    if (!upper) upper = lower;
    if (upper == lower) lower = 0;
    app = upper, master = lower;
  }
};

struct Http {
  DpiCtx& c;
  uint8_t* st;  // FlowInfo::state, or a scratch copy when there is no pool entry
  Name name;
  Bytes b;
  Lines h;
  bool parsed = false;

  const char* s() const { return reinterpret_cast<const char*>(b.data()); }
  bool host_set() const { return c.info && c.info->host[0]; }

  // The packet's lines, parsed once; the bytes after a blank line are kept
  // for the content signature (nDPI's initial_binary_bytes).
  const Lines& lines() {
    if (!parsed) {
      parsed = true;
      h = parse_lines(b);
      if (h.body_len) {
        const size_t k = std::min<size_t>(8, h.body_len);
        std::memcpy(st + kBin, b.data() + h.body, k);
        st[kBinLen] = uint8_t(k);
      }
    }
    return h;
  }

  // nDPI's reset() between transactions: the request's and response's fields
  // and the risks they raised.
  void reset() {
    st[kFlags] &= kMsHost;
    st[kFlags2] = 0;
    st[kMethod] = 0;
    for (Risk r : {Risk::BinaryAppTransfer, Risk::PossibleExploit, Risk::HttpSuspUserAgent, Risk::CrawlerBot,
                   Risk::NumericIpHost, Risk::HttpObsoleteServer, Risk::ClearTextCredentials, Risk::InvalidCharacters,
                   Risk::ErrorCode, Risk::MalformedPacket, Risk::HttpSuspContent, Risk::UrlRceInjection, Risk::HttpSuspHeader,
                   Risk::UrlXss, Risk::UrlSqlInjection, Risk::HttpSuspUrl})  // the last three: validate_url's
      c.unrisk(r);
  }

  void app_transfer() const {
    if (!(st[kFlags] & kMsHost)) c.risk(Risk::BinaryAppTransfer);
  }

  // ndpi_http_check_content: the response's first Content-Type (and its
  // Content-Disposition) as a download.
  void check_content() {
    const Str ct = h.content;
    if (ct.n > 12) {
      const char* app = ct.p + 12;  // past "application/", whatever it says
      const size_t avail = ct.n - 12;
      if (ncase_eq(app, avail, "mpeg")) return;  // streaming
      if (avail > 3) {
        static const char* const kB[] = {"bz", "bz2", nullptr}, *const kO[] = {"octet-stream", nullptr},
                                 *const kX[] = {"x-tar", "x-zip", "x-bzip", nullptr};
        static const char* const kE[] = {"exe", nullptr}, *const kJ[] = {"java-vm", nullptr},
                                 *const kV[] = {"vnd.ms-cab-compressed", "vnd.microsoft.portable-executable", nullptr},
                                 *const kXe[] = {"x-msdownload", "x-dosexec", nullptr};
        const char* const* list = app[0] == 'b' ? kB : app[0] == 'o' ? kO : app[0] == 'x' ? kX : nullptr;
        bool found = false;
        for (size_t i = 0; list && list[i] && !found; i++)
          if (ncase_eq(app, avail, list[i])) c.risk(Risk::BinaryDataTransfer), found = true;
        if (!found) {
          list = app[0] == 'e' ? kE : app[0] == 'j' ? kJ : app[0] == 'v' ? kV : app[0] == 'x' ? kXe : nullptr;
          for (size_t i = 0; list && list[i]; i++)
            if (ncase_eq(app, avail, list[i])) app_transfer();
        }
      }
    }
    const Str d = h.disp;
    if (d.n > 21 && std::memcmp(d.p, "attachment; filename", 20) == 0) {
      const uint8_t name_len = uint8_t(d.n - 21);  // nDPI's 8-bit arithmetic
      if (name_len > 3) {
        const uint8_t at = uint8_t(21 + name_len - 3 - 1);
        if (size_t(at) + 3 <= d.n) {
          for (const char* ext : {"exe", "msi", "cab"})
            if (std::memcmp(d.p + at, ext, 3) == 0) return app_transfer();
          c.risk(Risk::BinaryDataTransfer);
        }
      }
    }
  }

  // ndpiReader's ndpi_validate_url on the flow's URL when it reports the
  // flow: the URL is the one of the last request (nDPI's reset() drops it
  // with the transaction, the next request's sets it) when the dissector
  // stops, so its risks are raised here, as the URL is set, and dropped
  // with it in reset(). The URL as a C string (Host up to a NUL, then the
  // target up to one), of which ndpiReader keeps kUrlValidated bytes.
  void validate_url(Str head, Str tail) {
    char u[kUrlValidated + 1];
    size_t n = strnlen(head.p, std::min(head.n, sizeof(u) - 1));
    std::memcpy(u, head.p, n);
    if (n == head.n) {
      const size_t k = strnlen(tail.p, std::min(tail.n, sizeof(u) - 1 - n));
      std::memcpy(u + n, tail.p, k);
      n += k;
    }
    Risk r;
    if (url_risk(u, n, r)) c.risk(r);
  }

  // check_content_type_and_change_protocol and ndpi_http_parse_subprotocol;
  // url: the request target of a complete request line, else empty.
  void check(Str url) {
    const Lines& l = lines();
    FlowMeta* fm = c.meta(MetaKind::Http);
    if (!(st[kFlags] & kUrlSet) && url.n && l.host) {
      st[kFlags] |= kUrlSet;
      if (l.host.p[0] >= '0' && l.host.p[0] <= '9' && l.host.n < 21) {
        const char* colon = static_cast<const char*>(std::memchr(l.host.p, ':', l.host.n));
        if (canonical_ipv4(l.host.p, colon ? size_t(colon - l.host.p) : l.host.n)) c.risk(Risk::NumericIpHost);
      }
      // nDPI's URL: the Host value, then the target (only the target for a
      // tunnel or an absolute URI; only the host when both are the same).
      const bool tunnel = name.app == id(ProtoId::HTTP_Connect);
      const Str head = tunnel || (url.n >= 7 && std::memcmp(url.p, "http://", 7) == 0) ? Str{"", 0} : l.host;
      const Str tail = !tunnel && l.host.n == url.n && std::memcmp(l.host.p, url.p, url.n) == 0 ? Str{"", 0} : url;
      // ndpi_check_http_url on the URL past the host (a C string: up to a NUL)
      const size_t tn = strnlen(tail.p, tail.n);
      if (contains(tail.p, tn, "<php>") || (tn >= 7 && std::memcmp(tail.p, "/shell?", 7) == 0)) c.risk(Risk::UrlRceInjection);
      else if (tn >= 2 && std::memcmp(tail.p, "/.", 2) == 0) c.risk(Risk::PossibleExploit);
      validate_url(head, tail);
      // from the URL's first '/'
      Str a = tail, rest{"", 0};
      if (const void* x = std::memchr(head.p, '/', head.n)) a = Str{static_cast<const char*>(x), head.n - size_t(static_cast<const char*>(x) - head.p)}, rest = tail;
      else if (const void* y = std::memchr(tail.p, '/', tail.n)) a = Str{static_cast<const char*>(y), tail.n - size_t(static_cast<const char*>(y) - tail.p)};
      else a = Str{"", 0};
      if ((st[kMethod] == kMPost && starts_joined(a, rest, "/wp-admin/")) ||
          (st[kMethod] == kMGet && starts_joined(a, rest, "/wp-content/uploads/")))
        st[kFlags] |= kWordpress;
      if (ends_joined(head, tail, "/generate_204") || ends_joined(head, tail, "/generate204")) st[kFlags2] |= kUrl204;
      if (contains_joined(head, tail, ":8080/downloading?n=0.") || contains_joined(head, tail, ":8080/upload?n=0."))
        st[kFlags2] |= kUrlOokla;
      if (contains_joined(head, tail, "micloud.xiaomi.net")) st[kFlags2] |= kUrlXiaomi;
      if (contains_joined(head, tail, "delivery.mp.microsoft.com/") || contains_joined(head, tail, "download.windowsupdate.com/"))
        st[kFlags2] |= kUrlWinUpd;
      if (fm) copy_str(fm->http.url, sizeof(fm->http.url), url.p, url.n);
    }
    if (l.server) {
      if (obsolete_server(l.server.p, l.server.n)) c.risk(Risk::HttpObsoleteServer);
      // ndpi_check_http_server: an unprintable byte in a value over 7 bytes
      if (l.server.n > 7 && l.server.p[0] != 0)
        for (size_t i = 0; i < l.server.n; i++)
          if (l.server.p[i] < 0x20 || l.server.p[i] > 0x7e) {
            c.risk(Risk::HttpSuspHeader);
            break;
          }
      if (fm && !fm->http.server) c.set_meta_str(fm->http.server, kServerCap, l.server.p, l.server.n);
    }
    if (l.ua && !(st[kFlags] & kUaSet)) {
      st[kFlags] |= kUaSet;
      c.unrisk(Risk::HttpSuspUserAgent);
      if (l.ua.p[0] == 0) st[kFlags2] |= kUaEmpty;  // nDPI's check skips it; the request's end judges it
      else check_ua(c, l.ua.p, l.ua.n);
      const size_t t = strnlen(l.ua.p, l.ua.n);  // nDPI's strstr reads it as a C string
      if (t >= 5 && std::memcmp(l.ua.p, "Java/", 5) == 0) st[kFlags] |= kUaJava;
      if (contains(l.ua.p, t, "MSRPC")) st[kFlags2] |= kUaMsrpc;
      if (contains(l.ua.p, t, "Valve/Steam HTTP Client")) st[kFlags2] |= kUaSteam;
      if (contains(l.ua.p, t, "Microsoft-Delivery-Optimization/")) st[kFlags2] |= kUaDelivery;
      if (fm) c.set_meta_str(fm->http.user_agent, kUserAgentCap, l.ua.p, l.ua.n);
    }
    if (l.auth && (contains_nocase(l.auth.p, l.auth.n, "basic") || contains_nocase(l.auth.p, l.auth.n, "digest")))
      c.risk(Risk::ClearTextCredentials);
    if (l.content && (st[kFlags] & kStatusSet) && !(st[kFlags] & kRespCt)) {
      st[kFlags] |= kRespCt;
      if (l.content.n == 19 && std::memcmp(l.content.p, "application/java-vm", 19) == 0) st[kFlags] |= kJavaVm;
      if (fm) c.set_meta_str(fm->http.content_type, kContentTypeCap, l.content.p, l.content.n);
      check_content();
    }
    // The Host line, when the flow has no name yet: as nDPI keeps it
    // (ndpi_host_text), cut at the first ':' (a port; an IPv6 literal too,
    // as nDPI does). A value opening with a NUL names nothing.
    bool just_set = false;
    char host[80];
    size_t host_len = 0;
    if (l.host && !host_set()) host_len = ndpi_host_text(l.host.p, l.host.n, host, just_set);
    if (just_set) {
      if (!valid_hostname(l.host.p, l.host.n)) c.risk(Risk::InvalidCharacters), c.risk(Risk::PossibleExploit);
      // an IPv4 literal other than the packet's destination
      if (c.p.ip_version == 4 && four_ints(host, host_len) && inet_addr_of(host, host_len) != c.p.dst.v4())
        c.risk(Risk::HttpSuspHeader);
      c.set_host(host, host_len);
      for (std::string_view w : {".windowsupdate.com", ".microsoft.com", ".office365.com", ".windows.com"})
        if (host_len >= w.size() && std::memcmp(host + host_len - w.size(), w.data(), w.size()) == 0) st[kFlags] |= kMsHost;
    }
    subprotocol(just_set, host, host_len);
    if (l.susp) c.risk(Risk::HttpSuspHeader);  // ndpi_check_http_header
  }

  void subprotocol(bool just_set, const char* host, size_t host_len) {
    const Lines& l = h;
    const uint16_t http = id(ProtoId::HTTP);
    const uint16_t master = name.master                                                                    ? name.master
                            : name.app == id(ProtoId::HTTP_Connect) || name.app == id(ProtoId::HTTP_Proxy) ? name.app
                                                                                                           : http;
    if (l.server.n > 7 && std::memcmp(l.server.p, "ntopng ", 7) == 0) name.set(id(ProtoId::ntop), http);
    if (l.content.n > 17 && std::memcmp(l.content.p, "application/ocsp-", 17) == 0) name.set(id(ProtoId::OCSP), master);
    if (l.content.n > 28 && (std::memcmp(l.content.p, "application/vnd.apple.mpegurl", 29) == 0 ||
                             std::memcmp(l.content.p, "application/x-mpegURL", 21) == 0 ||
                             std::memcmp(l.content.p, "application/x-mpegurl", 21) == 0))
      name.set(id(ProtoId::HLS), master);
    if (st[kMethod] == kMRpc) name.set(id(ProtoId::MS_RPCH), master);
    if (st[kMethod] == kMWebDav) name.set(id(ProtoId::WebDAV), master);
    uint16_t host_app = 0;
    if (just_set && host_len) {
      host_app = app_by_host(host, host_len);
      if (!name.master && host_app) name.set(host_app, master);
    }
    if (!name.master && l.origin) {
      const char* o = l.origin.p;
      const char* sep = static_cast<const char*>(memmem(o, l.origin.n, "://", 3));
      if (sep) {
        const char* oh = sep + 3;
        size_t on = l.origin.n - size_t(oh - o);
        if (const void* colon = std::memchr(oh, ':', on)) on = size_t(static_cast<const char*>(colon) - oh);
        const char* mine = c.info ? c.info->host : "";
        if (strncmp(oh, mine, on) != 0)
          if (uint16_t app = app_by_host(oh, on)) name.set(app, master);
      }
    }
    if (!(st[kFlags2] & kUrl204)) {
      const bool none = !name.master;
      if (none && (st[kFlags2] & kUrlOokla)) name.set(id(ProtoId::Ookla), master);
      if (!name.master && (st[kFlags2] & kUrlXiaomi)) name.set(id(ProtoId::Xiaomi), master);
      if (!name.master && l.referer && contains(l.referer.p, l.referer.n, "www.speedtest.net")) name.set(id(ProtoId::Ookla), master);
      if (!name.master && (st[kFlags2] & kUrlWinUpd) && (st[kFlags2] & kUaDelivery) && c.info &&
          (c.info->risks & stored_bit(Risk::NumericIpHost)))
        name.set(id(ProtoId::WindowsUpdate), master);
      if (!name.master && b.size() >= 23 && std::memcmp(b.data(), "<policy-file-request/>", 23) == 0) name.set(id(ProtoId::Ookla), master);
      if (!name.master && (st[kFlags2] & kUaMsrpc)) name.set(id(ProtoId::MS_RPCH), master);
      if (!name.master && (st[kFlags2] & kUaSteam)) name.set(id(ProtoId::Steam), master);
    }
    // nDPI skips the DGA test once the flow has a master (any sub-protocol).
    if (just_set && host_len && !name.master && dga_suspicious(host, host_len)) c.risk(Risk::SuspDgaDomain);
  }

  // A request's or response's end: no User-Agent, or an empty one.
  void ua_missing() const {
    if (!(st[kFlags] & kUaSet) || (st[kFlags2] & kUaEmpty)) c.risk(Risk::HttpSuspUserAgent);
  }

  void process_request(size_t u) {
    const Lines& l = lines();
    const char* p = s();
    uint16_t master = id(ProtoId::HTTP);
    Str url{};
    if (l.any && l.line0 >= 9 + u && strncasecmp(p + l.line0 - 9, " HTTP/1.", 8) == 0) {
      url = Str{p + u, l.line0 - (u + 9)};
      st[kMethod] = ndpi_method(p, u - 1);
      if (url.n > 7 && strncasecmp(url.p, "http://", 7) == 0) master = id(ProtoId::HTTP_Proxy);
    }
    if (u == 8 && strncasecmp(p, "CONNECT ", 8) == 0) master = id(ProtoId::HTTP_Connect);
    if (!name.master) name.set(0, master);
    if (FlowMeta* fm = c.meta(MetaKind::Http); fm && !fm->http.method) fm->http.method = method_of(b);
    check(url);
    ua_missing();
  }

  void process_response() {
    lines();
    // the status code: three characters at 9, read as atoi reads them
    unsigned status = 0;
    if (b.size() >= 12) {
      const char* p = s() + 9;
      size_t i = 0;
      while (i < 3 && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r'))) i++;
      bool neg = false;
      if (i < 3 && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
      while (i < 3 && p[i] >= '0' && p[i] <= '9') status = status * 10 + unsigned(p[i++] - '0');
      if (neg || status < 100 || status > 509) status = 0;
      if (status) st[kFlags] |= kStatusSet;
      else st[kFlags] &= uint8_t(~kStatusSet);
      if (status >= 400) {
        c.risk(Risk::ErrorCode);
        if (st[kFlags] & kWordpress) c.risk(Risk::PossibleExploit);
      }
      // the flow's metadata keeps its first transaction (what the host counters count)
      if (FlowMeta* fm = c.meta(MetaKind::Http); fm && !fm->http.status) fm->http.status = uint16_t(status);
    }
    check(Str{});
    validate_content();
    ua_missing();
  }

  // ndpi_validate_http_content, when the headers end in this packet (the
  // first CRLFCRLF before any NUL byte): a text, JSON or form body (by this
  // packet's Content-Type) whose first 4 bytes are neither printable (tab,
  // CR and LF allowed) nor gzip's 1F 8B 08 00 is suspicious content; Java
  // fetching Java is a possible exploit (Log4J).
  void validate_content() {
    const Str ct = h.content;
    const size_t ctn = ct ? strnlen(ct.p, ct.n) : 0;
    const bool text_body = contains(ct.p, ctn, "text/") || contains(ct.p, ctn, "/json") || contains(ct.p, ctn, "x-www-form-urlencoded");
    const bool java = c.info && (c.info->risks & stored_bit(Risk::BinaryAppTransfer)) && (st[kFlags] & kUaJava) && (st[kFlags] & kJavaVm);
    if (!text_body && !java) return;
    const char* p = s();
    const auto* end = static_cast<const char*>(memmem(p, strnlen(p, b.size()), "\r\n\r\n", 4));
    if (!end) return;
    if (text_body && b.size() - size_t(end - p) >= 8) {  // 4 bytes of body at least
      const auto* x = reinterpret_cast<const uint8_t*>(end + 4);
      auto text = [](uint8_t ch) { return (ch >= 0x20 && ch <= 0x7e) || ch == '\t' || ch == '\r' || ch == '\n'; };
      if (!(text(x[0]) && text(x[1]) && text(x[2]) && text(x[3])) && std::memcmp(x, "\x1f\x8b\x08\x00", 4) != 0)
        c.risk(Risk::HttpSuspContent);
    }
    if (java) c.risk(Risk::PossibleExploit);
  }

  static bool is_response(Bytes x) { return x.size() >= 7 && strncasecmp(reinterpret_cast<const char*>(x.data()), "HTTP/1.", 7) == 0; }

  // ndpi_check_http_tcp; false when the packet rules HTTP out (stage 0).
  bool step(uint8_t dir) {
    const uint8_t stage = st[kStage];
    if (stage == 0) {
      if (size_t u = request_url(b)) {
        process_request(u);
        st[kStage] = uint8_t(dir + 1);
        return true;
      }
      if (!is_response(b)) return false;
      if (!name.master) name.set(0, id(ProtoId::HTTP));
      process_response();
      st[kStage] = uint8_t(dir + 3);
      return true;
    }
    if (stage == 1 || stage == 2) {
      if (stage - dir == 1) {  // more of the request, or another one
        if (size_t u = request_url(b)) {
          if (st[kAsym] < 2) st[kAsym]++;
          reset();
          process_request(u);
          return true;
        }
        check(Str{});
      } else if (is_response(b)) {
        process_response();
        st[kStage] = 0;
      }
      return true;
    }
    if (stage - dir == 3) {  // more of the response, or another one
      if (is_response(b)) {
        if (st[kAsym] < 2) st[kAsym]++;
        reset();
        process_response();
        return true;
      }
      check(Str{});
      return true;
    }
    reset();  // the request after a response
    st[kStage] = 0;
    return step(dir);
  }

  // nDPI stops reading once it has a host name and a status code, or after
  // three requests (responses) in a row on a one-way flow; then it looks at
  // the first bytes of a body for an executable.
  bool finished() {
    const bool asym = st[kAsym] == 2 && (c.flow.pkts[0] == 0 || c.flow.pkts[1] == 0);
    if (!(host_set() && (st[kFlags] & kStatusSet)) && !asym) return false;
    const uint8_t* x = st + kBin;
    const size_t n = st[kBinLen];
    if ((n >= 2 && x[0] == 'M' && x[1] == 'Z') || (n >= 4 && std::memcmp(x, "\x7f" "ELF", 4) == 0) ||
        (n >= 4 && std::memcmp(x, "\xcf\xfa\xed\xfe", 4) == 0) || (n >= 3 && std::memcmp(x, "#!/", 3) == 0) ||
        (n >= 8 && std::memcmp(x, "dex\n035\0", 8) == 0))
      app_transfer();
    return true;
  }
};

// Packets nDPI reads after the match (max_extra_packets_to_check).
constexpr uint8_t kExtraPackets = 8;

Verdict classify_http(DpiCtx& c, Match& m) {
  uint8_t scratch[15] = {};
  const uint8_t dir = c.from_client ? 0 : 1;
  if (c.extra) {
    uint8_t* st = c.info ? c.info->state : scratch;
    if (c.retrans) return Verdict::NeedMore;  // nDPI's reading on passes them by (ndpi_search_http_tcp_again)
    if (uint32_t(c.flow.pkts[0] + c.flow.pkts[1]) > uint32_t(st[kAtMatch]) + kExtraPackets) {
      // Past nDPI's budget nothing is named or judged any more; ntopng's own
      // HTTP parsing still counts the flow's first response (the hosts' HTTP
      // counters): its status is kept while the flow's window lasts.
      FlowMeta* fm = c.meta(MetaKind::Http);
      if (!fm || fm->http.status) return Verdict::No;
      const Bytes b = c.payload;
      if (c.from_client || b.size() < 12 || std::memcmp(b.data(), "HTTP/1.", 7) != 0) return Verdict::NeedMore;
      unsigned status = 0;
      for (size_t i = 9; i < 12 && b[i] >= '0' && b[i] <= '9'; i++) status = status * 10 + unsigned(b[i] - '0');
      if (status >= 100 && status <= 599) fm->http.status = uint16_t(status);
      return Verdict::No;
    }
    Http h{c, st, Name{c.flow.l7_master, c.flow.l7_app}, c.payload, Lines{}};
    const Name before = h.name;
    h.step(dir);
    if (h.name.master != before.master || h.name.app != before.app) c.clf->refine(c.flow, h.name.master, h.name.app);
    return h.finished() ? Verdict::No : Verdict::NeedMore;
  }
  // The flow's state bytes hold the dispatcher's mask until a match: work
  // on a copy, kept only when the packet matches.
  Http h{c, scratch, Name{}, c.payload, Lines{}};
  if (!h.step(dir)) return Verdict::No;
  m.master = h.name.master;
  m.app = h.name.app;
  m.more = !h.finished();
  if (c.info) {
    scratch[kAtMatch] = uint8_t(std::min<uint32_t>(255, c.flow.pkts[0] + c.flow.pkts[1]));
    std::memcpy(c.info->state, scratch, sizeof(scratch));
  }
  return Verdict::Match;
}

}  // namespace

void http_user_agent_risks(DpiCtx& c, const char* ua, size_t n) { check_ua(c, ua, n); }

FG_DISSECTOR(http, {"HTTP", id(ProtoId::HTTP), kL4Tcp, 20, classify_http});

}  // namespace fg
