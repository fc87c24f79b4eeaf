// The DGA heuristics (dga.h). nDPI's thresholds, checked in that order:
// some names are never suspicious (reverse lookups, local TLDs, '_' or '-',
// IPv4 literals, a label ending in two digits among the name's first
// digits), some always are (six or more dots after a non-numeric first
// label, a character repeated six times, a 19+ character label when the
// name also has digits or ends in a doubled character); the rest is judged
// by the letters of its first two labels.
#include "dpi/dga.h"

#include <cstdint>
#include <cstring>

namespace fg {
namespace {

#include "dpi/generated/dga-ngrams.inc"

constexpr size_t kKept = 79;  // nDPI's host_server_name holds the name's last 79 characters

bool digit(char c) { return c >= '0' && c <= '9'; }
bool letter(char c) { return c >= 'a' && c <= 'z'; }
// 'x' and 'y' count as vowels for nDPI.
bool vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y' || c == 'x'; }

template <size_t N>
bool in_table(const uint32_t (&bits)[N], const char* s, int n) {
  uint32_t c = 0;
  for (int i = 0; i < n; i++) {
    if (!letter(s[i])) return false;
    c = c * 26 + uint32_t(s[i] - 'a');
  }
  return bits[c >> 5] >> (c & 31) & 1;
}

bool ends_with(const char* s, size_t n, const char* tail) {
  size_t t = std::strlen(tail);
  return n >= t && std::memcmp(s + n - t, tail, t) == 0;
}

// A canonical dotted quad ("10.0.0.1": no leading zeros, each part ≤ 255).
bool ipv4_literal(const char* s, size_t n) {
  size_t i = 0;
  for (int part = 0; part < 4; part++) {
    if (part && (i >= n || s[i++] != '.')) return false;
    size_t start = i;
    unsigned v = 0;
    while (i < n && digit(s[i]) && i - start < 3) v = v * 10 + unsigned(s[i++] - '0');
    if (i == start || v > 255 || (s[start] == '0' && i - start > 1)) return false;
  }
  return i == n;
}

// Many bigrams that English never has against few it has (nDPI: more than
// a fifth of found + 1).
bool too_many_impossible(int found, int impossible) {
  if (impossible <= 1) return false;
  return found == 0 || impossible > (found + 1) * 20 / 100;
}

}  // namespace

bool dga_suspicious(const char* name, size_t len) {
  char buf[kKept + 1];
  if (len > kKept) name += len - kKept, len = kKept;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    buf[i] = (c >= 'A' && c <= 'Z') ? char(c + 32) : c;
  }
  const char* s = buf;
  size_t n = len;
  if (std::memchr(s, '_', n) || std::memchr(s, '-', n)) return false;
  if (ends_with(s, n, "in-addr.arpa") || ends_with(s, n, "ip6.arpa") || ends_with(s, n, ".local") || ends_with(s, n, ".lan") ||
      ends_with(s, n, ".home"))
    return false;
  if (ipv4_literal(s, n)) return false;
  // (nDPI compares "www." before folding case: "WWW." stays)
  if (n >= 4 && std::memcmp(name, "www.", 4) == 0) s += 4, n -= 4;
  if (n < 5) return false;

  // Whole-name counts.
  int dots = 0, vowels = 0, digits = 0;
  bool first_numeric = true;
  int run = 0, max_run = 0, label = 0, max_label = 0;
  char last = 0;
  for (size_t j = 0; j < n; j++) {
    const char c = s[j];
    if (c == '.') dots++;
    else if (dots == 0 && !digit(c)) first_numeric = false;
    vowels += vowel(c);
    if (c == last) {
      if (++run > max_run) max_run = run;
    } else {
      run = 1, last = c;
    }
    if (digit(c)) {
      digits++;
      // "a1.", "ab12.": a short number ending a label is a counter, not noise
      if (j + 2 < n && digit(s[j + 1]) && s[j + 2] == '.' && digits < 4) return false;
    }
    if (c == '.' || c == '/' || c == '(' || c == ')' || c == ';' || c == ':' || c == '[' || c == ']' || c == ' ') {
      if (label > max_label) max_label = label;
      label = 0;
    } else {
      label++;
    }
  }
  if (dots == 0) return false;
  if (label > max_label) max_label = label;
  if ((dots > 5 && !first_numeric) || max_run > 5 || (max_label >= 19 && (run > 1 || digits > 1))) return true;

  // The first two labels, letter pairs and triples; labels under five
  // letters, and short ones ending in "cdn", are not judged.
  int bigram_checks = 0, found = 0, impossible = 0;
  int tri_checked = 0, tri_found = 0, tri_vowels = 0, words = 0;
  int first_digits = 0;  // longest digit run in the first label
  bool skip_bigram = false;
  for (size_t at = 0; at < n;) {
    while (at < n && s[at] == '.') at++;
    if (at == n) break;
    size_t end = at;
    while (end < n && s[end] != '.') end++;
    const char* w = s + at;
    const size_t wl = end - at;
    at = end;
    if (++words > 2) break;
    if (wl < 5 || (wl < 10 && w[wl - 3] == 'c' && w[wl - 2] == 'd' && w[wl - 1] == 'n')) continue;
    int tri_skip = 0, digit_run = 0;
    for (size_t i = 0; i + 1 < wl; i++) {  // (nDPI leaves the label's last character out of the runs)
      if (digit(w[i])) {
        digit_run++;
      } else {
        if (words == 1 && digit_run > first_digits) first_digits = digit_run;
        digit_run = 0;
      }
      if (w[i] == ':') continue;
      bigram_checks++;
      if (in_table(kImpossibleBigrams, w + i, 2)) {
        impossible++;
      } else if (!skip_bigram) {
        if (in_table(kBigrams, w + i, 2)) found++, skip_bigram = true;
      } else {
        skip_bigram = false;
      }
      if (i + 2 < wl) {
        if (!digit(w[i]) && !digit(w[i + 1]) && !digit(w[i + 2])) {
          if (tri_skip) {
            tri_skip--;
          } else {
            tri_checked++;
            if (in_table(kTrigrams, w + i, 3)) tri_found++, tri_skip = 2;
            tri_vowels += vowel(w[i]) + vowel(w[i + 1]) + vowel(w[i + 2]);
          }
        } else {
          tri_skip = 0;
        }
      }
    }
    if (words == 1 && digit_run > first_digits) first_digits = digit_run;
  }

  bool dga = false;
  // Long, few labels, under a quarter vowels: unless its triples carry vowels.
  if (n > 16 && dots < 3 && vowels * 4 < int(n) - dots && !(tri_checked > 2 && tri_vowels >= tri_found - 1)) dga = true;
  if (bigram_checks &&
      (found == 0 || (digits > 5 && words <= 3 && impossible > 0) || too_many_impossible(found, impossible) ||
       (tri_checked > 2 && (tri_found < tri_checked / 2 || (tri_vowels < tri_found - 1 && dots > 1 && impossible > 0)))))
    dga = true;
  if (tri_checked > 2 && vowels == 0) dga = true;
  // A first label with three digits in a row is a numbering scheme (hosts, shards).
  if (first_digits > 2) dga = false;
  return dga;
}

}  // namespace fg
