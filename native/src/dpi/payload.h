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

// `s` anywhere in the payload.
inline bool contains(Bytes b, std::string_view s) {
  if (s.empty()) return true;
  for (size_t i = 0; i + s.size() <= b.size(); i++)
    if (std::memcmp(b.data() + i, s.data(), s.size()) == 0) return true;
  return false;
}

// An RTP header (version 2, a static or dynamic payload type, not RTCP's),
// as nDPI's RTP heuristic reads it (dpi/protocols/rtp.cpp).
inline bool rtp_shaped(Bytes b) {
  if (b.size() < 12 || (b[0] & 0xc0) != 0x80) return false;
  const uint8_t pt = b[1] & 0x7f;
  if (pt >= 72 && pt <= 76) return false;  // RTCP's sender report… as a marker + type
  return pt <= 34 || pt >= 96;
}

}  // namespace fg
