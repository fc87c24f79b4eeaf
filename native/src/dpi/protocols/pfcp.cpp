// ④ PFCP (3GPP TS 29.244 §7.2.2, the 5G/EPC control-to-user-plane
// protocol, UDP port 8805): a header of flags (version in the top three
// bits, then spare bits, FO, MP and S), message type, a big-endian length
// counting what follows the first 4 bytes, then the SEID when S is set, a
// sequence number. As nDPI: port 8805 on either side, more than 12 bytes,
// the flags' LOW nibble equal to 1 (nDPI reads that as the version: in
// the spec's terms S set, FO, MP and one spare bit clear — node messages
// without SEID, S clear, are not named), the length equal to the payload
// minus 4, and a message type of at most 57 (nDPI means 0–17 and 50–57,
// but its test lets the reserved 18–49 through too). One datagram decides.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kPfcpPort = 8805;

Verdict classify_pfcp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != kPfcpPort && c.srv_port != kPfcpPort) return Verdict::No;
  if (b.size() <= 12 || (b[0] & 0x0f) != 1 || b[1] > 57) return Verdict::No;
  if (load_be16(b.data() + 2) != uint16_t(b.size() - 4)) return Verdict::No;
  m.app = id(ProtoId::PFCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(pfcp, {"PFCP", id(ProtoId::PFCP), kL4Udp, 1, classify_pfcp});

}  // namespace fg
