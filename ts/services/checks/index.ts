// ⑧ Checks at work: the configuration, the flow checks applied to the flow
// writer, the alert service, and the host checks run at every engine tick.
// Started before the engines so a replay's first minute is checked too.
import { AlertService } from '../alerts/alert-service.js';
import type { Engine } from '../../bindings/engine.js';
import type { ConfigStore } from '../config-store.js';
import type { History } from '../store/history.js';
import { ChecksConfig } from './config.js';
import { applyFlowChecks } from './flow-checks.js';
import { HostChecks } from './host-checks.js';

export interface Checking {
  checks: ChecksConfig;
  alerts: AlertService;
  hostChecks: HostChecks;
  /** detaches from the engines, then writes the alerts still queued */
  close(): Promise<void>;
}

export interface CheckingOptions {
  store: ConfigStore;
  history: History | null;
  log?: (line: string) => void;
}

export async function startChecking(ifaces: readonly { ifid: number; engine: Engine }[], o: CheckingOptions): Promise<Checking> {
  const log = o.log ?? ((l: string) => console.error(l));
  const checks = ChecksConfig.open(o.store);
  const flowChecks = applyFlowChecks(
    checks,
    o.history?.writer,
    log,
    ifaces.map((i) => i.engine),
  );
  await flowChecks.ready;
  // stored beside the flows (one table per family); without a store engaged
  // alerts still work and stored ones are counted as dropped
  const alerts = await AlertService.open(o.history?.backend ?? null, { log });
  const hostChecks = new HostChecks(checks, alerts);
  // the hits of the minute that ended at the tick, asked with the enabled checks' thresholds
  const removers = ifaces.map((i) =>
    i.engine.addTickListener((boundary) =>
      hostChecks.tick(i.ifid, boundary, (t) => i.engine.hostCheckHits(t), (t) => i.engine.hostScoresAbove(t)),
    ),
  );
  return {
    checks,
    alerts,
    hostChecks,
    close: async () => {
      for (const r of removers) r();
      flowChecks.stop();
      await alerts.close();
    },
  };
}
