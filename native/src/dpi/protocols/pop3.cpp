// ④ POP3 (RFC 1939), TCP only, IPv4 and IPv6, as nDPI 4.11 reads it
// (mail_pop.c). Direction plays no part; each packet is one of:
//   a reply: "+OK" (4+ bytes) or "-ERR" (5+ bytes), letters any case: the
//   reply count goes up by one, kept in 2 bits as nDPI keeps it (a 4th
//   reply counts 0 again);
//   a command (5+ bytes; its first 4 letters any case, no space needed):
//   AUTH, APOP, USER, PASS, CAPA, LIST, STAT, UIDL, RETR, DELE, STLS, each
//   a mark kept across the flow. USER and PASS raise ClearTextCredentials;
//   PASS with a byte from 0x20 up at byte 5 holds a password;
//   anything else: the flow goes on while it ends CRLF or a mark or reply is
//   known, on fewer than 12 payload packets; otherwise it is given up.
// A reply or command packet ending CRLF names the flow POP3 when marks +
// replies reach 3, with one reply or more, and either a password was seen
// or the reply count is 3. After STLS (RFC 2595) a "+OK" reply names the
// flow POPS and its TLS is read (nDPI's pop tls_dissection, on by default);
// a "-ERR" forgets the STLS. After the match the same reading goes on while
// no password was seen (at most 7 packets, payload or not).
// State: before the match kScratchPop (dpi.h, TCP only): marks in bits 0-10,
// replies in 11-12, STLS pending 13, password seen 14; after it
// FlowInfo::state.
#include <bit>
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

constexpr uint16_t kMarks = 0x7ff, kReplyShift = 11, kReplies = 3 << kReplyShift, kStls = 1 << 13, kPwd = 1 << 14;
constexpr uint16_t kStlsMark = 1 << 10;

enum class Step : uint8_t { Wait, Pop3, Pops, Exclude };

bool ends_crlf(Bytes b) { return b.size() > 2 && b[b.size() - 2] == '\r' && b[b.size() - 1] == '\n'; }

Step step(DpiCtx& c, uint16_t& w) {
  Bytes b = c.payload;
  const size_t n = b.size();
  if ((n > 3 && has_at_upper(b, 0, "+OK")) || (n > 4 && has_at_upper(b, 0, "-ERR"))) {
    w = uint16_t((w & ~kReplies) | ((((w & kReplies) >> kReplyShift) + 1) & 3) << kReplyShift);
    if (b[0] == '+' && (w & kStls)) return Step::Pops;
    if (b[0] == '-') w &= uint16_t(~kStls);
  } else {
    static constexpr std::string_view kCommands[] = {"AUTH", "APOP", "USER", "PASS", "CAPA", "LIST",
                                                     "STAT", "UIDL", "RETR", "DELE", "STLS"};
    int k = -1;
    if (n > 4)
      for (int i = 0; i < 11 && k < 0; i++)
        if (has_at_upper(b, 0, kCommands[i])) k = i;
    if (k < 0) {
      const bool more = ends_crlf(b) || (w & (kMarks | kReplies));
      return more && c.flow.dpi_packets < 12 ? Step::Wait : Step::Exclude;
    }
    w |= uint16_t(1 << k);
    if (k == 2 || k == 3) c.risk(Risk::ClearTextCredentials);
    if (k == 3 && n > 5 && b[5] >= ' ') w |= kPwd;
    if (k == 10) w |= kStls;
  }
  if (!ends_crlf(b)) return Step::Wait;
  const unsigned replies = (w & kReplies) >> kReplyShift;
  if (std::popcount(unsigned(w & kMarks)) + replies >= 3 && replies > 0 && ((w & kPwd) || replies == 3)) return Step::Pop3;
  return Step::Wait;
}

// FlowInfo::state after the match.
enum : size_t { kWord = 0, kMode = 2, kBase = 3 };
enum : uint8_t { kReading = 0, kInTls = 1 };

Verdict read_on(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  uint8_t* s = c.info->state;
  if (s[kMode] == kInTls) return tls_after_starttls(c);
  uint32_t base;
  std::memcpy(&base, s + kBase, 4);
  if (c.flow.packets() - base > 7) return Verdict::No;  // nDPI's 7 packets after the match
  uint16_t w = uint16_t(s[kWord] | s[kWord + 1] << 8);
  const Step r = step(c, w);
  s[kWord] = uint8_t(w), s[kWord + 1] = uint8_t(w >> 8);
  if (r == Step::Pops) {
    tls_begins(c, 0, id(ProtoId::POPS));
    s[kMode] = kInTls;
    return Verdict::NeedMore;
  }
  return (w & kPwd) ? Verdict::No : Verdict::NeedMore;
}

Verdict classify_pop3(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  uint8_t* keep = c.scratch(kScratchPop);
  uint16_t w = keep ? uint16_t(keep[0] | keep[1] << 8) : 0;
  const Step r = step(c, w);
  if (keep) keep[0] = uint8_t(w), keep[1] = uint8_t(w >> 8);
  if (r == Step::Exclude) return Verdict::No;
  if (r == Step::Wait) return Verdict::NeedMore;
  m.app = id(r == Step::Pops ? ProtoId::POPS : ProtoId::POP3);
  if (!c.info) return Verdict::Match;
  uint8_t* s = c.info->state;
  std::memset(s, 0, sizeof c.info->state);
  s[kWord] = uint8_t(w), s[kWord + 1] = uint8_t(w >> 8);
  s[kMode] = r == Step::Pops ? kInTls : kReading;
  const uint32_t now = c.flow.packets();
  std::memcpy(s + kBase, &now, 4);
  tls_read_from(c);  // an STLS's TLS (POPS) is read within the same count
  // POPS: its TLS is read on; POP3: the reading goes on while no password was seen
  m.more = r == Step::Pops || !(w & kPwd);
  return Verdict::Match;
}

}  // namespace

bool pop3_password_seen(const DpiCtx& c) {
  const uint8_t* keep = c.scratch(kScratchPop);
  return keep && (uint16_t(keep[0] | keep[1] << 8) & kPwd);
}

// No packet budget on replies and commands (nDPI gives those up never);
// the classifier's own window ends the flow's inspection.
FG_DISSECTOR(pop3, {"POP3", id(ProtoId::POP3), kL4Tcp, 255, classify_pop3});

}  // namespace fg
