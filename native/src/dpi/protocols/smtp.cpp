// ④ SMTP (RFC 5321): the server greets first with "220 " (or "220-" for a
// multi-line greeting); the client answers EHLO or HELO. Stateless: a client
// command reaching this dissector means every earlier packet was a greeting.
// After the match the client's commands are read on for nDPI's clear-text
// credentials (RFC 4954): AUTH PLAIN with its base64 credentials on the
// command line, or AUTH LOGIN and the base64 user name on the next line;
// until the mail itself or TLS. STARTTLS (RFC 3207) answered "220" makes the
// flow SMTPS and the TLS handshake is read on (certificate names: SMTPS.App),
// as nDPI's opportunistic-TLS dissection does (on by default); any other
// answer ends the reading.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

enum SmtpState : uint8_t { kIdle = 0, kAuthAsked = 1, kTlsAsked = 2, kInTls = 3 };

bool base64_char(uint8_t ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '+' || ch == '/' || ch == '=';
}

// A base64 token from `at` up to a CRLF within the segment (nDPI reads
// whole lines only: a token whose CRLF comes in the next segment is missed).
bool base64_line(Bytes b, size_t at) {
  size_t i = at;
  while (i < b.size() && base64_char(b[i])) i++;
  return i > at && i + 1 < b.size() && b[i] == '\r' && b[i + 1] == '\n';
}

Verdict read_on(DpiCtx& c) {
  Bytes b = c.payload;
  uint8_t scratch = kIdle;
  uint8_t& st = c.info ? c.info->state[0] : scratch;
  if (st == kInTls) return tls_after_starttls(c);
  if (st == kTlsAsked) {
    if (c.from_client) return Verdict::NeedMore;
    if (!has_at(b, 0, "220")) return Verdict::No;  // 454, 501: no TLS
    tls_begins(c, 0, id(ProtoId::SMTPS));
    st = kInTls;
    return Verdict::NeedMore;
  }
  if (!c.from_client) return Verdict::NeedMore;
  if (st == kAuthAsked) {
    if (base64_line(b, 0)) {
      c.risk(Risk::ClearTextCredentials);
      return Verdict::No;
    }
    if (has_at(b, 0, "*\r\n")) st = kIdle;  // the client cancelled
  }
  if (command_at(b, 0, "AUTH")) {
    const bool login = command_at(b, 5, "LOGIN"), plain = command_at(b, 5, "PLAIN");
    if (!login && !plain) return Verdict::NeedMore;  // a challenge-response mechanism: nothing in clear
    if (base64_line(b, 11)) {                        // initial response on the command line
      c.risk(Risk::ClearTextCredentials);
      return Verdict::No;
    }
    // nDPI reads a separate answer only for LOGIN.
    if (login) st = kAuthAsked;
    return Verdict::NeedMore;
  }
  if (command_at(b, 0, "STARTTLS")) {
    if (!c.info) return Verdict::No;  // nowhere to keep the stage
    st = kTlsAsked;
    return Verdict::NeedMore;
  }
  // Past authentication (the mail itself): nothing more to read.
  if (command_at(b, 0, "MAIL") || command_at(b, 0, "RCPT") || command_at(b, 0, "DATA") || command_at(b, 0, "QUIT")) return Verdict::No;
  return Verdict::NeedMore;
}

Verdict classify_smtp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.extra) return read_on(c);
  if (!c.from_client) {
    if (b.size() >= 6 && std::memcmp(b.data(), "220", 3) == 0 && (b[3] == ' ' || b[3] == '-')) return Verdict::NeedMore;
    return Verdict::No;
  }
  if (c.flow.dpi_packets < 2) return Verdict::No;  // the server speaks first
  if ((has_at_upper(b, 0, "EHLO ") || has_at_upper(b, 0, "HELO ")) && b.size() >= 7) {
    m.app = id(ProtoId::SMTP);
    if (c.info) c.info->state[0] = kIdle;
    m.more = true;
    return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

FG_DISSECTOR(smtp, {"SMTP", id(ProtoId::SMTP), kL4Tcp, 4, classify_smtp});

}  // namespace fg
