// ④ RakNet (UDP game networking), as nDPI recognises it
// (src/lib/protocols/raknet.c): every packet must parse as a RakNet message
// by its first byte: the offline handshake messages by their exact sizes
// and fields (and a number of packets first), frame sets by walking their
// frames and ACKs / NACKs by walking their records (one packet enough, but
// only while RTP's and RTCP's dissector has not taken the flow's packets
// for theirs: those then wait). A full-MTU first packet carrying the
// offline magic at a known offset is the custom (Roblox-style) variant,
// taken when the standard parse fails.
// Kept difference: nDPI remembers that first packet's variant and names the
// flow RakNet when any later packet fails the parse; no scratch slot is
// free for that flag, so only the first packet's own failure does here.
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

// What RTP's dissector counts as an RTP packet (rtp.cpp): version 2, a
// media payload type, room for the CSRC list and any extension header.
bool rtp_counted(Bytes b) {
  const size_t n = b.size();
  if (n < 12 || (b[0] & 0xc0) != 0x80) return false;
  const uint8_t pt = b[1] & 0x7f;
  if (pt > 34 && pt < 96) return false;
  size_t need = 12 + 4 * size_t(b[0] & 0x0f);
  if (b[0] & 0x10) {
    need += 4;
    if (need > n) return false;
    need += 4 * size_t(load_be16(b.data() + need - 2));
  }
  return need <= n;
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
      return idx == count && off == n ? 1 : 0;  // 1: at once, RTP permitting
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
        return off == n ? 1 : 0;  // 1: at once, RTP permitting
      }
  }
}

Verdict classify_raknet(DpiCtx& c, Match& m) {
  unsigned need = parse(c.payload);
  if (need == 0) {
    if (c.flow.dpi_packets != 1 || !custom_variant(c.payload)) return Verdict::No;
  } else if (need == 1) {
    // A frame set or ACK / NACK: RTP's stages (its scratch slot, read
    // only) first; nDPI leaves the packet to RTP / RTCP while either has
    // counted one of the flow's packets. nDPI's RTP clears its stages when
    // an RTP-shaped packet finds it at stage 2 without naming the flow (a
    // repeated sequence number); ours just gives up then and its slot keeps
    // 2. Kept difference: with no count of RTP's packets here, stage 2 on an
    // RTP-shaped packet from the flow's third on counts as that reset (so
    // when every packet was RTP-shaped, as RakNet's frame sets often are).
    const uint8_t* rtp = c.scratch(kScratchRtp);
    uint8_t stages = rtp ? rtp[0] : 0;
    if ((stages & 0x0f) == 2 && rtp_counted(c.payload) && c.flow.dpi_packets >= 3) stages = 0;
    if (stages != 0) return Verdict::NeedMore;
  } else if (c.flow.dpi_packets < need) {
    return Verdict::NeedMore;
  }
  m.app = id(ProtoId::RakNet);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(raknet, {"RakNet", id(ProtoId::RakNet), kL4Udp, 8, classify_raknet});

}  // namespace fg
