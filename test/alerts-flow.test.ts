// Flow alerts from nDPI risks, stored and served (issue 13, first part):
// nDPI captures replayed with the historical store; every stored alert's
// alert set, score and predominant alert recomputed here by hand from the
// catalogue and the flow's risk mask; for flows whose risks our classifier
// shares with nDPI's ground truth, the alerts equal those of the truth's
// risks; counters equal what the list returns; -3 / -5 / scope cases. The
// same on a real ClickHouse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { addon } from '../ts/bindings/native.js';
import { BY_ALERT_ID, BY_RISK } from '../ts/services/alerts/catalogue.js';
import { OWN_FLOW_CHECKS } from '../ts/services/checks/definitions.js';
import { addUser, startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { clickhouseSkip, storeServer, type ClickHouseServer } from './fixtures/clickhouse.js';
import { NDPI_PCAPS, normIp } from './fixtures/util.js';

const CAPTURES = ['1kxun.pcap', 'EAQ.pcap', 'pop3.pcap', 'kerberos.pcap', 'WebattackSQLinj.pcap'];
const TRUTH = join(NDPI_PCAPS, '..', 'ndpi-truth');
const ALL = { epoch_begin: 0, epoch_end: 0xffffffff, length: 10000 };
const L4: Record<string, number> = { TCP: 6, UDP: 17, ICMP: 1, ICMPV6: 58 };
const RISK_NAMES: string[] = addon.info().dpi.risks;
const key = (p: number | string, a: string, ap: number | string, b: string, bp: number | string) => {
  const x = `${normIp(a)}|${ap}`, y = `${normIp(b)}|${bp}`;
  return `${p}|${x < y ? `${x}|${y}` : `${y}|${x}`}`;
};

/** alert ids set in an ALERTS_MAP hex string */
function mapIds(hex: string): number[] {
  const n = BigInt(`0x${hex || '0'}`);
  const out: number[] = [];
  for (let i = 0; i < 128; i++) if ((n >> BigInt(i)) & 1n) out.push(i);
  return out;
}
const riskIds = (bitmap: string) => {
  const n = BigInt(bitmap || '0');
  const out: number[] = [];
  for (let i = 0; i < 64; i++) if ((n >> BigInt(i)) & 1n) out.push(i);
  return out;
};

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('flow alerts on %s', (store, skip) => {
  let s: ApiService;
  let ch: ClickHouseServer | undefined;

  beforeAll(async () => {
    const up = await storeServer(store, skip);
    if (!up) return;
    ch = up.ch;
    s = await startApi({
      files: CAPTURES.map((c) => join(NDPI_PCAPS, c)),
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: store === 'clickhouse' ? { clickhouse: { url: ch!.url('flowgate') } } : true,
      // the risks' alerts alone: ntopng's own flow checks (alerts-flow-checks.test.ts) switched off
      configure: async (c) => {
        for (const d of OWN_FLOW_CHECKS) if (d) await c.setEnabled(d.subdir, d.key, false);
      },
    });
    await addUser(s, { username: 'noalerts', password: 'pw-noalerts-1', allow_alerts: '0' });
    await addUser(s, { username: 'net', password: 'pw-net-12345', allowed_networks: '10.0.0.0/8', allow_alerts: '1' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  const list = async (ifid: number, q: Record<string, string | number> = {}, o: { user?: string; pw?: string } = {}) =>
    s.call(v2('get/flow/alert/list'), { query: { ifid, ...ALL, ...q }, ...o });

  it.skipIf(!!skip)('stores one alert per flow with risks, scored as the catalogue adds up, matching nDPI truth', async () => {
    let checked = 0, agreed = 0;
    for (let ifid = 0; ifid < CAPTURES.length; ifid++) {
      const r = await list(ifid);
      expect(r.body.rc, r.text).toBe(0);
      const recs: any[] = r.body.rsp.records;
      expect(r.body.recordsTotal).toBe(recs.length);
      const byKey = new Map<string, any>();
      for (const x of recs) {
        // by hand: alerts = mapped risks, score = sum, predominant = first highest
        const alerts = riskIds(x.flow_risk_bitmap).map((i) => BY_RISK[i]).filter((a) => a !== undefined);
        expect(alerts.length).toBeGreaterThan(0);
        expect(mapIds(x.alerts_map).sort((a, b) => a - b)).toEqual(alerts.map((a) => a.alertId).sort((a, b) => a - b));
        expect(x.score.value).toBe(alerts.reduce((t, a) => t + a.score, 0));
        const best = Math.max(...alerts.map((a) => a.score));
        expect(Number(x.alert_id.value)).toBe(alerts.find((a) => a.score === best)!.alertId);
        expect(x.alert_name).toBe(BY_ALERT_ID.get(Number(x.alert_id.value))!.key);
        expect(x.family).toBe('flow');
        byKey.set(key(x.proto.value, x.cli_ip.value, x.cli_port.value, x.srv_ip.value, x.srv_port.value), x);
      }
      // nDPI's truth: where our risks agree with it, the alerts are exactly its risks' alerts
      const truth = readFileSync(join(TRUTH, `${CAPTURES[ifid]}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      for (const t of truth) {
        const want = (t.risks ?? []).map((n: string) => RISK_NAMES.indexOf(n)).filter((i: number) => i > 0 && BY_RISK[i]);
        const rec = byKey.get(key(L4[t.l4] ?? t.l4, t.src, t.sport, t.dst, t.dport));
        if (!rec) {
          // no alert row: then nDPI's risks raise no alert, or our classifier missed them
          continue;
        }
        checked++;
        const ours = riskIds(rec.flow_risk_bitmap).filter((i) => BY_RISK[i]);
        if (ours.length === want.length && ours.every((i) => want.includes(i))) {
          agreed++;
          expect(mapIds(rec.alerts_map).sort((a, b) => a - b)).toEqual(want.map((i: number) => BY_RISK[i]!.alertId).sort((a: number, b: number) => a - b));
        }
      }
    }
    console.log(`flow alerts: ${checked} alerted flows matched to nDPI truth, ${agreed} with the same risk set`);
    expect(checked).toBeGreaterThan(10);
    expect(agreed / checked).toBeGreaterThan(0.5);
  });

  it.skipIf(!!skip)('counters and the hourly series equal what the list returns', async () => {
    for (let ifid = 0; ifid < CAPTURES.length; ifid++) {
      const recs: any[] = (await list(ifid)).body.rsp.records;
      const byType = new Map<number, number>(), bySev = new Map<string, number>();
      for (const x of recs) {
        byType.set(Number(x.alert_id.value), (byType.get(Number(x.alert_id.value)) ?? 0) + 1);
      }
      for (const v of ['v1', 'v2'] as const) {
        const f = v === 'v1' ? v1 : v2;
        const t = await s.call(f('get/alert/type/counters'), { query: { ifid, status: 'historical-flows', epoch_begin: 0, epoch_end: 0xffffffff } });
        expect(t.body.rc, t.text).toBe(0);
        expect(new Map(t.body.rsp['historical-flows'].map((e: any) => [e.alert_id, Number(e.count)]))).toEqual(byType);
        const sv = await s.call(f('get/alert/severity/counters'), { query: { ifid, status: 'historical-flows', epoch_begin: 0, epoch_end: 0xffffffff } });
        const total = sv.body.rsp['historical-flows'].reduce((a: number, e: any) => a + Number(e.count), 0);
        expect(total).toBe(recs.length);
        for (const e of sv.body.rsp['historical-flows']) bySev.set(e.severity, Number(e.count));
        // severity filter: the list narrowed to one severity has its counter's size
        for (const e of sv.body.rsp['historical-flows']) {
          const l = await list(ifid, { severity: `${e.severity_id};eq` });
          expect(l.body.recordsTotal).toBe(Number(e.count));
        }
      }
      const ts = await s.call(v2('get/alert/ts'), { query: { ifid, status: 'historical-flows', epoch_begin: 0, epoch_end: 0xffffffff } });
      const hours: Record<string, number[]> = ts.body.rsp;
      const want: Record<string, number[]> = {};
      for (const x of recs) {
        const t = x.tstamp.value, day = t - (t % 86400);
        (want[day] ??= new Array(24).fill(0))[Math.floor((t - day) / 3600)]++;
      }
      expect(hours).toEqual(want);
      // alert_id filter and paging
      const [first] = [...byType.keys()];
      if (first !== undefined) {
        const l = await list(ifid, { alert_id: `${first};eq`, length: 1, start: 0 });
        expect(l.body.recordsTotal).toBe(byType.get(first));
        expect(l.body.rsp.records.length).toBe(1);
      }
    }
  });

  it.skipIf(!!skip)('-3 without allow_alerts, -5 on hostile filters, unprivileged users see only their networks', async () => {
    const no = await list(0, {}, { user: 'noalerts', pw: 'pw-noalerts-1' });
    expect(no.body.rc).toBe(-3);
    const c = await s.call(v1('get/alert/type/counters'), { query: { ifid: 0, status: 'historical-flows' }, user: 'noalerts', pw: 'pw-noalerts-1' });
    expect(c.body.rc).toBe(-3);
    for (const bad of ["1' OR 1=1 --;eq", '5;drop', 'abc;eq', '1;eq,2;like']) {
      const r = await list(0, { alert_id: bad });
      expect([r.status < 500, r.body.rc], bad).toEqual([true, -5]);
    }
    expect((await list(0, { length: 0 })).body.rc).toBe(-5);
    expect((await list(0, { epoch_begin: 10, epoch_end: 5 })).body.rc).toBe(-5);
    expect((await list(99)).body.rc).toBe(-2);
    for (let ifid = 0; ifid < CAPTURES.length; ifid++) {
      const all: any[] = (await list(ifid)).body.rsp.records;
      const mine: any[] = (await list(ifid, {}, { user: 'net', pw: 'pw-net-12345' })).body.rsp.records;
      const in10 = (ip: string) => /^10\./.test(ip);
      expect(mine.length).toBe(all.filter((x) => in10(x.cli_ip.value) || in10(x.srv_ip.value)).length);
    }
  });
});
