// ④ EtherNet/IP encapsulation over TCP (ODVA CIP Vol. 2 §2-3, TCP port
// 44818): a 24-octet header — command, length of the data that follows
// (little-endian), session handle, status, sender context, options — then
// the command data. nDPI reads the flow's first payload segment: port 44818
// on either side, at least the 24 header octets, and the length field plus
// 24 equal to the segment. Like nDPI, the command code is not checked, and
// EtherNet/IP over UDP (ListIdentity on 44818, I/O on 2222) is not named here.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kEnipPort = 44818;
constexpr size_t kEncapHeader = 24;

Verdict classify_ethernet_ip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != kEnipPort && c.srv_port != kEnipPort) return Verdict::No;
  if (b.size() < kEncapHeader || load_le16(b.data() + 2) + kEncapHeader != b.size()) return Verdict::No;
  m.app = id(ProtoId::EthernetIP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ethernet_ip, {"EthernetIP", id(ProtoId::EthernetIP), kL4Tcp, 1, classify_ethernet_ip});

}  // namespace fg
