// ⑥ Fixed-size records crossing to TypeScript. Their layout is described to
// TS once at load (binding/layout.cpp) so no offsets are repeated there.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fg {

// What a record reports: a flow that ended, or a periodic snapshot of a
// flow still active (its counters so far; the flow store turns snapshots
// into rows of deltas, as ntopng's periodic flow dumps).
enum class RecordKind : uint8_t { End = 0, Periodic = 1 };

// ExpiredFlow::tcp_state bits: TCP payload seen (either way), a zero window
// seen; and what ntopng's IEC 60870-5-104 checks found on the flow
// (flow/iec104.h): a type id outside the allowed ones, a type-id transition
// new after the learning period, too many monitor/command transitions; and
// a flow still held ten idle timeouts after its last packet (ntopng's
// NotPurged: the purge missed it)
constexpr uint8_t kTcpData = 1, kTcpZeroWindow = 2;
constexpr uint8_t kTcpIecUnexpectedTypeId = 4, kTcpIecInvalidTransition = 8, kTcpIecInvalidCommandTransition = 16;
constexpr uint8_t kTcpNotPurged = 32;

// Where a flow endpoint is, as ntopng's CLIENT/SERVER_LOCATION.
enum class Location : uint8_t { Remote = 0, Local = 1, Multicast = 2 };

// An expired flow (or a periodic snapshot), what the historical flows
// store. 264 bytes, fixed: the expiry path copies, never allocates.
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
  uint8_t kind;                     // RecordKind
  uint64_t risks;                   // nDPI risk mask (bit = ndpi_risk_enum id)
  uint8_t cli_location, srv_location;  // Location
  uint8_t icmp_type, icmp_code;     // the flow's first ICMP message (Community ID hashes them)
  uint8_t tcp_state;                // kTcpData | kTcpZeroWindow (ntopng's TCP flow checks) | kTcpIec* | kTcpNotPurged
  uint8_t cli_pool, srv_pool;       // the hosts' pools (ntopng's host_pool_id; 0: the default pool)
  uint8_t blacklisted;              // 1: the client's address is blacklisted, 2: the server's (as the flow began)
  uint8_t cli_mac[6], srv_mac[6];   // the hosts' MACs (0 when unknown)
  // ntopng's INFO (Flow::getFlowInfo): DNS query, HTTP host + URL, TLS/QUIC
  // SNI, else the server name; SSH: the server's (else client's) banner.
  char info[50];
  uint8_t devtypes;                 // the hosts' MACs' DeviceType: client << 4 | server (0 unknown or no MAC)
  uint8_t goodput_pct;              // 100 × TCP payload bytes / (bytes + 1), whole percent (ntopng's goodput ratio)
  // The hosts' names as learned (DNS answers, DHCP, SNI …): SRC/DST_LABEL.
  char cli_name[32], srv_name[32];  // NUL-terminated, truncated
  // ntopng's CLIENT/SERVER_NW_LATENCY_US: half of SYN|ACK → ACK, half of SYN → SYN|ACK (flow.h TcpTiming; 0 unmeasured)
  uint32_t cli_nw_latency_us, srv_nw_latency_us;
};
static_assert(sizeof(ExpiredFlow) == 264);
static_assert(offsetof(ExpiredFlow, risks) == 112 && offsetof(ExpiredFlow, cli_mac) == 128);

}  // namespace fg
