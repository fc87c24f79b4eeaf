// ③ One host: keyed by (IP, VLAN). Counters follow ntopng's host data.
#pragma once
#include <cstddef>
#include <cstdint>

#include "decode/packet.h"

namespace fg {

struct HostKey {
  IpAddr ip;
  uint16_t vlan;
  uint16_t pad[3] = {0, 0, 0};
  bool operator==(const HostKey& o) const { return ip == o.ip && vlan == o.vlan; }
};

inline uint64_t hash_host_key(const HostKey& k) {
  uint64_t a, b;
  std::memcpy(&a, k.ip.b, 8);
  std::memcpy(&b, k.ip.b + 8, 8);
  return mix64(mix64(a ^ 0x51afd7ed558ccd1dULL) ^ b ^ (uint64_t(k.vlan) << 48));
}
struct HostKeyHash {  // std::unordered_map's (hosts merged over shards)
  size_t operator()(const HostKey& k) const { return size_t(hash_host_key(k)); }
};

enum HostFlag : uint8_t {
  kHostLocal = 1, kHostBroadcast = 2, kHostMulticast = 4, kHostHasMac = 8,
  kHostPrivate = 16, kHostBroadcastDomain = 32,
  kHostL7Full = 64,  // the L7 pool was full: this host's L7/DSCP counters stopped
  kHostCrawlerBot = 128,  // a client nDPI saw acting as a crawler or bot (ntopng's is_crawler_bot_scanner)
};

// Traffic families as ntopng splits them.
enum Family : uint8_t { kFamTcp = 0, kFamUdp = 1, kFamIcmp = 2, kFamOther = 3, kFamCount = 4 };

// Host::unreachable kinds.
enum Unreachable : uint8_t { kUnreachPort = 0, kUnreachHost = 1 };

// What an ICMP message announces, as ntopng counts unreachable flows:
// port unreachable (ICMP 3/3, ICMPv6 1/4) or host unreachable (ICMP 3/1,
// ICMPv6 1/3); -1 for anything else.
inline int unreachable_kind(uint8_t l4_proto, uint8_t type, uint8_t code) {
  if (l4_proto == kProtoIcmp && type == 3) return code == 3 ? kUnreachPort : code == 1 ? kUnreachHost : -1;
  if (l4_proto == kProtoIcmpv6 && type == 1) return code == 4 ? kUnreachPort : code == 3 ? kUnreachHost : -1;
  return -1;
}

// pktStats size bins: upTo64 … above9000.
constexpr int kSizeBins = 10;
inline int size_bin(uint32_t len) {
  static constexpr uint32_t kEdges[kSizeBins - 1] = {64, 128, 256, 512, 1024, 1518, 2500, 6500, 9000};
  for (int i = 0; i < kSizeBins - 1; i++)
    if (len <= kEdges[i]) return i;
  return kSizeBins - 1;
}

// Per direction (0 = sent, 1 = received), what every packet updates sits in
// two cache lines, so a packet touches two lines of each of its hosts.
// Packet counters keep their low 32 bits here and carry into a cold word:
// exact 64-bit counts, half the hot bytes.
struct alignas(64) HostTraffic {
  uint64_t last_ns;
  uint64_t fam_bytes[kFamCount];
  uint32_t fam_pkts_lo[kFamCount];
  uint64_t udp_unicast;     // sent side only: UDP bytes to unicast addresses
};

struct alignas(64) HostPktStats {
  uint32_t size_bins[kSizeBins];
  uint32_t syn, synack, finack, rst;
  // FIN-scan counters of the current minute (host_checks.h), here because
  // nearly every TCP packet updates them: the first FIN of a flow, and each
  // packet with FIN or ACK until the flow has seen both (ntopng's
  // fin_*_last_min / finack_*_last_min).
  uint32_t scan_fin, scan_finack;
};
static_assert(sizeof(HostPktStats) == 64);

struct alignas(64) Host {
  // line 0: identity (read at creation and by queries)
  HostKey key;              // 24
  uint64_t hash;
  uint32_t serial;
  uint32_t name;            // NamePool entry, or kNone
  uint8_t flags;
  uint8_t mac[6];
  uint8_t name_source;      // what taught us the name (NameSource)
  uint64_t first_ns;
  // Written per flow (at its classification or end), not per packet:
  uint8_t services;         // HostService bits: the servers it was seen to be
  uint8_t remote_access;    // its live remote-access flows as client (ntopng's num_remote_access)
  uint16_t spare;           // (the L7 counters are in HostL7Table, by host slot)
  uint32_t incomplete_flows;  // ended this minute as client without an answer (ScanDetection)
  // lines 1-4
  HostTraffic traffic[2];
  HostPktStats pkt[2];
  // cold: changed per flow, per TCP anomaly, per sweep
  uint16_t fam_pkts_hi[2][kFamCount];  // carries of traffic[d].fam_pkts_lo (48-bit counts)
  uint32_t active_as_client, active_as_server, total_as_client, total_as_server;
  // ICMP flows that began with a port / host unreachable, [kind][0 as client, 1 as server]
  uint32_t unreachable[2][2];
  uint32_t retr[2], ooo[2], lost[2], keepalive[2];
  uint64_t udp_sent_noncast;
  uint64_t thpt_ts, thpt_bytes;
  uint32_t thpt_pkts;
  float bps, pps, prev_bps, prev_pps;
  uint32_t name_ms;         // packet time its name was learned (ms, wrapping): of two names of one source the later wins

  uint64_t fam_pkts(int d, int fam) const {
    return uint64_t(fam_pkts_hi[d][fam]) << 32 | traffic[d].fam_pkts_lo[fam];
  }
  void count_packet(int d, int fam) {
    if (++traffic[d].fam_pkts_lo[fam] == 0) fam_pkts_hi[d][fam]++;
  }
  uint64_t last_ns() const { return traffic[0].last_ns > traffic[1].last_ns ? traffic[0].last_ns : traffic[1].last_ns; }
  uint64_t bytes(int d) const {
    const HostTraffic& t = traffic[d];
    return t.fam_bytes[0] + t.fam_bytes[1] + t.fam_bytes[2] + t.fam_bytes[3];
  }
  uint64_t pkts(int d) const { return fam_pkts(d, 0) + fam_pkts(d, 1) + fam_pkts(d, 2) + fam_pkts(d, 3); }
};
static_assert(offsetof(Host, traffic) == 64, "hot lines follow the identity line");
static_assert(sizeof(Host) % 64 == 0);
static_assert(sizeof(Host) <= 448, "host entry budget: 512 B per host incl. index and names");

}  // namespace fg
