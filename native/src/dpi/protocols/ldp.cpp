// ④ LDP, the Label Distribution Protocol (RFC 5036 §3.1: PDU header —
// version 1, PDU length counting what follows it (all but the first 4
// bytes), 6-byte LDP identifier; §3.4 / §3.5: then a message, its 16-bit
// type at offset 10). Hellos (type 0x0100, §3.5.2) go over UDP 646; the
// session messages over TCP 646.
// nDPI's rule, kept, on the first payload packet, any port: more than 19
// bytes, version 1, the PDU length equal to the payload's minus 4; over UDP
// the message a Hello; over TCP one of the session types (Initialization,
// KeepAlive, Capability (RFC 5561), Address, Address Withdraw, Label
// Mapping / Request / Withdraw / Release / Abort Request, Call Setup and
// Call Release (IANA's LDP message type registry), the ICCP RG messages
// (RFC 7275)) or a vendor-private type 0x3E00..0x3EFF (§3.6).
// Anything else rules LDP out.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

bool session_type(uint16_t t) {
  if (t >= 0x3e00 && t <= 0x3eff) return true;  // vendor-private (§3.6)
  switch (t) {
    case 0x0200: case 0x0201: case 0x0202:                             // Initialization, KeepAlive, Capability
    case 0x0300: case 0x0301:                                          // Address, Address Withdraw
    case 0x0400: case 0x0401: case 0x0402: case 0x0403: case 0x0404:  // Label …
    case 0x0500: case 0x0501:                                          // Call Setup, Call Release
    case 0x0700: case 0x0701: case 0x0702: case 0x0703:                // ICCP RG Connect … Application Data
      return true;
    default:
      return false;
  }
}

Verdict classify_ldp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= 19 || load_be16(b.data()) != 1 || load_be16(b.data() + 2) != uint16_t(b.size() - 4)) return Verdict::No;
  const uint16_t type = load_be16(b.data() + 10);
  const bool ok = c.p.l4_proto == kProtoUdp ? type == 0x0100 : session_type(type);
  if (!ok) return Verdict::No;
  m.app = id(ProtoId::LDP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ldp, {"LDP", id(ProtoId::LDP), kL4Both, 1, classify_ldp});

}  // namespace fg
