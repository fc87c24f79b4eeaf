#include "flow/local_nets.h"

#include <arpa/inet.h>

namespace fg {

bool parse_ip(const std::string& s, IpAddr& out) {
  uint8_t buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) {
    out.set_v4(buf);
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
    out.set_v6(buf);
    return true;
  }
  return false;
}

bool parse_cidr(const std::string& s, Cidr& out) {
  size_t slash = s.find('/');
  std::string addr = s.substr(0, slash);
  if (!parse_ip(addr, out.net)) return false;
  bool v4 = out.net.is_v4();
  int max = v4 ? 32 : 128;
  int bits = max;
  if (slash != std::string::npos) {
    std::string b = s.substr(slash + 1);
    if (b.empty() || b.size() > 3 || b.find_first_not_of("0123456789") != std::string::npos) return false;
    bits = std::stoi(b);
    if (bits > max) return false;
  }
  out.bits = uint8_t(v4 ? bits + 96 : bits);
  out.v4 = v4;
  // Clear host bits so the network compares cleanly.
  for (int i = out.bits; i < 128; i++) out.net.b[i / 8] &= uint8_t(~(0x80 >> (i % 8)));
  return true;
}

std::string format_ip(const IpAddr& a) {
  char buf[INET6_ADDRSTRLEN];
  if (a.is_v4()) inet_ntop(AF_INET, a.b + 12, buf, sizeof(buf));
  else inet_ntop(AF_INET6, a.b, buf, sizeof(buf));
  return buf;
}

}  // namespace fg
