// ④ Syslog (RFC 3164 / 5424) on UDP 514: "<PRI>" with PRI a decimal number
// of at most three digits (0-191), then the message.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_syslog(DpiCtx& c, Match& m) {
  if (c.srv_port != 514) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() < 4 || b[0] != '<') return Verdict::No;
  size_t i = 1;
  unsigned pri = 0;
  for (; i < b.size() && i <= 4 && b[i] >= '0' && b[i] <= '9'; i++) pri = pri * 10 + (b[i] - '0');
  if (i == 1 || i > 4 || i >= b.size() || b[i] != '>' || pri > 191) return Verdict::No;
  m.app = id(ProtoId::Syslog);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(syslog, {"Syslog", id(ProtoId::Syslog), kL4Udp, 2, classify_syslog});

}  // namespace fg
