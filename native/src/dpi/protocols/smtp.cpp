// ④ SMTP (RFC 5321): the server greets first with "220 " (or "220-" for a
// multi-line greeting); the client answers EHLO or HELO. Stateless: a client
// command reaching this dissector means every earlier packet was a greeting.
// A STARTTLS upgrade stays SMTP, as we match on the EHLO before it.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_smtp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client) {
    if (b.size() >= 6 && std::memcmp(b.data(), "220", 3) == 0 && (b[3] == ' ' || b[3] == '-')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  if ((has_at_upper(b, 0, "EHLO ") || has_at_upper(b, 0, "HELO ")) && b.size() >= 7) {
    m.app = id(ProtoId::SMTP);
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(smtp, {"SMTP", id(ProtoId::SMTP), kL4Tcp, 4, classify_smtp});

}  // namespace fg
