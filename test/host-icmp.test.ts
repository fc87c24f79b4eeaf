// Per-host ICMP statistics (ntopng's LocalHostStats ICMPstats: host data
// ICMPv4 / ICMPv6, "type,code" → sent, rcvd and the last peer each way) on a
// capture built here — echoes to a remote host, a port unreachable between
// two local hosts, an ICMPv6 echo — checked against tshark's reading of it.
import { execFileSync } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, icmp, icmpv6, ipv4, ipv6, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
let file = '';
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const A = '192.168.8.1', B = '192.168.8.2', REMOTE = '8.8.8.8', A6 = 'fd00::1', B6 = 'fd00::2';

beforeAll(async () => {
  const p: Packet[] = [];
  let t = 0;
  const v4 = (src: string, dst: string, type: number, code: number) =>
    p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.ICMP }, icmp(type, code))) });
  for (let i = 0; i < 3; i++) v4(A, REMOTE, 8, 0), v4(REMOTE, A, 0, 0);
  // A sends a UDP datagram B does not take: B answers port unreachable (quoting the datagram)
  const quoted = ipv4({ src: A, dst: B, proto: IPPROTO.UDP }, udp({ sport: 40000, dport: 9 }, Buffer.from('x')));
  p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, quoted) });
  p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: B, dst: A, proto: IPPROTO.ICMP }, icmp(3, 3, Buffer.concat([Buffer.alloc(4), quoted])))) });
  p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: A6, dst: B6, next: IPPROTO.ICMPV6 }, icmpv6(128, 0))) });
  p.push({ tsNs: sec(1_700_000_000) + BigInt(t++) * 1_000_000n, data: eth(MAC_A, MAC_B, ETH.IPV6, ipv6({ src: B6, dst: A6, next: IPPROTO.ICMPV6 }, icmpv6(129, 0))) });
  file = tmp.file('icmp.pcap', pcap(p));
  s = await startApi({ files: [file] });
});

type Pair = { sent: number; rcvd: number; last_host_sent_peer?: string; last_host_rcvd_peer?: string };
/** per host, "type,code" → counts and last peers, from tshark's fields (the outer header and ICMP type/code only) */
function truth(): Map<string, Record<string, Pair>> {
  const out = execFileSync('tshark', ['-n', '-r', file, '-T', 'fields', '-E', 'separator=|', '-E', 'occurrence=f',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst', '-e', 'icmp.type', '-e', 'icmp.code', '-e', 'icmpv6.type', '-e', 'icmpv6.code'], { encoding: 'utf8' });
  const m = new Map<string, Record<string, Pair>>();
  const at = (h: string, k: string) => ((m.get(h) ?? m.set(h, {}).get(h)!)[k] ??= { sent: 0, rcvd: 0 });
  for (const line of out.trim().split('\n')) {
    const [s4, d4, s6, d6, t4, c4, t6, c6] = line.split('|');
    const type = t4 || t6;
    if (!type) continue;
    // tshark writes IPv6 addresses compressed, as the service does
    const src = s4 || s6, dst = d4 || d6, k = `${type},${c4 || c6}`;
    const a = at(src, k);
    a.sent++, (a.last_host_sent_peer = dst);
    const b = at(dst, k);
    b.rcvd++, (b.last_host_rcvd_peer = src);
  }
  return m;
}
/** the order ntopng's addToTable writes the fields in, the peers only once set */
const shaped = (x: Pair) => ({ sent: x.sent, ...(x.last_host_sent_peer ? { last_host_sent_peer: x.last_host_sent_peer } : {}), rcvd: x.rcvd, ...(x.last_host_rcvd_peer ? { last_host_rcvd_peer: x.last_host_rcvd_peer } : {}) });

describe('host ICMP statistics', () => {
  it('local hosts: each type and code sent and received with the last peer each way, as tshark reads the packets', async () => {
    const t = truth();
    for (const [ip, key] of [[A, 'ICMPv4'], [B, 'ICMPv4'], [A6, 'ICMPv6'], [B6, 'ICMPv6']] as const) {
      const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host: ip } });
      expect(r.body.rc, r.text).toBe(0);
      const want = Object.fromEntries(Object.entries(t.get(ip)!).map(([k, x]) => [k, shaped(x)]));
      expect(r.body.rsp[key], ip).toEqual(want);
    }
    expect(Object.keys(t.get(A)!).sort()).toEqual(['0,0', '3,3', '8,0']);
  });

  it('a remote host and a local host without ICMP have none', async () => {
    expect((await s.call(v2('get/host/data'), { query: { ifid: 0, host: REMOTE } })).body.rsp).not.toHaveProperty('ICMPv4');
    expect((await s.call(v2('get/host/data'), { query: { ifid: 0, host: A } })).body.rsp).not.toHaveProperty('ICMPv6');
  });
});
