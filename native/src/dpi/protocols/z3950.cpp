// ④ Z39.50 (ANSI/NISO information retrieval) over TCP, as nDPI's z3950.c:
// each of the flow's first eight payload packets of 6 bytes or more is read
// as a BER PDU whose tag number (low 5 bits of the first byte) is 20 or
// more, followed from offset 2 by simple tag-length elements, each within
// the packet. A packet that breaks this (or a shorter packet, or one past
// the eighth) excludes; one with fewer than six elements (or ending on the
// packet's end before them) waits; a high-tag-number element ends the
// reading there. nDPI counts the packets with six elements (z3950_stage):
// the fourth names the flow once both of nDPI's directions have sent
// payload (packet_direction_counter), and excludes it when only one has.
// State: in the kScratchZ3950 byte (TCP flows; dpi.h), bit d for a payload
// packet seen in nDPI direction d, and the count in bits 2-3.
#include "dpi/dpi.h"
#include "dpi/ndpi_direction.h"

namespace fg {
namespace {

constexpr int kWanted = 6;
constexpr uint8_t kStageShift = 2, kStageMask = 3 << kStageShift;  // Z39.50's bits of the byte it shares

// Elements read (up to kWanted), or -1 when the packet is not Z39.50.
int elements(Bytes b) {
  const size_t n = b.size();
  const uint8_t pdu = b[0] & 0x1f;
  if (pdu < 20) return -1;
  size_t off = 2;
  for (int cur = 1; cur <= kWanted; cur++) {
    if (off + 2 >= n) return -1;
    if ((b[off] & 0x1f) == 0x1f) return cur;
    const size_t len = b[off + 1];
    if (len >= n - off + 1) return -1;
    off += len + 2;
    if (off == n) return cur;
  }
  return kWanted;
}

Verdict classify_z3950(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 6 || c.flow.dpi_packets > 8) return Verdict::No;
  const int got = elements(b);
  if (got < 0) return Verdict::No;
  uint8_t* st = c.scratch(kScratchZ3950);
  if (!st) return Verdict::No;  // nowhere to count: ruled out (dpi.h)
  // every payload packet passes here while the flow is a candidate
  *st |= uint8_t(1u << ndpi_direction(c.p));
  if (got < kWanted) return Verdict::NeedMore;
  const unsigned stage = (*st & kStageMask) >> kStageShift;
  if (stage < 3) {
    *st = uint8_t((*st & ~kStageMask) | (stage + 1) << kStageShift);
    return Verdict::NeedMore;
  }
  if ((*st & 3) != 3) return Verdict::No;
  m.app = id(ProtoId::Z3950);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(z3950, {"Z3950", id(ProtoId::Z3950), kL4Tcp, 8, classify_z3950});

}  // namespace fg
