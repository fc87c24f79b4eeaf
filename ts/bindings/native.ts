// ⑦ The addon's surface, declared once. Everything native returns is typed
// here; ts/bindings/engine.ts wraps it with defaults and validation.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { HostCheckHits, HostCheckName } from '../services/alerts/types.js';
import { FlowgateError } from './errors.js';

export interface NativeEngineOptions {
  files?: string[];
  iface?: string;
  snaplen?: number;
  promisc?: boolean;
  bpf?: string;
  bufferMb?: number;
  maxFlows?: number;
  maxHosts?: number;
  maxMacs?: number;
  flowIdleSec?: number;
  flowLifetimeSec?: number;
  periodicDumpSec?: number;
  localHostIdleSec?: number;
  remoteHostIdleSec?: number;
  dpi?: boolean;
  checks?: boolean;
  l7EntriesPerHost?: number;
  flowInfoShare?: number;
  /** packet workers (shards) */
  workers?: number;
  flowMetaShare?: number;
  hostSideShare?: number;
  behaviourMapEntries?: number;
  iecLearningSec?: number;
  mode?: 0 | 1 | 2;
  replaySpeed?: number;
  loop?: boolean;
  flushAtEnd?: boolean;
  prefault?: boolean;
  ringRecords?: number;
  egress?: EgressConfig;
  /** keep every packet in a recording (native/src/recorder) */
  record?: { dir: string; maxBytes: number; fileBytes?: number; ringBytes?: number };
}

/** What the recorder has written, dropped and keeps (engine.recorderStats()). */
export interface RecorderStats {
  dir: string;
  /** packets and captured bytes written to the files */
  packets: number;
  bytes: number;
  /** packets not recorded: the ring was full (live capture does not wait for the disk) or a write failed */
  drops: number;
  writeErrors: number;
  /** files kept, files deleted by the quota so far, bytes on disk (data and index) */
  files: number;
  filesDeleted: number;
  diskBytes: number;
  ringBytes: number;
  ringUsed: number;
  lastError: string;
}

/** One PCAP extraction (native/src/recorder/extract.h). */
export interface NativeExtraction {
  /** the next slice of the pcap file (the header first); `done` once everything is out */
  read(maxBytes?: number): Promise<{ data: Buffer; done: boolean; packets: number; error: string }>;
  close(): void;
  readonly linktype: number;
}

/** User-space 802.1Q subinterfaces of one parent interface (edge/vlan_bridge.h). */
export interface NativeVlanBridge {
  /** creates the TAP <parent>.<vid> (down); throws FlowgateError E_VLAN */
  add(vid: number): string;
  remove(vid: number): boolean;
  counters(): { in: number; out: number; dropped: number };
  close(): void;
}

/** A broadcast / multicast repeater between interfaces (edge/repeater.h). */
export interface NativeRepeater {
  /** frames sent out so far */
  repeated(): number;
  close(): void;
}

export interface NativeExtractionOptions {
  /** a recording directory, or capture files read whole */
  dir?: string;
  files?: string[];
  /** packets with beginNs <= time < endNs */
  beginNs: number;
  endNs: number;
  filter?: string;
  /** the link type when nothing is in the window */
  linktype?: number;
  /** a looped replay of `files` (NativeEngine.replayInfo()): pass k's packets are the files' + k × loopPeriodNs */
  loopPeriodNs?: bigint;
  passes?: number;
  firstNs?: bigint;
}

/** Where an egress queue's packets go: a network interface, or a pcap file rotated by size. */
export type EgressOutput = { iface: string } | { pcap: string; rotateBytes?: number };

export interface EgressConfig {
  /** aggregated queues: each receives every packet, filtered by its own policy */
  aggregated?: EgressOutput[];
  /** balanced queues: each flow (IP pair) lands on exactly one */
  balanced?: EgressOutput[];
  /** inline between two live interfaces: captured on A → sent out of B and back */
  bridge?: [string, string];
}

export type EgressAction = 'forward' | 'discard' | 'shunt' | 'slice-l4' | 'slice-l3';
export type EgressTargetKind = 'aggregated' | 'balanced' | 'bridge';

export interface EgressTargetPolicy {
  target: EgressTargetKind;
  /** aggregated only (default 0) */
  queue?: number;
  default: EgressAction;
  subnets: { cidr: string; action: EgressAction }[];
  /** nDPI ids as addon.info().dpi.protocols lists them */
  protocols: { id: number; action: EgressAction }[];
}

export interface EgressPolicies {
  /** packets forwarded per flow by the shunt action: app id (then its master) > IP protocol > default */
  shunt: { default: number; l4: Record<number, number>; apps: Record<number, number> };
  targets: EgressTargetPolicy[];
}

export interface EgressPolicyStats {
  scope: 'default' | 'subnet' | 'protocol';
  /** the CIDR as given, or the protocol id (decimal); absent for the default */
  match?: string;
  action: EgressAction;
  /** packets (and wire bytes) this policy decided on */
  packets: number;
  bytes: number;
}

export interface EgressOutputStats {
  queue: number;
  /** 'pcap:<path>' or 'iface:<name>' */
  output: string;
  /** pcap: the file being written now (<path>, <path>.1 …) */
  file?: string;
  packets: number;
  bytes: number;
  /** written to the file / accepted by the kernel */
  written: number;
  /** taken but not written: interface busy, write error, other link type */
  drops: number;
  /** pcap files opened so far */
  files: number;
  error?: string;
}

export interface EgressTargetStats {
  target: EgressTargetKind;
  queue?: number;
  /** output names joined by ','; the bridge: 'bridge:A,B' */
  output: string;
  /** offered to the target: packets = forwarded + discarded + shunted */
  packets: number;
  bytes: number;
  /** handed to an output, sliced ones included */
  forwarded: number;
  forwarded_bytes: number;
  discarded: number;
  /** shunt: packets past the flow's first K */
  shunted: number;
  /** forwarded under a slice action */
  sliced: number;
  /** sum of the outputs' drops */
  output_drops: number;
  /** packets by the action their policy chose */
  actions: Record<EgressAction, number>;
  /** the current table: default first, then subnets, then protocols, as given */
  policies: EgressPolicyStats[];
  outputs: EgressOutputStats[];
}

export interface EgressStats {
  targets: EgressTargetStats[];
}

export interface TrafficCounters {
  bytes_sent: number;
  bytes_rcvd: number;
  packets_sent: number;
  packets_rcvd: number;
}

export interface PktStatsDir {
  size: Record<'upTo64' | 'upTo128' | 'upTo256' | 'upTo512' | 'upTo1024' | 'upTo1518' | 'upTo2500' | 'upTo6500' | 'upTo9000' | 'above9000', number>;
  tcp_flags: { syn: number; synack: number; finack: number; rst: number };
}

export interface TcpPacketStats {
  retransmissions: number;
  keep_alive: number;
  lost: number;
  out_of_order: number;
}

export interface HostRecord {
  ip: string;
  vlan: number;
  ip_version: 4 | 6;
  serial: number;
  mac: string | null;
  /** its MAC's device type (ntopng's DeviceType: 0 unknown, 3 workstation, 8 networking …); 0 without a MAC */
  devtype: number;
  name: string | null;
  name_source: '' | 'dns' | 'dhcp' | 'mdns' | 'netbios' | 'tls' | 'http' | 'quic';
  localhost: boolean;
  /** the host's pool (ntopng's host_pool_id; 0: the default pool) */
  host_pool_id: number;
  /** the local network the host is in (index in the local network list), -1 for none */
  local_network_id: number;
  privatehost: boolean;
  is_broadcast: boolean;
  is_multicast: boolean;
  broadcast_domain_host: boolean;
  /** a client nDPI flagged as a crawler or bot in one of its flows (ntopng's crawlerBotScannerHost) */
  crawler_bot: boolean;
  first_seen: number;
  last_seen: number;
  duration: number;
  bytes_sent: number;
  bytes_rcvd: number;
  packets_sent: number;
  packets_rcvd: number;
  tcp: TrafficCounters;
  udp: TrafficCounters;
  icmp: TrafficCounters;
  other_ip: TrafficCounters;
  active_flows_as_client: number;
  active_flows_as_server: number;
  total_flows_as_client: number;
  total_flows_as_server: number;
  /** ICMP flows opened by a port / host unreachable message, this host sending (client) or receiving it */
  unreachable_flows_as_client: number;
  unreachable_flows_as_server: number;
  host_unreachable_flows_as_client: number;
  host_unreachable_flows_as_server: number;
  throughput_bps: number;
  throughput_pps: number;
  /** ntopng's ValueTrend: 1 up, 2 down, 3 stable */
  throughput_trend_bps: 1 | 2 | 3;
  throughput_trend_pps: 1 | 2 | 3;
  pktStats: { sent: PktStatsDir; recv: PktStatsDir };
  tcpPacketStats: { sent: TcpPacketStats; rcvd: TcpPacketStats };
  udpBytesSent: { unicast: number; non_unicast: number };
  /** the per-host L7 pool was full: ndpi / ndpi_categories / dscp stopped growing for this host */
  l7_pool_full: boolean;
  /** its address is blacklisted: a custom category network (edit/category) puts it in Malware, as ntopng's IpAddress::reloadBlacklist */
  is_blacklisted: boolean;
  /** the shares of its active flows' alert scores it carries as client / as server (ntopng's score.as_client / score.as_server) */
  score_as_client: number;
  score_as_server: number;
  score_breakdown: ScoreBreakdown;
  /** active flows with at least one alert (ntopng's active_alerted_flows) */
  active_alerted_flows: number;
  /** flows that became alerted with this host as client / as server since it appeared (alerted_flows.as_client / .as_server) */
  alerted_flows_as_client: number;
  alerted_flows_as_server: number;
  /** host(), and hosts() with detail: per application (nDPI id; 0 = Unknown) */
  ndpi?: HostL7App[];
  ndpi_categories?: HostL7Category[];
  /** by the DSCP marks of the flows' packets, per direction */
  dscp?: HostDscp[];
  /**
   * host(), and hosts() with detail: every host check's attacker and victim
   * hits in the current minute so far (since the last engine tick), what
   * ntopng's host Lua fields hits.syn_scan_attacker … show.
   */
  hits?: Record<HostCheckName, { attacker: number; victim: number }>;
  /** detail: the servers it was seen to be (HostService bits: 1 DHCP, 2 DNS, 4 SMTP, 8 NTP, 16 IMAP, 32 POP) */
  services?: number;
  /** detail: distinct (server, port) of one-way TCP/UDP flows it started, and (client, port) of those it got, ended (estimates) */
  no_tx_peers_as_client?: number;
  no_tx_peers_as_server?: number;
  /** detail: one-way TCP/UDP flows ended with it as server / as client */
  oneway_flows_as_server?: number;
  oneway_flows_as_client?: number;
  /** detail: flows with a blacklisted peer, as server / as client (Host::num_blacklisted_flows) */
  blacklisted_flows_as_server?: number;
  blacklisted_flows_as_client?: number;
  /** detail, local hosts: distinct servers used as client by service, and domain names of this minute (LocalHost::lua_contacts_stats) */
  server_contacts?: { dns: number; smtp: number; imap: number; pop: number; ntp: number; domain_names: number };
  /** detail, local hosts that sent or received ICMP: per (type, code), packets each way and the last peer each way */
  icmp_stats?: { v6: boolean; type: number; code: number; sent: number; rcvd: number; last_host_sent_peer?: string; last_host_rcvd_peer?: string }[];
  /** detail, local hosts with one: ports served (server) or contacted as client, with the last flow's application */
  used_ports?: { tcp: boolean; server: boolean; port: number; master: number; app: number }[];
  /**
   * detail, local hosts after their first minute: ntopng's behavioural counters — DES bounds of
   * [score as client, as server, active flows as client, as server, names visited] (5-minute observations) and
   * the anomaly indexes of [bytes sent, rcvd, packets sent, rcvd, then bytes sent, rcvd of TCP, UDP, ICMP, other IP]
   */
  behaviour?: {
    des: { anomaly: boolean; value: number; lower_bound: number; upper_bound: number; tot_num_anomalies: number }[];
    anomaly_index: number[];
    /** names visited in the current 5-minute window (des[4] observes the closed windows) */
    visited_now: number;
  };
  /**
   * detail: ntopng 4.0's flow bins, [as client, as server] × [seconds between consecutive new flows,
   * durations of ended flows] × the counts in 8 ranges (<= 1, 3, 5, 10, 30, 60, 300 s, more)
   */
  flow_bins?: [[number[], number[]], [number[], number[]]];
  /** detail, local hosts: distinct peers as client and as server, distinct service names as client, since it appeared (LocalHostStats) */
  cardinality?: { num_contacted_hosts_as_client: number; num_host_contacts_as_server: number; num_contacted_services_as_client: number };
}

/**
 * A host's traffic per application, credited from its flows every sweep (5 s
 * of packet time) and when a flow ends, under the flow's application then
 * (l7_app, else l7_master).
 */
export interface HostL7App extends TrafficCounters {
  id: number;
  /** flows counted once under each application they were accounted with */
  num_flows: number;
  /** seconds: 5 per 5-s period in which the application had traffic (ntopng's nDPIStats) */
  duration: number;
}

export interface HostL7Category {
  id: number;
  bytes_sent: number;
  bytes_rcvd: number;
  duration: number;
}

export interface HostDscp extends TrafficCounters {
  dscp: number;
}

/** What host() returns: a HostRecord with the L7 and DSCP counters and the host-check hits so far. */
export type HostDetail = HostRecord & Required<Pick<HostRecord, 'ndpi' | 'ndpi_categories' | 'dscp' | 'hits'>>;

/** Interface totals since startup per application and category (non-zero only). */
export interface L7Stats {
  apps: { id: number; bytes: number; packets: number; num_flows: number }[];
  categories: { id: number; bytes: number; packets: number }[];
}

export interface FlowEndpoint {
  ip: string;
  port: number;
  name: string;
  localhost: boolean;
  is_broadcast: boolean;
  is_multicast: boolean;
  /** the endpoint's host lies in a broadcast domain learned from ARP */
  broadcast_domain_host: boolean;
  /** the endpoint's host named itself in DHCP */
  dhcp: boolean;
  /** its address was blacklisted as the flow began */
  blacklisted: boolean;
  /** the endpoint host's pool (0: the default pool) */
  host_pool_id: number;
}

/** A host pool member as the engine takes it: a network (address or CIDR) on a VLAN, or a MAC. */
export type HostPoolMember = { net: string; vlan: number; pool: number } | { mac: string; pool: number };

export interface FlowRecord {
  key: string;
  hash_id: number;
  vlan: number;
  proto: number;
  ip_version: number;
  tunnel: '' | 'GRE' | 'ERSPAN' | 'VXLAN' | 'GTP-U' | 'IP-in-IP' | 'CAPWAP' | 'TZSP';
  client: FlowEndpoint;
  server: FlowEndpoint;
  first_seen: number;
  last_seen: number;
  first_seen_ns: number;
  last_seen_ns: number;
  duration: number;
  cli2srv_packets: number;
  srv2cli_packets: number;
  cli2srv_bytes: number;
  srv2cli_bytes: number;
  packets: number;
  bytes: number;
  thpt_bps: number;
  thpt_pps: number;
  cli2srv_tcp_flags: number;
  srv2cli_tcp_flags: number;
  cli2srv_dscp: number;
  srv2cli_dscp: number;
  cli2srv_ttl: number;
  srv2cli_ttl: number;
  tcp: Record<'retransmissions' | 'out_of_order' | 'lost', { cli2srv: number; srv2cli: number }> & {
    /** ntopng's network latencies (ms): half of SYN → SYN|ACK (srv), half of SYN|ACK → the handshake's ACK (cli); 0 unmeasured or above 5 s */
    nw_latency: { cli: number; srv: number };
    /** ms from the last client payload to the first server payload after it; 0 until then */
    appl_latency: number;
  };
  icmp_type: number;
  icmp_code: number;
  l7_master: number;
  l7_app: number;
  l7_category: number;
  /** nDPI's confidence names: 'DPI', 'Match by port', 'Unknown' … */
  l7_confidence: string;
  /** classification finished (or gave up) */
  dpi_done: boolean;
  /** what DPI read: TLS SNI, HTTP Host, DNS query (≤ 39 characters) */
  host_name: string;
  /** nDPI flow risk names (ndpi_risk2str), in id order */
  risks: string[];
  /** nDPI flow risk ids (ndpi_risk_enum) */
  risk_ids: number[];
  tls?: TlsMeta;
  http?: HttpMeta;
  ssh?: SshMeta;
  dns?: DnsMeta;
}

/** TLS (and QUIC's ClientHello). Absent fields were not seen. */
export interface TlsMeta {
  /** negotiated (ServerHello, supported_versions), e.g. 0x0303 */
  version?: number;
  /** "TLSv1.2" as nDPI prints it */
  version_name?: string;
  /** highest version the client offered */
  client_version?: number;
  /** ServerHello's cipher suite id, and its IANA name when common */
  cipher?: number;
  cipher_name?: string;
  /** first protocol of the client's ALPN list, and the server's choice */
  alpn_client?: string;
  alpn_server?: string;
  /** MD5 hex of the JA3 / JA3S strings (GREASE removed) */
  ja3?: string;
  ja3s?: string;
  /** FoxIO JA4, e.g. t13d1516h2_8daaf6152771_b0da82dd1658 */
  ja4?: string;
  /** first certificate (TLS ≤ 1.2 only: later versions encrypt it) */
  issuer_dn?: string;
  subject_dn?: string;
  /** epoch seconds */
  not_before?: number;
  not_after?: number;
  quic: boolean;
}

export interface HttpMeta {
  method?: string;
  /** request target, ≤ 95 characters */
  url?: string;
  user_agent?: string;
  /** response status code */
  status?: number;
  content_type?: string;
  server?: string;
}

export interface SshMeta {
  client_banner?: string;
  server_banner?: string;
  /** HASSH: MD5 hex of the KEXINIT lists */
  hassh_client?: string;
  hassh_server?: string;
}

export interface DnsMeta {
  query_type: number;
  /** from the response, when one was seen */
  rcode?: number;
  answers?: number;
}

export interface EngineStats {
  packets: number;
  bytes: number;
  ip_packets: number;
  ip_bytes: number;
  ipv4_packets: number;
  ipv6_packets: number;
  packets_upload: number;
  bytes_upload: number;
  packets_download: number;
  bytes_download: number;
  local2remote: number;
  remote2local: number;
  local2local: number;
  remote2remote: number;
  broadcast_packets: number;
  multicast_packets: number;
  tcpPacketStats: { retransmissions: number; out_of_order: number; lost: number; keep_alive: number };
  l4: { proto: number; packets: number; bytes: number }[];
  dscp: { dscp: number; packets: number; bytes: number }[];
  num_flows: number;
  num_hosts: number;
  num_local_hosts: number;
  /** active unicast hosts that have not sent a packet yet (ntopng hosts_rcvd_only), and the local ones */
  num_rcvd_only_hosts: number;
  num_local_rcvd_only_hosts: number;
  /** behavioural anomalies found by local / remote hosts' score and active-flow counters (ntopng's tot_num_anomalies) */
  num_local_hosts_anomalies: number;
  num_remote_hosts_anomalies: number;
  num_devices: number;
  /** broadcast domains learned from ARP (sender and target in one subnet, /16../28) */
  bcast_domains: { network: string; hits: number }[];
  max_flows: number;
  max_hosts: number;
  max_macs: number;
  flows_created: number;
  flows_expired: number;
  flow_table_full: number;
  hosts_created: number;
  hosts_expired: number;
  host_table_full: number;
  mac_table_full: number;
  /** hosts whose L7 counters stopped because the per-host L7 pool was full */
  host_l7_pool_full: number;
  /** contact sketches (server contacts, countries, domains, no-TX peers) the per-host pool had no room for */
  host_contacts_full: number;
  /** side state the side pools had no room for: a local host's sites, ICMP, used ports or behaviour, a remote host's behaviour (hostSideShare) */
  host_side_full: number;
  host_l7_entries: number;
  host_l7_entries_max: number;
  orphan_fragments: number;
  /** several workers: names learned by one (DNS, DHCP …) that another's ring had no room for */
  names_untold: number;
  expired_ring_drops: number;
  drops: number;
  first_seen_ns: number;
  last_seen_ns: number;
  now_ns: number;
  throughput_bps: number;
  throughput_pps: number;
  memory_bytes: number;
  /** resident bytes of what the engine keeps per flow slot (tables and pools hold pages as entries are first used) */
  flow_memory_bytes: number;
  /** the same tables' whole reservation: what they hold when every slot has been used */
  flow_reserved_bytes: number;
  /** DPI entries refused because their pool was full (classification goes on without) */
  flow_info_full: number;
  flow_meta_full: number;
  flow_score_full: number;
  /** IEC 60870-5-104 flows without their state: its side pool was full */
  flow_iec_full: number;
  host_memory_bytes: number;
  host_reserved_bytes: number;
  decode: Record<string, number>;
  malformed: number;
  read_only_packets: number;
  read_only_bytes: number;
  /** timeseries ticks (steps of packet time closed) and those a live capture did not wait for */
  ticks: number;
  ticks_late: number;
  /** active flows with an alert, by their predominant alert's severity group (ntopng's num_alerted_flows_notice …); other: none or critical and above, counted in no group */
  alerted_flows_notice: number;
  alerted_flows_warning: number;
  alerted_flows_error: number;
  alerted_flows_other: number;
  /** the active hosts' scores as client / as server, summed (ntopng's interface score_as_cli / score_as_srv) */
  score_as_client: number;
  score_as_server: number;
}

/** A host's score per score category, [0] network, [1] security (ntopng's ScoreCategory). */
export interface ScoreBreakdown {
  as_client: [number, number];
  as_server: [number, number];
}

/** A host above the score_threshold check's threshold (Engine.hostScoresAbove). */
export interface HostScoreRow {
  ip: string;
  vlan: number;
  local: boolean;
  name: string;
  score_as_client: number;
  score_as_server: number;
  score_breakdown: ScoreBreakdown;
}

export interface NativeState {
  state: 'idle' | 'running' | 'done' | 'stopped' | 'failed';
  error: string | null;
  progress: number;
  live: boolean;
  /** the packet workers running (an inline bridge runs on one) */
  workers: number;
}

export interface NativeHostQuery {
  sort?: number;
  desc?: boolean;
  offset?: number;
  limit?: number;
  mode?: number;
  vlan?: number;
  /** a host pool id: its hosts only */
  pool?: number;
  allowed?: string[];
  detail?: boolean;
  brief?: boolean;
  /** answer a Cursor instead of a Page */
  cursor?: boolean;
}

export interface NativeFlowQuery {
  sort?: number;
  desc?: boolean;
  offset?: number;
  limit?: number;
  host?: string;
  hostVlan?: number;
  vlan?: number;
  l4proto?: number;
  l7?: number;
  allowed?: string[];
  /** answer a Cursor instead of a Page */
  cursor?: boolean;
}

export interface Page<T> {
  total: number;
  rows: T[];
}

/**
 * A page ordered at once under the batch lock (table index and serial per
 * row); next() copies and converts a slice of rows, under the lock for a
 * moment, leaving out those gone since. Large answers are written slice by
 * slice instead of built in one call. The cursor keeps its engine alive.
 */
export interface Cursor<T> {
  /** rows matching the query (before offset and limit) */
  total: number;
  /** rows in the page when it was ordered */
  size: number;
  /** the next `n` rows; [] once every row was taken */
  next(n: number): T[];
  /** frees the page now (not at the next garbage collection) */
  close(): void;
}

/** One local network's figures in the last minute closed (ntopng's NetworkStats hits.*). */
export interface NetworkCheckHits {
  /** the local network's index (Engine.localNetworks) */
  index: number;
  /** SYNs its hosts received beyond the SYN|ACKs they sent */
  syn_scan_victim: number;
  /** the peak rate of flows with a server in it (AlertCounter, per 2 s window) */
  flow_flood_victim: number;
}

/** The ARP packets of the last minute closed whose sender and target share no /16 or narrower subnet. */
export interface BcastTooLarge {
  /** the first 64 of the minute */
  events: { src_mac: string; dst_mac: string; vlan: number; spa: string; tpa: string }[];
  /** those past the first 64 (not kept) */
  over: number;
}

/** A query of a behaviour map (native/src/flow/behaviour_maps.h). */
export interface BehaviourQuery {
  /** an address: the client or the server */
  host?: string;
  vlan?: number;
  /** an application id: the key's master or application */
  app?: number;
  allowed?: string[];
  /** last_seen (default), first_seen, num_uses, observations, frequency, duration, port, l7proto, client, server */
  sort?: string;
  order?: 'asc' | 'desc';
  start?: number;
  length?: number;
}

/** One key of a behaviour map: flows client → server:port of one L4 protocol, application and VLAN. */
export interface BehaviourRow {
  client: string;
  server: string;
  port: number;
  l4: number;
  vlan: number;
  l7_master: number;
  l7_app: number;
  /** epoch seconds: service map, the first and last flow start; periodicity map, the periodic run's first and last start */
  first_seen: number;
  last_seen: number;
  /** flows seen with the key */
  uses: number;
  /** periodicity: starts (bursts) in the periodic run */
  observations: number;
  /** periodicity: the mean interval between the run's starts */
  period_ms: number;
  info: string;
}

export interface BehaviourPage {
  /** rows matching the query (the periodicity map: periodic keys only) */
  total: number;
  /** keys held, the map's capacity, keys refused for want of room */
  entries: number;
  max: number;
  full: number;
  rows: BehaviourRow[];
}

/** ntopng's no-TX counts of one host (Host::getNumContactedPeersAsClientTCPUDPNoTX …). */
export interface NoTxCounts {
  tcp_num_contacted_peers_as_client: number;
  tcp_num_peers_contacts_rcvd_as_server: number;
  tcp_num_ports_contacted_as_client: number;
}
/** ntopng's getRxOnlyHostsList(local, false) and (local, true), by address. */
export interface NoTxSide {
  hosts_with_ports_count: Record<string, NoTxCounts>;
  host_peers: Record<string, NoTxCounts>;
}

export interface NativeEngine {
  /** `tick`, `last_tick` (after a playlist's last packet): a = the boundary, b = the previous tick's boundary (epoch seconds) */
  start(onEvent: (event: 'done' | 'expired' | 'tick' | 'last_tick', a: number, b: number) => void): void;
  stop(): void;
  state(): NativeState;
  /** fills `buf` (info().stats.size slots; engine.ts names them) */
  stats(buf: Float64Array): void;
  hosts(q: NativeHostQuery & { cursor: true }): Cursor<HostRecord>;
  hosts(q: NativeHostQuery): Page<HostRecord>;
  host(ip: string, vlan?: number): HostDetail | null;
  /** one threshold per check in info().hostChecks order; a negative one leaves the check out */
  hostCheckHits(thresholds: number[]): HostCheckHits[];
  hostScoresAbove(threshold: number): HostScoreRow[];
  setRiskScores(cli: Uint16Array, srv: Uint16Array, category: Uint8Array, level: Uint8Array, alerting: [number, number]): void;
  flows(q: NativeFlowQuery & { cursor: true }): Cursor<FlowRecord>;
  flows(q: NativeFlowQuery): Page<FlowRecord>;
  l7Stats(): L7Stats;
  flowCounters(allowed?: string[]): { l4: { proto: number; count: number }[]; l7: { master: number; app: number; count: number; /** the flows' current throughput, summed (bit/s) */ bps: number }[] };
  setLocalNetworks(cidrs: string[]): void;
  setHostPools(members: HostPoolMember[]): void;
  /** the IEC 60870-5-104 allowed type ids (integers 0-255; null: all) */
  setIecConfig(allowedTypeIds: number[] | null): void;
  setLimits(maxFlows: number, maxHosts: number): void;
  /** Copies up to `max` whole records (default: as many as fit) into buf. */
  drainExpired(buf: ArrayBuffer, max?: number): number;
  /** Expires up to `max` active flows into the expired ring (no more than it has room for); returns how many. */
  expireActive(max: number): number;
  setEgressPolicies(p: EgressPolicies): void;
  egressStats(): EgressStats;
  setTickListener(on: boolean): void;
  tickDone(boundary: number): void;
  trafficBy(): TrafficBy;
  networkCheckHits(): NetworkCheckHits[];
  bcastTooLarge(): BcastTooLarge;
  localMacs(): Float64Array;
  gatewayHosts(): { ip: string; vlan: number }[];
  behaviourMap(which: 'service' | 'periodicity', q: BehaviourQuery): BehaviourPage;
  noTxPeers(allowed?: string[]): { local: NoTxSide; remote: NoTxSide };
  /** the interface's top visited sites, or a host's (null: no such host) */
  topSites(ip?: string, vlan?: number): { site: string; contacts: number }[] | null;
  /** null when the engine does not record */
  recorderStats(): RecorderStats | null;
  /** packets taken by each worker (shard), in worker order; optional: an addon with one worker may not have it */
  workerPackets?(): number[];
  /** a looped playlist's passes so far, the time shift between passes and the first packet's time (ns) */
  replayInfo(): { passes: number; periodNs: bigint; firstNs: bigint };
}

/** Traffic per VLAN (client→server is sent) and per local network (by index in the local network list). */
export interface TrafficBy {
  vlans: { vlan: number; bytes_sent: number; bytes_rcvd: number; packets_sent: number; packets_rcvd: number }[];
  /** per local network: bytes in/out/inside, packets, and the TCP issues of flows with an end there (since start) */
  networks: { index: number; ingress: number; egress: number; inner: number; packets: number; retransmissions: number; out_of_order: number; lost: number }[];
  /** per country of the hosts (ISO letters; hosts without one not counted): bytes in/out/inside, since start */
  countries: { country: string; ingress: number; egress: number; inner: number }[];
}

/** 'mac': 6 bytes; 'str': a NUL-terminated char array (its length is the gap to the next field) */
export type FieldType = 'ip16' | 'u64' | 'u32' | 'u16' | 'u8' | 'mac' | 'str';

export interface DpiRegistry {
  /** nDPI's protocols, then the operator's custom ones (custom: true), with the categories the operator gave */
  protocols: { id: number; name: string; is_app: boolean; breed: string; category: number; udp_ports: string; tcp_ports: string; custom: boolean }[];
  categories: { id: number; name: string }[];
  confidence: string[];
  /** nDPI risk names by id */
  risks: string[];
}

export interface AddonInfo {
  libpcap: string;
  flowEntryBytes: number;
  hostEntryBytes: number;
  expiredFlow: { size: number; fields: Record<string, [number, FieldType]> };
  decodeErrors: string[];
  /** the host checks the engine counts, in the order hostCheckHits() takes thresholds */
  hostChecks: HostCheckName[];
  dpi: DpiRegistry;
  /** slots of the stats() buffer: named scalars, then decode errors, l4, dscp, broadcast domains */
  stats: { scalars: string[]; decode: number; l4: number; dscp: number; bcast: number; size: number };
}

/**
 * The operator's classification rules (dpi/user_rules.h), replacing the
 * previous ones for every engine: custom protocols (ids not nDPI's, below
 * 16384), categories given to protocols, port / host / address rules naming
 * a protocol (nDPI's or custom), custom category hosts and networks.
 */
export interface UserRulesSpec {
  protocols?: { id: number; name: string; category: number }[];
  categories?: { id: number; category: number }[];
  ports?: { l4: 'tcp' | 'udp'; lo: number; hi: number; id: number }[];
  hosts?: { host: string; id: number }[];
  /** port 0 or absent: any */
  ips?: { net: string; port?: number; id: number }[];
  categoryHosts?: { host: string; category: number }[];
  categoryNets?: { net: string; category: number }[];
  /** risk exceptions: a flow's risks ANDed with the mask (decimal 64-bit) of its name and of each of its addresses that has one */
  riskMasks?: ({ net: string; mask: string } | { host: string; mask: string })[];
}

interface Addon {
  NativeEngine: new (o: NativeEngineOptions) => NativeEngine;
  /** throws FlowgateError E_BPF (libpcap's message) or E_FILE_OPEN */
  NativeExtraction: new (o: NativeExtractionOptions) => NativeExtraction;
  NativeVlanBridge: new (parent: string) => NativeVlanBridge;
  NativeRepeater: new (o: { group: number; port: number; trusted: string[]; restricted: string[] }) => NativeRepeater;
  setErrorClass(cls: typeof FlowgateError): void;
  info(): AddonInfo;
  setUserRules(rules: UserRulesSpec): void;
  /** the engine's address → country table from the city databases (for hosts created from then on) */
  loadCountries(files: string[]): Promise<{ networks: number; ranges: number; ms: number }>;
  /** the country the engine gives a host at this address ('' for none) */
  countryOf(ip: string): string;
  /**
   * Diagnostics: libinjection's verdicts on one URL-decoded query value as nDPI's URL validation
   * asks them (read up to a NUL); fingerprint: the SQLi fingerprint that decided, '' when not SQLi.
   */
  libinjection(value: string | Buffer): { xss: boolean; sqli: boolean; fingerprint: string };
}

function findAddon(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'build', 'Release', 'flowgate.node');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('flowgate native addon not built: run `npm install` (or `npm run build`)');
}

const require = createRequire(import.meta.url);
export const addon: Addon = require(findAddon());
addon.setErrorClass(FlowgateError);
