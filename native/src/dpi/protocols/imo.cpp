// ④ IMO (messenger calls) over UDP, as nDPI reads it (src/lib/protocols/
// imo.c): fixed-shape packets name the flow (10 bytes opening 0x09 0x02,
// 11 bytes opening 0x00 0x09 0x03, 1099 bytes opening 0x88 0x49 0x1a 0x00).
// Two one-byte packets in a row carrying the same byte name it too (nDPI's
// imo_last_one_byte_pkt and imo_last_byte: the packet number and byte kept
// in Classifier::memo). A packet of another shape ends the flow's turn from
// its sixth packet on; one-byte packets never end it.
#include "dpi/classify.h"
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_imo(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool ok = (b.size() == 10 && b[0] == 0x09 && b[1] == 0x02) ||
            (b.size() == 11 && b[0] == 0x00 && b[1] == 0x09 && b[2] == 0x03) ||
            (b.size() == 1099 && load_be32(b.data()) == 0x88491a00);
  if (ok) {
    m.app = id(ProtoId::IMO);
    return Verdict::Match;
  }
  if (b.size() == 1) {
    const uint8_t* last = c.clf->memo(c.flow);
    if (last && last[0] + 1 == c.flow.dpi_packets && last[1] == b[0]) {
      m.app = id(ProtoId::IMO);
      return Verdict::Match;
    }
    uint8_t* mine = c.clf->memo_take(c.flow);
    mine[0] = c.flow.dpi_packets, mine[1] = b[0];
    return Verdict::NeedMore;
  }
  return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(imo, {"IMO", id(ProtoId::IMO), kL4Udp, kMaxDpiPackets, classify_imo});

}  // namespace fg
