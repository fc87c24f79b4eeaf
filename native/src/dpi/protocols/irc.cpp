// ④ IRC (RFC 1459 / 2812), TCP, any port, as nDPI 4.11 reads it (irc.c):
// no DCC tracking, no port rule. Asked while fewer than 10 payload packets
// were seen either way, on packets of 8+ bytes ending in LF (or LF NUL):
// - opening ':' (a prefixed message): its lines opening ':' are counted
//   across packets; the 7th names the flow (a packet ending LF NUL counts
//   one, whatever it holds);
// - a command packet (USER, NICK, PASS, PONG, PING, JOIN, MODE, NOTICE,
//   PRIVMSG or VERSION and a space at the start, case as written, or ':'
//   with NOTICE / PRIVMSG anywhere): the third such packet names it, as does
//   one whose line 2 or later opens "NICK " or "USER "; "USER " anywhere
//   before a NUL raises clear-text credentials, match or not;
// - after exactly one command packet, nDPI's web chat bodies: "interface="
//   (over 10 bytes) with Nick= / Nickname= / NickName= (N either case), or
//   "item=" (over 5 bytes) with "cmd=" and a byte after it.
// Lines are nDPI's split of the packet: its CRLF split (http_sub.h) for a
// packet ending CRLF, its split at every LF (a CR before it dropped, at
// most 63 lines) for one ending in a bare LF — unless an earlier dissector
// split the packet already (RTSP on a flow's first packets does): nDPI
// splits a packet once, so IRC then counts the CRLF lines (none without a
// CRLF). State (kScratchIrc): command packets seen (nDPI's irc_stage) and
// ':' lines counted (its irc_3a_counter).
#include <cstring>
#include <string_view>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"

namespace fg {
namespace {

constexpr uint8_t kMaxPackets = 9;  // nDPI gives up at its 10th payload packet
constexpr size_t kMaxLfLines = 63;  // lines nDPI's LF split keeps

constexpr std::string_view kCommands[] = {"USER ", "NICK ", "PASS ", "PONG ", "PING ", "JOIN ",
                                          "MODE ", "NOTICE ", "PRIVMSG ", "VERSION "};

// What IRC reads of a packet's lines.
struct Lines {
  unsigned colons = 0;     // non-empty lines opening ':'
  bool nick_user = false;  // a line after the first opening "NICK " or "USER "
};

void note_line(Bytes b, size_t at, size_t len, size_t index, Lines& r) {
  if (len == 0) return;
  if (b[at] == ':') r.colons++;
  // "NICK " / "USER " hold no line end, so a match lies within the line
  if (index > 0 && (has_at(b, at, "NICK ") || has_at(b, at, "USER "))) r.nick_user = true;
}

// nDPI's CRLF split, as many lines as its dissectors loop over.
Lines crlf_lines(Bytes b) {
  Lines r;
  const NdpiLines& t = ndpi_lines(b);
  const size_t n = ndpi_line_count(t, b);
  for (size_t i = 0; i < n; i++) note_line(b, t.off[i], t.len[i], i, r);
  return r;
}

// nDPI's split at each LF (ndpi_parse_packet_line_info_any): a CR before
// the LF is not part of the line; bytes after the last LF make no line.
Lines lf_lines(Bytes b) {
  Lines r;
  const uint8_t* const s = b.data();
  const uint8_t* const end = s + b.size();
  const uint8_t* start = s;
  for (size_t i = 0; i < kMaxLfLines && start < end; i++) {
    const auto* lf = static_cast<const uint8_t*>(std::memchr(start, '\n', size_t(end - start)));
    if (!lf) break;
    size_t len = size_t(lf - start);
    if (len && lf[-1] == '\r') len--;
    note_line(b, size_t(start - s), len, i, r);
    start = lf + 1;
  }
  return r;
}

// nDPI's IRC-over-HTTP forms (check_for_Nickname, check_for_cmd).
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
  uint8_t* st = c.scratch(kScratchIrc);  // [0] command packets seen, [1] ':' lines
  if (!st) return Verdict::No;            // nowhere to count
  const size_t n = b.size();
  if (n >= 8 && (b[n - 1] == '\n' || (b[n - 2] == '\n' && b[n - 1] == 0))) {
    const bool crlf_end = b[n - 2] == '\r';               // then b[n - 1] is '\n'
    const bool lf_end = !crlf_end && b[n - 1] == '\n';    // else it ends LF NUL: no lines
    Lines lines;
    if (lf_end && !ndpi_lines_taken(b) && !flow_is_http(c)) lines = lf_lines(b);
    else if (crlf_end || lf_end) lines = crlf_lines(b);
    if (b[0] == ':') {
      const unsigned before = st[1];
      const unsigned after = before + (crlf_end || lf_end ? lines.colons : 1);
      st[1] = uint8_t(after > 255 ? 255 : after);
      if (before < 7 && after >= 7) {  // nDPI names it as its counter reaches 7
        m.app = id(ProtoId::IRC);
        return Verdict::Match;
      }
    }
    bool command = b[0] == ':' && (contains(b, "NOTICE") || contains(b, "PRIVMSG"));
    for (std::string_view w : kCommands) command = command || has_at(b, 0, w);
    if (command) {
      const void* nul = std::memchr(b.data(), 0, n);
      const size_t text = nul ? size_t(static_cast<const uint8_t*>(nul) - b.data()) : n;
      if (contains(b.first(text), "USER ")) c.risk(Risk::ClearTextCredentials);
      if (st[0] >= 2 || lines.nick_user) {
        m.app = id(ProtoId::IRC);
        return Verdict::Match;
      }
      st[0]++;
      return Verdict::NeedMore;  // no web chat body opens with a command
    }
  }
  if (st[0] == 1 && web_chat(b)) {
    m.app = id(ProtoId::IRC);
    return Verdict::Match;
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(irc, {"IRC", id(ProtoId::IRC), kL4Tcp, kMaxPackets, classify_irc});

}  // namespace fg
