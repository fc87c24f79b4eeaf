// ⑧ System checks (entity system, value 'system', on the system interface
// -1), run on a wall-clock timer once a minute (ntopng's system scripts run
// on the 'min' hook of the system interface), never from packet time:
//
// - dropped_alerts (system/dropped_alerts.lua): alerts the alert service
//   dropped in the minute on every interface (ntopng's internal alerts
//   queue num_not_enqueued), the first run only takes the count;
//   json {ifid: -1, num_dropped};
// - memory_usage: this process's resident memory in MiB
//   (process.memoryUsage().rss) crossing the configured threshold;
// - disk_space: the percentage used of the filesystem holding the data
//   directory (statfs: blocks − free over blocks) crossing the threshold.
// The last two are flowgate's (ntopng has no such definition): threshold
// checks off by default, alerted as ntopng's alert_threshold_cross
// {metric, value, operator, threshold} with subtype the check's key.
// - slow_periodic_activity / periodic_activity_not_executed (system/*.lua):
//   per periodic activity (periodic.ts: the SNMP poll, the infrastructure
//   poll, the scans' schedule, active monitoring's rounds, the store's
//   retention, these checks), engaged while a run in the minute took longer
//   than its period / a run due could not start because the last one was
//   still going, released otherwise; subtype the activity, json {ps_name,
//   max_duration_ms} / {ps_name, last_queued_time}.
// - system_error (system/system_error.lua): each error the service queued
//   (system-errors.ts: an API request that failed inside, alerts the store
//   refused) is stored as alert_system_error {system_error_msg}, emergency.
import { statfsSync } from 'node:fs';

import { SYSTEM_IFID, type AlertInput, type AlertSink } from '../alerts/types.js';
import type { ChecksConfig } from './config.js';
import { checkDef } from './definitions.js';
import { Deltas, checkAlert, crosses, settle, thresholdOf } from './other-alerts.js';
import { measured, periodicActivities, type ActivityStats } from '../periodic.js';
import { takeSystemErrors } from '../system-errors.js';

const ENTITY = 'system';
const PERIOD_MS = 60_000;
const MIB = 1024 * 1024;

/** What the system checks measure, read at each run. */
export interface SystemFigures {
  /** alerts dropped since startup, every interface summed */
  droppedAlerts(): number;
  /** resident memory of this process, bytes */
  rssBytes(): number;
  /** used percentage of the data directory's filesystem (null: unknown) */
  diskUsedPct(): number | null;
  /** the periodic activities' figures (default: this process's, periodic.ts) */
  activities?(): Record<string, ActivityStats>;
  /** the errors queued since the last run (default: this process's, system-errors.ts) */
  errors?(): { errors: string[]; dropped: number };
}

/** The real figures: this process, the filesystem of `dataDir`. */
export function processFigures(dataDir: string, droppedAlerts: () => number): SystemFigures {
  return {
    droppedAlerts,
    rssBytes: () => process.memoryUsage().rss,
    diskUsedPct: () => {
      try {
        const s = statfsSync(dataDir);
        return s.blocks > 0 ? ((s.blocks - s.bfree) * 100) / s.blocks : null;
      } catch {
        return null;
      }
    },
  };
}

export const SYSTEM_THRESHOLD_CHECKS = ['memory_usage', 'disk_space'] as const;

export class SystemChecks {
  private readonly deltas = new Deltas();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly cfg: ChecksConfig,
    private readonly sink: AlertSink,
    private readonly figures: SystemFigures,
    /** more to run on the same timer (the interfaces' activity), with the run's time */
    private readonly alsoEachMinute?: (tstamp: number) => void,
  ) {}

  /** Runs now and then once a minute (the timer does not keep the process alive). */
  start(): this {
    const guarded = (f: () => void) => {
      try {
        f();
      } catch (e) {
        console.error(`flowgate: checks: ${(e as Error).message}`);
      }
    };
    // the interfaces' activity is first judged a minute after the start
    guarded(() => this.run());
    this.timer = setInterval(() => {
      const now = Math.floor(Date.now() / 1000);
      void measured('system_checks', PERIOD_MS / 1000, () => {
        guarded(() => this.run(now));
        guarded(() => this.alsoEachMinute?.(now));
      });
    }, PERIOD_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One run at wall time `tstamp` (epoch s). */
  run(tstamp = Math.floor(Date.now() / 1000)): void {
    const base = (key: string, subtype: string, json: Record<string, unknown>): AlertInput =>
      checkAlert('system', key, { family: 'system', ifid: SYSTEM_IFID, entityVal: ENTITY, subtype, tstamp, fields: { name: ENTITY }, json });

    const dropped: AlertInput[] = [];
    if (this.cfg.isEnabled('system', 'dropped_alerts')) {
      const n = this.deltas.delta('dropped_alerts', this.figures.droppedAlerts(), true);
      if (n > 0) dropped.push(base('dropped_alerts', '', { ifid: SYSTEM_IFID, num_dropped: n }));
    } else this.deltas.forget('dropped_alerts');
    settle(this.sink, 'system', SYSTEM_IFID, checkDef('system', 'dropped_alerts')!.alertIds, dropped, tstamp);

    const crossed: AlertInput[] = [];
    for (const key of SYSTEM_THRESHOLD_CHECKS) {
      const t = thresholdOf(this.cfg, 'system', key);
      if (!this.cfg.isEnabled('system', key) || !t) continue;
      const v = key === 'memory_usage' ? this.figures.rssBytes() / MIB : this.figures.diskUsedPct();
      if (v === null) continue;
      const value = Math.round(v * 100) / 100;
      if (crosses(value, t.operator, t.threshold)) crossed.push(base(key, key, { metric: key, value, operator: t.operator, threshold: t.threshold }));
    }
    settle(this.sink, 'system', SYSTEM_IFID, checkDef('system', 'memory_usage')!.alertIds, crossed, tstamp);

    // the periodic activities: a slow run, a run that could not start, in the minute
    const acts = (this.figures.activities ?? periodicActivities)();
    for (const [key, field] of [['slow_periodic_activity', 'num_is_slow'], ['periodic_activity_not_executed', 'num_not_executed']] as const) {
      const late: AlertInput[] = [];
      for (const [name, a] of Object.entries(acts)) {
        const metric = `${key}/${name}`;
        if (!this.cfg.isEnabled('system', key)) {
          this.deltas.forget(metric);
          continue;
        }
        if (this.deltas.delta(metric, a[field], false) <= 0) continue;
        const json = key === 'slow_periodic_activity' ? { ps_name: name, max_duration_ms: a.max_duration_secs * 1000 } : { ps_name: name, last_queued_time: a.last_queued_time };
        late.push(base(key, name, json));
      }
      settle(this.sink, 'system', SYSTEM_IFID, checkDef('system', key)!.alertIds, late, tstamp);
    }

    // the service's own errors, one stored alert each
    const { errors, dropped: lost } = (this.figures.errors ?? takeSystemErrors)();
    if (this.cfg.isEnabled('system', 'system_error')) {
      for (const msg of errors) this.sink.emit(base('system_error', '', { system_error_msg: msg }));
      if (lost) this.sink.emit(base('system_error', '', { system_error_msg: `${lost} more error(s) not kept (the queue was full)` }));
    }
  }
}
