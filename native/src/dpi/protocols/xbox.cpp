// ④ Xbox Live game traffic over UDP (Xbox support, "Network ports used by
// Xbox Live": UDP 3074 for game and party traffic). Microsoft publishes no
// wire format, so the shapes are those nDPI recognises, read from captures:
//  - on any port, a datagram over 12 bytes whose first four bytes are zero,
//    byte 5 is 0x58, bytes 7–9 are zero and bytes 4 and 6 are one of the
//    pairs (0x0c,0x76) (0x02,0x18) (0x0b,0x80) (0x03,0x40) (0x06,0x4e):
//    Xbox at once, in either direction (asymmetric captures too);
//  - with 3074 on either side, a datagram of one of six fixed sizes with its
//    leading bytes (24 bytes opening with 0x00; 42 with 0x4f ?? 0x0a; 80
//    with 0x50bc45; 40 with 0xcf5f3202; 38 with 0xc1457f03; 28 with
//    0x015f2c00): the second such datagram of the flow names it.
// A datagram matching neither rules the flow out from the fifth payload
// packet on (before that it waits); a 3074-shaped one keeps it open, as in
// nDPI. nDPI's disabled port-only rule for 3075–3078 is left out here too.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

// kScratchXbox: datagrams of the 3074 shapes seen.
constexpr uint16_t kXboxLivePort = 3074;

bool headed_shape(Bytes b) {
  if (b.size() <= 12 || load_be32(b.data()) != 0 || b[5] != 0x58 || b[7] != 0 || b[8] != 0 || b[9] != 0) return false;
  const uint8_t k = b[4], v = b[6];
  return (k == 0x0c && v == 0x76) || (k == 0x02 && v == 0x18) || (k == 0x0b && v == 0x80) || (k == 0x03 && v == 0x40) ||
         (k == 0x06 && v == 0x4e);
}

bool port_3074_shape(Bytes b) {
  const uint8_t* p = b.data();
  switch (b.size()) {
    case 24: return p[0] == 0x00;
    case 42: return p[0] == 0x4f && p[2] == 0x0a;
    case 80: return load_be16(p) == 0x50bc && p[2] == 0x45;
    case 40: return load_be32(p) == 0xcf5f3202;
    case 38: return load_be32(p) == 0xc1457f03;
    case 28: return load_be32(p) == 0x015f2c00;
    default: return false;
  }
}

Verdict classify_xbox(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  if (headed_shape(b)) {
    m.app = id(ProtoId::Xbox);
    return Verdict::Match;
  }
  if ((c.cli_port == kXboxLivePort || c.srv_port == kXboxLivePort) && port_3074_shape(b)) {
    uint8_t* seen = c.scratch(kScratchXbox);
    if (!seen) return Verdict::No;
    if (*seen >= 1) {
      m.app = id(ProtoId::Xbox);
      return Verdict::Match;
    }
    *seen = 1;
    return Verdict::NeedMore;
  }
  return c.flow.dpi_packets >= 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(xbox, {"Xbox", id(ProtoId::Xbox), kL4Udp, kMaxDpiPackets, classify_xbox});

}  // namespace fg
