// ④ WHOIS (RFC 3912 §2: the client sends one query line ended by CRLF to
// TCP port 43; the server answers and closes) and the Domain Availability
// Service (DAS, port 4343: the same line-based exchange).
// nDPI's rule, kept: either port 43 or 4343, and a payload of more than 2
// bytes ending in CRLF names the flow; a query (a packet to 43 / 4343)
// also gives the flow its host name: the query without its CRLF, lower
// case, a tab as a space, other unprintable bytes as '?', trailing spaces
// dropped, the query's last 79 bytes kept (payload.h ndpi_host_name), of
// which we store the first 39 characters as for every name.
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
    char name[80];
    const size_t n = ndpi_host_name(b.data(), b.size() - 2, name);  // nDPI's stored name
    c.set_host(name, n);  // its first 39 characters, as every dissector keeps it
  }
  m.app = id(ProtoId::Whois_DAS);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(whois_das, {"Whois-DAS", id(ProtoId::Whois_DAS), kL4Tcp, 1, classify_whois_das});

}  // namespace fg
