// Pro insight views of live traffic (ntopng's dashboard widgets read them):
// the top local and remote talkers, as its dashboard table of type
// 'throughput' shows them (name with a link to the host, the current
// throughput in bits per second); the behaviour maps (service and
// periodicity) of its Enterprise L analysis pages.
import { l7Id, l7Name, type HostBrief } from '../../bindings/engine.js';
import type { NoTxSide } from '../../bindings/native.js';
import { ApiError, envelope, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { l4Name } from './constants.js';
import { aliasOf, hostKey, inNetworks, parseHost } from './hosts.js';
import { pieData } from './stats.js';
import { luaTable } from '../../services/lua-table.js';

/** the dashboard's "Top 10" */
const TOP = 10;

export interface Talker {
  name: string;
  ip: string;
  vlan: number;
  url: string;
  throughput: number;
  throughput_type: 'bps';
}

/** The local (or remote) hosts with the highest current throughput, sorted natively; idle hosts left out. */
export function topTalkers(ctx: ApiCtx, local: boolean): Talker[] {
  const rows = ctx.iface.engine.hosts({ mode: local ? 'local' : 'remote', sort: 'thpt', order: 'desc', limit: TOP, allowed: ctx.allowed, brief: true }).rows;
  return rows
    .filter((h: HostBrief) => h.throughput_bps > 0)
    .map((h: HostBrief) => ({ ...hostCell(ctx, h), throughput: h.throughput_bps, throughput_type: 'bps' as const }));
}

/** A host row of the dashboard's tables: its name (alias first), address, VLAN and details page. */
function hostCell(ctx: ApiCtx, h: HostBrief) {
  return {
    name: aliasOf(ctx, h.ip, h.vlan) ?? h.name ?? h.ip,
    ip: h.ip,
    vlan: h.vlan,
    url: `/lua/host_details.lua?host=${encodeURIComponent(hostKey(h.ip, h.vlan))}`,
  };
}

/**
 * pro v2 get/interface/top/l7_stats.lua ("Top Applications (Realtime)"):
 * the applications of the active flows by their current throughput — each
 * flow's last per-second sample, summed per application as
 * getnDPIFlowsCount keys it (OCSP, not HTTP.OCSP) — as pie slices
 * {label, value (bit/s), url}, the top 10, idle applications left out;
 * with new_charts the dashboard's donut (graph_utils.convert_pie_data).
 */
export function topL7(ctx: ApiCtx, newCharts?: boolean) {
  const sums = new Map<string, number>();
  for (const x of ctx.iface.engine.flowCounters(ctx.allowed).l7) {
    if (!(x.bps > 0)) continue;
    const name = l7Name(0, x.app || x.master);
    sums.set(name, (sums.get(name) ?? 0) + x.bps);
  }
  const slices = [...sums]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP)
    .map(([label, value]) => ({ label, value, ...(l7Id(label) !== undefined ? { url: `/lua/flows_stats.lua?application=${encodeURIComponent(label)}` } : {}) }));
  // ntopng's dashboard pies ask new_charts: the donut, values formatted as bits per second
  return pieData(slices, newCharts, 'fbits');
}

/**
 * pro v2 get/interface/top/score.lua: the 10 hosts with the highest score
 * now (the alerted scores of their active flows, as host data's `score`),
 * as the dashboard's host tables show them, with the client / server
 * shares; hosts without a score left out.
 */
export function topScore(ctx: ApiCtx) {
  const rows = ctx.iface.engine.hosts({ mode: 'all', sort: 'score', order: 'desc', limit: TOP, allowed: ctx.allowed, brief: true }).rows;
  return rows
    .filter((h: HostBrief) => h.score_as_client + h.score_as_server > 0)
    .map((h: HostBrief) => ({ ...hostCell(ctx, h), score: h.score_as_client + h.score_as_server, score_as_client: h.score_as_client, score_as_server: h.score_as_server }));
}

/**
 * pro v2 get/interface/top/realtime_traffic.lua ("All Network Interfaces
 * (Realtime)"): the interface's traffic of the last minute, one point per
 * second sampled (services/rates.ts, engine time), in the v2 timeseries
 * shape of iface:traffic_rxtx — bytes per second sent (upload) and received
 * (download) — so lightview sums it over interfaces point by point.
 */
export function realtimeTraffic(ctx: ApiCtx) {
  const pts = ctx.deps.rates.recent(ctx.iface.ifid);
  const begin = pts.length ? pts[0].t : 0;
  return {
    metadata: { epoch_begin: begin, epoch_end: pts.length ? pts[pts.length - 1].t : 0, epoch_step: 1, num_point: pts.length, schema: 'iface:traffic_rxtx', query: `ifid:${ctx.iface.ifid}` },
    series: [
      { id: 'bytes_sent', data: pts.map((p) => p.sent) },
      { id: 'bytes_rcvd', data: pts.map((p) => p.rcvd) },
    ],
  };
}

/** Parameters of the behaviour maps (ntopng's MapsFilters, as its map pages send them). */
export interface MapParams {
  host?: string;
  vlan_id?: number;
  l7proto?: string;
  sort?: string;
  order?: string;
  start?: number;
  length?: number;
}

export const MAP_SORTS = ['last_seen', 'first_seen', 'num_uses', 'observations', 'frequency', 'duration', 'port', 'l7proto', 'client', 'server'] as const;
/** a page of a map at most */
export const MAP_MAX_LENGTH = 10_000;

/**
 * The service map (local-to-local services) or the periodicity map (flows
 * that start at a regular pace) of an interface, learned natively from every
 * classified flow (native/src/flow/behaviour_maps.h); a page of it with
 * recordsTotal / recordsFiltered beside rsp, as the v2 lists.
 */
export function behaviourMap(ctx: ApiCtx, which: 'service' | 'periodicity', p: MapParams) {
  const bad = (msg: string) => new ApiError(RC.INVALID_ARGUMENTS, msg);
  let host: string | undefined, vlan = p.vlan_id;
  if (p.host) {
    try {
      const k = parseHost(p.host);
      host = k.ip;
      if (/@\d+\s*$/.test(p.host)) vlan = k.vlan;
    } catch (e) {
      throw bad(e instanceof Error ? e.message : String(e));
    }
  }
  let app: number | undefined;
  if (p.l7proto !== undefined && p.l7proto.trim() !== '') {
    app = l7Id(p.l7proto);
    if (app === undefined) throw bad(`unknown application '${p.l7proto}'`);
  }
  const sort = p.sort ?? 'last_seen';
  if (!(MAP_SORTS as readonly string[]).includes(sort)) throw bad(`sort must be one of ${MAP_SORTS.join(', ')}`);
  const order = p.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw bad("order must be 'asc' or 'desc'");
  const page = ctx.iface.engine.behaviourMap(which, {
    host, vlan, app, allowed: ctx.allowed, sort, order, start: p.start ?? 0, length: p.length ?? 100,
  });
  const rows = page.rows.map((r) => {
    const base = {
      client: r.client,
      client_name: aliasOf(ctx, r.client, r.vlan) ?? '',
      server: r.server,
      server_name: aliasOf(ctx, r.server, r.vlan) ?? '',
      vlan: r.vlan,
      port: r.port,
      l4_proto: l4Name(r.l4),
      protocol: l7Name(r.l7_master, r.l7_app),
      l7proto_id: r.l7_app || r.l7_master,
      first_seen: r.first_seen,
      last_seen: r.last_seen,
      info: r.info,
    };
    return which === 'service'
      ? { ...base, num_uses: r.uses }
      : { ...base, duration: r.last_seen - r.first_seen, observations: r.observations, frequency: Math.round(r.period_ms / 1000), num_uses: r.uses };
  });
  return ctx.c.json({ ...envelope(RC.OK, rows), recordsTotal: page.total, recordsFiltered: page.total, entries: page.entries, max_entries: page.max, refused: page.full });
}

/**
 * v2 get/host/no_tx_peers.lua (ntopng's REST script): rsp.rx_only.{local_hosts,
 * remote_hosts}.{hosts_with_ports_count, host_peers}, address → the host's
 * no-TX counts; an object with no key is ntopng's empty Lua table, [] in JSON.
 */
export function noTxPeers(ctx: ApiCtx) {
  const r = ctx.iface.engine.noTxPeers(ctx.allowed);
  const side = (x: NoTxSide) => ({ hosts_with_ports_count: luaTable(x.hosts_with_ports_count), host_peers: luaTable(x.host_peers) });
  return { rx_only: { local_hosts: side(r.local), remote_hosts: side(r.remote) } };
}


/** rows of ntopng's top sites table: site, contacts and the share of all contacts listed (%) */
function sitesRows(list: { site: string; contacts: number }[]) {
  const total = list.reduce((n, x) => n + x.contacts, 0);
  return list.map((x) => ({ site: x.site, contacts: x.contacts, percentage: total ? (x.contacts * 100) / total : 0 }));
}

/** ntopng keeps older windows in Redis (hour=<h>, day, last_5_min); only the current one is kept here */
function currentOnly(hour: string | undefined) {
  if (hour !== undefined && hour !== '' && hour !== 'current') throw new ApiError(RC.INVALID_ARGUMENTS, `hour '${hour}': only the current sites are kept (hour=current)`);
}

/** pro v2 get/interface/top/sites.lua: the interface's top visited sites. */
export function interfaceTopSites(ctx: ApiCtx, hour: string | undefined) {
  currentOnly(hour);
  return sitesRows(ctx.iface.engine.topSites() ?? []);
}

/** pro v2 get/host/top/local/sites.lua: a host's top visited sites (-5 for a host not seen). */
export function hostTopSites(ctx: ApiCtx, host: string | undefined, vlan: number | undefined, hour: string | undefined) {
  currentOnly(hour);
  if (!host) throw new ApiError(RC.INVALID_ARGUMENTS, 'host is required');
  let k: { ip: string; vlan: number };
  try {
    k = parseHost(host, vlan);
  } catch (e) {
    throw new ApiError(RC.INVALID_ARGUMENTS, e instanceof Error ? e.message : String(e));
  }
  if (ctx.allowed && !inNetworks(k.ip, ctx.allowed)) throw new ApiError(RC.INVALID_ARGUMENTS, `host ${k.ip} is outside the networks allowed to this user`);
  const list = ctx.iface.engine.topSites(k.ip, k.vlan);
  if (list === null) throw new ApiError(RC.INVALID_ARGUMENTS, `host ${hostKey(k.ip, k.vlan)} not found`);
  return sitesRows(list);
}
