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
import type { NetworkCheckHits } from '../../bindings/engine.js';
import type { AlertInput, AlertSink } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';
import { checkAlert, crosses, settle, thresholdOf } from './other-alerts.js';

export const NETWORK_CHECKS = ['syn_scan_victim', 'flow_flood_victim'] as const;
const IDS = NETWORK_CHECKS.flatMap((k) => checkDef('network', k)!.alertIds);

export class NetworkChecks {
  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
  ) {}

  /**
   * One run at the tick `tstamp` on interface `ifid`: `hits` are the engine's
   * figures of the minute (Engine.networkCheckHits), indices into `localNetworks`.
   */
  tick(ifid: number, tstamp: number, localNetworks: readonly string[], hits: readonly NetworkCheckHits[]): void {
    const raised: AlertInput[] = [];
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
