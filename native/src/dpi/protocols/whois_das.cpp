// ④ WHOIS (RFC 3912 §2: the client sends one query line ended by CRLF to
// TCP port 43; the server answers and closes) and the Domain Availability
// Service (DAS, port 4343: the same line-based exchange).
// nDPI's rule, kept: either port 43 or 4343, and a payload of more than 2
// bytes ending in CRLF names the flow; a query (a packet to 43 / 4343)
// also gives the flow its host name: the query without its CRLF, lower
// case, a tab as a space, other unprintable bytes as '?', trailing spaces
// dropped, its tail kept when too long (nDPI keeps 79 characters, we 39).
// Anything else rules it out at once.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

Verdict classify_whois_das(DpiCtx& c, Match& m) {
  auto whois_port = [](uint16_t p) { return p == 43 || p == 4343; };
  Bytes b = c.payload;
  if (!whois_port(c.p.sport) && !whois_port(c.p.dport)) return Verdict::No;
  if (b.size() <= 2 || b[b.size() - 2] != '\r' || b[b.size() - 1] != '\n') return Verdict::No;
  if (whois_port(c.p.dport)) {
    char name[40];
    const size_t q = b.size() - 2, keep = q < sizeof(name) - 1 ? q : sizeof(name) - 1;
    size_t n = 0;
    for (; n < keep; n++) {
      const uint8_t ch = b[q - keep + n];
      if (ch == 0) break;
      name[n] = ch == '\t' ? ' ' : (ch < 0x20 || ch > 0x7e) ? '?' : char(ch);
    }
    while (n > 0 && name[n - 1] == ' ') n--;
    c.set_host(name, n);  // lowercases
  }
  m.app = id(ProtoId::Whois_DAS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(whois_das, {"Whois-DAS", id(ProtoId::Whois_DAS), kL4Tcp, 1, classify_whois_das});

}  // namespace fg
