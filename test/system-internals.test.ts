// ntopng's internals checks (system/slow_periodic_activity,
// system/periodic_activity_not_executed, system/system_error) on flowgate's
// own periodic activities and errors: a run measured against its period
// (the clock faked, every figure worked out by hand), the alerts engaged
// while a minute saw a slow or a skipped run and released after, and each
// queued error stored as alert_system_error, read back over REST.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { measured, periodicActivities, resetPeriodicActivities, type ActivityStats } from '../ts/services/periodic.js';
import { systemError, takeSystemErrors } from '../ts/services/system-errors.js';
import { startOnOnePacket, v2 } from './fixtures/api.js';

const SLOW = 4128, NOT_EXECUTED = 4118, SYSTEM_ERROR = 4187;

describe('periodic activities, measured', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    resetPeriodicActivities();
  });
  afterAll(() => {
    vi.useRealTimers();
    resetPeriodicActivities();
  });

  it('counts a run longer than its period as slow, and each whole period it overran as a run not executed', async () => {
    vi.setSystemTime(1_700_000_000_000);
    await measured('poll', 60, () => undefined);
    expect(periodicActivities().poll).toMatchObject({ period_secs: 60, max_duration_secs: 60, num_runs: 1, num_is_slow: 0, num_not_executed: 0, last_duration_ms: 0 });
    // 130 s: slow, and the runs due at +60 and +120 never started
    await measured('poll', 60, async () => {
      vi.setSystemTime(1_700_000_130_000);
    });
    expect(periodicActivities().poll).toMatchObject({ num_runs: 2, num_is_slow: 1, num_not_executed: 2, last_queued_time: 1_700_000_060, last_duration_ms: 130_000, last_start_time: 1_700_000_000 });
    // a failing run is measured too, and its error goes on
    await expect(
      measured('poll', 60, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(periodicActivities().poll!.num_runs).toBe(3);
  });
});

describe('the internals checks through the service', () => {
  let s: Awaited<ReturnType<typeof startOnOnePacket>>;
  let acts: Record<string, ActivityStats> = {};
  const stats = (o: Partial<ActivityStats>): ActivityStats => ({ period_secs: 60, max_duration_secs: 60, num_runs: 1, num_is_slow: 0, num_not_executed: 0, last_queued_time: 0, last_duration_ms: 10, last_start_time: 0, ...o });
  beforeAll(async () => {
    s = await startOnOnePacket({ history: true });
    // the checks read these figures instead of the process's own (the test sets them)
    (s.checking.systemChecks as unknown as { figures: { activities: () => typeof acts } }).figures.activities = () => acts;
    takeSystemErrors();
  }, 60_000);
  afterAll(async () => {
    await s?.cleanup();
  });
  const engaged = (id: number) =>
    s.checking.alerts
      .engaged('system', -1)
      .filter((a) => a.alertId === id)
      .map((a) => [a.subtype, a.json])
      .sort();

  it('engages slow_periodic_activity / periodic_activity_not_executed per activity while its counters grow, releases them after', () => {
    const T = 1_800_000_000;
    acts = { snmp_devices: stats({ period_secs: 300, max_duration_secs: 300 }), infrastructure_instances: stats({}) };
    s.checking.systemChecks.run(T); // the first run takes the counts as they are (nothing grew yet)
    expect(engaged(SLOW)).toEqual([]);
    acts = { snmp_devices: stats({ period_secs: 300, max_duration_secs: 300, num_is_slow: 1, num_not_executed: 1, last_queued_time: T + 10 }), infrastructure_instances: stats({}) };
    s.checking.systemChecks.run(T + 60);
    expect(engaged(SLOW)).toEqual([['snmp_devices', expect.objectContaining({ ps_name: 'snmp_devices', max_duration_ms: 300_000 })]]);
    expect(engaged(NOT_EXECUTED)).toEqual([['snmp_devices', expect.objectContaining({ ps_name: 'snmp_devices', last_queued_time: T + 10 })]]);
    // a minute without a late run: both released
    s.checking.systemChecks.run(T + 120);
    expect(engaged(SLOW)).toEqual([]);
    expect(engaged(NOT_EXECUTED)).toEqual([]);
  });

  it('stores each queued error as alert_system_error (emergency), readable over REST; off: none', async () => {
    const T = 1_800_000_600;
    systemError('api: GET /lua/rest/v2/get/x.lua: the store went away');
    systemError('alerts: 3 host alert(s) not stored: disk full');
    s.checking.systemChecks.run(T);
    await s.api.alerts.flush();
    const r = await s.call(v2('get/system/alert/list'), { query: { ifid: 0, epoch_begin: T - 60, epoch_end: T + 60, alert_id: `${SYSTEM_ERROR};eq` } });
    expect(r.body.rc, r.text).toBe(0);
    const recs = r.body.rsp.records as { severity: { label: string }; alert_id: { value: string } }[];
    expect(recs).toHaveLength(2);
    for (const x of recs) expect([x.alert_id.value, x.severity.label]).toEqual([String(SYSTEM_ERROR), 'Emergency']);
    const json = await s.call(v2('get/alert/list/alerts'), { query: { ifid: 0, alert_family: 'system', epoch_begin: T - 60, epoch_end: T + 60, select_clause: 'json', where_clause: `alert_id=${SYSTEM_ERROR}`, maxhits_clause: 10 } });
    expect((json.body.rsp as { json: string }[]).map((x) => JSON.parse(x.json).system_error_msg).sort()).toEqual(['alerts: 3 host alert(s) not stored: disk full', 'api: GET /lua/rest/v2/get/x.lua: the store went away']);
    // disabled: the errors are taken and not stored
    await s.call(v2('disable/check'), { form: { check_subdir: 'system', script_key: 'system_error' } });
    systemError('not stored');
    s.checking.systemChecks.run(T + 60);
    await s.api.alerts.flush();
    const after = await s.call(v2('get/system/alert/list'), { query: { ifid: 0, epoch_begin: T - 60, epoch_end: T + 120, alert_id: `${SYSTEM_ERROR};eq` } });
    expect(after.body.recordsTotal).toBe(2);
    expect(takeSystemErrors().errors).toEqual([]);
  });
});
