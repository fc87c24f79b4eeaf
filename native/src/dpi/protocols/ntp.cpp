// ④ NTP (RFC 5905): port 123, version 1-4 in the first byte; time packets
// carry at least the 48-byte header, control (mode 6) and private (mode 7)
// messages at least their 8-byte headers.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_ntp(DpiCtx& c, Match& m) {
  if (c.srv_port != 123 && c.cli_port != 123) return Verdict::No;
  Bytes b = c.payload;
  if (b.empty()) return Verdict::No;
  uint8_t version = (b[0] >> 3) & 7, mode = b[0] & 7;
  if (version < 1 || version > 4) return Verdict::No;
  if (mode == 6 || mode == 7) {
    if (b.size() < 8) return Verdict::No;
  } else if (mode == 0 || b.size() < 48) {
    return Verdict::No;
  }
  m.app = id(ProtoId::NTP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ntp, {"NTP", id(ProtoId::NTP), kL4Udp, 2, classify_ntp});

}  // namespace fg
