// Broadcast domains learned from ARP (ntopng's rule), checked against the ARP
// packets tshark reads from the same captures, and the hosts they flag.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
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

/** The domains the ARP packets imply: the longest prefix (≤ /28, ≥ /16) holding sender and target. */
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
    if (cidr < 16) continue;
    const net = `${n2ip(((sa >>> (32 - cidr)) << (32 - cidr)) >>> 0)}/${cidr}`;
    m.set(net, (m.get(net) ?? 0) + 1);
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
