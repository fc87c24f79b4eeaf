// The system endpoints: v1 get/system/stats (ntopng's cpu_utils.systemHostStats()
// plus epoch and storage), pro v2 get/system/data (those figures, the
// service's own as ntop.getInfo() names them, its interfaces summed and its
// queues), connect/test (what ntopng's Python client calls first) and
// delete/system/all_data (a purge recorded now, carried out at the next start:
// ts/services/purge.ts).
//
// Every figure is read, none made up: memory in kB from /proc/meminfo and
// /proc/self/status (ntopng's Utils::luaMeminfo), CPU states as percentages
// of the last 5-second /proc/stat delta, the 1-minute load average
// (/proc/loadavg, ntopng's cpu_load), the data directory's volume from
// statfs, the queues from the services' counters.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { track } from '../activity.js';
import { pendingPurge, recordPurge, type PurgeRequest } from '../../services/purge.js';
import { volumeInfo } from '../../services/system.js';

const num = z.number();

/** ntopng's isAllowedSystemInterface(): a user bound to one interface may not see the system figures (-3). */
export function allowedSystemInterface(ctx: ApiCtx): void {
  if (ctx.user.allowed_interface) {
    throw new ApiError(RC.NOT_GRANTED, `user ${ctx.user.username} is restricted to interface ${ctx.user.allowed_interface}: the system figures are not allowed`);
  }
}

// ── figures ──────────────────────────────────────────────────────────────

const SystemHostStats = z.object({
  cpu_load: num,
  cpu_states: z.record(z.string(), num),
  mem_total: num, mem_free: num, mem_buffers: num, mem_cached: num, mem_sreclaimable: num, mem_shmem: num, mem_used: num,
  mem_ntopng_resident: num, mem_ntopng_virtual: num,
  dropped_alerts: num, written_alerts: num, alerts_queries: num,
  alerts_stats: z.object({ alert_queues: z.object({ internal_alerts_queue: z.object({ pct_not_enqueued: num }) }) }),
});

const Storage = z.object({
  total: num, pcap_total: num, interfaces: z.record(z.string(), z.unknown()), other: num, volume_size: num, volume_dev: z.string(),
  volume_mount: z.string(), volume_used: num, volume_avail: num, data_dir: z.string(),
});

const Queues = z.object({
  alerts: z.object({ queued: num, written: num, dropped: num, stored: z.boolean() }),
  flow_export: z.object({ flow_export_count: num, flow_export_drops: num, flow_export_rate: num, stored: z.boolean() }),
  notifications: z.object({ dropped: num }),
  timeseries: z.object({ backlog: num, written: num, dropped: num, write_errors: num, stored: z.boolean() }),
});

export const SystemStatsSchema = SystemHostStats.extend({ epoch: num, pid: num, storage: Storage.optional(), queues: Queues });

const IfSummary = z.object({
  ifid: num, ifname: z.string(), num_hosts: num, num_local_hosts: num, num_flows: num, num_devices: num,
  engaged_alerts: num, alerted_flows: num, drops: num,
  throughput_bps: num, throughput_pps: num, throughput: z.object({ download: z.object({ bps: num, pps: num }), upload: z.object({ bps: num, pps: num }) }),
  flow_export_count: num, flow_export_drops: num, flow_export_rate: num,
});

export const SystemDataSchema = SystemStatsSchema.extend({
  product: z.string(), version: z.string(), platform: z.string(), OS: z.string(), bits: num, uptime: num, starttime: num,
  num_interfaces: num, num_hosts: num, num_local_hosts: num, num_flows: num, num_devices: num, engaged_alerts: num, alerted_flows: num, drops: num,
  throughput_bps: num, throughput_pps: num, throughput: IfSummary.shape.throughput,
  interfaces: z.array(IfSummary),
  purge_pending: z.object({ clickhouse: z.boolean(), datadir: z.boolean(), requested_at: num, requested_by: z.string() }).nullable(),
});

let versionCache: string | null = null;
/** flowgate's version (the package.json above this module, in the sources or in dist/) */
function version(): string {
  if (versionCache !== null) return versionCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'flowgate' && pkg.version) return (versionCache = pkg.version);
    } catch {
      /* not here: one level up */
    }
  }
  return (versionCache = '');
}

/**
 * Bytes the data directory's files take on disk (allocated blocks, as du
 * counts: LMDB's map file is sparse), its first two levels only: the layout
 * is config/ (LMDB), history.duckdb and its WAL, admin-password, the purge request.
 */
export function dataDirBytes(dir: string, depth = 2): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries.slice(0, 10_000)) {
    try {
      const st = statSync(join(dir, name));
      if (st.isDirectory()) total += depth > 1 ? dataDirBytes(join(dir, name), depth - 1) : 0;
      else if (st.isFile()) total += st.blocks * 512;
    } catch {
      /* gone meanwhile */
    }
  }
  return total;
}

/** storage_utils.storageInfo() over what flowgate knows: the data directory and the volume holding it (bytes). */
function storage(dataDir: string, pcapBytes: number): z.infer<typeof Storage> | undefined {
  const v = volumeInfo(dataDir);
  if (!v) return undefined;
  // the recordings (<record-dir>/<ifid>/) lie below the two levels counted here
  const total = dataDirBytes(v.path) + pcapBytes;
  return {
    // ntopng: the interfaces' RRDs, flows and pcaps; here the data directory's files and the recordings
    total,
    // the packet recorders' files (--record), as ntopng sums its interfaces' pcap folders
    pcap_total: pcapBytes,
    // the store does not split its size by interface: no per-interface figure
    interfaces: {},
    other: Math.max(0, v.used - total),
    volume_size: v.total,
    volume_dev: v.dev,
    volume_mount: v.mount,
    volume_used: v.used,
    volume_avail: v.avail,
    data_dir: v.path,
  };
}

function queues(ctx: ApiCtx): z.infer<typeof Queues> {
  const d = ctx.deps;
  const al = d.alerts?.systemCounters() ?? { dropped_alerts: 0, written_alerts: 0, alerts_queries: 0 };
  const fx = { flow_export_count: 0, flow_export_drops: 0, flow_export_rate: 0 };
  for (const i of d.interfaces.list) {
    const c = d.flowExport?.counters(i.ifid);
    if (!c) continue;
    fx.flow_export_count += c.flow_export_count;
    fx.flow_export_drops += c.flow_export_drops;
    fx.flow_export_rate += c.flow_export_rate;
  }
  fx.flow_export_rate = Math.round(fx.flow_export_rate * 100) / 100;
  const ts = d.timeseries?.store;
  return {
    alerts: { queued: d.alerts?.queued ?? 0, written: al.written_alerts, dropped: al.dropped_alerts, stored: !!d.alerts?.stored },
    flow_export: { ...fx, stored: !!d.flowExport },
    notifications: { dropped: d.notifications?.dropped ?? 0 },
    timeseries: {
      backlog: ts?.backlog ?? 0,
      written: ts?.stats.written ?? 0,
      dropped: ts?.stats.dropped ?? 0,
      write_errors: ts?.stats.writeErrors ?? 0,
      stored: !!ts?.isConnected,
    },
  };
}

/** v1 get/system/stats: cpu_utils.systemHostStats() + epoch + storage (+ pid, as ntopng's later health/stats), and the queues. */
export function systemStats(ctx: ApiCtx): z.infer<typeof SystemStatsSchema> {
  allowedSystemInterface(ctx);
  const sys = ctx.deps.system.read();
  const al = ctx.deps.alerts?.systemCounters() ?? { dropped_alerts: 0, written_alerts: 0, alerts_queries: 0 };
  const written = al.written_alerts, dropped = al.dropped_alerts, queued = ctx.deps.alerts?.queued ?? 0;
  const { cpu_idle: _idle, ...fig } = sys;
  return {
    ...fig,
    cpu_states: { ...sys.cpu_states },
    dropped_alerts: dropped,
    written_alerts: written,
    alerts_queries: al.alerts_queries,
    // FifoQueue::lua's formula: not enqueued / (not enqueued + enqueued + 1) × 100, integer;
    // flowgate's dropped also counts alerts whose write failed and those refused for a full engaged table
    alerts_stats: { alert_queues: { internal_alerts_queue: { pct_not_enqueued: Math.floor((dropped / (dropped + written + queued + 1)) * 100) } } },
    epoch: Math.floor(Date.now() / 1000),
    pid: process.pid,
    storage: storage(ctx.deps.store.dataDir, ctx.deps.interfaces.list.reduce((a, i) => a + (i.engine.recorderStats()?.diskBytes ?? 0), 0)),
    queues: queues(ctx),
  };
}

/** pro v2 get/system/data: the stats, ntop.getInfo()'s own fields, the interfaces summed and one by one, the purge pending. */
export function systemData(ctx: ApiCtx): z.infer<typeof SystemDataSchema> {
  const stats = systemStats(ctx);
  const d = ctx.deps;
  const ifs = d.interfaces.list.map((i) => {
    const s = i.engine.stats();
    const a = d.alerts?.counters(i.ifid);
    const x = d.flowExport?.counters(i.ifid) ?? { flow_export_count: 0, flow_export_drops: 0, flow_export_rate: 0 };
    return {
      ifid: i.ifid,
      ifname: i.ifname,
      num_hosts: s.num_hosts,
      num_local_hosts: s.num_local_hosts,
      num_flows: s.num_flows,
      num_devices: s.num_devices,
      engaged_alerts: a?.engaged ?? 0,
      alerted_flows: s.alerted_flows_notice + s.alerted_flows_warning + s.alerted_flows_error,
      drops: s.drops,
      // bytes per second, as get/interface/data
      throughput_bps: s.throughput_bps / 8,
      throughput_pps: s.throughput_pps,
      throughput: d.rates.get(i.ifid),
      ...x,
    };
  });
  const sum = (f: (i: (typeof ifs)[number]) => number) => ifs.reduce((a, i) => a + f(i), 0);
  let purge: PurgeRequest | null = null;
  try {
    purge = pendingPurge(d.store.dataDir);
  } catch {
    /* unreadable: the next start says so */
  }
  const started = d.startedAt;
  return {
    ...stats,
    product: 'flowgate',
    version: version(),
    platform: `${process.arch}-${process.platform}`,
    OS: readOsName(),
    bits: process.arch.includes('64') ? 64 : 32,
    uptime: Math.floor((Date.now() - started) / 1000),
    starttime: Math.floor(started / 1000),
    num_interfaces: ifs.length,
    num_hosts: sum((i) => i.num_hosts),
    num_local_hosts: sum((i) => i.num_local_hosts),
    num_flows: sum((i) => i.num_flows),
    num_devices: sum((i) => i.num_devices),
    engaged_alerts: sum((i) => i.engaged_alerts),
    alerted_flows: sum((i) => i.alerted_flows),
    drops: sum((i) => i.drops),
    throughput_bps: sum((i) => i.throughput_bps),
    throughput_pps: sum((i) => i.throughput_pps),
    throughput: {
      download: { bps: sum((i) => i.throughput.download.bps), pps: sum((i) => i.throughput.download.pps) },
      upload: { bps: sum((i) => i.throughput.upload.bps), pps: sum((i) => i.throughput.upload.pps) },
    },
    interfaces: ifs,
    purge_pending: purge,
  };
}

let osName: string | null = null;
/** /etc/os-release's PRETTY_NAME (ntop.getInfo()'s OS), else the platform */
function readOsName(): string {
  if (osName !== null) return osName;
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    osName = m?.[1] ?? process.platform;
  } catch {
    osName = process.platform;
  }
  return osName;
}

// ── the purge ────────────────────────────────────────────────────────────

/** delete/system/all_data.lua: recorded now (merged with a request already pending), carried out at the next start. */
export function requestPurge(ctx: ApiCtx, p: { clickhouse?: boolean; datadir?: boolean }): PurgeRequest & { effective: string } {
  const want = { clickhouse: p.clickhouse === true, datadir: p.datadir === true };
  if (!want.clickhouse && !want.datadir) throw new ApiError(RC.INVALID_ARGUMENTS, 'nothing to purge: clickhouse=true (the flows database) and/or datadir=true (all the historical data)');
  let req: PurgeRequest;
  try {
    req = recordPurge(ctx.deps.store.dataDir, want, ctx.user.username);
  } catch (e) {
    throw new ApiError(RC.INTERNAL_ERROR, `cannot record the purge request: ${(e as Error).message}`);
  }
  track(ctx, 'delete_all_data', want);
  return { ...req, effective: 'next start' };
}
