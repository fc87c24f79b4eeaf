// Geolocation lookups (ntopng's rest/v2/get/asn/* and get/country/*): the
// autonomous systems of the active hosts, an address's AS name, a country's
// name from ntopng's u16 country id.
import { isIP } from 'node:net';

import { COUNTRY_NAMES, countryOfU16 } from '../../services/geo/index.js';
import { ApiError, RC } from '../rc.js';
import { lookup } from '../params.js';
import type { ApiCtx } from '../route.js';
import { geoOf } from './hosts.js';

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
