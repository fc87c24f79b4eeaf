// ④ Git's own transport (git's pack-protocol / protocol-common: pkt-lines),
// TCP 9418 at either end: the flow's first payload, over 4 bytes, is a run of
// pkt-lines, each opening with its length (itself included) in 4 hex digits,
// e.g. "0032git-upload-pack /x.git\0host=h\0". As nDPI: the digits are read as
// C's "%x" reads them (white space, a sign, "0x" allowed); a length of 0
// (flush-pkt) or past the payload rules it out; and its walk, which takes each
// length off the size left as well as adding it to the offset, stops checking
// once the lines read cover about half the payload.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kGitPort = 9418;

int hex_digit(uint8_t ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  ch = uint8_t(ch | 0x20);
  return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

// The 4 characters at p as sscanf("%x") reads them (a NUL ends them early);
// 0 when no digit is read or the value is negative (nDPI then sees a
// length larger than any payload).
uint32_t pkt_length(const uint8_t* p) {
  size_t i = 0;
  while (i < 4 && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r'))) i++;
  bool neg = false;
  if (i < 4 && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
  if (i + 1 < 4 && p[i] == '0' && (p[i + 1] | 0x20) == 'x') i += 2;  // the '0' is a digit already
  uint32_t v = 0;
  for (; i < 4 && hex_digit(p[i]) >= 0; i++) v = v * 16 + uint32_t(hex_digit(p[i]));
  return neg ? 0 : v;
}

Verdict classify_git(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 4 || (c.cli_port != kGitPort && c.srv_port != kGitPort)) return Verdict::No;
  // at + rest == b.size() throughout, so at + 4 < rest keeps the header inside
  size_t at = 0, rest = b.size();
  while (at + 4 < rest) {
    const uint32_t len = pkt_length(b.data() + at);
    if (len == 0 || len > rest) return Verdict::No;
    at += len;
    rest -= len;
  }
  m.app = id(ProtoId::Git);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(git, {"Git", id(ProtoId::Git), kL4Tcp, 1, classify_git});

}  // namespace fg
