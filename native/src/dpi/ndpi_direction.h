// ④ nDPI's packet direction (ndpi_main.c, ndpi_connection_tracking, with
// flow direction detection on as by default), which some of its dissectors
// key their per-direction state on instead of who opened the flow.
#pragma once
#include <cstdint>

#include "decode/packet.h"

namespace fg {

// TCP and UDP with different ports: 1 when the source port is the lower.
// Equal ports: the addresses decide, IPv4 1 when the source is the lower;
// over IPv6 nDPI's comparison always yields 1, so both sides are
// direction 1 there.
inline uint8_t ndpi_direction(const IpAddr& src, uint16_t sport, const IpAddr& dst, uint16_t dport) {
  if (sport != dport) return sport < dport ? 1 : 0;
  if (!src.is_v4()) return 1;
  return src < dst ? 1 : 0;
}
inline uint8_t ndpi_direction(const Packet& p) { return ndpi_direction(p.src, p.sport, p.dst, p.dport); }

}  // namespace fg
