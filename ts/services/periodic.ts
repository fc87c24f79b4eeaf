// ⑧ The service's periodic activities and how they keep time — what
// ntopng's interface.getPeriodicActivitiesStats reports of its periodic
// scripts, read by the system checks slow_periodic_activity and
// periodic_activity_not_executed: per activity its period, the duration it
// should stay under (its period), the runs that took longer (num_is_slow)
// and the whole periods that passed while a run was still going, so the runs
// due then never started (num_not_executed, the first of them due at
// last_queued_time).

export interface ActivityStats {
  period_secs: number;
  max_duration_secs: number;
  num_runs: number;
  num_is_slow: number;
  num_not_executed: number;
  /** epoch s of the last boundary passed while a run was going (0: none) */
  last_queued_time: number;
  /** ms of the last run */
  last_duration_ms: number;
  /** epoch s the last run began */
  last_start_time: number;
}

const activities = new Map<string, ActivityStats>();

/** Registers an activity run every `periodSec` (again: the same record). */
function periodicActivity(name: string, periodSec: number, maxDurationSec = periodSec): ActivityStats {
  let a = activities.get(name);
  if (!a) {
    a = { period_secs: periodSec, max_duration_secs: maxDurationSec, num_runs: 0, num_is_slow: 0, num_not_executed: 0, last_queued_time: 0, last_duration_ms: 0, last_start_time: 0 };
    activities.set(name, a);
  }
  return a;
}

/** Runs one turn of an activity, measured against its period. */
export async function measured<T>(name: string, periodSec: number, run: () => Promise<T> | T): Promise<T> {
  const a = periodicActivity(name, periodSec);
  const start = Date.now();
  try {
    return await run();
  } finally {
    const end = Date.now();
    a.num_runs++;
    a.last_start_time = Math.floor(start / 1000);
    a.last_duration_ms = end - start;
    if (end - start > a.max_duration_secs * 1000) a.num_is_slow++;
    // whole periods that passed while this run went on: the runs due then could not start
    const missed = Math.floor((end - start) / (a.period_secs * 1000));
    if (missed > 0) {
      a.num_not_executed += missed;
      a.last_queued_time = Math.floor(start / 1000) + a.period_secs;
    }
  }
}

/** Every activity's figures, by name. */
export function periodicActivities(): Record<string, ActivityStats> {
  return Object.fromEntries([...activities].map(([k, v]) => [k, { ...v }]));
}

/** Forgets every activity (tests). */
export function resetPeriodicActivities(): void {
  activities.clear();
}
