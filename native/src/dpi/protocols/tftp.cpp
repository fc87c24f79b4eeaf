// ④ TFTP (RFC 1350, options RFC 2347-2349; UDP, any port), as nDPI: a zero
// byte and an opcode. RRQ/WRQ (printable file name, a mode, "blksize"/"tsize"
// pairs filling the datagram) or OACK (the pairs) names it at once; DATA (> 4
// bytes), ACK (4 bytes), ERROR (code 0-7, NUL-ended) on the fourth packet; any
// other shape rules it out. Looser than the RFCs, as nDPI: a mode or option may
// be a prefix of a known one ("oct"); an unknown or repeated option passes as
// the last pair. As nDPI, a DATA counts when its block number is the last
// DATA's + 1 (or the same, after a first one), an ACK when it is the last
// ACK's + 1 or the same; other well-formed ones wait (kScratchTftp).
#include "util/bytes.h"
#include "dpi/dpi.h"

namespace fg {
namespace {

enum Opcode : uint8_t { kRrq = 1, kWrq = 2, kData = 3, kAck = 4, kError = 5, kOack = 6 };

// The NUL-terminated string at `at`: its length, 0 when it is empty or its
// terminator is missing. On success `at` moves past the terminator.
size_t zstring(Bytes b, size_t& at, size_t& start) {
  if (at >= b.size()) return 0;
  size_t n = 0;
  while (at + n < b.size() && b[at + n] != 0) n++;
  if (n == 0 || at + n >= b.size()) return 0;
  start = at;
  at += n + 1;
  return n;
}

// Case-insensitive: the n bytes at `s` are `word` or the start of it.
bool prefix_of(Bytes b, size_t s, size_t n, const char* word) {
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = b[s + i];
    if (ch >= 'A' && ch <= 'Z') ch = uint8_t(ch + 32);
    if (word[i] == 0 || ch != uint8_t(word[i])) return false;
  }
  return true;
}

// Option name/value pairs from `at` on; true when they end the datagram.
bool options_fill(Bytes b, size_t at) {
  static const char* const kOptions[] = {"blksize", "tsize"};
  bool used[2] = {false, false};
  for (;;) {
    size_t name = 0, value = 0;
    const size_t n = zstring(b, at, name);
    if (n == 0 || zstring(b, at, value) == 0) break;
    size_t k = 0;
    while (k < 2 && !prefix_of(b, name, n, kOptions[k])) k++;
    if (k == 2 || used[k]) break;
    used[k] = true;
  }
  return at == b.size();
}

bool request_ok(Bytes b) {
  if (b[b.size() - 1] != 0) return false;
  size_t at = 2, file = 0, mode = 0;
  const size_t fn = zstring(b, at, file);
  if (fn == 0) return false;
  for (size_t i = 0; i < fn; i++)
    if (b[file + i] < 0x20 || b[file + i] > 0x7e) return false;
  const size_t mn = zstring(b, at, mode);
  if (mn == 0) return false;
  if (!prefix_of(b, mode, mn, "netascii") && !prefix_of(b, mode, mn, "octet") && !prefix_of(b, mode, mn, "mail")) return false;
  return options_fill(b, at);
}

Verdict classify_tftp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 4 || b[0] != 0) return Verdict::No;
  const uint8_t op = b[1];
  bool ok;
  switch (op) {
    case kRrq:
    case kWrq: ok = request_ok(b); break;
    case kOack: ok = options_fill(b, 2); break;
    case kData: ok = b.size() > 4; break;
    case kAck: ok = b.size() == 4; break;
    case kError: ok = b.size() >= 5 && b[b.size() - 1] == 0 && b[2] == 0 && b[3] <= 7; break;
    default: ok = false;
  }
  if (!ok) return Verdict::No;
  if (op >= kData && op <= kError) {
    // [0..1] last DATA block, [2..3] last ACK block, [4] packets counted
    uint8_t* st = c.scratch(kScratchTftp);
    if (!st) return Verdict::No;  // nowhere to keep the block numbers
    if (op != kError) {
      const uint16_t block = load_be16(b.data() + 2);
      uint8_t* last = st + (op == kData ? 0 : 2);
      const uint16_t prev = load_be16(last);
      last[0] = uint8_t(block >> 8), last[1] = uint8_t(block);
      // prev + 1 in int, as nDPI compares: block 0 never follows 65535.
      const bool follows = int(block) == int(prev) + 1 || (block == prev && (op == kAck || prev != 0));
      if (!follows) return Verdict::NeedMore;  // out of sequence: not counted (nDPI)
    }
    if (st[4] < 3) {
      st[4]++;
      return Verdict::NeedMore;
    }
  }
  m.app = id(ProtoId::TFTP);
  return Verdict::Match;
}

}  // namespace

// nDPI gives TFTP no packet budget of its own: the flow's.
FG_DISSECTOR(tftp, {"TFTP", id(ProtoId::TFTP), kL4Udp, kMaxDpiPackets, classify_tftp});

}  // namespace fg
