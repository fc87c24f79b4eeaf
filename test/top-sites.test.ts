// ntopng's top visited sites (pro get/interface/top/sites, get/host/top/local/
// sites; LocalHostStats::incrVisitedWebSite) on a capture built here: local
// clients naming sites in DNS, HTTP and TLS flows, names that do not count
// (a reverse lookup, an address literal, a DNS error, a remote client). The
// counts expected are computed here from the flows written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, type ApiService } from './fixtures/api.js';
import { dns, dnsName, tlsClientHello } from './fixtures/apps.js';
import { tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const A = '192.168.7.10', B = '192.168.7.11', REMOTE = '198.51.100.9', RESOLVER = '192.168.7.53';
// [client, kind, name, DNS rcode]
const VISITS: [string, 'dns' | 'http' | 'tls', string, number][] = [
  [A, 'dns', 'www.example.org', 0], [A, 'dns', 'www.example.org', 0], [A, 'dns', 'www.example.org', 0], [A, 'dns', 'mail.example.org', 0],
  [A, 'dns', 'example.net', 0], [A, 'dns', 'example.net', 0], [B, 'dns', 'www.example.net', 0],
  [A, 'http', 'intranet.example.lan:8080', 0], [A, 'tls', 'cdn.example.org', 0],
  // these count for nobody
  [A, 'dns', '4.3.2.1.in-addr.arpa', 0], [A, 'http', '10.0.0.1', 0], [A, 'dns', 'missing.example.com', 3], [REMOTE, 'dns', 'www.example.org', 0],
];

/** the site a name counts for, as ntopng's incrVisitedWebSite: none for reverse lookups and IPv4 literals, the first label dropped with two dots or more */
function site(name: string): string | null {
  const n = name.replace(/:\d+$/, '');
  if (n.includes('in-addr.arpa') || /^\d+\.\d+\.\d+\.\d+/.test(n)) return null;
  return n.split('.').length > 2 ? n.slice(n.indexOf('.') + 1) : n;
}
function expected(client?: string): { site: string; contacts: number }[] {
  const m = new Map<string, number>();
  for (const [c, , name, rcode] of VISITS) {
    const st = site(name);
    if (!st || rcode !== 0 || !c.startsWith('192.168.') || (client && c !== client)) continue;
    m.set(st, (m.get(st) ?? 0) + 1);
  }
  return [...m].map(([site, contacts]) => ({ site, contacts })).sort((a, b) => b.contacts - a.contacts || a.site.localeCompare(b.site));
}

beforeAll(async () => {
  const p: Packet[] = [];
  VISITS.forEach(([cli, kind, name, rcode], i) => {
    const t = sec(1_700_000_000 + i);
    if (kind === 'dns') {
      const q = dns({ id: i, flags: 0x0100, questions: [{ name: dnsName(name), type: name.includes('arpa') ? 12 : 1 }] });
      const r = dns({ id: i, flags: 0x8180 | rcode, questions: [{ name: dnsName(name), type: name.includes('arpa') ? 12 : 1 }] });
      p.push({ tsNs: t, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: RESOLVER, proto: IPPROTO.UDP }, udp({ sport: 30000 + i, dport: 53 }, q))) });
      p.push({ tsNs: t + 5_000_000n, data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: RESOLVER, dst: cli, proto: IPPROTO.UDP }, udp({ sport: 53, dport: 30000 + i }, r))) });
    } else {
      const msgs: [boolean, Uint8Array][] = kind === 'http'
        ? [[true, Buffer.from(`GET / HTTP/1.1\r\nHost: ${name}\r\n\r\n`)], [false, Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')]]
        : [[true, tlsClientHello(name)]];
      tcpSession(cli, '192.168.7.80', 40000 + i, kind === 'http' ? 80 : 443, msgs).forEach((data, k) => p.push({ tsNs: t + BigInt(k) * 1_000_000n, data }));
    }
  });
  s = await startApi({ files: [tmp.file('sites.pcap', pcap(p))] });
});

const ok = (r: { body: any; text: string }) => {
  expect(r.body?.rc, r.text).toBe(0);
  return r.body.rsp as { site: string; contacts: number; percentage: number }[];
};
const IFACE = '/lua/pro/rest/v2/get/interface/top/sites.lua', HOST = '/lua/pro/rest/v2/get/host/top/local/sites.lua';

describe('top visited sites', () => {
  it("the interface's: every local client's sites, most visited first, with each one's share", async () => {
    const rows = ok(await s.call(IFACE, { query: { ifid: 0, hour: 'current' } }));
    const want = expected();
    expect(want.map((x) => x.site)).toEqual(['example.org', 'example.net', 'example.lan']);
    expect(rows.map(({ site, contacts }) => ({ site, contacts }))).toEqual(want);
    const total = want.reduce((n, x) => n + x.contacts, 0);
    for (const r of rows) expect(r.percentage).toBeCloseTo((r.contacts * 100) / total, 9);
  });

  it("a host's: its own sites only; a client that named none has an empty list", async () => {
    for (const ip of [A, B]) expect(ok(await s.call(HOST, { query: { ifid: 0, host: ip } })).map(({ site, contacts }) => ({ site, contacts })), ip).toEqual(expected(ip));
    expect(ok(await s.call(HOST, { query: { ifid: 0, host: RESOLVER } }))).toEqual([]);
    expect(ok(await s.call(HOST, { query: { ifid: 0, host: REMOTE } }))).toEqual([]);
  });

  it('bad input: -2 without an interface, -5 for a missing, malformed or unseen host or an older window', async () => {
    expect((await s.call(IFACE)).body.rc).toBe(-2);
    for (const query of [{}, { host: 'nope' }, { host: '192.168.7.250' }, { host: A, hour: '3' }]) {
      const r = await s.call(HOST, { query: { ifid: 0, ...query } });
      expect(r.status, JSON.stringify(query)).toBeLessThan(500);
      expect(r.body.rc, JSON.stringify(query)).toBe(-5);
    }
    expect((await s.call(IFACE, { query: { ifid: 0, hour: 'day' } })).body.rc).toBe(-5);
  });
});

describe("a host's list as it grows", () => {
  // ntopng's FrequentStringItems as a model: up to 2 × 10 + 1 sites; a new
  // site past that first prunes to the 10 most visited (ties by name here).
  function model(visits: string[]): { site: string; contacts: number }[] {
    let list: { site: string; contacts: number }[] = [];
    const order = (a: { site: string; contacts: number }, b: { site: string; contacts: number }) => b.contacts - a.contacts || (a.site < b.site ? -1 : a.site > b.site ? 1 : 0);
    for (const v of visits) {
      const x = list.find((e) => e.site === v);
      if (x) {
        x.contacts++;
        continue;
      }
      if (list.length > 20) list = list.sort(order).slice(0, 10);
      list.push({ site: v, contacts: 1 });
    }
    return list.sort(order);
  }
  const lists: [string, string[]][] = [
    // a few sites (the short list), exactly four, five (the move), and past the prune
    ['192.168.9.1', ['a.test', 'b.test', 'a.test']],
    ['192.168.9.2', ['a.test', 'b.test', 'c.test', 'd.test', 'd.test', 'a.test']],
    ['192.168.9.3', ['a.test', 'b.test', 'c.test', 'd.test', 'b.test', 'e.test', 'e.test', 'e.test', 'a.test']],
    ['192.168.9.4', Array.from({ length: 60 }, (_, i) => `s${(i * 7) % 26}.test`).concat(['s3.test', 's3.test', 's11.test', 'new.test'])],
  ];

  it('holds what a full list would: counts, the move past four sites, the prune past twenty-one', async () => {
    const { Engine } = await import('../ts/bindings/engine.js');
    const p: Packet[] = [];
    let k = 0;
    for (const [cli, sites] of lists)
      for (const name of sites) {
        const q = dns({ id: k, flags: 0x0100, questions: [{ name: dnsName(`www.${name}`), type: 1 }] });
        const r = dns({ id: k, flags: 0x8180, questions: [{ name: dnsName(`www.${name}`), type: 1 }] });
        const t = sec(1_700_000_000 + k / 100);
        p.push({ tsNs: t, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: RESOLVER, proto: IPPROTO.UDP }, udp({ sport: 20000 + k, dport: 53 }, q))) });
        p.push({ tsNs: t + 1_000_000n, data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: RESOLVER, dst: cli, proto: IPPROTO.UDP }, udp({ sport: 53, dport: 20000 + k }, r))) });
        k++;
      }
    const e = new Engine({ files: [tmp.file('grow.pcap', pcap(p))], flowIdleSec: 1e9 });
    e.start();
    expect((await e.waitDone()).state).toBe('done');
    for (const [cli, sites] of lists) expect(e.topSites(cli, 0), cli).toEqual(model(sites));
    expect(e.stats().host_side_full).toBe(0);
    e.close();
  });

  // A worker keeps each site name once for all its hosts' lists, a reference
  // per list (flow/site_names.h), sized for what the lists can hold at once:
  // 64 side-pool entries here (the minimum) hold at most 64 × 21 + 64 × 4
  // names. Rounds of 40 hosts each name 14 sites of their own, 8 everyone
  // names and 4 the previous round's hosts named (past 21: a prune), then
  // expire; a host living through every round names shared sites and its
  // own. More distinct names pass than the table holds: only names freed
  // when no list holds them any more (dropped by a prune or an expired host)
  // leave it room.
  it('names shared by many hosts outlive the hosts that go, and go with the last of them', async () => {
    const { Engine } = await import('../ts/bindings/engine.js');
    const ROUNDS = 6, HOSTS = 40, GAP = 20, LONG = '192.168.21.1';
    const p: Packet[] = [];
    const visits = new Map<string, string[]>();
    let k = 0;
    // A visit is a flow, counted when the flow is accounted: a client's
    // visits reuse its ports, a second apart (idle flows end at 0.5 s), so
    // the next one's query ends the last one's flow if the sweep has not:
    // they count in the order sent.
    const visit = (cli: string, port: number, name: string, at: number) => {
      const q = dns({ id: k & 0xffff, flags: 0x0100, questions: [{ name: dnsName(`www.${name}`), type: 1 }] });
      const r = dns({ id: k++ & 0xffff, flags: 0x8180, questions: [{ name: dnsName(`www.${name}`), type: 1 }] });
      const t = sec(1_700_000_000 + at);
      p.push({ tsNs: t, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: RESOLVER, proto: IPPROTO.UDP }, udp({ sport: port, dport: 53 }, q))) });
      p.push({ tsNs: t + 1_000_000n, data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: RESOLVER, dst: cli, proto: IPPROTO.UDP }, udp({ sport: 53, dport: port }, r))) });
      visits.set(cli, [...(visits.get(cli) ?? []), name]);
    };
    let seed = 7;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0), (seed >>> 8) % n);
    let base = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const seqs = Array.from({ length: HOSTS }, (_, i) => {
        const names = [
          ...Array.from({ length: 14 }, (_, j) => `r${r}-h${i}-${j}.test`),
          ...Array.from({ length: 8 }, (_, x) => `shared${x}.test`),
          ...(r ? Array.from({ length: 4 }, (_, j) => `r${r - 1}-h${(i + 1) % HOSTS}-${j}.test`) : []),
        ];
        const seq = names.concat(Array.from({ length: 6 }, () => names[rand(names.length)]!));
        for (let a = seq.length - 1; a > 0; a--) {
          const b = rand(a + 1);
          [seq[a], seq[b]] = [seq[b]!, seq[a]!];
        }
        return seq;
      });
      // the same addresses each round: new hosts where the last round's were
      for (let i = 0; i < HOSTS; i++) visits.delete(`192.168.20.${i + 1}`);
      seqs.forEach((seq, i) => seq.forEach((name, j) => visit(`192.168.20.${i + 1}`, 40000 + i, name, base + j + i * 0.01)));
      const span = seqs[0]!.length + (r + 1 < ROUNDS ? GAP : 0);
      // the long-lived host: a visit a second
      for (let j = 0; j < span; j++) visit(LONG, 39999, j % 3 ? `shared${(r + j) % 8}.test` : `p${r}-${j}.test`, base + j + 0.5);
      // the gap's packets: the sweep runs after each batch of 256 packets,
      // and this round's hosts are to expire in the gap
      if (r + 1 < ROUNDS)
        for (let t = span - GAP; t < span; t += 0.01)
          p.push({ tsNs: sec(1_700_000_000 + base + t), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: LONG, dst: RESOLVER, proto: IPPROTO.UDP }, udp({ sport: 9999, dport: 9999 }, Buffer.alloc(8)))) });
      base += span;
    }
    p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
    const distinct = new Set([...visits.values()].flat());
    for (let r = 0; r < ROUNDS; r++) for (let i = 0; i < HOSTS; i++) for (let j = 0; j < 14; j++) distinct.add(`r${r}-h${i}-${j}.test`);
    expect(distinct.size).toBeGreaterThan(64 * 25);

    const e = new Engine({ files: [tmp.file('churn.pcap', pcap(p))], maxHosts: 256, hostSideShare: 0.25, flowIdleSec: 0.5, localHostIdleSec: 5, remoteHostIdleSec: 5 });
    try {
      e.start();
      expect((await e.waitDone()).state).toBe('done');
      const check = () => {
        for (const [cli, seq] of visits) expect(e.topSites(cli, 0), cli).toEqual(model(seq));
        const s = e.stats();
        expect(s.host_side_full).toBe(0);
        // every round's hosts but the last expired, the long-lived one and the resolver never
        expect(s.hosts_expired).toBe(HOSTS * (ROUNDS - 1));
      };
      check();
      expect(visits.size).toBe(HOSTS + 1);
      // a rebuild with room for more lists: the names stay where the lists point
      e.setLimits({ maxHosts: 4096 });
      check();
    } finally {
      e.close();
    }
  });
});
