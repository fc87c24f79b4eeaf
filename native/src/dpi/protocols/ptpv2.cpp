// ④ PTPv2, IEEE 1588-2008 over UDP (Annex D): event messages on port 319,
// general messages on port 320. The common header (§13.3) is 34 octets:
// transportSpecific and messageType nibbles, reserved and versionPTP nibbles,
// messageLength, domain, flags, correction, sourcePortIdentity …
// nDPI reads the flow's first datagram: longer than the 34-octet header,
// source and destination port both 319 or both 320, a messageType nibble
// below 15 and the second octet exactly 2 (versionPTP 2 with a zero
// high nibble: PTP 2.1's minorVersionPTP 1, octet 0x12, is not accepted).
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kEventPort = 319, kGeneralPort = 320;
constexpr size_t kCommonHeader = 34;

Verdict classify_ptpv2(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() <= kCommonHeader) return Verdict::No;
  const bool ports = (c.cli_port == kEventPort && c.srv_port == kEventPort) ||
                     (c.cli_port == kGeneralPort && c.srv_port == kGeneralPort);
  if (!ports || (b[0] & 0x0f) == 0x0f || b[1] != 0x02) return Verdict::No;
  m.app = id(ProtoId::PTPv2);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ptpv2, {"PTPv2", id(ProtoId::PTPv2), kL4Udp, 1, classify_ptpv2});

}  // namespace fg
