// ④ IMAP (RFC 9051): the server greets first with an untagged "* OK" (or
// "* PREAUTH"); the client then sends tagged commands, "<tag> CAPABILITY",
// "<tag> LOGIN …", "<tag> STARTTLS" … After the match the client's commands
// are read on for a LOGIN naming a user (nDPI's clear-text credentials;
// AUTHENTICATE's base64 exchanges are not decoded). STARTTLS (RFC 9051
// §6.2.1) answered "<tag> OK" makes the flow IMAPS and the TLS handshake is
// read on (nDPI's opportunistic-TLS dissection); "NO"/"BAD" goes back to
// reading commands. As nDPI does (src/lib/protocols/mail_imap.c), a line
// "<tag> AUTHENTICATE …" names the flow IMAPS.
// Kept difference: nDPI counts IMAP lines (responses and commands) over
// the flow and names it IMAP only once a LOGIN gave a user name or at the
// 7th such line; no scratch slot is free for that count, so the first
// client command after the greeting names it here.
#include <cstring>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

// Where the command starts after "<tag> ", 0 when there is no tag: 1–16
// printable characters other than space and specials.
size_t after_tag(Bytes b) {
  size_t i = 0;
  while (i < b.size() && i < 16 && b[i] > ' ' && b[i] < 0x7f && b[i] != '(' && b[i] != ')' && b[i] != '{' && b[i] != '*' && b[i] != '%' && b[i] != '"' && b[i] != '\\') i++;
  if (i == 0 || i >= b.size() || b[i] != ' ') return 0;
  return i + 1;
}

// "<tag> LOGIN user …": a user name follows the command (quoted or not).
bool login(Bytes b, size_t at) {
  if (!command_at(b, at, "LOGIN")) return false;
  for (size_t i = at + 5; i < b.size(); i++) {
    if (b[i] == '\r' || b[i] == '\n') return false;
    if (b[i] != ' ' && b[i] != '"') return true;
  }
  return false;
}

// nDPI's reading of a line's tag (src/lib/protocols/mail_imap.c): up to 20
// characters, letters, digits, '*' or '.', to a space that does not end
// the packet, then maybe a number to the next space; where the command
// starts, 0 when the line does not parse.
size_t ndpi_command_start(Bytes b) {
  const size_t n = b.size();
  auto alnum = [](uint8_t ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'); };
  size_t i = 0, space = 0;
  for (; i < 20 && i < n; i++) {
    if (i > 0 && b[i] == ' ') {
      space = i;
      break;
    }
    if (!alnum(b[i]) && b[i] != '*' && b[i] != '.') return 0;
  }
  if (space == 0 || space == n - 1) return 0;
  i++;
  if (i < n && b[i] >= '0' && b[i] <= '9') {
    for (; i < 20 && i < n; i++) {
      if (b[i] == ' ') {
        space = i;
        break;
      }
      if (b[i] < '0' || b[i] > '9') return 0;
    }
    if (space == n - 1) return 0;
  }
  return space + 1;
}

// "<tag> AUTHENTICATE…" as nDPI reads it, the line ending in CRLF.
bool authenticate(Bytes b) {
  if (b.size() < 4 || b[b.size() - 2] != '\r' || b[b.size() - 1] != '\n') return false;
  const size_t at = ndpi_command_start(b);
  return at && at + 12 < b.size() && has_at_upper(b, at, "AUTHENTICATE");
}

enum ImapState : uint8_t { kCommands = 0, kTlsAsked = 1, kInTls = 2 };

// After the match: logins, and the STARTTLS upgrade.
Verdict read_on(DpiCtx& c) {
  Bytes b = c.payload;
  uint8_t& st = c.info->state[0];
  if (st == kInTls) return tls_after_starttls(c);
  size_t at = after_tag(b);
  if (!c.from_client) {
    if (st == kTlsAsked && at) {
      if (command_at(b, at, "OK")) {
        tls_begins(c, 0, id(ProtoId::IMAPS));
        st = kInTls;
      } else if (command_at(b, at, "NO") || command_at(b, at, "BAD")) {
        st = kCommands;
      }
    }
    return Verdict::NeedMore;
  }
  if (!at) return Verdict::NeedMore;
  // nDPI, not having named the flow yet (it waits for a LOGIN's user name
  // or the 7th IMAP line), names it IMAPS on AUTHENTICATE. Kept difference:
  // no count of IMAP lines is kept, so the flow's 6th packet stands in.
  if (c.flow.dpi_packets <= 6 && authenticate(b)) {
    c.clf->refine(c.flow, 0, id(ProtoId::IMAPS));
    return Verdict::No;
  }
  if (login(b, at)) {
    c.risk(Risk::ClearTextCredentials);
    return Verdict::No;
  }
  if (command_at(b, at, "STARTTLS")) st = kTlsAsked;
  return Verdict::NeedMore;
}

Verdict classify_imap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return read_on(c);
  // nDPI names a flow IMAPS at once on a line (either way, any packet)
  // "<tag> AUTHENTICATE…" ending in CRLF: what follows it does not read.
  if (authenticate(b)) {
    m.app = id(ProtoId::IMAPS);
    return Verdict::Match;
  }
  if (!c.from_client) {
    if (has_at_upper(b, 0, "* OK") || has_at_upper(b, 0, "* PREAUTH")) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  size_t at = after_tag(b);
  if (!at) return Verdict::No;
  static const char* const kCmds[] = {"CAPABILITY", "LOGIN ", "STARTTLS", "AUTHENTICATE ", "ID ", "NOOP", "SELECT ", "LIST ", "EXAMINE "};
  for (const char* k : kCmds)
    if (has_at_upper(b, at, k)) {
      m.app = id(ProtoId::IMAP);
      if (login(b, at)) {
        c.risk(Risk::ClearTextCredentials);
        return Verdict::Match;
      }
      if (c.info) {
        c.info->state[0] = command_at(b, at, "STARTTLS") ? kTlsAsked : kCommands;
        m.more = true;
      }
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(imap, {"IMAP", id(ProtoId::IMAP), kL4Tcp, 4, classify_imap});

}  // namespace fg
