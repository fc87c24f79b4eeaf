// The alert service and store of every family but flow: alerts raised,
// refreshed, released and emitted by hand through the AlertSink on a real
// store (DuckDB in a temp dir, and the ClickHouse server the suite starts),
// then read back through the REST endpoints and compared with what was
// raised: lists, paging, filters, counters per type/severity, per hour, v0/v1
// data, engaged vs historical, delete by filter, interface/host counters,
// -3/-5 with hostile input (tables intact), and a storm of emits that stays
// bounded with its drops counted.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AlertService } from '../ts/services/alerts/alert-service.js';
import type { AlertInput } from '../ts/services/alerts/types.js';
import { addUser, startApi, v2, type ApiService } from './fixtures/api.js';
import { clickhouseSkip, storeServer, type ClickHouseServer } from './fixtures/clickhouse.js';
import { NDPI_PCAPS } from './fixtures/util.js';

// an hour boundary, so per-hour buckets are known by hand
const T0 = 1_700_000_000 - (1_700_000_000 % 3600);
const ALL = { ifid: 0, epoch_begin: T0 - 86400, epoch_end: T0 + 86400 };

const hostAlert = (ip: string, vlan: number, alertId: number, score: number, severity: number, tstamp: number, fields: Record<string, string | number> = {}): AlertInput => ({
  family: 'host', ifid: 0, entityVal: vlan ? `${ip}@${vlan}` : ip, alertId, subtype: '', tstamp, score, severity,
  fields: { ip, vlan_id: vlan, name: '', is_attacker: 1, is_victim: 0, is_client: 1, is_server: 0, ...fields },
  json: { value: score, threshold: 10 },
});

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('alerts of every family on %s', (store, skip) => {
  let s: ApiService;
  let ch: ClickHouseServer | undefined;
  let H: { ip: string; vlan: number };
  // the stored host alerts as raised here: [ip, alert id, score, tstamp, tstamp_end, count]
  const stored: [string, number, number, number, number, number][] = [];

  beforeAll(async () => {
    const up = await storeServer(store, skip);
    if (!up) return;
    ch = up.ch;
    s = await startApi({
      files: [join(NDPI_PCAPS, 'pop3.pcap')],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: store === 'clickhouse' ? { clickhouse: { url: ch!.url('flowgate') } } : true,
    });
    await addUser(s, { username: 'noalerts', password: 'pw-noalerts-1', allow_alerts: '0' });
    await addUser(s, { username: 'net', password: 'pw-net-12345', allowed_networks: '10.9.9.0/30', allow_alerts: '1' });
    const hosts = await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 1000 } });
    const h = hosts.body.rsp.data[0];
    H = { ip: h.ip, vlan: h.vlan };
    const a = s.api.alerts;
    // a scan engaged, refreshed once, then released: stored with its first/last time and count 2
    a.engage(hostAlert(H.ip, H.vlan, 5, 50, 4, T0 + 10));
    a.engage(hostAlert(H.ip, H.vlan, 5, 50, 4, T0 + 70));
    a.release({ family: 'host', ifid: 0, entityVal: H.vlan ? `${H.ip}@${H.vlan}` : H.ip, alertId: 5, subtype: '' }, T0 + 130);
    stored.push([H.ip, 5, 50, T0 + 10, T0 + 130, 2]);
    // one-shot host alerts on five other hosts, an hour apart, rising scores
    for (let i = 0; i < 5; i++) {
      const t = T0 + 3600 * i + 5;
      a.emit(hostAlert(`10.9.9.${i}`, 0, 4, 40 + 30 * i, 4, t));
      stored.push([`10.9.9.${i}`, 4, 40 + 30 * i, t, t, 1]);
    }
    // still engaged at the end
    a.engage(hostAlert(H.ip, H.vlan, 4, 150, 5, T0 + 200));
    // other families: an interface alert, a user login failure and a system error (system interface)
    a.emit({ family: 'interface', ifid: 0, entityVal: '0', alertId: 4137, subtype: 'drops', tstamp: T0 + 300, score: 50, severity: 4, fields: { name: 'pop3.pcap' }, json: { drops: 9 } });
    a.emit({ family: 'user', ifid: -1, entityVal: 'mallory', alertId: 4111, subtype: '', tstamp: T0 + 400, score: 50, severity: 4, fields: {}, json: {} });
    a.emit({ family: 'system', ifid: -1, entityVal: 'system', alertId: 4187, subtype: '', tstamp: T0 + 500, score: 250, severity: 8, fields: {}, json: {} });
    await a.flush();
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  const list = (family: string, q: Record<string, string | number> = {}, user?: string, pw?: string) =>
    s.call(v2(`get/${family}/alert/list`), { query: { ...ALL, length: 100, ...q }, user, pw });

  it.skipIf(!!skip)('host list: every stored alert, newest first, fields as raised', async () => {
    const r = await list('host');
    expect(r.body.rc).toBe(0);
    const want = [...stored].sort((x, y) => y[3] - x[3]);
    expect(r.body.recordsTotal).toBe(want.length);
    expect(r.body.rsp.records.map((x: any) => [x.ip.value, Number(x.alert_id.value), x.score.value, x.tstamp.value, x.tstamp.value + x.duration, x.count])).toEqual(want);
    const scan = r.body.rsp.records.find((x: any) => x.alert_id.value === '5');
    expect(scan.family).toBe('host');
    expect(scan.alert_name).toBe('host_alert_syn_scan');
    // format_record's labels: the severity's and the category's English titles (syn scan: a security alert), the category's icon
    expect(scan.severity).toMatchObject({ value: 4, label: 'Warning' });
    expect(scan.alert_category).toEqual({ value: '1', label: 'Cybersecurity', icon: 'fas fa-shield-alt' });
    expect(scan.is_attacker).toBe('true');
    expect(scan.vlan_id).toBe(H.vlan ? String(H.vlan) : '');
  });

  it.skipIf(!!skip)('paging and filters pick what the raised alerts say', async () => {
    const want = [...stored].sort((x, y) => y[3] - x[3]);
    const page = await list('host', { start: 2, length: 2 });
    expect(page.body.recordsTotal).toBe(want.length);
    expect(page.body.rsp.records.map((x: any) => x.tstamp.value)).toEqual(want.slice(2, 4).map((x) => x[3]));
    const cases: [Record<string, string>, (x: (typeof stored)[number]) => boolean][] = [
      [{ ip: `${H.ip};eq` }, (x) => x[0] === H.ip],
      [{ score: '100;gte' }, (x) => x[2] >= 100],
      [{ score: '70;lt,130;gt' }, (x) => x[2] < 70 && x[2] > 130],
      [{ alert_id: '5;eq,4;eq' }, () => true],
      [{ alert_id: '4;neq' }, (x) => x[1] !== 4],
      [{ ip: '10.9.9.;in' }, (x) => x[0].startsWith('10.9.9.')],
      [{ ip: '10.9.9.1;neq', score: '40;gt' }, (x) => x[0] !== '10.9.9.1' && x[2] > 40],
    ];
    for (const [q, pred] of cases) {
      const r = await list('host', q);
      expect(r.body.rc, JSON.stringify(q)).toBe(0);
      expect(r.body.recordsTotal, JSON.stringify(q)).toBe(stored.filter(pred).length);
    }
    // a window holding only the first hour
    const first = await list('host', { epoch_begin: T0, epoch_end: T0 + 3599 });
    expect(first.body.recordsTotal).toBe(stored.filter((x) => x[3] < T0 + 3600).length);
    // txt: CSV, one line per record and a header
    const txt = await list('host', { format: 'txt' });
    expect(txt.text.trim().split('\n')).toHaveLength(stored.length + 1);
  });

  it.skipIf(!!skip)('engaged vs historical, and the interface and host counters equal what the lists return', async () => {
    const eng = await list('host', { status: 'engaged' });
    expect(eng.body.recordsTotal).toBe(1);
    expect(eng.body.rsp.records[0]).toMatchObject({ alert_id: { value: '4' }, score: { value: 150 }, count: 1 });
    const iface = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(iface.body.rsp.engaged_alerts).toBe(eng.body.recordsTotal);
    expect(iface.body.rsp.has_alerts).toBe(true);
    expect(iface.body.rsp.dropped_alerts).toBe(0);
    // user activity through the API (this suite's own logins and user edits) is stored at wall time,
    // the devices the replayed capture showed (new devices, interface alerts) at its packet time
    const ever = { epoch_begin: 0, epoch_end: Math.floor(Date.now() / 1000) + 3600 };
    const all = [await list('host'), await list('interface', ever), await list('user', ever), await list('system', ever)];
    expect(iface.body.rsp.system_host_stats.written_alerts).toBe(all.reduce((n, r) => n + r.body.recordsTotal, 0));
    expect(iface.body.rsp.system_host_stats.alerts_queries).toBeGreaterThan(0);
    const host = await s.call(v2('get/host/data'), { query: { ifid: 0, host: H.ip, vlan: H.vlan } });
    expect(host.body.rsp.num_alerts).toBe(1);
    // raised: the scan (refreshes are not new alerts) and the flood still engaged, plus (as ntopng's
    // host stats count them) the host's alerted flows: its stored flow alerts
    const flowAlerts = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, ip: `${H.ip};eq`, length: 1 } });
    expect(flowAlerts.body.rc).toBe(0);
    expect(host.body.rsp.total_alerts).toBe(2 + flowAlerts.body.recordsTotal);
    const other = await list('interface');
    expect(other.body.rsp.records.map((x: any) => [x.alert_id.value, x.subtype, x.alert_name])).toEqual([['4137', 'drops', 'alert_too_many_drops']]);
    expect((await list('user')).body.rsp.records.map((x: any) => x.user)).toEqual(['mallory']);
    // the system interface's families answer on any ifid
    expect((await list('system', { ifid: 0 })).body.recordsTotal).toBe(1);
  });

  it.skipIf(!!skip)('counters per type and severity, per hour and per slot, v0/v1 data', async () => {
    const byType = await s.call(v2('get/alert/type/counters'), { query: { ...ALL, status: 'historical' } });
    const types = new Map<string, number>();
    for (const x of stored) types.set(x[1] === 5 ? 'host_alert_syn_scan' : 'host_alert_flow_flood', (types.get(x[1] === 5 ? 'host_alert_syn_scan' : 'host_alert_flow_flood') ?? 0) + 1);
    types.set('alert_login_failed', 1).set('alert_system_error', 1).set('alert_too_many_drops', 1);
    expect(Object.fromEntries(byType.body.rsp.historical.map((x: any) => [x.type, Number(x.count)]))).toEqual(Object.fromEntries(types));
    const bySev = await s.call(v2('get/alert/severity/counters'), { query: { ...ALL, status: 'historical' } });
    expect(Object.fromEntries(bySev.body.rsp.historical.map((x: any) => [x.severity, Number(x.count)]))).toEqual({ warning: stored.length + 2, emergency: 1 });
    const engaged = await s.call(v2('get/alert/type/counters'), { query: { ...ALL, status: 'engaged' } });
    expect(engaged.body.rsp.historical).toEqual([{ count: '1', type: 'host_alert_flow_flood', alert_id: 4 }]);
    // per hour of the UTC day
    const ts = await s.call(v2('get/alert/ts'), { query: { ...ALL, status: 'historical' } });
    const days: Record<string, number[]> = {};
    for (const t of [...stored.map((x) => x[3]), T0 + 300, T0 + 400, T0 + 500]) {
      const day = t - (t % 86400);
      (days[String(day)] ??= new Array(24).fill(0))[Math.floor((t - day) / 3600)]++;
    }
    // every UTC day of the window, zeros where nothing was (ntopng pre-fills them)
    for (let d = ALL.epoch_begin - (ALL.epoch_begin % 86400); d < ALL.epoch_end - (ALL.epoch_end % 86400) + 86400; d += 86400) days[String(d)] ??= new Array(24).fill(0);
    expect(ts.body.rsp).toEqual(days);
    // status and both epochs required, the end after the begin (ntopng's -5)
    for (const q of [{ ifid: 0, epoch_begin: T0, epoch_end: T0 + 60 }, { ifid: 0, status: 'historical', epoch_end: T0 }, { ifid: 0, status: 'historical', epoch_begin: T0, epoch_end: T0 }]) {
      expect((await s.call(v2('get/alert/ts'), { query: q })).body.rc, JSON.stringify(q)).toBe(-5);
    }
    // 31 slots per severity over the window
    const w = { ifid: 0, epoch_begin: T0, epoch_end: T0 + 31 * 600 };
    const slots = await s.call(v2('get/host/alert/ts'), { query: w });
    expect(slots.body.rsp.series.map((x: any) => x.name)).toEqual(['Warning']);
    const pts: [number, number][] = slots.body.rsp.series[0].data;
    expect(pts.reduce((n, p) => n + p[1], 0)).toBe(stored.length);
    for (const x of stored) expect(pts.find((p) => p[0] === (x[3] - (x[3] % 600)) * 1000)![1]).toBeGreaterThan(0);
    // the engaged alert (one) counts in its slot and in every later one up to the window's end, as ntopng's
    const eng = (await s.call(v2('get/host/alert/ts'), { query: { ...w, status: 'engaged' } })).body.rsp.series[0].data as [number, number][];
    const from = eng.findIndex((p) => p[1] > 0);
    expect(from).toBeGreaterThanOrEqual(0);
    expect(eng.slice(from).every((p) => p[1] === 1)).toBe(true);
    expect(eng.slice(0, from).every((p) => p[1] === 0)).toBe(true);
    // the all list: one record per entity
    const ent = await s.call(v2('get/all/alert/list'), { query: { ...ALL, status: 'historical' } });
    const hostEnt = ent.body.rsp.records.find((x: any) => x.entity === 'host');
    expect(hostEnt.count).toBe(stored.length);
    expect(hostEnt.count_group_warning.value).toBe(stored.length);
    expect(hostEnt.score.value).toBe(stored.reduce((n, x) => n + x[2], 0));
    // v1 / v0 data
    const d1 = await s.call('/lua/rest/v1/get/alert/data.lua', { query: { ...ALL, status: 'historical' } });
    expect(d1.body.rsp).toHaveLength(stored.length + 3);
    expect(d1.body.rsp.find((x: any) => x.entity === 'user')).toMatchObject({ type: 'alert_login_failed', entity_val: 'mallory', date: String(T0 + 400), score: 50 });
    const d0 = await s.call('/lua/rest/get/alert/data.lua', { query: { ...ALL, status: 'engaged' } });
    expect(d0.body).toEqual([expect.objectContaining({ entity: 'host', key: 4, date: String(T0 + 200) })]);
    const noStatus = await s.call('/lua/rest/v1/get/alert/data.lua', { query: ALL });
    expect(noStatus.body.rc).toBe(-5);
    // the filters of a page, with the family's alert types as alert_id options
    const fc = await s.call(v2('get/alert/filter/consts'), { query: { page: 'host' } });
    const ids = fc.body.rsp.find((x: any) => x.id === 'alert_id');
    // labels are ntopng's English titles (locales/en.lua), sorted as getAlertTypesInfo sorts them
    expect(ids.options).toContainEqual({ value: 5, label: 'TCP SYN Scan' });
    expect(ids.options.some((o: any) => o.label === 'Login Failed')).toBe(false);
    const labels = ids.options.map((o: any) => o.label.toUpperCase());
    expect(labels).toEqual([...labels].sort());
    expect(fc.body.rsp.map((x: any) => x.id)).toContain('vlan_id');
    // the alert types of ntopng's current release: definition file names with their alert_keys ids
    // (the alert_id the filters take), and the flow risk alerts without a definition file
    for (const v of ['v1', 'v2'] as const) {
      const tc = await s.call(`/lua/rest/${v}/get/alert/type/consts.lua`);
      expect(tc.body.rc, tc.text).toBe(0);
      const types: { type: string; key: number }[] = tc.body.rsp;
      expect(types).toContainEqual({ type: 'host_alert_tcp_syn_scan', key: 5 });
      expect(types).toContainEqual({ type: 'alert_login_failed', key: 4111 });
      expect(types).toContainEqual({ type: 'alert_remote_access', key: 57 });
      expect(types).toContainEqual({ type: 'alert_web_mining', key: 27 });
      expect(types.length).toBeGreaterThan(180);
      expect(new Set(types.map((t) => t.type)).size).toBe(types.length);
    }
    const fu = await s.call(v2('get/alert/filter/consts'), { query: { page: 'user' } });
    expect(fu.body.rsp.find((x: any) => x.id === 'alert_id').options).toContainEqual({ value: 4111, label: 'Login Failed' });
  });

  it.skipIf(!!skip)('-3 without allow_alerts, scope for restricted users, -5 on hostile input with the tables intact', async () => {
    expect((await list('host', {}, 'noalerts', 'pw-noalerts-1')).body.rc).toBe(-3);
    const scoped = await list('host', {}, 'net', 'pw-net-12345');
    expect(scoped.body.rsp.records.map((x: any) => x.ip.value).sort()).toEqual(['10.9.9.0', '10.9.9.1', '10.9.9.2', '10.9.9.3']);
    expect((await list('system', {}, 'net', 'pw-net-12345')).body.recordsTotal).toBe(0);
    expect((await s.call(v2('delete/host/alerts'), { query: ALL, user: 'net', pw: 'pw-net-12345' })).body.rc).toBe(-3);
    // a value is a bound value: quotes match nothing, they never reach SQL as text
    expect((await list('host', { ip: "1' OR '1'='1;eq" })).body.recordsTotal).toBe(0);
    for (const q of <Record<string, string>[]>[{ score: '1 UNION SELECT 1;eq' }, { alert_id: '1;drop' }, { score: "1' --;eq" }, { sort: 'tstamp; DROP TABLE host_alerts' }, { status: 'nope' }]) {
      const r = await list('host', q);
      expect(r.body.rc, JSON.stringify(q)).toBe(-5);
    }
    for (const where of ['1=1; DROP TABLE host_alerts', 'score > 0 -- x', 'score > 0 UNION SELECT * FROM system_alerts', 'nosuchcolumn = 1', "ip = '1' /* */"]) {
      const r = await s.call(v2('get/alert/list/alerts'), { query: { ...ALL, alert_family: 'host', where_clause: where } });
      expect(r.body.rc, where).toBe(-5);
    }
    const q = await s.call(v2('get/alert/list/alerts'), { query: { ...ALL, alert_family: 'host', select_clause: 'alert_id, COUNT(*) AS n', group_by: 'alert_id', order_by: 'alert_id' } });
    expect(q.body.rsp).toEqual([{ alert_id: '4', n: '5' }, { alert_id: '5', n: '1' }]);
    expect((await list('host')).body.recordsTotal).toBe(stored.length);
  });

  it.skipIf(!!skip)('delete by filter: those rows gone, the others intact', async () => {
    const r = await s.call(v2('delete/host/alerts'), { query: { ...ALL, ip: '10.9.9.1;eq' } });
    expect(r.body.rc).toBe(0);
    const after = await list('host');
    expect(after.body.recordsTotal).toBe(stored.length - 1);
    expect(after.body.rsp.records.map((x: any) => x.ip.value)).not.toContain('10.9.9.1');
    expect((await list('interface')).body.recordsTotal).toBe(1);
    expect((await s.call(v2('delete/user/alerts'), { query: ALL })).body.rc).toBe(0);
    expect((await list('user')).body.recordsTotal).toBe(0);
    expect((await list('system')).body.recordsTotal).toBe(1);
  });
});

describe('alert storms', () => {
  it('1e6 emits stay bounded: what the queue cannot hold is dropped and counted', async () => {
    const s = await startApi({ files: [join(NDPI_PCAPS, 'pop3.pcap')], history: true });
    try {
      const svc = await AlertService.open(s.history!.backend, { maxQueued: 5000, batchRows: 1000, log: () => {} });
      const N = 1_000_000;
      let peak = 0;
      for (let i = 0; i < N; i++) {
        svc.emit({ family: 'system', ifid: -1, entityVal: 'system', alertId: 4187, subtype: '', tstamp: T0 + (i % 3600), score: 250, severity: 8, fields: {}, json: {} });
        peak = Math.max(peak, svc.queued);
      }
      await svc.close();
      const c = svc.counters(-1);
      expect(peak).toBeLessThanOrEqual(5000);
      expect(c.written + c.dropped).toBe(N);
      expect(c.dropped).toBeGreaterThan(0);
      const rows = await s.history!.backend.query({ sql: 'SELECT COUNT(*) AS n FROM system_alerts', params: [] });
      expect(Number(rows[0].n)).toBe(c.written);
      // no store: engaged alerts work, stored ones are dropped
      const none = await AlertService.open(null);
      none.engage({ family: 'host', ifid: 0, entityVal: '1.2.3.4', alertId: 5, subtype: '', tstamp: T0, score: 50, severity: 4, fields: {}, json: {} });
      none.emit({ family: 'host', ifid: 0, entityVal: '1.2.3.4', alertId: 4, subtype: '', tstamp: T0, score: 50, severity: 4, fields: {}, json: {} });
      expect(none.engaged('host', 0)).toHaveLength(1);
      expect(none.counters(0)).toMatchObject({ engaged: 1, dropped: 1, written: 0 });
      // the engaged table is capped too
      const capped = await AlertService.open(null, { maxEngaged: 3 });
      for (let i = 0; i < 10; i++) capped.engage({ family: 'host', ifid: 0, entityVal: `10.0.0.${i}`, alertId: 5, subtype: '', tstamp: T0, score: 50, severity: 4, fields: {}, json: {} });
      expect(capped.counters(0)).toMatchObject({ engaged: 3, refused: 7 });
    } finally {
      await s.close();
    }
  }, 120_000);
});
