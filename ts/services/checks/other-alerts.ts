// ⑧ What the interface, network, device and system checks share: the score
// a check's severity gives its alerts, ntopng's threshold comparison, the
// per-period deltas of cumulative counters (alerts_api.interface_delta_val),
// and one run's settlement (raise what holds, release the rest).
import { CATEGORY, scoreToSeverity } from '../alerts/catalogue.js';
import { alertKeyText, type AlertFamily, type AlertInput, type AlertSink } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';

/** Utils::mapSeverityToScore by AlertLevel id (notice 3 … emergency 8) */
const SEVERITY_SCORE: Record<number, number> = { 2: 0, 3: 10, 4: 50, 5: 100, 6: 200, 7: 200, 8: 250 };

/** The score an alert raised by a check gets (alert:set_info takes the check's severity). */
export function checkScore(subdir: string, key: string): number {
  return SEVERITY_SCORE[checkDef(subdir, key)?.severity ?? 3] ?? 10;
}

/** One alert of a check: score and severity from the check's definition, category from the definition too. */
export function checkAlert(subdir: string, key: string, a: Omit<AlertInput, 'score' | 'severity' | 'alertId'> & { alertId?: number }): AlertInput {
  const d = checkDef(subdir, key)!;
  const score = checkScore(subdir, key);
  return {
    ...a,
    alertId: a.alertId ?? d.alertIds[0],
    score,
    severity: scoreToSeverity(score),
    fields: { alert_category: d.category ?? CATEGORY.other, ...a.fields },
    json: {
      // alerts_api.addAlertGenerationInfo: the check that raised it
      alert_generation: { script_key: key, subdir },
      ...a.json,
    },
  };
}

/** checks.operator_functions: gt, lt, eq (anything else compares as gt). */
export function crosses(value: number, operator: unknown, threshold: number): boolean {
  if (operator === 'lt') return value < threshold;
  if (operator === 'eq') return value === threshold;
  return value > threshold;
}

/** A threshold_cross check's configured operator and threshold (null: no usable threshold). */
export function thresholdOf(cfg: ChecksConfig, subdir: string, key: string): { operator: string; threshold: number } | null {
  const t = cfg.threshold(subdir, key);
  if (t === null) return null;
  const op = cfg.scriptConf(subdir, key).operator;
  return { operator: typeof op === 'string' ? op : 'gt', threshold: t };
}

/**
 * Per-period deltas of counters that only grow (alerts_api.interface_delta_val):
 * the first reading gives its value (or 0 with `skipFirst`); a counter that
 * went back (an engine restarted) starts again from its new value.
 */
export class Deltas {
  private readonly last = new Map<string, number>();

  delta(key: string, value: number, skipFirst = false): number {
    const prev = this.last.get(key);
    this.last.set(key, value);
    if (prev === undefined) return skipFirst ? 0 : value;
    return value >= prev ? value - prev : value;
  }

  /** forgets the keys starting with `prefix` (a check disabled: its next run starts afresh) */
  forget(prefix: string): void {
    for (const k of this.last.keys()) if (k.startsWith(prefix)) this.last.delete(k);
  }
}

/**
 * One run of a check on one family and interface: every alert of `raised` is
 * engaged (raised or refreshed), and every engaged alert of the check's ids
 * not among them is released at `tstamp` (its condition ended, or the check
 * is off). `scope` limits the release to the entities the run looked at.
 */
export function settle(
  sink: AlertSink,
  family: AlertFamily,
  ifid: number,
  alertIds: readonly number[],
  raised: readonly AlertInput[],
  tstamp: number,
  scope?: (entityVal: string, subtype: string) => boolean,
): void {
  const keep = new Set<string>();
  for (const a of raised) {
    sink.engage(a);
    keep.add(alertKeyText(a));
  }
  for (const a of sink.engaged(family, ifid)) {
    if (!alertIds.includes(a.alertId) || keep.has(alertKeyText(a))) continue;
    if (scope && !scope(a.entityVal, a.subtype)) continue;
    sink.release({ family, ifid, entityVal: a.entityVal, alertId: a.alertId, subtype: a.subtype }, tstamp);
  }
}
