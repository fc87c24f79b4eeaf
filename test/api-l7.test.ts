// Application, category and DSCP statistics over HTTP, on replayed captures,
// checked against the host/interface totals (which the truth tests tie to
// tshark) and against nDPI's ground truth for the flows of one application.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { l7Id } from '../ts/bindings/engine.js';
import { groupL7 } from '../ts/api/monitoring/stats.js';
import { NDPI_PCAPS, NDPI_TRUTH } from './fixtures/util.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';

const NETFLIX = join(NDPI_PCAPS, 'netflix.pcap');
const KXUN = join(NDPI_PCAPS, '1kxun.pcap');
let s: ApiService;

beforeAll(async () => {
  s = await startApi({ files: [NETFLIX, KXUN] });
});
afterAll(async () => {
  await s?.close();
});

const rsp = async (path: string, query: Record<string, string | number | boolean>) => {
  const r = await s.call(v2(path), { query });
  expect(r.body?.rc, r.text.slice(0, 300)).toBe(0);
  return r.body.rsp;
};
const sum = (l: { value: number }[]) => l.reduce((a, x) => a + x.value, 0);

describe('interface l7/stats', () => {
  it('sinceStartup: bytes per application add up to the interface IP bytes, in every grouping', async () => {
    const st = s.ifaces.get(0)!.engine.stats();
    const qs: Record<string, boolean>[] = [{}, { breed: true }, { ndpi_category: true }, { collapse_stats: false }];
    for (const q of qs) {
      const list = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', ...q });
      expect(sum(list)).toBe(st.ip_bytes);
      for (let i = 1; i < list.length; i++) if (list[i].label !== 'Other') expect(list[i - 1].value).toBeGreaterThanOrEqual(list[i].value);
    }
    const apps = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', collapse_stats: false });
    expect(apps.map((x: { label: string }) => x.label)).toContain('NetFlix');
  });

  it('count: active flows per application (top 5 above 3%, the rest as Other)', async () => {
    const list = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'count' });
    const all = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'count', all_values: true });
    const flows = s.ifaces.get(0)!.engine.stats().num_flows;
    expect(sum(list)).toBe(flows);
    expect(sum(all)).toBe(flows);
    expect(list.filter((x: { label: string }) => x.label !== 'Other').length).toBeLessThanOrEqual(5);
  });

  it("count: keyed on the flow's application as getnDPIFlowsCount counts it (Google, not TLS.Google), with the flows page's url", async () => {
    const all = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'count', all_values: true });
    // by hand from the flow list: the part after the master's dot
    const flows = (await rsp('get/flow/active', { ifid: 0, perPage: 100000 })).data;
    const want = new Map<string, number>();
    for (const f of flows) {
      const app = f.protocol.l7.split('.').pop();
      want.set(app, (want.get(app) ?? 0) + 1);
    }
    const counted = all.filter((x: { label: string }) => x.label !== 'Other');
    for (const x of counted) expect([x.label, x.value]).toEqual([x.label, want.get(x.label)]);
    expect(counted.some((x: { label: string }) => x.label.includes('.'))).toBe(false);
    expect(flows.some((f: any) => f.protocol.l7.includes('.'))).toBe(true);
    for (const x of counted) expect(x.url).toBe(`/lua/flows_stats.lua?application=${encodeURIComponent(x.label)}`);
    // sinceStartup too, by application (not by breed or category)
    const since = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', collapse_stats: false });
    expect(since.find((x: { label: string }) => x.label === 'NetFlix').url).toBe('/lua/flows_stats.lua?application=NetFlix');
    const breeds = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', breed: true });
    expect(breeds.every((x: { url?: string }) => x.url === undefined)).toBe(true);
  });

  it("new_charts (v2): graph_utils.convert_pie_data's donut of the same slices; v1 ignores it", async () => {
    for (const mode of ['count', 'sinceStartup']) {
      const list = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: mode });
      const pie = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: mode, new_charts: true });
      expect(pie.labels).toEqual(list.map((x: { label: string }) => x.label));
      expect(pie.series).toEqual(list.map((x: { value: number }) => x.value));
      // d3's category10 palette first, one colour per slice
      expect(pie.colors.slice(0, 2)).toEqual(['#1f77b4', '#ff7f0e'].slice(0, list.length));
      expect(pie.colors.length).toBe(list.length);
      const fmt = mode === 'count' ? 'formatValue' : 'bytesToSize';
      expect(pie.yaxis).toEqual({ show: false, labels: { formatter: fmt } });
      expect(pie.tooltip).toEqual({ y: { formatter: fmt } });
      expect(pie.extra_x_tooltip_label).toBe('None');
    }
    const r = await s.call('/lua/rest/v1/get/interface/l7/stats.lua', { query: { ifid: 0, ndpistats_mode: 'count', new_charts: true } });
    expect(Array.isArray(r.body.rsp), r.text.slice(0, 200)).toBe(true);
  });

  it('ndpistats_mode is required', async () => {
    const r = await s.call(v2('get/interface/l7/stats'), { query: { ifid: 0 } });
    expect([r.status, r.body.rc]).toEqual([400, -5]);
  });
});

describe('flow l7 counters and the application filter', () => {
  it("l7/counters: one protocol per flow as Flow::sumStats counts it (TLS.NetFlix and DNS.NetFlix are NetFlix), names ascending", async () => {
    const flows = (await rsp('get/flow/active', { ifid: 0, perPage: 100000 })).data as { protocol: { l7: string } }[];
    const want = new Map<string, number>();
    for (const f of flows) {
      const name = f.protocol.l7.split('.').pop()!;
      want.set(name, (want.get(name) ?? 0) + 1);
    }
    const got = await rsp('get/flow/l7/counters', { ifid: 0 });
    expect(got).toEqual([...want].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([name, count]) => ({ name, count })));
    expect(flows.some((f) => f.protocol.l7.includes('.'))).toBe(true);
  });

  it('application=Unknown keeps only the flows with neither a master nor an application; an unknown host is -1', async () => {
    const flows = (await rsp('get/flow/active', { ifid: 0, perPage: 100000 })).data as { protocol: { l7: string } }[];
    const unknown = flows.filter((f) => f.protocol.l7 === 'Unknown').length;
    // the capture has plain (master-less) flows, which an Unknown filter must not take
    expect(flows.some((f) => !f.protocol.l7.includes('.') && f.protocol.l7 !== 'Unknown')).toBe(true);
    for (const application of ['Unknown', '0']) {
      const p = await rsp('get/flow/active', { ifid: 0, perPage: 100000, application });
      expect(p.totalRows, application).toBe(unknown);
      expect(p.data.every((f: { protocol: { l7: string } }) => f.protocol.l7 === 'Unknown')).toBe(true);
    }
    const r = await s.call(v2('get/flow/active'), { query: { ifid: 0, host: '203.0.113.77' } });
    expect([r.status, r.body.rc]).toEqual([404, -1]);
  });
});

describe('host l7 and dscp stats', () => {
  const HOST = '192.168.1.7';

  it("a host's bytes per application add up to its bytes, and NetFlix matches nDPI's flows", async () => {
    const data = await rsp('get/host/data', { ifid: 0, host: HOST });
    const list = await rsp('get/host/l7/stats', { ifid: 0, host: HOST, collapse_stats: false });
    expect(sum(list)).toBe(data['bytes.sent'] + data['bytes.rcvd']);
    // nDPI's ground truth: bytes of the flows it calls NetFlix (master or app)
    const truth = readFileSync(join(NDPI_TRUTH, 'netflix.pcap.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((f) => f.app_name === 'NetFlix' && (f.src === HOST || f.dst === HOST));
    const nf = list.find((x: { label: string }) => x.label === 'NetFlix');
    expect(nf.value).toBe(truth.reduce((a, f) => a + f.c2s_bytes + f.s2c_bytes, 0));
    expect(data.ndpi.NetFlix.num_flows).toBe(truth.length);
    expect(nf.duration).toBeGreaterThan(0);
  });

  it('dscp: packets per class received (default) and sent add up to the host packets', async () => {
    const data = await rsp('get/host/data', { ifid: 0, host: HOST });
    const rcvd = await rsp('get/host/dscp/stats', { ifid: 0, host: HOST });
    const sent = await rsp('get/host/dscp/stats', { ifid: 0, host: HOST, direction: 'sent' });
    expect(sum(rcvd)).toBe(data['packets.rcvd']);
    expect(sum(sent)).toBe(data['packets.sent']);
    const bad = await s.call(v2('get/host/dscp/stats'), { query: { ifid: 0, host: HOST, direction: 'up' } });
    expect(bad.body.rc).toBe(-5);
  });

  it("flags read as ntopng reads them: Python's True / False (ntopng's python client) are not true, and v1 always collapses", async () => {
    const labels = (l: { label: string }[]) => l.map((x) => x.label).sort();
    const apps = await rsp('get/host/l7/stats', { ifid: 0, host: HOST, collapse_stats: false });
    const breeds = await rsp('get/host/l7/stats', { ifid: 0, host: HOST, breed: true, collapse_stats: false });
    const collapsed = await rsp('get/host/l7/stats', { ifid: 0, host: HOST });
    // the capture gives the three answers apart (else the cases below prove nothing)
    expect(labels(breeds)).not.toEqual(labels(apps));
    expect(collapsed.length).toBeLessThan(apps.length);
    // host.get_l7_stats(): breed=True, ndpi_category=True, collapse_stats=False; `== "true"` is false for each
    const py = await rsp('get/host/l7/stats', { ifid: 0, host: HOST, breed: 'True', ndpi_category: 'True', collapse_stats: 'False' });
    expect(labels(py)).toEqual(labels(apps));
    // collapse_stats given but not `true` (ntopng: `(_GET.collapse_stats or "true") == "true"`): not collapsed
    expect(labels(await rsp('get/host/l7/stats', { ifid: 0, host: HOST, collapse_stats: 'True' }))).toEqual(labels(apps));
    expect(labels(await rsp('get/host/l7/stats', { ifid: 0, host: HOST, breed: '1', collapse_stats: false }))).toEqual(labels(apps));
    const v1 = await s.call('/lua/rest/v1/get/host/l7/stats.lua', { query: { ifid: 0, host: HOST, collapse_stats: false } });
    expect(labels(v1.body.rsp)).toEqual(labels(collapsed));
    // the interface's: the python client's get_l7_stats(100) (all_values=True is not true: 100 slices at most)
    const ifApps = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', collapse_stats: false });
    const ifPy = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup', breed: 'True', ndpi_category: 'True', collapse_stats: 'False' });
    expect(labels(ifPy)).toEqual(labels(ifApps));
    const one = await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'count', all_values: 'True', max_values: 1 });
    expect(one.filter((x: { label: string }) => x.label !== 'Other').length).toBe(1);
    // v1's count has neither max_values nor all_values: five slices at most
    const v1Count = await s.call('/lua/rest/v1/get/interface/l7/stats.lua', { query: { ifid: 0, ndpistats_mode: 'count', all_values: true } });
    expect(v1Count.body.rsp).toEqual(await rsp('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'count' }));
    // get/flow/active's verbose is `== "true"`: 1 is not
    const flow = async (verbose: string) => (await rsp('get/flow/active', { ifid: 0, perPage: 1, verbose })).data[0];
    expect((await flow('true')).tcp).toBeDefined();
    expect((await flow('1')).tcp).toBeUndefined();
    // get/host/active's all is `~= nil`: any value lists every host
    const all = await rsp('get/host/active', { ifid: 0, perPage: 1, all: 'false' });
    expect(all.data.length).toBe(all.totalRows);
    expect(all.totalRows).toBeGreaterThan(1);
  });

  it("dscp: code points summed into ntopng's precedence classes (DSCPStats), labelled as ds_class_descr, classes in key order", async () => {
    // C sends UDP datagrams to D with these code points (how many of each)
    const C = '10.77.0.1', D = '10.77.0.2';
    const sent: [number, number][] = [[0, 1], [1, 2], [4, 3], [8, 1], [10, 2], [40, 1], [46, 4], [48, 2], [56, 1], [57, 5]];
    let t = 0;
    const pkts = sent.flatMap(([dscp, n]) =>
      Array.from({ length: n }, (): Packet => ({ tsNs: BigInt(1_700_000_000 + ++t) * 1_000_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: C, dst: D, proto: IPPROTO.UDP, tos: dscp << 2 }, udp({ sport: 40000 + dscp, dport: 9 }, Buffer.from('x')))) })),
    );
    const tmp = tempDir();
    const one = await startApi({ files: [tmp.file('dscp.pcap', pcap(pkts))] });
    try {
      const got = (await one.call(v2('get/host/dscp/stats'), { query: { ifid: 0, host: C, direction: 'sent' } })).body.rsp;
      // by hand: cs0 {0}, cs1 {8, 10}, cs5 {40, 46}, cs6 {48}, cs7 {57 in ntopng's table}, le {1}, unknown {4, 56}
      // then collapse_stats: largest first (ties in either order), nothing under 1 % here, Other last
      const want = { 'Best Effort (CS0)': 1, 'Priority (CS1)': 3, 'Critical (CS5)': 5, 'Internetwork Control (CS6)': 2, 'Network Control (CS7)': 5, LE: 2, Unknown: 4 };
      expect(got.at(-1)).toEqual({ label: 'Other', value: 0 });
      expect(Object.fromEntries(got.slice(0, -1).map((x: { label: string; value: number }) => [x.label, x.value]))).toEqual(want);
      for (let i = 1; i < got.length - 1; i++) expect(got[i - 1].value).toBeGreaterThanOrEqual(got[i].value);
      const ifd = (await one.call(v2('get/interface/dscp/stats'), { query: { ifid: 0 } })).body.rsp;
      expect(Object.fromEntries(ifd.map((x: { label: string; value: number }) => [x.label, x.value]))).toEqual({ ...want, Other: 0 });
    } finally {
      await one.close();
      tmp.cleanup();
    }
  });

  it("ndpi_category: the host's category counters (each flow's category), not its applications' default categories", async () => {
    const host = '192.168.2.126';
    const data = (await s.call(v2('get/host/data'), { query: { ifid: 1, host } })).body.rsp;
    const want = Object.fromEntries(Object.entries(data.ndpi_categories as Record<string, { bytes: number }>).map(([k, v]) => [k, v.bytes]));
    const got = await rsp('get/host/l7/stats', { ifid: 1, host, ndpi_category: true, collapse_stats: false });
    expect(Object.fromEntries(got.map((x: { label: string; value: number }) => [x.label, x.value]))).toEqual(want);
    // on this capture some flows' category is not their application's default one (else the grouping by
    // application defaults, the former answer, would agree and this test prove nothing)
    const apps = Object.entries(data.ndpi as Record<string, { 'bytes.sent': number; 'bytes.rcvd': number }>).map(([name, v]) => ({ id: l7Id(name)!, bytes: v['bytes.sent'] + v['bytes.rcvd'] }));
    expect(Object.fromEntries(groupL7(apps, 'category').map((x) => [x.label, x.value]))).not.toEqual(want);
  });

  it('unknown host: -1', async () => {
    const r = await s.call(v2('get/host/l7/stats'), { query: { ifid: 0, host: '203.0.113.9' } });
    expect([r.status, r.body.rc]).toEqual([404, -1]);
  });
});
