// Host data's `bins` (ntopng 4.0's Host::lua_get_bins, in the spec's host
// data): per role, the share of each range (<= 1, 3, 5, 10, 30, 60, 300 s,
// more) among the gaps between consecutive new flows (whole seconds of
// packet time, as ntopng's epochs) and among the durations of ended flows
// (last seen − first seen, whole seconds). The flows are built here with
// chosen start times and durations, every range and both edges of a second
// included; the expected shares are counted from that schedule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';

const T = 1_700_000_000;
const A = '10.1.1.1', B = '10.1.1.2', C = '10.1.1.3';

interface FlowPlan {
  cli: string;
  srv: string;
  start: number; // seconds from T (fractional)
  dur: number; // seconds from the first to the last packet
}

// A → B: gaps (in whole seconds of the start times) 1, 0, 3, 4, 5, 10, 11, 30, 60, 300, 301
const A_STARTS = [0.9, 1.1, 1.9, 4.0, 8.5, 13.0, 23.0, 34.2, 64.9, 124.0, 424.0, 725.5];
const A_DURS = [0, 0.5, 2, 3, 4.9, 7, 29, 31, 60, 61, 299, 400];
// C → A: gaps 0, 698, 10
const C_STARTS = [2.0, 2.5, 700.0, 710.7];
const C_DURS = [1, 5.5, 0, 302];

const PLAN: FlowPlan[] = [
  ...A_STARTS.map((start, i) => ({ cli: A, srv: B, start, dur: A_DURS[i]! })),
  ...C_STARTS.map((start, i) => ({ cli: C, srv: A, start, dur: C_DURS[i]! })),
];

function capture(): Packet[] {
  const pkts: Packet[] = [];
  PLAN.forEach((f, i) => {
    const frame = (t: number, src: string, dst: string, sport: number, dport: number) => ({
      tsNs: sec(T + t),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(40, 0x61 + (i % 20))))),
    });
    pkts.push(frame(f.start, f.cli, f.srv, 40000 + i, 50000 + i));
    if (f.dur > 0) pkts.push(frame(f.start + f.dur, f.srv, f.cli, 50000 + i, 40000 + i));
  });
  return pkts.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
}

// The ranges written out from ntopng 4.0's Bin::incBin.
const LABELS = ['<= 1', '<= 3', '<= 5', '<= 10', '<= 30', '<= 60', '<= 300', '> 300'];
const range = (s: number) => (s <= 1 ? 0 : s <= 3 ? 1 : s <= 5 ? 2 : s <= 10 ? 3 : s <= 30 ? 4 : s <= 60 ? 5 : s <= 300 ? 6 : 7);

function counts(values: number[]): number[] {
  const c = new Array<number>(8).fill(0);
  for (const v of values) c[range(v)]!++;
  return c;
}

/** What one host's bins hold for a role, from the plan: gaps between its new flows' start seconds, and its flows' whole-second durations. */
function truth(host: string, role: 'cli' | 'srv'): { frequency: number[]; duration: number[] } {
  const flows = PLAN.filter((f) => f[role] === host).sort((a, b) => a.start - b.start);
  const secs = flows.map((f) => Math.floor(T + f.start));
  const gaps = secs.slice(1).map((s, i) => s - secs[i]!);
  const durs = flows.map((f) => Math.floor(T + f.start + f.dur) - Math.floor(T + f.start));
  return { frequency: counts(gaps), duration: counts(durs) };
}

const shares = (c: number[]) => {
  const total = c.reduce((a, x) => a + x, 0) || 1;
  return Object.fromEntries(LABELS.map((l, i) => [l, Math.fround(c[i]! / total)]));
};

const tmp = tempDir();
let s: ApiService;

beforeAll(async () => {
  s = await startApi({ files: [tmp.file('bins.pcap', pcap(capture()))] });
  // every flow ends (as when its idle time passes): its duration is binned
  const e = s.ifaces.get(0)!.engine;
  while (e.expireActive(4096) > 0) e.drainExpired();
});
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

describe('host bins', () => {
  it('the plan covers every range (the test is not vacuous)', () => {
    const a = truth(A, 'cli');
    expect(a.frequency.every((n) => n > 0)).toBe(true);
    expect(a.duration.every((n) => n > 0)).toBe(true);
    expect(truth(A, 'srv').frequency).toEqual([1, 0, 0, 1, 0, 0, 0, 1]);
    // eleven gaps: the shares are not exact in binary, float and double differ
    expect(shares(truth(A, 'cli').frequency)['<= 1']).not.toBe(2 / 11);
  });

  it('the engine counts each role\'s gaps and durations in the eight ranges', () => {
    for (const h of [A, B, C]) {
      const d = s.ifaces.get(0)!.engine.host(h, 0)!;
      expect(d.flow_bins, h).toBeDefined();
      const [cli, srv] = d.flow_bins!;
      const tc = truth(h, 'cli'), ts = truth(h, 'srv');
      expect({ host: h, cli, srv }).toEqual({ host: h, cli: [tc.frequency, tc.duration], srv: [ts.frequency, ts.duration] });
    }
  });

  it('a table resize keeps them (slots move in the rebuild)', () => {
    const e = s.ifaces.get(0)!.engine;
    const before = [A, B, C].map((h) => e.host(h, 0)!.flow_bins);
    e.setLimits({ maxHosts: e.stats().max_hosts * 2 });
    expect([A, B, C].map((h) => e.host(h, 0)!.flow_bins)).toEqual(before);
    expect(before[0]![0][0].reduce((a, n) => a + n, 0)).toBe(A_STARTS.length - 1);
  });

  it('get/host/data answers them as ntopng 4.0 did: shares of the role\'s total, as 32-bit floats', async () => {
    for (const api of [v1, v2]) {
      for (const h of [A, B, C]) {
        const r = await s.call(api('get/host/data'), { query: { ifid: 0, host: h } });
        expect(r.status).toBe(200);
        const role = (x: 'cli' | 'srv') => {
          const t = truth(h, x);
          return { frequency: shares(t.frequency), duration: shares(t.duration) };
        };
        expect(r.body.rsp.bins, h).toEqual({ client: role('cli'), server: role('srv') });
      }
    }
    // an empty role: every share 0 (ntopng divides by 1)
    const c = await s.call(v2('get/host/data'), { query: { ifid: 0, host: C } });
    expect(Object.values(c.body.rsp.bins.server.frequency)).toEqual(new Array(8).fill(0));
  });
});
