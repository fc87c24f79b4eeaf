// ④ POP3 (RFC 1939): the server greets first with "+OK"; the client then
// sends USER, APOP, CAPA, AUTH or STLS. Stateless: a client command reaching
// this dissector means every earlier packet was a "+OK" greeting.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_pop3(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client) {
    if (b.size() >= 5 && std::memcmp(b.data(), "+OK", 3) == 0 && (b[3] == ' ' || b[3] == '\r')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  static const char* const kCmds[] = {"USER ", "APOP ", "CAPA\r", "AUTH", "STLS\r"};
  for (const char* k : kCmds)
    if (has_at_upper(b, 0, k)) {
      m.app = id(ProtoId::POP3);
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(pop3, {"POP3", id(ProtoId::POP3), kL4Tcp, 4, classify_pop3});

}  // namespace fg
