// ④ WireGuard over UDP, as nDPI reads it (nDPI src/lib/protocols/wireguard.c;
// the messages: wireguard.com/protocol). Every message is a type byte, three
// zero bytes, then: initiation (1, 148 bytes) sender index at 4; response
// (2, 92 bytes) sender index at 4, receiver index at 8; cookie reply (3, 64
// bytes) receiver index at 4; transport data (4, 32 bytes or more) receiver
// index at 4. TunnelBear's handshake has the same layout at 204 / 100 bytes.
// nDPI's rules:
//  - under 32 bytes, a non-zero reserved byte, another type or a handshake
//    message of another size rule it out;
//  - an initiation notes its direction and sender index; when it is not the
//    flow's first packet (any packet, with or without payload) it names the
//    flow at once (a retried handshake);
//  - a response or cookie reply from the other direction than the noted
//    initiation names the flow when its receiver index is the initiation's
//    sender index (a 100-byte response: WireGuard.TunnelBear), else rules it
//    out; without such an initiation it says nothing;
//  - transport data makes WireGuard the flow's guessed protocol
//    (wireguard_guessed: asked first from then on, and the give-up's guess
//    even once ruled out); the first one notes its direction and receiver
//    index, the next one from the other direction notes that direction's,
//    and from then on one must repeat its own direction's index to name the
//    flow, else it is ruled out.
// A flow whose address nDPI files under a VPN application is
// WireGuard.<it> (before TunnelBear).
// State (kScratchVpnUdp*, dpi.h): the stage (bits 0-2) and the guess flag
// (bit 7), each direction's index folded to 16 bits (a collision makes one
// index in 65536 pass for another).
#include "dpi/dpi.h"

namespace fg {
namespace {

enum : uint8_t { kInitiation = 1, kResponse = 2, kCookieReply = 3, kTransport = 4 };
// Stages as nDPI numbers them, d being the direction of the packet that
// set it: 1 + d an initiation, 3 + d a first transport message, 5 both
// directions' transport indexes noted.
constexpr uint8_t kStageMask = 7, kGuessed = 0x80;

struct State {
  uint8_t* stage;
  uint8_t* index[2][2];
  uint16_t folded(int d) const { return uint16_t(*index[d][0] | *index[d][1] << 8); }
  void keep(int d, uint16_t v) { *index[d][0] = uint8_t(v), *index[d][1] = uint8_t(v >> 8); }
  uint8_t at() const { return *stage & kStageMask; }
  void set(uint8_t st) { *stage = uint8_t((*stage & ~kStageMask) | st); }
};

// A 4-byte index XOR-folded to 16 bits.
uint16_t fold_index(const uint8_t* p) { return uint16_t(load_be16(p) ^ load_be16(p + 2)); }

void name_wireguard(DpiCtx& c, Match& m, uint16_t app) {
  const uint16_t vpn = vpn_app_by_flow_ip(c.flow);
  m.master = id(ProtoId::WireGuard);
  m.app = vpn ? vpn : app ? app : id(ProtoId::WireGuard);
}

Verdict classify_wireguard(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const size_t n = b.size();
  if (n < 32 || b[1] || b[2] || b[3]) return Verdict::No;
  State s{c.scratch(kScratchVpnUdp),
          {{c.scratch(kScratchVpnUdpId0), c.scratch(ScratchSlot(kScratchVpnUdpId0 + 1))},
           {c.scratch(kScratchVpnUdpId1Lo), c.scratch(kScratchVpnUdpId1Hi)}}};
  if (!s.stage) return Verdict::No;
  const int d = c.from_client ? 0 : 1;
  // the handshake's other half comes from the direction that did not initiate
  const bool answers_initiation = s.at() == 2 - d;
  switch (b[0]) {
    case kInitiation:
      if (n != 148 && n != 204) return Verdict::No;
      s.set(uint8_t(1 + d));
      s.keep(d, fold_index(b.data() + 4));
      if (c.flow.pkts[0] + c.flow.pkts[1] > 1) {
        name_wireguard(c, m, 0);
        return Verdict::Match;
      }
      return Verdict::NeedMore;
    case kResponse:
    case kCookieReply: {
      const bool response = b[0] == kResponse;
      if (response ? (n != 92 && n != 100) : n != 64) return Verdict::No;
      if (!answers_initiation) return Verdict::NeedMore;
      if (fold_index(b.data() + (response ? 8 : 4)) != s.folded(1 - d)) return Verdict::No;
      name_wireguard(c, m, response && n == 100 ? id(ProtoId::TunnelBear) : 0);
      return Verdict::Match;
    }
    case kTransport: {
      const uint16_t receiver = fold_index(b.data() + 4);
      *s.stage |= kGuessed;
      if (s.at() == 0) {
        s.set(uint8_t(3 + d));
        s.keep(d, receiver);
      } else if (s.at() == 4 - d) {  // the other direction's first transport message was noted
        s.keep(d, receiver);
        s.set(5);
      } else if (s.at() == 5) {
        if (receiver != s.folded(d)) return Verdict::No;
        name_wireguard(c, m, 0);
        return Verdict::Match;
      }
      return Verdict::NeedMore;
    }
    default: return Verdict::No;
  }
}

}  // namespace

bool wireguard_guessed(const Flow& f, const FlowInfo* fi) {
  if (f.key.proto != kProtoUdp) return false;  // the byte is Usenet's on TCP
  const uint8_t* st = DpiCtx::scratch_of(fi, kScratchVpnUdp);
  return st && (*st & kGuessed);
}

FG_DISSECTOR(wireguard, {"WireGuard", id(ProtoId::WireGuard), kL4Udp, kMaxDpiPackets, classify_wireguard});

}  // namespace fg
