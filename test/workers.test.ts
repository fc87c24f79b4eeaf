// --workers: the same captures replayed with one packet worker and with two
// must give the same answers wherever the sharded design promises them.
// Packets are spread over workers by a hash symmetric in the two IP
// endpoints: a flow lives in exactly one shard (so every flow field must be
// identical), a host has a part per shard and queries sum the parts (so its
// counters, flow counts, first/last seen, name and the traffic credited to
// applications must be identical). Not compared: cardinality and contact
// estimates, the behavioural forecasts and the new-flow gap bins
// (approximate with several workers), throughput rates (each shard's clock), the split of a flow's
// early bytes between Unknown and its application (each worker's accounting
// sweep) and the flows' serial and key numbers (per shard).
//
// The truth is the one-worker run; the checks below make sure the lists
// compared are not empty and that no table or pool refused state (a refusal
// could depend on how packets fell on shards). Idle timeouts are far beyond
// the captures' spans, but for one capture replayed with the defaults: a
// host's part in a worker lives on while the host is active in another
// (flow/host_liveness.h), so expiry too gives one worker's answer.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defaultWorkers, Engine, type EngineOptionsInput } from '../ts/bindings/engine.js';
import type { EngineStats, FlowRecord, HostDetail, L7Stats } from '../ts/bindings/native.js';
import { DNS_RESPONSE, DNS_TYPE, dns, dnsName, dnsPtr, httpGet, ipRdata, tlsClientHello } from './fixtures/apps.js';
import { buildDist } from './fixtures/egress.js';
import { ETH, IPPROTO, TCPF, echo, eth, icmp, ipv4, ipv6, ipv6Frag, mac, tcp, udp, vlanTag } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS, mulberry32, normIp } from './fixtures/util.js';

const tmp = tempDir('flowgate-workers-');
afterAll(() => tmp.cleanup());

// ---- a generated capture: many hosts and flows ------------------------------------------------
//
// 240 local IPv4 clients (a seventh on VLAN 10, a seventh on VLAN 20) and 30
// IPv6 clients talk to 60 remote servers over TLS (SNI) and HTTP (Host), ask
// a local resolver (whose answers name the servers), ping, talk to each other
// (local to local) and send UDP datagrams split into IP fragments (IPv4 and
// IPv6); one address pair talks on two VLANs. Conversations are interleaved.

const T0 = 1_700_000_000;
const rnd = mulberry32(20261206);
const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** A MAC per address: devices differ as hosts do. */
function macOf(ip: string): Buffer {
  let h = 0;
  for (const c of ip) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return mac(`02:${[h >>> 24, (h >>> 16) & 255, (h >>> 8) & 255, h & 255, 7].map((x) => x.toString(16).padStart(2, '0')).join(':')}`);
}

function frame(vlan: number, src: string, dst: string, l3: Uint8Array, v6: boolean): Buffer {
  const type = v6 ? ETH.IPV6 : ETH.IPV4;
  return vlan ? eth(macOf(dst), macOf(src), ETH.VLAN, vlanTag(vlan, type, l3)) : eth(macOf(dst), macOf(src), type, l3);
}
const ip = (src: string, dst: string, proto: number, l4: Buffer) =>
  src.includes(':') ? ipv6({ src, dst, next: proto }, l4) : ipv4({ src, dst, proto, id: between(1, 65535) }, l4);

/** One conversation's frames in order. */
const conversations: Buffer[][] = [];

function tcpConv(vlan: number, cli: string, cport: number, srv: string, sport: number, msgs: [boolean, Buffer][]): void {
  const v6 = cli.includes(':');
  const out: Buffer[] = [];
  let cseq = 1000, sseq = 9000;
  const seg = (fromCli: boolean, flags: number, payload: Uint8Array = Buffer.alloc(0)) => {
    const [s, d, sp, dp] = fromCli ? [cli, srv, cport, sport] : [srv, cli, sport, cport];
    const t = tcp({ sport: sp, dport: dp, flags, seq: fromCli ? cseq : sseq, ack: fromCli ? sseq : cseq }, payload);
    out.push(frame(vlan, s, d, ip(s, d, IPPROTO.TCP, t), v6));
    const adv = payload.length + (flags & (TCPF.SYN | TCPF.FIN) ? 1 : 0);
    if (fromCli) cseq += adv;
    else sseq += adv;
  };
  seg(true, TCPF.SYN), seg(false, TCPF.SYN | TCPF.ACK), seg(true, TCPF.ACK);
  for (const [fromCli, p] of msgs) seg(fromCli, TCPF.PSH | TCPF.ACK, p);
  seg(true, TCPF.FIN | TCPF.ACK), seg(false, TCPF.FIN | TCPF.ACK), seg(true, TCPF.ACK);
  conversations.push(out);
}

function udpConv(vlan: number, cli: string, cport: number, srv: string, sport: number, msgs: [boolean, Buffer][]): void {
  const v6 = cli.includes(':');
  conversations.push(
    msgs.map(([fromCli, p]) => {
      const [s, d, sp, dp] = fromCli ? [cli, srv, cport, sport] : [srv, cli, sport, cport];
      return frame(vlan, s, d, ip(s, d, IPPROTO.UDP, udp({ sport: sp, dport: dp }, p)), v6);
    }),
  );
}

function ping(vlan: number, cli: string, srv: string, n: number): void {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    out.push(frame(vlan, cli, srv, ipv4({ src: cli, dst: srv, proto: IPPROTO.ICMP }, icmp(8, 0, echo(77, i))), false));
    out.push(frame(vlan, srv, cli, ipv4({ src: srv, dst: cli, proto: IPPROTO.ICMP }, icmp(0, 0, echo(77, i))), false));
  }
  conversations.push(out);
}

/** UDP datagrams of `size` payload bytes, each sent as IP fragments of at most 1232 bytes of data. */
function fragmented(vlan: number, cli: string, cport: number, srv: string, sport: number, datagrams: number, size: number): void {
  const v6 = cli.includes(':');
  const out: Buffer[] = [];
  for (let n = 0; n < datagrams; n++) {
    const seg = udp({ sport: cport, dport: sport }, Buffer.alloc(size, 0x41 + n));
    const id = between(1, 0xffff);
    for (let off = 0; off < seg.length; off += 1232) {
      const chunk = seg.subarray(off, off + 1232), more = off + 1232 < seg.length;
      const l3 = v6
        ? ipv6({ src: cli, dst: srv, next: IPPROTO.FRAGMENT }, ipv6Frag(IPPROTO.UDP, off, more, id, chunk))
        : ipv4({ src: cli, dst: srv, proto: IPPROTO.UDP, id, mf: more, fragOffset: off }, chunk);
      out.push(frame(vlan, cli, srv, l3, v6));
    }
  }
  conversations.push(out);
}

const RESOLVER = '192.168.50.1', FILES = '192.168.50.2';
const SERVERS = Array.from({ length: 60 }, (_, i) => (i < 30 ? `198.51.100.${i + 10}` : `203.0.113.${i - 20}`));
const SITE = (s: string) => `site-${s.split('.').slice(2).join('-')}.example.com`;
const V6_SERVERS = Array.from({ length: 20 }, (_, i) => `2001:db8:1::${(i + 1).toString(16)}`);
const data = (fromCli: boolean) => [fromCli, Buffer.alloc(between(1, 1400), fromCli ? 0x63 : 0x73)] as [boolean, Buffer];
const chatter = (n: number) => Array.from({ length: n }, () => data(rnd() < 0.4));

const clients = Array.from({ length: 240 }, (_, i) => `10.1.${i >> 6}.${(i & 63) + 1}`);
clients.forEach((c, i) => {
  const vlan = i % 7 === 0 ? 10 : i % 7 === 1 ? 20 : 0;
  let port = 40000 + i * 10;
  for (let k = between(1, 4); k > 0; k--) {
    const srv = pick(SERVERS);
    switch (between(0, 5)) {
      case 0:
        tcpConv(vlan, c, port++, srv, 443, [[true, tlsClientHello(SITE(srv))], ...chatter(between(2, 12))]);
        break;
      case 1:
        tcpConv(vlan, c, port++, srv, 80, [[true, httpGet(SITE(srv))], ...chatter(between(1, 8))]);
        break;
      case 2: {
        const id = between(1, 0xffff), q = dnsName(SITE(srv));
        udpConv(vlan, c, port++, RESOLVER, 53, [
          [true, dns({ id, flags: 0x0100, questions: [{ name: q, type: DNS_TYPE.A }] })],
          [false, dns({ id, flags: DNS_RESPONSE, questions: [{ name: q, type: DNS_TYPE.A }], answers: [{ name: dnsPtr(12), type: DNS_TYPE.A, rdata: ipRdata(srv) }] })],
        ]);
        break;
      }
      case 3:
        ping(vlan, c, srv, between(1, 4));
        break;
      case 4:
        // local to local, on the client's own VLAN
        tcpConv(vlan, c, port++, clients[(i + 7 * between(1, 30)) % clients.length]!, 445, chatter(between(2, 10)));
        break;
      default:
        udpConv(vlan, c, port++, srv, 4500 + between(0, 3), chatter(between(1, 10)));
    }
  }
  if (i % 8 === 0) fragmented(vlan, c, port++, FILES, 5001, between(1, 4), between(1500, 4000));
});
for (let i = 1; i <= 30; i++) {
  const c = `fd00:1::${i.toString(16)}`, srv = pick(V6_SERVERS);
  tcpConv(0, c, 50000 + i, srv, 443, [[true, tlsClientHello(`v6-${i}.example.net`)], ...chatter(between(2, 10))]);
  if (i % 5 === 0) fragmented(0, c, 51000 + i, 'fd00:1::100', 5001, between(1, 3), between(1500, 4000));
}
// one address pair on two VLANs: two flows, and its hosts twice (keyed by VLAN)
for (const vlan of [10, 20]) tcpConv(vlan, '10.9.0.1', 33333, '198.51.100.200', 443, [[true, tlsClientHello(`vlan${vlan}.example.org`)], ...chatter(5)]);

/** Conversations interleaved (each keeps its order), a packet every 3 ms. */
function generated(): Packet[] {
  const keyed: { key: number; data: Buffer }[] = [];
  for (const conv of conversations) {
    let key = rnd() * 2000;
    for (const f of conv) keyed.push({ key: (key += 0.5 + rnd() * 10), data: f });
  }
  keyed.sort((a, b) => a.key - b.key);
  return keyed.map((k, i) => ({ tsNs: sec(T0 + i * 0.003), data: k.data }));
}

// ---- replays ---------------------------------------------------------------------------------

/** Tables and pools large enough that nothing is refused; nothing expires during a replay. */
const KEEP: Partial<EngineOptionsInput> = {
  maxFlows: 1 << 16,
  maxHosts: 1 << 13,
  maxMacs: 1 << 13,
  flowIdleSec: 1e10,
  localHostIdleSec: 1e10,
  remoteHostIdleSec: 1e10,
  periodicDumpSec: 0,
  flowInfoShare: 1,
  flowMetaShare: 1,
  hostSideShare: 1,
  l7EntriesPerHost: 32,
};

interface Run {
  stats: EngineStats;
  l7: L7Stats;
  flows: FlowRecord[];
  hosts: HostDetail[];
  workerPackets: number[] | null;
}

async function replay(files: string[], workers: number, extra: Partial<EngineOptionsInput> = {}): Promise<Run> {
  const e = new Engine({ files, workers, ...KEEP, ...extra });
  try {
    e.start();
    const st = await e.waitDone();
    expect(st).toMatchObject({ state: 'done', error: null });
    // a limit beyond the table: every flow and host
    const flows = e.flows({ limit: 1e7 });
    const hosts = e.hosts({ limit: 1e7, detail: true });
    expect(flows.rows.length).toBe(flows.total);
    expect(hosts.rows.length).toBe(hosts.total);
    return { stats: e.stats(), l7: e.l7Stats(), flows: flows.rows, hosts: hosts.rows as HostDetail[], workerPackets: e.workerPackets() };
  } finally {
    e.close();
  }
}

// ---- what must be equal ------------------------------------------------------------------------

const flowKey = (f: FlowRecord) => `${f.proto}|${f.vlan}|${normIp(f.client.ip)}:${f.client.port}|${normIp(f.server.ip)}:${f.server.port}|${f.tunnel}`;

/** Every field but the shard's serial and key numbers and the clock-dependent rates. */
function flowFacts(f: FlowRecord): Record<string, unknown> {
  const { key: _key, hash_id: _id, thpt_bps: _bps, thpt_pps: _pps, ...rest } = f;
  return rest;
}

const hostKey = (h: { ip: string; vlan: number }) => `${normIp(h.ip)}@${h.vlan}`;

/** The counters summed over a host's parts, and what every part agrees on. */
function hostFacts(h: HostDetail) {
  return {
    ip_version: h.ip_version,
    localhost: h.localhost,
    is_broadcast: h.is_broadcast,
    is_multicast: h.is_multicast,
    name: h.name,
    first_seen: h.first_seen,
    last_seen: h.last_seen,
    bytes_sent: h.bytes_sent,
    bytes_rcvd: h.bytes_rcvd,
    packets_sent: h.packets_sent,
    packets_rcvd: h.packets_rcvd,
    tcp: h.tcp,
    udp: h.udp,
    icmp: h.icmp,
    other_ip: h.other_ip,
    active_flows_as_client: h.active_flows_as_client,
    active_flows_as_server: h.active_flows_as_server,
    total_flows_as_client: h.total_flows_as_client,
    total_flows_as_server: h.total_flows_as_server,
    // Per application: the totals. A flow's bytes are credited to its
    // application at each accounting step of the sweep (ntopng's periodic
    // update), so the bytes of a flow still unclassified at a step go to
    // Unknown; each worker sweeps its own table at its own phase, so the
    // split between Unknown and the application can move between runs with
    // different worker counts (as between two engines whose sweeps fall
    // differently). What was credited in all is the same.
    ndpi: ndpiTotals(h.ndpi ?? []),
    // ended flows' durations binned per role (the gaps between new flows are each shard's)
    duration_bins: h.flow_bins?.map((role) => role[1]),
  };
}

function ndpiTotals(rows: { bytes_sent: number; bytes_rcvd: number; packets_sent: number; packets_rcvd: number }[]) {
  const t = { bytes_sent: 0, bytes_rcvd: 0, packets_sent: 0, packets_rcvd: 0 };
  for (const a of rows) t.bytes_sent += a.bytes_sent, t.bytes_rcvd += a.bytes_rcvd, t.packets_sent += a.packets_sent, t.packets_rcvd += a.packets_rcvd;
  return t;
}

const l7Totals = (rows: { bytes: number; packets: number }[]) => rows.reduce((t, a) => ({ bytes: t.bytes + a.bytes, packets: t.packets + a.packets }), { bytes: 0, packets: 0 });

function ifaceFacts(s: EngineStats, l7: L7Stats) {
  const pickKeys = <K extends keyof EngineStats>(...ks: K[]) => Object.fromEntries(ks.map((k) => [k, s[k]]));
  return {
    ...pickKeys(
      'packets', 'bytes', 'ip_packets', 'ip_bytes', 'ipv4_packets', 'ipv6_packets',
      'packets_upload', 'bytes_upload', 'packets_download', 'bytes_download',
      'local2remote', 'remote2local', 'local2local', 'remote2remote', 'broadcast_packets', 'multicast_packets',
      'tcpPacketStats', 'num_flows', 'num_hosts', 'num_local_hosts', 'flows_created', 'flows_expired', 'hosts_created', 'hosts_expired',
      'first_seen_ns', 'last_seen_ns', 'decode', 'malformed', 'orphan_fragments',
    ),
    l4: [...s.l4].sort((a, b) => a.proto - b.proto),
    dscp: [...s.dscp].sort((a, b) => a.dscp - b.dscp),
    // per application and category: the totals (see hostFacts)
    apps: l7Totals(l7.apps),
    categories: l7Totals(l7.categories),
  };
}

/** The keys whose facts differ (the first few, both sides), for a readable failure. */
function differing<T>(one: Map<string, T>, two: Map<string, T>): { key: string; one: T | undefined; two: T | undefined }[] {
  return [...new Set([...one.keys(), ...two.keys()])]
    .filter((k) => !isDeepStrictEqual(one.get(k), two.get(k)))
    .slice(0, 3)
    .map((key) => ({ key, one: one.get(key), two: two.get(key) }));
}

function byKey<R, T>(rows: R[], key: (r: R) => string, facts: (r: R) => T): Map<string, T> {
  const m = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    expect(m.has(k), `duplicate key ${k}`).toBe(false);
    m.set(k, facts(r));
  }
  return m;
}

// ---- the comparisons ---------------------------------------------------------------------------

const CAPTURES: [string, () => string][] = [
  ['generated: many hosts, IPv6, fragments, VLANs', () => tmp.file('many.pcap', pcap(generated()))],
  // the shared captures with the most hosts and flows
  ...['srvloc.pcap', '1kxun.pcap', 'quic_frags_ch_out_of_order_same_packet_craziness.pcapng', 'dnscrypt-v1-and-resolver-pings.pcap', 'alexa-app.pcapng', 'synscan.pcap'].map(
    (f): [string, () => string] => [f, () => join(NDPI_PCAPS, f)],
  ),
];

describe.each(CAPTURES)('%s: workers 1 and 2 agree', (_name, file) => {
  let one: Run, two: Run;
  beforeAll(async () => {
    const f = file();
    one = await replay([f], 1);
    two = await replay([f], 2);
  });

  it('replays everything without refusing state', () => {
    for (const r of [one, two]) {
      const s = r.stats;
      expect(s.packets).toBeGreaterThan(0);
      expect({
        flow_table_full: s.flow_table_full, host_table_full: s.host_table_full, host_l7_pool_full: s.host_l7_pool_full,
        flow_info_full: s.flow_info_full, flow_meta_full: s.flow_meta_full,
      }).toEqual({ flow_table_full: 0, host_table_full: 0, host_l7_pool_full: 0, flow_info_full: 0, flow_meta_full: 0 });
      expect(s.flows_expired).toBe(0);
    }
  });

  it('the same flows, field for field', () => {
    const a = byKey(one.flows, flowKey, flowFacts), b = byKey(two.flows, flowKey, flowFacts);
    expect(a.size).toBeGreaterThan(0);
    expect(a.size).toBe(one.stats.num_flows);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    expect(differing(a, b)).toEqual([]);
  });

  it('the same interface counters', () => {
    expect(one.stats.num_hosts).toBeGreaterThan(0);
    expect(ifaceFacts(two.stats, two.l7)).toEqual(ifaceFacts(one.stats, one.l7));
  });

  it('the same hosts: traffic, flows, times, names and applications', () => {
    const a = byKey(one.hosts, hostKey, hostFacts), b = byKey(two.hosts, hostKey, hostFacts);
    expect(a.size).toBeGreaterThan(0);
    expect(a.size).toBe(one.stats.num_hosts);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    expect(differing(a, b)).toEqual([]);
  });

  it('with two workers, both take packets (when the addon counts them per worker)', (ctx) => {
    if (!two.workerPackets) return ctx.skip();
    expect(two.workerPackets.length).toBe(2);
    expect(two.workerPackets.reduce((x, y) => x + y, 0)).toBe(two.stats.packets);
    // a capture of one address pair falls on one worker, whichever it is
    if (one.hosts.length > 2) for (const n of two.workerPackets) expect(n).toBeGreaterThan(0);
  });
});

describe('the generated capture', () => {
  it('has what the comparisons need: many hosts and flows, IPv6, fragments, two VLANs', async () => {
    const r = await replay([tmp.file('many-check.pcap', pcap(generated()))], 1);
    expect(r.stats.num_hosts).toBeGreaterThan(300);
    expect(r.stats.num_flows).toBeGreaterThan(500);
    expect(r.stats.ipv6_packets).toBeGreaterThan(0);
    expect(r.stats.decode['decode.ip.fragments']).toBeGreaterThan(0);
    expect(r.stats.orphan_fragments).toBe(0);
    expect(new Set(r.flows.map((f) => f.vlan))).toEqual(new Set([0, 10, 20]));
    expect(r.hosts.filter((h) => normIp(h.ip) === '198.51.100.200').map((h) => h.vlan).sort()).toEqual([10, 20]);
    // names from DNS answers and SNIs, applications per host
    expect(r.hosts.filter((h) => h.name).length).toBeGreaterThan(20);
    expect(r.hosts.filter((h) => (h.ndpi ?? []).length > 1).length).toBeGreaterThan(20);
  });
});

// ---- the option --------------------------------------------------------------------------------

describe('workers option', () => {
  it('defaults to what the machine can spare, 1 to 16', () => {
    expect(defaultWorkers()).toBe(Math.min(16, Math.max(1, availableParallelism() - 1)));
    const e = new Engine({ files: [join(NDPI_PCAPS, 'NTPv4.pcap')] });
    expect(e.workers).toBe(defaultWorkers());
    e.close();
  });

  it('the engine refuses 0, 65 and fractions', () => {
    for (const workers of [0, 65, 1.5, -1]) expect(() => new Engine({ files: [join(NDPI_PCAPS, 'NTPv4.pcap')], workers })).toThrow(/workers/);
  });

  it('--workers: positive integers only; a replay with --workers 2 exits 0', () => {
    buildDist();
    const root = join(import.meta.dirname, '..');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'bin', 'flowgate.js'), ...args, '--exit-when-done', '--http-port', '0', '--egress-port', '0', '-q', '--data-dir', join(tmp.dir, 'data')], {
        cwd: root, encoding: 'utf8', timeout: 60_000,
      });
    const file = join(NDPI_PCAPS, 'NTPv4.pcap');
    for (const bad of ['0', '-2', '1.5', 'two']) {
      const r = run('-i', file, `--workers=${bad}`);
      expect(r.status, bad).not.toBe(0);
      expect(r.stderr).toMatch(/--workers must be an? (integer|number) >= 1/);
    }
    const ok = run('-i', file, '--workers', '2');
    expect([ok.status, ok.stderr]).toEqual([0, '']);
  });
});

// ---- host parts' lifetimes ---------------------------------------------------------------------
//
// A remote host R (idle limit 60 s) opens a one-shot flow to P0 at t = 0 and
// a long flow to P1 from t = 1 s, one datagram every 5 s until t = 130 s; a
// local pair chatters every 20 ms meanwhile so time and the sweeps move. P0
// is chosen so that R↔P0 and R↔P1 fall on different workers (the engine's
// spread: engine/spread.h, ported below): R's part on P0's worker sees
// nothing for 130 s. One worker keeps R all along, so must two: R's first
// seen is t = 0 and it opened 2 flows, while P0 and the flow to it expired.

const MASK64 = (1n << 64n) - 1n;
function mix64(x: bigint): bigint {
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return x ^ (x >> 31n);
}
/** engine/spread.h's worker of an IPv4 pair (addresses loaded as the engine's little-endian words). */
function spreadWorker(a: string, b: string, workers: number): number {
  const word = (ip: string) => BigInt(Buffer.from(ip.split('.').map(Number)).readUInt32LE(0));
  const h = (mix64(word(a)) + mix64(word(b))) & MASK64;
  return Number(((h >> 32n) * BigInt(workers)) >> 32n);
}

describe('a host active on one worker keeps its part on the other', () => {
  const R = '203.0.113.7', P1 = '198.51.100.1';
  const P0 = Array.from({ length: 64 }, (_, i) => `198.51.100.${100 + i}`).find((p) => spreadWorker(R, p, 2) !== spreadWorker(R, P1, 2))!;
  const dg = (src: string, dst: string, sport: number, dport: number) => frame(0, src, dst, ip(src, dst, IPPROTO.UDP, udp({ sport, dport }, Buffer.alloc(32, 1))), false);
  let one: Run, two: Run;
  beforeAll(async () => {
    const pkts: Packet[] = [];
    for (let ms = 0; ms <= 130_000; ms += 20) pkts.push({ tsNs: sec(T0 + ms / 1000), data: dg('192.168.7.1', '192.168.7.2', 7000, 7001) });
    pkts.push({ tsNs: sec(T0), data: dg(R, P0, 4000, 5000) });
    for (let t = 1; t <= 130; t += 5) pkts.push({ tsNs: sec(T0 + t + 0.001), data: dg(R, P1, 4001, 5001) });
    pkts.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
    const f = tmp.file('lifetimes.pcap', pcap(pkts));
    const idle: Partial<EngineOptionsInput> = { flowIdleSec: 60, remoteHostIdleSec: 60, localHostIdleSec: 300 };
    one = await replay([f], 1, idle);
    two = await replay([f], 2, idle);
  });

  it('the flows fall as the test needs: R↔P0 and R↔P1 on different workers', () => {
    expect(P0).toBeDefined();
    expect(two.workerPackets?.every((n) => n > 0)).toBe(true);
  });

  it('R keeps its first flow and first seen time; P0 and its flow expired', () => {
    for (const r of [one, two]) {
      const h = r.hosts.find((x) => x.ip === R);
      expect(h).toBeDefined();
      expect({ first_seen: h!.first_seen, total_flows_as_client: h!.total_flows_as_client, packets_sent: h!.packets_sent }).toEqual({
        first_seen: T0,
        total_flows_as_client: 2,
        packets_sent: 1 + 26,
      });
      expect(r.hosts.some((x) => x.ip === P0)).toBe(false);
      expect(r.flows.some((x) => x.server.ip === P0)).toBe(false);
      expect(r.stats.flows_expired).toBeGreaterThan(0);
    }
    expect(byKey(two.hosts, hostKey, hostFacts)).toEqual(byKey(one.hosts, hostKey, hostFacts));
    expect(byKey(two.flows, flowKey, flowFacts)).toEqual(byKey(one.flows, flowKey, flowFacts));
  });
});

// ---- one read of a file for every worker -------------------------------------------------------
//
// Workers of a playlist share its chunks (capture/shared_chunks.h): 8 MiB
// read once, overlapping by the longest record. A 20 MB capture (records of
// every size, so records fall across every chunk boundary), the same cut
// short in its third chunk (a replay that ends with an error), and a
// playlist of two files: two workers must read exactly what one reads.

describe('a file read once for all workers', () => {
  const big = () => {
    const r = mulberry32(7);
    const pkts: Packet[] = [];
    for (let i = 0; pkts.length < 40_000; i++) {
      const c = `10.9.${(i >> 8) & 255}.${i & 255}`, s = `198.18.${i % 7}.${1 + (i % 200)}`;
      const len = 20 + Math.floor(r() * 1400);
      pkts.push({ tsNs: sec(T0 + pkts.length * 0.001), data: dg(c, s, 10000 + (i % 50_000), 4433, len) });
      if (i % 3 === 0) pkts.push({ tsNs: sec(T0 + pkts.length * 0.001), data: dg(s, c, 4433, 10000 + (i % 50_000), 40) });
    }
    return pcap(pkts);
  };
  const dg = (src: string, dst: string, sport: number, dport: number, n: number) =>
    frame(0, src, dst, ip(src, dst, IPPROTO.UDP, udp({ sport, dport }, Buffer.alloc(n, 0x61))), false);
  const read = async (files: string[], workers: number) => {
    const e = new Engine({ files, workers, ...KEEP, maxFlows: 1 << 17, maxHosts: 1 << 16 });
    try {
      e.start();
      const st = await e.waitDone();
      const s = e.stats();
      return { state: st.state, error: st.error, packets: s.packets, bytes: s.bytes, flows: s.flows_created, hosts: s.num_hosts, malformed: s.malformed };
    } finally {
      e.close();
    }
  };

  it('a capture of three chunks, the same cut short, and a playlist: what one worker reads', async () => {
    const data = big();
    expect(data.length).toBeGreaterThan(20_000_000);  // three 8 MiB chunks
    const whole = tmp.file('big.pcap', data);
    const cut = tmp.file('cut.pcap', data.subarray(0, 17_500_003));  // mid-record, in the third chunk
    const small = join(NDPI_PCAPS, '1kxun.pcap');
    for (const files of [[whole], [cut], [whole, small]]) {
      const one = await read(files, 1), two = await read(files, 2);
      expect(two).toEqual(one);
      expect(one.packets).toBeGreaterThan(10_000);
    }
    const c = await read([cut], 2);
    expect(c.error).toMatch(/truncated/);
  });
});
