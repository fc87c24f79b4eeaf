// ④ SMTP (RFC 5321), TCP only, IPv4 and IPv6, as nDPI 4.11 reads it
// (mail_smtp.c). Direction plays no part: every line of a packet ending
// CRLF (nDPI's line split, http_sub.h) adds its mark to a set kept across
// the flow's packets:
//   reply codes 220, 250, 235, 334, 354 at a line's start (3+ bytes);
//   HELO / EHLO, MAIL, RCPT followed by a space (any case, 5+ bytes);
//   AUTH + space with L or P next (AUTH LOGIN / AUTH PLAIN);
//   STARTTLS (8+ bytes) or X-ANONYMOUSTLS (14+ bytes, as nDPI compares it:
//   "X-", ANONY any case, then MOUSTLS upper case);
//   DATA, NOOP, RSET (4+ bytes, any case, no space needed).
// Three different marks name the flow SMTP. Otherwise the flow is given up
// unless one mark is known and fewer than 12 payload packets were seen, or
// it is one of the first 4 with 4+ bytes ending CRLF or opening "220" /
// "EHLO". A "220 " greeting line names the host (bytes 4 up to the next
// space, when one follows with more text and byte 4 is not '('): when the
// name is a known application's the flow is SMTP.App at once.
// Credentials (risk ClearTextCredentials): AUTH PLAIN's base64 on the line
// when it decodes to "\0user\0…" with a user; after AUTH LOGIN, the next
// lines not holding a space at byte 3 are the user name then the password
// (each raises the risk; one that fails to decode leaves its slot empty);
// HELO, MAIL or RCPT forget the AUTH. After the match the same reading goes
// on (at most 12 packets, nDPI's max_extra_packets_to_check) until a
// password is read or the mail starts (MAIL / RCPT / AUTH PLAIN) without a
// STARTTLS; after a STARTTLS the very next packet must open "220" (the
// flow becomes SMTPS, SMTPS.App when named by host, and its TLS is read:
// nDPI's smtp_opportunistic_tls, on by default), any other packet (one
// without payload too) ends the reading.
// State: before the match 3 bytes at kScratchSmtp (dpi.h: TCP only),
// after it FlowInfo::state.
#include <bit>
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"
#include "dpi/protocols/http_sub.h"
#include "dpi/tls_parse.h"

namespace fg {
namespace {

enum : uint16_t {
  k220 = 1, k250 = 2, k235 = 4, k334 = 8, k354 = 0x10, kHelo = 0x20, kMail = 0x40, kRcpt = 0x80,
  kAuthLogin = 0x100, kStartTls = 0x200, kData = 0x400, kNoop = 0x800, kRset = 0x1000, kAuthPlain = 0x4000,
};
enum : uint8_t { kAuthFound = 1, kUser = 2, kPwd = 4, kAuthDone = 8, kAuthTls = 16, kHostSeen = 32 };

struct St {
  uint16_t bits;
  uint8_t flags;
};

// nDPI's base64 decoder: bytes outside the alphabet skipped, a count of
// alphabet bytes not a multiple of 4 (or none) fails; '=' ends it.
bool b64_decode(const uint8_t* s, size_t n, uint8_t* out, size_t& out_len) {
  auto val = [](uint8_t ch) -> int {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    if (ch == '=') return 0;
    return -1;
  };
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += val(s[i]) >= 0;
  if (count == 0 || count % 4) return false;
  size_t k = 0, o = 0;
  int pad = 0;
  uint8_t blk[4];
  for (size_t i = 0; i < n; i++) {
    const int v = val(s[i]);
    if (v < 0) continue;
    if (s[i] == '=') pad++;
    blk[k++] = uint8_t(v);
    if (k == 4) {
      out[o++] = uint8_t(blk[0] << 2 | blk[1] >> 4);
      out[o++] = uint8_t(blk[1] << 4 | blk[2] >> 2);
      out[o++] = uint8_t(blk[2] << 6 | blk[3]);
      k = 0;
      if (pad) {
        if (pad > 2) return false;
        o -= size_t(pad);
        break;
      }
    }
  }
  out_len = o;
  return true;
}

// The bytes nDPI copies for decoding: up to `cap - 1`, stopping at a
// control byte.
size_t copy_len(const uint8_t* s, size_t n, size_t cap) {
  size_t j = 0;
  while (j < n && j < cap - 1 && s[j] >= ' ') j++;
  return j;
}

bool at_ci(const uint8_t* p, size_t len, std::string_view w) { return has_at_upper(Bytes(p, len), 0, w); }

enum class Scan : uint8_t { Go, Stop };

// One packet's lines into `st`; `host_app` receives the application of a
// greeting's host name when it is the first name seen.
Scan scan_lines(DpiCtx& c, Bytes b, St& st, uint16_t& host_app) {
  const NdpiLines& t = ndpi_lines(b);
  const size_t n = ndpi_line_count(t, b);
  for (size_t a = 0; a < n; a++) {
    const uint8_t* p = b.data() + t.off[a];
    const size_t len = t.len[a];
    if (len >= 3) {
      if (!std::memcmp(p, "220", 3)) {
        st.bits |= k220;
        if (!(st.flags & kHostSeen) && len > 4 && p[4] != '(') {
          size_t i = 5;
          while (i < len - 1 && p[i] != ' ') i++;
          // p[i + 1] lies in the packet: every line here is followed by CRLF
          if (p[i + 1] != '\r' && p[i + 1] != '\n') {
            st.flags |= kHostSeen;
            char name[80];
            const size_t k = ndpi_host_name(p + 4, i - 4, name);
            host_app = k ? app_by_host(name, k) : 0;
          }
        }
      } else if (!std::memcmp(p, "250", 3)) {
        st.bits |= k250;
      } else if (!std::memcmp(p, "235", 3)) {
        st.bits |= k235;
      } else if (!std::memcmp(p, "334", 3)) {
        st.bits |= k334;
      } else if (!std::memcmp(p, "354", 3)) {
        st.bits |= k354;
      }
    }
    if (len >= 5) {
      if ((at_ci(p, len, "HELO ") || at_ci(p, len, "EHLO "))) {
        st.bits |= kHelo;
        st.flags &= uint8_t(~kAuthFound);
      } else if (at_ci(p, len, "MAIL ") || at_ci(p, len, "RCPT ")) {
        st.bits |= at_ci(p, len, "MAIL ") ? kMail : kRcpt;
        st.flags = uint8_t((st.flags & ~kAuthFound) | kAuthDone);
      } else if (at_ci(p, len, "AUTH ")) {
        st.flags |= kAuthFound;
        if (len >= 6 && (p[5] == 'L' || p[5] == 'l')) {
          st.bits |= kAuthLogin;
        } else if (len >= 6 && (p[5] == 'P' || p[5] == 'p')) {
          st.bits |= kAuthPlain;
          // "\0user\0password": a user when the last NUL past the first byte is at 2 or later
          uint8_t out[192];
          size_t out_len = 0;
          if (len > 11 && b64_decode(p + 11, copy_len(p + 11, len - 11, 255), out, out_len)) {
            size_t user = 0;
            for (size_t i = 1; i < out_len; i++)
              if (!out[i]) user = i - 1;
            if (user > 0) c.risk(Risk::ClearTextCredentials);
          }
          st.flags |= kAuthDone;
        }
      } else if (p[3] != ' ' && (st.flags & kAuthFound) && (st.bits & kAuthLogin)) {
        uint8_t out[48];
        size_t out_len = 0;
        const bool ok = b64_decode(p, copy_len(p, len, 48), out, out_len) && out_len && out[0];
        if (!(st.flags & kUser)) {
          c.risk(Risk::ClearTextCredentials);
          if (ok) st.flags |= kUser;
        } else if (!(st.flags & kPwd)) {
          c.risk(Risk::ClearTextCredentials);
          if (ok) st.flags |= kPwd;
          st.flags |= kAuthDone;
        } else {
          return Scan::Stop;
        }
      }
    }
    if (len >= 8 && at_ci(p, len, "STARTTLS")) {
      st.bits |= kStartTls;
      st.flags = uint8_t((st.flags | kAuthTls) & ~kAuthDone);
    }
    if (len >= 14 && (p[0] == 'X' || p[0] == 'x') && p[1] == '-' && at_ci(p + 2, 5, "ANONY") && !std::memcmp(p + 7, "MOUSTLS", 7)) {
      st.bits |= kStartTls;
      st.flags = uint8_t((st.flags | kAuthTls) & ~kAuthDone);
    }
    if (len >= 4) {
      if (at_ci(p, len, "DATA")) st.bits |= kData;
      else if (at_ci(p, len, "NOOP")) st.bits |= kNoop;
      else if (at_ci(p, len, "RSET")) st.bits |= kRset;
    }
  }
  return Scan::Go;
}

bool ends_crlf(Bytes b) { return b.size() > 2 && b[b.size() - 2] == '\r' && b[b.size() - 1] == '\n'; }

// nDPI parses the lines only when fewer than its 64 were parsed already.
bool lines_readable(Bytes b) { return !ndpi_lines_taken(b) || ndpi_lines(b).n < NdpiLines::kMaxLines; }

// FlowInfo::state after the match.
enum : size_t { kBits = 0, kFlags = 2, kMode = 3, kLast = 4, kBase = 8, kApp = 12 };
enum : uint8_t { kScanning = 0, kInTls = 1 };

Verdict read_on(DpiCtx& c) {
  if (!c.info) return Verdict::No;
  uint8_t* s = c.info->state;
  if (s[kMode] == kInTls) return tls_after_starttls(c);
  const uint32_t now = c.flow.packets();
  uint32_t last, base;
  std::memcpy(&last, s + kLast, 4);
  std::memcpy(&base, s + kBase, 4);
  if (now - base > 12) return Verdict::No;  // nDPI's 12 packets after the match, payload or not
  std::memcpy(s + kLast, &now, 4);
  St st{uint16_t(s[kBits] | s[kBits + 1] << 8), s[kFlags]};
  Bytes b = c.payload;
  if (st.bits & kStartTls) {
    // the packet after STARTTLS's: an empty one in between ends it too
    if (now != last + 1 || b.size() <= 3 || !has_at(b, 0, "220")) return Verdict::No;
    const uint16_t app = uint16_t(s[kApp] | s[kApp + 1] << 8);
    if (app) tls_begins(c, id(ProtoId::SMTPS), app);
    else tls_begins(c, 0, id(ProtoId::SMTPS));
    s[kMode] = kInTls;
    return Verdict::NeedMore;
  }
  uint16_t host_app = 0;
  if (ends_crlf(b) && lines_readable(b) && scan_lines(c, b, st, host_app) == Scan::Stop) return Verdict::No;
  s[kBits] = uint8_t(st.bits), s[kBits + 1] = uint8_t(st.bits >> 8), s[kFlags] = st.flags;
  const bool go_on = !(st.flags & kPwd) && ((st.flags & kAuthTls) || !(st.flags & kAuthDone));
  return go_on ? Verdict::NeedMore : Verdict::No;
}

Verdict classify_smtp(DpiCtx& c, Match& m) {
  if (c.extra) return read_on(c);
  Bytes b = c.payload;
  uint8_t* keep = c.scratch(kScratchSmtp);
  St st{0, 0};
  if (keep) st = St{uint16_t(keep[0] | keep[1] << 8), keep[2]};
  uint16_t host_app = 0;
  bool named = false;
  if (ends_crlf(b) && lines_readable(b)) {
    const Scan r = scan_lines(c, b, st, host_app);
    if (keep) keep[0] = uint8_t(st.bits), keep[1] = uint8_t(st.bits >> 8), keep[2] = st.flags;
    if (r == Scan::Stop) return Verdict::No;
    const int marks = std::popcount(unsigned(st.bits));
    named = host_app || marks >= 3;
    if (!named && marks >= 1 && c.flow.dpi_packets < 12) return Verdict::NeedMore;
  }
  if (!named) {
    if (c.flow.dpi_packets <= 4 && b.size() >= 4 && (ends_crlf(b) || has_at(b, 0, "220") || has_at(b, 0, "EHLO")))
      return Verdict::NeedMore;
    return Verdict::No;
  }
  m.app = id(ProtoId::SMTP);
  if (host_app) m.master = id(ProtoId::SMTP), m.app = host_app;
  m.more = true;
  if (c.info) {
    uint8_t* s = c.info->state;
    std::memset(s, 0, sizeof c.info->state);
    s[kBits] = uint8_t(st.bits), s[kBits + 1] = uint8_t(st.bits >> 8), s[kFlags] = st.flags;
    const uint32_t now = c.flow.packets();
    std::memcpy(s + kLast, &now, 4);
    std::memcpy(s + kBase, &now, 4);
    s[kApp] = uint8_t(host_app), s[kApp + 1] = uint8_t(host_app >> 8);
    tls_read_from(c);  // a STARTTLS's TLS is read within the same count
  }
  return Verdict::Match;
}

}  // namespace

// Asked on up to 12 payload packets (nDPI's packet_counter budget above).
FG_DISSECTOR(smtp, {"SMTP", id(ProtoId::SMTP), kL4Tcp, 12, classify_smtp});

}  // namespace fg
