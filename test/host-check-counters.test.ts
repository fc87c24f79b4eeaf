// ntopng's packet-counting host checks measured by the engine
// (native/src/flow/host_checks.h): SYN scan, FIN scan, RST scan, flow flood
// and ICMP flood hits per host and minute of packet time, read with
// Engine.hostCheckHits() in the tick listener. The capture is built here with
// each packet placed at a chosen millisecond; every expected figure below is
// worked out by hand from those frames (the comments show the sums), and the
// SYN / SYN-ACK counts per host are also taken from tshark.
import { afterAll, describe, expect, it } from 'vitest';

import { Engine, type EngineOptionsInput, type HostCheckHits, type HostCheckName } from '../ts/bindings/engine.js';
import { FLOW_HITS_CHECKS } from '../ts/services/alerts/types.js';
import { DNS_RESPONSE, dns, dnsName, dnsPtr, ipRdata } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, echo, eth, icmp, icmpv6, ipv4, ipv6, tcp, udp, vlanTag } from './fixtures/frames.js';
import { type Packet, pcap, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** T0 (a minute boundary) + ms milliseconds, in ns. */
const at = (ms: number) => BigInt(T0) * 1_000_000_000n + BigInt(ms) * 1_000_000n;

const v4 = (ms: number, src: string, dst: string, proto: number, l4: Buffer): Packet => ({ tsNs: at(ms), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4)) });
const tcpPkt = (ms: number, src: string, sport: number, dst: string, dport: number, flags: number, payload?: Buffer) =>
  v4(ms, src, dst, IPPROTO.TCP, tcp({ sport, dport, flags }, payload));
const udpPkt = (ms: number, src: string, sport: number, dst: string, dport: number) => v4(ms, src, dst, IPPROTO.UDP, udp({ sport, dport }, Buffer.alloc(20, 1)));
const ping = (ms: number, src: string, dst: string, seq: number) => v4(ms, src, dst, IPPROTO.ICMP, icmp(8, 0, echo(7, seq)));
const ping6 = (ms: number, src: string, dst: string, seq: number, vlan: number): Packet => ({
  tsNs: at(ms),
  data: eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(vlan, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.ICMPV6 }, icmpv6(128, 0, echo(9, seq))))),
});

const { SYN, ACK, FIN, RST, PSH, ECE, CWR } = TCPF;

// The hosts: one pair per behaviour. The scanner is a public address (not local).
const S = '203.0.113.5', T = '10.1.0.2'; //   SYN scan (T answers RST|ACK)
const C = '10.2.0.1', V = '10.2.0.2'; //      normal handshakes
const E = '10.3.0.1', F = '10.3.0.2'; //      SYNs with ECE|CWR (ECN setup)
const X = '10.4.0.1', Y = '10.4.0.2'; //      FIN scan
const R = '10.5.0.1', U = '10.5.0.2'; //      RST bursts
const P = '10.6.0.1', Q = '10.6.0.2'; //      ICMP flood
const P6 = 'fd00::6:1', Q6 = 'fd00::6:2'; //  ICMPv6 flood on VLAN 5
const FL = '10.7.0.1', FD = '10.7.0.2'; //    flow flood
const DNS_SRV = '10.9.0.53', DNS_CLI = '10.9.0.1';

/** A full TCP connection C → V at `ms`: handshake, data, both FINs, last ACK (100 ms apart). */
function handshake(ms: number, sport: number): Packet[] {
  return [
    tcpPkt(ms, C, sport, V, 80, SYN),
    tcpPkt(ms + 100, V, 80, C, sport, SYN | ACK),
    tcpPkt(ms + 200, C, sport, V, 80, ACK),
    tcpPkt(ms + 300, C, sport, V, 80, PSH | ACK, Buffer.alloc(100, 0x41)),
    tcpPkt(ms + 400, C, sport, V, 80, FIN | ACK),
    tcpPkt(ms + 500, V, 80, C, sport, FIN | ACK),
    tcpPkt(ms + 600, C, sport, V, 80, ACK),
  ];
}

function capture(): Packet[] {
  const p: Packet[] = [];
  // ---- minute 0 ----
  // A DNS answer names the scanner (its name reaches the host through the name cache).
  p.push(v4(500, DNS_SRV, DNS_CLI, IPPROTO.UDP, udp({ sport: 53, dport: 33000 }, dns({ flags: DNS_RESPONSE, questions: [{ name: dnsName('scanner.example'), type: 1 }], answers: [{ name: dnsPtr(12), type: 1, rdata: ipRdata(S) }] }))));
  // SYN scan: 40 ports, one SYN each every 100 ms from 1.000 s; T answers RST|ACK 10 ms later.
  for (let i = 0; i < 40; i++) {
    p.push(tcpPkt(1000 + 100 * i, S, 40000, T, 1 + i, SYN));
    p.push(tcpPkt(1010 + 100 * i, T, 1 + i, S, 40000, RST | ACK));
  }
  // Five complete connections C → V, 2 s apart from 10 s.
  for (let k = 0; k < 5; k++) p.push(...handshake(10000 + 2000 * k, 50000 + k));
  // ECN: three handshakes opened with SYN|ECE|CWR and answered SYN|ACK|ECE (24, 26, 28 s),
  // two such SYNs unanswered (30, 32 s), and a SYN|PSH (34 s), which is not a plain SYN.
  for (let k = 0; k < 3; k++) {
    const ms = 24000 + 2000 * k;
    p.push(tcpPkt(ms, E, 51000 + k, F, 443, SYN | ECE | CWR), tcpPkt(ms + 100, F, 443, E, 51000 + k, SYN | ACK | ECE), tcpPkt(ms + 200, E, 51000 + k, F, 443, ACK));
  }
  p.push(tcpPkt(30000, E, 51003, F, 443, SYN | ECE | CWR), tcpPkt(32000, E, 51004, F, 443, SYN | ECE | CWR), tcpPkt(34000, E, 51005, F, 443, SYN | PSH));
  // FIN scan: 30 ports, a FIN every 50 ms from 20.000 s; the first 10 ports answer RST|ACK 10 ms later.
  for (let i = 0; i < 30; i++) {
    p.push(tcpPkt(20000 + 50 * i, X, 41000, Y, 100 + i, FIN));
    if (i < 10) p.push(tcpPkt(20010 + 50 * i, Y, 100 + i, X, 41000, RST | ACK));
  }
  // RST bursts: 7 flows opened by a RST, at 50.0/50.2/50.4 s, 51.0/51.2/51.4 s and 53 s; the
  // first flow carries two more RSTs (50.6, 51.6 s), not the flow's first RST: not counted.
  [50000, 50200, 50400, 51000, 51200, 51400, 53000].forEach((ms, j) => p.push(tcpPkt(ms, R, 52000 + j, U, 443, RST)));
  p.push(tcpPkt(50600, R, 52000, U, 443, RST), tcpPkt(51600, R, 52000, U, 443, RST));
  // ICMP flood (echo requests, one flow): 5 at 30 s, 4 at 31 s, 10 at 32 s, 2 at 33 s, 1 at 40 s.
  const pings0 = [30000, 30200, 30400, 30600, 30800, 31000, 31250, 31500, 31750, ...Array.from({ length: 10 }, (_, n) => 32000 + 100 * n), 33000, 33500, 40000];
  pings0.forEach((ms, n) => p.push(ping(ms, P, Q, n)));
  // ICMPv6 echo requests on VLAN 5 at 35.0, 35.5, 36.0, 36.5 s.
  [35000, 35500, 36000, 36500].forEach((ms, n) => p.push(ping6(ms, P6, Q6, n, 5)));
  // Flow flood: 25 UDP flows FL → FD, one every 40 ms from 42.000 s (all within second 42).
  for (let i = 0; i < 25; i++) p.push(udpPkt(42000 + 40 * i, FL, 30000 + i, FD, 9000));
  // ---- minute 1 ----
  // S → T: 5 more SYNs (61.0 … 61.4 s), unanswered.
  for (let i = 0; i < 5; i++) p.push(tcpPkt(61000 + 100 * i, S, 40000, T, 200 + i, SYN));
  // P → Q: 3 at 65 s, 3 at 66 s, 1 at 68 s (the same echo flow: no new flow).
  [65000, 65300, 65600, 66000, 66300, 66600, 68000].forEach((ms, n) => p.push(ping(ms, P, Q, 100 + n)));
  // FL → FD: 10 new flows within second 70.
  for (let i = 0; i < 10; i++) p.push(udpPkt(70000 + 50 * i, FL, 31000 + i, FD, 9000));
  // ---- minute 2 ----
  p.push(...handshake(130000, 50100));
  return p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
}

const file = tmp.file('host-checks.pcap', pcap(capture()));

type Pair = [attacker: number, victim: number];
/** A result row with every check's figures (zeros unless given). */
function row(ip: string, given: Partial<Record<HostCheckName, Pair>>, o: { vlan?: number; local?: boolean; name?: string } = {}): HostCheckHits {
  const hits: HostCheckHits['hits'] = {};
  for (const c of FLOW_HITS_CHECKS) hits[c] = { attacker: given[c]?.[0] ?? 0, victim: given[c]?.[1] ?? 0 };
  return { ip, vlan: o.vlan ?? 0, local: o.local ?? true, name: o.name ?? '', hits };
}
const ALL: Partial<Record<HostCheckName, number>> = { syn_scan: 0, fin_scan: 0, rst_scan: 0, flow_flood: 0, icmp_flood: 0 };
const sorted = (rows: HostCheckHits[]) => [...rows].sort((a, b) => (a.ip + a.vlan < b.ip + b.vlan ? -1 : 1));

// Minute 0, by hand. AlertCounter (RST scan, flow flood, ICMP flood): a new host's first event
// opens a window without being counted; events up to one second after the window's opening
// second count; a later one closes it (peak kept) and opens the next, again uncounted.
const MINUTE0 = sorted([
  // 40 SYNs sent, no SYN|ACK back: 40. RSTs received (T's, first of each flow) at seconds
  // 1 (×10), 2 (×10), 3 (×10), 4 (×10): window 1 takes 9 + 10 = 19, window 3 takes 9 + 10 = 19.
  // The 40 flows it opened arrive at the same seconds: 19.
  row(S, { syn_scan: [40, 0], rst_scan: [0, 19], flow_flood: [19, 0] }, { local: false, name: 'scanner.example' }),
  row(T, { syn_scan: [0, 40], rst_scan: [19, 0], flow_flood: [0, 19] }),
  // ECN: SYN|ECE|CWR counts as a SYN (ECE/CWR masked), SYN|PSH does not: 5 SYNs, 3 SYN|ACKs → 2.
  // Its 6 flows open 2 s apart: every window holds one event, never counted.
  row(E, { syn_scan: [2, 0] }),
  row(F, { syn_scan: [0, 2] }),
  // FIN scan: 30 first FINs sent; FIN/ACK packets received before the flow saw both FIN and
  // ACK: the 10 RST|ACKs → 30 − 10 = 20 (each FIN is also such a packet, but sent, not received).
  // Its 30 flows at second 20 (×20) and 21 (×10): one window, 29. RSTs from Y: 10 at second 20: 9.
  row(X, { fin_scan: [20, 0], rst_scan: [0, 9], flow_flood: [29, 0] }),
  row(Y, { fin_scan: [0, 20], rst_scan: [9, 0], flow_flood: [0, 29] }),
  // RST flows at 50 (×3), 51 (×3), 53: window 50 counts 2 + 3 = 5, window 53 counts 0.
  row(R, { rst_scan: [5, 0], flow_flood: [5, 0] }),
  row(U, { rst_scan: [0, 5], flow_flood: [0, 5] }),
  // Echo requests at 30 (×5), 31 (×4), 32 (×10), 33 (×2), 40: window 30 counts 4 + 4 = 8,
  // window 32 counts 9 + 2 = 11, window 40 counts 0 → 11. One flow: no flow-flood hit.
  row(P, { icmp_flood: [11, 0] }),
  row(Q, { icmp_flood: [0, 11] }),
  // 35.0 opens, 35.5, 36.0, 36.5 count: 3.
  row(P6, { icmp_flood: [3, 0] }, { vlan: 5 }),
  row(Q6, { icmp_flood: [0, 3] }, { vlan: 5 }),
  // 25 flows within second 42: 24.
  row(FL, { flow_flood: [24, 0] }),
  row(FD, { flow_flood: [0, 24] }),
  // C, V: 5 SYNs / 5 SYN|ACKs, 5 first FINs / 5 SYN|ACKs received as FIN-or-ACK packets (V's
  // side: 5 first FINs received, 5 SYN|ACKs sent), flows 2 s apart: nothing. Nor the DNS pair.
]);

// Minute 1: every counter was reset at the tick, and AlertCounter then counts the first event.
const MINUTE1 = sorted([
  // 5 SYNs (not 45); its 5 new flows within second 61: 1 + 4 = 5.
  row(S, { syn_scan: [5, 0], flow_flood: [5, 0] }, { local: false, name: 'scanner.example' }),
  row(T, { syn_scan: [0, 5], flow_flood: [0, 5] }),
  // 65 (×3) and 66 (×3): 6, all counted; 68 opens the next window.
  row(P, { icmp_flood: [6, 0] }),
  row(Q, { icmp_flood: [0, 6] }),
  row(FL, { flow_flood: [10, 0] }),
  row(FD, { flow_flood: [0, 10] }),
]);

// Minute 2: one connection C → V: its flow is the first event after the reset: 1.
const MINUTE2 = sorted([row(C, { flow_flood: [1, 0] }), row(V, { flow_flood: [0, 1] })]);

interface Tick {
  boundary: number;
  all: HostCheckHits[];
  asked: Record<string, HostCheckHits[]>;
}

async function replay(opts: Partial<EngineOptionsInput> = {}, onTick?: (e: Engine, boundary: number) => void) {
  const e = new Engine({ files: [file], ...opts });
  const ticks: Tick[] = [];
  e.onTick((boundary) => {
    ticks.push({
      boundary,
      all: sorted(e.hostCheckHits(ALL)),
      asked: {
        syn39: sorted(e.hostCheckHits({ syn_scan: 39 })),
        syn40: sorted(e.hostCheckHits({ syn_scan: 40 })),
        syn1: sorted(e.hostCheckHits({ syn_scan: 1 })),
        finIcmp: sorted(e.hostCheckHits({ fin_scan: 19, icmp_flood: 10 })),
        flows1: sorted(e.hostCheckHits({ flow_flood: 1 })),
        none: e.hostCheckHits({}),
      },
    });
    onTick?.(e, boundary);
  });
  e.start();
  expect((await e.waitDone()).state).toBe('done');
  return { e, ticks };
}

/** Only the checks named, as hostCheckHits returns them. */
const only = (r: HostCheckHits, checks: HostCheckName[]): HostCheckHits => ({ ...r, hits: Object.fromEntries(checks.map((c) => [c, r.hits[c]])) });

describe('host-check counters (ntopng SYN/FIN/RST scan, flow and ICMP flood)', () => {
  it('gives each minute its hits, computed by hand from the frames, and resets at each tick', async () => {
    const { e, ticks } = await replay();
    expect(ticks.map((t) => t.boundary)).toEqual([T0 + 60, T0 + 120, T0 + 180]);
    expect(ticks[0]!.all).toEqual(MINUTE0);
    expect(ticks[1]!.all).toEqual(MINUTE1);
    expect(ticks[2]!.all).toEqual(MINUTE2);
    // outside a tick: the last minute closed
    expect(sorted(e.hostCheckHits(ALL))).toEqual(MINUTE2);
    e.close();
  });

  it('counts nothing with the checks off (the bench baseline of their cost), the same capture otherwise counted', async () => {
    const { e, ticks } = await replay({ checks: false });
    expect(ticks.map((t) => t.boundary)).toEqual([T0 + 60, T0 + 120, T0 + 180]);
    for (const t of ticks) expect(t.all).toEqual([]);
    // the traffic itself is still accounted
    expect(e.stats().packets).toBeGreaterThan(0);
    e.close();
  });

  it('returns only hosts strictly above a threshold, with every check asked for', async () => {
    const { e, ticks } = await replay();
    const m0 = ticks[0]!.asked;
    const pick = (list: HostCheckHits[], ...ips: string[]) => list.filter((r) => ips.includes(r.ip));
    // 40 > 39 (S attacker, T victim), 40 is not > 40
    expect(m0.syn39).toEqual(pick(MINUTE0, S, T).map((r) => only(r, ['syn_scan'])));
    expect(m0.syn40).toEqual([]);
    expect(m0.syn1).toEqual(pick(MINUTE0, S, T, E, F).map((r) => only(r, ['syn_scan'])));
    // either check above its threshold selects the host; both figures of both checks are returned
    expect(m0.finIcmp).toEqual(pick(MINUTE0, X, Y, P, Q).map((r) => only(r, ['fin_scan', 'icmp_flood'])));
    expect(m0.none).toEqual([]);
    // minute 2: flow flood 1 is not above 1
    expect(ticks[2]!.asked.flows1).toEqual([]);
    expect(ticks[1]!.asked.flows1).toEqual(pick(MINUTE1, S, T, FL, FD).map((r) => only(r, ['flow_flood'])));
    e.close();
  });

  it('agrees with tshark on each host’s SYN and SYN|ACK counts per minute', async () => {
    // ntopng's test: flags without ECE/CWR equal to SYN, or to SYN|ACK
    const rows = await tsharkFields(file, ['frame.time_epoch', 'ip.src', 'ipv6.src', 'ip.dst', 'ipv6.dst', 'tcp.flags'], 'tcp');
    const count = new Map<string, { syn: Pair; synack: Pair }>(); // minute|ip → [sent, received]
    for (const [t, s4, s6, d4, d6, fl] of rows) {
      const m = Math.floor((Number(t) - T0) / 60);
      const f = parseInt(fl!, 16) & 0x3f;
      const kind = f === SYN ? 'syn' : f === (SYN | ACK) ? 'synack' : null;
      if (!kind) continue;
      for (const [ip, d] of [[s4 || s6, 0], [d4 || d6, 1]] as const) {
        const k = `${m}|${ip}`;
        const c = count.get(k) ?? { syn: [0, 0], synack: [0, 0] };
        c[kind][d]++;
        count.set(k, c);
      }
    }
    const fromTshark = (m: number) =>
      [...count]
        .filter(([k]) => k.startsWith(`${m}|`))
        .map(([k, c]) => ({ ip: k.slice(k.indexOf('|') + 1), attacker: Math.max(0, c.syn[0] - c.synack[1]), victim: Math.max(0, c.syn[1] - c.synack[0]) }))
        .filter((x) => x.attacker || x.victim)
        .sort((a, b) => (a.ip < b.ip ? -1 : 1));
    const { e, ticks } = await replay();
    for (const m of [0, 1, 2]) {
      const ours = ticks[m]!.all
        .filter((r) => r.hits.syn_scan!.attacker || r.hits.syn_scan!.victim)
        .map((r) => ({ ip: r.ip, ...r.hits.syn_scan! }))
        .sort((a, b) => (a.ip < b.ip ? -1 : 1));
      expect(ours).toEqual(fromTshark(m));
    }
    // and tshark saw the scan: 40 then 5
    expect(fromTshark(0).find((x) => x.ip === S)?.attacker).toBe(40);
    expect(fromTshark(1).find((x) => x.ip === S)?.attacker).toBe(5);
    e.close();
  });

  it('keeps counters and the last minute across a table rebuild (setLimits inside a tick)', async () => {
    let before: HostCheckHits[] = [], after: HostCheckHits[] = [];
    const { e, ticks } = await replay({ maxHosts: 64, maxFlows: 256 }, (en, boundary) => {
      if (boundary !== T0 + 60) return;
      before = sorted(en.hostCheckHits(ALL));
      en.setLimits({ maxHosts: 4096, maxFlows: 8192 });
      after = sorted(en.hostCheckHits(ALL));
    });
    expect(e.stats().max_hosts).toBe(4096);
    expect(before).toEqual(MINUTE0);
    expect(after).toEqual(MINUTE0);
    // the reset counters moved too: after a reset the first event counts (a new entry would not count it)
    expect(ticks[1]!.all).toEqual(MINUTE1);
    expect(ticks[2]!.all).toEqual(MINUTE2);
    e.close();
  });

  it('gives a host that takes over a freed slot fresh counters', async () => {
    // Two host slots. H1 → H2 flood at 1.0 … 2.0 s; at 15 s (its own file, so the sweep runs
    // after it) their flow is idle past 2 s and they past 5 s: both expire; H3 → H4 then take
    // the two slots. H1's window (opened at 1 s, 4 counted) must not carry over to H3.
    const H1 = '198.51.100.1', H2 = '198.51.100.2', H3 = '198.51.100.3', H4 = '198.51.100.4';
    const a = tmp.file('reuse-a.pcap', pcap([1000, 1200, 1400, 1600, 2000].map((ms, n) => ping(ms, H1, H2, n))));
    const b = tmp.file('reuse-b.pcap', pcap([{ tsNs: at(15000), data: eth(MAC_B, MAC_A, 0x88b5, Buffer.alloc(46)) }]));
    const c = tmp.file('reuse-c.pcap', pcap([20000, 20500].map((ms, n) => ping(ms, H3, H4, n))));
    const e = new Engine({ files: [a, b, c], maxHosts: 2, maxFlows: 4, flowIdleSec: 2, remoteHostIdleSec: 5 });
    const seen: HostCheckHits[][] = [];
    e.onTick(() => void seen.push(sorted(e.hostCheckHits(ALL))));
    e.start();
    await e.waitDone();
    const s = e.stats();
    expect([s.hosts_created, s.hosts_expired, s.host_table_full]).toEqual([4, 2, 0]);
    // 20.0 opens H3's window, 20.5 counts: 1 (H1's slot would have given its peak, 4)
    expect(seen).toEqual([[row(H3, { icmp_flood: [1, 0] }, { local: false }), row(H4, { icmp_flood: [0, 1] }, { local: false })]]);
    e.close();
  });

  it("shows the current minute's hits in host() detail (ntopng's hits.* fields)", async () => {
    // Original timing: four echo requests in the first 300 ms, then nothing for 30 s. Stopped
    // before that, the engine makes no final tick: the counters hold the minute so far.
    const f = tmp.file('live.pcap', pcap([...[0, 100, 200, 300].map((ms, n) => ping(ms, P, Q, n)), udpPkt(30000, C, 5000, V, 6000)]));
    const e = new Engine({ files: [f], replaySpeed: 1 });
    e.onTick(() => {});
    e.start();
    for (let i = 0; i < 2000 && e.host(P)?.packets_sent !== 4; i++) await new Promise((r) => setTimeout(r, 10));
    e.stop();
    expect(e.state().state).toBe('stopped');
    expect(e.stats().ticks).toBe(0);
    const zero = { attacker: 0, victim: 0 };
    // a new host: 0 ms opens the window, 100, 200, 300 count
    expect(e.host(P)?.hits).toEqual({ syn_scan: zero, fin_scan: zero, rst_scan: zero, flow_flood: zero, icmp_flood: { attacker: 3, victim: 0 } });
    expect(e.host(Q)?.hits.icmp_flood).toEqual({ attacker: 0, victim: 3 });
    expect(e.hosts({ detail: true, limit: 10 }).rows.find((h) => h.ip === Q)?.hits).toEqual(e.host(Q)?.hits);
    // no minute closed yet
    expect(e.hostCheckHits(ALL)).toEqual([]);
    e.close();
  });

  it('rejects unknown checks and bad thresholds', () => {
    const e = new Engine({ files: [file] });
    const bad: unknown[] = [{ syn_scan: -1 }, { syn_scan: Number.NaN }, { syn_scan: Infinity }, { syn_scan: '5' }, { port_scan: 1 }, null];
    for (const t of bad) expect(() => e.hostCheckHits(t as Partial<Record<HostCheckName, number>>)).toThrow(expect.objectContaining({ code: 'E_INVALID' }));
    expect(e.hostCheckHits({ syn_scan: 0, icmp_flood: 1.5 })).toEqual([]);
    e.close();
  });
});
