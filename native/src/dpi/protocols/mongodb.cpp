// ④ MongoDB wire protocol (TCP): a 16-byte little-endian MsgHeader
// (messageLength, requestID, responseTo, opCode) and at least one byte more.
// As nDPI: messageLength 4…1,000,000 (not compared with the segment), opCode
// OP_UPDATE…OP_KILL_CURSORS (2001–2007, 2003 reserved included) or OP_MSG
// (2013) names it; OP_REPLY (1) does when its responseFlags use only the 4
// defined bits and the packet goes past the 20-byte reply header, else waits.
// Any other opCode (OP_COMPRESSED 2012 too) rules it out; up to 6 packets
// (nDPI's src/lib/protocols/mongodb.c).
// Difference kept: nDPI's count of 6 includes retransmitted segments,
// which no dissector here sees.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr size_t kHeader = 16;
constexpr uint32_t kOpReply = 1, kOpMsg = 2013;

Verdict classify_mongodb(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= kHeader) return Verdict::No;
  const uint32_t len = load_le32(b.data()), op = load_le32(b.data() + 12);
  if (len < 4 || len > 1000000) return Verdict::No;
  if ((op >= 2001 && op <= 2007) || op == kOpMsg) {
    m.app = id(ProtoId::MongoDB);
    return Verdict::Match;
  }
  if (op != kOpReply) return Verdict::No;
  // responseFlags, cursorID, startingFrom, numberReturned: 20 bytes
  if (b.size() > kHeader + 20 && (load_le32(b.data() + kHeader) & 0xfffffff0u) == 0) {
    m.app = id(ProtoId::MongoDB);
    return Verdict::Match;
  }
  return c.flow.dpi_packets >= 6 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(mongodb, {"MongoDB", id(ProtoId::MongoDB), kL4Tcp, 6, classify_mongodb});

}  // namespace fg
