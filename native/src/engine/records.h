// ⑥ Fixed-size records crossing to TypeScript. Their layout is described to
// TS once at load (binding/layout.cpp) so no offsets are repeated there.
#pragma once
#include <cstdint>

namespace fg {

// An expired flow, as later issues store it (historical flows).
struct ExpiredFlow {
  uint8_t cli_ip[16], srv_ip[16];   // v4-mapped for IPv4
  uint64_t first_ns, last_ns;
  uint64_t cli2srv_bytes, srv2cli_bytes;
  uint32_t cli2srv_pkts, srv2cli_pkts;
  uint32_t serial;
  uint32_t retr, ooo, lost;         // both directions
  uint16_t cli_port, srv_port;
  uint16_t vlan;
  uint16_t l7_master, l7_app, l7_category;
  uint8_t proto, ip_version;
  uint8_t cli_flags, srv_flags;     // TCP flags seen per direction (OR)
  uint8_t tunnel, reason;           // FlowEnd
  uint8_t dscp_cli, dscp_srv;
  uint8_t ttl_cli, ttl_srv;
  uint8_t confidence;               // Confidence (dpi/registry.h)
  uint8_t pad[1];
  uint64_t risks;                   // nDPI risk mask (bit = ndpi_risk_enum id)
  uint8_t pad2[8];
};
static_assert(sizeof(ExpiredFlow) == 128);

}  // namespace fg
