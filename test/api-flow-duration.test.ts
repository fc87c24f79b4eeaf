// Flow records' duration as ntopng gives it (GenericHashEntry::get_duration:
// 1 + last_seen − first_seen, both whole seconds), on flows whose packet
// times are chosen here: a flow of 0.2 s across a second boundary lasts 2,
// one of 0.8 s inside a second lasts 1, a single packet 1; sorting by
// duration follows the same figure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
const T = 1_700_000_000;
// [client port, packet times in ms after T] → ntopng's duration by hand
const FLOWS: [number, number[], number][] = [
  [1001, [10_900, 11_100], 2],
  [1002, [20_100, 20_900], 1],
  [1003, [30_500], 1],
  [1004, [40_000, 42_999], 3],
];

beforeAll(async () => {
  const p: Packet[] = [];
  for (const [port, times] of FLOWS)
    for (const ms of times)
      p.push({ tsNs: BigInt(T) * 1_000_000_000n + BigInt(ms) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.1.0.1', dst: '10.1.0.2', proto: IPPROTO.UDP }, udp({ sport: port, dport: 9 }, Buffer.from('x')))) });
  p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : 1));
  s = await startApi({ files: [tmp.file('durations.pcap', pcap(p))] });
});
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

describe('flow duration', () => {
  it('1 + last_seen − first_seen in whole seconds, and the sort by it', async () => {
    const r = await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 100, sortColumn: 'duration', sortOrder: 'asc' } });
    expect(r.body.rc).toBe(0);
    const got = r.body.rsp.data.map((f: any) => [f.client.port, f.duration, f.first_seen, f.last_seen]);
    for (const [port, d, first, last] of got) {
      const [, times, want] = FLOWS.find(([p]) => p === port)!;
      expect([port, d], String(port)).toEqual([port, want]);
      expect([first, last]).toEqual([T + Math.floor(times[0] / 1000), T + Math.floor(times[times.length - 1] / 1000)]);
    }
    const ds = got.map((g: number[]) => g[1]);
    expect(ds).toEqual([...ds].sort((a, b) => a - b));
    expect(got).toHaveLength(FLOWS.length);
  });
});
