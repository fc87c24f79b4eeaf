// ④ IRC (RFC 1459 / 2812; TCP, any port: nDPI 4.11 has no port rule or DCC
// tracking), first 9 packets either way, on packets of 8+ bytes ending in LF
// (or LF NUL): seven lines opening ":prefix" name it, as does a command packet
// (USER, NICK, PASS, PING, PONG, JOIN, MODE, NOTICE, PRIVMSG, VERSION + space,
// or ":prefix" with NOTICE/PRIVMSG) with a later NICK or USER line, or the third
// command packet; so do nDPI's HTTP chat bodies after exactly one command
// packet. Like nDPI, ':' lines and command packets are counted across packets
// (kScratchIrc: stage, ':' lines). "USER " raises clear-text credentials.
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kMaxLines = 63;  // lines nDPI's line splitter keeps

constexpr std::string_view kCommands[] = {"USER ", "NICK ", "PASS ", "PONG ", "PING ", "JOIN ",
                                          "MODE ", "NOTICE ", "PRIVMSG ", "VERSION "};

struct Lines {
  unsigned colons = 0;     // lines opening with ':'
  bool nick_user = false;  // a line after the first opening "NICK " or "USER "
};

// The packet's lines split at CRLF (crlf) or at LF (a CR before it dropped),
// as many as nDPI keeps.
Lines read_lines(Bytes b, bool crlf) {
  Lines r;
  size_t start = 0, n = 0;
  for (size_t a = 0; a < b.size() && n < kMaxLines; a++) {
    size_t next;
    if (crlf) {
      if (b[a] != '\r' || a + 1 >= b.size() || b[a + 1] != '\n') continue;
      next = a + 2;
    } else {
      if (b[a] != '\n') continue;
      next = a + 1;
    }
    // line n is [start, a); neither ':' nor "NICK "/"USER " holds a line end
    if (b[start] == ':') r.colons++;
    if (n > 0 && (has_at(b, start, "NICK ") || has_at(b, start, "USER "))) r.nick_user = true;
    n++;
    start = next;
    a = next - 1;
  }
  return r;
}

// nDPI's IRC-over-HTTP forms: a body opening "interface=" (over 10 bytes)
// with "Nick=", "Nickname=" or "NickName=" (N either case) somewhere, or
// opening "item=" (over 5 bytes) with "cmd=" and a byte after it.
bool web_chat(Bytes b) {
  const size_t n = b.size();
  if (n > 10 && has_at(b, 0, "interface=")) {
    for (size_t i = 0; i + 5 <= n; i++) {
      if (b[i] != 'N' && b[i] != 'n') continue;
      if (has_at(b, i + 1, "ick=") || has_at(b, i + 1, "ickname=") || has_at(b, i + 1, "ickName=")) return true;
    }
  }
  if (n > 5 && has_at(b, 0, "item=")) {
    for (size_t i = 0; i + 5 <= n; i++)
      if (b[i] == 'c' && has_at(b, i + 1, "md=")) return true;
  }
  return false;
}

Verdict classify_irc(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  uint8_t* st = c.scratch(kScratchIrc);  // [0] command packets seen (nDPI's irc_stage), [1] ':' lines
  if (!st) return Verdict::No;            // nowhere to count
  const size_t n = b.size();
  const bool lf_end = n >= 8 && (b[n - 1] == '\n' || (b[n - 2] == '\n' && b[n - 1] == 0));
  if (lf_end) {
    const bool crlf = b[n - 2] == '\r';  // then b[n - 1] is '\n'
    const bool nul_end = b[n - 1] == 0;  // "\n\0": nDPI splits no lines, counts one
    Lines lines;
    if (!nul_end) lines = read_lines(b, crlf);
    if (b[0] == ':') {
      const unsigned before = st[1];
      const unsigned after = before + (nul_end ? 1 : lines.colons);
      st[1] = uint8_t(after > 255 ? 255 : after);
      if (before < 7 && after >= 7) {  // nDPI names it when its counter reaches 7
        m.app = id(ProtoId::IRC);
        return Verdict::Match;
      }
    }
    bool command = b[0] == ':' && (contains(b, "NOTICE") || contains(b, "PRIVMSG"));
    for (std::string_view w : kCommands) command = command || has_at(b, 0, w);
    if (command) {
      // nDPI reads a user name in clear from "USER " anywhere before a NUL.
      size_t text = 0;
      while (text < n && b[text] != 0) text++;
      if (contains(b.first(text), "USER ")) c.risk(Risk::ClearTextCredentials);
      // the third command packet, or NICK / USER on a later line of this one
      if (st[0] >= 2 || lines.nick_user) {
        m.app = id(ProtoId::IRC);
        return Verdict::Match;
      }
      st[0]++;
      return Verdict::NeedMore;
    }
  }
  // nDPI's web chat forms, after exactly one command packet
  if (st[0] == 1 && web_chat(b)) {
    m.app = id(ProtoId::IRC);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(irc, {"IRC", id(ProtoId::IRC), kL4Tcp, 9, classify_irc});

}  // namespace fg
