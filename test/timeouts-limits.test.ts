// Flow life cycle on hand-built captures: idle and lifetime expiry, table
// limits, who is the client, TCP sequence analysis, determinism and local
// networks. Every expected number is computed by hand from the frames below.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import type { EngineOptionsInput, ExpiredFlow } from '../ts/bindings/engine.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, echo, eth, icmp, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';
import { type RunResult, runEngine, NDPI_PCAPS } from './fixtures/util.js';

const T0 = 1_700_000_000; // capture start, epoch seconds
const tmp = tempDir();
afterAll(() => tmp.cleanup());

let fileNo = 0;
async function run(packets: Packet[], opts: Partial<EngineOptionsInput> = {}): Promise<RunResult> {
  const f = tmp.file(`c${fileNo++}.pcap`, pcap(packets));
  const r = await runEngine([f], opts);
  expect(r.st).toMatchObject({ state: 'done', error: null });
  return r;
}

/** A UDP/IPv4 frame of exactly 42 + n bytes at T0 + t seconds. */
function u4(t: number, src: string, sport: number, dst: string, dport: number, n = 10, vlan = 0): Packet {
  const ip = ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(n, 0x61)));
  const data = vlan ? eth(MAC_B, MAC_A, ETH.VLAN, Buffer.concat([Buffer.from([vlan >> 8, vlan & 255, 0x08, 0x00]), ip])) : eth(MAC_B, MAC_A, ETH.IPV4, ip);
  return { tsNs: sec(T0 + t), data };
}

/** A TCP/IPv4 frame of exactly 54 + n bytes. */
function t4(t: number, src: string, sport: number, dst: string, dport: number, flags: number, seq: number, n = 0, payload?: Buffer): Packet {
  const ip = ipv4({ src, dst, proto: IPPROTO.TCP, df: true }, tcp({ sport, dport, flags, seq, ack: 1 }, payload ?? Buffer.alloc(n, 0x62)));
  return { tsNs: sec(T0 + t), data: eth(MAC_B, MAC_A, ETH.IPV4, ip) };
}

const ns = (t: number) => sec(T0 + t);

describe('idle timeout', () => {
  // Flow A (10.0.0.1:1111 -> 10.0.0.2:53): 2 requests of 42+10 and 42+30 bytes, 1 answer
  // of 42+100 bytes, in the first 0.2 s. Then 70 s in which only flow B talks (one
  // 42+20-byte packet every 0.1 s: 701 packets, enough for the engine's periodic sweep).
  const flowA = [
    u4(0, '10.0.0.1', 1111, '10.0.0.2', 53, 10),
    u4(0.1, '10.0.0.2', 53, '10.0.0.1', 1111, 100),
    u4(0.2, '10.0.0.1', 1111, '10.0.0.2', 53, 30),
  ];
  const filler = (from: number, to: number) => {
    const out: Packet[] = [];
    for (let i = 0; from + i * 0.1 <= to + 1e-9; i++) out.push(u4(from + i * 0.1, '10.0.0.3', 2222, '10.0.0.4', 53, 20));
    return out;
  };
  const expectA = (x: ExpiredFlow) =>
    expect(x).toMatchObject({
      cli_ip: '10.0.0.1', cli_port: 1111, srv_ip: '10.0.0.2', srv_port: 53, proto: 17, vlan: 0, ip_version: 4,
      cli2srv_pkts: 2, cli2srv_bytes: 52 + 72, srv2cli_pkts: 1, srv2cli_bytes: 142,
      first_ns: ns(0), last_ns: ns(0.2), reason: 'idle', tunnel: 0,
    });

  it('a flow silent for longer than flowIdleSec is expired (reason idle, exact counters) and leaves flows()', async () => {
    const r = await run([...flowA, ...filler(1, 71)], { flowIdleSec: 60 });
    expect(r.expired.length).toBe(1);
    expectA(r.expired[0]!);
    expect(r.flows.map((f) => `${f.client.ip}:${f.client.port}`)).toEqual(['10.0.0.3:2222']);
    expect(r.flows[0]!.cli2srv_packets).toBe(701);
    expect(r.stats.flows_created).toBe(2);
    expect(r.stats.flows_expired).toBe(1);
    expect(r.stats.num_flows).toBe(1);
  });

  it('with a huge flowIdleSec nothing expires', async () => {
    const r = await run([...flowA, ...filler(1, 71)], { flowIdleSec: 1e10 });
    expect(r.expired).toEqual([]);
    expect(r.flows.length).toBe(2);
  });

  it('a packet after the timeout starts a new flow; the old one keeps its counters', async () => {
    const late = u4(101, '10.0.0.1', 1111, '10.0.0.2', 53, 40);
    const r = await run([...flowA, ...filler(1, 100), late], { flowIdleSec: 60 });
    expect(r.expired.length).toBe(1);
    expectA(r.expired[0]!);
    const a = r.flows.find((f) => f.client.ip === '10.0.0.1')!;
    expect(a).toMatchObject({ cli2srv_packets: 1, cli2srv_bytes: 82, srv2cli_packets: 0, first_seen_ns: Number(ns(101)), last_seen_ns: Number(ns(101)) });
    expect(a.hash_id).toBeGreaterThan(r.expired[0]!.serial);
  });

  it('hosts of an expired flow go once idle for localHostIdleSec', async () => {
    const r = await run([...flowA, ...filler(1, 71)], { flowIdleSec: 60, localHostIdleSec: 30 });
    expect(r.hosts.map((h) => h.ip).sort()).toEqual(['10.0.0.3', '10.0.0.4']);
    expect(r.stats.hosts_expired).toBe(2);
  });

  it('the sweep walks only the slots in use, up to the last one handed out, in a table of 4 M slots', async () => {
    // The filler takes slot 0; fifty short flows between hosts of their own take
    // slots 1 … 50 (the highest handed out). All fifty go idle while the filler
    // talks on: each is expired by the sweep (no later packet of its own), the
    // one in the top slot too, and so are their hundred hosts.
    const short = Array.from({ length: 50 }, (_, i) => u4(0.5 + i * 0.001, `10.1.0.${i + 1}`, 3000 + i, `10.2.0.${i + 1}`, 53, 10));
    const r = await run([u4(0, '10.0.0.3', 2222, '10.0.0.4', 53, 20), ...short, ...filler(1, 130)], { maxFlows: 1 << 22, flowIdleSec: 60, localHostIdleSec: 30 });
    expect(r.expired.map((x) => x.cli_ip).sort()).toEqual(short.map((_, i) => `10.1.0.${i + 1}`).sort());
    expect(r.expired.every((x) => x.reason === 'idle')).toBe(true);
    expect(r.stats.hosts_expired).toBe(100);
    expect(r.hosts.map((h) => h.ip).sort()).toEqual(['10.0.0.3', '10.0.0.4']);
  });

  it('a packet after the timeout starts a new flow, also within one read batch', async () => {
    const r = await run([...flowA, u4(100, '10.0.0.3', 2222, '10.0.0.4', 53, 20), u4(101, '10.0.0.1', 1111, '10.0.0.2', 53, 40)], { flowIdleSec: 60 });
    expect(r.expired.length).toBe(1);
    expectA(r.expired[0]!);
    const a = r.flows.find((f) => f.client.ip === '10.0.0.1')!;
    expect(a).toMatchObject({ cli2srv_packets: 1, cli2srv_bytes: 82, srv2cli_packets: 0 });
  });
});

describe('lifetime', () => {
  // One UDP flow, 200 packets per second for 35 s (7001 packets of 52 bytes), lifetime 10 s.
  const long: Packet[] = [];
  for (let i = 0; i <= 7000; i++) long.push(u4(i * 0.005, '10.0.0.5', 5000, '10.0.0.6', 6000, 10));

  it('flowLifetimeSec splits a long flow into consecutive pieces that add up to it', async () => {
    const r = await run(long, { flowLifetimeSec: 10, flowIdleSec: 1e10 });
    const pieces = r.expired;
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    for (const p of pieces) {
      expect(p).toMatchObject({ reason: 'lifetime', cli_ip: '10.0.0.5', cli_port: 5000, srv_ip: '10.0.0.6', srv_port: 6000, srv2cli_pkts: 0 });
      expect(p.cli2srv_bytes).toBe(52 * p.cli2srv_pkts);
      const dur = Number(p.last_ns - p.first_ns) / 1e9;
      // Split once older than 10 s; the sweep passes every entry within 5 s of engine
      // time, run after each read batch (256 packets here: 1.28 s).
      expect(dur).toBeGreaterThanOrEqual(10 - 0.005);
      expect(dur).toBeLessThanOrEqual(10 + 5 + 1.28);
    }
    // The pieces and the current flow partition the packets, in order, with no gap.
    expect(r.flows.length).toBe(1);
    const cur = r.flows[0]!;
    // (flows() gives ns as a JS number, exact to ~256 ns at today's epoch; expired records as bigint.)
    const spans = [...pieces.map((p) => [Number(p.first_ns), Number(p.last_ns), p.cli2srv_pkts]), [cur.first_seen_ns, cur.last_seen_ns, cur.cli2srv_packets]];
    expect(spans.reduce((s, x) => s + x[2]!, 0)).toBe(7001);
    expect(pieces[0]!.first_ns).toBe(ns(0));
    expect(Math.abs(cur.last_seen_ns - Number(ns(35)))).toBeLessThan(1024);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i]!.first_ns - pieces[i - 1]!.last_ns).toBe(5_000_000n);
    expect(Math.abs(cur.first_seen_ns - Number(pieces.at(-1)!.last_ns) - 5_000_000)).toBeLessThan(1024);
    for (const [first, last, pkts] of spans) expect(Math.round((last! - first!) / 5_000_000) + 1).toBe(pkts);
    expect(new Set(pieces.map((p) => p.serial)).size).toBe(pieces.length);
  });

  it('without a lifetime the flow stays whole', async () => {
    const r = await run(long, { flowIdleSec: 1e10 });
    expect(r.expired).toEqual([]);
    expect(r.flows[0]!.cli2srv_packets).toBe(7001);
  });

  it('flowLifetimeSec also splits a flow that fits in one read batch', async () => {
    const short: Packet[] = [];
    for (let i = 0; i <= 30; i++) short.push(u4(i, '10.0.0.5', 5000, '10.0.0.6', 6000, 10));
    const r = await run(short, { flowLifetimeSec: 10, flowIdleSec: 1e10 });
    expect(r.expired.length).toBeGreaterThanOrEqual(2);
  });

  it('flushAtEnd expires every remaining flow with reason flushed', async () => {
    const r = await run([...long.slice(0, 10), u4(1, '10.9.9.9', 1, '10.9.9.8', 2, 10)], { flushAtEnd: true });
    expect(r.flows).toEqual([]);
    expect(r.expired.map((x) => [x.reason, x.cli_ip, x.cli2srv_pkts]).sort()).toEqual([
      ['flushed', '10.0.0.5', 10],
      ['flushed', '10.9.9.9', 1],
    ]);
  });
});

describe('table limits', () => {
  // 10 UDP flows between distinct hosts 10.2.0.<2i+1> -> 10.2.0.<2i+2>, 3 rounds, interleaved.
  const tenFlows: Packet[] = [];
  for (let round = 0; round < 3; round++)
    for (let i = 0; i < 10; i++) tenFlows.push(u4(round + i * 0.01, `10.2.0.${2 * i + 1}`, 1000 + i, `10.2.0.${2 * i + 2}`, 53, 10));

  it('maxFlows 4: four flows, and every packet of the other six is refused', async () => {
    const r = await run(tenFlows, { maxFlows: 4 });
    expect(r.stats.max_flows).toBe(4);
    expect(r.stats.num_flows).toBe(4);
    expect(r.flows.map((f) => f.client.port).sort()).toEqual([1000, 1001, 1002, 1003]);
    for (const f of r.flows) expect([f.cli2srv_packets, f.cli2srv_bytes]).toEqual([3, 3 * 52]);
    expect(r.stats.flow_table_full).toBe(6 * 3);
    expect(r.stats.flows_created).toBe(4);
    // Refused packets are still IP packets of the interface, but belong to no host.
    expect(r.stats.ip_packets).toBe(30);
    expect(r.hosts.length).toBe(8);
    expect(r.hosts.reduce((s, h) => s + h.packets_sent, 0)).toBe(12);
  });

  // 40 HTTP requests (a flow each, distinct client ports): each asks the
  // classifier for a FlowInfo entry, and HTTP for a metadata entry (host, URL, User-Agent).
  const request = (i: number) => {
    const get = Buffer.from(`GET /${i} HTTP/1.1\r\nHost: host${i}.example.org\r\nUser-Agent: curl/8.0\r\n\r\n`);
    return t4(i * 0.01, '10.3.0.1', 20000 + i, '10.3.0.80', 80, TCPF.PSH | TCPF.ACK, 1, 0, get);
  };
  const forty = Array.from({ length: 40 }, (_, i) => request(i));

  it('the classifier pools are shares of the flow table: ceil(maxFlows × share) + 16 entries, the rest refused and counted', async () => {
    // 1024 × 1/1024 + 16 = 17 entries: 23 of the 40 flows get no FlowInfo (and so no metadata either)
    let r = await run(forty, { maxFlows: 1024, flowInfoShare: 1 / 1024 });
    expect(r.stats.flow_info_full).toBe(23);
    expect(r.stats.flow_meta_full).toBe(0);
    // every flow has its FlowInfo; 17 metadata entries: 23 queries not kept
    r = await run(forty, { maxFlows: 1024, flowInfoShare: 1, flowMetaShare: 1 / 1024 });
    expect(r.stats.flow_info_full).toBe(0);
    expect(r.stats.flow_meta_full).toBe(23);
    expect(r.flows.filter((f) => f.http?.url).length).toBe(17);
    // the whole table: nothing refused
    r = await run(forty, { maxFlows: 1024, flowInfoShare: 1, flowMetaShare: 1 });
    expect([r.stats.flow_info_full, r.stats.flow_meta_full]).toEqual([0, 0]);
    expect(r.flows).toHaveLength(40);
    // and every flow kept its request's metadata
    expect(r.flows.map((f) => `${f.http?.url} ${f.http?.user_agent}`).sort()).toEqual(forty.map((_, i) => `/${i} curl/8.0`).sort());
  });

  it("the local hosts' side pools are a share of the host table (at least 64 entries); hosts beyond it go without, counted", async () => {
    // 100 local hosts each send one echo request to a remote address: each asks for an ICMP entry
    const pings = Array.from({ length: 100 }, (_, i) => ({
      tsNs: sec(T0 + i * 0.01),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: `10.5.0.${i + 1}`, dst: '192.0.2.1', proto: IPPROTO.ICMP }, icmp(8, 0, echo(1, i)))),
    }));
    // 64 entries per pool: 36 hosts find no ICMP entry at their packet and no
    // behaviour entry at the minute's tick (the replay's end), one request each
    let r = await run(pings, { maxHosts: 1024, hostSideShare: 1 / 1024 });
    expect(r.stats.host_side_full).toBe(36 * 2);
    r = await run(pings, { maxHosts: 1024, hostSideShare: 1 });
    expect(r.stats.host_side_full).toBe(0);
  });

  it("by default the pools hold every flow's and host's state, and their memory follows what is used", async () => {
    // 64 flow slots: the former defaults (5/16 and 1/32 of the table, + 16)
    // kept 36 FlowInfo and 18 metadata entries, so 4 and 22 of the 40 refused
    let r = await run(forty, { maxFlows: 64 });
    expect([r.stats.flow_info_full, r.stats.flow_meta_full]).toEqual([0, 0]);
    expect(r.flows.filter((f) => f.http?.url)).toHaveLength(40);
    // A table of 2^18 flows: faulted in at start, every reserved byte is
    // resident — at least the flow entries (192 B), FlowInfo (64 B) and
    // metadata (256 B) of every slot; left to fault on use, the 40 flows
    // touch a page (a 2 MiB huge page at most) per pool array and a few of
    // the index, under the side arrays' 28 B per slot (zeroed whole) + 20 MiB.
    const slots = 2 ** 18;
    const hot = await run(forty, { maxFlows: slots, prefault: true });
    expect(hot.stats.flow_memory_bytes).toBeGreaterThan(slots * (192 + 64 + 256));
    const cold = await run(forty, { maxFlows: slots });
    expect(cold.stats.flow_memory_bytes).toBeLessThan(slots * 28 + 20 * 2 ** 20);
    expect(cold.flows).toHaveLength(40);
    // more flows, more pages: 2,000 requests touch at least their entries
    const many = Array.from({ length: 2000 }, (_, i) => request(i));
    r = await run(many, { maxFlows: slots });
    expect(r.flows).toHaveLength(2000);
    expect(r.stats.flow_memory_bytes).toBeGreaterThan(cold.stats.flow_memory_bytes + 2000 * (192 + 64 + 256) - 3 * 2 * 2 ** 20);
  });

  it('a table rebuilt larger grows the pools that are shares of it: flows past the old size keep their DPI state', async () => {
    const { Engine } = await import('../ts/bindings/engine.js');
    // 40 requests in minute 0, 40 more in minute 1; a table of 48 flows (pools
    // of 48 + 16 entries), doubled to 4096 at the minute's tick: the 80 flows
    // need 80 FlowInfo and 80 metadata entries
    const later = Array.from({ length: 40 }, (_, i) => ({ ...request(100 + i), tsNs: request(100 + i).tsNs + sec(60) - sec(0) }));
    const f = tmp.file(`c${fileNo++}.pcap`, pcap([...forty, ...later]));
    const e = new Engine({ files: [f], maxFlows: 48, flowIdleSec: 1e9 });
    // the first minute boundary (T0 + 40 s: boundaries are multiples of 60 s) falls between the two halves
    let grown = 0;
    e.onTick((boundary) => {
      if (!grown) e.setLimits({ maxFlows: 4096 }), (grown = boundary);
    });
    e.start();
    expect((await e.waitDone()).state).toBe('done');
    expect(grown).toBe(T0 + 40);
    const s = e.stats();
    expect([s.max_flows, s.num_flows, s.flow_table_full]).toEqual([4096, 80, 0]);
    expect([s.flow_info_full, s.flow_meta_full]).toEqual([0, 0]);
    const urls = e.flows({ limit: 1000 }).rows.map((r) => r.http?.url).sort();
    expect(urls).toEqual([...Array.from({ length: 40 }, (_, i) => `/${i}`), ...Array.from({ length: 40 }, (_, i) => `/${100 + i}`)].sort());
    e.close();
  });

  it('pool shares and the MAC table size are validated', async () => {
    const { Engine } = await import('../ts/bindings/engine.js');
    for (const bad of [{ flowInfoShare: 0 }, { flowMetaShare: 1.5 }, { maxMacs: 0 }, { hostSideShare: 0 }])
      expect(() => new Engine({ files: [join(NDPI_PCAPS, 'dns.pcap')], ...bad })).toThrow(/flowInfoShare|flowMetaShare|maxMacs|hostSideShare/);
  });

  it('maxMacs 2: two devices, the others refused and counted', async () => {
    const frames = [0, 1, 2, 3].map((i) => ({ tsNs: sec(T0 + i), data: eth(Buffer.from([2, 0, 0, 0, 1, i]), Buffer.from([2, 0, 0, 0, 2, i]), ETH.IPV4, ipv4({ src: `10.4.0.${i + 1}`, dst: '10.4.1.1', proto: IPPROTO.UDP }, udp({ sport: 999, dport: 53 }, Buffer.alloc(4)))) }));
    const r = await run(frames, { maxMacs: 2 });
    expect(r.stats.num_devices).toBe(2);
    expect(r.stats.mac_table_full).toBeGreaterThan(0);
  });

  it('maxHosts 4: flows are kept, hosts beyond the limit are refused at flow creation', async () => {
    // Flows 0 and 1 take the 4 host entries; flows 2..9 each fail both lookups; flow 10
    // (10.2.0.1 -> 10.2.0.99) finds its client and fails its server.
    const extra = u4(5, '10.2.0.1', 1100, '10.2.0.99', 53, 10);
    const r = await run([...tenFlows, extra], { maxHosts: 4 });
    expect(r.stats.max_hosts).toBe(4);
    expect(r.stats.num_hosts).toBe(4);
    expect(r.hosts.map((h) => h.ip).sort()).toEqual(['10.2.0.1', '10.2.0.2', '10.2.0.3', '10.2.0.4']);
    expect(r.stats.host_table_full).toBe(8 * 2 + 1);
    expect(r.flows.length).toBe(11);
    expect(r.flows.reduce((s, f) => s + f.packets, 0)).toBe(31);
    const h1 = r.hosts.find((h) => h.ip === '10.2.0.1')!;
    expect([h1.packets_sent, h1.bytes_sent, h1.total_flows_as_client]).toEqual([4, 4 * 52, 2]);
  });
});

describe('client and server', () => {
  it('the first SYN sender is the client', async () => {
    const r = await run([t4(0, '10.3.0.1', 40000, '10.3.0.2', 80, TCPF.SYN, 100), t4(0.1, '10.3.0.2', 80, '10.3.0.1', 40000, TCPF.SYN | TCPF.ACK, 500)]);
    expect(r.flows[0]).toMatchObject({ client: { ip: '10.3.0.1', port: 40000 }, server: { ip: '10.3.0.2', port: 80 }, cli2srv_tcp_flags: TCPF.SYN, srv2cli_tcp_flags: TCPF.SYN | TCPF.ACK });
  });

  it('a flow whose first packet is a SYN-ACK has the SYN-ACK destination as client', async () => {
    const r = await run([
      t4(0, '10.3.0.2', 80, '10.3.0.1', 40001, TCPF.SYN | TCPF.ACK, 500),
      t4(0.1, '10.3.0.1', 40001, '10.3.0.2', 80, TCPF.ACK, 101),
      t4(0.2, '10.3.0.1', 40001, '10.3.0.2', 80, TCPF.ACK | TCPF.PSH, 101, 20),
    ]);
    expect(r.flows.length).toBe(1);
    expect(r.flows[0]).toMatchObject({
      client: { ip: '10.3.0.1', port: 40001 }, server: { ip: '10.3.0.2', port: 80 },
      cli2srv_packets: 2, cli2srv_bytes: 54 + 74, srv2cli_packets: 1, srv2cli_bytes: 54,
      srv2cli_tcp_flags: TCPF.SYN | TCPF.ACK, cli2srv_tcp_flags: TCPF.ACK | TCPF.PSH,
    });
  });

  it("a TCP flow first seen mid-stream has the higher port as client, whoever sent first (ntopng's Flow::check_swap)", async () => {
    const r = await run([t4(0, '10.3.0.2', 443, '10.3.0.1', 50000, TCPF.ACK | TCPF.PSH, 7000, 100), t4(0.1, '10.3.0.1', 50000, '10.3.0.2', 443, TCPF.ACK, 9000)]);
    expect(r.flows[0]).toMatchObject({ client: { ip: '10.3.0.1', port: 50000 }, server: { ip: '10.3.0.2', port: 443 }, cli2srv_packets: 1, cli2srv_bytes: 54, srv2cli_packets: 1, srv2cli_bytes: 154 });
  });

  it('a UDP flow has its first sender as client', async () => {
    const r = await run([u4(0, '10.3.0.9', 53, '10.3.0.8', 33333, 50), u4(1, '10.3.0.8', 33333, '10.3.0.9', 53, 20)]);
    expect(r.flows[0]).toMatchObject({ client: { ip: '10.3.0.9', port: 53 }, server: { ip: '10.3.0.8', port: 33333 }, cli2srv_bytes: 92, srv2cli_bytes: 62 });
    const h = r.hosts.find((x) => x.ip === '10.3.0.9')!;
    expect([h.total_flows_as_client, h.total_flows_as_server, h.active_flows_as_client]).toEqual([1, 0, 1]);
  });
});

describe('TCP sequence analysis (flow_table.cpp tcp_seq_update, after ntopng)', () => {
  const C = '10.4.0.1', S = '10.4.0.2';
  const c = (t: number, flags: number, seq: number, n = 0) => t4(t, C, 41000, S, 80, flags, seq, n);
  const s = (t: number, flags: number, seq: number, n = 0) => t4(t, S, 80, C, 41000, flags, seq, n);
  const D = TCPF.ACK | TCPF.PSH;
  const handshake = [c(0, TCPF.SYN, 999), s(0.01, TCPF.SYN | TCPF.ACK, 4999), c(0.02, TCPF.ACK, 1000)];

  async function analyse(packets: Packet[]) {
    const r = await run(packets);
    expect(r.flows.length).toBe(1);
    const f = r.flows[0]!;
    return { f, st: r.stats.tcpPacketStats, cli: r.hosts.find((h) => h.ip === C)!, srv: r.hosts.find((h) => h.ip === S)! };
  }

  it('in-order data counts nothing', async () => {
    const { f, st } = await analyse([...handshake, c(1, D, 1000, 100), c(2, D, 1100, 100), s(3, D, 5000, 50), s(4, D, 5050, 50)]);
    expect(f.tcp).toMatchObject({ retransmissions: { cli2srv: 0, srv2cli: 0 }, out_of_order: { cli2srv: 0, srv2cli: 0 }, lost: { cli2srv: 0, srv2cli: 0 } });
    expect(st).toEqual({ retransmissions: 0, out_of_order: 0, lost: 0, keep_alive: 0 });
  });

  it('the same segment twice is one retransmission (client to server)', async () => {
    // seg 1000+100 -> expect 1100; seq 1000 again: not expected, equals the previous seq.
    const { f, st, cli, srv } = await analyse([...handshake, c(1, D, 1000, 100), c(2, D, 1000, 100)]);
    expect(f.tcp.retransmissions).toEqual({ cli2srv: 1, srv2cli: 0 });
    expect(f.tcp.out_of_order).toEqual({ cli2srv: 0, srv2cli: 0 });
    expect(f.tcp.lost).toEqual({ cli2srv: 0, srv2cli: 0 });
    expect(st).toEqual({ retransmissions: 1, out_of_order: 0, lost: 0, keep_alive: 0 });
    expect(cli.tcpPacketStats.sent.retransmissions).toBe(1);
    expect(srv.tcpPacketStats.rcvd.retransmissions).toBe(1);
  });

  it('a server retransmission counts srv2cli', async () => {
    const { f, st } = await analyse([...handshake, s(1, D, 5000, 300), s(1.5, D, 5000, 300)]);
    expect(f.tcp.retransmissions).toEqual({ cli2srv: 0, srv2cli: 1 });
    expect(st.retransmissions).toBe(1);
  });

  it('a segment beyond the expected one is out of order', async () => {
    // 1000+100 -> expect 1100; 1200 arrives (1100 missing): above both -> out of order.
    const { f, st } = await analyse([...handshake, c(1, D, 1000, 100), c(2, D, 1200, 100)]);
    expect(f.tcp.out_of_order).toEqual({ cli2srv: 1, srv2cli: 0 });
    expect(f.tcp.retransmissions.cli2srv + f.tcp.lost.cli2srv).toBe(0);
    expect(st).toEqual({ retransmissions: 0, out_of_order: 1, lost: 0, keep_alive: 0 });
  });

  it('a segment below both the previous and the expected one is lost', async () => {
    // 1000+100, 1100+100 -> previous 1100, expect 1200; 1050 arrives: below both -> lost.
    const { f, st } = await analyse([...handshake, c(1, D, 1000, 100), c(2, D, 1100, 100), c(3, D, 1050, 100)]);
    expect(f.tcp.lost).toEqual({ cli2srv: 1, srv2cli: 0 });
    expect(f.tcp.retransmissions.cli2srv + f.tcp.out_of_order.cli2srv).toBe(0);
    expect(st).toEqual({ retransmissions: 0, out_of_order: 0, lost: 1, keep_alive: 0 });
  });

  it('a late segment after a gap: out of order, then lost', async () => {
    // 1000, 1200 (ooo, previous becomes 1200), then 1100: below previous 1200 and expected 1300 -> lost.
    const { f } = await analyse([...handshake, c(1, D, 1000, 100), c(2, D, 1200, 100), c(3, D, 1100, 100)]);
    expect([f.tcp.out_of_order.cli2srv, f.tcp.lost.cli2srv, f.tcp.retransmissions.cli2srv]).toEqual([1, 1, 0]);
  });

  it('a 0-byte segment one below the expected sequence is a keep-alive', async () => {
    const { f, st, cli } = await analyse([...handshake, c(1, D, 1000, 100), c(2, TCPF.ACK, 1099, 0)]);
    expect(st).toEqual({ retransmissions: 0, out_of_order: 0, lost: 0, keep_alive: 1 });
    expect(f.tcp.retransmissions.cli2srv + f.tcp.out_of_order.cli2srv + f.tcp.lost.cli2srv).toBe(0);
    expect(cli.tcpPacketStats.sent.keep_alive).toBe(1);
  });
});

describe('determinism', () => {
  it.each(['1kxun.pcap', 'KakaoTalk_talk.pcap', 'alexa-app.pcapng'])('replaying %s twice gives identical flows, hosts and stats', async (name) => {
    const f = join(NDPI_PCAPS, name);
    const opts = { flowIdleSec: 30, localHostIdleSec: 60, remoteHostIdleSec: 30 };
    const a = await runEngine([f], opts);
    const b = await runEngine([f], opts);
    expect(b.flows).toEqual(a.flows);
    expect(b.hosts).toEqual(a.hosts);
    expect(b.expired).toEqual(a.expired);
    expect(b.stats).toEqual(a.stats);
    expect(a.flows.length).toBeGreaterThan(0);
  });
});

describe('local networks', () => {
  // 10.1.0.0/16 is local; 10.2.0.0/16 and 192.168.0.0/16 (local by default) are not.
  const L1 = '10.1.0.1', L2 = '10.1.7.2', R1 = '10.2.0.1', R2 = '192.168.1.1';
  const packets = [
    u4(0, L1, 1000, R1, 53, 10), // local -> remote: 52 B
    u4(0.1, R1, 53, L1, 1000, 100), // remote -> local: 142 B
    u4(0.2, L1, 1001, L2, 80, 20), // local -> local: 62 B
    u4(0.3, R2, 1002, R1, 80, 30), // remote -> remote: 72 B
    u4(0.4, R2, 1003, L2, 80, 40), // remote -> local: 82 B
    u4(0.5, L2, 80, R2, 1003, 50), // local -> remote: 92 B
    u4(0.6, L1, 1000, R1, 53, 60), // local -> remote: 102 B
  ];
  const opts = { localNetworks: ['10.1.0.0/16'] };

  it('hosts inside the local networks are local, the others are not', async () => {
    const r = await run(packets, opts);
    const local = Object.fromEntries(r.hosts.map((h) => [h.ip, h.localhost]));
    expect(local).toEqual({ [L1]: true, [L2]: true, [R1]: false, [R2]: false });
    expect(r.stats.num_local_hosts).toBe(2);
    const f = r.flows.find((x) => x.client.ip === L1 && x.server.ip === R1)!;
    expect([f.client.localhost, f.server.localhost]).toEqual([true, false]);
    expect(r.hosts.find((h) => h.ip === R2)!.privatehost).toBe(true);
  });

  it('local2remote, remote2local, local2local, remote2remote and upload/download are the hand sums', async () => {
    const r = await run(packets, opts);
    expect(r.stats.local2remote).toBe(52 + 92 + 102);
    expect(r.stats.remote2local).toBe(142 + 82);
    expect(r.stats.local2local).toBe(62);
    expect(r.stats.remote2remote).toBe(72);
    expect([r.stats.packets_upload, r.stats.bytes_upload]).toEqual([3, 52 + 92 + 102]);
    expect([r.stats.packets_download, r.stats.bytes_download]).toEqual([2, 142 + 82]);
  });

  it('with the default networks every address above is local', async () => {
    const r = await run(packets);
    expect(r.hosts.every((h) => h.localhost)).toBe(true);
    expect(r.stats.local2local).toBe(52 + 142 + 62 + 72 + 82 + 92 + 102);
    expect(r.stats.local2remote + r.stats.remote2local + r.stats.remote2remote).toBe(0);
  });

  it('an IPv6 local network', async () => {
    const v6 = (t: number, src: string, dst: string, n: number): Packet => ({
      tsNs: ns(t),
      data: eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.UDP }, udp({ sport: 5000, dport: 53 }, Buffer.alloc(n)))),
    });
    const r = await run([v6(0, '2001:db8:1::1', '2001:db8:2::1', 10), v6(1, '2001:db8:2::1', '2001:db8:1::1', 20)], { localNetworks: ['2001:db8:1::/48'] });
    const local = Object.fromEntries(r.hosts.map((h) => [h.ip, h.localhost]));
    expect(local).toEqual({ '2001:db8:1::1': true, '2001:db8:2::1': false });
    expect(r.stats.local2remote).toBe(62 + 10);
    expect(r.stats.remote2local).toBe(62 + 20);
  });
});
