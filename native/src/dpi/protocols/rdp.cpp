// ④ RDP (MS-RDPBCGR §2.2.1.1): the client opens with a TPKT header
// (03 00 <length>) carrying an X.224 Connection Request (code 0xe0, dst-ref
// 0, class 0), followed by "Cookie: mstshash=…" or an RDP negotiation
// request; the server's Connection Confirm (0xd0) is accepted too.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_rdp(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (b.size() < 11) return Verdict::No;
  if (b[0] != 3 || b[1] != 0 || size_t(b[2] << 8 | b[3]) != b.size()) return Verdict::No;
  if (b[4] != b.size() - 5) return Verdict::No;  // X.224 length indicator
  const uint8_t code = b[5] & 0xf0;
  if (code != 0xe0 && code != 0xd0) return Verdict::No;
  if (b[6] != 0 || b[7] != 0 || b[10] != 0) return Verdict::No;  // dst-ref, class 0
  // A CR carries the routing cookie or an RDP negotiation request
  // (type 1, length 8) at its end; a CC an RDP negotiation response or
  // failure (type 2 / 3, length 8). Other ISO transports (MMS …) carry TSAPs.
  const size_t n = b.size();
  bool rdp;
  if (code == 0xe0) {
    static const char kCookie[] = "Cookie: mstshash=";
    rdp = (n >= 11 + sizeof(kCookie) - 1 && std::memcmp(b.data() + 11, kCookie, sizeof(kCookie) - 1) == 0) ||
          (n >= 19 && b[n - 8] == 1 && b[n - 6] == 8 && b[n - 5] == 0);
  } else {
    rdp = n == 19 && (b[11] == 2 || b[11] == 3) && b[13] == 8 && b[14] == 0;
  }
  if (!rdp) return Verdict::No;
  m.app = id(ProtoId::RDP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(rdp, {"RDP", id(ProtoId::RDP), kL4Tcp, 3, classify_rdp});

}  // namespace fg
