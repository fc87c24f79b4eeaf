// ④ VXLAN (RFC 7348 §5): an Ethernet frame in UDP behind an 8-byte header —
// flags (only I, 0x08, set in the first byte), 24 reserved bits, the 24-bit
// VNI and 8 reserved bits — sent to the IANA port 4789. As nDPI: the
// datagram goes TO port 4789 (a packet from 4789 does not count), is at
// least 8 bytes, and the first 32 bits read exactly 0x08000000 (the I flag,
// the rest zero; the group-policy bits of VXLAN-GBP would fail); the last
// reserved byte must be zero too. The VNI is not looked at. One datagram
// decides. nDPI names it with VXLAN as both layers, printed as plain VXLAN.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kVxlanPort = 4789;

Verdict classify_vxlan(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  const uint16_t dst_port = c.from_client ? c.srv_port : c.cli_port;
  if (dst_port != kVxlanPort || b.size() < 8) return Verdict::No;
  if (load_be32(b.data()) != 0x08000000 || b[7] != 0) return Verdict::No;
  m.app = id(ProtoId::VXLAN);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(vxlan, {"VXLAN", id(ProtoId::VXLAN), kL4Udp, 1, classify_vxlan});

}  // namespace fg
