// ③ Which addresses are local (ntopng's -m plus interface addresses), and
// the address classes a host record reports. Built on the JS thread from a
// list of CIDRs, then swapped in whole (see engine.cpp).
#pragma once
#include <string>
#include <vector>

#include "decode/packet.h"

namespace fg {

struct Cidr {
  IpAddr net;      // v4 is mapped, so a v4 /24 is a /120 here
  uint8_t bits;
  bool v4;         // an IPv4 network: holds IPv4 addresses only (and ::/0 no IPv4 ones)
  bool contains(const IpAddr& a) const {
    if (a.is_v4() != v4) return false;
    int full = bits / 8, rest = bits % 8;
    if (std::memcmp(a.b, net.b, full) != 0) return false;
    if (rest == 0) return true;
    uint8_t m = uint8_t(0xff << (8 - rest));
    return (a.b[full] & m) == (net.b[full] & m);
  }
  bool is_broadcast_of(const IpAddr& a) const {  // last address of a v4 subnet
    if (!net.is_v4() || bits >= 127 || !contains(a)) return false;
    for (int i = bits; i < 128; i++)
      if (!(a.b[i / 8] & (0x80 >> (i % 8)))) return false;
    return true;
  }
};

// A user's allowed networks (empty: everything) hold the address.
inline bool allowed_ip(const std::vector<Cidr>& allowed, const IpAddr& a) {
  if (allowed.empty()) return true;
  for (const auto& c : allowed)
    if (c.contains(a)) return true;
  return false;
}

// Parses "10.0.0.0/8", "fd00::/8", "192.168.1.1" (host). False if malformed.
bool parse_cidr(const std::string& s, Cidr& out);
bool parse_ip(const std::string& s, IpAddr& out);
std::string format_ip(const IpAddr& a);

struct NetConfig {
  std::vector<Cidr> local;
  bool is_local(const IpAddr& a) const {
    for (const auto& c : local)
      if (c.contains(a)) return true;
    return false;
  }
  // Position of the first local network holding a (ntopng's network id), -1 if none.
  int local_index(const IpAddr& a) const {
    for (size_t i = 0; i < local.size(); i++)
      if (local[i].contains(a)) return int(i);
    return -1;
  }
  bool is_subnet_broadcast(const IpAddr& a) const {
    for (const auto& c : local)
      if (c.is_broadcast_of(a)) return true;
    return false;
  }
};

inline bool is_multicast(const IpAddr& a) {
  return a.is_v4() ? (a.b[12] & 0xf0) == 0xe0 : a.b[0] == 0xff;
}
inline bool is_limited_broadcast(const IpAddr& a) { return a.is_v4() && a.v4() == 0xffffffffu; }
// RFC 1918, RFC 6598 shared, link-local (v4 and v6), ULA (RFC 4193).
inline bool is_private(const IpAddr& a) {
  if (a.is_v4()) {
    uint32_t v = a.v4();
    return (v >> 24) == 10 || (v >> 20) == (172 << 4 | 1) || (v >> 16) == (192 << 8 | 168) ||
           (v >> 22) == (100 << 2 | 1) || (v >> 16) == (169 << 8 | 254);
  }
  return (a.b[0] & 0xfe) == 0xfc || (a.b[0] == 0xfe && (a.b[1] & 0xc0) == 0x80);
}

}  // namespace fg
