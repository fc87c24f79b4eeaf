// The timeseries endpoints over HTTP, on a service whose sampler saw a
// generated capture with known traffic per minute: ts.lua in v0/v1/v2 (GET
// and the Python client's POST), type/consts.lua, pro ts_multi.lua and v2
// batch.lua, and their errors. Expected values are computed from the frames.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, addUser, startApi, v0, v1, v2, type ApiService } from './fixtures/api.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { HOST_A, HOST_B, T0, perMinuteCapture, type MinuteTruth } from './fixtures/ts-capture.js';

const tmp = tempDir();
const ACTIVE = [0, 1, 2, 6, 7, 9, 30, 59, 60, 61, 75];
const LAST = 75;
const cap = perMinuteCapture(ACTIVE);
const file = tmp.file('api-ts.pcap', pcap(cap.packets));
const minute = (k: number): MinuteTruth | undefined => cap.minutes.find((m) => m.k === k);
const sum = (ms: MinuteTruth[], f: (m: MinuteTruth) => number) => ms.reduce((a, m) => a + f(m), 0);
const BYTES = sum(cap.minutes, (m) => m.bytes);
const END = T0 + (LAST + 1) * 60;
const rate = (k: number) => (k > LAST ? null : (minute(k)?.bytes ?? 0) / 60);

let s: ApiService;
let bare: ApiService;
const pro = (p: string) => `/lua/pro/rest/v2/${p}.lua`;

beforeAll(async () => {
  s = await startApi({ files: [file, file], timeseries: true });
  bare = await startApi({ files: [file] });
  await addUser(s, { username: 'elsewhere', password: 'Passw0rd!x', allowed_networks: '10.0.0.0/8' });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await bare?.close();
  tmp.cleanup();
});

describe('get/timeseries/ts.lua', () => {
  it('v0: the spec shape, data keyed by epoch, statistics', async () => {
    const r = await s.call(v0('get/timeseries/ts'), { query: { ts_schema: 'iface:traffic', ts_query: 'ifid:0', epoch_begin: T0, epoch_end: T0 + 20 * 60, limit: 60, extended: 1 } });
    expect(r.status).toBe(200);
    const b = r.body;
    expect(Object.keys(b).sort()).toEqual(['count', 'max_points', 'query', 'schema', 'series', 'start', 'statistics', 'step']);
    expect(b).toMatchObject({ start: T0, step: 60, count: 20, max_points: 60, schema: 'iface:traffic', query: { ifid: '0' } });
    expect(b.series).toHaveLength(1);
    expect(b.series[0].label).toBe('bytes');
    expect(b.series[0].tags).toEqual({ ifid: '0' });
    expect(b.series[0].data).toEqual(Object.fromEntries(Array.from({ length: 20 }, (_, k) => [String(T0 + 60 * k), rate(k)])));
    const first20 = cap.minutes.filter((m) => m.k < 20);
    expect(b.statistics.total).toBe(sum(first20, (m) => m.bytes));
    const rates = Array.from({ length: 20 }, (_, k) => rate(k)!);
    expect(b.statistics.max_val).toBe(Math.max(...rates));
    expect(b.statistics.max_val_idx).toBe(rates.indexOf(Math.max(...rates)));
    expect(b.statistics.min_val).toBe(0);
    expect(b.statistics.average).toBe(rates.reduce((a, x) => a + x, 0) / 20);
    expect(b.statistics['95th_percentile']).toBe([...rates].sort((x, y) => x - y)[Math.floor(0.95 * 20 + 0.5) - 2]);
  });

  it('v1: data as arrays unless extended=1; the same GET as POST', async () => {
    const query = { ts_schema: 'iface:traffic', ts_query: 'ifid:1', epoch_begin: T0, epoch_end: END };
    const g = await s.call(v1('get/timeseries/ts'), { query });
    expect(g.body.rc).toBe(0);
    expect(g.body.rsp.series[0].data).toEqual(Array.from({ length: 60 }, (_, i) => {
      // 76 minutes in 60 points at most: groups of 2 minutes averaged
      const ks = [2 * i, 2 * i + 1].filter((k) => k <= LAST);
      return ks.length ? ks.reduce((a, k) => a + rate(k)!, 0) / 2 : null;
    }).slice(0, 38));
    expect(g.body.rsp.step).toBe(120);
    expect(g.body.rsp.statistics.total).toBe(BYTES);
    const p = await s.call(v1('get/timeseries/ts'), { json: { ...query, extended: 1 } });
    expect(Object.values(p.body.rsp.series[0].data)).toEqual(g.body.rsp.series[0].data);
    expect(Object.keys(p.body.rsp.series[0].data)[1]).toBe(String(T0 + 120));
  });

  it("without epochs, the window is the hour before the series' own (packet) clock, not the wall clock's", async () => {
    const r = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'iface:traffic', ts_query: 'ifid:0', limit: 60, extended: 1 } });
    expect(r.body.rc).toBe(0);
    // the replay's last tick closes minute LAST: the hour before it holds minutes 16..75
    expect(r.body.rsp.metadata.epoch_begin).toBe(END - 3600);
    expect(r.body.rsp.statistics.total).toBe(sum(cap.minutes.filter((m) => m.k >= LAST + 1 - 60), (m) => m.bytes));
  });

  it("v2 POST as ntopng's Python client sends it: start, count, step, series label/data, statistics; metadata", async () => {
    const r = await s.call(v2('get/timeseries/ts'), { json: { ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_A}`, epoch_begin: String(T0), epoch_end: String(END) } });
    expect(r.body.rc).toBe(0);
    const b = r.body.rsp;
    expect(b).toMatchObject({ start: T0, step: 300, count: 16 });
    expect(b.metadata).toEqual({ epoch_begin: T0, epoch_end: T0 + 16 * 300, epoch_step: 300, num_point: 16, schema: 'host:traffic', query: { ifid: '0', host: HOST_A } });
    const sent = b.series.find((x: any) => x.label === 'bytes_sent');
    expect(sent.id).toBe('bytes_sent');
    expect(sent.data).toEqual(Array.from({ length: 16 }, (_, st) => sum(cap.minutes.filter((m) => Math.floor(m.k / 5) === st), (m) => m.aToB) / 300));
    expect(sent.statistics.total).toBe(sum(cap.minutes, (m) => m.aToB));
    const rcvd = b.series.find((x: any) => x.label === 'bytes_rcvd');
    expect(rcvd.statistics.total).toBe(sum(cap.minutes, (m) => m.bToA));
    expect(b.statistics.total).toBe(BYTES);
    // B is the mirror image
    const rb = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_B}`, epoch_begin: T0, epoch_end: END } });
    expect(rb.body.rsp.series.find((x: any) => x.id === 'bytes_rcvd').statistics.total).toBe(sum(cap.minutes, (m) => m.aToB));
  });

  it('v2 gauges: values, no total', async () => {
    const r = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'iface:local_hosts', ts_query: 'ifid:0', epoch_begin: T0, epoch_end: T0 + 600 } });
    expect(r.body.rsp.series[0].data).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    expect(r.body.rsp.series[0].statistics.total).toBeUndefined();
    expect(r.body.rsp.series[0].statistics.average).toBe(2);
  });

  it('top:iface:ndpi: one series per application, together the traffic', async () => {
    const r = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'top:iface:ndpi', ts_query: 'ifid:0', epoch_begin: T0, epoch_end: END, limit: 200 } });
    expect(r.body.rc).toBe(0);
    const series = r.body.rsp.series;
    expect(series.length).toBeGreaterThan(0);
    expect(series.every((x: any) => typeof x.tags.protocol === 'string')).toBe(true);
    expect(series.reduce((a: number, x: any) => a + x.statistics.total, 0)).toBe(BYTES);
  });

  it('ts_compare: the same series that long before', async () => {
    const r = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'iface:traffic', ts_query: 'ifid:0', epoch_begin: T0 + 3600, epoch_end: T0 + 3600 + 10 * 60, ts_compare: '1h' } });
    const back = r.body.rsp.additional_series['1h_ago'];
    expect(back.metadata.epoch_begin).toBe(T0);
    expect(back.series[0].data).toEqual(Array.from({ length: 10 }, (_, k) => rate(k)));
  });

  it('errors: -5 bad schema, query, tags or epochs; -2 unknown ifid; -3 outside allowed networks; -6 without a store', async () => {
    const call = (query: Record<string, string | number>, o: { user?: string; pw?: string } = {}) => s.call(v2('get/timeseries/ts'), { query, ...o });
    expect((await call({ ts_schema: 'iface:nope', ts_query: 'ifid:0' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'iface:traffic', ts_query: 'ifid0' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'iface:traffic' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'host:traffic', ts_query: 'ifid:0' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'host:traffic', ts_query: 'ifid:0,host:not-an-ip' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'iface:traffic', ts_query: 'ifid:0', epoch_begin: 20, epoch_end: 10 })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'iface:traffic', ts_query: 'ifid:0', epoch_begin: 'yesterday' })).body.rc).toBe(-5);
    expect((await call({ ts_schema: 'iface:traffic', ts_query: 'ifid:0', ts_compare: '7h' })).body.rc).toBe(-5);
    const unknown = await call({ ts_schema: 'iface:traffic', ts_query: 'ifid:9' });
    expect([unknown.status, unknown.body.rc]).toEqual([400, -2]);
    const denied = await call({ ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_A}` }, { user: 'elsewhere', pw: 'Passw0rd!x' });
    expect([denied.status, denied.body.rc]).toEqual([401, -3]);
    const v0denied = await s.call(v0('get/timeseries/ts'), { query: { ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_A}` }, user: 'elsewhere', pw: 'Passw0rd!x' });
    expect(v0denied.status).toBe(401);
    // the interface itself is not restricted by networks
    expect((await call({ ts_schema: 'iface:traffic', ts_query: 'ifid:0' }, { user: 'elsewhere', pw: 'Passw0rd!x' })).body.rc).toBe(0);
    const none = await bare.call(v2('get/timeseries/ts'), { query: { ts_schema: 'iface:traffic', ts_query: 'ifid:0' } });
    expect([none.status, none.body.rc]).toEqual([500, -6]);
    expect((await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'iface:traffic', ts_query: 'ifid:0' }, user: 'admin', pw: 'wrong' + ADMIN_PASSWORD })).body.rc).toBe(-3);
  });
});

describe('get/timeseries/type/consts.lua', () => {
  it('the family, then top entries for the series stored in the range', async () => {
    const r = await s.call(v2('get/timeseries/type/consts'), { query: { query: 'iface', ifid: 0, epoch_begin: T0, epoch_end: END } });
    expect(r.body.rc).toBe(0);
    const list = r.body.rsp as any[];
    const traffic = list.find((x) => x.schema === 'iface:traffic');
    expect(traffic).toMatchObject({ id: 'iface', measure_unit: 'bps', priority: 0 });
    expect(Object.keys(traffic.timeseries)).toEqual(['bytes']);
    expect(list.every((x) => x.id === 'iface' || x.schema.startsWith('top:'))).toBe(true);
    const apps = list.filter((x) => x.schema === 'top:iface:ndpi');
    expect(apps.length).toBeGreaterThan(0);
    expect(apps.every((x) => x.query === `protocol:${x.label}`)).toBe(true);
    // the same names as the top query
    const top = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'top:iface:ndpi', ts_query: 'ifid:0', epoch_begin: T0, epoch_end: END } });
    expect(apps.map((x) => x.label).sort()).toEqual(top.body.rsp.series.map((x: any) => x.tags.protocol).sort());
    const host = await s.call(v2('get/timeseries/type/consts'), { query: { query: 'host', ifid: 0, host: HOST_A, epoch_begin: T0, epoch_end: END } });
    expect(host.body.rsp.find((x: any) => x.schema === 'host:traffic')).toBeTruthy();
    expect(host.body.rsp.some((x: any) => x.schema === 'top:host:ndpi')).toBe(true);
    expect((await s.call(v2('get/timeseries/type/consts'), { query: { ifid: 0 } })).body.rc).toBe(-5);
    expect((await s.call(v2('get/timeseries/type/consts'), { query: { query: 'iface', ifid: 7 } })).body.rc).toBe(-2);
  });
});

describe('pro ts_multi.lua and v2 batch.lua', () => {
  it('ts_multi: one v2 result per request, in order, with ts_compare', async () => {
    const body = {
      ifid: 0,
      epoch_begin: T0 + 3600,
      epoch_end: T0 + 3600 + 600,
      limit: 180,
      ts_compare: '1h',
      ts_requests: [
        { ts_query: 'ifid:0', ts_schema: 'iface:traffic', tskey: '0' },
        { ts_query: `ifid:1,host:${HOST_A}`, ts_schema: 'host:traffic', tskey: HOST_A },
      ],
    };
    const r = await s.call(pro('get/timeseries/ts_multi'), { json: body });
    expect(r.body.rc).toBe(0);
    expect(r.body.rsp).toHaveLength(2);
    expect(r.body.rsp[0].metadata.schema).toBe('iface:traffic');
    expect(r.body.rsp[0].series[0].data).toEqual(Array.from({ length: 10 }, (_, k) => rate(60 + k)));
    expect(r.body.rsp[0].additional_series['1h_ago'].series[0].data).toEqual(Array.from({ length: 10 }, (_, k) => rate(k)));
    expect(r.body.rsp[1].metadata.query).toEqual({ ifid: '1', host: HOST_A });
    // ts_requests keyed by name (ntopng's dashboard templates) work alike
    const keyed = await s.call(pro('get/timeseries/ts_multi'), { json: { ...body, ts_requests: { a: body.ts_requests[0] } } });
    expect(keyed.body.rsp[0].series).toEqual(r.body.rsp[0].series);
    expect((await s.call(pro('get/timeseries/ts_multi'), { json: { ...body, ts_requests: [] } })).body.rc).toBe(-5);
    expect((await s.call(pro('get/timeseries/ts_multi'), { json: { ...body, ts_requests: [{ ts_query: 'ifid:0', ts_schema: 'x:y' }] } })).body.rc).toBe(-5);
  });

  it('batch: each query under its id, a bad one answered with its error', async () => {
    const r = await s.call(v2('get/timeseries/batch'), {
      json: {
        epoch_begin: T0,
        epoch_end: END,
        queries: [
          { id: 'q0', ts_schema: 'iface:traffic', ts_query: 'ifid:0' },
          { id: 'q1', ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_B}` },
          { id: 'bad', ts_schema: 'iface:nope', ts_query: 'ifid:0' },
          { ts_schema: 'iface:traffic', ts_query: 'ifid:0' },
        ],
      },
    });
    expect(r.body.rc).toBe(0);
    expect(r.body.rsp.meta).toMatchObject({ epoch_begin: T0, epoch_end: END });
    expect(Object.keys(r.body.rsp.results).sort()).toEqual(['bad', 'q0', 'q1']);
    expect(r.body.rsp.results.q0.measure_unit).toBe('bps');
    expect(r.body.rsp.results.q0.series[0].data).toEqual(Array.from({ length: 76 }, (_, k) => rate(k)));
    expect(r.body.rsp.results.q1.series.find((x: any) => x.id === 'bytes_rcvd').statistics.total).toBe(sum(cap.minutes, (m) => m.aToB));
    expect(r.body.rsp.results.bad).toMatchObject({ series: [], metadata: {}, error: expect.stringContaining('iface:nope') });
    expect((await s.call(v2('get/timeseries/batch'), { json: { queries: 'nope' } })).body.rc).toBe(-5);
    expect((await bare.call(v2('get/timeseries/batch'), { json: { queries: [] } })).body.rc).toBe(-6);
  });
});

describe('pro interface/top/ts_stats.lua and host/top/ts_stats.lua', () => {
  const stats = (fam: string, query: Record<string, string | number>) => s.call(pro(`get/${fam}/top/ts_stats`), { query: { epoch_begin: T0, epoch_end: END, ...query } });

  it('top protocols and categories of the interface: their bytes add up to the traffic', async () => {
    for (const view of ['top_protocols', 'top_categories']) {
      const r = await stats('interface', { ts_query: 'ifid:0', detail_view: view });
      expect(r.body.rc).toBe(0);
      const rows = r.body.rsp as any[];
      expect(rows.reduce((a, x) => a + x.traffic, 0)).toBe(BYTES);
      expect(rows.reduce((a, x) => a + x.percentage, 0)).toBeCloseTo(100, 9);
      const key = view === 'top_protocols' ? 'protocol' : 'category';
      expect(rows.every((x) => typeof x[key].label === 'string' && Number.isInteger(x[key].id))).toBe(true);
      expect(rows[0].ts_query).toBe(`ifid:0,${key}:${rows[0][key].label}`);
    }
  });

  it('top senders and receivers: the local hosts by what they sent / received', async () => {
    const send = (await stats('interface', { ts_query: 'ifid:0', detail_view: 'top_senders' })).body.rsp;
    expect(send.map((x: any) => [x.host.ip, x.traffic])).toEqual([
      [HOST_A, sum(cap.minutes, (m) => m.aToB)],
      [HOST_B, sum(cap.minutes, (m) => m.bToA)],
    ]);
    expect(send[0]).toMatchObject({ ts_schema: 'host:traffic', ts_query: `ifid:0,host:${HOST_A}` });
    const recv = (await stats('interface', { ts_query: 'ifid:0', detail_view: 'top_receivers' })).body.rsp;
    expect(recv.map((x: any) => [x.host.ip, x.traffic])).toEqual([
      [HOST_B, sum(cap.minutes, (m) => m.aToB)],
      [HOST_A, sum(cap.minutes, (m) => m.bToA)],
    ]);
  });

  it("a host's top protocols add up to what it sent and received; errors", async () => {
    const r = await stats('host', { ts_query: `ifid:0,host:${HOST_A}`, detail_view: 'top_protocols' });
    expect(r.body.rsp.reduce((a: number, x: any) => a + x.traffic, 0)).toBe(BYTES);
    expect((await stats('host', { ts_query: `ifid:0,host:${HOST_A}`, detail_view: 'top_senders' })).body.rc).toBe(-5);
    expect((await stats('host', { ts_query: 'ifid:0', detail_view: 'top_protocols' })).body.rc).toBe(-5);
    expect((await stats('interface', { ts_query: 'ifid:4', detail_view: 'top_protocols' })).body.rc).toBe(-2);
    expect((await s.call(pro('get/host/top/ts_stats'), { query: { ts_query: `ifid:0,host:${HOST_A}` }, user: 'elsewhere', pw: 'Passw0rd!x' })).body.rc).toBe(-3);
  });
});

describe('pro lightview/aggregate.lua', () => {
  const agg = pro('get/lightview/aggregate');

  it('pie: the endpoint on each interface, slices summed by label', async () => {
    const one = (await s.call(v2('get/interface/l7/stats'), { query: { ifid: 0, ndpistats_mode: 'sinceStartup' } })).body.rsp as { label: string; value: number }[];
    expect(one.length).toBeGreaterThan(0);
    const endpoint = '/lua/rest/v2/get/interface/l7/stats.lua?ndpistats_mode=sinceStartup';
    const r = await s.call(agg, { query: { endpoint, component: 'pie', max_values: 10 } });
    expect(r.body.rc).toBe(0);
    const want = one.map((x) => ({ label: x.label, value: 2 * x.value })).sort((a, b) => b.value - a.value || (a.label < b.label ? -1 : 1)).slice(0, 10);
    expect(r.body.rsp).toEqual(want);
    const top1 = await s.call(agg, { query: { endpoint, component: 'pie', max_values: 1 } });
    expect(top1.body.rsp).toEqual(want.slice(0, 1));
  });

  it('badge sums numbers, table concatenates rows, no component: the last answer', async () => {
    const one = (await s.call(v2('get/interface/data'), { query: { ifid: 1 } })).body.rsp;
    const badge = await s.call(agg, { query: { endpoint: '/lua/rest/v2/get/interface/data.lua', component: 'badge' } });
    expect(badge.body.rsp.bytes).toBe(2 * one.bytes);
    expect(badge.body.rsp.packets).toBe(2 * one.packets);
    const last = await s.call(agg, { query: { endpoint: '/lua/rest/v2/get/interface/data.lua' } });
    expect(last.body.rsp.ifid).toBe('1');
    const table = await s.call(agg, { query: { endpoint: '/lua/rest/v2/get/host/active.lua', component: 'table', perPage: 100 } });
    const hosts = (await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } })).body.rsp.data;
    expect(table.body.rsp.data).toHaveLength(2 * hosts.length);
  });

  it('POST to batch.lua: each query on every interface, series summed, split_series on request', async () => {
    const r = await s.call(`${agg}?endpoint=/lua/rest/v2/get/timeseries/batch.lua&component=timeseries`, {
      json: { epoch_begin: T0, epoch_end: T0 + 600, queries: [{ id: 'q0', ts_schema: 'iface:traffic', ts_query: 'ifid:0', split: true }, { id: 'q1', ts_schema: 'iface:packets', ts_query: 'ifid:0' }] },
    });
    expect(r.body.rc).toBe(0);
    const q0 = r.body.rsp.results.q0;
    expect(q0.series[0].data).toEqual(Array.from({ length: 10 }, (_, k) => 2 * rate(k)!));
    expect(q0.split_series.map((x: any) => x.ifid)).toEqual([0, 1]);
    expect(q0.split_series[1].series[0].data).toEqual(Array.from({ length: 10 }, (_, k) => rate(k)));
    expect(q0.split_series[1].metadata.query.ifid).toBe('1');
    expect(r.body.rsp.results.q1.split_series).toBeUndefined();
  });

  it('no endpoint: empty; a foreign or recursive endpoint: -5; the caller\'s rights apply', async () => {
    expect((await s.call(agg)).body.rsp).toEqual([]);
    expect((await s.call(agg, { query: { endpoint: 'http://example.com/x.lua' } })).body.rc).toBe(-5);
    expect((await s.call(agg, { query: { endpoint: '/lua/pro/rest/v2/get/lightview/aggregate.lua' } })).body.rc).toBe(-5);
    expect((await s.call(agg, { query: { endpoint: '/lua/rest/v2/get/interface/data.lua', component: 'donut' } })).body.rc).toBe(-5);
    const denied = await s.call(agg, { query: { endpoint: '/lua/rest/v2/edit/ntopng/incr_flows.lua' }, user: 'elsewhere', pw: 'Passw0rd!x' });
    expect(denied.body.rc).toBe(-3);
  });
});

describe('top queries for an unprivileged user', () => {
  it('top:host:traffic lists only hosts inside the allowed networks', async () => {
    const query = { ts_schema: 'top:host:traffic', ts_query: 'ifid:0', epoch_begin: T0, epoch_end: END };
    const admin = await s.call(v2('get/timeseries/ts'), { query });
    expect(new Set(admin.body.rsp.series.map((x: any) => x.tags.host))).toEqual(new Set([HOST_A, HOST_B]));
    const other = await s.call(v2('get/timeseries/ts'), { query, user: 'elsewhere', pw: 'Passw0rd!x' });
    expect(other.body.rc).toBe(0);
    expect(other.body.rsp.series).toEqual([]);
  });
});
