// ④ Byte-pattern tests the dissectors share.
#pragma once
#include <cstring>
#include <string_view>

#include "util/bytes.h"

namespace fg {

// `s` at offset `at` of the payload, byte for byte.
inline bool has_at(Bytes b, size_t at, std::string_view s) {
  return b.size() >= at && b.size() - at >= s.size() && std::memcmp(b.data() + at, s.data(), s.size()) == 0;
}

// The same with the payload's ASCII letters folded to upper case: `s` is
// written in upper case ("EHLO ", "* OK").
inline bool has_at_upper(Bytes b, size_t at, std::string_view s) {
  if (b.size() < at || b.size() - at < s.size()) return false;
  for (size_t i = 0; i < s.size(); i++) {
    uint8_t ch = b[at + i];
    if (ch >= 'a' && ch <= 'z') ch = uint8_t(ch - 32);
    if (ch != uint8_t(s[i])) return false;
  }
  return true;
}

// A command word at the start of a line-based protocol's message ("USER",
// "PASS"), upper case, followed by a space, a line end or nothing.
inline bool command_at(Bytes b, size_t at, std::string_view word) {
  if (!has_at_upper(b, at, word)) return false;
  size_t e = at + word.size();
  return e == b.size() || b[e] == ' ' || b[e] == '\r' || b[e] == '\n' || b[e] == '\t';
}

// A USER or PASS command: a login in clear (FTP, POP3), either one enough
// for nDPI's clear-text credentials.
inline bool user_or_pass(Bytes b) { return command_at(b, 0, "USER") || command_at(b, 0, "PASS"); }

// Where `w` first occurs in h[0..n), or null: memchr to each candidate
// first byte, then a compare (glibc's memmem builds a shift table per call,
// dearer than the search on the short texts and rare first bytes here).
inline const char* find_bytes(const void* h, size_t n, std::string_view w) {
  const char* p = static_cast<const char*>(h);
  if (w.empty()) return p;
  if (n < w.size()) return nullptr;
  const char* const last = p + (n - w.size());
  for (;; p++) {
    p = static_cast<const char*>(std::memchr(p, w[0], size_t(last - p) + 1));
    if (!p) return nullptr;
    if (std::memcmp(p + 1, w.data() + 1, w.size() - 1) == 0) return p;
    if (p == last) return nullptr;
  }
}

// `s` anywhere in the payload.
inline bool contains(Bytes b, std::string_view s) { return find_bytes(b.data(), b.size(), s) != nullptr; }

// `w` anywhere in v[0..n), ASCII letters in any case (strncasecmp at each
// offset, without a call per offset).
inline bool contains_nocase(const char* v, size_t n, std::string_view w) {
  if (w.empty()) return true;
  auto fold = [](char ch) { return ch >= 'A' && ch <= 'Z' ? char(ch + 32) : ch; };
  const char first = fold(w[0]);
  for (size_t i = 0; i + w.size() <= n; i++) {
    if (fold(v[i]) != first) continue;
    size_t k = 1;
    while (k < w.size() && fold(v[i + k]) == fold(w[k])) k++;
    if (k == w.size()) return true;
  }
  return false;
}

// nDPI's host name test (ndpi_is_valid_hostname): letters, digits and
// . - _ : only; a name failing it raises Invalid Characters and Possible
// Exploit where nDPI reads one (HTTP Host, QUIC's SNI tag, FastCGI).
inline bool valid_hostname(const uint8_t* s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const uint8_t ch = s[i];
    if (ch == '.' || ch == '-' || ch == '_' || ch == ':') continue;
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return false;
  }
  return true;
}
inline bool valid_hostname(const char* s, size_t n) { return valid_hostname(reinterpret_cast<const uint8_t*>(s), n); }

// A host name as nDPI keeps it (ndpi_hostname_sni_set, every
// normalization on): the value's last 79 bytes, cut at a NUL, ASCII letters
// in lower case, a tab as a space, any other byte outside 0x20..0x7e as
// '?', trailing spaces dropped. Writes out[0..79], returns the length.
inline size_t ndpi_host_name(const uint8_t* v, size_t n, char (&out)[80]) {
  const size_t k = n < 79 ? n : 79;
  size_t i = 0;
  for (; i < k; i++) {
    char ch = char(v[n - k + i]);
    if (!ch) break;
    if (ch >= 'A' && ch <= 'Z') ch = char(ch + 32);
    if (ch == '\t') ch = ' ';
    if (ch < 0x20 || ch > 0x7e) ch = '?';
    out[i] = ch;
  }
  while (i && out[i - 1] == ' ') i--;
  out[i] = 0;
  return i;
}

// The domains ndpiReader is given as risky (its example/risky_domains.txt,
// Spamhaus's worst top-level domains), matched at the name's end: nDPI's
// Risky Domain for a name it matches against its host list.
inline bool risky_domain(const char* s, size_t len) {
  static constexpr std::string_view kRisky[] = {".fail", ".viajes", ".exposed", ".london", ".work", ".gq", ".ml", ".surk", ".tk", ".xyz"};
  const std::string_view name(s, len);
  for (std::string_view d : kRisky)
    if (name.size() >= d.size() && name.substr(name.size() - d.size()) == d) return true;
  return false;
}

// "xn--" anywhere in the name: nDPI's Punycode/IDN risk, raised with it.
inline bool punycode(const char* s, size_t len) { return find_bytes(s, len, "xn--") != nullptr; }

// An RTP header (version 2, a static or dynamic payload type, not RTCP's),
// as nDPI's RTP heuristic reads it (dpi/protocols/rtp.cpp).
inline bool rtp_shaped(Bytes b) {
  if (b.size() < 12 || (b[0] & 0xc0) != 0x80) return false;
  const uint8_t pt = b[1] & 0x7f;
  if (pt >= 72 && pt <= 76) return false;  // RTCP's sender report… as a marker + type
  return pt <= 34 || pt >= 96;
}

// nDPI's BER length at b[at] (LDAP, SNMP): the value, or -1; `n` gets the
// length's own size (left alone on failure). 0x80 reads as a short length
// of 128 and 0xff fails, as nDPI reads them.
inline int64_t ber_length(Bytes b, size_t at, size_t& n) {
  if (at >= b.size()) return -1;
  const size_t avail = b.size() - at;
  const uint8_t first = b[at];
  if (first == 0xff) return -1;
  if (first <= 0x80) {
    n = 1;
    return first;
  }
  const size_t k = first & 0x7f;
  if (k > 4 || avail <= k + 1) return -1;
  uint64_t v = 0;
  for (size_t i = 1; i <= k; i++) v = v << 8 | b[at + i];
  n = k + 1;
  return int64_t(v);
}

}  // namespace fg
