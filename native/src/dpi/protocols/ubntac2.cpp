// ④ UBNTAC2: Ubiquiti's device discovery as AirControl 2 / UniFi see it
// (UDP port 10001; Wireshark's "ubdp" dissector): a version and command
// byte, a length, then type-length-value fields — MAC and IP, the firmware
// string, the model and the product tag ("UBNT" …). As nDPI: UDP with port
// 10001 on either side, the datagram at least 135 bytes, and the tag "UBNT"
// at byte 36 or "ubnt" at byte 49, the positions it takes in the announces
// nDPI knows. The firmware version nDPI copies out is not kept here (no
// metadata slot for it). One datagram decides.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint16_t kUbntPort = 10001;

Verdict classify_ubntac2(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != kUbntPort && c.srv_port != kUbntPort) return Verdict::No;
  if (b.size() < 135) return Verdict::No;
  if (!has_at(b, 36, "UBNT") && !has_at(b, 49, "ubnt")) return Verdict::No;
  m.app = id(ProtoId::UBNTAC2);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(ubntac2, {"UBNTAC2", id(ProtoId::UBNTAC2), kL4Udp, 1, classify_ubntac2});

}  // namespace fg
