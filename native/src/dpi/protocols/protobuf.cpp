// ④ Protobuf (a bare protocol-buffers message, TCP or UDP), nDPI's
// heuristic: the payload reads as a run of well-formed fields (varint tag
// with field number ≥ 1 and wire type varint, 64-bit, length-delimited or
// 32-bit; groups refuse). Eight fields with one length-delimited among them
// name the flow at once (over UDP on a first packet RTP has not staged),
// two suffice from the fourth payload packet; a
// partial message waits, up to eight packets. Registered last: any other
// dissector's match comes first.
#include <climits>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kMaxFields = 32;

// A varint at `off` (at most 9 bytes); false when the payload ends first.
bool varint(Bytes b, size_t& off, uint64_t& v) {
  v = 0;
  size_t i = 0;
  for (; i < 9; i++) {
    if (off + i >= b.size()) return false;
    v |= uint64_t(b[off + i] & 0x7f) << (7 * i);
    if (!(b[off + i] & 0x80)) break;
  }
  off += i + 1;
  return true;
}

Verdict classify_protobuf(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  size_t fields = 0, len_fields = 0, off = 0;
  do {
    uint64_t tag;
    if (!varint(b, off, tag)) break;
    const uint8_t type = tag & 7;
    const uint64_t field = tag >> 3;
    if (type > 5 || field == 0 || field > (UINT_MAX >> 3)) return Verdict::No;
    uint64_t v;
    if (type == 0) {
      if (!varint(b, off, v)) return Verdict::No;
    } else if (type == 1) {
      if (b.size() < off + 8) return Verdict::No;
      off += 8;
    } else if (type == 2) {
      if (!varint(b, off, v)) {
        // The length is cut: nDPI still counts the field, then stops
        // reading (the next tag cannot be read) and may wait for more.
        ++fields;
        break;
      }
      if (v == 0 || v > INT_MAX) return Verdict::No;
      off += v;
      len_fields++;
    } else if (type == 5) {
      if (b.size() < off + 4) return Verdict::No;
      off += 4;
    } else {
      return Verdict::No;  // start / end group: deprecated
    }
  } while (++fields < kMaxFields);
  // Over UDP the first packet of eight fields may be RTP or RTCP instead:
  // while RTP's dissector has staged the flow (nDPI's rtp_stage, the low
  // nibble of RTP's scratch byte, only read here) it waits for a second.
  bool rtp_staged = false;
  if (c.p.l4_proto == kProtoUdp && c.flow.dpi_packets <= 1) {
    const uint8_t* rtp = c.scratch(kScratchRtp);
    rtp_staged = rtp && (rtp[0] & 0x0f) != 0;
  }
  if ((fields >= 8 && len_fields > 0 && !rtp_staged) || (c.flow.dpi_packets >= 4 && fields >= 2)) {
    m.app = id(ProtoId::Protobuf);
    return Verdict::Match;
  }
  if (b.size() < off || fields == 0) return Verdict::No;
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(protobuf, {"Protobuf", id(ProtoId::Protobuf), kL4Both, 8, classify_protobuf});

}  // namespace fg
