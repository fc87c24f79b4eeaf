// ④ Host naming: the first packets of a flow are looked at for names that
// identify hosts — DNS/mDNS/LLMNR answers, DHCP host names, NetBIOS names,
// TLS SNI and HTTP Host. Classification proper builds on the same dispatch.
#pragma once
#include <cstddef>
#include <cstdint>

#include "decode/packet.h"
#include "flow/host_table.h"

namespace fg {

// Where learned names go: (address, VLAN) → name, with its source.
struct NameSink {
  void* ctx;
  void (*fn)(void* ctx, const IpAddr& ip, uint16_t vlan, const char* name, size_t len, NameSource src);
  void operator()(const IpAddr& ip, uint16_t vlan, const char* name, size_t len, NameSource src) const {
    fn(ctx, ip, vlan, name, len, src);
  }
};

// How many payload packets of a flow are inspected for names.
constexpr uint8_t kNamePackets = 8;

// p: the decoded packet; from_client: direction; cli/srv: the flow's endpoints.
void inspect_names(const Packet& p, bool from_client, const IpAddr& cli, const IpAddr& srv, const NameSink& sink);

// Per protocol (dpi/protocols/<name>.cpp).
void names_from_dns(Bytes msg, uint16_t vlan, NameSource src, const NameSink& sink);
// The device type (ntopng's DeviceType) an mDNS response's service records tell
// of its sender (Flow.cpp's mDNS rules); 0 when none does.
uint8_t mdns_device_type(Bytes msg);
void names_from_dhcp(Bytes msg, uint16_t vlan, const NameSink& sink);
void names_from_netbios(Bytes msg, uint16_t vlan, const NameSink& sink);
// A ClientHello's server name as sent (any bytes: callers judge them).
bool tls_client_hello_sni(Bytes payload, const char*& name, size_t& len);
// The same from a bare handshake message (QUIC carries no TLS records).
bool tls_handshake_sni(Bytes handshake, const char*& name, size_t& len);
bool http_request_host(Bytes payload, const char*& name, size_t& len);

// A name is kept only if it looks like one: printable, no spaces or quotes.
bool plausible_name(const char* s, size_t n);

}  // namespace fg
