// ④ Siemens S7 communication over ISO-on-TCP (RFC 1006 TPKT, port 102): a
// TPKT header (version 3, reserved 0, length = the segment), a 3-octet COTP
// data TPDU (ISO 8073: length 2, code 0xf0, EOT/number), then the S7 PDU
// whose first octet is its protocol id: 0x32 for S7comm, 0x72 for S7comm-plus.
// As nDPI does, on port 102 (either side) and for segments over 17 octets:
// - 0x72 at offset 7 and again 4 octets before the end (S7comm-plus's
//   trailer repeats its protocol id): S7CommPlus;
// - 0x32 at offset 7, a ROSCTR (PDU type) of job, ack, ack-data (≤ 3) or
//   user-data (7) and a zero reserved field: S7Comm.
// A TPKT segment on port 102 that is neither keeps the flow under watch for
// the next segments (COTP connection setup comes first); anything else
// (no TPKT header, other ports, too short) rules the flow out.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kIsoTsapPort = 102;
constexpr uint8_t kS7comm = 0x32, kS7commPlus = 0x72;

// RFC 1006 §6: version 3, reserved 0, the packet length covering the segment.
bool tpkt(Bytes b) { return b.size() > 4 && b[0] == 3 && b[1] == 0 && load_be16(b.data() + 2) == b.size(); }

Verdict classify_s7comm(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!tpkt(b) || b.size() <= 17 || (c.cli_port != kIsoTsapPort && c.srv_port != kIsoTsapPort)) return Verdict::No;
  if (b[7] == kS7commPlus) {
    if (b[b.size() - 4] == kS7commPlus) {
      m.app = id(ProtoId::S7CommPlus);
      return Verdict::Match;
    }
  } else if (b[7] == kS7comm) {
    const uint8_t rosctr = b[8];
    if ((rosctr <= 3 || rosctr == 7) && load_be16(b.data() + 9) == 0) {
      m.app = id(ProtoId::S7Comm);
      return Verdict::Match;
    }
  }
  return Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(s7comm, {"S7Comm", id(ProtoId::S7Comm), kL4Tcp, kMaxDpiPackets, classify_s7comm});

}  // namespace fg
