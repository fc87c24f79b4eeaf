// Host endpoints: the active host list, one host's data in ntopng's v0
// (nested) and v1/v2 (flat, dotted) shapes, custom data, the interfaces a
// host is seen on, aliases.
import { BlockList, isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

import { categoryName, l7Id, l7Name, protocolInfo, type HostBrief, type HostRecord } from '../../bindings/engine.js';
import type { MonitoredInterface } from '../../services/interfaces.js';
import { narrowNetworks, normalizeCidr } from '../../services/cidr.js';
import { UNKNOWN_GEO, type GeoInfo } from '../../services/geo/index.js';
import { ApiError, RC } from '../rc.js';
import { lookup } from '../params.js';
import type { ApiCtx } from '../route.js';
import { RowStream, STREAM_ROWS } from '../stream.js';
import { dscpSlices } from './interfaces.js';
import { collapseStats, groupCategories, groupL7 } from './stats.js';
import { luaTable } from '../../services/lua-table.js';

/** `host` as ntopng takes it: an address, optionally `@vlan`. */
export function parseHost(s: string, vlan?: number): { ip: string; vlan: number } {
  const m = /^\s*\[?([0-9A-Fa-f:.]+?)\]?(?:@(\d{1,4}))?\s*$/.exec(s);
  if (!m || !isIP(m[1])) throw new ApiError(RC.INVALID_HOST, `'${s}' is not an IP address (optionally followed by @vlan)`);
  const v = m[2] !== undefined ? Number(m[2]) : (vlan ?? 0);
  if (v > 4095) throw new ApiError(RC.INVALID_HOST, `VLAN ${v} out of range`);
  return { ip: m[1], vlan: v };
}

export const hostKey = (ip: string, vlan: number) => (vlan ? `${ip}@${vlan}` : ip);

/** IpAddress::get_ip_hex: the address as upper-case hex, 8 digits (IPv4) or 32 (IPv6). */
export function ipHex(ip: string): string {
  const a = ipaddr.parse(ip);
  return Buffer.from(a.toByteArray()).toString('hex').toUpperCase();
}

/** ntopng's hostinfo2jqueryid: the key with its separators replaced. */
export const jqueryKey = (ip: string, vlan: number) => hostKey(ip, vlan).replace(/[.:@]/g, '__');

/** IPv4 as the unsigned integer ntopng calls ipkey; IPv6 has none (0). */
function ipKey(ip: string): number {
  if (isIP(ip) !== 4) return 0;
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

const blockLists = new WeakMap<string[], BlockList>();

/** Whether a host address lies inside one of the CIDRs (lists are cached per array). */
export function inNetworks(ip: string, nets: string[]): boolean {
  let bl = blockLists.get(nets);
  if (!bl) {
    bl = new BlockList();
    for (const n of nets) {
      const [addr, p] = n.split('/');
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      bl.addSubnet(addr, Number(p), type);
    }
    blockLists.set(nets, bl);
  }
  return bl.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** The host, or the spec's errors: not allowed -3, not active -1. */
export function findHost(ctx: ApiCtx, host: string | undefined, vlan?: number): HostRecord {
  if (!host) throw new ApiError(RC.INVALID_ARGUMENTS, 'missing host');
  const h = parseHost(host, vlan);
  if (ctx.allowed && !inNetworks(h.ip, ctx.allowed)) throw new ApiError(RC.NOT_GRANTED, `host ${h.ip} is outside the networks allowed to this user`);
  const rec = ctx.iface.engine.host(h.ip, h.vlan);
  if (!rec) throw new ApiError(RC.NOT_FOUND, `host ${hostKey(h.ip, h.vlan)} is not active on interface ${ctx.iface.ifid}`);
  return rec;
}

/** The location and AS of an address (looked up once per address: the geo cache). */
export function geoOf(ctx: ApiCtx, ip: string): GeoInfo {
  return ctx.deps.geo?.lookup(ip) ?? UNKNOWN_GEO;
}

export function aliasOf(ctx: ApiCtx, ip: string, vlan: number): string | undefined {
  return ctx.deps.store.db<string>('host_aliases').get(hostKey(ip, vlan));
}

const HOST_SORT: Record<string, 'ip' | 'name' | 'since' | 'last' | 'alerts' | 'country' | 'vlan' | 'num_flows' | 'traffic' | 'thpt' | 'score'> = {
  ip: 'ip', name: 'name', since: 'since', last: 'last', alerts: 'alerts', country: 'country', vlan: 'vlan',
  num_flows: 'num_flows', traffic: 'traffic', thpt: 'thpt', score: 'score',
};

export interface ActiveHostParams {
  currentPage?: number;
  perPage?: number;
  sortColumn?: string;
  sortOrder?: 'asc' | 'desc';
  all?: boolean;
  mode?: 'all' | 'local' | 'remote' | 'broadcast_domain' | 'filtered' | 'blacklisted' | 'dhcp';
  vlan?: number;
  /** a host pool id: its hosts only (ntopng's `pool`) */
  pool?: number;
  /** an address or CIDR: the hosts inside it only (ntopng's `network_cidr`) */
  network_cidr?: string;
}

/** get/host/active: a page of hosts sorted natively (only the page crosses). */
export function activeHosts(ctx: ApiCtx, p: ActiveHostParams) {
  const sortColumn = (p.sortColumn ?? '').replace(/^column_/, '');
  if (sortColumn && !lookup(HOST_SORT, sortColumn)) throw new ApiError(RC.INVALID_ARGUMENTS, `sortColumn '${p.sortColumn}' (one of ${Object.keys(HOST_SORT).join(', ')})`);
  const perPage = p.perPage ?? 10;
  const currentPage = p.currentPage ?? 1;
  if (perPage < 1 || currentPage < 1) throw new ApiError(RC.INVALID_ARGUMENTS, 'currentPage and perPage start at 1');
  const all = p.all === true;
  let allowed = ctx.allowed;
  if (p.network_cidr !== undefined) {
    const cidr = normalizeCidr(p.network_cidr);
    if (!cidr) throw new ApiError(RC.INVALID_ARGUMENTS, `network_cidr '${p.network_cidr}' is not an address or CIDR`);
    allowed = narrowNetworks(ctx.allowed, cidr);
  }
  const q = {
    sort: lookup(HOST_SORT, sortColumn) ?? 'ip',
    order: p.sortOrder ?? 'asc',
    offset: all ? 0 : (currentPage - 1) * perPage,
    limit: all ? 1 << 30 : perPage,
    mode: p.mode ?? 'all',
    vlan: p.vlan,
    pool: p.pool,
    allowed,
    brief: true,
  } as const;
  // all: ntopng's v2 answers the perPage it queried with (-1, every host), v1 sets 0 after its query
  const head = { perPage: all ? (ctx.version === 'v2' ? -1 : 0) : perPage, currentPage: all ? 0 : currentPage, totalRows: 0, data: [] as unknown[], sort: [[p.sortColumn ?? '', p.sortOrder ?? 'asc']] };
  if (allowed?.length === 0) return head; // network_cidr outside every network the user may see
  if (all || perPage > STREAM_ROWS) {
    const cur = ctx.iface.engine.hostsCursor(q);
    return RowStream.of({ ...head, totalRows: cur.total }, 'data', cur, (h) => activeHostRecord(ctx, h));
  }
  const page = ctx.iface.engine.hosts(q);
  return { ...head, totalRows: page.total, data: page.rows.map((h) => activeHostRecord(ctx, h)) };
}

function activeHostRecord(ctx: ApiCtx, h: HostBrief) {
  return {
    key: jqueryKey(h.ip, h.vlan),
    ip: h.ip,
    vlan: h.vlan,
    name: aliasOf(ctx, h.ip, h.vlan) ?? h.name ?? 0,
    first_seen: h.first_seen,
    last_seen: h.last_seen,
    os: 0,
    country: geoOf(ctx, h.ip).country,
    num_alerts: ctx.deps.alerts?.hostAlerts(ctx.iface.ifid, h.ip, h.vlan).engaged ?? 0,
    is_blacklisted: h.is_blacklisted,
    is_localhost: h.localhost,
    is_multicast: h.is_multicast,
    is_broadcast: h.is_broadcast,
    is_broadcast_domain: h.broadcast_domain_host,
    thpt: { pps: h.throughput_pps, bps: h.throughput_bps },
    bytes: { total: h.bytes_sent + h.bytes_rcvd, sent: h.bytes_sent, recvd: h.bytes_rcvd },
    num_flows: {
      total: h.active_flows_as_client + h.active_flows_as_server,
      as_client: h.active_flows_as_client,
      as_server: h.active_flows_as_server,
    },
    // v2 only (rest/v2/get/host/active.lua)
    ...(ctx.version === 'v2' ? { score: { total: h.score_as_client + h.score_as_server, as_client: h.score_as_client, as_server: h.score_as_server } } : {}),
  };
}

const fam = ['tcp', 'udp', 'icmp', 'other_ip'] as const;

type UsedPortsIn = NonNullable<HostRecord['used_ports']>;
function usedPorts(list: UsedPortsIn) {
  const side = (server: boolean) => {
    const rows = list.filter((x) => x.server === server).sort((a, b) => Number(b.tcp) - Number(a.tcp));
    return rows.length ? Object.fromEntries(rows.map((x) => [`${x.tcp ? 'tcp' : 'udp'}:${x.port}`, l7Name(x.master, x.app)])) : [];
  };
  return { local_server_ports: side(true), remote_contacted_ports: side(false) };
}

/** v1/v2 host data: ntopng's flat object with dotted names. */
export function hostDataFlat(ctx: ApiCtx, h: HostRecord, iface: MonitoredInterface = ctx.iface): Record<string, unknown> {
  const alias = aliasOf(ctx, h.ip, h.vlan);
  const systemHost = iface.addresses.some((a) => a.split('/')[0] === h.ip);
  const o: Record<string, unknown> = {
    ip: h.ip,
    vlan: h.vlan,
    ifid: iface.ifid,
    name: alias ?? h.name ?? '',
    // ntopng's names table: by source; an empty Lua table encodes as []
    names: h.name && h.name_source ? { [h.name_source]: h.name } : [],
    mac: h.mac ?? '00:00:00:00:00:00',
    tskey: hostKey(h.ip, h.vlan),
    ipkey: ipKey(h.ip),
    // IpAddress::get_ip_hex, Host::lua_get_ip
    iphex: ipHex(h.ip),
    ip_version: h.ip.includes(':') ? 6 : 4,
    observation_point_id: 0,
    localhost: h.localhost,
    systemhost: systemHost,
    privatehost: h.privatehost,
    is_broadcast: h.is_broadcast,
    is_multicast: h.is_multicast,
    broadcast_domain_host: h.broadcast_domain_host,
    dhcpHost: h.name_source === 'dhcp',
    crawlerBotScannerHost: h.crawler_bot,
    is_blacklisted: h.is_blacklisted,
    // Host::lua_get_min_info: the servers it was seen to be, as 1 << HOST_IS_*_SERVER
    host_services_bitmap: servicesBitmap(h.services ?? 0),
    // ntopng's LocalHost serialization by MAC (a preference flowgate does not have): never
    serialize_by_mac: false,
    childSafe: false,
    hiddenFromTop: false,
    drop_all_host_traffic: false,
    has_blocking_shaper: false,
    has_blocking_quota: false,
    // Host::lua / lua_get_geoloc ('' and 0 for private addresses and without a database)
    ...geoOf(ctx, h.ip),
    os: 0,
    os_detail: '',
    devtype: h.devtype,
    host_pool_id: h.host_pool_id,
    // Host::lua_get_host_pool: what matched the pool (flowgate's pools hold addresses and networks, not MACs)
    host_pool_match: 'ip',
    // the shares of its active flows' alert scores (Score::lua_get_score)
    score: h.score_as_client + h.score_as_server,
    'score.as_client': h.score_as_client,
    'score.as_server': h.score_as_server,
    'seen.first': h.first_seen,
    'seen.last': h.last_seen,
    duration: h.duration,
    total_activity_time: h.duration,
    'bytes.sent': h.bytes_sent,
    'bytes.rcvd': h.bytes_rcvd,
    'packets.sent': h.packets_sent,
    'packets.rcvd': h.packets_rcvd,
    // bytes per second, as ntopng's (GenericTrafficElement's ThroughputStats); the host list's thpt.bps is bits
    throughput_bps: h.throughput_bps / 8,
    throughput_pps: h.throughput_pps,
    throughput_trend_bps: h.throughput_trend_bps,
    throughput_trend_pps: h.throughput_trend_pps,
    'flows.as_client': h.active_flows_as_client,
    'flows.as_server': h.active_flows_as_server,
    'active_flows.as_client': h.active_flows_as_client,
    'active_flows.as_server': h.active_flows_as_server,
    'total_flows.as_client': h.total_flows_as_client,
    'total_flows.as_server': h.total_flows_as_server,
    'unreachable_flows.as_client': h.unreachable_flows_as_client,
    'unreachable_flows.as_server': h.unreachable_flows_as_server,
    'host_unreachable_flows.as_client': h.host_unreachable_flows_as_client,
    'host_unreachable_flows.as_server': h.host_unreachable_flows_as_server,
    // Host::lua: engaged alerts now, alerts raised since the host was seen (alert service)
    num_alerts: ctx.deps.alerts?.hostAlerts(ctx.iface.ifid, h.ip, h.vlan).engaged ?? 0,
    // HostStats::total_alerts: host alerts raised, plus each flow that became alerted with it (Flow::setNormalToAlertedCounters)
    total_alerts: (ctx.deps.alerts?.hostAlerts(ctx.iface.ifid, h.ip, h.vlan).total ?? 0) + h.alerted_flows_as_client + h.alerted_flows_as_server,
    // HostStats::num_flow_alerts: ntopng declares it and never counts it
    num_flow_alerts: 0,
    active_alerted_flows: h.active_alerted_flows,
    'alerted_flows.as_client': h.alerted_flows_as_client,
    'alerted_flows.as_server': h.alerted_flows_as_server,
    num_triggered_alerts: { min: 0, '5mins': 0, hour: 0, day: 0 },
    'tcpPacketStats.sent': h.tcpPacketStats.sent,
    'tcpPacketStats.rcvd': h.tcpPacketStats.rcvd,
    'pktStats.sent': h.pktStats.sent,
    'pktStats.recv': h.pktStats.recv,
    'udpBytesSent.unicast': h.udpBytesSent.unicast,
    'udpBytesSent.non_unicast': h.udpBytesSent.non_unicast,
    'tcp.packets.seq_problems':
      h.tcpPacketStats.sent.retransmissions + h.tcpPacketStats.sent.out_of_order + h.tcpPacketStats.sent.lost +
        h.tcpPacketStats.rcvd.retransmissions + h.tcpPacketStats.rcvd.out_of_order + h.tcpPacketStats.rcvd.lost > 0,
    // Host::lua: nDPI's ndpi_data_ratio, (sent − received) / (sent + received), 0 when idle
    // (ntopng passes u32 counts: the packet truth here is the 64-bit count)
    bytes_ratio: dataRatio(h.bytes_sent, h.bytes_rcvd),
    pkts_ratio: dataRatio(h.packets_sent, h.packets_rcvd),
    // Host::isRxOnlyHost: a unicast host that has never sent a packet
    is_rx_only: h.packets_sent === 0 && !h.is_broadcast && !h.is_multicast,
  };
  if (h.no_tx_peers_as_client !== undefined) {
    // Host::lua: the no-TX estimators and the one-way TCP/UDP flows ended (Flow::~Flow)
    o.num_contacted_peers_with_tcp_udp_flows_no_response = h.no_tx_peers_as_client;
    o.num_incoming_peers_that_sent_tcp_udp_flows_no_response = h.no_tx_peers_as_server;
    o.num_unidirectional_tcp_flows = { num_ingress: h.oneway_flows_as_server, num_egress: h.oneway_flows_as_client };
  }
  // Host::lua_blacklisted_flows, from LocalHost::lua (local hosts): flows with a blacklisted
  // peer; nothing resets the counters here, so the since-reset pair equals the totals
  if (h.localhost && h.blacklisted_flows_as_client !== undefined) {
    const c = h.blacklisted_flows_as_client, sv = h.blacklisted_flows_as_server ?? 0;
    o.num_blacklisted_flows = { as_client: c, as_server: sv, tot_as_client: c, tot_as_server: sv };
  }
  // LocalHost::lua_contacts_stats (local hosts)
  if (h.server_contacts) o.server_contacts = h.server_contacts;
  // LocalHostStats::lua (details): distinct peers and service names over the host's life
  if (h.cardinality) o.cardinality = h.cardinality;
  // Host::lua_get_bins (ntopng 4.0, host details): per role, each range's share of the gaps
  // between new flows ('frequency') and of ended flows' durations, as 32-bit float quotients
  if (h.flow_bins) {
    const role = ([freq, dur]: [number[], number[]]) => ({ frequency: binShares(freq), duration: binShares(dur) });
    o.bins = { client: role(h.flow_bins[0]), server: role(h.flow_bins[1]) };
  }
  // LocalHostStats::luaICMP: "type,code" → packets sent / received and the last peer each way,
  // under ICMPv4 or ICMPv6 after the host's address (present once it sent or received ICMP)
  if (h.icmp_stats)
    o[h.ip.includes(':') ? 'ICMPv6' : 'ICMPv4'] = Object.fromEntries(
      h.icmp_stats.map((x) => [`${x.type},${x.code}`, { sent: x.sent, ...(x.last_host_sent_peer ? { last_host_sent_peer: x.last_host_sent_peer } : {}), rcvd: x.rcvd, ...(x.last_host_rcvd_peer ? { last_host_rcvd_peer: x.last_host_rcvd_peer } : {}) }]),
    );
  // LocalHost::lua → UsedPorts::lua (local hosts): "tcp:80" → the application of the last flow
  // on the port, TCP ports first (an empty Lua table encodes as [])
  if (h.localhost) o.used_ports = usedPorts(h.used_ports ?? []);
  // HostStats::luaHostBehaviour (every host): DES bounds of the score and the active flows, and
  // MonitoredCounter's anomaly indexes of the traffic
  if (h.behaviour) {
    const d = h.behaviour.des;
    const one = (x: (typeof d)[number]) => ({ anomaly: x.anomaly, value: x.value, lower_bound: x.lower_bound, upper_bound: x.upper_bound });
    o.score_behaviour = { as_client: one(d[0]), as_server: one(d[1]), tot_num_anomalies: d[0].tot_num_anomalies + d[1].tot_num_anomalies };
    o.active_flows_behaviour = { as_client: one(d[2]), as_server: one(d[3]), tot_num_anomalies: d[2].tot_num_anomalies + d[3].tot_num_anomalies };
    // LocalHostStats::luaHostBehaviour: the names visited so far in this window, the last window's bounds
    if (h.localhost) o.contacted_hosts_behaviour = { value: h.behaviour.visited_now, anomaly: d[4].anomaly, lower_bound: d[4].lower_bound, upper_bound: d[4].upper_bound };
    const x = h.behaviour.anomaly_index;
    Object.assign(o, { 'bytes.sent.anomaly_index': x[0], 'bytes.rcvd.anomaly_index': x[1], 'packets.sent.anomaly_index': x[2], 'packets.rcvd.anomaly_index': x[3] });
    // L4Stats::lua: the families' bytes
    fam.forEach((f, i) => Object.assign(o, { [`${f}.bytes.sent.anomaly_index`]: x[4 + 2 * i], [`${f}.bytes.rcvd.anomaly_index`]: x[5 + 2 * i] }));
  }
  // Score::lua_get_score_breakdown: each score category's share of the score as client / as
  // server, once the host was ever scored (ntopng allocates its ScoreStats at the first increment)
  if (h.alerted_flows_as_client + h.alerted_flows_as_server > 0) {
    const pct = ([net, sec]: [number, number]) => {
      const t = net + sec || 1;
      return { 0: (net * 100) / t, 1: (sec * 100) / t };
    };
    o.score_pct = { score_breakdown_client: pct(h.score_breakdown.as_client), score_breakdown_server: pct(h.score_breakdown.as_server) };
  }
  // Host::lua_get_services: present only for a host seen serving one of them
  if (h.services) o.services = Object.fromEntries(SERVICE_BITS.filter(([, bit]) => h.services! & bit).map(([name]) => [name, true]));
  Object.assign(o, hostNdpi(h));
  for (const f of fam) {
    o[`${f}.bytes.sent`] = h[f].bytes_sent;
    o[`${f}.bytes.rcvd`] = h[f].bytes_rcvd;
    o[`${f}.packets.sent`] = h[f].packets_sent;
    o[`${f}.packets.rcvd`] = h[f].packets_rcvd;
  }
  // LocalHost::lua: its asset key (ASSET_SERVICE_KEY "ntopng.asset.<ifid>.<host key>", the host
  // key as get_hostkey: the address, @VLAN when tagged), its local network's index and CIDR (the
  // name absent when none)
  if (h.localhost) {
    o.asset_key = `ntopng.asset.${iface.ifid}.${h.ip}${h.vlan ? `@${h.vlan}` : ''}`;
    o.local_network_id = h.local_network_id;
    const net = iface.engine.localNetworks[h.local_network_id];
    if (net !== undefined) o.local_network_name = net;
  }
  return o;
}

/** nDPI's ndpi_data_ratio */
const dataRatio = (sent: number, rcvd: number) => (sent + rcvd === 0 ? 0 : (sent - rcvd) / (sent + rcvd));

/** the engine's HostService bits (native/src/flow/host_contacts.h), in Host::lua_get_services' order */
// with ntopng's HOST_IS_*_SERVER number of each (ntop_defines.h)
const SERVICE_BITS: [name: string, bit: number, ntopng: number][] = [['dhcp', 1, 1], ['dns', 2, 2], ['smtp', 4, 4], ['pop', 32, 6], ['imap', 16, 5], ['ntp', 8, 3]];
const servicesBitmap = (bits: number) => SERVICE_BITS.reduce((m, [, bit, n]) => (bits & bit ? m | (1 << n) : m), 0);

/**
 * v1/v2 data of one host: its flat record, what its active flows tell and,
 * for a local host, its DNS and HTTP counts (Host::lua's luaDNS / LocalHostStats' luaHTTP).
 */
export function hostDataOne(ctx: ApiCtx, h: HostRecord): Record<string, unknown> {
  // one copy of the host's active flows for both readings of them
  const flows = hostFlows(ctx, h);
  return { ...hostDataFlat(ctx, h), ...hostFlowFacts(ctx, h, flows), ...(h.localhost ? hostDnsHttp(ctx, h, flows) : {}) };
}

/** Every active flow of the host, oldest first. */
const hostFlows = (ctx: ApiCtx, h: HostRecord) =>
  ctx.iface.engine.flows({ host: h.ip, hostVlan: h.vlan, limit: 1 << 30, sort: 'serial', order: 'asc' });

const BIN_LABELS = ['<= 1', '<= 3', '<= 5', '<= 10', '<= 30', '<= 60', '<= 300', '> 300'];
/** Bin::lua: each range's count over the total (1 when empty), computed in float as ntopng does. */
function binShares(counts: number[]): Record<string, number> {
  const total = Math.fround(counts.reduce((a, c) => a + c, 0) || 1);
  return Object.fromEntries(BIN_LABELS.map((l, i) => [l, Math.fround(Math.fround(counts[i] ?? 0) / total)]));
}

/**
 * What the host's active flows tell, in one pass over them: the JA3 and
 * HASSH client fingerprints it announced with their use counts and the
 * application seen with them, its distinct peers as client and as server
 * (ntopng's active contacts), and the HTTP virtual hosts (names, not
 * address literals) it serves (active_http_hosts). An empty Lua table encodes as [].
 */
export function hostFlowFacts(ctx: ApiCtx, h: HostRecord, flows: ReturnType<typeof hostFlows>) {
  const ja3: Record<string, { num_uses: number; app_name: string }> = {};
  const hassh: Record<string, { num_uses: number; app_name: string }> = {};
  const peersAsClient = new Set<string>(), peersAsServer = new Set<string>(), httpHosts = new Set<string>();
  const HTTP = l7Id('HTTP');
  for (const f of flows.rows) {
    // a host talking to itself is both ends
    if (f.server.ip === h.ip) {
      peersAsServer.add(f.client.ip);
      const vhost = f.l7_master === HTTP || f.l7_app === HTTP ? f.host_name : '';
      if (vhost && !isIP(vhost)) httpHosts.add(vhost.toLowerCase());
    }
    if (f.client.ip !== h.ip) continue;
    peersAsClient.add(f.server.ip);
    const app = l7Name(f.l7_master, f.l7_app);
    const add = (m: typeof ja3, k: string | undefined) => {
      if (!k) return;
      const e = (m[k] ??= { num_uses: 0, app_name: app });
      e.num_uses++;
    };
    add(ja3, f.tls?.ja3);
    add(hassh, f.ssh?.hassh_client);
  }
  const orEmpty = (m: object) => (Object.keys(m).length ? m : []);
  return {
    ja3_fingerprint: orEmpty(ja3),
    hassh_fingerprint: orEmpty(hassh),
    'contacts.as_client': peersAsClient.size,
    'contacts.as_server': peersAsServer.size,
    active_http_hosts: httpHosts.size,
  };
}

/** ntopng's per-host `ndpi` and `ndpi_categories` tables (v1/v2 shape). */
export function hostNdpi(h: HostRecord) {
  const ndpi: Record<string, Record<string, number | string>> = {};
  let unknown = 0;
  for (const a of h.ndpi ?? []) {
    const name = protocolInfo(a.id)?.name ?? 'Unknown';
    if (a.id === 0) unknown += a.bytes_sent + a.bytes_rcvd;
    ndpi[name] = {
      'bytes.sent': a.bytes_sent,
      'bytes.rcvd': a.bytes_rcvd,
      'packets.sent': a.packets_sent,
      'packets.rcvd': a.packets_rcvd,
      num_flows: a.num_flows,
      duration: a.duration,
      breed: protocolInfo(a.id)?.breed ?? 'Unrated',
    };
  }
  const cats: Record<string, Record<string, number>> = {};
  for (const c of h.ndpi_categories ?? []) {
    cats[categoryName(c.id)] = {
      bytes: c.bytes_sent + c.bytes_rcvd,
      'bytes.sent': c.bytes_sent,
      'bytes.rcvd': c.bytes_rcvd,
      category: c.id,
      duration: c.duration,
    };
  }
  return { ndpi, ndpi_categories: cats, 'bytes.ndpi.unknown': unknown };
}

export interface HostL7Params {
  host?: string;
  vlan?: number;
  breed?: boolean;
  ndpi_category?: boolean;
  collapse_stats?: boolean;
}

/** get/host/l7/stats: the host's bytes per application (or breed, or category), with durations. */
export function hostL7(ctx: ApiCtx, p: HostL7Params) {
  const h = findHost(ctx, p.host, p.vlan);
  const apps = (h.ndpi ?? []).map((a) => ({ id: a.id, bytes: a.bytes_sent + a.bytes_rcvd }));
  const by = p.breed ? 'breed' : p.ndpi_category ? 'category' : 'app';
  const dur = new Map<string, number>();
  if (by === 'app') {
    const { ndpi } = hostNdpi(h);
    for (const [k, v] of Object.entries(ndpi)) dur.set(k, v.duration as number);
  }
  const groups = by === 'category' ? groupCategories((h.ndpi_categories ?? []).map((c) => ({ id: c.id, bytes: c.bytes_sent + c.bytes_rcvd }))) : groupL7(apps, by);
  const list = groups.map((x) => ({ ...x, duration: dur.get(x.label) ?? 0 }));
  return p.collapse_stats === false ? list : collapseStats(list, 1, 3);
}

/** get/host/dscp/stats: packets per DSCP precedence class the host sent or received (default received). */
export function hostDscp(ctx: ApiCtx, p: { host?: string; vlan?: number; direction?: string }) {
  const dir = p.direction ?? 'recvd';
  if (!['sent', 'recvd', 'recv', 'rcvd'].includes(dir)) throw new ApiError(RC.INVALID_ARGUMENTS, "direction must be 'sent' or 'recvd'");
  const h = findHost(ctx, p.host, p.vlan);
  // per precedence class that carried bytes either way (a class may show 0 in the asked direction, as ntopng's)
  const rows = (h.dscp ?? []).map((d) => ({ ...d, bytes: d.bytes_sent + d.bytes_rcvd }));
  return collapseStats(dscpSlices(rows, (d) => (dir === 'sent' ? d.packets_sent : d.packets_rcvd)), 1);
}

/** v0 host data: the older nested object. */
export function hostDataV0(ctx: ApiCtx, h: HostRecord): Record<string, unknown> {
  const flat = hostDataFlat(ctx, h);
  const t = (f: (typeof fam)[number]) => ({ packets: h[f].packets_sent, bytes: h[f].bytes_sent });
  const r = (f: (typeof fam)[number]) => ({ packets: h[f].packets_rcvd, bytes: h[f].bytes_rcvd });
  return {
    ip: { ipVersion: h.ip_version, localHost: h.localhost, ip: h.ip },
    mac_address: flat.mac,
    symbolic_name: flat.name,
    localHost: h.localhost,
    systemHost: flat.systemhost,
    asn: flat.asn,
    is_blacklisted: h.is_blacklisted,
    num_alerts: ctx.deps.alerts?.hostAlerts(ctx.iface.ifid, h.ip, h.vlan).engaged ?? 0,
    'seen.first': h.first_seen,
    'seen.last': h.last_seen,
    sent: { packets: h.packets_sent, bytes: h.bytes_sent },
    rcvd: { packets: h.packets_rcvd, bytes: h.bytes_rcvd },
    tcp_sent: t('tcp'),
    tcp_rcvd: r('tcp'),
    udp_sent: t('udp'),
    udp_rcvd: r('udp'),
    icmp_sent: t('icmp'),
    icmp_rcvd: r('icmp'),
    other_ip_sent: t('other_ip'),
    other_ip_rcvd: r('other_ip'),
    'pktStats.sent': h.pktStats.sent,
    'pktStats.recv': h.pktStats.recv,
    ndpiStats: ndpiStatsV0(h),
    // bytes per second, as ntopng's (GenericTrafficElement's ThroughputStats); the host list's thpt.bps is bits
    throughput_bps: h.throughput_bps / 8,
    throughput_pps: h.throughput_pps,
    throughput_trend_bps: h.throughput_trend_bps,
    throughput_trend_pps: h.throughput_trend_pps,
    'flows.as_client': h.active_flows_as_client,
    'flows.as_server': h.active_flows_as_server,
    total_activity_time: h.duration,
    ifid: ctx.iface.ifid,
    // ntopng keeps DNS and HTTP statistics for local hosts only
    ...(h.localhost ? hostDnsHttp(ctx, h) : {}),
  };
}

const DNS_TYPES: Record<number, string> = { 1: 'num_a', 2: 'num_ns', 5: 'num_cname', 6: 'num_soa', 12: 'num_ptr', 15: 'num_mx', 16: 'num_txt', 28: 'num_aaaa', 255: 'num_any' };
const HTTP_METHODS: Record<string, string> = { GET: 'num_get', POST: 'num_post', HEAD: 'num_head', PUT: 'num_put' };

/**
 * The `dns` and `http` objects of local hosts (ntopng's DnsStats and HTTPstats; v0 nested, v1/v2 alike), counted
 * over the host's active flows: each DNS flow's query (not LLMNR / mDNS) (and its answer when
 * one was seen), each HTTP flow's first request and response. `sent` /
 * `sender` is what this host sent: queries as client, replies as server.
 */
export function hostDnsHttp(ctx: ApiCtx, h: HostRecord, flows = hostFlows(ctx, h)) {
  const dnsSide = () => ({
    num_queries: 0, num_replies_ok: 0, num_replies_error: 0,
    queries: { num_a: 0, num_ns: 0, num_cname: 0, num_soa: 0, num_ptr: 0, num_mx: 0, num_txt: 0, num_aaaa: 0, num_any: 0, num_other: 0 } as Record<string, number>,
  });
  const httpSide = () => ({
    query: { total: 0, num_get: 0, num_post: 0, num_head: 0, num_put: 0, num_other: 0 } as Record<string, number>,
    response: { total: 0, num_1xx: 0, num_2xx: 0, num_3xx: 0, num_4xx: 0, num_5xx: 0 } as Record<string, number>,
  });
  const dns = { sent: dnsSide(), rcvd: dnsSide() };
  const http = { sender: httpSide(), receiver: httpSide() };
  const DNS = l7Id('DNS');
  for (const f of flows.rows) {
    for (const asClient of [true, false]) {
      if ((asClient ? f.client.ip : f.server.ip) !== h.ip) continue;
      if (f.dns && (f.l7_master === DNS || f.l7_app === DNS)) {
        const [q, r] = asClient ? [dns.sent, dns.rcvd] : [dns.rcvd, dns.sent];
        q.num_queries++;
        q.queries[DNS_TYPES[f.dns.query_type] ?? 'num_other']++;
        if (f.dns.rcode !== undefined) r[f.dns.rcode === 0 ? 'num_replies_ok' : 'num_replies_error']++;
      }
      if (f.http?.method) {
        const [q, r] = asClient ? [http.sender, http.receiver] : [http.receiver, http.sender];
        q.query.total++;
        q.query[HTTP_METHODS[f.http.method] ?? 'num_other']++;
        const cls = Math.floor((f.http.status ?? 0) / 100);
        if (cls >= 1 && cls <= 5) r.response.total++, r.response[`num_${cls}xx`]++;
      }
    }
  }
  return { dns, http };
}

/** v0's ndpiStats: per protocol {bytes{sent,rcvd}, packets{sent,rcvd}, duration}, plus categories. */
function ndpiStatsV0(h: HostRecord) {
  const { ndpi, ndpi_categories } = hostNdpi(h);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ndpi)) {
    out[k] = {
      bytes: { sent: v['bytes.sent'], rcvd: v['bytes.rcvd'] },
      packets: { sent: v['packets.sent'], rcvd: v['packets.rcvd'] },
      duration: v.duration,
      breed: v.breed,
    };
  }
  out.categories = Object.fromEntries(
    Object.entries(ndpi_categories).map(([k, v]) => [k, { bytes: v.bytes, category: v.category, duration: v.duration }]),
  );
  return out;
}

/**
 * field_alias = "f1,f2=alias2,…": the listed fields of the flat host data,
 * keyed by their alias when one is given; all fields when absent or `all`.
 */
export function selectFields(data: Record<string, unknown>, fieldAlias: string | undefined): Record<string, unknown> | [] {
  if (!fieldAlias || !fieldAlias.trim() || fieldAlias.trim() === 'all') return data;
  const out: Record<string, unknown> = {};
  for (const part of fieldAlias.split(',')) {
    const [field, alias] = part.split('=').map((s) => s.trim());
    if (!field) continue;
    if (Object.hasOwn(data, field)) out[alias || field] = data[field];
  }
  // no field matched: ntopng's empty Lua table
  return luaTable(out);
}

/** The interfaces on which a host is active (that the user may see). */
export function hostInterfaces(ctx: ApiCtx, host: string) {
  const h = parseHost(host);
  if (ctx.allowed && !inNetworks(h.ip, ctx.allowed)) throw new ApiError(RC.NOT_GRANTED, `host ${h.ip} is outside the networks allowed to this user`);
  const list = ctx.deps.interfaces.list
    .filter((i) => !ctx.user.allowed_interface || ctx.user.allowed_interface === i.ifname)
    .filter((i) => i.engine.host(h.ip, h.vlan))
    .map((i) => ({ ifid: i.ifid }));
  return { [host]: list };
}
