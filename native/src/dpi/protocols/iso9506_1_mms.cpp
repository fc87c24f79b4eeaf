// ④ ISO 9506-1 MMS (Manufacturing Message Specification) over TPKT/COTP
// (RFC 1006): a client segment over 60 bytes with a valid TPKT header
// (version 3, length = segment), a COTP data TPDU (length 2, code 0xf0, EOT
// 0x80), an ISO 8327-1 session SPDU (type at most 14) whose length is the
// rest, and near its end the MMS initiate-request's tag 0x80 0x02 / 0x80
// 0x03 at the offsets nDPI checks (37, 38 or 40 bytes before the end).
// nDPI (src/lib/protocols/iso9506-1-mms.c) never gives up on a packet's
// shape alone: it gives up once one side sent its third payload packet
// without a match (that packet still checked), so never past the fifth.
// Kept difference: no per-side payload packet count is kept here, so a
// side's third packet before the fifth does not end the flow's turn.
#include "dpi/dpi.h"

namespace fg {
namespace {

bool at(Bytes b, size_t back, uint8_t x, uint8_t y) { return b[b.size() - back] == x && b[b.size() - back + 1] == y; }

Verdict classify_iso9506_1_mms(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool more = c.flow.dpi_packets < 5;
  if (!c.from_client || b.size() <= 60) return more ? Verdict::NeedMore : Verdict::No;
  const bool tpkt = b[0] == 3 && b[1] == 0 && load_be16(b.data() + 2) == b.size();
  if (tpkt && b[4] == 2 && b[5] == 0xf0 && b[6] == 0x80 && b[7] <= 14 && b[8] == b.size() - 9 &&
      (at(b, 37, 0x80, 0x02) || at(b, 38, 0x80, 0x03) || at(b, 40, 0x80, 0x02))) {
    m.app = id(ProtoId::ISO9506_1_MMS);
    return Verdict::Match;
  }
  return more ? Verdict::NeedMore : Verdict::No;
}

}  // namespace

FG_DISSECTOR(iso9506_1_mms, {"ISO9506-1-MMS", id(ProtoId::ISO9506_1_MMS), kL4Tcp, 5, classify_iso9506_1_mms});

}  // namespace fg
