// Interface counters: everything get/interface/data and the L4 / DSCP
// endpoints report, kept by the worker and copied out under the batch lock.
#pragma once
#include <cstdint>

#include "decode/decode.h"
#include "flow/scores.h"

namespace fg {

// Per application or category: credited by flow accounting steps.
struct IfaceL7Counter {
  uint64_t bytes, packets, flows;
};

struct IfaceStats {
  uint64_t packets = 0, bytes = 0;            // every frame seen
  uint64_t ip_packets = 0, ip_bytes = 0;
  uint64_t ipv4_packets = 0, ipv6_packets = 0;
  uint64_t packets_upload = 0, bytes_upload = 0;      // local → remote
  uint64_t packets_download = 0, bytes_download = 0;  // remote → local
  uint64_t local2remote = 0, remote2local = 0;        // bytes, as ntopng names them
  uint64_t local2local = 0, remote2remote = 0;
  uint64_t broadcast_packets = 0, multicast_packets = 0;
  uint64_t retransmissions = 0, out_of_order = 0, lost = 0, keepalive = 0;
  uint64_t l4_packets[256] = {}, l4_bytes[256] = {};
  uint64_t dscp_packets[64] = {}, dscp_bytes[64] = {};
  uint64_t flows_created = 0, flows_expired = 0, flow_table_full = 0;
  uint64_t hosts_created = 0, hosts_expired = 0, host_table_full = 0;
  uint64_t local_hosts = 0;  // active local hosts (kept as they come and go: stats() must not scan)
  // active unicast hosts that have not sent a packet yet, all and local (ntopng's numTotalRxOnlyHosts, numLocalRxOnlyHosts)
  uint64_t rx_only_hosts = 0, local_rx_only_hosts = 0;
  uint64_t local_host_anomalies = 0, remote_host_anomalies = 0;  // behavioural anomalies found (ntopng's tot_num_anomalies)
  uint64_t macs_created = 0, mac_table_full = 0;
  uint64_t host_l7_pool_full = 0;             // hosts whose L7 counters stopped (pool full)
  uint64_t host_contacts_full = 0;            // contact sketches (host_contacts.h) the pool had no room for
  uint64_t host_side_full = 0;                // side state the side pools had no room for (local hosts' sites / ICMP / used ports / behaviour, remote hosts' behaviour)
  uint64_t orphan_fragments = 0;              // later fragments whose first was never seen
  uint64_t names_untold = 0;                  // several workers: names learned here another worker's ring had no room for
  uint64_t expired_ring_drops = 0;
  // Active flows with at least one alert, by their predominant alert's SeverityGroup.
  uint64_t alerted_flows[kSevGroups] = {};
  // The active hosts' scores as client / as server summed (NetworkInterface's
  // score_as_cli / score_as_srv, which Host::incScoreValue / decScoreValue move)
  uint64_t score_as_cli = 0, score_as_srv = 0;
  uint64_t first_ns = 0, last_ns = 0;         // packet time
  // Throughput over the last second of engine time.
  uint64_t thpt_ts = 0, thpt_bytes = 0, thpt_pkts = 0;
  double bps = 0, pps = 0;
  DecodeStats decode;
};

}  // namespace fg
