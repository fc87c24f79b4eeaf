// ④ CIP implicit (I/O) messaging over UDP (ODVA CIP Vol. 2 §2-6 and the
// Common Packet Format §2-6.1): UDP port 2222 on both sides, the datagram a
// CPF item list — item count (little-endian 16 bits), then items of type id
// and length (both little-endian 16 bits) and data (typically a sequenced
// address item and a connected data item).
// nDPI reads the flow's first datagram: both ports 2222, 12 to 63 octets,
// the count's high octet zero, and the items, walked while items remain
// and more than an item header's worth of bytes follows, ending exactly at
// the end of the datagram. nDPI keeps the walk's offset in 8 bits (it wraps
// past 255); we do the same, which only matters for absurd item lengths.
// CIP over TCP (explicit messages inside EtherNet/IP) is EtherNet/IP's.
#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kCipIoPort = 2222;

Verdict classify_cip(DpiCtx& c, Match& m) {
  Bytes b = c.payload;
  if (c.cli_port != kCipIoPort || c.srv_port != kCipIoPort) return Verdict::No;
  if (b.size() < 12 || b.size() >= 64 || b[1] != 0) return Verdict::No;
  uint8_t items = b[0];
  uint8_t at = 2;  // 8 bits, as nDPI's walk
  while (items > 0 && b.size() > size_t(at) + 4) {
    const uint16_t len = load_le16(b.data() + at + 2);
    at = uint8_t(at + 4 + len);
    items--;
  }
  if (at != b.size()) return Verdict::No;
  m.app = id(ProtoId::CIP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(cip, {"CIP", id(ProtoId::CIP), kL4Udp, 1, classify_cip});

}  // namespace fg
