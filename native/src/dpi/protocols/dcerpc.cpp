// ④ DCE/RPC (C706 chapter 12), as nDPI's dcerpc.c reads any payload packet,
// TCP or UDP, IPv4 or IPv6. Over TCP (connection-oriented PDU): at least
// 64 bytes, version 5, a packet type below 16 and the fragment length
// (little-endian at 8) equal to the segment. Over UDP (connectionless
// PDU): at least 80 bytes, version 4, a packet type up to 10 (CANCEL_ACK),
// flags2 bits 2-7 clear, the data representation's integer byte nibble 0
// or 1 and character nibble 0 or 1 (byte 4 & 0xee clear), a floating-point
// type up to 3, and the body length at 74 (little-endian when byte 4 is
// exactly 0x10, else big-endian) filling the datagram after its 80-byte
// header exactly. A packet that fails rules DCE/RPC out unless it is a
// single byte (nDPI waits on those); no packet budget of its own.
// Sub-protocol (nDPI lists PROFINET_IO under DCERPC; its profinet_io.c is
// UDP only): on the packet DCE/RPC matched, a connectionless call whose
// object UUID opens dea00000-6c97-11d1 (read big-endian when byte 4's high
// nibble is 0, else little-endian) is DCERPC.PROFINET_IO. nDPI's PROFINET
// dissector also runs on every undecided UDP packet, where it rules itself
// out, so it is still a candidate only on the flow's first payload packet
// (it has no default port, so it is never asked first).
#include "dpi/dpi.h"

namespace fg {
namespace {

bool connection_oriented(Bytes b) {
  return b.size() >= 64 && b[0] == 5 && b[2] < 16 && size_t(b[8] | b[9] << 8) == b.size();
}

bool connectionless(Bytes b, bool& little) {
  if (b.size() < 80 || b[0] != 4 || b[1] > 10 || (b[3] & 0xfc) || (b[4] & 0xee) || b[5] > 3) return false;
  little = b[4] == 0x10;
  const size_t body = little ? size_t(b[74] | b[75] << 8) : size_t(b[74] << 8 | b[75]);
  return b.size() == body + 80;
}

// The object UUID's first three fields, read in the packet's byte order.
bool profinet_io(Bytes b, bool little) {
  const uint8_t* p = b.data();
  uint32_t time_low = little ? load_le32(p + 8) : load_be32(p + 8);
  uint16_t time_mid = little ? load_le16(p + 12) : load_be16(p + 12);
  uint16_t time_hi = little ? load_le16(p + 14) : load_be16(p + 14);
  return time_low == 0xdea00000 && time_mid == 0x6c97 && time_hi == 0x11d1;
}

Verdict classify_dcerpc(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  bool little = false;
  if (c.p.l4_proto == kProtoTcp ? connection_oriented(b) : connectionless(b, little)) {
    // the UUID's byte order from the high nibble alone (0x11 too), the
    // body length's from 0x10 only, as nDPI
    if (c.p.l4_proto == kProtoUdp && c.flow.dpi_packets == 1 && profinet_io(b, (b[4] >> 4) != 0)) {
      m.master = id(ProtoId::DCERPC);
      m.app = id(ProtoId::PROFINET_IO);
    }
    return Verdict::Match;
  }
  return b.size() > 1 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(dcerpc, {"DCERPC", id(ProtoId::DCERPC), kL4Both, kMaxDpiPackets, classify_dcerpc});

}  // namespace fg
