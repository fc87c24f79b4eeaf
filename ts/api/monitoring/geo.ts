// Geolocation lookups (ntopng's rest/v2/get/asn/* and get/country/*): the
// autonomous systems of the active hosts, an address's AS name, a country's
// name from ntopng's u16 country id.
import { isIP } from 'node:net';

import { COUNTRY_NAMES, countryOfU16 } from '../../services/geo/index.js';
import { ApiError, RC } from '../rc.js';
import { lookup } from '../params.js';
import type { ApiCtx } from '../route.js';
import { nextTurn } from '../stream.js';
import type { HostBrief } from '../../bindings/engine.js';
import { geoOf, parseHost } from './hosts.js';

/** One AS as asn_info.lua's format_asn_data shapes it. */
export interface AsnInfo {
  id: number;
  name: string;
  first_seen: number;
  last_seen: number;
  num_hosts: number;
  alerted_flows: number;
  score: number;
  rtt: number;
  bytes_sent: number;
  bytes_rcvd: number;
  packets_sent: number;
  packets_rcvd: number;
}

/**
 * asn_info: ntopng's per-AS counters (AutonomousSystem, one per AS its hosts
 * belong to, AS 0 for those without: private addresses) summed here over the
 * active hosts the user may see; `asn` keeps that AS only ([] when no active
 * host is in it). rtt is 0 (not measured).
 */
export function asnInfo(ctx: ApiCtx, asn: number | undefined): AsnInfo[] {
  const by = new Map<number, AsnInfo>();
  const cur = ctx.iface.engine.hostsCursor({ limit: 1 << 30, allowed: ctx.allowed, brief: true });
  try {
    for (let rows = cur.next(4096); rows.length; rows = cur.next(4096)) {
      for (const h of rows) {
        const g = geoOf(ctx, h.ip);
        if (asn !== undefined && g.asn !== asn) continue;
        let a = by.get(g.asn);
        if (!a) {
          a = { id: g.asn, name: g.asname, first_seen: h.first_seen, last_seen: h.last_seen, num_hosts: 0, alerted_flows: 0, score: 0, rtt: 0, bytes_sent: 0, bytes_rcvd: 0, packets_sent: 0, packets_rcvd: 0 };
          by.set(g.asn, a);
        }
        a.num_hosts++;
        a.first_seen = Math.min(a.first_seen, h.first_seen);
        a.last_seen = Math.max(a.last_seen, h.last_seen);
        a.alerted_flows += h.alerted_flows_as_client + h.alerted_flows_as_server;
        a.score += h.score_as_client + h.score_as_server;
        a.bytes_sent += h.bytes_sent;
        a.bytes_rcvd += h.bytes_rcvd;
        a.packets_sent += h.packets_sent;
        a.packets_rcvd += h.packets_rcvd;
      }
    }
  } finally {
    cur.close();
  }
  return [...by.values()].sort((x, y) => x.id - y.id);
}

/** asn_name: ntop.getASName(ip): the AS organisation, or ntopng's empty table ([]) when none. */
export function asnName(ctx: ApiCtx, ip: string | undefined): string | never[] {
  const a = (ip ?? '').trim();
  if (!isIP(a)) throw new ApiError(RC.INVALID_ARGUMENTS, `ip '${ip ?? ''}' is not an IP address`);
  return geoOf(ctx, a).asname || [];
}

/** country_name: the two letters of ntopng's u16 country id (first letter in the high byte), named when known. */
export function countryName(countryId: number | undefined): string {
  if (countryId === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, 'country_id is required');
  const code = countryOfU16(countryId);
  return lookup(COUNTRY_NAMES, code) ?? code;
}

/** geo_map/hosts.lua's MAX_HOSTS */
const GEO_MAP_MAX = 512;

export interface GeoMapHost {
  lat: number;
  lng: number;
  isRoot: false;
  country: string;
  ip: string;
  scoreClient: number;
  scoreServer: number;
  numAlerts: number;
  isAlert: boolean;
  city?: string;
}

/**
 * geo_map/hosts.lua: the located hosts (coordinates known; private ones
 * never are) for a map, at most 512: with `host`, the peers of its top flows
 * (by bytes) and itself; else by hosts_category: 0 or 1 every active host,
 * 2 the local ones, 3 the remote ones; another or no category answers [] as
 * ntopng's script does. Hosts are read a slice per turn of the event loop.
 */
export async function geoMapHosts(ctx: ApiCtx, category: string | undefined, host: string | undefined): Promise<GeoMapHost[]> {
  const out: GeoMapHost[] = [];
  const seen = new Set<string>();
  const add = (h: HostBrief) => {
    const key = `${h.ip}@${h.vlan}`;
    if (seen.has(key) || out.length >= GEO_MAP_MAX) return;
    seen.add(key);
    const g = geoOf(ctx, h.ip);
    if (g.latitude === 0 && g.longitude === 0) return;
    const numAlerts = ctx.deps.alerts?.hostAlerts(ctx.iface.ifid, h.ip, h.vlan).engaged ?? 0;
    out.push({
      lat: g.latitude,
      lng: g.longitude,
      isRoot: false,
      country: g.country,
      ip: h.ip,
      scoreClient: h.score_as_client,
      scoreServer: h.score_as_server,
      numAlerts,
      isAlert: numAlerts + h.active_alerted_flows > 0,
      ...(g.city ? { city: g.city } : {}),
    });
  };
  const engine = ctx.iface.engine;
  if (host) {
    const k = parseHost(host);
    // getTopFlowPeers: the host's flows with the most bytes, both of their ends
    const flows = engine.flows({ host: k.ip, hostVlan: k.vlan, sort: 'bytes', order: 'desc', limit: GEO_MAP_MAX, allowed: ctx.allowed }).rows;
    for (const f of flows) {
      for (const ip of [f.client.ip, f.server.ip]) {
        const h = engine.host(ip, f.vlan);
        if (h) add(h);
      }
    }
    return out;
  }
  const c = category !== undefined && /^\s*\d+\s*$/.test(category) ? Number(category) : -1;
  const mode = c === 0 || c === 1 ? 'all' : c === 2 ? 'local' : c === 3 ? 'remote' : null;
  if (!mode) return out;
  const cur = engine.hostsCursor({ mode, sort: 'ip', limit: 2 ** 31 - 1, allowed: ctx.allowed, brief: true });
  try {
    for (let rows = cur.next(4096); rows.length && out.length < GEO_MAP_MAX; rows = cur.next(4096)) {
      for (const h of rows) add(h);
      await nextTurn();
    }
  } finally {
    cur.close();
  }
  return out;
}
