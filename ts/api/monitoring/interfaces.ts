// Interface endpoints: data, addresses, broadcast domains, DSCP and L7
// statistics, the list of monitored interfaces.
import { readFileSync } from 'node:fs';

import { z } from 'zod';

import { l7Id, l7Name, type EngineStats, type RecorderStats } from '../../bindings/engine.js';
import { isGhostNetwork } from '../../services/checks/interface-checks.js';
import type { MonitoredInterface } from '../../services/interfaces.js';
import { periodicActivities } from '../../services/periodic.js';
import { CHART_STEP_SECS } from '../../services/rates.js';
import { recordingStatus } from '../../services/recording/index.js';
import { secondsToTime } from '../../services/time-format.js';
import { dscpClass } from '../../services/timeseries/schemas.js';
import type { ApiCtx } from '../route.js';
import { collapseStats, groupCategories, groupL7, pieData, type Slice } from './stats.js';
import { ApiError, RC } from '../rc.js';


/** "17:14:42 +0200", as strftime("%H:%M:%S %z"). */
export function localTime(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${sign}${p(Math.floor(Math.abs(off) / 60))}${p(Math.abs(off) % 60)}`;
}

/** Link speed in Mbit/s from sysfs (0 when unknown, e.g. a capture file). */
function linkSpeed(i: MonitoredInterface): number {
  if (i.isFile) return 0;
  try {
    const v = Number(readFileSync(`/sys/class/net/${i.ifname}/speed`, 'utf8').trim());
    return Number.isFinite(v) && v > 0 ? v : 0;
  } catch {
    return 0;
  }
}

/** ntopng's table fill: `math.floor(1 + n * 100 / max)` (rounded up, at least 1) */
const pct = (n: number, max: number) => (max > 0 ? Math.floor(1 + (n * 100) / max) : 0);

const num = z.number();
const trend = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const rate = z.object({ bps: num, pps: num, bps_trend: trend, pps_trend: trend });
const sysFields = {
  mem_total: num, mem_used: num, mem_free: num, mem_cached: num, mem_buffers: num, mem_shmem: num, mem_sreclaimable: num,
  mem_ntopng_resident: num, mem_ntopng_virtual: num, cpu_load: num, cpu_states: z.record(z.string(), num),
  dropped_alerts: num, alerts_queries: num, written_alerts: num,
};
const tcpPacketStats = z.object({ retransmissions: num, out_of_order: num, lost: num });

/** get/interface/data v2 (the form the data is built in). */
export const InterfaceDataV2 = z.object({
  ifid: z.string(), ifname: z.string(), uptime: z.string(), localtime: z.string(), epoch: num, speed: num, is_view: z.boolean(),
  num_hosts: num, num_local_hosts: num, num_rcvd_only_hosts: num, num_local_rcvd_only_hosts: num, num_local_hosts_anomalies: num, num_remote_hosts_anomalies: num, num_devices: num, num_flows: num, hosts_pctg: num, flows_pctg: num, macs_pctg: num,
  bytes: num, packets: num, bytes_upload: num, bytes_download: num, packets_upload: num, packets_download: num,
  bytes_upload_since_reset: num, bytes_download_since_reset: num, packets_upload_since_reset: num, packets_download_since_reset: num,
  local2remote: num, remote2local: num, throughput_bps: num, throughput_pps: num,
  throughput: z.object({ upload: rate, download: rate }), remote_bps: num, remote_pps: num, drops: num,
  refused: z.object({ flows: num, hosts: num, macs: num, host_l7: num, host_contacts: num, host_side: num, flow_info: num, flow_meta: num, flow_score: num, flow_iec: num }), workers: num, tcpPacketStats,
  recording: z.object({ enabled: z.boolean(), packets: num, bytes: num, drops: num, write_errors: num, files: num, files_deleted: num, disk_bytes: num, extractions_running: num }),
  has_alerts: z.boolean(), alerted_flows: num, alerted_flows_notice: num, alerted_flows_warning: num, alerted_flows_error: num, engaged_alerts: num,
  engaged_alerts_notice: num, engaged_alerts_warning: num, engaged_alerts_error: num,
  dropped_alerts: num, host_dropped_alerts: num, flow_dropped_alerts: num, other_dropped_alerts: num, ts_alerts: z.array(z.unknown()),
  num_live_captures: num, profiles: z.record(z.string(), num), periodic_stats_update_frequency_secs: num,
  system_host_stats: z.object(sysFields),
  db: z.object({ flow_export_count: num, flow_export_drops: num, flow_export_rate: num }),
  // present only when so, as ntopng sends them
  degraded_performance: z.literal(true).optional(),
  traffic_recording: z.enum(['recording', 'failed']).optional(),
  traffic_extraction: num.optional(),
  traffic_extraction_num_tasks: num.optional(),
  download_upload_chart: z.object({ download: z.array(num), upload: z.array(num) }),
  tot_nprobe_pkts: num, tot_pkt_drops: num, active_discovery_active: z.boolean(),
});
/** fields of the current v2 script that ntopng's v1 did not have */
const V2_ONLY = {
  num_rcvd_only_hosts: true, num_local_rcvd_only_hosts: true, num_local_hosts_anomalies: true, num_remote_hosts_anomalies: true, bytes_upload_since_reset: true, bytes_download_since_reset: true,
  packets_upload_since_reset: true, packets_download_since_reset: true, engaged_alerts_notice: true, engaged_alerts_warning: true,
  engaged_alerts_error: true, host_dropped_alerts: true, flow_dropped_alerts: true, other_dropped_alerts: true,
  download_upload_chart: true, tot_nprobe_pkts: true, tot_pkt_drops: true, active_discovery_active: true,
} as const;
/** v1: the export counters at the top level. */
export const InterfaceDataV1 = InterfaceDataV2.omit({ db: true, alerted_flows_notice: true, alerted_flows_warning: true, alerted_flows_error: true, ...V2_ONLY }).extend(
  InterfaceDataV2.shape.db.shape,
);
/** v0: ntopng's older field set. */
export const InterfaceDataV0 = z.object({
  ifname: z.string(), num_flows: num, num_hosts: num, num_local_hosts: num, num_devices: num, uptime: z.string(),
  alerts_stored: z.boolean(), engaged_alerts: num, num_live_captures: num, flows_pctg: num, hosts_pctg: num, tcpPacketStats,
  bytes: num, packets: num, bytes_download: num, bytes_upload: num, remote_pps: num, remote_bps: num, epoch: num,
  localtime: z.string(), drops: num, remote2local: num, local2remote: num, is_view: z.boolean(), speed: num,
  profiles: z.array(z.string()), system_host_stats: z.object({ cpu_idle: num, ...sysFields }),
});
type IfData = z.infer<typeof InterfaceDataV2>;

/** What get/interface/data knows, before the per-version shapes. */
export function interfaceData(ctx: ApiCtx): IfData {
  const i = ctx.iface;
  const s: EngineStats = i.engine.stats();
  const rates = ctx.deps.rates.get(i.ifid);
  const sys = ctx.deps.system.read();
  const alertCounters = ctx.deps.alerts?.counters(i.ifid) ?? {
    engaged: 0, written: 0, dropped: 0, droppedBy: { host: 0, other: 0 }, engagedBySeverity: { notice: 0, warning: 0, error: 0 },
  };
  const flowAlertDrops = ctx.deps.flowExport?.flowAlertDrops(i.ifid) ?? 0;
  const recorder = i.engine.recorderStats(), running = ctx.deps.extractions?.running ?? 0;
  return {
    ifid: String(i.ifid),
    ifname: i.ifname,
    uptime: secondsToTime((Date.now() - ctx.deps.startedAt) / 1000),
    localtime: localTime(),
    epoch: Math.floor(Date.now() / 1000),
    speed: linkSpeed(i),
    is_view: false,
    num_hosts: s.num_hosts,
    num_local_hosts: s.num_local_hosts,
    // unicast hosts that have only received so far (NetworkInterface's numTotalRxOnlyHosts, numLocalRxOnlyHosts)
    num_rcvd_only_hosts: s.num_rcvd_only_hosts,
    num_local_rcvd_only_hosts: s.num_local_rcvd_only_hosts,
    // the behavioural anomalies the hosts' score and active-flow counters found (HostStats::updateStats → incHostAnomalies)
    num_local_hosts_anomalies: s.num_local_hosts_anomalies,
    num_remote_hosts_anomalies: s.num_remote_hosts_anomalies,
    num_devices: s.num_devices,
    num_flows: s.num_flows,
    hosts_pctg: pct(s.num_hosts, s.max_hosts),
    flows_pctg: pct(s.num_flows, s.max_flows),
    // ntopng divides the MACs by its host limit too
    macs_pctg: pct(s.num_devices, s.max_hosts),
    bytes: s.bytes,
    packets: s.packets,
    bytes_upload: s.bytes_upload,
    bytes_download: s.bytes_download,
    packets_upload: s.packets_upload,
    packets_download: s.packets_download,
    // nothing resets the counters here (ntopng's reset-stats action is not served): since start
    bytes_upload_since_reset: s.bytes_upload,
    bytes_download_since_reset: s.bytes_download,
    packets_upload_since_reset: s.packets_upload,
    packets_download_since_reset: s.packets_download,
    local2remote: s.local2remote,
    remote2local: s.remote2local,
    // ntopng's ThroughputStats over byte counters: bytes per second, despite the name (its pages multiply by 8)
    throughput_bps: s.throughput_bps / 8,
    throughput_pps: s.throughput_pps,
    throughput: rates,
    // Rates reported by a remote probe (ntopng's ZMQ interfaces); a packet
    // interface has none.
    remote_bps: 0,
    remote_pps: 0,
    drops: s.drops,
    // state the engine's full tables and pools refused since start (flowgate's own: ntopng shows none)
    refused: { flows: s.flow_table_full, hosts: s.host_table_full, macs: s.mac_table_full, host_l7: s.host_l7_pool_full, host_contacts: s.host_contacts_full, host_side: s.host_side_full, flow_info: s.flow_info_full, flow_meta: s.flow_meta_full, flow_score: s.flow_score_full, flow_iec: s.flow_iec_full },
    // the interface's packet workers (--workers; flowgate's own)
    workers: i.engine.workers,
    // the packet recorder (--record) and the extractions running (flowgate's own; ntopng shows n2disk's status on another page)
    recording: recordingStatus(recorder, running),
    tcpPacketStats: { retransmissions: s.tcpPacketStats.retransmissions, out_of_order: s.tcpPacketStats.out_of_order, lost: s.tcpPacketStats.lost },
    // engaged alerts now, alerts this interface stored or could not (alert service)
    has_alerts: alertCounters.engaged > 0 || alertCounters.written > 0,
    // active flows with an alert now (engine), by their predominant alert's
    // severity group; the total sums the three groups (ntopng's
    // num_alerted_flows: critical and emergency ones fall in none)
    alerted_flows: s.alerted_flows_notice + s.alerted_flows_warning + s.alerted_flows_error,
    alerted_flows_notice: s.alerted_flows_notice,
    alerted_flows_warning: s.alerted_flows_warning,
    alerted_flows_error: s.alerted_flows_error,
    engaged_alerts: alertCounters.engaged,
    // engaged alerts by severity (ntopng's num_alerts_engaged_by_severity: the groups it shows)
    engaged_alerts_notice: alertCounters.engagedBySeverity.notice,
    engaged_alerts_warning: alertCounters.engagedBySeverity.warning,
    engaged_alerts_error: alertCounters.engagedBySeverity.error,
    // every alert not handled: host and other alerts (alert service), flow alerts (flow writer)
    dropped_alerts: alertCounters.dropped + flowAlertDrops,
    host_dropped_alerts: alertCounters.droppedBy.host,
    flow_dropped_alerts: flowAlertDrops,
    other_dropped_alerts: alertCounters.droppedBy.other,
    ts_alerts: [],
    num_live_captures: 0,
    // traffic profiles are not configured
    profiles: {},
    periodic_stats_update_frequency_secs: CHART_STEP_SECS,
    system_host_stats: systemHostStats(sys, ctx.deps.alerts?.systemCounters()),
    // flows written to the historical store (zeros without one, as ntopng without a flows database)
    db: ctx.deps.flowExport?.counters(i.ifid) ?? { flow_export_count: 0, flow_export_drops: 0, flow_export_rate: 0 },
    // periodic_activities_utils.have_degraded_performance: an activity whose last run overran its period
    ...(Object.values(periodicActivities()).some((a) => a.num_runs > 0 && a.last_duration_ms > a.max_duration_secs * 1000) ? { degraded_performance: true as const } : {}),
    // recording_utils: the recorder's state while recording is on, and the extractions (streamed here:
    // the running ones are the tasks, none waits ready)
    ...recordingFields(recorder, running),
    // RoundTripStats: a point each way per periodic stats update
    download_upload_chart: ctx.deps.rates.chart(i.ifid),
    // packets and drops the interface's nProbe probes reported: a packet interface has none
    tot_nprobe_pkts: 0,
    tot_pkt_drops: 0,
    // ntopng's periodic network discovery (ARP/SNMP/SSDP sweeps): flowgate runs none
    active_discovery_active: false,
  };
}

function recordingFields(s: RecorderStats | null, running: number): Pick<IfData, 'traffic_recording' | 'traffic_extraction' | 'traffic_extraction_num_tasks'> {
  if (!s) return {};
  return { traffic_recording: s.lastError ? 'failed' : 'recording', ...(running > 0 ? { traffic_extraction: running } : {}), traffic_extraction_num_tasks: running };
}

/**
 * v2 get/interface/data `type=summary` (ntopng's dumpBriefInterfaceStats,
 * what its footer polls): the counters a page header shows, throughput
 * each way as plain bytes per second.
 */
export function interfaceSummary(ctx: ApiCtx, ifid: string) {
  const d = interfaceData(ctx);
  return {
    ifid,
    ifname: d.ifname,
    drops: d.drops,
    throughput_bps: d.throughput_bps,
    ...(ctx.deps.flowExport ? { flow_export_drops: d.db.flow_export_drops, flow_export_count: d.db.flow_export_count } : {}),
    engaged_alerts: d.engaged_alerts,
    engaged_alerts_warning: d.engaged_alerts_warning,
    engaged_alerts_error: d.engaged_alerts_error,
    alerted_flows: d.alerted_flows,
    alerted_flows_warning: d.alerted_flows_warning,
    alerted_flows_error: d.alerted_flows_error,
    ...(d.degraded_performance ? { degraded_performance: true as const } : {}),
    num_flows: d.num_flows,
    num_hosts: d.num_hosts,
    num_local_hosts: d.num_local_hosts,
    num_devices: d.num_devices,
    num_rcvd_only_hosts: d.num_rcvd_only_hosts,
    num_local_rcvd_only_hosts: d.num_local_rcvd_only_hosts,
    localtime: d.localtime,
    uptime: d.uptime,
    hosts_pctg: d.hosts_pctg,
    flows_pctg: d.flows_pctg,
    macs_pctg: d.macs_pctg,
    ...(ctx.user.role === 'administrator' ? { num_live_captures: d.num_live_captures } : {}),
    throughput: { download: d.throughput.download.bps, upload: d.throughput.upload.bps },
    ...(d.traffic_recording ? { traffic_recording: d.traffic_recording } : {}),
    ...(d.traffic_extraction !== undefined ? { traffic_extraction: d.traffic_extraction } : {}),
    ...(d.traffic_extraction_num_tasks !== undefined ? { traffic_extraction_num_tasks: d.traffic_extraction_num_tasks } : {}),
    active_discovery_active: d.active_discovery_active,
    // a replay is loaded as it is read: nothing waits to load
    is_loading: false,
  };
}

type Sys = ReturnType<ApiCtx['deps']['system']['read']>;

/** ntopng's system_host_stats alert figures are summed over every interface, the system one included */
function systemHostStats(sys: Sys, alerts: { dropped_alerts: number; alerts_queries: number; written_alerts: number } | undefined) {
  return {
    mem_total: sys.mem_total,
    mem_used: sys.mem_used,
    mem_free: sys.mem_free,
    mem_cached: sys.mem_cached,
    mem_buffers: sys.mem_buffers,
    mem_shmem: sys.mem_shmem,
    mem_sreclaimable: sys.mem_sreclaimable,
    mem_ntopng_resident: sys.mem_ntopng_resident,
    mem_ntopng_virtual: sys.mem_ntopng_virtual,
    cpu_load: sys.cpu_load,
    cpu_states: sys.cpu_states,
    dropped_alerts: alerts?.dropped_alerts ?? 0,
    alerts_queries: alerts?.alerts_queries ?? 0,
    written_alerts: alerts?.written_alerts ?? 0,
  };
}

// The data is built in v2's form (the busiest); v1 lifts the export
// counters to the top, v0 picks its older field set.
export const interfaceDataShape = {
  v0: (d: IfData): z.infer<typeof InterfaceDataV0> => ({
    ifname: d.ifname,
    num_flows: d.num_flows,
    num_hosts: d.num_hosts,
    num_local_hosts: d.num_local_hosts,
    num_devices: d.num_devices,
    uptime: d.uptime,
    alerts_stored: d.has_alerts,
    engaged_alerts: d.engaged_alerts,
    num_live_captures: d.num_live_captures,
    flows_pctg: d.flows_pctg,
    hosts_pctg: d.hosts_pctg,
    tcpPacketStats: d.tcpPacketStats,
    bytes: d.bytes,
    packets: d.packets,
    bytes_download: d.bytes_download,
    bytes_upload: d.bytes_upload,
    remote_pps: d.remote_pps,
    remote_bps: d.remote_bps,
    epoch: d.epoch,
    localtime: d.localtime,
    drops: d.drops,
    remote2local: d.remote2local,
    local2remote: d.local2remote,
    is_view: d.is_view,
    speed: d.speed,
    profiles: Object.keys(d.profiles),
    system_host_stats: { cpu_idle: d.system_host_stats.cpu_states.idle, ...d.system_host_stats },
  }),
  v1: (d: IfData): z.infer<typeof InterfaceDataV1> => {
    // v1 has the total only (rest/v1/get/interface/data.lua)
    const { db, alerted_flows_notice: _n, alerted_flows_warning: _w, alerted_flows_error: _e, ...rest } = d;
    return { ...rest, ...db };
  },
};

/** The interface's own addresses (live interfaces). */
export const interfaceAddresses = (ctx: ApiCtx) => ({ addresses: ctx.iface.addresses });

/** dscp_consts.ds_class_descr: a precedence class's English name, with `(CSn)` for the cs classes */
const DS_CLASS: Record<string, string> = {
  cs0: 'Best Effort', cs1: 'Priority', cs2: 'Immediate', cs3: 'Flash', cs4: 'Flash Override', cs5: 'Critical',
  cs6: 'Internetwork Control', cs7: 'Network Control', le: 'LE', unknown: 'Unknown',
};
const classLabel = (c: string) => (c.startsWith('cs') ? `${DS_CLASS[c]} (${c.toUpperCase()})` : DS_CLASS[c]!);

/**
 * ntopng's DSCP statistics (DSCPStats): code points summed into their
 * precedence class (DSCPStats::ds2Precedence, the timeseries' dscp_class), the
 * classes that carried bytes in key order (cs0 … cs7, le, unknown), labelled
 * with ds_class_descr; `value` picks the figure shown.
 */
export function dscpSlices<T extends { dscp: number; bytes: number }>(rows: readonly T[], value: (r: T) => number): { label: string; value: number }[] {
  const by = new Map<string, number>();
  for (const r of rows) {
    if (!(r.bytes > 0)) continue;
    const c = dscpClass(r.dscp);
    by.set(c, (by.get(c) ?? 0) + value(r));
  }
  return [...by].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([c, v]) => ({ label: classLabel(c), value: v }));
}

/** Interface DSCP statistics: packets (both ways) per precedence class, small slices as Other. */
export function interfaceDscp(ctx: ApiCtx) {
  return collapseStats(dscpSlices(ctx.iface.engine.stats().dscp, (x) => x.packets), 1);
}

/** The interfaces this user may see. */
/** get/interface/egress: the engine's egress table and counters, protocol policies named as the egress API names them. */
export function egressPolicies(ctx: ApiCtx) {
  return ctx.iface.engine.egressStats().targets.map((t) => ({
    ...t,
    policies: t.policies.map((p) => (p.scope === 'protocol' && p.match !== undefined ? { ...p, match: l7Name(0, Number(p.match)) } : p)),
  }));
}

export function monitoredInterfaces(ctx: ApiCtx) {
  return ctx.deps.interfaces.list
    .filter((i) => !ctx.user.allowed_interface || ctx.user.allowed_interface === i.ifname)
    .map((i) => ({ ifid: i.ifid, ifname: i.ifname, name: shortenCollapse(i.ifname) }));
}

export interface L7StatsParams {
  ndpistats_mode?: 'sinceStartup' | 'count';
  breed?: boolean;
  ndpi_category?: boolean;
  max_values?: number;
  all_values?: boolean;
  collapse_stats?: boolean;
  /** v2: the answer as ntopng's dashboard pie takes it (graph_utils.convert_pie_data) */
  new_charts?: boolean;
}

/** l7/stats.lua's getAppUrl: the flows page of a slice that names an application */
const withUrl = (list: Slice[]): (Slice & { url?: string })[] =>
  list.map((x) => (x.label !== 'Other' && l7Id(x.label) !== undefined ? { ...x, url: `/lua/flows_stats.lua?application=${encodeURIComponent(x.label)}` } : x));

/**
 * get/interface/l7/stats: `sinceStartup` = bytes per application (or breed,
 * or category) since the engine started, small slices collapsed; `count` =
 * active flows per application (NetworkInterface::getnDPIFlowsCount counts
 * a flow under its app protocol: OCSP, Google — not HTTP.OCSP), the top
 * `max_values` above 3% and the rest as Other (ntopng's rules). A slice
 * naming an application carries its `url`.
 */
export function interfaceL7(ctx: ApiCtx, p: L7StatsParams) {
  if (!p.ndpistats_mode) throw new ApiError(RC.INVALID_ARGUMENTS, "ndpistats_mode must be 'sinceStartup' or 'count'");
  if (p.ndpistats_mode === 'count') {
    const counts = new Map<string, number>();
    for (const x of ctx.iface.engine.flowCounters(ctx.allowed).l7) {
      const name = l7Name(0, x.app || x.master);
      counts.set(name, (counts.get(name) ?? 0) + x.count);
    }
    let rest = [...counts.values()].reduce((a, b) => a + b, 0);
    const threshold = (rest * 3) / 100;
    const max = p.all_values ? 65535 : (p.max_values ?? 5);
    const out: Slice[] = [];
    for (const [label, value] of [...counts].sort((a, b) => b[1] - a[1])) {
      if (out.length >= max || value <= threshold) break;
      out.push({ label, value });
      rest -= value;
    }
    if (rest > 0) out.push({ label: 'Other', value: rest });
    else if (!out.length) out.push({ label: 'No flows', value: 0 });
    return pieData(withUrl(out), p.new_charts, 'formatValue');
  }
  const l7 = ctx.iface.engine.l7Stats();
  const by = p.breed ? 'breed' : p.ndpi_category ? 'category' : 'app';
  const list = by === 'category' ? groupCategories(l7.categories) : groupL7(l7.apps, by);
  const shown = p.collapse_stats === false ? list : collapseStats(list, 1, 3);
  return pieData(by === 'app' ? withUrl(shown) : shown, p.new_charts, 'bytesToSize');
}

/**
 * Broadcast domains learned from ARP. A domain is a "ghost" network on a
 * live interface when it lies in none of the local networks (the
 * interface's own addresses are among them); never on a replayed capture
 * (ntopng's BroadcastDomains; the ghost_networks check reads the same).
 */
export function broadcastDomains(ctx: ApiCtx) {
  const i = ctx.iface;
  const domains: Record<string, { ghost_network: boolean; hits: number }> = {};
  for (const d of i.engine.stats().bcast_domains) {
    domains[d.network] = { ghost_network: isGhostNetwork(d.network, i.engine.localNetworks, i.isFile), hits: d.hits };
  }
  // an empty Lua table encodes as []
  return { bcast_domains: Object.keys(domains).length ? domains : [] };
}

/**
 * ntopng's shortenCollapse with its default max_ui_strlen (24): a longer
 * text keeps its first and last (24 − 3) / 2 characters around "...".
 */
export function shortenCollapse(s: string, max = 24): string {
  if (max <= 3) return '...';
  if (s.length <= max) return s;
  const half = Math.floor((max - 3) / 2);
  return `${s.slice(0, half)}...${s.slice(s.length - half)}`;
}
