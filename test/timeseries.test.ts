// The timeseries service end to end on both store backends: a generated
// capture with known traffic per minute is replayed at full speed through an
// engine whose ticks feed the sampler; the series read back, their
// statistics, the hourly rollups and the data after a restart are checked
// against sums computed here from the frames.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import type { Backend } from '../ts/services/store/backend.js';
import { openStore } from '../ts/services/store/index.js';
import { Timeseries, schemaByName, statistics, tagsText, type SeriesData } from '../ts/services/timeseries/index.js';
import { TABLES } from '../ts/services/timeseries/store.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { HOST_A, HOST_B, T0, perMinuteCapture, type MinuteTruth } from './fixtures/ts-capture.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// 3-5, 8 and others empty; 9 → 30 and 30 → 59 jump; 59 → 60 crosses the hour; the last step is minute 75
const ACTIVE = [0, 1, 2, 6, 7, 9, 30, 59, 60, 61, 75];
const LAST = 75;
const cap = perMinuteCapture(ACTIVE);
const file = tmp.file('ts-minutes.pcap', pcap(cap.packets));
// two days later: one more minute, so that the first day leaves the 1-day raw retention
const late = perMinuteCapture([60 * 24 * 2 + 10]);
const lateFile = tmp.file('ts-late.pcap', pcap([...cap.packets, ...late.packets]));

const minute = (k: number): MinuteTruth | undefined => cap.minutes.find((m) => m.k === k);
const sum = (ms: MinuteTruth[], f: (m: MinuteTruth) => number) => ms.reduce((a, m) => a + f(m), 0);

async function replay(ts: Timeseries, files: string[]): Promise<Engine> {
  const e = new Engine({ files, localNetworks: ['192.168.1.0/24'] });
  ts.attach([{ ifid: 0, engine: e }]);
  e.start();
  expect((await e.waitDone()).state).toBe('done');
  await ts.flush();
  return e;
}

const q = (ts: Timeseries, schema: string, tags: Record<string, string>, begin: number, end: number, limit = 1000): Promise<SeriesData> =>
  ts.series({ schema: schemaByName(schema)!, ifid: 0, tags: tagsText(schema, tags), begin, end, limit });

interface Harness {
  open(dir: string): Promise<Backend>;
  cleanup(): Promise<void>;
}

function suite(name: string, skip: string | null, make: () => Promise<Harness>) {
  describe.skipIf(skip !== null)(`timeseries on ${name}`, () => {
    let h: Harness;
    let dir: string;
    let backend: Backend;
    let ts: Timeseries;
    let engine: Engine;

    beforeAll(async () => {
      h = await make();
      dir = mkdtempSync(join(tmpdir(), 'flowgate-ts-'));
      ts = new Timeseries({ log: () => {} });
      backend = await h.open(dir);
      await ts.connect(backend);
      engine = await replay(ts, [file]);
    }, 120_000);
    afterAll(async () => {
      engine?.close();
      await backend?.close();
      await h?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('iface:traffic: one point per minute, the bytes of that minute per second, quiet minutes 0', async () => {
      const r = await q(ts, 'iface:traffic', {}, T0, T0 + 80 * 60);
      expect(r.level).toBe('raw');
      expect(r.start).toBe(T0);
      expect(r.step).toBe(60);
      expect(r.count).toBe(80);
      const want = Array.from({ length: 80 }, (_, k) => (k > LAST ? null : (minute(k)?.bytes ?? 0) / 60));
      expect(r.metrics[0].data).toEqual(want);
      expect(r.metrics[0].total).toBe(sum(cap.minutes, (m) => m.bytes));
    });

    it('statistics as ntopng computes them, total exact', async () => {
      const r = await q(ts, 'iface:traffic', {}, T0, T0 + 80 * 60);
      const known = Array.from({ length: LAST + 1 }, (_, k) => (minute(k)?.bytes ?? 0) / 60);
      const sorted = [...known, 0, 0, 0, 0].sort((a, b) => a - b); // the 4 unknown points count as 0
      const maxV = Math.max(...known);
      const s = statistics(r.metrics[0].data, r.metrics[0].total);
      expect(s).toEqual({
        total: sum(cap.minutes, (m) => m.bytes),
        average: known.reduce((a, b) => a + b, 0) / known.length,
        '95th_percentile': sorted[Math.floor(0.95 * 80 + 0.5) - 2],
        min_val: 0,
        max_val: maxV,
        min_val_idx: 3,
        max_val_idx: known.indexOf(maxV),
      });
    });

    it('iface:packets and traffic_rxtx (local to local: neither upload nor download)', async () => {
      const p = await q(ts, 'iface:packets', {}, T0, T0 + (LAST + 1) * 60);
      expect(p.metrics[0].total).toBe(sum(cap.minutes, (m) => m.packets));
      expect(p.metrics[0].data[61]).toBe(minute(61)!.packets / 60);
      const rx = await q(ts, 'iface:traffic_rxtx', {}, T0, T0 + (LAST + 1) * 60);
      expect(rx.metrics.map((m) => m.total)).toEqual([0, 0]);
    });

    it('gauges: hosts and flows per minute, carried over the quiet minutes', async () => {
      const r = await q(ts, 'iface:hosts', {}, T0, T0 + 12 * 60);
      expect(r.metrics[0].total).toBeNull();
      // A and B from the first minute on; remote hosts none
      expect(r.metrics[0].data).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
      const f = await q(ts, 'iface:flows', {}, T0, T0 + 3 * 60);
      expect(f.metrics[0].data).toEqual([1, 1, 1]);
    });

    it('host:traffic every 5 minutes: what each 5-minute step carried', async () => {
      const steps = Math.ceil((LAST + 1) / 5);
      for (const [host, dir] of [[HOST_A, 'sent'], [HOST_B, 'rcvd']] as const) {
        const r = await q(ts, 'host:traffic', { host }, T0, T0 + steps * 300);
        expect(r.step).toBe(300);
        const m = r.metrics.find((x) => x.metric === `bytes_${dir}`)!;
        const want = Array.from({ length: steps }, (_, s) => sum(cap.minutes.filter((x) => Math.floor(x.k / 5) === s), (x) => x.aToB) / 300);
        expect(m.data).toEqual(want);
        expect(m.total).toBe(sum(cap.minutes, (x) => x.aToB));
      }
    });

    it('host:ndpi and iface:ndpi add up to the traffic', async () => {
      const end = T0 + 80 * 60;
      const ifaceApps = await ts.seriesTotals(schemaByName('iface:ndpi')!, 0, '', T0, end);
      expect(ifaceApps.reduce((a, x) => a + x.total, 0)).toBe(sum(cap.minutes, (m) => m.bytes));
      const hostApps = await ts.seriesTotals(schemaByName('host:ndpi')!, 0, `host=${HOST_A}`, T0, end);
      expect(hostApps.reduce((a, x) => a + (x.byMetric.bytes_sent ?? 0), 0)).toBe(sum(cap.minutes, (m) => m.aToB));
      expect(hostApps.every((x) => x.tags.host === HOST_A && typeof x.tags.protocol === 'string')).toBe(true);
    });

    it('subnet:traffic: both ends in 192.168.1.0/24 is inner traffic', async () => {
      const r = await q(ts, 'subnet:traffic', { subnet: '192.168.1.0/24' }, T0, T0 + (LAST + 1) * 60);
      expect(Object.fromEntries(r.metrics.map((m) => [m.metric, m.total]))).toEqual({
        bytes_ingress: 0,
        bytes_egress: 0,
        bytes_inner: sum(cap.minutes, (m) => m.bytes),
      });
    });

    it('downsamples to the limit by averaging groups, as ntopng', async () => {
      const r = await q(ts, 'iface:traffic', {}, T0, T0 + 76 * 60, 10);
      expect(r.step).toBe(480); // ceil(76 / 10) = 8 points a group
      expect(r.count).toBe(10);
      const rate = (k: number) => (minute(k)?.bytes ?? 0) / 60;
      const g = (i: number) => {
        const ks = Array.from({ length: 8 }, (_, j) => i * 8 + j).filter((k) => k <= LAST);
        return ks.reduce((a, k) => a + rate(k), 0) / ks.length;
      };
      expect(r.metrics[0].data).toEqual(Array.from({ length: 10 }, (_, i) => g(i)));
      expect(r.metrics[0].total).toBe(sum(cap.minutes, (m) => m.bytes));
    });

    it('rolls the complete hour up: totals preserved, gauges averaged', async () => {
      const rows = await backend.query({
        sql: `SELECT schema, tags, metric, value, n FROM ${TABLES.hour.name} WHERE ifid = 0 AND schema = ? ORDER BY metric`,
        params: ['iface:traffic'],
      });
      // one point per minute the sampler wrote (active minutes; the quiet ones were jumped over)
      const written = cap.minutes.filter((m) => m.k < 60).length;
      expect(rows).toEqual([{ schema: 'iface:traffic', tags: '', metric: 'bytes', value: sum(cap.minutes.filter((m) => m.k < 60), (m) => m.bytes), n: written }]);
      const raw = await backend.query({
        sql: `SELECT sum(value) AS s FROM ${TABLES.raw.name} WHERE ifid = 0 AND schema = 'host:traffic' AND metric = 'bytes_sent' AND tags = ?`,
        params: [`host=${HOST_A}`],
      });
      const hour = await backend.query({
        sql: `SELECT sum(value) AS s FROM ${TABLES.hour.name} WHERE ifid = 0 AND schema = 'host:traffic' AND metric = 'bytes_sent' AND tags = ?`,
        params: [`host=${HOST_A}`],
      });
      expect(Number(hour[0].s)).toBe(sum(cap.minutes.filter((m) => m.k < 60), (m) => m.aToB));
      expect(Number(raw[0].s)).toBe(sum(cap.minutes, (m) => m.aToB));
      const g = await backend.query({ sql: `SELECT value, n FROM ${TABLES.hour.name} WHERE ifid = 0 AND schema = 'iface:hosts'`, params: [] });
      expect(g.map((x) => [Number(x.value), Number(x.n)])).toEqual([[2, written]]);
    });

    it('keeps everything across a restart; replaying the same capture again counts once', async () => {
      const before = await q(ts, 'iface:traffic', {}, T0, T0 + 80 * 60);
      engine.close();
      await backend.close();
      backend = await h.open(dir);
      ts = new Timeseries({ log: () => {} });
      await ts.connect(backend);
      expect(await q(ts, 'iface:traffic', {}, T0, T0 + 80 * 60)).toEqual(before);
      engine = await replay(ts, [file]);
      expect(await q(ts, 'iface:traffic', {}, T0, T0 + 80 * 60)).toEqual(before);
      const hour = await backend.query({ sql: `SELECT sum(value) AS s FROM ${TABLES.hour.name} WHERE ifid = 0 AND schema = 'iface:traffic'`, params: [] });
      expect(Number(hour[0].s)).toBe(sum(cap.minutes.filter((m) => m.k < 60), (m) => m.bytes));
    });

    it('drops raw days past retention and reads older ranges from the hourly rollups', async () => {
      engine.close();
      engine = await replay(ts, [lateFile]);
      const parts = (await backend.partitions(TABLES.raw)).map((p) => p.day);
      expect(parts).toEqual(['20231116']); // 2023-11-14 dropped, 1 day kept back from 2023-11-16
      const r = await q(ts, 'iface:traffic', {}, T0, T0 + 2 * 3600);
      expect(r.level).toBe('hour');
      expect(r.step).toBe(3600);
      expect(r.metrics[0].data).toEqual([sum(cap.minutes.filter((m) => m.k < 60), (m) => m.bytes) / 3600, sum(cap.minutes.filter((m) => m.k >= 60), (m) => m.bytes) / 3600]);
      expect(r.metrics[0].total).toBe(sum(cap.minutes, (m) => m.bytes));
    });
  });
}

suite('duckdb', null, async () => ({
  open: (dir) => openStore({ dataDir: dir }),
  cleanup: async () => {},
}));

suite('clickhouse', clickhouseSkip, async () => {
  const srv: ClickHouseServer = await startClickHouse();
  return {
    open: () => openStore({ dataDir: '/nonexistent', clickhouse: { url: srv.url('flowgate_ts'), user: srv.user, password: srv.password } }),
    cleanup: () => srv.stop(),
  };
});
