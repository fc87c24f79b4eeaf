// ④ ZeroMQ (ZMTP, rfc.zeromq.org 15/ZMTP and 23/ZMTP), TCP: since ZMTP/2
// each peer opens with a 10-byte signature — 0xFF, eight padding bytes
// holding a ZMTP/1.0 length of 1 (00…01), 0x7F — then its version and the
// rest of its greeting.
// As nDPI's zeromq.c: the flow's first payload packet (either side) is
// kept, up to 10 bytes; a later packet, up to the flow's 10th payload
// packet, names the flow when, with the kept one:
// - both open with the signature (this one 10 bytes or more);
// - both hold 28 'f' 'l' 'o' 'w' 00 from offset 1 (kept one 10 bytes or more,
//   this one too);
// - this one is 2 bytes: 01 01 after a kept 2-byte 01 02; 00 00 after the
//   kept 9 bytes 00 00 00 05 01 'f' 'l' 'o' 'w'; 01 02 after a kept
//   signature.
// Nothing else names it; from the 11th payload packet on it is ruled out.
// State: which of those forms the first packet had (3 bits, bits 4-6 of
// kScratchTcpBits, dpi.h) instead of its bytes; a first packet of none of
// them can never match, so it rules ZeroMQ out at once.
#include <cstring>

#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kSignature[10] = {0xff, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x7f};
constexpr uint8_t kFlowTag[6] = {0x28, 'f', 'l', 'o', 'w', 0x00};  // at offset 1
constexpr uint8_t kFlow9[9] = {0, 0, 0, 5, 1, 'f', 'l', 'o', 'w'};

// The first packet's form (0: none kept yet).
enum Form : uint8_t { kNone = 0, kTwo0102 = 1, kNine = 2, kSig = 3, kTag = 4 };
constexpr int kShift = 4;

bool at(Bytes b, size_t off, const uint8_t* w, size_t n) { return b.size() >= off + n && std::memcmp(b.data() + off, w, n) == 0; }

// The form of a flow's first payload packet; kNone when it is none of them.
Form form_of(Bytes b) {
  if (b.size() == 2) return b[0] == 1 && b[1] == 2 ? kTwo0102 : kNone;
  if (b.size() == 9) return at(b, 0, kFlow9, 9) ? kNine : kNone;
  if (b.size() >= 10) {
    if (at(b, 0, kSignature, 10)) return kSig;
    if (at(b, 1, kFlowTag, 6)) return kTag;
  }
  return kNone;
}

Verdict classify_zeromq(DpiCtx& c, Match& m) {
  uint8_t* bits = c.scratch(kScratchTcpBits);
  if (!bits) return Verdict::No;
  Bytes b = c.payload;
  const Form kept = Form((*bits >> kShift) & 7);
  if (kept == kNone) {
    const Form f = form_of(b);
    if (f == kNone) return Verdict::No;
    *bits = uint8_t((*bits & ~(7 << kShift)) | f << kShift);
    return Verdict::NeedMore;
  }
  bool hit = false;
  if (b.size() == 2) {
    hit = (kept == kTwo0102 && b[0] == 1 && b[1] == 1) || (kept == kNine && b[0] == 0 && b[1] == 0) ||
          (kept == kSig && b[0] == 1 && b[1] == 2);
  } else if (b.size() >= 10) {
    hit = (kept == kSig && at(b, 0, kSignature, 10)) || (kept == kTag && at(b, 1, kFlowTag, 6));
  }
  if (!hit) return Verdict::NeedMore;
  m.app = id(ProtoId::ZeroMQ);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(zeromq, {"ZeroMQ", id(ProtoId::ZeroMQ), kL4Tcp, 10, classify_zeromq});

}  // namespace fg
