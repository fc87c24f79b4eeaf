// Pro insight views of live traffic (ntopng's dashboard widgets read them):
// the top local and remote talkers, as its dashboard table of type
// 'throughput' shows them (name with a link to the host, the current
// throughput in bits per second).
import type { HostBrief } from '../../bindings/engine.js';
import type { ApiCtx } from '../route.js';
import { aliasOf, hostKey } from './hosts.js';

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
    .map((h: HostBrief) => {
      const key = hostKey(h.ip, h.vlan);
      return {
        name: aliasOf(ctx, h.ip, h.vlan) ?? h.name ?? h.ip,
        ip: h.ip,
        vlan: h.vlan,
        url: `/lua/host_details.lua?host=${encodeURIComponent(key)}`,
        throughput: h.throughput_bps,
        throughput_type: 'bps' as const,
      };
    });
}
