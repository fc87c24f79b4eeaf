// ④ POP3 (RFC 1939): the server greets first with "+OK"; the client then
// sends USER, APOP, CAPA, AUTH or STLS. Stateless: a client command reaching
// this dissector means every earlier packet was a "+OK" greeting. After the
// match the client's commands are read on for a USER or PASS (nDPI's
// clear-text credentials; SASL's base64 exchanges are not decoded). STLS
// (RFC 2595) answered "+OK" makes the flow POPS and the TLS handshake is
// read on, as nDPI's opportunistic-TLS dissection does; "-ERR" goes back to
// reading commands.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

enum Pop3State : uint8_t { kCommands = 0, kTlsAsked = 1, kInTls = 2 };

// After the match: logins, and the STLS upgrade.
Verdict read_on(DpiCtx& c) {
  uint8_t& st = c.info->state[0];
  if (st == kInTls) return tls_after_starttls(c);
  if (st == kTlsAsked && !c.from_client) {
    if (c.payload.size() && c.payload[0] == '+') {
      tls_begins(c, 0, id(ProtoId::POPS));
      st = kInTls;
    } else if (c.payload.size() && c.payload[0] == '-') {
      st = kCommands;
    }
    return Verdict::NeedMore;
  }
  if (c.from_client && command_at(c.payload, 0, "STLS")) {
    st = kTlsAsked;
    return Verdict::NeedMore;
  }
  return read_on_for_login(c, "STLS");
}

Verdict classify_pop3(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return read_on(c);
  if (!c.from_client) {
    if (b.size() >= 5 && std::memcmp(b.data(), "+OK", 3) == 0 && (b[3] == ' ' || b[3] == '\r')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) {
    if (c.srv_port == 110 && user_or_pass(b)) c.risk(Risk::ClearTextCredentials);  // mid-session capture
    return Verdict::No;  // the server speaks first
  }
  static const char* const kCmds[] = {"USER ", "APOP ", "CAPA\r", "AUTH", "STLS\r"};
  for (const char* k : kCmds)
    if (has_at_upper(b, 0, k)) {
      m.app = id(ProtoId::POP3);
      if (user_or_pass(b)) {
        c.risk(Risk::ClearTextCredentials);
        return Verdict::Match;
      }
      if (c.info) {
        c.info->state[0] = command_at(b, 0, "STLS") ? kTlsAsked : kCommands;
        m.more = true;
      }
      return Verdict::Match;
    }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(pop3, {"POP3", id(ProtoId::POP3), kL4Tcp, 4, classify_pop3});

}  // namespace fg
