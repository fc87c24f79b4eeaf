// ④ DHCP (RFC 2131/2132): a client's host name (option 12, or the FQDN of
// option 81, RFC 4702) names the address it holds or asks for.
#include "dpi/names.h"

namespace fg {

void names_from_dhcp(Bytes m, uint16_t vlan, const NameSink& sink) {
  // Fixed BOOTP part (236 bytes), then the magic cookie 99.130.83.99.
  if (m.size() < 240 || load_be32(m.data() + 236) != 0x63825363) return;
  uint32_t ciaddr = load_be32(m.data() + 12), yiaddr = load_be32(m.data() + 16);
  const uint8_t* requested = nullptr;
  const char* name = nullptr;
  size_t nlen = 0;
  uint8_t msg_type = 0;
  for (size_t off = 240; off < m.size();) {
    uint8_t code = m[off];
    if (code == 255) break;
    if (code == 0) { off++; continue; }
    if (off + 2 > m.size()) return;
    uint8_t len = m[off + 1];
    const uint8_t* v = m.data() + off + 2;
    if (off + 2 + len > m.size()) return;
    switch (code) {
      case 12: name = reinterpret_cast<const char*>(v), nlen = len; break;
      case 81:  // flags, rcode1, rcode2, then the name (ASCII when the E flag is clear)
        if (!name && len > 3 && !(v[0] & 0x04)) name = reinterpret_cast<const char*>(v + 3), nlen = len - 3;
        break;
      case 50: if (len == 4) requested = v; break;
      case 53: if (len == 1) msg_type = v[0]; break;
      default: break;
    }
    off += 2 + size_t(len);
  }
  while (nlen && name[nlen - 1] == 0) nlen--;
  if (!name || !plausible_name(name, nlen)) return;
  IpAddr a;
  uint8_t buf[4];
  if (msg_type == 5 && yiaddr) {  // ACK: the assigned address
    buf[0] = uint8_t(yiaddr >> 24), buf[1] = uint8_t(yiaddr >> 16), buf[2] = uint8_t(yiaddr >> 8), buf[3] = uint8_t(yiaddr);
    a.set_v4(buf);
  } else if (ciaddr) {
    buf[0] = uint8_t(ciaddr >> 24), buf[1] = uint8_t(ciaddr >> 16), buf[2] = uint8_t(ciaddr >> 8), buf[3] = uint8_t(ciaddr);
    a.set_v4(buf);
  } else if (requested) {
    a.set_v4(requested);
  } else {
    return;
  }
  sink(a, vlan, name, nlen, NameSource::Dhcp);
}

}  // namespace fg

// Classification: a BOOTP request or reply between ports 67 and 68 with the
// DHCP magic cookie after the fixed part.
#include "dpi/dpi.h"

namespace fg {
namespace {

Verdict classify_dhcp(DpiCtx& c, Match& m) {
  bool ports = (c.srv_port == 67 || c.srv_port == 68) && (c.cli_port == 67 || c.cli_port == 68);
  Bytes b = c.payload;
  if (!ports || b.size() < 240 || (b[0] != 1 && b[0] != 2)) return Verdict::No;
  if (load_be32(b.data() + 236) != 0x63825363) return Verdict::No;
  m.app = id(ProtoId::DHCP);
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dhcp, {"DHCP", id(ProtoId::DHCP), kL4Udp, 2, classify_dhcp});

}  // namespace fg
