// ④ Syslog, as nDPI's syslog.c, over TCP or UDP on any port, on the flow's
// first payload packet (anything else excludes): more than 20 bytes; '<',
// up to three digits (none is fine, the value is not range-checked), '>';
// an optional space; then letters and digits up to the first ' ', ':',
// '=', '[' or '-' (any other character excludes), and a ':' there must be
// followed by a space.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool alnum(uint8_t ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'); }

Verdict classify_syslog(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if (n <= 20 || b[0] != '<') return Verdict::No;
  size_t i = 1;
  while (i <= 3 && b[i] >= '0' && b[i] <= '9') i++;
  if (b[i++] != '>') return Verdict::No;
  if (b[i] == ' ') i++;
  for (; i < n - 1; i++) {
    const uint8_t ch = b[i];
    if (alnum(ch)) continue;
    if (ch == ' ' || ch == ':' || ch == '=' || ch == '[' || ch == '-') break;
    return Verdict::No;
  }
  if (b[i] == ':' && (i + 1 >= n || b[i + 1] != ' ')) return Verdict::No;
  m.app = id(ProtoId::Syslog);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(syslog, {"Syslog", id(ProtoId::Syslog), kL4Both, 1, classify_syslog});

}  // namespace fg
