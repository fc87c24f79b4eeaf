// ④ StarCraft II on Battle.net 2.0, TCP or UDP, port 1119 (Blizzard's
// registered bnetgame port). The client's login connection (TCP) opens with
// a protobuf-framed Battle.net 2.0 message; no public document gives the
// bytes, so this follows nDPI's observed forms only (starcraft.c).
// TCP: IPv4 only, one end one of five Battle.net logon servers
// (EU 213.248.127.130, US 12.129.206.130, KR 121.254.200.130,
// SG 202.9.66.76, beta 12.129.236.254), the packet sent to port 1119, its
// payload opening 4A or 49, then 00 00 0A 66 02 0A ED 2D 66; any other TCP
// packet rules the flow out (so the first one decides).
// UDP (game data), IPv4 and IPv6: port 1119 on either side, else ruled out
// at once; then a run of datagram sizes in either direction — 20, 20, 75 or
// 85, 20, 548, 548, 548 and finally 484 — each step taken by the first
// datagram of its size after the previous step, others passing over; the
// 484 names the flow. Without the run the flow stays open to the end of the
// window (the port still guesses Starcraft when nothing names it).
// The step (0-7) lives in bits 2-4 of kScratchStarcraftUdp.
#include <cstring>

#include "dpi/dpi.h"

namespace fg {
namespace {

constexpr uint16_t kBnetPort = 1119;
constexpr uint32_t kLogonServers[] = {0xd5f87f82, 0x0c81ce82, 0x79fec882, 0xca09424c, 0x0c81ecfe};
constexpr uint8_t kLoginTail[] = {0x00, 0x00, 0x0a, 0x66, 0x02, 0x0a, 0xed, 0x2d, 0x66};
constexpr unsigned kStepShift = 2, kStepMask = 7u << kStepShift;

bool logon_server(const Packet& p) {
  if (p.ip_version != 4) return false;
  for (uint32_t ip : kLogonServers)
    if (p.src.v4() == ip || p.dst.v4() == ip) return true;
  return false;
}

// The datagram size that moves the UDP run from `step` to the next one
// (step 2 takes 75 or 85).
bool takes_step(unsigned step, size_t n) {
  switch (step) {
    case 0:
    case 1:
    case 3: return n == 20;
    case 2: return n == 75 || n == 85;
    case 4:
    case 5:
    case 6: return n == 548;
    default: return n == 484;  // step 7: the run is complete
  }
}

Verdict classify_udp(DpiCtx& c, Match& m) {
  const Packet& p = c.p;
  if (p.sport != kBnetPort && p.dport != kBnetPort) return Verdict::No;
  uint8_t* st = c.scratch(kScratchStarcraftUdp);
  if (!st) return Verdict::NeedMore;  // nowhere to keep the run: wait, never named
  const unsigned step = (*st & kStepMask) >> kStepShift;
  if (!takes_step(step, c.payload.size())) return Verdict::NeedMore;
  if (step == 7) {
    m.app = id(ProtoId::Starcraft);
    return Verdict::Match;
  }
  *st = uint8_t((*st & ~kStepMask) | (step + 1) << kStepShift);
  return Verdict::NeedMore;
}

Verdict classify_starcraft(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const Packet& p = c.p;
  if (p.l4_proto == kProtoUdp) return classify_udp(c, m);
  if (!logon_server(p) || p.dport != kBnetPort) return Verdict::No;
  if (b.size() < 1 + sizeof(kLoginTail) || (b[0] != 0x4a && b[0] != 0x49)) return Verdict::No;
  if (std::memcmp(b.data() + 1, kLoginTail, sizeof(kLoginTail)) != 0) return Verdict::No;
  m.app = id(ProtoId::Starcraft);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(starcraft, {"Starcraft", id(ProtoId::Starcraft), kL4Both, kMaxDpiPackets, classify_starcraft});

}  // namespace fg
