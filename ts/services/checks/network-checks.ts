// ⑧ ntopng's network checks (check_definitions/network/*.lua) on each local
// network (entity network, value the CIDR), run at every engine tick on the
// minute that ended there, as threshold crossings (alerts_api.
// checkThresholdAlert: json {metric, value, operator, threshold}, subtype
// the check's key, raised while the value crosses, released after):
//
// - syn_scan_victim: NetworkStats' syn_recvd_last_min − synack_sent_last_min,
//   here summed over the network's hosts from the engine's per-host
//   per-minute counters (each host's SYNs received − SYN|ACKs sent when
//   positive: a host that answered more SYNs than it got in the minute
//   lowers ntopng's network figure, not ours);
// - flow_flood_victim: flows whose server is in the network, started in the
//   minute (NetworkStats::incNumFlows as server): the sum of its hosts'
//   flow flood victim hits (flows as server), the same count.
// A host counts for the most specific local network holding it.
import { BlockList, isIPv4 } from 'node:net';

import type { AlertInput, AlertSink, HostCheckHits, HostCheckName } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';
import type { HostHitsQuery } from './host-checks.js';
import { checkAlert, crosses, settle, thresholdOf } from './other-alerts.js';

/** network check → the host check whose victim hits it sums */
const NETWORK_CHECKS: readonly [key: string, host: HostCheckName][] = [
  ['syn_scan_victim', 'syn_scan'],
  ['flow_flood_victim', 'flow_flood'],
];

interface Net {
  cidr: string;
  index: number;
  len: number;
  list: BlockList;
}

function nets(cidrs: readonly string[]): Net[] {
  return cidrs
    .map((cidr, index) => {
      const [addr, l] = cidr.split('/');
      const v4 = isIPv4(addr);
      const len = Number(l ?? (v4 ? 32 : 128));
      const list = new BlockList();
      list.addSubnet(addr, len, v4 ? 'ipv4' : 'ipv6');
      return { cidr, index, len, list };
    })
    .sort((a, b) => b.len - a.len);
}

/** The most specific local network holding `ip` (networks sorted longest prefix first). */
function networkOf(ns: readonly Net[], ip: string): Net | undefined {
  const type = isIPv4(ip) ? 'ipv4' : 'ipv6';
  return ns.find((n) => n.list.check(ip, type));
}

export class NetworkChecks {
  private cache: { cidrs: readonly string[]; nets: Net[] } | null = null;

  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {}

  /** The per-network victim sums of the minute for the enabled checks (exported for tests). */
  sums(localNetworks: readonly string[], hits: readonly HostCheckHits[], checks: readonly string[]): Map<string, { net: Net; values: Record<string, number> }> {
    if (this.cache?.cidrs !== localNetworks) this.cache = { cidrs: localNetworks, nets: nets(localNetworks) };
    const out = new Map<string, { net: Net; values: Record<string, number> }>();
    for (const h of hits) {
      const n = networkOf(this.cache.nets, h.ip);
      if (!n) continue;
      let e = out.get(n.cidr);
      if (!e) out.set(n.cidr, (e = { net: n, values: {} }));
      for (const [key, host] of NETWORK_CHECKS) {
        if (!checks.includes(key)) continue;
        e.values[key] = (e.values[key] ?? 0) + (h.hits[host]?.victim ?? 0);
      }
    }
    return out;
  }

  /** One run at the tick `tstamp` on interface `ifid`, whose local networks are `localNetworks`. */
  tick(ifid: number, tstamp: number, localNetworks: readonly string[], hits: HostHitsQuery): void {
    const enabled = NETWORK_CHECKS.filter(([k]) => this.cfg.isEnabled('network', k) && thresholdOf(this.cfg, 'network', k));
    const raised: AlertInput[] = [];
    if (enabled.length) {
      // every host with victim hits in the minute (threshold 0: strictly above 0)
      const q: Partial<Record<HostCheckName, number>> = {};
      for (const [, host] of enabled) q[host] = 0;
      const sums = this.sums(localNetworks, hits(q), enabled.map(([k]) => k));
      for (const [key] of enabled) {
        const t = thresholdOf(this.cfg, 'network', key)!;
        for (const [cidr, e] of sums) {
          const value = e.values[key] ?? 0;
          if (!crosses(value, t.operator, t.threshold)) continue;
          raised.push(
            checkAlert('network', key, {
              family: 'network', ifid, entityVal: cidr, subtype: key, tstamp,
              fields: { local_network_id: e.net.index, name: cidr },
              json: { metric: key, value, operator: t.operator, threshold: t.threshold, victim: cidr },
            }),
          );
        }
      }
    }
    const ids = NETWORK_CHECKS.flatMap(([k]) => checkDef('network', k)!.alertIds);
    settle(this.sink, 'network', ifid, ids, raised, tstamp);
  }
}
