// ④ OpenVPN over UDP or TCP, as nDPI's standard detection reads it (nDPI
// src/lib/protocols/openvpn.c; its op-code heuristic is off by default and
// stays off here). OpenVPN's control channel (OpenVPN's protocol notes,
// ssl.h / reliable.h): over TCP a 2-byte length first; then opcode << 3 |
// key id, the sender's 8-byte session id, an optional HMAC (tls-auth),
// packet-id (4) and time (4), the ack array (count byte, 4-byte packet ids,
// then the peer's session id when the count is not 0), the message's own
// packet-id.
//
// nDPI's rules, per packet, with the payload packets each direction sent so
// far (this one included):
//  - a STUN magic cookie at offset 4 (after the TCP length) rules it out;
//  - under 14 bytes (after the TCP length), an opcode other than the hard
//    resets (client V1/V2/V3, server V1/V2), CONTROL_V1, ACK_V1 or
//    CONTROL_WKC_V1, or a key id other than 0 rule it out;
//  - a direction's first packet must be a hard reset, and over TCP its
//    length field must be the rest of the segment; a hard reset of 1200
//    bytes or more (the whole payload, a QUIC lookalike) rules it out;
//  - a direction's first packet leaves its session id; each later one must
//    repeat it, and names the flow once both directions sent two packets or
//    more, or this one sent four and the other none;
//  - a server hard reset, once the other direction spoke, is read for the
//    peer's session id (HMAC size guessed: a packet-id of 1 after a 20- or
//    16-byte HMAC, else none when byte 9 is 0 or two or more of bytes 9–12
//    are; not read when none fits): equal to the other direction's, it names the
//    flow; present but unequal, or the ack array running past the end,
//    rules it out; an empty ack array says nothing;
//  - not named by the sixth payload packet, it is ruled out.
// A flow whose address nDPI files under a VPN application is OpenVPN.<it>.
// State: 3-bit packet counts per direction, and each direction's session
// id folded to 16 bits (a collision makes one id in 65536 pass for
// another): kScratchVpnUdp* on UDP, kScratchOpenVpnTcp on TCP (dpi.h).
// Difference kept: nDPI also counts TCP retransmissions, which no
// dissector here sees, in its per-direction counts.
#include "dpi/dpi.h"

namespace fg {
namespace {

enum : uint8_t {
  kResetClientV1 = 1, kResetServerV1 = 2, kControlV1 = 4, kAckV1 = 5,
  kResetClientV2 = 7, kResetServerV2 = 8, kResetClientV3 = 10, kControlWkcV1 = 11,
};
constexpr uint32_t kStunCookie = 0x2112A442;

bool known_opcode(uint8_t op) {
  switch (op) {
    case kResetClientV1: case kResetServerV1: case kControlV1: case kAckV1:
    case kResetClientV2: case kResetServerV2: case kResetClientV3: case kControlWkcV1: return true;
    default: return false;
  }
}
bool hard_reset(uint8_t op) {
  return op == kResetClientV1 || op == kResetClientV2 || op == kResetClientV3 || op == kResetServerV1 || op == kResetServerV2;
}

// The flow's state bytes: [0] the counts (bits 0-2 the client's, 3-5 the
// server's), then per direction a 16-bit fold (two bytes, not adjacent on UDP).
struct State {
  uint8_t* counts;
  uint8_t* id[2][2];
  uint8_t count(int d) const { return (*counts >> (3 * d)) & 7; }
  void bump(int d) {
    if (count(d) < 7) *counts = uint8_t(*counts + (1 << (3 * d)));
  }
  uint16_t folded(int d) const { return uint16_t(*id[d][0] | *id[d][1] << 8); }
  void keep(int d, uint16_t v) { *id[d][0] = uint8_t(v), *id[d][1] = uint8_t(v >> 8); }
};

bool state_of(DpiCtx& c, bool tcp, State& s) {
  if (tcp) {
    uint8_t* b = c.scratch(kScratchOpenVpnTcp);
    if (!b) return false;
    s = {b, {{b + 1, b + 2}, {b + 3, b + 4}}};
    return true;
  }
  s = {c.scratch(kScratchVpnUdp),
       {{c.scratch(kScratchVpnUdpId0), c.scratch(ScratchSlot(kScratchVpnUdpId0 + 1))},
        {c.scratch(kScratchVpnUdpId1Lo), c.scratch(kScratchVpnUdpId1Hi)}}};
  return s.counts != nullptr;
}

// An 8-byte session id XOR-folded to 16 bits.
uint16_t fold_id(const uint8_t* p) { return uint16_t(load_be16(p) ^ load_be16(p + 2) ^ load_be16(p + 4) ^ load_be16(p + 6)); }

// Wireshark's test nDPI borrows: four bytes with at most one zero byte can
// be the start of an HMAC.
bool hmac_like(uint32_t v) {
  int zeros = 0;
  for (int i = 0; i < 4; i++) zeros += ((v >> (8 * i)) & 0xff) == 0;
  return zeros <= 1;
}

// nDPI's guess of the HMAC size from a packet-id of 1 after it: 20, 16, 0
// (no tls-auth), or -1 (none fits). `o` is the message after any TCP length.
int hmac_size(Bytes o) {
  if (o.size() >= 33 && load_be32(o.data() + 29) == 1) return 20;
  if (o.size() >= 29 && load_be32(o.data() + 25) == 1) return 16;
  if (o.size() >= 14 && !(o[9] > 0 && hmac_like(load_be32(o.data() + 9)))) return 0;
  return -1;
}

void name_openvpn(DpiCtx& c, Match& m) {
  if (const uint16_t vpn = vpn_app_by_flow_ip(c.flow)) m.master = id(ProtoId::OpenVPN), m.app = vpn;
  else m.app = id(ProtoId::OpenVPN);
}

Verdict classify_openvpn(DpiCtx& c, Match& m) {
  const bool tcp = c.p.l4_proto == kProtoTcp;
  const Bytes b = c.payload;
  const size_t pre = tcp ? 2 : 0;
  if (b.size() > 10 && load_be32(b.data() + 4 + pre) == kStunCookie) return Verdict::No;
  // nDPI holds the length in a signed 16-bit integer: 32 KiB and more read negative
  if (b.size() < 14 + pre || b.size() > 0x7fff) return Verdict::No;
  const Bytes o = b.subspan(pre);
  const uint8_t op = o[0] >> 3;
  if (!known_opcode(op) || (o[0] & 7) != 0) return Verdict::No;
  State s;
  if (!state_of(c, tcp, s)) return Verdict::No;
  const int d = c.from_client ? 0 : 1;
  s.bump(d);
  const uint8_t mine = s.count(d), theirs = s.count(1 - d);
  if (mine == 1 && !hard_reset(op)) return Verdict::No;
  if (b.size() >= 1200 && hard_reset(op)) return Verdict::No;
  if (mine == 1 && tcp && load_be16(b.data()) != o.size()) return Verdict::No;
  const uint16_t session = fold_id(o.data() + 1);
  if (mine > 1) {
    if (session != s.folded(d)) return Verdict::No;
    if (theirs >= 2 || (mine >= 4 && theirs == 0)) {
      name_openvpn(c, m);
      return Verdict::Match;
    }
  } else {
    s.keep(d, session);
  }
  if (theirs > 0 && (op == kResetServerV1 || op == kResetServerV2)) {
    const int h = hmac_size(o);
    // the ack array's count: after the packet-id and time when there is an HMAC
    size_t at = h > 0 ? 9 + size_t(h) + 8 : 9;
    if (h >= 0 && at < o.size() && o[at] > 0) {
      at += 1 + size_t(o[at]) * 4;
      if (at + 8 <= o.size() && fold_id(o.data() + at) == s.folded(1 - d)) {
        name_openvpn(c, m);
        return Verdict::Match;
      }
      return Verdict::No;
    }
  }
  return c.flow.dpi_packets > 5 ? Verdict::No : Verdict::NeedMore;
}

}  // namespace

FG_DISSECTOR(openvpn, {"OpenVPN", id(ProtoId::OpenVPN), kL4Both, kMaxDpiPackets, classify_openvpn});

}  // namespace fg
