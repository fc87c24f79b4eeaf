// Top alerts, and acknowledge/delete of SNMP device alerts, on DuckDB and
// the ClickHouse server the suite starts. Flow side: the DGA capture of
// alert-exclusions.test.ts (three DNS queries, built here) replayed; the top
// answers are recomputed here from the stored flow rows. Other families:
// SNMP device and host alerts emitted through the alert service with known
// values; counts and percentages computed by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AlertInput } from '../ts/services/alerts/types.js';
import { startApi, v2, addUser, type ApiService } from './fixtures/api.js';
import { txt, u16 } from './fixtures/bytes.js';
import { clickhouseSkip, storeServer, type ClickHouseServer } from './fixtures/clickhouse.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const pro2 = (p: string) => `/lua/pro/rest/v2/${p}.lua`;
const WIN = { ifid: 0, epoch_begin: T0 - 86400, epoch_end: T0 + 86400 };
/** a top card's entries */
const card = (r: { body: any }, name: string) => (r.body.rsp as { name: string; value: any[] }[]).find((c) => c.name === name)!.value;

const NAMES = ['xjwqkzpvbn.com', 'bbcbedxhgjmdobdprmen.com', 'qzxwvkjhgt.org'];
const CLIENTS = ['10.9.0.1', '10.9.0.2', '10.9.0.3'];
const DNS = '10.9.0.53';
function dnsQuery(name: string): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)]));
  return Buffer.concat([u16(0x4242), u16(0x0100), u16(1), u16(0), u16(0), u16(0), ...labels, Buffer.from([0]), u16(1), u16(1)]);
}
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
const dnsFile = tmp.file(
  'dga.pcap',
  pcap(NAMES.map((n, i): Packet => ({ tsNs: at(1 + i), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: CLIENTS[i], dst: DNS, proto: IPPROTO.UDP }, udp({ sport: 41000 + i, dport: 53 }, dnsQuery(n)))) }))),
);

const PORT_ERRORS = 4121, DUPLEX = 4120;
const snmp = (ip: string, port: number, alertId: number, tstamp: number): AlertInput => ({
  family: 'snmp_device', ifid: -1, entityVal: ip, alertId, subtype: `${port}`, tstamp, score: 50, severity: 4,
  fields: { ip, port, name: `sw-${ip}`, port_name: `Gi0/${port}` }, json: {},
});
const host = (ip: string, alertId: number, tstamp: number): AlertInput => ({
  family: 'host', ifid: 0, entityVal: ip, alertId, subtype: '', tstamp, score: 50, severity: 4,
  fields: { ip, vlan_id: 0, name: '', is_attacker: 1, is_victim: 0, is_client: 1, is_server: 0 }, json: {},
});

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('top, acknowledge and delete on %s', (store, skip) => {
  let s: ApiService;
  let ch: ClickHouseServer | undefined;
  beforeAll(async () => {
    const up = await storeServer(store, skip);
    if (!up) return;
    ch = up.ch;
    s = await startApi({
      files: [dnsFile],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: store === 'clickhouse' ? { clickhouse: { url: ch!.url('fg_top') } } : { retentionDays: 100_000 },
    });
    await addUser(s, { username: 'viewer', password: 'pw-viewer-123', allow_alerts: '1' });
    const a = s.api.alerts;
    // SNMP: 10.0.0.1 three port-error alerts (ports 1, 2, 3) and one duplex change; 10.0.0.2 one port-error
    for (const p of [1, 2, 3]) a.emit(snmp('10.0.0.1', p, PORT_ERRORS, T0 + p));
    a.emit(snmp('10.0.0.1', 4, DUPLEX, T0 + 10));
    a.emit(snmp('10.0.0.2', 1, PORT_ERRORS, T0 + 20));
    // host: 10.1.0.1 twice alert 5, 10.1.0.2 once alert 5, once alert 7
    a.emit(host('10.1.0.1', 5, T0 + 1));
    a.emit(host('10.1.0.1', 5, T0 + 2));
    a.emit(host('10.1.0.2', 5, T0 + 3));
    a.emit(host('10.1.0.2', 7, T0 + 4));
    await a.flush();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  it.skipIf(!!skip)('family top: alert ids and addresses, most first, count as % of the matching alerts', async () => {
    const r = await s.call(pro2('get/snmp/device/alert/top'), { query: WIN });
    expect(r.body.rc, r.text).toBe(0);
    // the alert stats page's cards (and the Python client's examples): [{name, label, tooltip, value}]
    expect(r.body.rsp.map((c: any) => [c.name, c.label, c.tooltip])).toEqual([['alert_id', 'Top Alerts', 'Most seen alerts'], ['ip', 'Top Hosts', 'Hosts with most alerts']]);
    expect(card(r, 'alert_id')).toEqual([
      // label: ntopng's shortenString at its default 24 characters
      { key: 'alert_id', value: PORT_ERRORS, label: 'High Interface Discards/…', title: 'High Interface Discards/Errors', count: 80 },
      { key: 'alert_id', value: DUPLEX, label: 'Duplex Status Change', title: 'Duplex Status Change', count: 20 },
    ]);
    expect(card(r, 'ip').map((e: any) => [e.value, e.count])).toEqual([['10.0.0.1', 80], ['10.0.0.2', 20]]);
    // action: one card, as the page asks when a card's list opens
    const one = await s.call(pro2('get/snmp/device/alert/top'), { query: { ...WIN, action: 'ip' } });
    expect(one.body.rsp.map((c: any) => c.name)).toEqual(['ip']);
    expect(one.body.rsp[0].value).toEqual(card(r, 'ip'));
    // the same filters as the list: only 10.0.0.2
    const f = await s.call(pro2('get/snmp/device/alert/top'), { query: { ...WIN, ip: '10.0.0.2;eq' } });
    expect(card(f, 'alert_id').map((e: any) => [e.value, e.count])).toEqual([[PORT_ERRORS, 100]]);
    const h = await s.call(pro2('get/host/alert/top'), { query: WIN });
    expect(card(h, 'alert_id').map((e: any) => [e.value, e.count])).toEqual([[5, 75], [7, 25]]);
    expect(card(h, 'ip').map((e: any) => [e.value, e.count])).toEqual([['10.1.0.1', 50], ['10.1.0.2', 50]]);
    // hostile filters: a quote is a bound value matching nothing; an unknown operator -5
    const q = await s.call(pro2('get/host/alert/top'), { query: { ...WIN, ip: "1' OR 1=1;eq" } });
    expect([q.body.rc, card(q, 'alert_id'), card(q, 'ip')]).toEqual([0, [], []]);
    expect((await s.call(pro2('get/host/alert/top'), { query: { ...WIN, ip: '10.1.0.1;zz' } })).body.rc).toBe(-5);
  });

  it.skipIf(!!skip)('flow top (pro) equals the stored rows counted here; get/alert/top.lua every family\'s by count and severity', async () => {
    const rows = await s.call(pro2('get/db/flows'), { query: { ifid: 0, begin_time_clause: 0, end_time_clause: 0xffffffff, select_clause: 'IPV4_SRC_ADDR,IPV4_DST_ADDR,STATUS', where_clause: 'STATUS != 0', maxhits_clause: 100 } });
    const alerted = rows.body.rsp as { IPV4_SRC_ADDR: string; IPV4_DST_ADDR: string; STATUS: string }[];
    expect(alerted).toHaveLength(3);
    const n = alerted.length;
    const byStatus = new Map<number, number>();
    for (const r of alerted) byStatus.set(Number(r.STATUS), (byStatus.get(Number(r.STATUS)) ?? 0) + 1);
    const top = await s.call(pro2('get/flow/alert/top'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600 } });
    expect(top.body.rc, top.text).toBe(0);
    expect(top.body.rsp.map((c: any) => c.name)).toEqual(['alert_id', 'cli_ip', 'srv_ip', 'ip', 'l7_proto', 'vlan']);
    expect(card(top, 'alert_id').map((e: any) => [e.value, e.count])).toEqual([...byStatus].sort((a, b) => b[1] - a[1]).map(([id, c]) => [id, Math.floor((c * 100) / n)]));
    expect(card(top, 'srv_ip').map((e: any) => [e.value, e.count])).toEqual([[DNS, 100]]);
    expect(card(top, 'cli_ip').map((e: any) => [e.value, e.count])).toEqual(CLIENTS.map((c) => [c, 33]));
    expect(card(top, 'ip').map((e: any) => [e.value, e.count])).toEqual([[DNS, 100], ...CLIENTS.map((c) => [c, 33])]);
    // get/alert/list/alerts on flows takes flow_alerts_view's names too (ntopng's client: where "alert_id != 15")
    const view = await s.call(v2('get/alert/list/alerts'), {
      query: { ifid: 0, alert_family: 'flow', epoch_begin: 0, epoch_end: 0xffffffff, select_clause: 'alert_id,srv_port', where_clause: 'alert_id != 15 AND srv_port = 53', order_by: 'tstamp' },
    });
    expect(view.body.rc, view.text).toBe(0);
    expect((view.body.rsp as Record<string, string>[]).map((r) => [Number(r.ALERT_ID), Number(r.SRV_PORT)]).sort()).toEqual(alerted.map((r) => [Number(r.STATUS), 53]).sort());
    expect((await s.call(v2('get/alert/list/alerts'), { query: { ifid: 0, alert_family: 'flow', where_clause: 'alert_id != 15' } })).body.rc).toBe(-5); // epochs required
    // v2 get/flow/alert/ts.lua (the flow alert page's chart): the stored flow alerts per severity in 31 slots
    const fts = await s.call(v2('get/flow/alert/ts'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600 } });
    expect(fts.body.rc, fts.text).toBe(0);
    const series = fts.body.rsp.series as { name: string; data: [number, number][] }[];
    expect(series.reduce((n, x) => n + x.data.reduce((m, [, c]) => m + c, 0), 0)).toBe(alerted.length);
    expect(series.every((x) => /^[A-Z]/.test(x.name) && x.data.length >= 31)).toBe(true);
    // v2 get/alert/top.lua (the Python client's get_alerts_stats, its report reads it): every stored
    // alert of the interface, whatever window or ip it is sent, by (entity, alert id): the ten most
    // seen (% of all) and the ten of highest severity, counted here from the lists of each family
    const wide = { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 100 };
    const rec = async (path: string) => ((await s.call(v2(path), { query: wide })).body.rsp.records as any[]);
    const pairs = new Map<string, { value: number; severity: number; count: number }>();
    const add = (entity: number, value: number, severity: number) => {
      const e = pairs.get(`${entity}:${value}`) ?? { value, severity, count: 0 };
      pairs.set(`${entity}:${value}`, { ...e, severity: Math.max(e.severity, severity), count: e.count + 1 });
    };
    for (const r of await rec('get/flow/alert/list')) add(4, Number(r.alert_id.value), Number(r.severity.value));
    // the interface's own alerts (the capture's devices), the users' (addUser above) and any other family's
    for (const [f, entity] of [['interface', 0], ['network', 2], ['mac', 5], ['user', 7], ['am_host', 8], ['system', 9]] as const)
      for (const r of await rec(`get/${f}/alert/list`)) add(entity, Number(r.alert_id.value), Number(r.severity.value));
    for (const [id, n] of [[PORT_ERRORS, 4], [DUPLEX, 1]]) for (let i = 0; i < n; i++) add(3, id, 4);
    for (const [id, n] of [[5, 3], [7, 1]]) for (let i = 0; i < n; i++) add(1, id, 4);
    const sum = [...pairs.values()].reduce((a, e) => a + e.count, 0);
    expect(sum).toBeGreaterThan(12);
    for (const q of [{ ifid: 0 }, { ifid: 0, epoch_begin: T0 + 5000, epoch_end: T0 + 5001, ip: `${CLIENTS[1]};eq` }]) {
      const r = await s.call(v2('get/alert/top'), { query: q });
      expect(r.body.rc, r.text).toBe(0);
      const [byCount, bySev] = r.body.rsp;
      expect([byCount.name, byCount.label, bySev.name, bySev.label]).toEqual(['top_alerts_by_count', 'Top Alerts By Count', 'top_alerts_by_severity', 'Top Alerts By Severity']);
      const want = [...pairs.values()].sort((a, b) => b.count - a.count).slice(0, 10);
      expect(byCount.value.map((e: any) => e.count)).toEqual(want.map((e) => Math.floor((e.count * 100) / sum)));
      expect(byCount.value[0]).toEqual({ key: 'alert_id', value: PORT_ERRORS, label: 'High Interface Discards/…', title: 'High Interface Discards/Errors', count: Math.floor(400 / sum) });
      const sevs = [...pairs.values()].sort((a, b) => b.severity - a.severity || b.count - a.count).slice(0, 10);
      expect(bySev.value.map((e: any) => [e.severity, e.severity_label])).toEqual(sevs.map((e) => [e.severity, ({ 3: 'Notice', 4: 'Warning', 5: 'Error', 6: 'Critical', 8: 'Emergency' } as Record<number, string>)[e.severity]]));
      expect(bySev.value.every((e: any) => e.count === undefined)).toBe(true);
    }
    // every family: flow 3 + snmp 5 + host 4, and the interface's own alerts of the window (the
    // capture's devices, first seen: device connection alerts)
    const iface = await s.call(v2('get/interface/alert/list'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600, length: 100 } });
    const total = 12 + (iface.body.recordsTotal as number);
    const all = await s.call(pro2('get/all/alert/top'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600 } });
    expect(card(all, 'alert_id')[0]).toMatchObject({ value: PORT_ERRORS, entity: 'snmp_device', count: Math.floor(400 / total) });
  });

  it.skipIf(!!skip)('acknowledge one row_id, then by filter; lists show label and status; delete; -3 and -5 leave rows intact', async () => {
    const list = async (status: string, q: Record<string, string | number> = {}) => {
      const r = await s.call(pro2('get/snmp/device/alert/list'), { query: { ...WIN, status, length: 100, ...q } });
      expect(r.body.rc, r.text).toBe(0);
      return r.body.rsp.records as any[];
    };
    const before = await list('historical');
    expect(before).toHaveLength(5);
    const target = before.find((r) => r.port.value === 2 && r.ip === '10.0.0.1');
    const ack = await s.call(pro2('acknowledge/snmp/device/alerts'), { query: { ifid: 0, row_id: target.row_id, label: 'cable replaced' } });
    expect(ack.body.rc, ack.text).toBe(0);
    const acked = await list('acknowledged');
    expect(acked.map((r) => [r.row_id, r.user_label])).toEqual([[target.row_id, 'cable replaced']]);
    expect(await list('historical')).toHaveLength(4);
    // non-admin: -3; hostile filter: -5; nothing changed
    expect((await s.call(pro2('acknowledge/snmp/device/alerts'), { query: { ...WIN, label: 'x' }, user: 'viewer', pw: 'pw-viewer-123' })).body.rc).toBe(-3);
    expect((await s.call(pro2('acknowledge/snmp/device/alerts'), { query: { ...WIN, label: 'x', ip: '10.0.0.1;zz' } })).body.rc).toBe(-5);
    expect((await s.call(pro2('acknowledge/snmp/device/alerts'), { query: { ...WIN, label: 'x', ip: "10.0.0.1' OR 1=1 --;eq" } })).body.rc).toBe(0);
    expect((await s.call(pro2('delete/snmp/device/alerts'), { query: { ...WIN, alert_id: 'x;zz' } })).body.rc).toBe(-5);
    expect(await list('historical')).toHaveLength(4);
    // by filter: every alert of 10.0.0.2
    expect((await s.call(pro2('acknowledge/snmp/device/alerts'), { query: { ...WIN, ip: '10.0.0.2;eq', label: 'known' } })).body.rc).toBe(0);
    expect((await list('acknowledged')).map((r) => [r.ip, r.user_label]).sort()).toEqual([['10.0.0.1', 'cable replaced'], ['10.0.0.2', 'known']]);
    // delete the duplex alert only (historical status: default)
    expect((await s.call(pro2('delete/snmp/device/alerts'), { query: { ...WIN, alert_id: `${DUPLEX};eq` } })).body.rc).toBe(0);
    expect((await list('any')).map((r) => Number(r.alert_id.value)).sort()).toEqual([PORT_ERRORS, PORT_ERRORS, PORT_ERRORS, PORT_ERRORS]);
    // without both epochs ntopng filters on no time (its page deletes one alert by row_id alone): the
    // alerts stored a day before now are listed (no length: every one) and one is deleted by row_id
    const noWin = await s.call(pro2('get/snmp/device/alert/list'), { query: { ifid: 0, status: 'any', epoch_end: T0 + 86400 } });
    expect(noWin.body.rsp.records).toHaveLength(4);
    const victim = noWin.body.rsp.records.find((r: any) => r.user_label === '').row_id;
    expect((await s.call(pro2('delete/snmp/device/alerts'), { query: { ifid: 0, row_id: `${victim};eq` } })).body.rc).toBe(0);
    expect((await list('any')).map((r) => r.row_id)).not.toContain(victim);
    expect(await list('any')).toHaveLength(3);
    // delete/all/alerts: every family's stored alerts matching the filters (here one alert id: the SNMP ones only)
    expect((await s.call(v2('delete/all/alerts'), { query: { ifid: 0, status: 'any', alert_id: `${PORT_ERRORS};eq` } })).body.rc).toBe(0);
    expect(await list('any')).toHaveLength(0);
    const hosts = await s.call(v2('get/host/alert/list'), { query: { ...WIN, status: 'any', length: 100 } });
    expect(hosts.body.rsp.records).toHaveLength(4);
  });
});
