// Host and flow lists: filtering, sorting and paging happen here, under the
// engine's batch lock, so only the page asked for crosses to JS.
#pragma once
#include <string>
#include <vector>

#include "engine/pipeline.h"
#include "flow/local_nets.h"

namespace fg {

// The shards of one interface's engine (one Pipeline per worker, engine.h),
// read together under all their batch locks. A flow lives in exactly one
// shard; a host has a part in every shard that saw a flow of it, and its
// figures are those parts merged.
using Views = std::vector<const Pipeline*>;

enum class HostSort : uint8_t { Ip, Name, Since, Last, Alerts, Country, Vlan, NumFlows, Traffic, Thpt, Sent, Rcvd, Score };
enum class HostMode : uint8_t { All, Local, Remote, BroadcastDomain, Filtered, Blacklisted, Dhcp, Broadcast, Multicast };

struct HostQuery {
  HostSort sort = HostSort::Ip;
  bool desc = false;
  uint32_t offset = 0, limit = 10;
  HostMode mode = HostMode::All;
  int vlan = -1;
  int pool = -1;              // a host pool id: its hosts only
  std::vector<Cidr> allowed;  // empty: every host
  bool detail = false;        // with the per-application / category / DSCP counters
  bool brief = false;         // rows without the nested counters (families, packet sizes, TCP, score breakdown)
};

struct HostRow {
  Host h;
  bool brief = false;   // host_to_js leaves the nested counters out
  uint8_t pool = 0;     // host_pool_id
  int16_t network = -1; // local_network_id: index in the local network list, -1 none
  uint8_t devtype = 0;  // its MAC's DeviceType (hosts with a MAC)
  std::string name;
  bool has_l7 = false;  // detail: with the L7 counters and the host-check hits so far
  HostL7Stats l7;
  HostCheckHits hits{};  // the current minute so far (ntopng's host hits.* fields)
  HostScore score{};     // score and alerted flows (flow/scores.h)
  HostFlowBins bins{};   // detail: flows' inter-arrival and duration bins (flow/host_bins.h)
  // detail: ntopng's no-TX estimates (peers as client, clients as server) and
  // one-way TCP/UDP flows ended (as server, as client); host_contacts.h
  uint32_t no_tx_out = 0, no_tx_in = 0;
  bool blacklisted = false;          // its address is blacklisted (UserRules::blacklisted), now
  uint64_t blacklisted_flows[2] = {};  // detail: flows with a blacklisted peer, as server / as client
  uint64_t oneway_in = 0, oneway_out = 0;
  // detail: the servers a local host used as client, distinct, by service (LocalHost::lua_contacts_stats)
  uint32_t server_contacts[6] = {};  // dns, smtp, imap, pop, ntp, domain names (this minute)
  uint32_t cardinality[3] = {};      // peers as client, peers as server, services as client (LocalHostStats)
  bool has_icmp = false;             // detail: its ICMP statistics (flow/host_icmp.h)
  HostIcmp icmp{};
  bool has_ports = false;            // detail: its used ports (flow/host_ports.h)
  HostPorts ports{};
  bool has_behaviour = false;        // detail: its behavioural counters (flow/host_behaviour.h)
  uint32_t visited_now = 0;          // detail: names visited in the current 5-minute window
  HostBehaviour behaviour{};
  uint64_t behaviour_bytes = 0;      // the traffic of the part the behaviour came from (merge_host_row keeps the busiest part's)
  void read_side_pools(const Pipeline& pl, uint32_t i);  // ICMP and used ports
  void read_contacts(const HostL7Table& t, uint32_t i) {
    no_tx_out = t.contact_estimate(i, kContactNoTxOut), no_tx_in = t.contact_estimate(i, kContactNoTxIn);
    oneway_in = t.count(i, kCountOneWay, 0), oneway_out = t.count(i, kCountOneWay, 1);
    blacklisted_flows[0] = t.count(i, kCountBlacklisted, 0), blacklisted_flows[1] = t.count(i, kCountBlacklisted, 1);
    static constexpr ContactKind kServers[6] = {kContactDns, kContactSmtp, kContactImap, kContactPop, kContactNtp, kContactDomains};
    for (int k = 0; k < 6; k++) server_contacts[k] = t.contact_estimate(i, kServers[k]);
    static constexpr ContactKind kCard[3] = {kContactPeersOut, kContactPeersIn, kContactServices};
    for (int k = 0; k < 3; k++) cardinality[k] = t.contact_estimate(i, kCard[k]);
    visited_now = t.contact_estimate(i, kContactVisited);
  }
};

inline void HostRow::read_side_pools(const Pipeline& pl, uint32_t i) {
  const HostIcmp* x = pl.host_icmp(i);
  if ((has_icmp = x != nullptr)) icmp = *x;
  const HostPorts* y = pl.host_ports(i);
  if ((has_ports = y != nullptr)) ports = *y;
  const HostBehaviour* z = pl.host_behaviour(i);
  if ((has_behaviour = z != nullptr && z->n != 0)) behaviour = *z, behaviour_bytes = h.bytes(0) + h.bytes(1);
}

// Merges another shard's part of the same host into `into` (both read the
// same way: same detail). Additive counters are summed; distinct-count
// estimates and behavioural counters cannot be (see query.cpp). With one
// shard nothing is merged.
void merge_host_row(HostRow& into, const HostRow& part);

struct HostPage {
  uint32_t total = 0;
  std::vector<HostRow> rows;
};

// A page's entries in order, by table index and serial, without their rows:
// a streamed answer copies rows a slice at a time (each under the lock for
// a moment); an entry whose serial changed meanwhile is gone and skipped.
struct PageEntry {
  uint32_t index, serial;
  uint32_t shard = 0;  // the Pipeline in Views (flows; hosts of a single shard)
};
struct PageOrder {
  uint32_t total = 0;  // entries matching the query, before offset and limit
  std::vector<PageEntry> entries;
  // Hosts over several shards: entries[i].index indexes keys (the page's
  // hosts, found again in every shard when their rows are copied).
  std::vector<HostKey> keys;
};

HostPage query_hosts(const Views& v, const HostQuery& q);
PageOrder order_hosts(const Views& v, const HostQuery& q);
// entries [from, from + n) of an order_hosts() page
std::vector<HostRow> host_rows(const Views& v, const PageOrder& o, size_t from, size_t n, bool detail, bool brief = false);
// vlan < 0: the first host with that address on any VLAN.
bool find_host(const Views& v, const IpAddr& ip, int vlan, HostRow& out);

// The hosts whose hits in the minute closed at the last tick exceed a
// threshold: the attacker or the victim figure of a check c with
// thresholds[c] >= 0 (a negative one: not asked) is strictly above it.
struct HostCheckRow {
  HostKey key;
  bool local;
  std::string name;
  HostCheckHits hits;
};
std::vector<HostCheckRow> query_host_checks(const Views& v, const double (&thresholds)[kHostCheckCount]);

// ntopng's score_threshold host check: the hosts whose score as client, or
// else as server, is strictly above the threshold.
struct HostScoreRow {
  HostKey key;
  bool local;
  std::string name;
  HostScore score;
};
std::vector<HostScoreRow> query_host_scores(const Views& v, uint64_t threshold);

enum class FlowSort : uint8_t { Bytes, Thpt, Duration, FirstSeen, LastSeen, Client, Server, Vlan, Proto, L7, Serial, Packets, Score };

struct FlowQuery {
  FlowSort sort = FlowSort::Bytes;
  bool desc = true;
  uint32_t offset = 0, limit = 10;
  bool has_host = false;
  IpAddr host{};
  int host_vlan = -1;
  int vlan = -1;
  int l4proto = -1;
  int l7 = -1;        // master or app id
  std::vector<Cidr> allowed;
};

struct FlowRow {
  Flow f;
  TcpTiming tcp{};                       // its TCP latencies
  std::string cli_name, srv_name;
  std::string host;                      // what DPI read: SNI, Host, DNS query
  uint8_t confidence = 0;                // Confidence
  uint8_t cli_flags = 0, srv_flags = 0;  // HostFlag bits (local, broadcast …)
  uint8_t cli_name_source = 0, srv_name_source = 0;  // NameSource of the endpoints' names
  uint8_t cli_pool = 0, srv_pool = 0;    // the endpoints' host pools
  uint64_t risks = 0;                    // nDPI risk mask
  bool has_meta = false;
  FlowMeta meta;                         // valid when has_meta (a TLS one: its first kTlsMetaBytes)
  MetaText text;                         // HTTP's and SSH's strings, read out with meta
  bool has_cert = false;
  TlsCert cert;                          // TLS: valid when has_cert
  DnsMeta dns{};                         // valid when dns_kind
  bool dns_kind = false;
};

struct FlowPage {
  uint32_t total = 0;
  std::vector<FlowRow> rows;
};

FlowPage query_flows(const Views& v, const FlowQuery& q);
PageOrder order_flows(const Views& v, const FlowQuery& q);
// entries [from, from + n) of an order_flows() page
std::vector<FlowRow> flow_rows(const Views& v, const PageOrder& o, size_t from, size_t n);

// Per-L4 and per-L7 counts of active flows (flow l4/l7 counters endpoints).
struct FlowL7Count {
  uint32_t key;    // master << 16 | app
  uint32_t flows;
  double bps;      // the flows' current throughput, summed (bit/s)
};
struct FlowCounts {
  std::vector<std::pair<uint8_t, uint32_t>> l4;
  std::vector<FlowL7Count> l7;
};
FlowCounts count_flows(const Views& v, const std::vector<Cidr>& allowed);

}  // namespace fg
