// ④ IAX2 (RFC 5456), UDP with port 4569 on either side as nDPI requires: a
// full frame (§8.1.1: F bit set, source call number, R bit + destination
// call number, 32-bit timestamp, OSeqno, ISeqno, frame type, C bit +
// subclass) that opens a call — OSeqno 0, ISeqno 0 or 1, frame type 6 (IAX
// control, §8.4) and a subclass of at most 15 with the C bit clear — either
// alone (12 bytes) or followed by information elements (§8.6: type, length,
// data) whose lengths add up exactly to the datagram within 15 of them.
// The first payload packet decides, as in nDPI.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr size_t kFullHeader = 12;
constexpr int kMaxIes = 15;

Verdict classify_iax(DpiCtx& c, Match& m) {
  if (c.cli_port != 4569 && c.srv_port != 4569) return Verdict::No;
  Bytes b = c.payload;
  if (b.size() < kFullHeader || !(b[0] & 0x80)) return Verdict::No;
  if (b[8] != 0 || b[9] > 1 || b[10] != 0x06 || b[11] > 15) return Verdict::No;
  bool whole = b.size() == kFullHeader;
  size_t at = kFullHeader;
  for (int i = 0; i < kMaxIes && !whole; i++) {
    if (at + 1 >= b.size()) break;  // no room for an IE's length byte
    at += 2 + size_t(b[at + 1]);
    whole = at == b.size();
  }
  if (!whole) return Verdict::No;
  m.app = id(ProtoId::IAX);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(iax, {"IAX", id(ProtoId::IAX), kL4Udp, 1, classify_iax});

}  // namespace fg
