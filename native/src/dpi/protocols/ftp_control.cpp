// ④ FTP control (RFC 959): the server greets first with "220 " (or "220-");
// the client then sends USER, AUTH TLS, FEAT, SYST, OPTS … Stateless: a
// client command reaching this dissector means every earlier packet was a
// greeting.
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

Verdict classify_ftp_control(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.from_client) {
    if (b.size() >= 6 && std::memcmp(b.data(), "220", 3) == 0 && (b[3] == ' ' || b[3] == '-')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  // nDPI names the session FTPS once the client asks for TLS.
  if (ci_prefix(b, "AUTH TLS") || ci_prefix(b, "AUTH SSL")) {
    m.app = id(ProtoId::FTPS);
    return Verdict::Match;
  }
  static const char* const kCmds[] = {"USER ", "FEAT\r", "SYST\r", "OPTS ", "PASS ", "CLNT "};
  for (const char* k : kCmds)
    if (ci_prefix(b, k)) {
      m.app = id(ProtoId::FTP_CONTROL);
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ftp_control, {"FTP_CONTROL", id(ProtoId::FTP_CONTROL), kL4Tcp, 4, classify_ftp_control});

}  // namespace fg
