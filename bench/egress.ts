// Egress forwarding rate: a generated capture replayed into one aggregated
// pcap queue (in /dev/shm), with no rules and with 1,000 subnet rules plus
// 100 protocol rules, and the same pipeline without egress, in the same run
// (rounds alternate; best of each).
// Every rule forwards, so both runs write the same output and the difference
// is the cost of the lookups. Prints `name: value unit` lines.
//   node dist/bench/egress.js     (FLOWGATE_BENCH_ROUNDS=3, FLOWGATE_EGRESS_PACKETS=1000000)
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { Engine, type EgressPoliciesInput } from '../ts/bindings/engine.js';
import { generate } from './gen/generate.js';
import { timedRun } from './trial.js';

type Print = (line: string) => void;

const dir = '/dev/shm/flowgate-egress-bench';

/** Deterministic rules: 700 IPv4 prefixes /12../32 inside 10/8 and 300 IPv6 /32../128 in fd00::/16, 100 known nDPI ids. */
export function benchRules(): EgressPoliciesInput {
  let x = 0x2545f491;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x >>> 8);
  const subnets = new Map<string, string>();
  while (subnets.size < 700) {
    const bits = 12 + (rnd() % 21);
    const v = ((10 << 24) | (rnd() & 0xffffff)) >>> 0;
    const masked = bits === 32 ? v : (v & ~((1 << (32 - bits)) - 1)) >>> 0;
    const s = `${masked >>> 24}.${(masked >>> 16) & 255}.${(masked >>> 8) & 255}.${masked & 255}/${bits}`;
    subnets.set(s, s);
  }
  while (subnets.size < 1000) {
    const bits = 32 + (rnd() % 97);
    const g = [0xfd00, rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff];
    for (let i = 0; i < 8; i++) {
      const keep = Math.max(0, Math.min(16, bits - i * 16));
      g[i] = keep === 0 ? 0 : g[i]! & ((0xffff << (16 - keep)) & 0xffff);
    }
    const s = `${g.map((v) => v.toString(16)).join(':')}/${bits}`;
    subnets.set(s, s);
  }
  const ids = Engine.info().dpi.protocols.map((p) => p.id).filter((id) => id > 0);
  const protos = new Set<number>([5, 7, 9, 91, 92, 188]); // what the capture holds: DNS HTTP NTP TLS SSH QUIC
  while (protos.size < 100) protos.add(ids[rnd() % ids.length]!);
  return {
    targets: [{
      target: 'aggregated',
      queue: 0,
      default: 'forward',
      subnets: [...subnets.keys()].map((cidr) => ({ cidr, action: 'forward' as const })),
      protocols: [...protos].map((id) => ({ id, action: 'forward' as const })),
    }],
  };
}

interface Trial { mpps: number; cpuMpps: number; packets: number; forwarded: number }

/** `rules` undefined: the same engine without egress (the pipeline alone) */
async function trial(file: string, rules: EgressPoliciesInput | null | undefined, workers = 1): Promise<Trial> {
  const out = join(dir, 'out.pcap');
  const e = new Engine({
    files: [file],
    // one worker on both sides unless asked: the baseline runs as egress does
    workers,
    prefault: true,
    maxFlows: 262_144,
    maxHosts: 65_536,
    flowIdleSec: 1e10,
    localHostIdleSec: 1e10,
    remoteHostIdleSec: 1e10,
    ...(rules === undefined ? {} : { egress: { aggregated: [{ pcap: out }] } }),
  });
  try {
    if (rules) e.setEgressPolicies(rules);
    const { st, secs, cpuSecs } = await timedRun(e);
    if (st.error) throw new Error(st.error);
    if (rules === undefined) {
      const n = Number(e.stats().packets);
      return { mpps: n / secs / 1e6, cpuMpps: n / cpuSecs / 1e6, packets: n, forwarded: 0 };
    }
    const t = e.egressStats().targets[0]!;
    if (t.output_drops) throw new Error(`output drops: ${t.output_drops}`);
    return { mpps: t.packets / secs / 1e6, cpuMpps: t.packets / cpuSecs / 1e6, packets: t.packets, forwarded: t.forwarded };
  } finally {
    e.close();
    rmSync(out, { force: true });
  }
}

export async function egressBench(print: Print = console.log): Promise<void> {
  const packets = Number(process.env.FLOWGATE_EGRESS_PACKETS ?? 1_000_000);
  const rounds = Number(process.env.FLOWGATE_BENCH_ROUNDS ?? 3);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `egress-${packets}p.pcap`);
  try {
    if (!existsSync(file) || statSync(file).size === 0) generate({ out: file, flows: packets / 10, packets, hosts: 5_000, seed: 11 });
    const rules = benchRules();
    const none: Trial = { mpps: 0, cpuMpps: 0, packets: 0, forwarded: 0 };
    let plain = none, ruled = none, bare = none, two = none, plainCpu = 0, ruledCpu = 0, bareCpu = 0;
    for (let i = 0; i < rounds; i++) {
      const c = await trial(file, undefined);
      const a = await trial(file, null);
      const b = await trial(file, rules);
      const d = await trial(file, null, 2);
      if (d.mpps > two.mpps) two = d;
      if (a.mpps > plain.mpps) plain = a;
      if (b.mpps > ruled.mpps) ruled = b;
      if (c.mpps > bare.mpps) bare = c;
      plainCpu = Math.max(plainCpu, a.cpuMpps);
      ruledCpu = Math.max(ruledCpu, b.cpuMpps);
      bareCpu = Math.max(bareCpu, c.cpuMpps);
    }
    if (plain.forwarded !== ruled.forwarded) throw new Error(`forwarded differ: ${plain.forwarded} vs ${ruled.forwarded}`);
    print(`egress_capture: ${plain.packets} packets, output pcap in /dev/shm`);
    print(`egress_forward_no_rules: ${plain.mpps.toFixed(2)} Mpps`);
    print(`egress_forward_1000_subnets_100_protocols: ${ruled.mpps.toFixed(2)} Mpps`);
    print(`egress_rules_vs_no_rules: ${((ruled.mpps / plain.mpps) * 100).toFixed(1)} %`);
    print(`egress_pipeline_without_egress: ${bare.mpps.toFixed(2)} Mpps`);
    print(`egress_forward_vs_pipeline: ${((plain.mpps / bare.mpps) * 100).toFixed(1)} %`);
    // each worker forwarding its own flows into the same output (a lane each)
    if (two.forwarded !== plain.forwarded) throw new Error(`forwarded differ with 2 workers: ${two.forwarded} vs ${plain.forwarded}`);
    print(`egress_forward_2_workers: ${two.mpps.toFixed(2)} Mpps`);
    print(`egress_forward_2_vs_1_workers: ${(two.mpps / plain.mpps).toFixed(2)} x`);
    // By CPU time (the worker's and the idle JS thread's): steadier on a shared machine.
    print(`egress_forward_no_rules_cpu: ${plainCpu.toFixed(2)} Mpps`);
    print(`egress_forward_1000_subnets_100_protocols_cpu: ${ruledCpu.toFixed(2)} Mpps`);
    print(`egress_rules_vs_no_rules_cpu: ${((ruledCpu / plainCpu) * 100).toFixed(1)} %`);
    print(`egress_forward_vs_pipeline_cpu: ${((plainCpu / bareCpu) * 100).toFixed(1)} %`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('egress.js')) await egressBench();
