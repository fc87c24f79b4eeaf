// ④ Chooses which name extractor sees a payload: by well-known port for the
// naming protocols, by content for TLS and HTTP.
#include "dpi/names.h"

#include <array>

namespace fg {
namespace {

constexpr uint16_t kDns = 53, kMdns = 5353, kLlmnr = 5355, kNbns = 137, kDhcpServer = 67, kDhcpClient = 68;

bool either(const Packet& p, uint16_t port) { return p.sport == port || p.dport == port; }

}  // namespace

namespace {
// Per byte: 1 cannot be in a name, 2 a digit or '.' (an address literal's).
constexpr auto kNameBytes = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; c++)
    t[size_t(c)] = c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == ':' ? 1
                   : c == '.' || (c >= '0' && c <= '9')                                                            ? 2
                                                                                                                  : 0;
  return t;
}();
}  // namespace

bool plausible_name(const char* s, size_t n) {
  if (n == 0 || n > 253) return false;
  // an address literal ("10.0.0.1", "[::1]") is not a name: some byte must be neither digit nor '.'
  uint8_t all = 2, any = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t k = kNameBytes[static_cast<unsigned char>(s[i])];
    any |= k, all &= k;
  }
  return !(any & 1) && !(all & 2);
}

void inspect_names(const Packet& p, bool from_client, const IpAddr& cli, const IpAddr& srv, const NameSink& sink) {
  if (!p.has_l4 || p.payload_len == 0) return;
  Bytes pl(p.payload, p.payload_len);
  if (p.l4_proto == kProtoUdp) {
    if (either(p, kDns) || p.sport == kLlmnr) return names_from_dns(pl, p.vlan_id, NameSource::Dns, sink);
    if (either(p, kMdns)) return names_from_dns(pl, p.vlan_id, NameSource::Mdns, sink);
    if (either(p, kNbns)) return names_from_netbios(pl, p.vlan_id, sink);
    if (either(p, kDhcpServer) || either(p, kDhcpClient)) return names_from_dhcp(pl, p.vlan_id, sink);
    return;
  }
  if (p.l4_proto != kProtoTcp) return;
  if (p.sport == kDns && pl.size() > 2) {  // DNS over TCP: 2-byte length prefix (RFC 1035 §4.2.2)
    return names_from_dns(pl.subspan(2), p.vlan_id, NameSource::Dns, sink);
  }
  if (!from_client) return;
  const char* name;
  size_t len;
  if (tls_client_hello_sni(pl, name, len) && plausible_name(name, len)) return sink(srv, p.vlan_id, name, len, NameSource::Tls);
  if (http_request_host(pl, name, len)) return sink(srv, p.vlan_id, name, len, NameSource::Http);
  (void)cli;
}

}  // namespace fg
