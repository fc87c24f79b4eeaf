// The packet-counting host checks' policy with hit lists written here and a
// recording sink, every expected value derived by hand from ntopng's
// sources: FlowHits.cpp / SYNScan.cpp (attacker first, strictly greater,
// refresh keeps the role), HostChecksExecutor.cpp (auto-release, disabled
// checks released), FlowHitsAlert (score SCORE_LEVEL_WARNING = 50, json
// is_attacker/value/threshold), HostAlert.h (client share 100 % attacker,
// 0 % victim → is_client / is_server), mapScoreToSeverity(50) = warning (4).
// And the user alerts the REST API raises: failed logins, sessions, user
// and check changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { HostCheckHits, HostCheckName } from '../ts/services/alerts/types.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import type { HostScoreRow } from '../ts/bindings/engine.js';
import { HostChecks } from '../ts/services/checks/host-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';

const IF = 3;
const T0 = 1_700_000_040;

const host = (ip: string, hits: HostCheckHits['hits'], o: Partial<HostCheckHits> = {}): HostCheckHits => ({ ip, vlan: 0, local: true, name: '', hits, ...o });

describe('host checks runner', () => {
  let dir: string, store: ConfigStore, cfg: ChecksConfig, sink: RecordingSink, run: HostChecks;
  /** thresholds asked of the engine at each tick */
  let asked: Partial<Record<HostCheckName, number>>[];
  const tick = (t: number, list: HostCheckHits[]) => run.tick(IF, t, (th) => (asked.push(th), list));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-hostchecks-'));
    store = new ConfigStore(dir);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    cfg = ChecksConfig.open(store);
    await cfg.reset();
    sink = new RecordingSink();
    run = new HostChecks(cfg, sink);
    asked = [];
  });

  it('asks nothing while every check is disabled (their default)', () => {
    tick(T0, [host('10.0.0.1', { syn_scan: { attacker: 1000, victim: 0 } })]);
    expect(asked).toEqual([]);
    expect(sink.calls).toEqual([]);
  });

  it('raises above the threshold only (strictly greater), with ntopng’s score, roles, fields and json', async () => {
    await cfg.setEnabled('host', 'syn_scan', true);
    await cfg.setEnabled('host', 'icmp_flood', true);
    tick(T0, [
      host('10.0.0.1', { syn_scan: { attacker: 256, victim: 0 } }), // == 256: not above
      host('10.0.0.2', { syn_scan: { attacker: 257, victim: 0 } }, { name: 'scanner.lan' }),
      host('fe80::1', { icmp_flood: { attacker: 0, victim: 251 } }, { vlan: 7, local: false }),
      host('10.0.0.3', { icmp_flood: { attacker: 250, victim: 250 } }), // == 250 both
    ]);
    // syn_scan.lua 256, icmp_flood.lua 250
    expect(asked).toEqual([{ syn_scan: 256, icmp_flood: 250 }]);
    const calls = sink.take();
    expect(calls.map((c) => c.op)).toEqual(['engage', 'engage']);
    const [a, v] = calls.map((c) => (c as { alert: any }).alert);
    expect(a).toEqual({
      family: 'host', ifid: IF, entityVal: '10.0.0.2', alertId: 5, subtype: '', tstamp: T0, score: 50, severity: 4,
      fields: { ip: '10.0.0.2', vlan_id: 0, name: 'scanner.lan', ip_version: 4, is_attacker: 1, is_victim: 0, is_client: 1, is_server: 0, alert_category: 1, granularity: 60 },
      json: { alert_generation: { script_key: 'syn_scan', subdir: 'host', host_info: { name: 'scanner.lan', localhost: true } }, is_attacker: true, value: 257, threshold: 256 },
    });
    expect(v).toEqual({
      family: 'host', ifid: IF, entityVal: 'fe80::1@7', alertId: 18, subtype: '', tstamp: T0, score: 50, severity: 4,
      fields: { ip: 'fe80::1', vlan_id: 7, name: '', ip_version: 6, is_attacker: 0, is_victim: 1, is_client: 0, is_server: 1, alert_category: 1, granularity: 60 },
      json: { alert_generation: { script_key: 'icmp_flood', subdir: 'host', host_info: { name: 'fe80::1', localhost: false } }, is_attacker: false, value: 251, threshold: 250 },
    });
  });

  it('looks at the victim only when the attacker figure is not above', async () => {
    await cfg.setEnabled('host', 'flow_flood', true);
    tick(T0, [host('10.0.0.4', { flow_flood: { attacker: 300, victim: 900 } }), host('10.0.0.5', { flow_flood: { attacker: 100, victim: 900 } })]);
    const al = sink.take().map((c) => (c as { alert: any }).alert);
    expect(al.map((x) => [x.entityVal, x.alertId, x.fields.is_attacker, x.json.value])).toEqual([
      ['10.0.0.4', 4, 1, 300],
      ['10.0.0.5', 4, 0, 900],
    ]);
  });

  it('refreshes while above, keeps the role it was raised with, releases when it stops', async () => {
    await cfg.setEnabled('host', 'rst_scan', true);
    const h = (attacker: number, victim: number) => [host('10.0.0.6', { rst_scan: { attacker, victim } })];
    tick(T0, h(400, 0));
    tick(T0 + 60, h(500, 0));
    expect(sink.engaged('host', IF)).toMatchObject([{ entityVal: '10.0.0.6', alertId: 25, count: 2, firstSeen: T0, tstamp: T0 + 60, json: { value: 500, is_attacker: true } }]);
    // the threshold raised meanwhile: the engaged alert keeps the one it was raised with
    await cfg.update('host', 'rst_scan', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 450 } } });
    tick(T0 + 120, h(460, 0));
    expect(sink.engaged('host', IF)[0].json).toMatchObject({ value: 460, threshold: 256 });
    // now a victim: refreshed as the attacker alert it is, its figures untouched
    tick(T0 + 180, h(0, 999));
    const e = sink.engaged('host', IF)[0];
    expect([e.count, e.tstamp, e.fields.is_attacker, e.fields.is_victim, e.json.value]).toEqual([4, T0 + 180, 1, 0, 460]);
    sink.take();
    // not above any more: released at this tick
    tick(T0 + 240, h(450, 450));
    expect(sink.take()).toEqual([{ op: 'release', key: { family: 'host', ifid: IF, entityVal: '10.0.0.6', alertId: 25, subtype: '' }, tstamp: T0 + 240 }]);
    expect(sink.engaged('host', IF)).toEqual([]);
  });

  it('releases the alerts of a check disabled meanwhile, and only those of its checks', async () => {
    await cfg.setEnabled('host', 'syn_scan', true);
    await cfg.setEnabled('host', 'fin_scan', true);
    // an alert some other host check engaged (score_threshold, 17) on this interface
    sink.engage({ family: 'host', ifid: IF, entityVal: '10.0.0.9', alertId: 17, subtype: '', tstamp: T0, score: 100, severity: 5, fields: {}, json: {} });
    const list = [host('10.0.0.7', { syn_scan: { attacker: 1000, victim: 0 }, fin_scan: { attacker: 1000, victim: 0 } })];
    tick(T0, list);
    expect(sink.engaged('host', IF).map((a) => a.alertId).sort((x, y) => x - y)).toEqual([5, 17, 21]);
    sink.take();
    await cfg.setEnabled('host', 'fin_scan', false);
    tick(T0 + 60, list);
    expect(asked[1]).toEqual({ syn_scan: 256 });
    expect(sink.take()).toEqual([
      { op: 'engage', alert: expect.objectContaining({ alertId: 5, tstamp: T0 + 60 }) },
      { op: 'release', key: { family: 'host', ifid: IF, entityVal: '10.0.0.7', alertId: 21, subtype: '' }, tstamp: T0 + 60 },
    ]);
    // every check off: nothing asked, the rest released, the other check's alert left alone
    await cfg.setEnabled('host', 'syn_scan', false);
    tick(T0 + 120, list);
    expect(asked).toHaveLength(2);
    expect(sink.take()).toEqual([{ op: 'release', key: { family: 'host', ifid: IF, entityVal: '10.0.0.7', alertId: 5, subtype: '' }, tstamp: T0 + 120 }]);
    expect(sink.engaged('host', IF).map((a) => a.alertId)).toEqual([17]);
  });

  it('keeps interfaces apart', async () => {
    await cfg.setEnabled('host', 'syn_scan', true);
    sink.engage({ family: 'host', ifid: IF + 1, entityVal: '10.0.0.8', alertId: 5, subtype: '', tstamp: T0, score: 50, severity: 4, fields: {}, json: {} });
    tick(T0 + 60, []);
    expect(sink.engaged('host', IF + 1)).toHaveLength(1);
    expect(sink.calls.filter((c) => c.op === 'release')).toEqual([]);
  });

  // dangerous_host (DangerousHost.cpp, DangerousHostAlert.h): total score (client + server) above
  // the threshold at more than NUM_CONSECUTIVE_CHECKS_BEFORE_ALERTING = 5 consecutive runs; score
  // SCORE_LEVEL_ERROR = 100 → severity error (5); client share 100 % → is_client; json
  // consecutive_high_score and score of the run that raised it.
  describe('dangerous_host', () => {
    let asked: number[];
    const scored = (ip: string, cli: number, srv: number): HostScoreRow => ({
      ip, vlan: 0, local: true, name: '', score_as_client: cli, score_as_server: srv, score_breakdown: { as_client: [cli, 0], as_server: [srv, 0] },
    });
    // the engine's filter: a side strictly above the asked threshold
    const tick = (t: number, hosts: HostScoreRow[]) =>
      run.tick(IF, t, () => [], (thr) => (asked.push(thr), hosts.filter((h) => h.score_as_client > thr || h.score_as_server > thr)));

    // after the runner's own reset (configuration, sink, runner)
    beforeEach(async () => {
      await cfg.setEnabled('host', 'score_threshold', false);
      asked = [];
    });

    it('is off by default and asks nothing', () => {
      for (let i = 0; i < 8; i++) tick(T0 + 60 * i, [scored('10.0.0.1', 5000, 5000)]);
      expect(asked).toEqual([]);
      expect(sink.calls).toEqual([]);
    });

    it('alerts at the sixth consecutive run above 1000 (the total of both sides), refreshes, releases when the streak ends', async () => {
      await cfg.setEnabled('host', 'dangerous_host', true);
      // 600 + 500 = 1100 > 1000 though neither side is; 500 + 500 = 1000 is not above
      const hot = scored('10.0.0.1', 600, 500), even = scored('10.0.0.2', 500, 500);
      for (let i = 0; i < 5; i++) tick(T0 + 60 * i, [hot, even]);
      // the engine is asked for a side above 500: every host whose total can pass 1000
      expect(asked).toEqual([500, 500, 500, 500, 500]);
      expect(sink.take()).toEqual([]);
      tick(T0 + 300, [scored('10.0.0.1', 700, 500), even]);
      const [c] = sink.take() as { op: string; alert: any }[];
      expect(c!.op).toBe('engage');
      expect(c!.alert).toEqual({
        family: 'host', ifid: IF, entityVal: '10.0.0.1', alertId: 14, subtype: '', tstamp: T0 + 300, score: 100, severity: 5,
        fields: { ip: '10.0.0.1', vlan_id: 0, name: '', ip_version: 4, is_attacker: 0, is_victim: 0, is_client: 1, is_server: 0, alert_category: 1, granularity: 60 },
        json: { alert_generation: { script_key: 'dangerous_host', subdir: 'host', host_info: { name: '10.0.0.1', localhost: true } }, consecutive_high_score: 6, score: 1200 },
      });
      // refreshed as raised (its json stays), then released at the first run not above
      tick(T0 + 360, [scored('10.0.0.1', 2000, 0)]);
      const [r] = sink.take() as { op: string; alert: any }[];
      expect([r!.op, r!.alert.tstamp, r!.alert.json.score, r!.alert.json.consecutive_high_score]).toEqual(['engage', T0 + 360, 1200, 6]);
      tick(T0 + 420, [scored('10.0.0.1', 400, 500)]);
      expect(sink.take()).toEqual([{ op: 'release', key: { family: 'host', ifid: IF, entityVal: '10.0.0.1', alertId: 14, subtype: '' }, tstamp: T0 + 420 }]);
    });

    it('a run below the threshold restarts the streak; the configured threshold is used', async () => {
      await cfg.setEnabled('host', 'dangerous_host', true);
      await cfg.update('host', 'dangerous_host', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 99 } } });
      const h = scored('10.0.0.3', 100, 0);
      for (let i = 0; i < 5; i++) tick(T0 + 60 * i, [h]);
      tick(T0 + 300, []); // streak broken at the sixth run
      for (let i = 6; i < 11; i++) tick(T0 + 60 * i, [h]);
      expect(sink.take()).toEqual([]);
      expect(asked[0]).toBe(49);
      tick(T0 + 660, [h]);
      expect((sink.take() as { op: string; alert: any }[]).map((c) => [c.op, c.alert.alertId, c.alert.json.consecutive_high_score])).toEqual([['engage', 14, 6]]);
    });

    it('an excluded host gets no alert', async () => {
      await cfg.setEnabled('host', 'dangerous_host', true);
      run = new HostChecks(cfg, sink, (ip, _vlan, id) => ip === '10.0.0.4' && id === 14);
      for (let i = 0; i < 7; i++) tick(T0 + 60 * i, [scored('10.0.0.4', 3000, 0), scored('10.0.0.5', 3000, 0)]);
      expect((sink.calls as { op: string; alert: any }[]).map((c) => c.alert.entityVal)).toEqual(['10.0.0.5', '10.0.0.5']);
    });
  });
});

describe('user alerts from the REST API', () => {
  let s: ApiService;
  const sink = new RecordingSink();
  beforeAll(async () => {
    s = await startApi({ files: [], alerts: sink });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  /** the common part of a user alert (ifid -1: the system interface) */
  const user = (entityVal: string, alertId: number, score: number, severity: number) =>
    ({ family: 'user', ifid: -1, entityVal, alertId, score, severity, fields: { user: entityVal }, tstamp: expect.any(Number) });

  it('records failed logins (login_failed, score 50) for the name tried', async () => {
    sink.take();
    const r = await s.call(v2('get/checks/config'), { user: 'admin', pw: 'wrong' });
    expect(r.body.rc).toBe(-3);
    await s.call(v2('get/checks/config'), { user: 'mallory', pw: 'x' });
    // a token or no credentials name no user: nothing recorded
    await s.call(v2('get/checks/config'), { token: 'deadbeef' });
    await s.call(v2('get/checks/config'), { user: null });
    expect(sink.emitted()).toEqual([
      { ...user('admin', 4111, 50, 4), subtype: '', json: {} },
      { ...user('mallory', 4111, 50, 4), subtype: '', json: {} },
    ]);
    expect(sink.take().every((c) => c.op === 'emit')).toBe(true);
    // the right password: nothing
    await s.call(v2('get/checks/config'));
    expect(sink.take()).toEqual([]);
  });

  it('records user changes (user_activity, score 10) without passwords', async () => {
    sink.take();
    const pw = 'Secret-pw-123', pw2 = 'Other-pw-456';
    let r = await s.call(v2('add/ntopng/user'), { form: { username: 'bob', full_name: 'Bob', password: pw, confirm_password: pw, user_role: 'unprivileged', allowed_networks: '10.0.0.0/8' } });
    expect(r.body.rc, r.text).toBe(0);
    r = await s.call(v2('edit/ntopng/user'), { form: { username: 'bob', full_name: 'Bob B', password: pw2, confirm_password: pw2 } });
    expect(r.body.rc, r.text).toBe(0);
    r = await s.call(v2('delete/ntopng/user'), { form: { username: 'bob' } });
    expect(r.body.rc, r.text).toBe(0);
    const got = sink.emitted();
    expect(JSON.stringify(got)).not.toContain(pw);
    expect(JSON.stringify(got)).not.toContain(pw2);
    // the user who made them; the client's address in the subtype and json
    const fn = (name: string, params: unknown) => ({
      ...user('admin', 4139, 10, 3),
      subtype: `function/${name}/127.0.0.1`,
      json: { scope: 'function', name, params, remote_addr: '127.0.0.1' },
    });
    expect(got).toEqual([
      fn('addUser', ['bob', 'Bob', '', 'unprivileged', '10.0.0.0/8', '', null, 'en', 'false', 'false', 'false']), // allow_alerts off unless given, as ntopng
      fn('resetUserPassword', ['admin', 'bob', '', '']),
      fn('edit_ntopng_user', { username: 'bob', full_name: 'Bob B' }),
      fn('deleteUser', ['bob']),
    ]);
  });

  it('records check changes and sessions', async () => {
    sink.take();
    await s.call(v2('disable/check'), { form: { check_subdir: 'flow', script_key: 'ndpi_unsafe_protocol' } });
    await s.call('/lua/toggle_all_checks.lua', { form: { action: 'enable', check_subdir: 'host' } });
    // refused: nothing recorded
    await s.call(v2('enable/check'), { form: { check_subdir: 'host', script_key: 'nosuch' } });
    await s.call(v2('create/ntopng/session'), { form: { username: 'admin' } });
    const got = sink.emitted();
    expect(got.map((a) => [a.json.name ?? a.json.scope, a.json.params ?? a.json.status, a.subtype])).toEqual([
      ['disable_check', { check_subdir: 'flow', script_key: 'ndpi_unsafe_protocol' }, 'function/disable_check/127.0.0.1'],
      ['toggle_all_checks', { action: 'enable', check_subdir: 'host' }, 'function/toggle_all_checks/127.0.0.1'],
      ['login', 'authorized', 'login//'],
    ]);
    expect(got[2]).toMatchObject(user('admin', 4139, 10, 3));
  });
});
