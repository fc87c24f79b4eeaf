// ④ POP3 (RFC 1939): the server greets first with "+OK"; the client then
// sends USER, APOP, CAPA, AUTH or STLS. Stateless: a client command reaching
// this dissector means every earlier packet was a "+OK" greeting.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

bool ci_prefix(Bytes b, const char* s) {
  size_t n = std::strlen(s);
  if (b.size() < n) return false;
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = b[i];
    if (ch >= 'a' && ch <= 'z') ch = uint8_t(ch - 32);
    if (ch != uint8_t(s[i])) return false;
  }
  return true;
}

Verdict classify_pop3(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client) {
    if (b.size() >= 5 && std::memcmp(b.data(), "+OK", 3) == 0 && (b[3] == ' ' || b[3] == '\r')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  static const char* const kCmds[] = {"USER ", "APOP ", "CAPA\r", "AUTH", "STLS\r"};
  for (const char* k : kCmds)
    if (ci_prefix(b, k)) {
      m.app = id(ProtoId::POP3);
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(pop3, {"POP3", id(ProtoId::POP3), kL4Tcp, 4, classify_pop3});

}  // namespace fg
