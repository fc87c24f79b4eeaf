// ⑧ ntopng's network checks (check_definitions/network/*.lua) on each local
// network (entity network, value the CIDR, local_network_id its index), run
// at every engine tick on the minute that ended there, as threshold
// crossings (alerts_api.checkThresholdAlert: json {metric, value, operator,
// threshold, victim}, subtype the check's key; raised while the value
// crosses, released after, or once the check is disabled). The figures are
// the engine's per-network counters (NetworkStats' own, not sums of the
// hosts'):
//
// - syn_scan_victim: SYNs the network's hosts received beyond the SYN|ACKs
//   they sent in the minute (syn_recvd_last_min − synack_sent_last_min);
// - flow_flood_victim: the peak rate of new flows with a server in the
//   network (NetworkStats' AlertCounter, per 2-second window).
//
// And network_issues (network_issues.lua, its own alert: json {lost,
// lost_threshold, retransmissions, retransmission_threshold, out_of_order,
// out_of_order_threshold}, subtype the network): the network's TCP
// retransmitted, out-of-order and lost packets since start, each as a
// percentage (one decimal) of the network's packets; raised while one is
// above its threshold (script_conf {retransmissions, out_of_orders,
// packet_loss}: threshold, else default_value 15), released after. ntopng
// divides by the network's bytes (its entity_info inner + egress + ingress
// are byte counters), which makes the shares about a thousand times too
// small; flowgate divides by packets, what the thresholds' percentages mean.
import type { NetworkCheckHits, TrafficBy } from '../../bindings/engine.js';
import type { AlertInput, AlertSink } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';
import { checkAlert, crosses, settle, thresholdOf } from './other-alerts.js';

export const NETWORK_CHECKS = ['syn_scan_victim', 'flow_flood_victim'] as const;
const ISSUES_ID = checkDef('network', 'network_issues')!.alertIds[0];
const IDS = [...NETWORK_CHECKS.flatMap((k) => checkDef('network', k)!.alertIds), ISSUES_ID];

/** format_utils.round(x, 1) */
const round1 = (x: number) => Math.round(x * 10) / 10;

export class NetworkChecks {
  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {}

  /**
   * One run at the tick `tstamp` on interface `ifid`: `hits` are the engine's
   * figures of the minute (Engine.networkCheckHits), indices into `localNetworks`.
   */
  tick(ifid: number, tstamp: number, localNetworks: readonly string[], hits: readonly NetworkCheckHits[], traffic: TrafficBy['networks'] = []): void {
    const raised: AlertInput[] = [];
    if (this.cfg.isEnabled('network', 'network_issues')) {
      const conf = this.cfg.scriptConf('network', 'network_issues');
      const thr = (k: string) => {
        const m = conf[k] as { threshold?: unknown; default_value?: unknown } | undefined;
        const v = Number(m?.threshold ?? m?.default_value ?? 15);
        return Number.isFinite(v) ? v : 15;
      };
      const [retrThr, oooThr, lostThr] = [thr('retransmissions'), thr('out_of_orders'), thr('packet_loss')];
      for (const n of traffic) {
        const cidr = localNetworks[n.index];
        if (!cidr || !n.packets) continue;
        const lost = round1((100 * n.lost) / n.packets), ooo = round1((100 * n.out_of_order) / n.packets), retr = round1((100 * n.retransmissions) / n.packets);
        if (!(lost > lostThr || retr > retrThr || ooo > oooThr)) continue;
        raised.push(
          checkAlert('network', 'network_issues', {
            family: 'network', ifid, entityVal: cidr, subtype: cidr, tstamp,
            fields: { local_network_id: n.index, name: cidr },
            json: { lost, lost_threshold: lostThr, retransmissions: retr, retransmission_threshold: retrThr, out_of_order: ooo, out_of_order_threshold: oooThr },
          }),
        );
      }
    }
    for (const key of NETWORK_CHECKS) {
      const t = thresholdOf(this.cfg, 'network', key);
      if (!t || !this.cfg.isEnabled('network', key)) continue;
      const byIndex = new Map(hits.map((h) => [h.index, h[key]]));
      localNetworks.forEach((cidr, index) => {
        const value = byIndex.get(index) ?? 0;
        if (!crosses(value, t.operator, t.threshold)) return;
        raised.push(
          checkAlert('network', key, {
            family: 'network', ifid, entityVal: cidr, subtype: key, tstamp,
            fields: { local_network_id: index, name: cidr },
            // the victim is the network itself (set_victim(entity_val) when the value is not 0)
            json: { metric: key, value, operator: t.operator, threshold: t.threshold, ...(value ? { victim: cidr } : {}) },
          }),
        );
      });
    }
    settle(this.sink, 'network', ifid, IDS, raised, tstamp);
  }
}
