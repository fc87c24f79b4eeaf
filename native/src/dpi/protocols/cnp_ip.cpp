// ④ CNP/IP, ANSI/CEA-852 (EIA-852) tunnelling of LonWorks CNP over UDP
// (ports 1628/1629): a 20-octet common header — data packet length
// (16 bits, big-endian, the whole datagram), version, packet type,
// extended header size, protocol flags, vendor code, session id, sequence
// number, time stamp.
// nDPI reads the flow's first datagram on any port: over 20 octets, the
// length equal to the datagram, the packet type's low 5 bits 0x01 (data
// packet), a zero extended header size and the flags' low 5 bits below 3.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_cnp_ip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 20 || load_be16(b.data()) != b.size()) return Verdict::No;
  if ((b[3] & 0x1f) != 0x01 || b[4] != 0 || (b[5] & 0x1f) >= 3) return Verdict::No;
  m.app = id(ProtoId::CNP_IP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(cnp_ip, {"CNP-IP", id(ProtoId::CNP_IP), kL4Udp, 1, classify_cnp_ip});

}  // namespace fg
