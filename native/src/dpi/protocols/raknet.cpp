// ④ RakNet (UDP game networking), as nDPI recognises it: every packet must
// parse as a RakNet message by its first byte: the offline handshake
// messages by their exact sizes and fields, frame sets by walking their
// frames (a few packets needed: nDPI's ground truth leaves lone frame sets
// unknown), ACKs and NACKs by walking their records (one packet enough).
// A full-MTU first packet carrying the offline magic at a known offset is
// the custom (Roblox-style) variant, taken when the standard parse fails.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint8_t kMagic[16] = {0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe,
                                0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78};

// Address length after the family byte at `off` (4 or 16), 0 when invalid.
size_t ip_len(Bytes b, size_t off) {
  if (off + 1 >= b.size()) return 0;
  return b[off] == 0x04 ? 4 : b[off] == 0x06 ? 16 : 0;
}

bool custom_variant(Bytes b) {
  if (b.size() < 1200) return false;
  for (size_t off : {1, 9, 17, 32})
    if (std::memcmp(b.data() + off, kMagic, sizeof kMagic) == 0) return true;
  return false;
}

bool mtu_ok(Bytes b, size_t off) { return off + 2 <= b.size() && load_be16(b.data() + off) <= 1500; }

// 0 = not RakNet, 1 = RakNet for sure, else the packets needed first.
unsigned parse(Bytes b) {
  const size_t n = b.size();
  if (n < 7) return 0;
  switch (b[0]) {
    case 0x00: return n == 8 ? 6 : 0;                       // connected ping
    case 0x01: case 0x02: return n == 32 ? 6 : 0;           // unconnected ping
    case 0x03: return n == 16 ? 6 : 0;                      // connected pong
    case 0x05: return n >= 18 && b[17] <= 10 ? 6 : 0;       // open connection request 1
    case 0x06:                                              // open connection reply 1
      return n == 28 && b[25] <= 1 && mtu_ok(b, 26) ? 4 : 0;
    case 0x07: {                                            // open connection request 2
      size_t a = ip_len(b, 17);
      if (!((a == 16 && n == 46) || (a == 4 && n == 34)) || !mtu_ok(b, 20 + a)) return 0;
      return 3;
    }
    case 0x08: {                                            // open connection reply 2
      size_t a = ip_len(b, 25);
      if (!((a == 16 && n == 47) || (a == 4 && n == 35)) || !mtu_ok(b, 28 + a)) return 0;
      return 3;
    }
    case 0x10: case 0x13: {                                 // connection accepted / new incoming
      size_t off = 4 + ip_len(b, 0) + (b[0] == 0x10 ? 2 : 0);
      for (int i = 0; i < 10; i++) off += 3 + ip_len(b, off);
      return off + 16 == n ? 3 : 0;
    }
    case 0x09: return n == 16 ? 6 : 0;                      // connection request
    case 0x15: return 8;                                    // disconnect
    case 0x19: return n == 25 && b[17] <= 10 ? 3 : 0;       // incompatible protocol
    case 0x1c:                                              // unconnected pong
      if (n < 35) return 0;
      { size_t motd = load_be16(b.data() + 33); return motd && motd + 35 == n ? 3 : 0; }
    case 0xfe: return 8;                                    // game packet
    case 0xa0: case 0xc0: {                                 // NACK / ACK
      size_t count = load_be16(b.data() + 1), idx = 0, off = 3;
      do {
        if (b[off] == 0x00) off += 7;
        else if (b[off] == 0x01) off += 4;
        else return 0;
      } while (++idx < count && off + 4 <= n);
      return idx == count && off == n ? 1 : 0;
    }
    default:
      if (b[0] < 0x80 || b[0] > 0x8d) return 0;
      {                                                     // frame set
        size_t off = 4;
        do {
          uint8_t flags = b[off];
          if (flags & 0x0f) return 0;
          size_t size = load_be16(b.data() + off + 1) / 8;
          if (size == 0) return 0;
          uint8_t rel = flags >> 5;
          if (rel >= 2 && rel <= 4) off += 3;    // reliable
          if (rel == 1 || rel == 4) off += 3;    // sequenced
          if (rel == 3 || rel == 7) off += 4;    // ordered
          if (flags & 0x10) off += 10;           // fragmented
          off += size + 3;
        } while (off + 3 <= n);
        return off == n ? 3 : 0;
      }
  }
}

Verdict classify_raknet(DpiCtx& c, Match& m) {
  unsigned need = parse(c.payload);
  if (need == 0) {
    if (c.flow.dpi_packets != 1 || !custom_variant(c.payload)) return Verdict::No;
    need = 1;
  }
  if (c.flow.dpi_packets < need) return Verdict::NeedMore;
  m.app = id(ProtoId::RakNet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(raknet, {"RakNet", id(ProtoId::RakNet), kL4Udp, 8, classify_raknet});

}  // namespace fg
