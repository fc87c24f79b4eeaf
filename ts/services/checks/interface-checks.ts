// ⑧ ntopng's interface checks (check_definitions/interface/*.lua), run at
// every engine tick on the minute that ended there (no_if_activity on the
// wall clock instead: an idle capture makes no tick):
//
// - too_many_drops: drops × 100 / (drops + packets + 1) since startup (the
//   interface's stats_since_reset), alert while it is above the threshold and
//   more than 100 packets were seen; json {drops, drop_perc, edge};
// - no_if_activity: a live interface whose packets and flows did not grow
//   since the previous minute's run; json {ifname_no_activity};
// - ghost_networks: a broadcast domain learned from ARP that is none of the
//   local networks (the interface's own addresses are among them) on a live
//   interface (BroadcastDomains::isGhostLocalBroadcastDomain: never on a
//   capture file), alerted while its hits grow, one alert per domain
//   (subtype the domain); json {network};
// - dropped_alerts: alerts the alert service dropped for this interface in
//   the minute (the first minute only takes the count); json {ifid, num_dropped}.
// Each raises its alert (entity interface, value the ifid; subtype the
// interface name unless said) while the condition holds and releases it when
// it ends or the check is disabled.
import { BlockList, isIPv4 } from 'node:net';

import type { AlertInput, AlertSink } from '../alerts/types.js';
import type { EngineStats } from '../../bindings/engine.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';
import { Deltas, checkAlert, settle, thresholdOf } from './other-alerts.js';

/** ntopng's too_many_drops runs only once more than this many packets were seen */
const MIN_PACKETS = 100;

/** The interface as the interface checks see it. */
export interface CheckedInterface {
  ifid: number;
  /** ntopng's interface name (the device, or the capture file) */
  ifname: string;
  /** a capture file is replayed: no activity and ghost network checks */
  isFile: boolean;
  /** the local networks in force (the interface's own addresses included) */
  localNetworks: readonly string[];
  stats(): EngineStats;
  /** alerts the alert service dropped for this interface since startup */
  droppedAlerts(): number;
}

function cidrList(cidrs: readonly string[]): BlockList {
  const b = new BlockList();
  for (const c of cidrs) {
    const [addr, len] = c.split('/');
    const v4 = isIPv4(addr);
    b.addSubnet(addr, Number(len ?? (v4 ? 32 : 128)), v4 ? 'ipv4' : 'ipv6');
  }
  return b;
}

/**
 * A broadcast domain is a ghost network when its address lies in none of the
 * local networks, on a live interface only (ntopng's is_interface_network ||
 * isLocalHost, and the PCAP-dump exclusion).
 */
export function isGhostNetwork(domain: string, localNetworks: readonly string[], isFile: boolean): boolean {
  if (isFile) return false;
  const addr = domain.split('/')[0];
  return !cidrList(localNetworks).check(addr, isIPv4(addr) ? 'ipv4' : 'ipv6');
}

const IDS = {
  too_many_drops: checkDef('interface', 'too_many_drops')!.alertIds,
  no_if_activity: checkDef('interface', 'no_if_activity')!.alertIds,
  ghost_networks: checkDef('interface', 'ghost_networks')!.alertIds,
  dropped_alerts: checkDef('interface', 'dropped_alerts')!.alertIds,
};

export class InterfaceChecks {
  private readonly deltas = new Deltas();

  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {}

  /** One run at the engine tick `tstamp` (epoch s, packet time). */
  tick(i: CheckedInterface, tstamp: number): void {
    const s = i.stats();
    const on = (k: keyof typeof IDS) => this.cfg.isEnabled('interface', k);
    const base = (key: string, subtype: string, json: Record<string, unknown>) => this.alert(i, key, subtype, tstamp, json);
    const p = `${i.ifid}|`;

    // too_many_drops: since startup, as ntopng's stats_since_reset
    const drops: AlertInput[] = [];
    const thr = thresholdOf(this.cfg, 'interface', 'too_many_drops');
    if (on('too_many_drops') && thr) {
      const dropPerc = Math.min((s.drops * 100) / (s.drops + s.packets + 1), 100);
      if (s.packets > MIN_PACKETS && dropPerc > thr.threshold) drops.push(base('too_many_drops', i.ifname, { drops: s.drops, drop_perc: dropPerc, edge: thr.threshold }));
    }
    settle(this.sink, 'interface', i.ifid, IDS.too_many_drops, drops, tstamp);

    // ghost_networks: one alert per ghost domain whose hits grew in the minute
    const ghosts: AlertInput[] = [];
    const seen = new Set<string>();
    if (on('ghost_networks')) {
      for (const d of s.bcast_domains) {
        if (!isGhostNetwork(d.network, i.localNetworks, i.isFile)) continue;
        seen.add(d.network);
        if (this.deltas.delta(`${p}ghost_networks__${d.network}`, d.hits) > 0) ghosts.push(base('ghost_networks', d.network, { network: d.network }));
      }
    } else this.deltas.forget(`${p}ghost_networks`);
    // an alert on a domain no longer listed stays until the check sees it quiet (or is disabled)
    settle(this.sink, 'interface', i.ifid, IDS.ghost_networks, ghosts, tstamp, on('ghost_networks') ? (_e, sub) => seen.has(sub) : undefined);

    // dropped_alerts: the first run only takes the count (skip first)
    const dropped: AlertInput[] = [];
    if (on('dropped_alerts')) {
      const n = this.deltas.delta(`${p}dropped_alerts`, i.droppedAlerts(), true);
      if (n > 0) dropped.push(base('dropped_alerts', i.ifname, { ifid: i.ifid, num_dropped: n }));
    } else this.deltas.forget(`${p}dropped_alerts`);
    settle(this.sink, 'interface', i.ifid, IDS.dropped_alerts, dropped, tstamp);
  }

  /**
   * no_if_activity, on the wall clock (an idle live capture makes no engine
   * tick): a live interface whose packets and flows did not grow since the
   * previous run (the first run compares with 0, as interface_delta_val).
   */
  activity(i: CheckedInterface, tstamp: number): void {
    const p = `${i.ifid}|no_if_activity`;
    const idle: AlertInput[] = [];
    if (this.cfg.isEnabled('interface', 'no_if_activity') && !i.isFile) {
      const s = i.stats();
      const dp = this.deltas.delta(`${p}.pkts`, s.packets);
      const df = this.deltas.delta(`${p}.flows`, s.flows_created);
      if (dp === 0 && df === 0) idle.push(this.alert(i, 'no_if_activity', i.ifname, tstamp, { ifname_no_activity: i.ifname }));
    } else this.deltas.forget(p);
    settle(this.sink, 'interface', i.ifid, IDS.no_if_activity, idle, tstamp);
  }

  /** An alert of the interface (alert:set_info: subtype the interface name unless the check sets one). */
  private alert(i: CheckedInterface, key: string, subtype: string, tstamp: number, json: Record<string, unknown>): AlertInput {
    return checkAlert('interface', key, {
      family: 'interface', ifid: i.ifid, entityVal: String(i.ifid), subtype, tstamp,
      fields: { ifid: i.ifid, subtype, name: i.ifname },
      json,
    });
  }
}
