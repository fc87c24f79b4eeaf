// ④ Ethernet Global Data (GE industrial exchange) over UDP, on any port as
// nDPI reads it (src/lib/protocols/egd.c): more than 32 bytes opening with
// PDU type 13 and version 1, the producer id at offset 4 equal to the
// sender's IPv4 address (network order), a big-endian status below 31 at
// offset 24 and a zero reserved word at offset 28. nDPI reads the IPv4
// header only, so an IPv6 datagram is never EGD here.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_egd(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (!c.p.src.is_v4() || b.size() <= 32 || b[0] != 0x0d || b[1] != 0x01) return Verdict::No;
  if (load_be32(b.data() + 4) != c.p.src.v4()) return Verdict::No;  // producer id
  if (load_be32(b.data() + 24) >= 31) return Verdict::No;           // status
  if (load_be32(b.data() + 28) != 0) return Verdict::No;            // reserved
  m.app = id(ProtoId::EthernetGlobalData);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(egd, {"EthernetGlobalData", id(ProtoId::EthernetGlobalData), kL4Udp, 1, classify_egd});

}  // namespace fg
