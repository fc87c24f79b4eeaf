// ④ IMAP (RFC 9051): the server greets first with an untagged "* OK" (or
// "* PREAUTH"); the client then sends tagged commands, "<tag> CAPABILITY",
// "<tag> LOGIN …", "<tag> STARTTLS" … After the match the client's commands
// are read on for a LOGIN naming a user (nDPI's clear-text credentials;
// AUTHENTICATE's base64 exchanges are not decoded).
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

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

Verdict classify_imap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) {
    if (!c.from_client) return Verdict::NeedMore;
    size_t at = after_tag(b);
    if (!at) return Verdict::NeedMore;
    if (login(b, at)) {
      c.risk(Risk::ClearTextCredentials);
      return Verdict::No;
    }
    return command_at(b, at, "STARTTLS") ? Verdict::No : Verdict::NeedMore;  // TLS from here on
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
      if (login(b, at)) c.risk(Risk::ClearTextCredentials);
      else m.more = !command_at(b, at, "STARTTLS");
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(imap, {"IMAP", id(ProtoId::IMAP), kL4Tcp, 4, classify_imap});

}  // namespace fg
