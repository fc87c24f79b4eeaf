// Broadcast domains learned from ARP (ntopng's rule), checked against the ARP
// packets tshark reads from the same captures, and the hosts they flag.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, MAC_A, arp, eth, mac } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const CAPTURES = ['alexa-app.pcapng', 'android.pcap', 'nest_log_sink.pcap'];
let s: ApiService;

beforeAll(async () => {
  s = await startApi({ files: CAPTURES.map((c) => join(NDPI_PCAPS, c)) });
});
afterAll(async () => {
  await s?.close();
});

const ip2n = (a: string) => a.split('.').reduce((x, o) => x * 256 + Number(o), 0) >>> 0;
const n2ip = (n: number) => [24, 16, 8, 0].map((b) => (n >>> b) & 255).join('.');

/**
 * The domains the ARP packets imply: the longest prefix (≤ /28, ≥ /17) holding sender and
 * target, aggregated in packet order as ntopng's BroadcastDomains::addAddress: one inside a
 * known domain is a hit on it, a wider one replaces the narrower ones it holds (and their hits).
 */
function expectedDomains(file: string): Map<string, number> {
  const out = execFileSync('tshark', ['-r', file, '-Y', 'arp.opcode == 1 || arp.opcode == 2', '-T', 'fields', '-e', 'arp.src.proto_ipv4', '-e', 'arp.dst.proto_ipv4'], { encoding: 'utf8' });
  const m = new Map<string, number>();
  for (const line of out.trim().split('\n')) {
    const [a, b] = line.split('\t');
    if (!a || !b) continue;
    const sa = ip2n(a), ta = ip2n(b);
    if (!sa || sa === ta || a.startsWith('169.254.') || b.startsWith('169.254.')) continue;
    let cidr = 28;
    while (cidr > 0 && sa >>> (32 - cidr) !== ta >>> (32 - cidr)) cidr--;
    if (cidr < 17) continue;
    const net = ((sa >>> (32 - cidr)) << (32 - cidr)) >>> 0;
    const within = (n: number, c: number, wn: number, wc: number) => wc <= c && n >>> (32 - wc) === wn >>> (32 - wc);
    const known = [...m.keys()].find((k) => within(net, cidr, ip2n(k.split('/')[0]!), Number(k.split('/')[1])));
    if (known) {
      m.set(known, m.get(known)! + 1);
      continue;
    }
    for (const k of [...m.keys()]) if (within(ip2n(k.split('/')[0]!), Number(k.split('/')[1]), net, cidr)) m.delete(k);
    m.set(`${n2ip(net)}/${cidr}`, 1);
  }
  return m;
}

describe('get/interface/bcast_domains', () => {
  CAPTURES.forEach((cap, ifid) => {
    it(`${cap}: the domains and their hits as the ARP packets imply`, async () => {
      const want = expectedDomains(join(NDPI_PCAPS, cap));
      expect(want.size).toBeGreaterThan(0);
      for (const v of [v1, v2]) {
        const r = await s.call(v('get/interface/bcast_domains'), { query: { ifid } });
        expect(r.body.rc).toBe(0);
        const got = r.body.rsp.bcast_domains as Record<string, { hits: number; ghost_network: boolean }>;
        expect(Object.fromEntries(Object.entries(got).map(([k, x]) => [k, x.hits]))).toEqual(Object.fromEntries(want));
        // a replayed capture has no ghost networks (ntopng)
        for (const x of Object.values(got)) expect(x.ghost_network).toBe(false);
      }
    });

    it(`${cap}: mode=broadcast_domain lists exactly the IPv4 hosts inside a domain`, async () => {
      const nets = [...expectedDomains(join(NDPI_PCAPS, cap)).keys()].map((n) => {
        const [a, c] = n.split('/');
        return { net: ip2n(a), cidr: Number(c) };
      });
      const inside = (ip: string) => ip.includes('.') && nets.some((d) => ip2n(ip) >>> (32 - d.cidr) === d.net >>> (32 - d.cidr));
      const all = (await s.call(v2('get/host/active'), { query: { ifid, all: true } })).body.rsp.data as { ip: string; is_broadcast_domain: boolean }[];
      const bd = (await s.call(v2('get/host/active'), { query: { ifid, all: true, mode: 'broadcast_domain' } })).body.rsp.data as { ip: string }[];
      expect(bd.map((h) => h.ip).sort()).toEqual(all.filter((h) => inside(h.ip)).map((h) => h.ip).sort());
      for (const h of all) expect(h.is_broadcast_domain, h.ip).toBe(inside(h.ip));
      expect(bd.length).toBeGreaterThan(0);
    });
  });
});

describe('broadcast domains aggregated as ntopng aggregates them', () => {
  // ARP requests in this order: [sender, target]
  const PAIRS: [string, string][] = [
    ['10.0.0.1', '10.0.0.2'], // 10.0.0.0/28
    ['10.0.0.1', '10.0.0.100'], // 10.0.0.0/25: takes the /28's place (and its hit)
    ['10.0.0.3', '10.0.0.4'], // a /28 inside the /25: a hit on the /25
    ['10.1.0.1', '10.1.127.1'], // 10.1.0.0/17: the widest taken
    ['10.2.0.1', '10.2.128.1'], // only a /16 in common: too large, not a domain
  ];
  const tmp = tempDir();
  let a: ApiService;
  beforeAll(async () => {
    const frames = PAIRS.map(([spa, tpa], i) => ({
      tsNs: sec(1_700_000_000 + i),
      data: eth(mac('ff:ff:ff:ff:ff:ff'), MAC_A, ETH.ARP, arp(1, MAC_A, spa, mac('00:00:00:00:00:00'), tpa)),
    }));
    a = await startApi({ files: [tmp.file('arp.pcap', pcap(frames))] });
  });
  afterAll(async () => {
    await a?.close();
    tmp.cleanup();
  });

  it('a domain inside a known one is a hit on it; a wider one replaces those it holds; /16 is too large', async () => {
    const r = await a.call(v1('get/interface/bcast_domains'), { query: { ifid: 0 } });
    expect(r.body.rc).toBe(0);
    const got = Object.fromEntries(Object.entries(r.body.rsp.bcast_domains as Record<string, { hits: number }>).map(([k, x]) => [k, x.hits]));
    expect(got).toEqual({ '10.0.0.0/25': 2, '10.1.0.0/17': 1 });
  });
});
