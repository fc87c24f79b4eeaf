// ② Which worker a packet of a file goes to: a hash of the frame's
// outermost IP pair, symmetric in the two addresses, so both directions of
// a flow and every fragment of a datagram (no ports needed) land on the same
// worker. Tunnelled flows follow their tunnel's endpoints. Frames with no IP
// header this finds (ARP, MPLS, PPPoE …) all go to worker 0. Live capture
// leaves the spreading to the kernel (PACKET_FANOUT).
#pragma once
#include <cstdint>
#include <cstring>

#include "capture/source.h"
#include "util/bytes.h"

namespace fg {

inline uint64_t spread_hash(const RawPacket& p) noexcept {
  const uint8_t* d = p.data;
  const size_t n = p.caplen;
  size_t off = 0;
  uint16_t et = 0;
  auto be16 = [&](size_t at) { return uint16_t(d[at] << 8 | d[at + 1]); };
  auto by_version = [&] {
    if (off >= n) return uint16_t(0);
    const uint8_t v = d[off] >> 4;
    return uint16_t(v == 4 ? 0x0800 : v == 6 ? 0x86dd : 0);
  };
  switch (p.linktype) {
    case kLinkEthernet:
      if (n < 14) return 0;
      et = be16(12), off = 14;
      while ((et == 0x8100 || et == 0x88a8 || et == 0x9100) && off + 4 <= n) et = be16(off + 2), off += 4;
      break;
    case kLinkSll:
      if (n < 16) return 0;
      et = be16(14), off = 16;
      break;
    case kLinkSll2:
      if (n < 20) return 0;
      et = be16(0), off = 20;
      break;
    case kLinkRaw: case kLinkIpv4: case kLinkIpv6:
      et = by_version();
      break;
    case kLinkNull: case kLinkLoop:
      off = 4;
      et = by_version();
      break;
    default:
      return 0;
  }
  uint64_t a, b;
  if (et == 0x0800 && off + 20 <= n) {
    uint32_t x, y;
    std::memcpy(&x, d + off + 12, 4), std::memcpy(&y, d + off + 16, 4);
    a = mix64(x), b = mix64(y);
  } else if (et == 0x86dd && off + 40 <= n) {
    uint64_t x[4];
    std::memcpy(x, d + off + 8, 32);
    a = mix64(x[0] ^ mix64(x[1])), b = mix64(x[2] ^ mix64(x[3]));
  } else {
    return 0;
  }
  return a + b;  // the same whichever address is the source
}

// An ARP frame (Ethernet, VLAN-tagged or not, or Linux cooked capture):
// worker 0 counts it, every worker learns the broadcast domain it names
// (hosts in that domain are flagged by the worker that holds them).
inline bool spread_arp(const RawPacket& p) noexcept {
  const uint8_t* d = p.data;
  const size_t n = p.caplen;
  auto be16 = [&](size_t at) { return uint16_t(d[at] << 8 | d[at + 1]); };
  if (p.linktype == kLinkEthernet && n >= 14) {
    size_t off = 14;
    uint16_t et = be16(12);
    while ((et == 0x8100 || et == 0x88a8 || et == 0x9100) && off + 4 <= n) et = be16(off + 2), off += 4;
    return et == 0x0806;
  }
  if (p.linktype == kLinkSll && n >= 16) return be16(14) == 0x0806;
  if (p.linktype == kLinkSll2 && n >= 20) return be16(0) == 0x0806;
  return false;
}

inline uint32_t spread_worker(const RawPacket& p, uint32_t workers) noexcept {
  return workers <= 1 ? 0 : uint32_t((spread_hash(p) >> 32) * workers >> 32);
}

}  // namespace fg
