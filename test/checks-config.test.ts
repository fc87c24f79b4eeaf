// The checks configuration: defaults as ntopng's definitions give them
// (values read by hand from scripts/lua/modules/check_definitions/*), every
// endpoint that reads, toggles, edits, exports and imports it, persistence
// across a restart, -3 / -5 on every entry; and the flow risk checks obeying
// it on a replayed capture (the risk stays on the flow, the alert goes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { checksRoutes } from '../ts/api/monitoring/checks.routes.js';
import { configIoRoutes } from '../ts/api/monitoring/config-io.routes.js';
import { routeUrls } from '../ts/api/route.js';
import { BY_RISK } from '../ts/services/alerts/catalogue.js';
import { Interfaces } from '../ts/services/interfaces.js';
import { addUser, startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const conf = (s: ApiService) => s.call(v2('get/checks/config')).then((r) => r.body.rsp['0'].config);

describe('checks configuration', () => {
  let s: ApiService;
  const dataDir = mkdtempSync(join(tmpdir(), 'flowgate-checks-'));

  beforeAll(async () => {
    s = await startApi({ files: [], dataDir });
    await addUser(s, { username: 'viewer', password: 'pw-viewer-123' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts from ntopng's definitions", async () => {
    const r = await s.call(v2('get/checks/config'));
    expect(r.body.rc, r.text).toBe(0);
    const c = r.body.rsp['0'].config;
    // host/syn_scan.lua: default_enabled = false, default_value {operator "gt", threshold 256}; host checks run on 'min'
    expect(c.host.syn_scan).toEqual({ min: { enabled: false, script_conf: { operator: 'gt', threshold: 256 } } });
    // host/icmp_flood.lua: threshold 250; host/score_threshold.lua: enabled, 5000; host/dangerous_host.lua: the string "1000"
    expect(c.host.icmp_flood.min.script_conf.threshold).toBe(250);
    expect(c.host.score_threshold).toEqual({ min: { enabled: true, script_conf: { operator: 'gt', threshold: 5000 } } });
    expect(c.host.dangerous_host.min.script_conf.threshold).toBe('1000');
    // flow/ndpi_clear_text_credentials.lua: enabled, empty default_value (dkjson writes {} as []); flow checks hold 'all'
    expect(c.flow.ndpi_clear_text_credentials).toEqual({ all: { enabled: true, script_conf: [] } });
    // flow/remote_to_remote.lua: default_enabled = false; flow/ndpi_periodic_flow.lua: no default_enabled = enabled
    expect(c.flow.remote_to_remote.all.enabled).toBe(false);
    expect(c.flow.ndpi_periodic_flow.all.enabled).toBe(true);
    // no file for NDPI_TLS_SELFSIGNED_CERTIFICATE: FlowRiskAlerts.cpp names it tls_certificate_selfsigned, the simple definition enables it
    expect(c.flow.tls_certificate_selfsigned).toEqual({ all: { enabled: true, script_conf: [] } });
    // flow/country_check.lua: items = {} (→ [])
    expect(c.flow.country_check).toEqual({ all: { enabled: false, script_conf: { items: [] } } });
    // interface/too_many_drops.lua: enabled, gt 5; system/ids_ips_log.lua: disabled, no default_value
    expect(c.interface.too_many_drops).toEqual({ min: { enabled: true, script_conf: { operator: 'gt', threshold: 5 } } });
    expect(c.system.ids_ips_log).toEqual({ min: { enabled: false, script_conf: [] } });
    // network/flow_flood_victim.lua: disabled, gt 32768
    expect(c.network.flow_flood_victim.min.script_conf).toEqual({ operator: 'gt', threshold: 32768 });
    // one check per definition file (flow 67, host 17, interface 7, network 6, system 6) plus 15 risk
    // checks without a file, flowgate's own system checks memory_usage and disk_space (off, gt 4096 MiB / 90 %)
    // and vulnerability_scan (on: ntopng's is in its closed pro scripts)
    expect(Object.keys(c.flow)).toHaveLength(67 + 15);
    expect([c.host, c.interface, c.network, c.system].map((x) => Object.keys(x).length)).toEqual([17, 7, 6, 6 + 3]);
    expect(c.system.vulnerability_scan).toEqual({ min: { enabled: true, script_conf: [] } });
    expect(c.system.memory_usage).toEqual({ min: { enabled: false, script_conf: { operator: 'gt', threshold: 4096 } } });
    expect(c.system.disk_space).toEqual({ min: { enabled: false, script_conf: { operator: 'gt', threshold: 90 } } });
    expect(r.body.rsp.alert_exclusions).toEqual([]);
    // v1 answers the same; download=true: the document alone, as a file
    expect((await s.call(v1('get/checks/config'))).body.rsp).toEqual(r.body.rsp);
    const d = await s.call(v2('get/checks/config'), { query: { download: 'true' } });
    expect(d.headers.get('content-disposition')).toBe('attachment; filename="scripts_configuration.json"');
    expect(d.body).toEqual(r.body.rsp);
  });

  it('enables and disables one check (v1, v2, form and JSON bodies)', async () => {
    for (const [f, body] of [[v2, 'form'], [v1, 'json']] as const) {
      const send = (path: string, p: Record<string, string>) => s.call(f(path), body === 'form' ? { form: p } : { json: p });
      let r = await send('enable/check', { check_subdir: 'host', script_key: 'syn_scan' });
      expect(r.body, r.text).toMatchObject({ rc: 0, rsp: { success: true } });
      expect((await conf(s)).host.syn_scan.min).toEqual({ enabled: true, script_conf: { operator: 'gt', threshold: 256 } });
      r = await send('disable/check', { check_subdir: 'flow', script_key: 'ndpi_clear_text_credentials' });
      expect(r.body.rc, r.text).toBe(0);
      expect((await conf(s)).flow.ndpi_clear_text_credentials.all.enabled).toBe(false);
      await send('disable/check', { check_subdir: 'host', script_key: 'syn_scan' });
      await send('enable/check', { check_subdir: 'flow', script_key: 'ndpi_clear_text_credentials' });
      const c = await conf(s);
      expect([c.host.syn_scan.min.enabled, c.flow.ndpi_clear_text_credentials.all.enabled]).toEqual([false, true]);
    }
  });

  it('toggles every check of a subdir (toggle_all_checks.lua)', async () => {
    let r = await s.call('/lua/toggle_all_checks.lua', { form: { action: 'enable', check_subdir: 'host' } });
    expect(r.body, r.text).toEqual({ success: true });
    let c = await conf(s);
    expect(Object.values(c.host).every((x: any) => x.min.enabled)).toBe(true);
    // other subdirs untouched
    expect(c.flow.remote_to_remote.all.enabled).toBe(false);
    r = await s.call('/lua/toggle_all_checks.lua', { form: { action: 'disable' } });
    expect(r.body).toEqual({ success: true });
    c = await conf(s);
    for (const sub of ['flow', 'host', 'interface', 'network', 'system']) expect(Object.values(c[sub]).some((x: any) => Object.values(x).some((h: any) => h.enabled))).toBe(false);
    await s.call(v2('reset/checks/config'), { method: 'POST' });
    c = await conf(s);
    expect(c.flow.ndpi_clear_text_credentials.all.enabled).toBe(true);
    expect(c.host.syn_scan.min.enabled).toBe(false);
  });

  it('edits thresholds (edit_check_config.lua) and keeps them across a restart', async () => {
    const hooks = { min: { enabled: true, script_conf: { operator: 'gt', threshold: 42 } } };
    let r = await s.call('/lua/edit_check_config.lua', { form: { check_subdir: 'host', script_key: 'syn_scan', JSON: JSON.stringify(hooks) } });
    expect(r.body, r.text).toEqual({ success: true });
    // JSON body with the document as a value
    r = await s.call('/lua/edit_check_config.lua', { json: { check_subdir: 'host', script_key: 'flow_flood', JSON: { min: { enabled: false, script_conf: { operator: 'gt', threshold: '300' } } } } });
    expect(r.body, r.text).toEqual({ success: true });
    const before = await s.call(v2('get/checks/config'));
    expect(before.body.rsp['0'].config.host.syn_scan).toEqual(hooks);
    expect(before.body.rsp['0'].config.host.flow_flood.min.script_conf.threshold).toBe('300');
    // a new process on the same data directory reads the same configuration
    await s.close();
    s = await startApi({ files: [], dataDir });
    const after = await s.call(v2('get/checks/config'));
    expect(after.body.rsp).toEqual(before.body.rsp);
  }, 60_000);

  it('round-trips export → import (checks and scripts paths, v1 and v2)', async () => {
    await s.call(v2('disable/check'), { form: { check_subdir: 'flow', script_key: 'ndpi_unsafe_protocol' } });
    const ex = await s.call(v2('export/checks/config'));
    expect(ex.body.rc, ex.text).toBe(0);
    expect(ex.body.rsp.version).toBe('1.0');
    const file = await s.call(v1('export/scripts/config'), { method: 'POST', query: { download: 1 } });
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="configuration.json"');
    expect(file.body).toEqual(ex.body.rsp);
    const exported = ex.body.rsp.modules.scripts;
    expect(exported['0'].config.flow.ndpi_unsafe_protocol.all.enabled).toBe(false);

    await s.call(v1('reset/checks/config'), { method: 'POST' });
    expect((await conf(s)).flow.ndpi_unsafe_protocol.all.enabled).toBe(true);
    expect((await conf(s)).host.syn_scan.min.script_conf.threshold).toBe(256);
    // ntopng's form: the file in the JSON field
    let r = await s.call(v2('import/checks/config'), { form: { JSON: file.text } });
    expect(r.body.rc, r.text).toBe(0);
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(exported);
    // the file as the body itself, on the older spelling
    await s.call(v2('reset/checks/config'), { method: 'POST' });
    r = await s.call(v1('import/scripts/config'), { json: file.body });
    expect(r.body.rc, r.text).toBe(0);
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(exported);
    // set/checks/config takes what get returns
    await s.call(v2('reset/checks/config'), { method: 'POST' });
    r = await s.call(v2('set/checks/config'), { form: { JSON: JSON.stringify(exported) } });
    expect(r.body.rc, r.text).toBe(0);
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(exported);
  });

  it('refuses bad imports without changing anything', async () => {
    const before = (await s.call(v2('get/checks/config'))).body.rsp;
    const cases: [unknown, number][] = [
      ['not json', -5],
      [{ version: '2.0', modules: { scripts: {} } }, -5],
      [{ version: '1.0', modules: { pool: {} } }, -27],
      [{ version: '1.0', modules: { scripts: { 1: { config: {} } } } }, -8],
      [{ version: '1.0', modules: { scripts: { 0: { config: { nosuch: {} } } } } }, -8],
      [{ version: '1.0', modules: { scripts: { 0: { config: { host: { syn_scan: { min: { enabled: 'yes' } } } } } } } }, -8],
      [{ version: '1.0', modules: { scripts: { 0: { config: { host: { syn_scan: { min: { enabled: true, script_conf: { operator: 'gt', threshold: -1 } } } } } } } } }, -8],
      [{ version: '1.0', modules: { scripts: { 0: { config: { host: { "x'; DROP TABLE": { min: { enabled: true } } } } } } } }, -8],
    ];
    for (const [body, rc] of cases) {
      const r = await s.call(v2('import/checks/config'), { form: { JSON: typeof body === 'string' ? body : JSON.stringify(body) } });
      expect(r.body?.rc, `${JSON.stringify(body)}: ${r.text}`).toBe(rc);
      expect(r.status).toBeLessThan(500);
    }
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(before);
  });

  it('answers -5 for unknown checks and hostile values, never 5xx', async () => {
    const bad: [string, Record<string, string>][] = [
      [v2('enable/check'), { check_subdir: 'nosuch', script_key: 'syn_scan' }],
      [v2('enable/check'), { check_subdir: 'host', script_key: 'nosuch' }],
      [v2('disable/check'), { check_subdir: 'flow', script_key: "ndpi_x' OR 1=1 --" }],
      [v2('disable/check'), { check_subdir: 'host' }],
      [v2('enable/check'), { script_key: 'syn_scan' }],
      [v1('enable/check'), { check_subdir: 'x'.repeat(100), script_key: 'syn_scan' }],
      [v2('set/checks/config'), { JSON: '{' }],
    ];
    const edit = (JSON: string, script_key = 'syn_scan', check_subdir = 'host') => ['/lua/edit_check_config.lua', { check_subdir, script_key, JSON }] as [string, Record<string, string>];
    bad.push(
      edit('{"min":{"enabled":true,"script_conf":{"operator":"gt","threshold":"abc"}}}'),
      edit('{"min":{"enabled":true,"script_conf":{"operator":"gt","threshold":1e999}}}'),
      edit('{"min":{"enabled":true,"script_conf":{"operator":"ge","threshold":10}}}'),
      edit('{"min":{"enabled":"1","script_conf":{}}}'),
      edit('{"all":{"enabled":true,"script_conf":{}}}'),
      edit('{"min":{"enabled":true,"script_conf":"threshold=5"}}'),
      edit(JSON.stringify({ min: { enabled: true, script_conf: { operator: 'gt', threshold: 5, big: 'x'.repeat(70_000) } } })),
      edit('{}'),
      edit('[1,2]'),
      edit('not json'),
      edit('{"all":{"enabled":true,"script_conf":{}}}', 'nosuch', 'flow'),
      ['/lua/toggle_all_checks.lua', { action: 'enable', check_subdir: 'nosuch' }],
      ['/lua/toggle_all_checks.lua', { action: 'maybe' }],
      ['/lua/toggle_all_checks.lua', {}],
    );
    const before = (await s.call(v2('get/checks/config'))).body.rsp;
    for (const [path, form] of bad) {
      const r = await s.call(path, { form });
      const rc = path.includes('/rest/') ? r.body?.rc : r.body?.error;
      expect(rc, `${path} ${JSON.stringify(form).slice(0, 120)}: ${r.status} ${r.text.slice(0, 200)}`).toBe(path.includes('/rest/') ? -5 : 'INVALID_ARGUMENTS');
      expect(r.status).toBe(400);
    }
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(before);
  });

  it('answers -3 to unprivileged and unauthenticated callers on every entry', async () => {
    const before = (await s.call(v2('get/checks/config'))).body.rsp;
    let n = 0;
    for (const r of [...checksRoutes, ...configIoRoutes]) {
      for (const { version, url } of routeUrls(r)) {
        const form = { check_subdir: 'host', script_key: 'syn_scan', action: 'enable', JSON: JSON.stringify({ min: { enabled: true, script_conf: {} } }) };
        for (const who of [{ user: 'viewer', pw: 'pw-viewer-123' }, { user: null }] as const) {
          const res = await s.call(url, { form, ...who });
          if (version === 'v0') expect([res.status, res.body?.error], url).toEqual([401, 'NOT_GRANTED']);
          else expect([res.status, res.body?.rc], url).toEqual([401, -3]);
          n++;
        }
      }
    }
    // … and v1/v2 delete/host/new_devices; the two device protocols pages; configuration export (v2, v1), import (v1, v2) of 8 modules, reset of 7 (ntopng's reset paths)
    expect(n).toBe(2 * (2 + 2 + 2 * 2 + 2 + 2 + 2 + 8 * 4 + 7 * 2));
    expect((await s.call(v2('get/checks/config'))).body.rsp).toEqual(before);
  });
});

// Flow risk checks on a replayed capture: WebattackRCE.pcap's HTTP flows
// carry NDPI_KNOWN_PROTOCOL_ON_NON_STANDARD_PORT (risk 5, alert 30, score
// 50; its check is named known_proto_on_non_std_port, FlowRiskAlerts.cpp)
// beside the numeric-host, suspicious user agent and unidirectional risks.
describe('flow risk checks obey the configuration', () => {
  const RISK = 5, ALERT = 30, CHECK = 'known_proto_on_non_std_port';
  let s: ApiService;
  const pcap = join(NDPI_PCAPS, 'WebattackRCE.pcap');
  const engine = { flushAtEnd: true, periodicDumpSec: 0, flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10 };

  beforeAll(async () => {
    s = await startApi({ files: [pcap], engine, history: true });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  /** replays the capture again into the same store; its flows get the next FLOW_ID run */
  async function replay() {
    const i = new Interfaces([{ source: pcap }], engine);
    i.start(s.history!.writer);
    await i.list[0].engine.waitDone();
    await s.history!.writer.flush();
    i.close();
  }

  /** alert rows per FLOW_ID run (FLOW_ID = run × 2^32 + serial) */
  async function rowsByRun() {
    const r = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 10000 } });
    expect(r.body.rc, r.text).toBe(0);
    const runs = new Map<number, any[]>();
    for (const x of r.body.rsp.records) {
      const run = Number(BigInt(x.row_id) >> 32n);
      runs.set(run, [...(runs.get(run) ?? []), x]);
    }
    return runs;
  }

  const risks = (x: any) => {
    const out: number[] = [];
    for (let i = 0n; i < 64n; i++) if ((BigInt(x.flow_risk_bitmap) >> i) & 1n) out.push(Number(i));
    return out;
  };
  const alertIds = (x: any) => {
    const n = BigInt(`0x${x.alerts_map || '0'}`);
    return [...Array(128).keys()].filter((i) => (n >> BigInt(i)) & 1n);
  };
  /** the alerts the flow's enabled risks raise, by hand from the catalogue */
  const expected = (x: any, disabled: number[]) => {
    const a = risks(x).filter((r) => !disabled.includes(r)).map((r) => BY_RISK[r]).filter((v) => v !== undefined);
    const best = Math.max(...a.map((v) => v.score));
    return { ids: a.map((v) => v.alertId).sort((p, q) => p - q), score: a.reduce((t, v) => t + v.score, 0), status: a.find((v) => v.score === best)!.alertId };
  };

  it('drops the alert of a disabled check from new flows, keeps the risk, and raises it again once re-enabled', async () => {
    let runs = await rowsByRun();
    expect([...runs.keys()]).toEqual([1]);
    const first = runs.get(1)!.filter((x) => risks(x).includes(RISK));
    expect(first.length).toBeGreaterThan(100);
    for (const x of first) {
      expect(alertIds(x)).toContain(ALERT);
      const e = expected(x, []);
      expect([alertIds(x), x.score.value, Number(x.alert_id.value)]).toEqual([e.ids, e.score, e.status]);
    }

    let r = await s.call(v2('disable/check'), { form: { check_subdir: 'flow', script_key: CHECK } });
    expect(r.body.rc, r.text).toBe(0);
    await replay();
    runs = await rowsByRun();
    // the same flows, the risk kept, its alert gone, score and predominant alert without it
    const second = runs.get(2)!.filter((x) => risks(x).includes(RISK));
    expect(second.length).toBe(first.length);
    for (const x of second) {
      expect(alertIds(x)).not.toContain(ALERT);
      const e = expected(x, [RISK]);
      expect([alertIds(x), x.score.value, Number(x.alert_id.value)]).toEqual([e.ids, e.score, e.status]);
    }
    // the flows already stored keep their alerts
    expect(runs.get(1)!.filter((x) => alertIds(x).includes(ALERT))).toHaveLength(first.length);

    r = await s.call(v2('enable/check'), { form: { check_subdir: 'flow', script_key: CHECK } });
    expect(r.body.rc).toBe(0);
    await replay();
    runs = await rowsByRun();
    const third = runs.get(3)!.filter((x) => risks(x).includes(RISK));
    expect(third.length).toBe(first.length);
    for (const x of third) expect(alertIds(x)).toContain(ALERT);
  }, 120_000);
});

// Active flows' score: the sum of the enabled risk checks' scores
// (pop3.pcap: NDPI_UNSAFE_PROTOCOL on every flow, NDPI_CLEAR_TEXT_CREDENTIALS
// — risk 36, score 100 — on one).
describe("active flows' score", () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [join(NDPI_PCAPS, 'pop3.pcap')] });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const flows = async () => (await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 1000 } })).body.rsp.data as any[];

  it('counts only enabled checks', async () => {
    // each flow's risk ids from the engine itself
    const ids = new Map(s.ifaces.get(0)!.engine.flows({ limit: 1000 }).rows.map((f) => [f.key, f.risk_ids]));
    const byHand = (key: string, disabled: number[]) => ids.get(key)!.filter((r) => !disabled.includes(r)).reduce((t, r) => t + (BY_RISK[r]?.score ?? 0), 0);
    let fl = await flows();
    expect(fl.filter((f) => ids.get(f.key)!.includes(36))).toHaveLength(1);
    for (const f of fl) expect(Number(f.score), f.key).toBe(byHand(f.key, []));
    expect(fl.some((f) => Number(f.score) >= 110)).toBe(true);
    await s.call(v2('disable/check'), { form: { check_subdir: 'flow', script_key: 'ndpi_clear_text_credentials' } });
    fl = await flows();
    for (const f of fl) expect(Number(f.score), f.key).toBe(byHand(f.key, [36]));
    expect(fl.every((f) => Number(f.score) === 10)).toBe(true);
  });
});
