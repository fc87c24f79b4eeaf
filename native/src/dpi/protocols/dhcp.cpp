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

// Classification as nDPI's dhcp.c: UDP over IPv4 only (its dissector is
// registered for IPv4 UDP), source and destination port each 67 or 68, at
// least 244 bytes, the magic cookie at 236 (no check of the op byte). nDPI
// walks the options (at most 308 bytes of them) as type/length pairs, a
// zero length or 255 ending the walk, until an option 53 whose value is 0–8;
// without one the flow is ruled out, with one it is DHCP and the walk goes
// on from that option 53: each option is listed in a 48-character text
// ("53,12,…") and read only while that text is shorter than 48 characters;
// option 12, the host name, becomes the flow's name (nDPI's normalised copy).
// nDPI also keeps option 55 (fingerprint) and 60 (class identifier): we have
// no place for them per flow and keep neither.
#include "dpi/dpi.h"
#include "dpi/payload.h"

namespace fg {
namespace {

size_t decimal_digits(unsigned v) { return v >= 100 ? 3 : v >= 10 ? 2 : 1; }

Verdict classify_dhcp(DpiCtx& c, Match& m) {
  const Bytes b = c.payload;
  const auto port_ok = [](uint16_t p) { return p == 67 || p == 68; };
  if (c.p.ip_version != 4 || b.size() < 244 || !port_ok(c.cli_port) || !port_ok(c.srv_port) ||
      load_be32(b.data() + 236) != 0x63825363)
    return Verdict::No;
  const uint8_t* opt = b.data() + 240;
  const size_t size = b.size() - 240 < 308 ? b.size() - 240 : 308;
  // the length of the option at i, clipped to the options' end
  const auto opt_len = [&](size_t i) -> size_t {
    const size_t room = size - (i + 2);
    return opt[i + 1] < room ? opt[i + 1] : room;
  };
  size_t i = 0;
  bool typed = false;
  while (i + 1 < size && opt[i] != 0xff) {
    const size_t len = opt_len(i);
    if (len == 0) break;
    if (opt[i] == 53 && opt[i + 2] <= 8) {
      typed = true;
      break;
    }
    i += len + 2;
  }
  if (!typed) return Verdict::No;
  m.app = id(ProtoId::DHCP);
  size_t listed = 0;  // length of nDPI's option list text
  while (i + 1 < size && opt[i] != 0xff) {
    const size_t len = opt_len(i);
    if (len == 0 || listed >= 48) break;
    listed += (i > 0 ? 1 : 0) + decimal_digits(opt[i]);
    if (opt[i] == 12) {
      char name[80];
      c.set_host(name, ndpi_host_name(opt + i + 2, len, name));
    }
    i += len + 2;
  }
  return Verdict::Match;
}

}  // namespace

FG_DISSECTOR(dhcp, {"DHCP", id(ProtoId::DHCP), kL4Udp, 1, classify_dhcp});

}  // namespace fg
