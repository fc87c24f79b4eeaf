// Pro insight views: the top local and remote talkers (ntopng's dashboard
// 'throughput' tables) on a capture built here with known rates: local and
// remote hosts sending steadily to a sink on the other side for the last
// minute (many sweeps of the host table), one local host idle since the start. The order and the ratios of
// the throughputs come from the frames' bytes, not from the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

// sender → its payload bytes per 100 ms
const LOCAL: [string, number][] = [['192.168.9.1', 800], ['192.168.9.2', 400], ['192.168.9.3', 200]];
const REMOTE: [string, number][] = [['198.51.100.1', 600], ['198.51.100.2', 300]];
const IDLE = '192.168.9.9';
const SINK_LOCAL = '192.168.9.100', SINK_REMOTE = '203.0.113.100';

beforeAll(async () => {
  const p: Packet[] = [];
  const at = (ms: number) => BigInt(T0) * 1_000_000_000n + BigInt(ms) * 1_000_000n;
  const send = (ms: number, src: string, dst: string, n: number) =>
    p.push({ tsNs: at(ms), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport: 40000, dport: 40001 }, Buffer.alloc(n, 7)))) });
  send(0, IDLE, SINK_REMOTE, 1000);
  for (let t = 0; t < 600; t++) {
    const ms = 20_000 + t * 100;
    for (const [ip, n] of LOCAL) send(ms, ip, SINK_REMOTE, n);
    for (const [ip, n] of REMOTE) send(ms + 10, ip, SINK_LOCAL, n);
  }
  s = await startApi({ files: [tmp.file('talkers.pcap', pcap(p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0))))] });
});

const ok = (r: { body: any }) => {
  expect(r.body?.rc, JSON.stringify(r.body)).toBe(0);
  return r.body.rsp;
};

// per 100 ms, frame bytes (payload + Ethernet, IPv4, UDP headers) each host sends and receives:
// a host's throughput counts both, as ntopng's
const HDR = 14 + 20 + 8;
const rate = new Map<string, number>();
for (const [ip, n] of [...LOCAL, ...REMOTE]) rate.set(ip, (rate.get(ip) ?? 0) + n + HDR);
for (const [, n] of LOCAL) rate.set(SINK_REMOTE, (rate.get(SINK_REMOTE) ?? 0) + n + HDR);
for (const [, n] of REMOTE) rate.set(SINK_LOCAL, (rate.get(SINK_LOCAL) ?? 0) + n + HDR);
const byRate = (ips: string[]) => [...ips].sort((a, b) => rate.get(b)! - rate.get(a)!);

describe('top talkers', () => {
  it('local: the busiest first, at the rates sent and received, idle hosts left out; every path', async () => {
    const want = byRate([...LOCAL.map(([ip]) => ip), SINK_LOCAL]);
    for (const path of ['/lua/pro/rest/v2/get/interface/top/local/talkers.lua', '/lua/pro/rest/v1/get/interface/top/local/talkers.lua', '/lua/pro/rest/v1/get/host/top/local/talkers.lua']) {
      const rows = ok(await s.call(path, { query: { ifid: 0 } }));
      expect(rows.map((r: any) => r.ip), path).toEqual(want);
      expect(rows[0]).toMatchObject({ name: want[0], vlan: 0, url: `/lua/host_details.lua?host=${want[0]}`, throughput_type: 'bps' });
      // each throughput against the busiest, as the frames' bytes say (within 10 %)
      for (const r of rows) expect(r.throughput / rows[0].throughput / (rate.get(r.ip)! / rate.get(want[0])!), r.ip).toBeCloseTo(1, 1);
    }
  });

  it('remote: the remote hosts only, busiest first', async () => {
    const rows = ok(await s.call('/lua/pro/rest/v2/get/interface/top/remote/talkers.lua', { query: { ifid: 0 } }));
    expect(rows.map((r: any) => r.ip)).toEqual(byRate([...REMOTE.map(([ip]) => ip), SINK_REMOTE]));
  });

  it('the same order as the host list sorted by throughput; -2 without an interface', async () => {
    const list = ok(await s.call(v2('get/host/active'), { query: { ifid: 0, mode: 'local', sortColumn: 'thpt', sortOrder: 'desc', perPage: 10 } }));
    const busy = list.data.filter((h: any) => h.thpt.bps > 0).map((h: any) => h.ip);
    expect(busy).not.toContain(IDLE);
    expect(ok(await s.call('/lua/pro/rest/v2/get/interface/top/local/talkers.lua', { query: { ifid: 0 } })).map((r: any) => r.ip)).toEqual(busy);
    expect((await s.call('/lua/pro/rest/v2/get/interface/top/local/talkers.lua')).body.rc).toBe(-2);
    expect((await s.call(v1('get/host/active'), { query: { ifid: 0 } })).body.rc).toBe(0);
  });
});
