// Flow endpoints: the active flow list and per-L4 / per-L7 flow counters.
import { isIP } from 'node:net';

import { FlowSort, l7Id, l7Name, protocolInfo, type FlowRecord } from '../../bindings/engine.js';
import { flowScore } from '../../services/alerts/catalogue.js';
import { ApiError, RC } from '../rc.js';
import { lookup } from '../params.js';
import type { ApiCtx } from '../route.js';
import { RowStream, STREAM_ROWS } from '../stream.js';
import { l4Id, l4Name } from './constants.js';
import { inNetworks, parseHost } from './hosts.js';

type FlowSortKey = (typeof FlowSort)[number];

// ntopng's sortColumn values (with or without its `column_` prefix); score:
// what the flow's enabled alerts are worth, as the engine credits its hosts
const FLOW_SORT: Record<string, FlowSortKey> = {
  bytes: 'bytes', thpt: 'thpt', duration: 'duration', first_seen: 'first_seen', last_seen: 'last_seen',
  client: 'client', server: 'server', vlan: 'vlan', proto_l4: 'proto', l4: 'proto', ndpi: 'l7', application: 'l7',
  score: 'score', packets: 'packets',
};

export interface ActiveFlowParams {
  currentPage?: number;
  perPage?: number;
  sortColumn?: string;
  sortOrder?: 'asc' | 'desc';
  host?: string;
  vlan?: number;
  l4proto?: string;
  application?: string;
  verbose?: boolean;
}

export function activeFlows(ctx: ApiCtx, p: ActiveFlowParams) {
  const col = (p.sortColumn ?? '').replace(/^column_/, '');
  if (col && !lookup(FLOW_SORT, col)) throw new ApiError(RC.INVALID_ARGUMENTS, `sortColumn '${p.sortColumn}' (one of ${Object.keys(FLOW_SORT).join(', ')})`);
  const perPage = p.perPage ?? 10;
  const currentPage = p.currentPage ?? 1;
  if (perPage < 1 || currentPage < 1) throw new ApiError(RC.INVALID_ARGUMENTS, 'currentPage and perPage start at 1');
  let host: { ip: string; vlan: number } | undefined;
  let outside = false;
  if (p.host) {
    // ntopng's get_host_vlan_info: no @vlan (nor vlan) is VLAN 0; a host not active is -1
    host = parseHost(p.host, p.vlan);
    // a host outside the user's networks: no flows (ntopng filters them out, it does not refuse)
    outside = !!ctx.allowed && !inNetworks(host.ip, ctx.allowed);
    if (!outside && !ctx.iface.engine.host(host.ip, host.vlan)) throw new ApiError(RC.NOT_FOUND, `host ${p.host} is not active on interface ${ctx.iface.ifid}`);
  }
  let l4: number | undefined;
  if (p.l4proto !== undefined) {
    l4 = l4Id(p.l4proto);
    if (l4 === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, `unknown l4proto '${p.l4proto}'`);
  }
  let l7: number | undefined;
  if (p.application !== undefined) {
    l7 = l7Id(p.application);
    if (l7 === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, `unknown application '${p.application}'`);
  }
  const sortOrder = p.sortOrder ?? 'desc';
  const q = {
    sort: lookup(FLOW_SORT, col) ?? 'bytes',
    order: sortOrder,
    offset: (currentPage - 1) * perPage,
    limit: perPage,
    host: host?.ip,
    hostVlan: host?.vlan,
    vlan: p.vlan,
    l4proto: l4,
    l7,
    allowed: ctx.allowed,
  } as const;
  const head = { perPage, currentPage, totalRows: 0, data: [] as unknown[], sort: [[p.sortColumn ?? 'bytes', sortOrder]] };
  const verbose = p.verbose === true;
  if (outside) return head;
  if (perPage > STREAM_ROWS) {
    const cur = ctx.iface.engine.flowsCursor(q);
    return RowStream.of({ ...head, totalRows: cur.total }, 'data', cur, (f) => flowRecord(f, verbose, ctx.iface.ifid));
  }
  const page = ctx.iface.engine.flows(q);
  return { ...head, totalRows: page.total, data: page.rows.map((f) => flowRecord(f, verbose, ctx.iface.ifid)) };
}

/**
 * ntopng's flowinfo2hostname(flow, 'srv'): the flow's own server name (nDPI's
 * host_server_name: the TLS SNI, the HTTP Host, the DNS query) when it is a
 * name rather than an address literal, without a trailing port; else the
 * server host's name; else its address.
 */
function serverName(f: FlowRecord): string {
  const n = f.host_name;
  if (n && /\w/.test(n) && !isIP(n)) return n.replace(/:\d+$/, '');
  return f.server.name || f.server.ip;
}

/**
 * GenericHash::add's entry id: the interface id in the top 8 bits, the
 * table's insertion counter (from 0, 24 bits, wrapping at 0xFFFFFF) below;
 * the engine's flow serial counts from 1.
 */
export const ntopngHashId = (ifid: number, serial: number) => ((((ifid & 0xff) << 24) | ((serial - 1) % 0xffffff)) >>> 0);

function flowRecord(f: FlowRecord, verbose: boolean, ifid: number) {
  const cli2srv = f.bytes ? Math.round((f.cli2srv_bytes * 100) / f.bytes) : 0;
  const r: Record<string, unknown> = {
    // Flow::key (computed natively)
    key: f.key,
    hash_id: String(ntopngHashId(ifid, f.hash_id)),
    first_seen: f.first_seen,
    last_seen: f.last_seen,
    client: {
      name: f.client.name || f.client.ip,
      ip: f.client.ip,
      port: f.client.port,
      is_blacklisted: f.client.blacklisted,
      is_dhcp: f.client.dhcp,
      is_broadcast_domain: f.client.broadcast_domain_host,
    },
    server: {
      name: serverName(f),
      ip: f.server.ip,
      port: f.server.port,
      is_blacklisted: f.server.blacklisted,
      is_dhcp: f.server.dhcp,
      is_broadcast: f.server.is_broadcast,
    },
    vlan: f.vlan,
    protocol: { l4: l4Name(f.proto), l7: l7Name(f.l7_master, f.l7_app) },
    // GenericHashEntry::get_duration: 1 + last_seen − first_seen (whole seconds)
    duration: 1 + f.last_seen - f.first_seen,
    bytes: f.bytes,
    thpt: { pps: f.thpt_pps, bps: f.thpt_bps },
    breakdown: { cli2srv, srv2cli: 100 - cli2srv },
    // the alerts its risks raise while their flow checks are enabled
    score: String(flowScore(f.risk_ids)),
  };
  if (verbose) {
    r.packets = f.packets;
    r.tcp = {
      // Flow::lua_get_tcp_info's latencies (ms)
      appl_latency: f.tcp.appl_latency,
      nw_latency: { cli: f.tcp.nw_latency.cli, srv: f.tcp.nw_latency.srv },
      retransmissions: f.tcp.retransmissions,
      out_of_order: f.tcp.out_of_order,
      lost: f.tcp.lost,
    };
    r.l7_confidence = f.l7_confidence;
    r.info = f.host_name;
    r.risks = f.risks;
    if (f.tls) r.tls = f.tls;
    if (f.http) r.http = f.http;
    if (f.ssh) r.ssh = f.ssh;
    if (f.dns) r.dns = f.dns;
  }
  return r;
}

/** get/flow/l4/counters: active flows per L4 protocol id. */
export function l4Counters(ctx: ApiCtx) {
  return ctx.iface.engine
    .flowCounters(ctx.allowed)
    .l4.map((x) => ({ id: x.proto, count: x.count }))
    .sort((a, b) => b.count - a.count);
}

/**
 * get/flow/l7/counters: active flows per protocol as Flow::sumStats counts
 * them — the application when it is a sub-protocol, else the master (so
 * TLS.NetFlix and DNS.NetFlix are both NetFlix) — by name, names ascending
 * (pairsByKeys asc).
 */
export function l7Counters(ctx: ApiCtx) {
  const by = new Map<string, number>();
  for (const x of ctx.iface.engine.flowCounters(ctx.allowed).l7) {
    const id = x.app !== x.master && x.app !== 0 ? x.app : x.master;
    const name = protocolInfo(id)?.name ?? 'Unknown';
    by.set(name, (by.get(name) ?? 0) + x.count);
  }
  return [...by].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([name, count]) => ({ name, count }));
}
