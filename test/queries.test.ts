// hosts()/host()/flows()/flowCounters() on one hand-built capture: 30 hosts in
// two VLANs (local and remote, IPv4 and IPv6, broadcast and multicast, some
// named) with known traffic. Every sort column is checked in both orders
// against the same ordering computed here from the full list, then paging,
// modes, VLAN and allowed-network filters, host lookups and invalid input.
// Rules from native/src/engine/query.cpp.
import { BlockList, isIPv4 } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, type FlowQuery, FlowSort, type HostQuery, HostSort } from '../ts/bindings/engine.js';
import { FlowgateError } from '../ts/bindings/errors.js';
import type { FlowRecord, HostRecord } from '../ts/bindings/native.js';
import { DNS_RESPONSE, DNS_TYPE, dns, dnsName, dnsPtr, httpGet, ipRdata } from './fixtures/apps.js';
import { ETH, MAC_A, MAC_B, TCPF, addr, echo, eth, icmp, icmpv6, ipv4, ipv6, tcp, udp, vlanTag } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';
import { mulberry32 as prng, normIp } from './fixtures/util.js';

const T0 = 1_700_000_000;
const tmp = tempDir();

// ---- the capture ---------------------------------------------------------------------------------

const rnd = prng(20240611);
const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

const LOCAL_NETS = ['192.168.10.0/24', '10.20.0.0/16', 'fd00::/8'];

function frameOf(src: string, dst: string, proto: number, l4: Buffer, vlan: number): Buffer {
  const v6 = !isIPv4(src);
  const ip = v6 ? ipv6({ src, dst, next: proto }, l4) : ipv4({ src, dst, proto }, l4);
  return eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(vlan, v6 ? ETH.IPV6 : ETH.IPV4, ip));
}

interface Conv {
  vlan: number;
  proto: number;
  cli: string;
  cport: number;
  srv: string;
  sport: number;
  /** payloads in order: [fromClient, payload] (TCP handshake added in front) */
  msgs: [boolean, Buffer][];
}

const convs: Conv[] = [];
const filler = (n: number) => Buffer.alloc(n, 0x61);
/** n random-size messages, the first from the client. */
function chatter(n: number, first?: Buffer): [boolean, Buffer][] {
  const out: [boolean, Buffer][] = [];
  for (let i = 0; i < 2 * n; i++) out.push([i === 0 || rnd() < 0.5, i === 0 && first ? first : filler(between(0, 1200))]);
  return out;
}
const conv = (vlan: number, proto: number, cli: string, cport: number, srv: string, sport: number, msgs: [boolean, Buffer][]) =>
  convs.push({ vlan, proto, cli, cport, srv, sport, msgs });

const dnsAnswer = (qname: string, ip: string, id: number) =>
  dns({ id, flags: DNS_RESPONSE, questions: [{ name: dnsName(qname), type: DNS_TYPE.A }], answers: [{ name: dnsPtr(12), type: DNS_TYPE.A, rdata: ipRdata(ip) }] });
const dnsQuery = (qname: string, id: number) => dns({ id, flags: 0x0100, questions: [{ name: dnsName(qname), type: DNS_TYPE.A }] });

const V10 = Array.from({ length: 9 }, (_, i) => `192.168.10.${i + 1}`);
const V20 = Array.from({ length: 7 }, (_, i) => `10.20.0.${i + 1}`);
const WEB = '93.184.216.34';

// VLAN 10
V10.slice(0, 5).forEach((c, i) => conv(10, 6, c, 50000 + i, WEB, 80, chatter(between(3, 20), httpGet('example.com'))));
V10.slice(2).forEach((c, i) => conv(10, 6, c, 51000 + i, '1.1.1.1', 443, chatter(between(3, 25))));
V10.slice(0, 2).forEach((c) => conv(10, 1, c, 0, '1.1.1.1', 0, chatter(between(1, 6))));
[V10[3]!, V10[5]!].forEach((c) => conv(10, 17, c, 9999, '192.168.10.255', 9999, chatter(between(1, 8)).map(([, p]) => [true, p])));
V10.slice(6).forEach((c, i) => conv(10, 17, c, 5004 + i, '239.1.2.3', 5004, chatter(between(2, 15)).map(([, p]) => [true, p])));
conv(10, 17, V10[0]!, 40000, '1.1.1.1', 53, [
  [true, dnsQuery('alice.lan', 1)], [false, dnsAnswer('alice.lan', '192.168.10.3', 1)],
  [true, dnsQuery('one.one.one.one', 2)], [false, dnsAnswer('one.one.one.one', '1.1.1.1', 2)],
  [true, dnsQuery('9lives.lan', 3)], [false, dnsAnswer('9lives.lan', '192.168.10.9', 3)],
]);
conv(10, 6, V10[0]!, 52000, V10[1]!, 445, chatter(between(4, 30)));
conv(10, 58, 'fd00:10::1', 0, 'ff02::1', 0, chatter(between(1, 5)).map(([, p]) => [true, p]));
// VLAN 20
V20.slice(0, 3).forEach((c, i) => conv(20, 6, c, 50100 + i, WEB, 80, chatter(between(3, 20), httpGet('example.com'))));
V20.forEach((c, i) => conv(20, 17, c, 40100 + i, '8.8.8.8', 53, [[true, dnsQuery('dns.google', i)], [false, dnsAnswer('dns.google', '8.8.8.8', i)]]));
V20.slice(3).forEach((c, i) => conv(20, 6, c, 51100 + i, '9.9.9.9', 443, chatter(between(3, 25))));
conv(20, 17, V20[0]!, 40200, '9.9.9.9', 53, [
  [true, dnsQuery('quad9.net', 7)], [false, dnsAnswer('quad9.net', '9.9.9.9', 7)],
  [true, dnsQuery('bob.lan', 8)], [false, dnsAnswer('bob.lan', '10.20.0.5', 8)],
]);
conv(20, 17, V20[0]!, 5000, V20[1]!, 5000, chatter(between(2, 12)));
conv(20, 6, 'fd00:20::1', 50200, '2001:db8::1', 443, chatter(between(3, 20)));
conv(20, 6, 'fd00:20::2', 50201, '2001:db8::1', 443, chatter(between(3, 20)));
conv(20, 58, 'fd00:20::1', 0, 'ff02::1', 0, chatter(between(1, 4)).map(([, p]) => [true, p]));
conv(20, 17, 'fd00:20::2', 6000, 'fd00:20::1', 6000, chatter(between(2, 10)));
conv(20, 17, V20[4]!, 9999, '255.255.255.255', 9999, chatter(between(1, 5)).map(([, p]) => [true, p]));

const EXPECTED_NAMES: Record<string, string> = {
  [`${WEB}@10`]: 'example.com', [`${WEB}@20`]: 'example.com', '1.1.1.1@10': 'one.one.one.one', '192.168.10.3@10': 'alice.lan',
  '192.168.10.9@10': '9lives.lan', '8.8.8.8@20': 'dns.google', '9.9.9.9@20': 'quad9.net', '10.20.0.5@20': 'bob.lan',
};

/** One conversation's frames, each with an ordering key; and the hand counts. */
interface HandHost { sentBytes: number; rcvdBytes: number; sentPkts: number; rcvdPkts: number; flows: number }
const hand = { hosts: new Map<string, HandHost>(), flows: new Map<string, { bytes: number; packets: number; proto: number }>() };
const hk = (ip: string, vlan: number) => `${normIp(ip)}@${vlan}`;
function hostOf(ip: string, vlan: number): HandHost {
  const k = hk(ip, vlan);
  let h = hand.hosts.get(k);
  if (!h) hand.hosts.set(k, (h = { sentBytes: 0, rcvdBytes: 0, sentPkts: 0, rcvdPkts: 0, flows: 0 }));
  return h;
}

const keyed: { key: number; data: Buffer }[] = [];
for (const c of convs) {
  const frames: [boolean, Buffer][] = [];
  const l4 = (fromCli: boolean, payload: Buffer, flags = TCPF.PSH | TCPF.ACK, seq = 1000): Buffer => {
    const [sp, dp] = fromCli ? [c.cport, c.sport] : [c.sport, c.cport];
    if (c.proto === 6) return tcp({ sport: sp, dport: dp, flags, seq, ack: 1 }, payload);
    if (c.proto === 17) return udp({ sport: sp, dport: dp }, payload);
    if (c.proto === 1) return icmp(fromCli ? 8 : 0, 0, echo(7, 1, payload));
    return icmpv6(fromCli ? 128 : 129, 0, echo(7, 1, payload));
  };
  if (c.proto === 6) {
    frames.push([true, l4(true, Buffer.alloc(0), TCPF.SYN, 999)], [false, l4(false, Buffer.alloc(0), TCPF.SYN | TCPF.ACK, 4999)]);
  }
  let cseq = 1000, sseq = 5000;
  for (const [fromCli, p] of c.msgs) {
    frames.push([fromCli, l4(fromCli, p, TCPF.PSH | TCPF.ACK, fromCli ? cseq : sseq)]);
    if (fromCli) cseq += p.length;
    else sseq += p.length;
  }
  let key = rnd() * 400;
  const hc = hostOf(c.cli, c.vlan), hs = hostOf(c.srv, c.vlan);
  hc.flows++, hs.flows++;
  let bytes = 0;
  for (const [fromCli, seg] of frames) {
    const data = fromCli ? frameOf(c.cli, c.srv, c.proto, seg, c.vlan) : frameOf(c.srv, c.cli, c.proto, seg, c.vlan);
    keyed.push({ key, data });
    key += 1 + rnd() * 20;
    bytes += data.length;
    const [s, d] = fromCli ? [hc, hs] : [hs, hc];
    s.sentBytes += data.length, s.sentPkts++, d.rcvdBytes += data.length, d.rcvdPkts++;
  }
  hand.flows.set(`${c.vlan}|${c.proto}|${hk(c.cli, c.vlan)}:${c.cport}|${hk(c.srv, c.vlan)}:${c.sport}`, { bytes, packets: frames.length, proto: c.proto });
}
keyed.sort((a, b) => a.key - b.key);
// One packet a second: every packet has its own second, so the record's whole-second
// first_seen/last_seen order hosts exactly as the engine's nanoseconds do.
const packets: Packet[] = keyed.map((k, i) => ({ tsNs: sec(T0 + i), data: k.data }));

// ---- helpers -------------------------------------------------------------------------------------

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.concat([Buffer.alloc(10), Buffer.from([0xff, 0xff]), addr(ip)]);
  return addr(ip);
}
/** The engine's tie-break: address bytes (v4 mapped into v6), then VLAN. */
const byIpVlan = (a: HostRecord, b: HostRecord) => Buffer.compare(ipBytes(a.ip), ipBytes(b.ip)) || a.vlan - b.vlan;
const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);

type HostSortName = (typeof HostSort)[number];
const HOST_KEY: Partial<Record<HostSortName, (h: HostRecord) => number>> = {
  since: (h) => h.first_seen,
  last: (h) => h.last_seen,
  vlan: (h) => h.vlan,
  num_flows: (h) => h.active_flows_as_client + h.active_flows_as_server,
  traffic: (h) => h.bytes_sent + h.bytes_rcvd,
  thpt: (h) => h.throughput_bps,
  sent: (h) => h.bytes_sent,
  rcvd: (h) => h.bytes_rcvd,
};
function expectedHostOrder(list: HostRecord[], sort: HostSortName, desc: boolean): HostRecord[] {
  const key = HOST_KEY[sort];
  const out = [...list].sort((a, b) => (key ? cmp(key(a), key(b)) : 0) || byIpVlan(a, b));
  return desc ? out.reverse() : out;
}
const hid = (h: HostRecord) => `${normIp(h.ip)}@${h.vlan}`;

type FlowSortName = (typeof FlowSort)[number];
const FLOW_KEY: Partial<Record<FlowSortName, (f: FlowRecord) => number | Buffer>> = {
  bytes: (f) => f.bytes,
  packets: (f) => f.packets,
  thpt: (f) => f.thpt_bps,
  duration: (f) => f.last_seen_ns - f.first_seen_ns,
  first_seen: (f) => f.first_seen_ns,
  last_seen: (f) => f.last_seen_ns,
  client: (f) => ipBytes(f.client.ip),
  server: (f) => ipBytes(f.server.ip),
  vlan: (f) => f.vlan,
  proto: (f) => f.proto,
  l7: (f) => f.l7_master * 65536 + f.l7_app,
  serial: (f) => f.hash_id,
};
function expectedFlowOrder(list: FlowRecord[], sort: FlowSortName, desc: boolean): FlowRecord[] {
  const key = FLOW_KEY[sort]!;
  const c = (a: number | Buffer, b: number | Buffer) => (Buffer.isBuffer(a) ? Buffer.compare(a, b as Buffer) : cmp(a, b as number));
  const out = [...list].sort((a, b) => c(key(a), key(b)) || a.hash_id - b.hash_id);
  return desc ? out.reverse() : out;
}
const fid = (f: FlowRecord) => `${f.vlan}|${f.proto}|${hk(f.client.ip, f.vlan)}:${f.client.port}|${hk(f.server.ip, f.vlan)}:${f.server.port}`;

function inside(cidrs: string[]): (ip: string) => boolean {
  const bl = new BlockList();
  for (const c of cidrs) {
    const [net, bits] = c.split('/');
    const type = isIPv4(net!) ? 'ipv4' : 'ipv6';
    bl.addSubnet(net!, Number(bits ?? (type === 'ipv4' ? 32 : 128)), type);
  }
  return (ip) => bl.check(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
}

// ---- the engine ----------------------------------------------------------------------------------

let e: Engine;
let allHosts: HostRecord[];
let allFlows: FlowRecord[];

beforeAll(async () => {
  const file = tmp.file('queries.pcap', pcap(packets));
  e = new Engine({ files: [file], flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10, localNetworks: LOCAL_NETS });
  e.start();
  expect(await e.waitDone()).toMatchObject({ state: 'done', error: null });
  allHosts = e.hosts({ limit: 1e6 }).rows;
  allFlows = e.flows({ limit: 1e6, sort: 'serial', order: 'asc' }).rows;
});
afterAll(() => {
  e?.close();
  tmp.cleanup();
});

describe('the capture is what the test built', () => {
  it('30 hosts in 2 VLANs and every flow, with the hand-counted traffic and names', () => {
    expect(packets.length).toBeGreaterThan(600); // several read batches: throughputs get sampled
    expect(e.stats().packets).toBe(packets.length);
    expect(allHosts.length).toBe(30);
    expect(hand.hosts.size).toBe(30);
    expect(allHosts.map(hid).sort()).toEqual([...hand.hosts.keys()].sort());
    const got = Object.fromEntries(allHosts.map((h) => [hid(h), [h.bytes_sent, h.bytes_rcvd, h.packets_sent, h.packets_rcvd, h.total_flows_as_client + h.total_flows_as_server]]));
    const want = Object.fromEntries([...hand.hosts].map(([k, h]) => [k, [h.sentBytes, h.rcvdBytes, h.sentPkts, h.rcvdPkts, h.flows]]));
    expect(got).toEqual(want);
    expect(Object.fromEntries(allFlows.map((f) => [fid(f), { bytes: f.bytes, packets: f.packets, proto: f.proto }]))).toEqual(Object.fromEntries(hand.flows));
    const names = Object.fromEntries(allHosts.filter((h) => h.name).map((h) => [hid(h), h.name]));
    expect(names).toEqual(Object.fromEntries(Object.entries(EXPECTED_NAMES).map(([k, v]) => [hk(k.split('@')[0]!, Number(k.split('@')[1])), v])));
    // Throughput was sampled: the thpt sort below has distinct values to order.
    expect(new Set(allHosts.map((h) => h.throughput_bps).filter((x) => x > 0)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(allFlows.map((f) => f.thpt_bps).filter((x) => x > 0)).size).toBeGreaterThanOrEqual(5);
  });
});

// ---- hosts() -------------------------------------------------------------------------------------

describe('hosts(): sort columns, both orders', () => {
  const columns: HostSortName[] = ['ip', 'since', 'last', 'vlan', 'num_flows', 'traffic', 'thpt', 'sent', 'rcvd'];
  for (const sort of columns) {
    for (const order of ['asc', 'desc'] as const) {
      it(`${sort} ${order}`, () => {
        const page = e.hosts({ sort, order, limit: 1000 });
        expect(page.total).toBe(30);
        expect(page.rows.map(hid)).toEqual(expectedHostOrder(allHosts, sort, order === 'desc').map(hid));
      });
    }
  }

  it('the sort keys are not all ties (each column orders differently from ip)', () => {
    const ipOrder = expectedHostOrder(allHosts, 'ip', false).map(hid).join();
    for (const s of columns.filter((c) => c !== 'ip')) expect(expectedHostOrder(allHosts, s, false).map(hid).join(), s).not.toBe(ipOrder);
  });

  it('alerts and country have no data yet: they order as ip', () => {
    const ip = e.hosts({ sort: 'ip', limit: 100 }).rows.map(hid);
    expect(e.hosts({ sort: 'alerts', limit: 100 }).rows.map(hid)).toEqual(ip);
    expect(e.hosts({ sort: 'country', limit: 100 }).rows.map(hid)).toEqual(ip);
    expect(e.hosts({ sort: 'country', order: 'desc', limit: 100 }).rows.map(hid)).toEqual([...ip].reverse());
  });

  it('name: named hosts come in name order (ties by address, then VLAN), both orders', () => {
    for (const desc of [false, true]) {
      const rows = e.hosts({ sort: 'name', order: desc ? 'desc' : 'asc', limit: 100 }).rows.filter((h) => h.name);
      const want = [...rows].sort((a, b) => cmp(a.name!, b.name!) || byIpVlan(a, b));
      if (desc) want.reverse();
      expect(rows.map(hid)).toEqual(want.map(hid));
      expect(rows.length).toBe(8);
    }
  });

  it('name: hosts sort by the name a UI shows (name, else the address text), both orders', () => {
    const label = (h: HostRecord) => h.name ?? h.ip;
    for (const desc of [false, true]) {
      const want = [...allHosts].sort((a, b) => cmp(label(a), label(b)) || byIpVlan(a, b));
      if (desc) want.reverse();
      expect(e.hosts({ sort: 'name', order: desc ? 'desc' : 'asc', limit: 100 }).rows.map(hid)).toEqual(want.map(hid));
    }
  });

  it('the default query: ip ascending, 10 rows', () => {
    const p = e.hosts();
    expect(p.total).toBe(30);
    expect(p.rows.map(hid)).toEqual(expectedHostOrder(allHosts, 'ip', false).slice(0, 10).map(hid));
  });
});

describe('hosts(): paging', () => {
  for (const [sort, order] of [['traffic', 'desc'], ['ip', 'asc'], ['since', 'desc']] as const) {
    it(`pages of 7 by ${sort} ${order} add up to the full list; the last page is partial`, () => {
      const full = expectedHostOrder(allHosts, sort, order === 'desc').map(hid);
      const pages: string[][] = [];
      for (let offset = 0; offset < 30; offset += 7) {
        const p = e.hosts({ sort, order, offset, limit: 7 });
        expect(p.total).toBe(30);
        pages.push(p.rows.map(hid));
      }
      expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 2]);
      expect(pages.flat()).toEqual(full);
      // An arbitrary window.
      expect(e.hosts({ sort, order, offset: 11, limit: 5 }).rows.map(hid)).toEqual(full.slice(11, 16));
    });
  }

  it('offset at or past the end gives no rows and the right total; limit 0 gives no rows', () => {
    for (const offset of [30, 31, 1000, 2 ** 31]) expect(e.hosts({ offset, limit: 10 })).toEqual({ total: 30, rows: [] });
    expect(e.hosts({ limit: 0 })).toEqual({ total: 30, rows: [] });
    expect(e.hosts({ offset: 29, limit: 10, mode: 'all' }).rows.length).toBe(1);
    expect(e.hosts({ mode: 'local', offset: 20 })).toEqual({ total: 20, rows: [] });
  });
});

describe('hosts(): modes, VLAN and allowed networks', () => {
  const ids = (q: HostQuery) => {
    const p = e.hosts({ limit: 1000, ...q });
    expect(p.rows.length).toBe(p.total);
    return p.rows.map(hid).sort();
  };
  const where = (pred: (h: HostRecord) => boolean) => allHosts.filter(pred).map(hid).sort();
  const h = (...xs: string[]) => xs.map((x) => hk(x.split('@')[0]!, Number(x.split('@')[1]))).sort();

  it('all, local, remote, broadcast, multicast', () => {
    expect(ids({ mode: 'all' }).length).toBe(30);
    const local = ids({ mode: 'local' });
    expect(local).toEqual(h(...V10.map((x) => `${x}@10`), '192.168.10.255@10', 'fd00:10::1@10', ...V20.map((x) => `${x}@20`), 'fd00:20::1@20', 'fd00:20::2@20'));
    expect(local).toEqual(where((x) => x.localhost));
    const remote = ids({ mode: 'remote' });
    expect(remote).toEqual(h('239.1.2.3@10', `${WEB}@10`, '1.1.1.1@10', 'ff02::1@10', `${WEB}@20`, '8.8.8.8@20', '9.9.9.9@20', '2001:db8::1@20', 'ff02::1@20', '255.255.255.255@20'));
    expect(remote).toEqual(where((x) => !x.localhost));
    expect(ids({ mode: 'broadcast' })).toEqual(h('192.168.10.255@10', '255.255.255.255@20'));
    expect(ids({ mode: 'broadcast' })).toEqual(where((x) => x.is_broadcast));
    expect(ids({ mode: 'multicast' })).toEqual(h('239.1.2.3@10', 'ff02::1@10', 'ff02::1@20'));
    expect(ids({ mode: 'multicast' })).toEqual(where((x) => x.is_multicast));
    expect(ids({ mode: 'broadcast_domain' })).toEqual(where((x) => x.broadcast_domain_host));
  });

  it("'filtered', 'blacklisted' and 'dhcp' select nothing for now", () => {
    for (const mode of ['filtered', 'blacklisted', 'dhcp'] as const) expect(e.hosts({ mode, limit: 100 })).toEqual({ total: 0, rows: [] });
  });

  it('vlan filter, alone and with a mode', () => {
    expect(ids({ vlan: 10 })).toEqual(where((x) => x.vlan === 10));
    expect(ids({ vlan: 10 }).length).toBe(15);
    expect(ids({ vlan: 20 }).length).toBe(15);
    expect(ids({ vlan: 30 })).toEqual([]);
    expect(ids({ vlan: 20, mode: 'local' })).toEqual(where((x) => x.vlan === 20 && x.localhost));
    expect(ids({ vlan: 20, mode: 'local' }).length).toBe(9);
    expect(ids({ vlan: 10, mode: 'multicast' })).toEqual(h('239.1.2.3@10', 'ff02::1@10'));
    // Sorted and paged within the filter.
    const p = e.hosts({ vlan: 20, sort: 'sent', order: 'desc', offset: 3, limit: 4 });
    expect(p.total).toBe(15);
    expect(p.rows.map(hid)).toEqual(expectedHostOrder(allHosts.filter((x) => x.vlan === 20), 'sent', true).slice(3, 7).map(hid));
  });

  it('allowed networks: only hosts inside them', () => {
    const allowed = ['192.168.10.0/29', 'fd00:20::/64'];
    const ok = inside(allowed);
    expect(ids({ allowed })).toEqual(where((x) => ok(x.ip)));
    expect(ids({ allowed })).toEqual(h(...V10.slice(0, 7).map((x) => `${x}@10`), 'fd00:20::1@20', 'fd00:20::2@20'));
    // One address on both VLANs.
    expect(ids({ allowed: [`${WEB}/32`] })).toEqual(h(`${WEB}@10`, `${WEB}@20`));
    expect(ids({ allowed: [`${WEB}/32`], vlan: 20 })).toEqual(h(`${WEB}@20`));
    // With a mode: the intersection.
    expect(ids({ allowed: ['0.0.0.0/0'], mode: 'remote' })).toEqual(where((x) => isIPv4(x.ip) && !x.localhost));
    expect(ids({ allowed: ['fc00::/7', 'ff00::/8'] })).toEqual(where((x) => !isIPv4(x.ip) && x.ip !== '2001:db8::1'));
    expect(ids({ allowed: ['203.0.113.0/24'] })).toEqual([]);
    // An empty list means no restriction.
    expect(ids({ allowed: [] }).length).toBe(30);
    // Totals count only what is allowed; pages stay inside.
    const p = e.hosts({ allowed, sort: 'traffic', order: 'desc', limit: 4 });
    expect(p.total).toBe(9);
    expect(p.rows.map(hid)).toEqual(expectedHostOrder(allHosts.filter((x) => ok(x.ip)), 'traffic', true).slice(0, 4).map(hid));
  });

  it('an IPv6 network does not contain IPv4 addresses (allowed ::/0 is IPv6 only)', () => {
    expect(ids({ allowed: ['::/0'] })).toEqual(where((x) => !isIPv4(x.ip)));
  });

  it('an invalid allowed network is a TypeError', () => {
    expect(() => e.hosts({ allowed: ['10.0.0.0/33'] })).toThrow(TypeError);
    expect(() => e.hosts({ allowed: ['not-a-network'] })).toThrow(TypeError);
  });
});

describe('host(ip, vlan?)', () => {
  // host() carries the L7/DSCP counters that hosts() gives only with detail.
  const detailed = () => e.hosts({ limit: 1000, detail: true }).rows;
  it('finds a host with and without its VLAN, equal to its hosts() row', () => {
    const row = detailed().find((x) => x.ip === '192.168.10.3')!;
    expect(e.host('192.168.10.3')).toEqual(row);
    expect(e.host('192.168.10.3', 10)).toEqual(row);
    expect(e.host('192.168.10.3', 20)).toBeNull();
    expect(e.host('192.168.10.3')).toMatchObject({ vlan: 10, name: 'alice.lan', name_source: 'dns', localhost: true });
    expect(e.host('fd00:20::2', 20)).toMatchObject({ ip: 'fd00:20::2', vlan: 20, ip_version: 6 });
    // Any spelling of the address.
    expect(e.host('fd00:20:0:0:0:0:0:2', 20)).toMatchObject({ ip: 'fd00:20::2', vlan: 20 });
  });

  it('an address on two VLANs: the VLAN picks one; without it, one of them', () => {
    expect(e.host(WEB, 10)).toMatchObject({ ip: WEB, vlan: 10 });
    expect(e.host(WEB, 20)).toMatchObject({ ip: WEB, vlan: 20 });
    expect(e.host(WEB, 20)).toEqual(detailed().find((x) => x.ip === WEB && x.vlan === 20));
    const any = e.host(WEB)!;
    expect(any.ip).toBe(WEB);
    expect([10, 20]).toContain(any.vlan);
  });

  it('an unknown address is null; an invalid one a TypeError', () => {
    expect(e.host('203.0.113.99')).toBeNull();
    expect(e.host('2001:db8::99')).toBeNull();
    expect(e.host(WEB, 30)).toBeNull();
    expect(() => e.host('not-an-ip')).toThrow(TypeError);
    expect(() => e.host('192.168.10.300')).toThrow(TypeError);
    expect(() => e.host('')).toThrow(TypeError);
  });
});

// ---- flows() -------------------------------------------------------------------------------------

describe('flows(): sort columns, both orders', () => {
  const columns: FlowSortName[] = ['bytes', 'packets', 'thpt', 'duration', 'first_seen', 'last_seen', 'client', 'server', 'vlan', 'proto', 'l7', 'serial'];
  for (const sort of columns) {
    for (const order of ['asc', 'desc'] as const) {
      it(`${sort} ${order}`, () => {
        const page = e.flows({ sort, order, limit: 1000 });
        expect(page.total).toBe(hand.flows.size);
        expect(page.rows.map((f) => f.hash_id)).toEqual(expectedFlowOrder(allFlows, sort, order === 'desc').map((f) => f.hash_id));
      });
    }
  }

  it('the default query: bytes descending, 10 rows', () => {
    const p = e.flows();
    expect(p.total).toBe(hand.flows.size);
    expect(p.rows.map((f) => f.hash_id)).toEqual(expectedFlowOrder(allFlows, 'bytes', true).slice(0, 10).map((f) => f.hash_id));
  });

  it('serials are unique, and the serial order is the order of creation', () => {
    expect(new Set(allFlows.map((f) => f.hash_id)).size).toBe(allFlows.length);
    const byFirst = [...allFlows].sort((a, b) => a.first_seen_ns - b.first_seen_ns).map((f) => f.hash_id);
    expect(allFlows.map((f) => f.hash_id)).toEqual(byFirst);
  });
});

describe('flows(): filters and paging', () => {
  const ids = (q: FlowQuery) => {
    const p = e.flows({ limit: 1000, ...q });
    expect(p.rows.length).toBe(p.total);
    return p.rows.map(fid).sort();
  };
  const where = (pred: (f: FlowRecord) => boolean) => allFlows.filter(pred).map(fid).sort();
  const has = (f: FlowRecord, ip: string) => normIp(f.client.ip) === normIp(ip) || normIp(f.server.ip) === normIp(ip);

  it('host filter, with and without hostVlan', () => {
    expect(ids({ host: WEB })).toEqual(where((f) => has(f, WEB)));
    expect(ids({ host: WEB }).length).toBe(8);
    expect(ids({ host: WEB, hostVlan: 20 })).toEqual(where((f) => has(f, WEB) && f.vlan === 20));
    expect(ids({ host: WEB, hostVlan: 20 }).length).toBe(3);
    expect(ids({ host: '192.168.10.1' })).toEqual(where((f) => has(f, '192.168.10.1')));
    expect(ids({ host: '192.168.10.1' }).length).toBe(4);
    expect(ids({ host: 'fd00:20::1' })).toEqual(where((f) => has(f, 'fd00:20::1')));
    expect(ids({ host: 'fd00:20::1' }).length).toBe(3);
    expect(ids({ host: '203.0.113.99' })).toEqual([]);
    expect(() => e.flows({ host: 'nope' })).toThrow(TypeError);
  });

  it('vlan and l4proto filters, alone and together', () => {
    expect(ids({ vlan: 10 })).toEqual(where((f) => f.vlan === 10));
    expect(ids({ vlan: 20 })).toEqual(where((f) => f.vlan === 20));
    expect(ids({ vlan: 10 }).length + ids({ vlan: 20 }).length).toBe(hand.flows.size);
    for (const p of [1, 6, 17, 58, 47]) expect(ids({ l4proto: p }), `proto ${p}`).toEqual(where((f) => f.proto === p));
    expect(ids({ l4proto: 47 })).toEqual([]);
    expect(ids({ vlan: 20, l4proto: 17 })).toEqual(where((f) => f.vlan === 20 && f.proto === 17));
    expect(ids({ vlan: 20, l4proto: 17, host: '8.8.8.8' }).length).toBe(7);
  });

  it('allowed networks: a flow is visible when either endpoint is inside', () => {
    for (const allowed of [['192.168.10.0/30'], ['1.1.1.1/32'], ['fd00:20::/64', '239.0.0.0/8'], ['203.0.113.0/24']]) {
      const ok = inside(allowed);
      expect(ids({ allowed }), allowed.join()).toEqual(where((f) => ok(f.client.ip) || ok(f.server.ip)));
    }
    expect(ids({ allowed: ['1.1.1.1/32'] }).length).toBe(10);
    // Counters obey the same rule.
    const ok = inside(['1.1.1.1/32']);
    const count = new Map<number, number>();
    for (const f of allFlows) if (ok(f.client.ip) || ok(f.server.ip)) count.set(f.proto, (count.get(f.proto) ?? 0) + 1);
    expect(e.flowCounters(['1.1.1.1/32']).l4).toEqual([...count].sort((a, b) => a[0] - b[0]).map(([proto, n]) => ({ proto, count: n })));
  });

  it('paging: pages of 9 by bytes add up to the full list; past the end is empty with the total', () => {
    const n = hand.flows.size;
    const full = expectedFlowOrder(allFlows, 'bytes', true).map((f) => f.hash_id);
    const pages: number[][] = [];
    for (let offset = 0; offset < n; offset += 9) pages.push(e.flows({ offset, limit: 9 }).rows.map((f) => f.hash_id));
    expect(pages.flat()).toEqual(full);
    expect(pages.at(-1)!.length).toBe(n % 9 || 9);
    expect(e.flows({ offset: n, limit: 9 })).toEqual({ total: n, rows: [] });
    expect(e.flows({ offset: n + 100, limit: 9 })).toEqual({ total: n, rows: [] });
    // Within a filter.
    const udp = expectedFlowOrder(allFlows.filter((f) => f.proto === 17), 'first_seen', false).map((f) => f.hash_id);
    expect(e.flows({ l4proto: 17, sort: 'first_seen', order: 'asc', offset: 2, limit: 5 }).rows.map((f) => f.hash_id)).toEqual(udp.slice(2, 7));
  });

  it('flowCounters(): per-protocol counts equal the hand count', () => {
    const count = new Map<number, number>();
    for (const f of hand.flows.values()) count.set(f.proto, (count.get(f.proto) ?? 0) + 1);
    const want = [...count].sort((a, b) => a[0] - b[0]).map(([proto, n]) => ({ proto, count: n }));
    expect(want.map((x) => x.proto)).toEqual([1, 6, 17, 58]);
    expect(e.flowCounters().l4).toEqual(want);
    expect(e.flowCounters([]).l4).toEqual(want);
    // L7: the same (master, app) counts as the flow list itself shows, ICMP
    // flows classified from the IP protocol alone.
    const rows = e.flows({ limit: 1e6 }).rows;
    const l7 = new Map<string, number>();
    for (const f of rows) l7.set(`${f.l7_master}/${f.l7_app}`, (l7.get(`${f.l7_master}/${f.l7_app}`) ?? 0) + 1);
    const got = e.flowCounters().l7;
    expect(got.reduce((a, x) => a + x.count, 0)).toBe(hand.flows.size);
    expect(new Map(got.map((x) => [`${x.master}/${x.app}`, x.count]))).toEqual(l7);
    expect(rows.filter((f) => f.proto === 1).every((f) => f.l7_app === 81 && f.l7_master === 0)).toBe(true);
  });
});

describe('invalid queries', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof FlowgateError ? err.code : `not a FlowgateError: ${String(err)}`;
    }
    return 'did not throw';
  };

  it("unknown sort names and modes throw FlowgateError 'E_INVALID'", () => {
    expect(code(() => e.hosts({ sort: 'bogus' as never }))).toBe('E_INVALID');
    expect(code(() => e.hosts({ sort: 'bytes' as never }))).toBe('E_INVALID');
    expect(code(() => e.hosts({ mode: 'everything' as never }))).toBe('E_INVALID');
    expect(code(() => e.flows({ sort: 'bogus' as never }))).toBe('E_INVALID');
    expect(code(() => e.flows({ sort: 'traffic' as never }))).toBe('E_INVALID');
    expect(code(() => e.flows({ sort: '' as never }))).toBe('E_INVALID');
  });
});
