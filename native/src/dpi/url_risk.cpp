// ④ nDPI's URL validation: see url_risk.h. Our own code; the patterns and
// command lists are nDPI's data (data/rce-injection.tsv), the XSS and SQL
// injection tests libinjection's (dpi/xss.cpp, dpi/sqli.cpp).
#include "dpi/url_risk.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cstdint>
#include <cstring>
#include <iterator>

#include "dpi/sqli.h"
#include "dpi/xss.h"

namespace fg {
namespace {

#include "dpi/generated/rce-injection.inc"

#define FG_STR(s) s,
constexpr const char* kRegex[] = {FG_RCE_REGEX(FG_STR)};
constexpr const char* kCommands[] = {FG_RCE_USH(FG_STR) FG_RCE_PWSH(FG_STR)};
#undef FG_STR
constexpr size_t kNumRegex = std::size(kRegex);
constexpr size_t kNumCommands = std::size(kCommands);

// Compiled once per process (a function-local static: thread-safe) and only
// read afterwards, which PCRE2 allows from any thread. As nDPI does
// (ndpi_compile_rce_regex): default options (case-sensitive, bytes not
// UTF-8), JIT when the library has it, a pattern that does not compile never
// matches.
struct Patterns {
  pcre2_code* code[kNumRegex] = {};
  // kCommands' indices grouped by first byte, for the substring search
  uint16_t order[kNumCommands];
  uint16_t first[257] = {};
  size_t len[kNumCommands];

  Patterns() {
    for (size_t i = 0; i < kNumRegex; i++) {
      int err = 0;
      PCRE2_SIZE at = 0;
      code[i] = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kRegex[i]), PCRE2_ZERO_TERMINATED, 0, &err, &at, nullptr);
      if (code[i]) pcre2_jit_compile(code[i], PCRE2_JIT_COMPLETE);  // the interpreter runs it otherwise
    }
    size_t count[256] = {};
    for (size_t i = 0; i < kNumCommands; i++) len[i] = std::strlen(kCommands[i]), count[uint8_t(kCommands[i][0])]++;
    for (size_t b = 0; b < 256; b++) first[b + 1] = uint16_t(first[b] + count[b]);
    uint16_t next[256];
    std::memcpy(next, first, sizeof(next));
    for (size_t i = 0; i < kNumCommands; i++) order[next[uint8_t(kCommands[i][0])]++] = uint16_t(i);
  }
};
const Patterns& patterns() {
  static const Patterns p;
  return p;
}

// One match block per thread, made on its first match: pcre2_match needs a
// writable one, and one pair of offsets is all a yes/no answer needs.
struct MatchData {
  pcre2_match_data* md = pcre2_match_data_create(1, nullptr);
  ~MatchData() { pcre2_match_data_free(md); }
};

// ndpi_is_rce_injection on a decoded value: one of the patterns matches, or
// the value contains one of the commands (case-sensitive, as strstr).
bool rce_injection(const char* v, size_t n) {
  const Patterns& p = patterns();
  thread_local MatchData m;
  if (m.md)
    for (pcre2_code* code : p.code)
      // rc 0 would be a match with too few offset pairs kept: still a match
      if (code && pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(v), n, 0, 0, m.md, nullptr) >= 0) return true;
  for (size_t i = 0; i < n; i++) {
    const uint8_t b = uint8_t(v[i]);
    for (uint16_t k = p.first[b]; k < p.first[b + 1]; k++) {
      const uint16_t c = p.order[k];
      if (p.len[c] <= n - i && std::memcmp(v + i, kCommands[c], p.len[c]) == 0) return true;
    }
  }
  return false;
}

int hex(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// ndpi_url_decode: '+' is a space, "%XX" the byte XX; a '%' not followed by
// two hex digits makes the whole value invalid (-1). The result is read as
// a C string afterwards: its length up to the first NUL (a "%00").
long url_decode(const char* s, size_t n, char* out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (ch == '+') {
      ch = ' ';
    } else if (ch == '%') {
      const int hi = i + 1 < n ? hex(s[i + 1]) : -1;
      const int lo = hi >= 0 && i + 2 < n ? hex(s[i + 2]) : -1;
      if (lo < 0) return -1;
      ch = char(hi << 4 | lo);
      i += 2;
    }
    out[k++] = ch;
  }
  return long(strnlen(out, k));
}

}  // namespace

bool url_risk(const char* url, size_t n, Risk& risk) {
  if (n > kUrlValidated) n = kUrlValidated;
  if (const auto* q = static_cast<const char*>(std::memchr(url, '?', n))) {
    const char* p = q + 1;
    const char* const end = url + n;
    char decoded[kUrlValidated];
    for (;;) {
      // the parameters as strtok_r(…, "&") cuts them: empty ones skipped
      while (p < end && *p == '&') p++;
      if (p == end) break;
      const auto* amp = static_cast<const char*>(std::memchr(p, '&', size_t(end - p)));
      const char* te = amp ? amp : end;
      const char* t = p;
      p = te;
      const auto* eq = static_cast<const char*>(std::memchr(t, '=', size_t(te - t)));
      if (!eq) break;  // nDPI stops at the first parameter without '='
      const size_t vn = size_t(te - (eq + 1));
      if (vn == 0) continue;
      const long dn = url_decode(eq + 1, vn, decoded);
      if (dn <= 0) continue;  // invalid escape, or nothing left
      // nDPI's order: libinjection's XSS, then its SQL injection test, then
      // the RCE patterns; the first risky value ends the walk
      const size_t len = size_t(dn);
      if (xss(decoded, len)) {
        risk = Risk::UrlXss;
        return true;
      }
      if (sqli(decoded, len)) {
        risk = Risk::UrlSqlInjection;
        return true;
      }
      if (rce_injection(decoded, len)) {
        risk = Risk::UrlRceInjection;
        return true;
      }
    }
  }
  if (n >= 2 && memmem(url, n, "..", 2)) {  // e.g. /msadc/..%255c../winnt/system32/cmd.exe
    risk = Risk::HttpSuspUrl;
    return true;
  }
  return false;
}

}  // namespace fg
