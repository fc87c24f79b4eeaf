// ④ FTP control (RFC 959): the server greets first with "220 " (or "220-");
// the client then sends USER, AUTH TLS, FEAT, SYST, OPTS … Stateless: a
// client command reaching this dissector means every earlier packet was a
// greeting. After the match the client's commands are read on for a USER
// or PASS (nDPI's clear-text credentials; either one is enough); after
// AUTH TLS (FTPS) the TLS handshake is.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

Verdict classify_ftp_control(DpiCtx& c, Match& m) {
  // After AUTH TLS: the TLS handshake, whose certificate may name the app
  // (FTPS.Huawei), as nDPI hands the flow over to its TLS code.
  if (c.extra && c.flow.l7_app == id(ProtoId::FTPS) && !c.flow.l7_master) return tls_after_starttls(c);
  Bytes b = c.payload;
  if (c.extra) return read_on_for_login(c, "AUTH");
  // nDPI leaves port 25 to SMTP, whose commands look alike.
  if (c.p.sport == 25 || c.p.dport == 25) return Verdict::No;
  if (!c.from_client) {
    if (b.size() >= 6 && std::memcmp(b.data(), "220", 3) == 0 && (b[3] == ' ' || b[3] == '-')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) {
    // A capture starting mid-session: nDPI still sees the credentials on port 21.
    if (c.srv_port == 21 && user_or_pass(b)) c.risk(Risk::ClearTextCredentials);
    return Verdict::No;  // the server speaks first
  }
  // nDPI names the session FTPS once the client asks for TLS.
  if (has_at_upper(b, 0, "AUTH TLS") || has_at_upper(b, 0, "AUTH SSL")) {
    m.app = id(ProtoId::FTPS);
    m.more = c.info != nullptr;
    return Verdict::Match;
  }
  static const char* const kCmds[] = {"USER ", "FEAT\r", "SYST\r", "OPTS ", "PASS ", "CLNT "};
  for (const char* k : kCmds)
    if (has_at_upper(b, 0, k)) {
      m.app = id(ProtoId::FTP_CONTROL);
      if (user_or_pass(b)) c.risk(Risk::ClearTextCredentials);
      else m.more = true;
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(ftp_control, {"FTP_CONTROL", id(ProtoId::FTP_CONTROL), kL4Tcp, 4, classify_ftp_control});

}  // namespace fg
