// ④ IMAP (RFC 9051): the server greets first with an untagged "* OK" (or
// "* PREAUTH"); the client then sends tagged commands, "<tag> CAPABILITY",
// "<tag> LOGIN …", "<tag> STARTTLS" …
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_imap(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client) {
    if (has_at_upper(b, 0, "* OK") || has_at_upper(b, 0, "* PREAUTH")) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  // A tag: 1–16 printable characters other than space and specials.
  size_t i = 0;
  while (i < b.size() && i < 16 && b[i] > ' ' && b[i] < 0x7f && b[i] != '(' && b[i] != ')' && b[i] != '{' && b[i] != '*' && b[i] != '%' && b[i] != '"' && b[i] != '\\') i++;
  if (i == 0 || i >= b.size() || b[i] != ' ') return Verdict::No;
  static const char* const kCmds[] = {"CAPABILITY", "LOGIN ", "STARTTLS", "AUTHENTICATE ", "ID ", "NOOP", "SELECT ", "LIST ", "EXAMINE "};
  for (const char* k : kCmds)
    if (has_at_upper(b, i + 1, k)) {
      m.app = id(ProtoId::IMAP);
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(imap, {"IMAP", id(ProtoId::IMAP), kL4Tcp, 4, classify_imap});

}  // namespace fg
