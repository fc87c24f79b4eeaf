// ④ FTP control (RFC 959) as nDPI 4.11 reads it (ftp_control.c): request,
// then reply. On a flow's first 8 payload packets (never with port 25 on
// either side, SMTP's commands look alike): a packet opening with one of
// nDPI's FTP commands (upper or lower case as it lists them) is a request
// — "USER" raises ClearTextCredentials, "PASS" with a byte from 0x20 up at
// 5 holds a password, AUTH marks TLS asked — and the stage waits for a
// packet from the other side: one opening 1, 2, 3 or 6 (a positive reply)
// or 4 or 5 (a failure, which ends the login). After a positive reply to
// AUTH the flow is FTPS and its TLS handshake is read (the certificate may
// name the app, FTPS.Huawei); once a password was sent, or a login
// failed, a reply names it FTP_CONTROL; else (USER's 331 …) the stage goes
// back to waiting for a request, as it does on anything but a reply.
// Either side may send the request (nDPI's direction is the packet's). The
// password is nDPI's shared one: POP3's reading of "pass" (any case) sets
// it too. Left: IMAP's LOGIN and SMTP's AUTH PLAIN passwords, which nDPI
// also shares, are not read here.
// State: Classifier::memo byte 4 (stage, password, AUTH seen).
#include <cstring>
#include <string_view>

#include "dpi/classify.h"
#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr uint8_t kStage = 3, kPassword = 4, kAuth = 8;
constexpr size_t kMemoByte = 4;

// nDPI's ndpi_ftp_control_check_request: the commands it lists, each as
// it spells it (upper or lower case, not mixed), matched as a prefix.
bool is_request(Bytes b, uint8_t& st, DpiCtx& c) {
  using namespace std::string_view_literals;
  auto starts = [&](std::string_view k) { return b.size() >= k.size() && std::memcmp(b.data(), k.data(), k.size()) == 0; };
  if (starts("USER")) {
    c.risk(Risk::ClearTextCredentials);
    return true;
  }
  if (starts("PASS")) {
    if (b.size() > 5 && b[5] >= ' ') st |= kPassword;
    return true;
  }
  if (starts("AUTH") || starts("auth")) {
    st |= kAuth;
    return true;
  }
  static constexpr std::string_view kCommands[] = {
      "ABOR", "ACCT", "ADAT", "ALLO", "APPE", "CCC",  "CDUP", "CONF", "CWD",  "DELE", "ENC",  "EPRT", "EPSV", "FEAT", "HELP", "LANG",
      "LIST", "LPRT", "LPSV", "MDTM", "MIC",  "MKD",  "MLSD", "MLST", "MODE", "NLST", "NOOP", "OPTS", "PASV", "PBSZ", "PORT", "PROT",
      "PWD",  "QUIT", "REIN", "REST", "RETR", "RMD",  "RNFR", "RNTO", "SITE", "SIZE", "SMNT", "STAT", "STOR", "STOU", "STRU", "SYST",
      "TYPE", "XCUP", "XMKD", "XPWD", "XRCP", "XRMD", "XRSQ", "XSEM", "XSEN", "HOST", "abor", "acct", "adat", "allo", "appe", "ccc",
      "cdup", "conf", "cwd",  "dele", "enc",  "eprt", "epsv", "feat", "help", "lang", "list", "lprt", "lpsv", "mdtm", "mic",  "mkd",
      "mlsd", "mlst", "mode", "nlst", "noop", "opts", "pass", "pasv", "pbsz", "port", "prot", "pwd",  "quit", "rein", "rest", "retr",
      "rmd",  "rnfr", "rnto", "site", "size", "smnt", "stat", "stor", "stou", "stru", "syst", "type", "user", "xcup", "xmkd", "xpwd",
      "xrcp", "xrmd", "xrsq", "xsem", "xsen", "host"};
  if (b.size() < 3) return false;  // the shortest command has 3 letters
  for (std::string_view k : kCommands)
    if (k[0] == b[0] && starts(k)) return true;
  return false;
}

Verdict classify_ftp_control(DpiCtx& c, Match& m) {
  // After a positive reply to AUTH: the TLS handshake, as nDPI hands the
  // flow over to its TLS code.
  if (c.extra) return c.flow.l7_app == id(ProtoId::FTPS) && !c.flow.l7_master ? tls_after_starttls(c) : Verdict::No;
  if (c.p.sport == 25 || c.p.dport == 25 || c.flow.dpi_packets > 8) return Verdict::No;
  const Bytes b = c.payload;
  const uint8_t dir = c.from_client ? 0 : 1;
  const uint8_t* kept = c.clf->memo(c.flow);
  uint8_t st = kept ? kept[kMemoByte] : 0;
  auto keep = [&] { c.clf->memo_take(c.flow)[kMemoByte] = st; };
  if ((st & kStage) == 0) {
    if (is_request(b, st, c)) st = uint8_t((st & ~kStage) | (1 + dir)), keep();
    return Verdict::NeedMore;
  }
  if ((st & kStage) == 1 + dir) return Verdict::NeedMore;  // the requester again: its reply is awaited
  const uint8_t r = b.empty() ? 0 : b[0];
  const bool positive = r == '1' || r == '2' || r == '3' || r == '6', failed = r == '4' || r == '5';
  const bool tls = positive && (st & kAuth);
  if (!positive && !failed) {
    st &= uint8_t(~kStage), keep();
    return Verdict::NeedMore;
  }
  // the password is the one nDPI shares with POP (and IMAP, SMTP: not read here)
  const bool password = (st & kPassword) || pop3_password_seen(c);
  if (!password && !failed && !tls) {
    st &= uint8_t(~kStage), keep();
    return Verdict::NeedMore;
  }
  if (tls) {
    m.app = id(ProtoId::FTPS);
    m.more = c.info != nullptr;
    tls_read_from(c);
    return Verdict::Match;
  }
  m.app = id(ProtoId::FTP_CONTROL);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ftp_control, {"FTP_CONTROL", id(ProtoId::FTP_CONTROL), kL4Tcp, 8, classify_ftp_control});

}  // namespace fg
