// Pro "top now" views: top/l7_stats (applications by their flows' current
// throughput), top/score (hosts by score) and top/realtime_traffic (the
// last minute per second) on a capture built here: for the last minute,
// two DNS flows, one NTP flow and one unknown UDP flow at known rates, none
// answered (the checks score their hosts for the one-way traffic).
// The apps' ratios come from the frames' bytes; the per-second series from
// counters fed by hand to the sampler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CHART_POINTS, CHART_STEP_SECS, Rates, RECENT_POINTS } from '../ts/services/rates.js';
import type { Interfaces } from '../ts/services/interfaces.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { dns, dnsName } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const HDR = 14 + 20 + 8;
const QUERY = dns({ id: 1, flags: 0x0100, questions: [{ name: dnsName('a.example'), type: 1 }] });
const NTP = Buffer.concat([Buffer.from([0x23]), Buffer.alloc(47)]);
// [client, server, sport, dport, payload, copies per 100 ms]: DNS, DNS, NTP, another
const FLOWS: [string, string, number, number, Buffer, number][] = [
  ['192.168.7.1', '198.51.100.53', 50001, 53, QUERY, 2],
  ['192.168.7.2', '198.51.100.53', 50002, 53, QUERY, 1],
  ['192.168.7.3', '198.51.100.123', 50003, 123, NTP, 4],
  ['192.168.7.4', '198.51.100.9', 50004, 40001, Buffer.alloc(300, 0xfe), 1],
];

beforeAll(async () => {
  const p: Packet[] = [];
  const at = (ms: number) => BigInt(T0) * 1_000_000_000n + BigInt(ms) * 1_000_000n;
  const push = (ms: number, src: string, dst: string, l4: Buffer, proto: number) =>
    p.push({ tsNs: at(ms), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4)) });
  for (let t = 0; t < 600; t++)
    for (const [c, sv, sp, dp, pl, k] of FLOWS) for (let j = 0; j < k; j++) push(t * 100 + j, c, sv, udp({ sport: sp, dport: dp }, pl), IPPROTO.UDP);
  p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
  s = await startApi({ files: [tmp.file('top-now.pcap', pcap(p))] });
});

const ok = (r: { body: any; text: string }) => {
  expect(r.body?.rc, r.text.slice(0, 300)).toBe(0);
  return r.body.rsp;
};
const PRO = (x: string) => `/lua/pro/rest/v2/get/interface/top/${x}.lua`;

describe('top/l7_stats', () => {
  it("applications by their flows' current throughput, in the ratios of the frames' bytes, with the flows page url", async () => {
    const rows = ok(await s.call(PRO('l7_stats'), { query: { ifid: 0 } }));
    // each flow's application as the flow list names it (the part after the master's dot)
    const flows = ok(await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 100 } })).data;
    const appOf = (port: number) => flows.find((f: any) => f.client.port === port).protocol.l7.split('.').pop();
    expect(appOf(50001)).toBe('DNS');
    expect(appOf(50003)).toBe('NTP');
    const want = new Map<string, number>();
    for (const [, , sp, , pl, k] of FLOWS) want.set(appOf(sp), (want.get(appOf(sp)) ?? 0) + k * (pl.length + HDR));
    const order = [...want].sort((a, b) => b[1] - a[1]).map(([a]) => a);
    expect(rows.map((r: any) => r.label)).toEqual(order);
    for (const r of rows) expect(r.value / rows[0].value / (want.get(r.label)! / want.get(order[0])!), r.label).toBeCloseTo(1, 1);
    // bits per second: the busiest's frame bytes per 100 ms × 10 × 8, within 10 %
    expect(rows[0].value / (want.get(order[0])! * 80)).toBeCloseTo(1, 1);
    expect(rows.find((r: any) => r.label === 'DNS').url).toBe('/lua/flows_stats.lua?application=DNS');
    // the dashboard's donut of the same slices
    const pie = ok(await s.call(PRO('l7_stats'), { query: { ifid: 0, new_charts: true } }));
    expect([pie.labels, pie.series]).toEqual([rows.map((r: any) => r.label), rows.map((r: any) => r.value)]);
    expect(pie.tooltip).toEqual({ y: { formatter: 'fbits' } });
  });

  it('-2 without an interface', async () => {
    for (const x of ['l7_stats', 'score', 'realtime_traffic']) expect((await s.call(PRO(x))).body.rc, x).toBe(-2);
  });
});

describe('top/score', () => {
  it('the hosts with a score, highest first, as the host list sorted by score says; each as host data scores it', async () => {
    const rows = ok(await s.call(PRO('score'), { query: { ifid: 0 } }));
    // every end of the four one-way flows
    expect(rows.map((r: any) => r.ip).sort()).toEqual([...new Set(FLOWS.flatMap(([c, sv]) => [c, sv]))].sort());
    const list = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, sortColumn: 'score', sortOrder: 'desc', perPage: 10 } }));
    expect(rows.map((r: any) => r.ip)).toEqual(list.data.filter((h: any) => h.score.total > 0).map((h: any) => h.ip));
    for (const r of rows) {
      const d = ok(await s.call(v2('get/host/data'), { query: { ifid: 0, host: r.ip } }));
      expect([r.score, r.score_as_client, r.score_as_server]).toEqual([d.score, d['score.as_client'], d['score.as_server']]);
      expect(r.url).toBe(`/lua/host_details.lua?host=${r.ip}`);
    }
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1].score).toBeGreaterThanOrEqual(rows[i].score);
  });
});

describe('top/realtime_traffic', () => {
  it('a replay that ended before the sampler started has no recent points', async () => {
    const r = ok(await s.call(PRO('realtime_traffic'), { query: { ifid: 0 } }));
    expect(r.metadata).toMatchObject({ epoch_step: 1, num_point: 0, schema: 'iface:traffic_rxtx', query: 'ifid:0' });
    expect(r.series.map((x: any) => x.id)).toEqual(['bytes_sent', 'bytes_rcvd']);
  });

  it('the sampler keeps the last minute, bytes per second each way over engine time', () => {
    // an interface whose counters are set by hand: 1 s of engine time per sample,
    // upload growing 1000 × k bytes and download 10 bytes in sample k
    let t = 1_700_000_000n * 1_000_000_000n, up = 0, down = 0;
    const engine = {
      stats: () => ({ now_ns: Number(t), bytes_upload: up, packets_upload: 0, bytes_download: down, packets_download: 0 }),
      state: () => ({ state: 'running' }),
    };
    const rates = new Rates({ list: [{ ifid: 3, engine }] } as unknown as Interfaces);
    rates.sample();
    for (let k = 1; k <= 70; k++) {
      t += 1_000_000_000n, up += 1000 * k, down += 10;
      rates.sample();
    }
    const pts = rates.recent(3);
    expect(pts.length).toBe(RECENT_POINTS);
    expect(pts[0]).toEqual({ t: 1_700_000_000 + 11, sent: 11_000, rcvd: 10 });
    expect(pts[59]).toEqual({ t: 1_700_000_000 + 70, sent: 70_000, rcvd: 10 });
    expect(rates.get(3).upload.bps).toBe(70_000); // bytes per second, as ntopng's EthStats throughput
  });

  it("interface data's download_upload_chart: a point per 5 s of engine time each way, KB/s truncated, 30 kept; zeros once the interface stops", () => {
    // download 12,345 bytes in each second k (a steady 12.345 KB/s), upload k × 1000 bytes
    let t = 1_700_000_000n * 1_000_000_000n, up = 0, down = 0, state = 'running';
    const engine = {
      stats: () => ({ now_ns: Number(t), bytes_upload: up, packets_upload: 0, bytes_download: down, packets_download: 0 }),
      state: () => ({ state }),
    };
    const rates = new Rates({ list: [{ ifid: 4, engine }] } as unknown as Interfaces);
    expect(rates.chart(4)).toEqual({ download: Array(CHART_POINTS).fill(0), upload: Array(CHART_POINTS).fill(0) });
    rates.sample();
    for (let k = 1; k <= 200; k++) {
      t += 1_000_000_000n, up += 1000 * k, down += 12_345;
      rates.sample();
    }
    // 40 points were made (seconds 5, 10 … 200): the last 30 are seconds 55 … 200
    const c = rates.chart(4);
    expect(c.download).toEqual(Array(CHART_POINTS).fill(12));
    // the upload point ending at second 5j: (sum of 1000 k for k in (5j − 5, 5j]) / 5 s / 1000, truncated
    const upPoint = (j: number) => Math.trunc(Array.from({ length: 5 }, (_, i) => 1000 * (5 * j - i)).reduce((a, b) => a + b, 0) / 5 / 1000);
    expect(c.upload).toEqual(Array.from({ length: CHART_POINTS }, (_, i) => upPoint(11 + i)));
    expect(CHART_STEP_SECS).toBe(5);
    // stopped: a zero point per 5 samples (wall seconds)
    state = 'done';
    for (let k = 0; k < 10; k++) rates.sample();
    const z = rates.chart(4);
    expect(z.download.slice(-2)).toEqual([0, 0]);
    expect(z.download.slice(0, -2)).toEqual(c.download.slice(2));
  });
});
