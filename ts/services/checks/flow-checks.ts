// ⑧ Flow checks: each nDPI risk's alert is raised only while its flow check
// is enabled. The enabled risks become a 64-bit mask, set on this thread,
// sent to the flow writer (the store worker fills the stored rows' alert
// columns) and, as a score table, to the engines (active flows' scores and
// their hosts'), now and after every change.
import type { RiskScoreTable } from '../../bindings/engine.js';
import { riskScoreTable, setEnabledRisks } from '../alerts/catalogue.js';
import type { ChecksConfig } from './config.js';
import { RISK_CHECKS } from './definitions.js';

/** Bit n set when nDPI risk n's flow check is enabled, as [low word, high word]. */
export function enabledRiskMask(cfg: ChecksConfig): [number, number] {
  let lo = 0, hi = 0;
  RISK_CHECKS.forEach((d, risk) => {
    if (!d || !cfg.isEnabled(d.subdir, d.key)) return;
    if (risk < 32) lo |= 1 << risk;
    else hi |= 1 << (risk - 32);
  });
  return [lo >>> 0, hi >>> 0];
}

/** What takes the mask besides this thread (the flow writer). */
export interface RiskMaskSink {
  setEnabledRisks(lo: number, hi: number): Promise<void>;
}

/** What scores active flows (an engine). */
export interface RiskScoreSink {
  setRiskScores(t: RiskScoreTable): void;
}

/**
 * Applies the configuration's enabled risks now and on every change; the
 * engines have them at once, the promise settles once the writer has them.
 * Returns the unsubscribe function.
 */
export function applyFlowChecks(
  cfg: ChecksConfig,
  writer: RiskMaskSink | null | undefined,
  log: (l: string) => void = console.error,
  engines: readonly RiskScoreSink[] = [],
): { ready: Promise<void>; stop: () => void } {
  const apply = () => {
    const [lo, hi] = enabledRiskMask(cfg);
    setEnabledRisks(lo, hi);
    const table = riskScoreTable(lo, hi);
    for (const e of engines) {
      try {
        e.setRiskScores(table);
      } catch (err) {
        log(`flowgate: checks: an engine did not take the score table: ${(err as Error).message}`);
      }
    }
    return writer ? writer.setEnabledRisks(lo, hi).catch((e: Error) => log(`flowgate: checks: the flow writer did not take the change: ${e.message}`)) : Promise.resolve();
  };
  const ready = apply();
  const stop = cfg.onChange(() => void apply());
  return { ready, stop };
}
