// Egress to pcap files (deterministic): a real capture (nDPI's netflix.pcap:
// DNS, DNS.NetFlix, HTTP, TLS.NetFlix, SSDP, IGMP; 1793 frames) is replayed
// into aggregated and balanced queues under each action, and the outputs are
// read back with tshark.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, type EgressPoliciesInput, type EgressTargetStats } from '../ts/bindings/engine.js';
import { FlowgateError } from '../ts/bindings/errors.js';
import { countBy, flowKey, frames, pairKey, pcapCount, type Frame } from './fixtures/egress-native.js';
import { addr, eth, ETH, ipv4, ipv6, ipv6Options, IPPROTO, MAC_A, MAC_B, tcp, udp } from './fixtures/frames.js';
import { pcap, pcapRecords, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const INPUT = join(NDPI_PCAPS, 'netflix.pcap');
const tmp = tempDir('flowgate-egress-');
let input: Frame[] = [];
let netflixId = 0;

beforeAll(() => {
  input = frames(INPUT);
  netflixId = Engine.info().dpi.protocols.find((p) => p.name === 'NetFlix')!.id;
});
afterAll(() => tmp.cleanup());

let seq = 0;
/** Replays `files` into pcap outputs under `policies`; returns the stats and the output paths. */
async function replay(policies: EgressPoliciesInput | null, o: { aggregated?: number; balanced?: number; files?: string[]; rotateBytes?: number; workers?: number } = {}) {
  const run = seq++;
  const agg = Array.from({ length: o.aggregated ?? 1 }, (_, i) => tmp.file(`r${run}-agg${i}.pcap`));
  const bal = Array.from({ length: o.balanced ?? 0 }, (_, i) => tmp.file(`r${run}-bal${i}.pcap`));
  const e = new Engine({
    files: o.files ?? [INPUT],
    flowIdleSec: 1e9,
    workers: o.workers ?? 1,
    egress: {
      aggregated: agg.map((pcap) => ({ pcap, rotateBytes: o.rotateBytes })),
      ...(bal.length ? { balanced: bal.map((pcap) => ({ pcap })) } : {}),
    },
  });
  try {
    if (policies) e.setEgressPolicies(policies);
    e.start();
    const st = await e.waitDone();
    expect(st.error).toBeNull();
    const stats = e.egressStats().targets;
    const flows = e.flows({ limit: 1e6 }).rows;
    return { stats, agg, bal, flows, engineStats: e.stats(), workerPackets: e.workerPackets() };
  } finally {
    e.close();
  }
}

function identity(t: EgressTargetStats): void {
  expect(t.packets).toBe(t.forwarded + t.discarded + t.shunted);
  expect(t.output_drops).toBe(0);
}

const fwd = (target: 'aggregated' | 'balanced', extra: Partial<EgressPoliciesInput['targets'][number]> = {}) => ({
  target,
  default: 'forward' as const,
  subnets: [],
  protocols: [],
  ...extra,
});

describe('egress with two workers (each forwards its own flows into the same outputs)', () => {
  // a capture of many flows (nDPI's captures of ../shared, several at once) so the hash spreads them
  const mixed = [INPUT, join(NDPI_PCAPS, '1kxun.pcap'), join(NDPI_PCAPS, 'dns_long_domainname.pcap')];
  const policies = (): EgressPoliciesInput => ({
    shunt: { default: 3 },
    targets: [
      fwd('aggregated', { queue: 0, protocols: [{ id: netflixId, action: 'shunt' }], subnets: [{ cidr: '192.168.1.0/24', action: 'slice-l4' }] }),
      fwd('aggregated', { queue: 1, default: 'discard', protocols: [{ id: 5, action: 'forward' }] }), // DNS only
      fwd('balanced'),
    ],
  });
  it('the outputs hold what one worker forwards, each flow in its order; counters and rule counters the same; rotation across lanes', async () => {
    const one = await replay(policies(), { aggregated: 2, balanced: 3, files: mixed, rotateBytes: 1 << 20 });
    const two = await replay(policies(), { aggregated: 2, balanced: 3, files: mixed, rotateBytes: 1 << 20, workers: 2 });
    expect(two.workerPackets).toHaveLength(2);
    expect(two.workerPackets!.every((n) => n > 0)).toBe(true);
    // the same counters, target by target, rule by rule, output by output
    const counters = (st: EgressTargetStats[]) =>
      st.map((t) => ({ ...t, output: undefined, outputs: t.outputs.map((o) => ({ packets: o.packets, bytes: o.bytes, written: o.written, drops: o.drops })) }));
    expect(counters(two.stats)).toEqual(counters(one.stats));
    for (const t of two.stats) identity(t);
    expect(two.stats[0]!.shunted + two.stats[0]!.sliced).toBeGreaterThan(0);
    expect(two.stats[1]!.discarded).toBeGreaterThan(0);
    // every output (its rotated files together): the same frames, each flow's in the same order
    const read = (first: string, files: number) => Array.from({ length: files }, (_, k) => frames(k ? `${first}.${k}` : first)).flat();
    const outs = (r: typeof one) => [...r.agg, ...r.bal].map((f, i) => {
      const t = i < 2 ? r.stats[i]! : r.stats[2]!;
      const o = i < 2 ? t.outputs[0]! : t.outputs[i - 2]!;
      return read(f, o.files);
    });
    const a = outs(one), b = outs(two);
    expect(one.stats[0]!.outputs[0]!.files).toBeGreaterThan(1); // rotated
    for (let i = 0; i < a.length; i++) {
      expect(b[i]!.length).toBe(a[i]!.length);
      // (the frames' fields are IPv4's: other frames, IPv6 among them, are compared as a set)
      const byFlow = (fs: Frame[]) => {
        const m = new Map<string, string[]>();
        for (const f of fs) m.set(flowKey(f), [...(m.get(flowKey(f)) ?? []), `${f.ts}/${f.len}/${f.cap}`]);
        for (const [k, v] of m) if (k.startsWith('0/')) v.sort();
        return [...m.entries()].sort(([x], [y]) => (x < y ? -1 : 1));
      };
      expect(byFlow(b[i]!)).toEqual(byFlow(a[i]!));
    }
  });
});

describe('egress to pcap files', () => {
  it('forwards everything by default: the aggregated output is the input, frame by frame', async () => {
    const r = await replay(null);
    const out = frames(r.agg[0]!);
    expect(out.length).toBe(1793);
    expect(out.map((f) => [f.src, f.dst, f.len, f.cap, f.sport, f.dport])).toEqual(input.map((f) => [f.src, f.dst, f.len, f.cap, f.sport, f.dport]));
    const t = r.stats[0]!;
    expect(t).toMatchObject({ target: 'aggregated', queue: 0, packets: 1793, forwarded: 1793, discarded: 0, shunted: 0, sliced: 0 });
    expect(t.output).toBe(`pcap:${r.agg[0]}`);
    expect(t.bytes).toBe(input.reduce((a, f) => a + f.len, 0));
    expect(t.policies).toEqual([{ scope: 'default', action: 'forward', packets: 1793, bytes: t.bytes }]);
    // Same bytes as the input, record by record.
    const a = readFileSync(INPUT), b = readFileSync(r.agg[0]!);
    const ra = pcapRecords(a).records, rb = pcapRecords(b).records;
    for (let i = 0; i < ra.length; i++) {
      expect(b.subarray(rb[i]!.offset + 16, rb[i]!.end).equals(a.subarray(ra[i]!.offset + 16, ra[i]!.end))).toBe(true);
      expect(rb[i]!.sec).toBe(ra[i]!.sec);
      expect(rb[i]!.frac).toBe(ra[i]!.frac * 1000); // ns output
    }
  });

  it('balanced: each IP pair lands on exactly one queue, the union is the input, counters match', async () => {
    const r = await replay({ targets: [] }, { aggregated: 0, balanced: 3 });
    const t = r.stats.find((x) => x.target === 'balanced')!;
    identity(t);
    const qs = r.bal.map((f) => frames(f));
    expect(qs.reduce((a, q) => a + q.length, 0)).toBe(input.length);
    expect(qs.filter((q) => q.length > 0).length).toBeGreaterThan(1); // the hash spreads
    const pairOwner = new Map<string, number>(), flowOwner = new Map<string, number>();
    qs.forEach((q, i) => {
      for (const f of q) {
        for (const [m, k] of [[pairOwner, pairKey(f)], [flowOwner, flowKey(f)]] as const) {
          expect(m.get(k) ?? i, `${k} in two queues`).toBe(i);
          m.set(k, i);
        }
      }
      expect(t.outputs[i]!.written).toBe(q.length);
      expect(t.outputs[i]!.packets).toBe(q.length);
    });
    expect(countBy(qs.flat(), flowKey)).toEqual(countBy(input, flowKey));
    expect(t.forwarded).toBe(input.length);
  });

  it('discards subnets, longest prefix first (source or destination), with per-policy counters', async () => {
    const r = await replay({
      targets: [fwd('aggregated', { subnets: [{ cidr: '192.168.1.0/24', action: 'discard' }, { cidr: '192.168.1.1/32', action: 'forward' }] })],
    });
    const out = frames(r.agg[0]!);
    const viaGw = input.filter((f) => f.src === '192.168.1.1' || f.dst === '192.168.1.1');
    const rest = input.filter((f) => !(f.src === '192.168.1.1' || f.dst === '192.168.1.1') && (f.src.startsWith('192.168.1.') || f.dst.startsWith('192.168.1.')));
    const other = input.length - viaGw.length - rest.length;
    expect(viaGw.length).toBeGreaterThan(0);
    expect(rest.length).toBeGreaterThan(0);
    expect(out.length).toBe(viaGw.length + other);
    expect(out.some((f) => rest.some((g) => g.ts === f.ts))).toBe(false);
    const t = r.stats[0]!;
    identity(t);
    expect(t.discarded).toBe(rest.length);
    expect(t.policies.map((p) => [p.scope, p.match, p.action, p.packets])).toEqual([
      ['default', undefined, 'forward', other],
      ['subnet', '192.168.1.0/24', 'discard', rest.length],
      ['subnet', '192.168.1.1/32', 'forward', viaGw.length],
    ]);
  });

  it('a protocol rule wins over subnets; discarding DNS leaves no DNS and every other frame', async () => {
    const r = await replay({
      targets: [
        fwd('aggregated', { queue: 0, protocols: [{ id: 5, action: 'discard' }] }),
        fwd('aggregated', { queue: 1, default: 'discard', subnets: [{ cidr: '0.0.0.0/0', action: 'discard' }], protocols: [{ id: 5, action: 'forward' }] }),
      ],
    }, { aggregated: 2 });
    const dns = input.filter((f) => f.dns);
    expect(dns.length).toBe(28);
    const q0 = frames(r.agg[0]!), q1 = frames(r.agg[1]!);
    expect(q0.filter((f) => f.dns)).toEqual([]);
    expect(q0.map((f) => f.ts)).toEqual(input.filter((f) => !f.dns).map((f) => f.ts));
    // Queue 1: everything is in 0.0.0.0/0 (discard) but DNS has a protocol rule.
    expect(q1.map((f) => f.ts)).toEqual(dns.map((f) => f.ts));
    for (const t of r.stats) identity(t);
    expect(r.stats[0]!.policies[1]).toMatchObject({ scope: 'protocol', match: '5', action: 'discard', packets: 28 });
    expect(r.stats[1]!.policies.map((p) => p.packets)).toEqual([0, input.length - 28, 28]);
  });

  it('a master-protocol rule covers master.app flows unless the app has its own rule', async () => {
    const r = await replay({ targets: [fwd('aggregated', { protocols: [{ id: 5, action: 'discard' }, { id: netflixId, action: 'forward' }] })] });
    // Which DNS flows the classifier called DNS.NetFlix (master 5) and plain DNS.
    const dnsFlows = r.flows.filter((f) => f.l7_app === 5 || f.l7_master === 5);
    const netflixPorts = new Set(dnsFlows.filter((f) => f.l7_app === netflixId).map((f) => f.client.port));
    const plainPorts = new Set(dnsFlows.filter((f) => f.l7_app === 5).map((f) => f.client.port));
    expect(netflixPorts.size).toBeGreaterThan(0);
    expect(plainPorts.size).toBeGreaterThan(0);
    const out = frames(r.agg[0]!);
    const port = (f: Frame) => (f.dport === 53 ? f.sport : f.dport);
    const outDns = out.filter((f) => f.dns);
    expect(outDns.length).toBe(input.filter((f) => f.dns && netflixPorts.has(port(f))).length);
    expect(outDns.every((f) => netflixPorts.has(port(f)))).toBe(true);
    expect(out.length).toBe(input.length - input.filter((f) => f.dns && plainPorts.has(port(f))).length);
    identity(r.stats[0]!);
  });

  it('shunt forwards the first K packets of each flow: app K (or its master) > L4 K > default', async () => {
    const r = await replay({ shunt: { default: 4, l4: { 17: 2 }, apps: { 5: 1 } }, targets: [fwd('aggregated', { default: 'shunt' })] });
    const out = frames(r.agg[0]!);
    const inFlows = countBy(input, flowKey), outFlows = countBy(out, flowKey);
    let expectTotal = 0, longer = 0;
    for (const [k, n] of inFlows) {
      const [proto] = k.split('/');
      const isDns = k.includes('|53/') || k.endsWith('|53');
      const K = isDns ? 1 : proto === '17' ? 2 : 4;
      expect(outFlows.get(k) ?? 0, k).toBe(Math.min(n, K));
      expectTotal += Math.min(n, K);
      if (n > K) longer++;
    }
    expect(longer).toBeGreaterThan(10);
    expect(out.length).toBe(expectTotal);
    // The forwarded ones are each flow's first.
    const seen = new Map<string, number>();
    const firsts = input.filter((f) => {
      const k = flowKey(f), n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      return n <= (outFlows.get(k) ?? 0);
    });
    expect(out.map((f) => f.ts)).toEqual(firsts.map((f) => f.ts));
    const t = r.stats[0]!;
    identity(t);
    expect(t.forwarded).toBe(out.length);
    expect(t.shunted).toBe(input.length - out.length);
    expect(t.actions.shunt).toBe(input.length);
  });

  it('slice-l4 cuts after the TCP/UDP header, slice-l3 after the IP header; frame.len stays the wire length', async () => {
    const r = await replay({ targets: [fwd('aggregated', { queue: 0, default: 'slice-l4' }), fwd('aggregated', { queue: 1, default: 'slice-l3' })] }, { aggregated: 2 });
    const l4 = frames(r.agg[0]!), l3 = frames(r.agg[1]!);
    expect(l4.length).toBe(input.length);
    expect(l3.length).toBe(input.length);
    let cut4 = 0;
    input.forEach((f, i) => {
      const ipEnd = 14 + f.ipHdr;
      const l4End = f.proto === 6 ? ipEnd + f.tcpHdr : f.proto === 17 ? ipEnd + 8 : ipEnd;
      expect(l4[i]!.len, `frame ${i + 1}`).toBe(f.len);
      expect(l4[i]!.cap, `frame ${i + 1}`).toBe(Math.min(f.cap, l4End));
      expect(l3[i]!.len).toBe(f.len);
      expect(l3[i]!.cap, `frame ${i + 1}`).toBe(Math.min(f.cap, ipEnd));
      if (l4End < f.cap) cut4++;
    });
    expect(cut4).toBeGreaterThan(500); // most frames carry a payload
    for (const t of r.stats) {
      identity(t);
      expect(t.sliced).toBe(input.length);
      expect(t.forwarded).toBe(input.length);
    }
  });

  it('IPv6: subnet rules and slicing behind extension headers', async () => {
    const f6 = (src: string, dst: string, l4: Buffer, next: number, hbh = false) =>
      eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: hbh ? IPPROTO.HOPOPTS : next }, hbh ? ipv6Options(next, l4, 1) : l4));
    const data = Buffer.alloc(100, 0x61);
    const pk = [
      f6('fd00::1', '2001:db8:1::5', udp({ sport: 4000, dport: 9000 }, data), IPPROTO.UDP, true),
      f6('2001:db8:1::5', 'fd00::1', udp({ sport: 9000, dport: 4000 }, data), IPPROTO.UDP),
      f6('fd00::2', '2001:db8:1:2::9', tcp({ sport: 4001, dport: 80, flags: 0x18 }, data), IPPROTO.TCP, true),
      f6('fd00::2', '2001:db8:2::9', tcp({ sport: 4002, dport: 80, flags: 0x18 }, data), IPPROTO.TCP),
      eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1, dport: 2 }, data))),
    ];
    const file = tmp.file('v6.pcap', pcap(pk.map((data, i) => ({ tsNs: BigInt(1_700_000_000 + i) * 1_000_000_000n, data }))));
    const r = await replay({
      targets: [
        fwd('aggregated', { queue: 0, default: 'slice-l3', subnets: [{ cidr: '2001:db8:1::/48', action: 'slice-l4' }, { cidr: '2001:db8:1:2::/64', action: 'discard' }] }),
        fwd('aggregated', { queue: 1, subnets: [{ cidr: '::/0', action: 'discard' }] }),
      ],
    }, { aggregated: 2, files: [file] });
    const q0 = pcapRecords(readFileSync(r.agg[0]!)).records, q1 = pcapRecords(readFileSync(r.agg[1]!)).records;
    // Queue 0: packet 3 (the /64) discarded; 1 and 2 sliced after UDP (behind a 16-byte hop-by-hop
    // header for 1); 4 and the IPv4 one (not in any IPv6 subnet) sliced after the IP header.
    expect(q0.map((x) => [x.caplen, x.wirelen])).toEqual([
      [14 + 40 + 16 + 8, pk[0]!.length],
      [14 + 40 + 8, pk[1]!.length],
      [14 + 40, pk[3]!.length],
      [14 + 20, pk[4]!.length],
    ]);
    // Queue 1: ::/0 holds every IPv6 address, no IPv4 one.
    expect(q1.map((x) => x.wirelen)).toEqual([pk[4]!.length]);
    expect(r.stats[0]!.policies.map((p) => p.packets)).toEqual([2, 2, 1]);
    expect(addr('2001:db8:1::5').length).toBe(16);
  });

  it('longest-prefix match agrees with a brute-force search over 400 random IPv4 rules', async () => {
    let x = 12345;
    const rnd = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), (x >>> 8) % n);
    // Addresses drawn from a small pool so that rules of many lengths overlap.
    const pool = Array.from({ length: 64 }, () => (((10 << 24) | (rnd(4) << 16) | (rnd(4) << 8) | rnd(256)) >>> 0));
    const ipText = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    const rules: { net: number; bits: number; action: 'forward' | 'discard' }[] = [];
    const seen = new Set<string>();
    for (let guard = 0; rules.length < 400 && guard < 100_000; guard++) {
      const bits = 8 + rnd(25);
      const mask = bits === 32 ? 0xffffffff : ~((1 << (32 - bits)) - 1) >>> 0;
      const net = (pool[rnd(pool.length)]! & mask) >>> 0;
      if (seen.has(`${net}/${bits}`)) continue;
      seen.add(`${net}/${bits}`);
      rules.push({ net, bits, action: rnd(2) ? 'forward' : 'discard' });
    }
    expect(rules.length).toBe(400);
    const best = (a: number) => {
      let r = -1;
      rules.forEach((u, i) => {
        const mask = u.bits === 32 ? 0xffffffff : ~((1 << (32 - u.bits)) - 1) >>> 0;
        if (((a & mask) >>> 0) === u.net && (r < 0 || u.bits > rules[r]!.bits)) r = i;
      });
      return r;
    };
    const pk = Array.from({ length: 1500 }, (_, i) => {
      const s = pool[rnd(pool.length)]!, d = pool[rnd(pool.length)]!;
      return { s, d, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: ipText(s), dst: ipText(d), proto: IPPROTO.UDP }, udp({ sport: 1000 + (i % 50), dport: 2000 }))) };
    });
    const file = tmp.file('lpm.pcap', pcap(pk.map((p, i) => ({ tsNs: BigInt(1_700_000_000 + i) * 1_000_000_000n, data: p.data }))));
    const r = await replay({
      targets: [fwd('aggregated', { default: 'discard', subnets: rules.map((u) => ({ cidr: `${ipText(u.net)}/${u.bits}`, action: u.action })) })],
    }, { files: [file] });
    const expected = pk.map((p) => {
      const rs = best(p.s), rd = best(p.d);
      const bs = rs < 0 ? -1 : rules[rs]!.bits, bd = rd < 0 ? -1 : rules[rd]!.bits;
      const w = bs > bd || (bs === bd && rs >= 0 && (rd < 0 || rs < rd)) ? rs : rd;
      return w < 0 ? 'discard' : rules[w]!.action;
    });
    const recs = pcapRecords(readFileSync(r.agg[0]!)).records.map((x) => x.sec - 1_700_000_000);
    expect(recs).toEqual(expected.flatMap((a, i) => (a === 'forward' ? [i] : [])));
    expect(recs.length).toBeGreaterThan(100);
    expect(recs.length).toBeLessThan(1400);
    // Per-rule counters: each packet counted once, by the rule that decided.
    const counts = new Array(rules.length + 1).fill(0);
    pk.forEach((p) => {
      const rs = best(p.s), rd = best(p.d);
      const bs = rs < 0 ? -1 : rules[rs]!.bits, bd = rd < 0 ? -1 : rules[rd]!.bits;
      const w = bs > bd || (bs === bd && rs >= 0 && (rd < 0 || rs < rd)) ? rs : rd;
      counts[w + 1]++;
    });
    expect(r.stats[0]!.policies.map((p) => p.packets)).toEqual(counts);
  });

  it('rotates pcap outputs by size: <path>, <path>.1, <path>.2 …', async () => {
    const r = await replay(null, { rotateBytes: 200_000 });
    const t = r.stats[0]!;
    const n = t.outputs[0]!.files;
    expect(n).toBeGreaterThan(3);
    const names = [r.agg[0]!, ...Array.from({ length: n - 1 }, (_, i) => `${r.agg[0]}.${i + 1}`)];
    expect(t.outputs[0]!.file).toBe(names[n - 1]);
    let total = 0;
    const all: string[] = [];
    for (const f of names) {
      const size = readFileSync(f).length;
      expect(size).toBeLessThanOrEqual(200_000);
      total += pcapCount(f);
      all.push(...frames(f).map((x) => x.ts));
    }
    expect(total).toBe(input.length);
    expect(all).toEqual(input.map((f) => f.ts));
    expect(pcapCount(`${r.agg[0]}.${n}`)).toBe(0);
  });

  it('rejects bad policies with E_INVALID naming the entry, and keeps the previous table', async () => {
    const out = tmp.file('inv.pcap');
    const e = new Engine({ files: [INPUT], egress: { aggregated: [{ pcap: out }] } });
    try {
      const bad: [EgressPoliciesInput, RegExp][] = [
        [{ targets: [fwd('aggregated', { subnets: [{ cidr: '10.0.0.0/33', action: 'discard' }] })] }, /targets\[0\]\.subnets\[0\]: invalid CIDR '10\.0\.0\.0\/33'/],
        [{ targets: [fwd('aggregated', { subnets: [{ cidr: '10.0.0.0/8', action: 'discard' }, { cidr: '10.1.0.0/8', action: 'forward' }] })] }, /subnets\[1\]: duplicate subnet/],
        [{ targets: [fwd('aggregated', { protocols: [{ id: 60000, action: 'discard' }] })] }, /protocols\[0\]: unknown nDPI protocol id 60000/],
        [{ targets: [fwd('aggregated', { queue: 1 })] }, /targets\[0\]: this engine has no aggregated queue 1/],
        [{ targets: [fwd('balanced')] }, /targets\[0\]: this engine has no balanced egress/],
        [{ targets: [fwd('aggregated'), fwd('aggregated')] }, /targets\[1\]: aggregated queue 0 is listed twice/],
        [{ targets: [fwd('aggregated', { default: 'drop' as 'discard' })] }, /targets\.0\.default/],
        [{ shunt: { default: 10, l4: {}, apps: { 99999: 3 } }, targets: [] }, /shunt\.apps/],
      ];
      for (const [p, re] of bad) {
        let err: unknown;
        try {
          e.setEgressPolicies(p);
        } catch (x) {
          err = x;
        }
        expect(err, String(re)).toBeInstanceOf(FlowgateError);
        expect((err as FlowgateError).code).toBe('E_INVALID');
        expect((err as FlowgateError).message).toMatch(re);
      }
      expect(e.egressStats().targets[0]!.policies).toEqual([{ scope: 'default', action: 'forward', packets: 0, bytes: 0 }]);
    } finally {
      e.close();
    }
    const plain = new Engine({ files: [INPUT] });
    expect(() => plain.setEgressPolicies({ targets: [] })).toThrow(expect.objectContaining({ code: 'E_STATE' }));
    expect(plain.egressStats()).toEqual({ targets: [] });
    plain.close();
    expect(() => new Engine({ files: [INPUT], egress: { aggregated: [{ pcap: '/nonexistent-dir/x.pcap' }] } })).toThrow(
      expect.objectContaining({ code: 'E_OUTPUT_OPEN' }),
    );
    expect(() => new Engine({ files: [INPUT], egress: { aggregated: [{ iface: 'fg-no-such-if0' }] } })).toThrow(
      expect.objectContaining({ code: 'E_OUTPUT_OPEN' }),
    );
  });
});

// The pcap output's writer thread on a full disk (a 1.5 MiB tmpfs, root and
// mount needed, else skipped): what it could not write is counted as dropped
// with the error, the rest as written, and the replay still ends.
const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = tmp.file('mountprobe');
  try {
    mkdirSync(probe);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!canMount)('a pcap output on a full disk', () => {
  it('counts the records it could not write as drops, with the error, and the replay ends', async () => {
    const mnt = tmp.file('full');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1536k', 'tmpfs', mnt]);
    try {
      const out = join(mnt, 'out.pcap');
      const e = new Engine({ files: [INPUT, INPUT, INPUT], flowIdleSec: 1e9, egress: { aggregated: [{ pcap: out }] } });
      try {
        e.start();
        const st = await e.waitDone();
        expect(st.error).toBeNull();
        const t = e.egressStats().targets[0]!;
        const o = t.outputs[0]!;
        // three replays of netflix.pcap (about 1 MB each) into 1 MiB chunks: the disk takes the first
        expect(t.forwarded).toBe(3 * input.length);
        expect(o.drops).toBeGreaterThan(0);
        expect(o.written).toBeGreaterThan(0);
        expect(o.written + o.drops).toBe(3 * input.length);
        expect(t.output_drops).toBe(o.drops);
        expect(o.error).toMatch(/^write .*out\.pcap: No space left on device$/);
        // whole chunks the disk took hold at least the records counted as written
        expect(readFileSync(out).length).toBeGreaterThan(24 + o.written * 16);
      } finally {
        e.close();
      }
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});
