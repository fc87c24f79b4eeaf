// The behaviour maps (ntopng's Service Map and Periodicity Map) on a capture
// built here with known timing: DNS clients that ask at a fixed pace with a
// jitter of up to ±1 s, one that asks in pairs (A then AAAA 0.2 s later), one
// at irregular times, a remote resolver every 120 s, and one local HTTP
// exchange. The periods, observations and uses expected are computed here
// from the start times written into the capture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, type ApiService } from './fixtures/api.js';
import { dns } from './fixtures/apps.js';
import { dnsName } from './fixtures/apps.js';
import { tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const RESOLVER = '192.168.5.53', WEB = '192.168.5.80', REMOTE_RESOLVER = '198.51.100.53';
const STEADY = '192.168.5.10', PAIRS = '192.168.5.12', IRREGULAR = '192.168.5.11';
// seconds from the capture's start
const JITTER = [0, 1, -1, 0.5, -0.5, 1, 0, -1, 0.25, -0.75, 0.5, 0];
const STEADY_STARTS = JITTER.map((j, i) => 10 + 60 * i + j);
const PAIR_STARTS = [0, 1, 2, 3, 4, 5].flatMap((i) => [30 + 30 * i, 30 + 30 * i + 0.2]);
const IRREGULAR_STARTS = [5, 12, 55, 56.5, 135, 405];
const REMOTE_STARTS = [20, 140, 260, 380, 500];
const HTTP_AT = 300;

beforeAll(async () => {
  const p: Packet[] = [];
  const at = (s: number) => BigInt(T0) * 1_000_000_000n + BigInt(Math.round(s * 1000)) * 1_000_000n;
  let port = 40000;
  const query = (t: number, cli: string, srv: string, name: string, type = 1) => {
    const sport = port++;
    const q = dns({ flags: 0x0100, questions: [{ name: dnsName(name), type }] });
    const r = dns({ flags: 0x8180, questions: [{ name: dnsName(name), type }] });
    p.push({ tsNs: at(t), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: srv, proto: IPPROTO.UDP }, udp({ sport, dport: 53 }, q))) });
    p.push({ tsNs: at(t + 0.01), data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: srv, dst: cli, proto: IPPROTO.UDP }, udp({ sport: 53, dport: sport }, r))) });
  };
  for (const t of STEADY_STARTS) query(t, STEADY, RESOLVER, 'updates.example.org');
  PAIR_STARTS.forEach((t, i) => query(t, PAIRS, RESOLVER, 'time.example.org', i % 2 ? 28 : 1));
  for (const t of IRREGULAR_STARTS) query(t, IRREGULAR, RESOLVER, 'www.example.net');
  for (const t of REMOTE_STARTS) query(t, STEADY, REMOTE_RESOLVER, 'cdn.example.com');
  tcpSession(IRREGULAR, WEB, 51000, 80, [
    [true, Buffer.from('GET /index.html HTTP/1.1\r\nHost: intranet.example.lan\r\nUser-Agent: t\r\n\r\n')],
    [false, Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')],
  ]).forEach((data, i) => p.push({ tsNs: at(HTTP_AT + i * 0.001), data }));
  p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
  s = await startApi({ files: [tmp.file('maps.pcap', pcap(p))] });
});

const ok = (r: { body: any }) => {
  expect(r.body?.rc, JSON.stringify(r.body)).toBe(0);
  return r.body;
};
const PERIODICITY = '/lua/pro/rest/v2/get/maps/periodicity_map.lua';
const SERVICE = '/lua/pro/rest/v2/get/maps/service_map.lua';
const mean = (starts: number[]) => (starts[starts.length - 1]! - starts[0]!) / (starts.length - 1);

describe('periodicity map', () => {
  it('lists the keys whose flows start at a regular pace, with the mean interval and the starts counted', async () => {
    const b = ok(await s.call(PERIODICITY, { query: { ifid: 0, sort: 'client', order: 'asc', length: 50 } }));
    const rows = b.rsp as any[];
    const byKey = new Map(rows.map((r) => [`${r.client}>${r.server}`, r]));
    // the irregular client is not periodic; nor is the local web server (one flow)
    expect([...byKey.keys()].sort()).toEqual([`${PAIRS}>${RESOLVER}`, `${STEADY}>${REMOTE_RESOLVER}`, `${STEADY}>${RESOLVER}`].sort());
    expect(b.recordsTotal).toBe(3);

    const steady = byKey.get(`${STEADY}>${RESOLVER}`);
    expect(steady).toMatchObject({ port: 53, l4_proto: 'UDP', protocol: 'DNS', vlan: 0, observations: STEADY_STARTS.length, num_uses: STEADY_STARTS.length });
    expect(steady.frequency).toBe(Math.round(mean(STEADY_STARTS)));
    expect(steady.first_seen).toBe(T0 + Math.floor(STEADY_STARTS[0]!));
    expect(steady.last_seen).toBe(T0 + Math.floor(STEADY_STARTS[STEADY_STARTS.length - 1]!));
    expect(steady.duration).toBe(steady.last_seen - steady.first_seen);
    expect(steady.info).toBe('updates.example.org');

    // pairs: one observation per pair (the second query 0.2 s later is the same burst), both counted as uses
    const pairs = byKey.get(`${PAIRS}>${RESOLVER}`);
    expect(pairs).toMatchObject({ observations: PAIR_STARTS.length / 2, num_uses: PAIR_STARTS.length, frequency: 30 });

    const remote = byKey.get(`${STEADY}>${REMOTE_RESOLVER}`);
    expect(remote).toMatchObject({ observations: REMOTE_STARTS.length, frequency: mean(REMOTE_STARTS) });
  });

  it('filters by host, application and VLAN, sorts and pages', async () => {
    const one = ok(await s.call(PERIODICITY, { query: { ifid: 0, host: REMOTE_RESOLVER } }));
    expect(one.rsp.map((r: any) => r.server)).toEqual([REMOTE_RESOLVER]);
    expect(ok(await s.call(PERIODICITY, { query: { ifid: 0, l7proto: 'HTTP' } })).rsp).toEqual([]);
    expect(ok(await s.call(PERIODICITY, { query: { ifid: 0, l7proto: 'DNS' } })).recordsTotal).toBe(3);
    expect(ok(await s.call(PERIODICITY, { query: { ifid: 0, vlan_id: 7 } })).rsp).toEqual([]);
    const byFreq = ok(await s.call(PERIODICITY, { query: { ifid: 0, sort: 'frequency', order: 'desc' } })).rsp.map((r: any) => r.frequency);
    expect(byFreq).toEqual([...byFreq].sort((a: number, b: number) => b - a));
    expect(byFreq[0]).toBe(120);
    const page2 = ok(await s.call(PERIODICITY, { query: { ifid: 0, sort: 'frequency', order: 'desc', start: 1, length: 1 } }));
    expect(page2.rsp.map((r: any) => r.frequency)).toEqual([byFreq[1]]);
    expect(page2.recordsTotal).toBe(3);
  });

  it('bad input: -2 without an interface, -5 for a bad host, application, sort or order', async () => {
    expect((await s.call(PERIODICITY)).body.rc).toBe(-2);
    for (const query of [{ host: 'not-an-ip' }, { l7proto: 'NoSuchApp' }, { sort: 'constructor' }, { order: 'up' }, { length: 0 }]) {
      const r = await s.call(PERIODICITY, { query: { ifid: 0, ...query } });
      expect(r.status, JSON.stringify(query)).toBeLessThan(500);
      expect(r.body.rc, JSON.stringify(query)).toBe(-5);
    }
  });
});

describe('service map', () => {
  it('lists the services used between local hosts, with their flows counted', async () => {
    const rows = ok(await s.call(SERVICE, { query: { ifid: 0, sort: 'num_uses', order: 'desc', length: 50 } })).rsp as any[];
    const byKey = new Map(rows.map((r) => [`${r.client}>${r.server}:${r.port}`, r]));
    // the remote resolver is not a local service
    expect([...byKey.keys()].sort()).toEqual([`${IRREGULAR}>${RESOLVER}:53`, `${IRREGULAR}>${WEB}:80`, `${PAIRS}>${RESOLVER}:53`, `${STEADY}>${RESOLVER}:53`].sort());
    expect(byKey.get(`${STEADY}>${RESOLVER}:53`)).toMatchObject({ num_uses: STEADY_STARTS.length, protocol: 'DNS', first_seen: T0 + 10, last_seen: T0 + Math.floor(STEADY_STARTS.at(-1)!) });
    expect(byKey.get(`${PAIRS}>${RESOLVER}:53`).num_uses).toBe(PAIR_STARTS.length);
    expect(byKey.get(`${IRREGULAR}>${RESOLVER}:53`).num_uses).toBe(IRREGULAR_STARTS.length);
    const web = byKey.get(`${IRREGULAR}>${WEB}:80`);
    expect(web).toMatchObject({ num_uses: 1, l4_proto: 'TCP', protocol: 'HTTP', first_seen: T0 + HTTP_AT });
    expect(web.info).toContain('intranet.example.lan');
    expect(rows.map((r) => r.num_uses)).toEqual([...rows.map((r) => r.num_uses)].sort((a, b) => b - a));
  });

  it("host data names the services a host was seen serving (Host::lua_get_services), none for a client", async () => {
    const data = async (ip: string) => ok(await s.call('/lua/rest/v2/get/host/data.lua', { query: { ifid: 0, host: ip } })).rsp;
    expect((await data(RESOLVER)).services).toEqual({ dns: true });
    expect(await data(STEADY)).not.toHaveProperty('services');
  });

  it('host data counts the distinct servers a local host used, by service (LocalHost::lua_contacts_stats)', async () => {
    const data = async (ip: string) => ok(await s.call('/lua/rest/v2/get/host/data.lua', { query: { ifid: 0, host: ip } })).rsp;
    // STEADY asked the local and the remote resolver; PAIRS and IRREGULAR one each; the resolver asked nobody
    expect((await data(STEADY)).server_contacts).toMatchObject({ dns: 2, smtp: 0, imap: 0, pop: 0, ntp: 0 });
    expect((await data(PAIRS)).server_contacts).toMatchObject({ dns: 1, ntp: 0 });
    expect((await data(IRREGULAR)).server_contacts).toMatchObject({ dns: 1 });
    expect((await data(RESOLVER)).server_contacts).toMatchObject({ dns: 0 });
    // remote hosts have none (ntopng's LocalHost only)
    expect(await data(REMOTE_RESOLVER)).not.toHaveProperty('server_contacts');
  });

  it('host data: distinct peers as client and as server, distinct service names (LocalHostStats cardinality)', async () => {
    const card = async (ip: string) => ok(await s.call('/lua/rest/v2/get/host/data.lua', { query: { ifid: 0, host: ip } })).rsp.cardinality;
    // STEADY: two resolvers, two names; IRREGULAR: the resolver and the web server, a DNS name and the HTTP Host
    expect(await card(STEADY)).toEqual({ num_contacted_hosts_as_client: 2, num_host_contacts_as_server: 0, num_contacted_services_as_client: 2 });
    expect(await card(IRREGULAR)).toEqual({ num_contacted_hosts_as_client: 2, num_host_contacts_as_server: 0, num_contacted_services_as_client: 2 });
    // the resolver was asked by three clients; the web server by one
    expect(await card(RESOLVER)).toEqual({ num_contacted_hosts_as_client: 0, num_host_contacts_as_server: 3, num_contacted_services_as_client: 0 });
    expect((await card(WEB)).num_host_contacts_as_server).toBe(1);
  });
});

describe('periodic flow risk', () => {
  it("a flow whose key the periodicity map holds as periodic carries nDPI's PERIODIC_FLOW risk (48) and its alert score: from the 4th steady start on", async () => {
    const flows = ok(await s.call('/lua/rest/v2/get/flow/active.lua', { query: { ifid: 0, perPage: 1000, verbose: true } })).rsp.data as any[];
    const of = (cli: string, srv: string) => flows.filter((f) => f.client.ip === cli && f.server.ip === srv).sort((a, b) => a.first_seen - b.first_seen || a.client.port - b.client.port);
    const periodic = (f: any) => (f.risks as string[]).includes('Periodic Flow');
    const steady = of(STEADY, RESOLVER);
    expect(steady.length).toBe(STEADY_STARTS.length);
    expect(steady.map(periodic)).toEqual(STEADY_STARTS.map((_, i) => i >= 3));
    for (const f of steady.slice(3)) expect(Number(f.score)).toBeGreaterThanOrEqual(10);
    // the remote resolver every 120 s: periodic from its 4th start too
    expect(of(STEADY, REMOTE_RESOLVER).map(periodic)).toEqual(REMOTE_STARTS.map((_, i) => i >= 3));
    expect(of(IRREGULAR, RESOLVER).some(periodic)).toBe(false);
  });
});
