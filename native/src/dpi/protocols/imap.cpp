// ④ IMAP (RFC 9051), TCP only, IPv4 and IPv6, as nDPI 4.11 reads it
// (mail_imap.c). Direction plays no part. A packet of 4+ bytes ending CRLF
// is read as one line:
//   exactly "DONE\r\n" (any case) counts one IMAP line;
//   otherwise, while fewer than 5 lines were counted, a tag: 1 to 19
//   letters, digits, '*' or '.' to a space that does not end the packet,
//   then maybe a message number to the next space (a tag that does not read
//   gives the flow up, see below); from the 5th line on the command is read
//   at byte 0. The command words (any case) each count one line:
//   "OK " "UID" "NO " CAPABILITY STARTTLS LOGIN FETCH FLAGS CHECK STORE
//   AUTHENTICATE NAMESPACE LSUB LIST NOOP IDLE SELECT EXISTS APPEND, each
//   only when the packet holds a byte past the word's length. LOGIN
//   followed by a user name (a token of the bytes after it, split at space,
//   quote, CR, LF) raises ClearTextCredentials; AUTHENTICATE names the flow
//   IMAPS; STARTTLS is remembered and a later "OK " names the flow IMAPS,
//   its TLS read on (nDPI's imap tls_dissection, on by default), "NO "
//   forgets it.
// The count is kept in 3 bits as nDPI keeps it (the 8th line counts 0).
// A packet holding a command names the flow IMAP when the count is 3, 5 or
// 7 and a LOGIN gave a user name, or the count is 7; at 3, 5 or 7 the flow
// goes on whatever follows. Any other packet: one ending in a space sets
// the count to 4; one ending CRLF goes on while a line was counted and
// fewer than 8 payload packets were seen; the rest give the flow up.
// nDPI reads nothing after naming the flow IMAP (no credentials after it).
// State: kScratchImap (dpi.h, TCP only): the count in bits 0-2, STARTTLS
// pending in bit 3, a LOGIN's user name seen in bit 4; after an IMAPS by STARTTLS, FlowInfo::state.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr uint8_t kCount = 7, kTlsPending = 8, kUser = 16;

bool ends_crlf(Bytes b) { return b.size() >= 2 && b[b.size() - 2] == '\r' && b[b.size() - 1] == '\n'; }

// Where the command starts after the tag (and message number), or -1.
long command_start(Bytes b) {
  const size_t n = b.size();
  auto tagch = [](uint8_t ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '*' || ch == '.'; };
  size_t i = 0, space = 0;
  for (; i < 20 && i < n; i++) {
    if (i > 0 && b[i] == ' ') {
      space = i;
      break;
    }
    if (!tagch(b[i])) return -1;
  }
  if (space == 0 || space == n - 1) return -1;
  i++;
  if (i < n && b[i] >= '0' && b[i] <= '9') {
    for (; i < 20 && i < n; i++) {
      if (b[i] == ' ') {
        space = i;
        break;
      }
      if (b[i] < '0' || b[i] > '9') return -1;
    }
    if (space == n - 1) return -1;
  }
  return long(space + 1);
}

// A token after LOGIN: its bytes up to a NUL (255 at most) hold one byte
// that is not a space, quote, CR or LF.
bool login_user(Bytes b, size_t from) {
  for (size_t i = from; i < b.size() && i < from + 255; i++) {
    if (!b[i]) return false;
    if (b[i] != ' ' && b[i] != '"' && b[i] != '\r' && b[i] != '\n') return true;
  }
  return false;
}

enum class Step : uint8_t { Wait, Imap, Imaps, ImapsTls, Exclude };

Step step(DpiCtx& c, uint8_t& st) {
  Bytes b = c.payload;
  const size_t n = b.size();
  auto count = [&] { st = uint8_t((st & ~kCount) | (((st & kCount) + 1) & kCount)); };
  bool saw = false, imaps = false;
  if (n >= 4 && ends_crlf(b)) {
    if (n == 6 && has_at_upper(b, 0, "DONE")) {
      count();
      saw = true;
    } else {
      long at = 0;
      if ((st & kCount) < 5) {
        at = command_start(b);
        if (at < 0) goto excluded;
      }
      const size_t cs = size_t(at);
      auto word = [&](std::string_view w, size_t need) { return cs + need < n && has_at_upper(b, cs, w); };
      if (word("OK ", 3)) {
        count();
        if (st & kTlsPending) return Step::ImapsTls;
        saw = true;
      } else if (word("UID", 3)) {
        count(), saw = true;
      } else if (word("NO ", 3)) {
        count(), saw = true;
        st &= uint8_t(~kTlsPending);
      }
      if (word("CAPABILITY", 10)) count(), saw = true;
      if (word("STARTTLS", 8)) count(), saw = true, st |= kTlsPending;
      if (word("LOGIN", 5)) {
        if (login_user(b, cs + 5)) st |= kUser, c.risk(Risk::ClearTextCredentials);
        count(), saw = true;
      } else if (word("FETCH", 5) || word("FLAGS", 5) || word("CHECK", 5) || word("STORE", 5)) {
        count(), saw = true;
      }
      if (word("AUTHENTICATE", 12)) count(), saw = true, imaps = true;
      if (word("NAMESPACE", 9)) count(), saw = true;
      if (word("LSUB", 4) || word("LIST", 4) || word("NOOP", 4) || word("IDLE", 4)) count(), saw = true;
      if (word("SELECT", 6) || word("EXISTS", 6) || word("APPEND", 6)) count(), saw = true;
    }
    const uint8_t k = st & kCount;
    if (saw && (k == 3 || k == 5 || k == 7)) {
      if ((st & kUser) || k == 7) return Step::Imap;
      return imaps ? Step::Imaps : Step::Wait;
    }
    if (imaps) return Step::Imaps;
  }
  if (n > 1 && b[n - 1] == ' ') {
    st = uint8_t((st & ~kCount) | 4);
    return Step::Wait;
  }
excluded:
  if (ends_crlf(b) && c.flow.dpi_packets < 8 && (st & kCount) >= 1) return Step::Wait;
  return Step::Exclude;
}

Verdict classify_imap(DpiCtx& c, Match& m) {
  if (c.extra) return tls_after_starttls(c);  // only IMAPS by STARTTLS reads on
  uint8_t* keep = c.scratch(kScratchImap);
  uint8_t st = keep ? *keep : 0;
  const Step r = step(c, st);
  if (keep) *keep = st;
  switch (r) {
    case Step::Wait: return Verdict::NeedMore;
    case Step::Exclude: return Verdict::No;
    case Step::Imap: m.app = id(ProtoId::IMAP); return Verdict::Match;
    case Step::Imaps: m.app = id(ProtoId::IMAPS); return Verdict::Match;
    case Step::ImapsTls:
      m.app = id(ProtoId::IMAPS);
      m.more = c.info != nullptr;
      tls_read_from(c);
      return Verdict::Match;
  }
  return Verdict::No;
}

}  // namespace

// No packet budget: nDPI goes on at counts 3, 5 and 7 whatever the packet
// count; the classifier's window ends the inspection.
FG_DISSECTOR(imap, {"IMAP", id(ProtoId::IMAP), kL4Tcp, 255, classify_imap});

}  // namespace fg
