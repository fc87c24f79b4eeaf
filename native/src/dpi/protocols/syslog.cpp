// ④ Syslog (RFC 3164 / 5424): "<PRI>" with PRI a decimal number of at most
// three digits (0-191), then the message. On UDP 514 that is enough; on
// other ports and over TCP (RFC 6587) the header must follow as well: an
// RFC 3164 month ("<13>Feb  5 …"), RFC 5424's version and timestamp
// ("<22>1 2021-04-18T…" or "-" for none), or the "last message repeated" /
// "snort: " lines nDPI also accepts. nDPI sizes: 21-1024 bytes.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool header_follows(Bytes b, size_t i) {
  if (i < b.size() && b[i] == ' ') i++;
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (const char* mo : kMonths)
    if (has_at(b, i, mo) && i + 3 < b.size() && b[i + 3] == ' ') return true;
  if (has_at(b, i, "last message") || has_at(b, i, "snort: ")) return true;
  // RFC 5424: VERSION (1) SP TIMESTAMP, a full date or NILVALUE
  return i + 3 < b.size() && b[i] == '1' && b[i + 1] == ' ' && ((b[i + 2] >= '0' && b[i + 2] <= '9') || b[i + 2] == '-');
}

Verdict classify_syslog(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const bool udp514 = c.p.l4_proto == kProtoUdp && c.srv_port == 514;
  if (b.size() < 4 || b[0] != '<') return Verdict::No;
  if (!udp514 && (b.size() <= 20 || b.size() > 1024)) return Verdict::No;
  size_t i = 1;
  unsigned pri = 0;
  for (; i < b.size() && i <= 4 && b[i] >= '0' && b[i] <= '9'; i++) pri = pri * 10 + (b[i] - '0');
  if (i == 1 || i > 4 || i >= b.size() || b[i] != '>' || pri > 191) return Verdict::No;
  if (!udp514 && !header_follows(b, i + 1)) return Verdict::No;
  m.app = id(ProtoId::Syslog);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(syslog, {"Syslog", id(ProtoId::Syslog), kL4Both, 2, classify_syslog});

}  // namespace fg
