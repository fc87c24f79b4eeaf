// ④ VHUA, a Chinese Skype-like VoIP client (vhua.com), UDP on any port. No
// public specification: nDPI knows it by a 9-byte signature at the start of
// a datagram (05 14 3A 05 08 F8 A1 B1 03) within the flow's first three
// payload packets; a datagram shorter than the signature, or a fourth
// packet, rules it out (a longer datagram without it only waits).
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

constexpr uint8_t kSignature[] = {0x05, 0x14, 0x3a, 0x05, 0x08, 0xf8, 0xa1, 0xb1, 0x03};

Verdict classify_vhua(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.flow.dpi_packets > 3 || b.size() < sizeof(kSignature)) return Verdict::No;
  for (size_t i = 0; i < sizeof(kSignature); i++)
    if (b[i] != kSignature[i]) return Verdict::NeedMore;
  m.app = id(ProtoId::VHUA);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(vhua, {"VHUA", id(ProtoId::VHUA), kL4Udp, 3, classify_vhua});

}  // namespace fg
