// One benchmark trial in its own process: replays a capture through one
// engine mode and prints a JSON result line. The capture is read once
// before timing so every trial starts from a warm page cache.
import { openSync, readSync, closeSync, statSync } from 'node:fs';

import { Engine, type EngineOptionsInput, type HostPoolMember, type UserRulesSpec } from '../ts/bindings/engine.js';
import { HOSTNAMES } from './gen/generate.js';
import { riskScoreTable } from '../ts/services/alerts/catalogue.js';
import { RISK_CHECKS } from '../ts/services/checks/definitions.js';

/** The flow score table of the default checks configuration, as the service pushes it. */
function defaultScores() {
  let lo = 0, hi = 0;
  RISK_CHECKS.forEach((d, r) => {
    if (!d?.defaultEnabled) return;
    if (r < 32) lo |= 1 << r;
    else hi |= 1 << (r - 32);
  });
  return riskScoreTable(lo >>> 0, hi >>> 0);
}

type Mode = 'read-only' | 'decode-only' | 'full' | 'no-dpi' | 'no-checks';

function warm(files: string[]): void {
  const buf = Buffer.allocUnsafe(8 << 20);
  for (const f of files) {
    const fd = openSync(f, 'r');
    while (readSync(fd, buf, 0, buf.length, null) > 0);
    closeSync(fd);
  }
}

/** Runs an engine to the end of its playlist (and until `settled`, e.g. the recorder has written everything): wall and CPU seconds. */
export async function timedRun(e: Engine, settled: () => boolean = () => true) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  e.start();
  const st = await e.waitDone();
  while (!settled()) await new Promise((r) => setTimeout(r, 1));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const c1 = process.cpuUsage(c0);
  return { st, secs, cpuSecs: (c1.user + c1.system) / 1e6 };
}

/** The engine's refusal counters that are not zero (tables and pools full). */
export function refusedState(s: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ['flow_table_full', 'host_table_full', 'mac_table_full', 'host_l7_pool_full', 'host_side_full', 'flow_info_full', 'flow_meta_full', 'flow_score_full', 'flow_iec_full']) {
    const v = Number(s[k] ?? 0);
    if (v) out[k] = v;
  }
  return out;
}

/**
 * A host pool table of `n` members shaped like an operator's (the
 * generator's clients are 10.0.0.0/8 and fd00:0:0:1::/64): /16 and /24
 * networks, single addresses, IPv6 /64 and /128, on VLAN 0 and 10, pools
 * 2-127 in turn.
 */
export function benchPoolMembers(n: number): HostPoolMember[] {
  const out: HostPoolMember[] = [];
  for (let i = 0; out.length < n; i++) {
    const pool = 2 + (i % 126);
    const a = (i >> 8) & 255, b = i & 255;
    switch (i % 5) {
      case 0: out.push({ net: `10.${b}.0.0/16`, vlan: 10, pool }); break;
      case 1: out.push({ net: `10.${a}.${b}.0/24`, vlan: 0, pool }); break;
      case 2: out.push({ net: `10.${a}.${b}.7/32`, vlan: 0, pool }); break;
      case 3: out.push({ net: `fd00:0:0:${i.toString(16)}::/64`, vlan: 0, pool }); break;
      default: out.push({ net: `fd00:0:0:1::${i.toString(16)}/128`, vlan: 0, pool });
    }
  }
  return out;
}

/**
 * An operator's rule set of about n entries (custom protocols with host,
 * address and port rules, custom category hosts and networks, risk
 * exceptions) that the bench capture mostly does not match, as on a real
 * network: what every new flow and classification pays for looking. The
 * category hosts name some of the capture's servers (a category changes,
 * nothing else) and the risk exceptions some client networks.
 */
export function benchRules(n: number): UserRulesSpec {
  const r: Required<Pick<UserRulesSpec, 'protocols' | 'ports' | 'hosts' | 'ips' | 'categoryHosts' | 'categoryNets' | 'riskMasks'>> = {
    protocols: [], ports: [], hosts: [], ips: [], categoryHosts: [], categoryNets: [], riskMasks: [],
  };
  const apps = 64;
  for (let i = 0; i < apps; i++) r.protocols.push({ id: 1024 + i, name: `BenchApp${i}`, category: i % 20 });
  for (let i = 0; i < n; i++) {
    const id = 1024 + (i % apps);
    r.hosts.push({ host: `svc${i}.bench.example`, id });
    r.ips.push({ net: `198.18.${(i >> 8) & 255}.${i & 255}/32`, port: i % 3 ? 0 : 443, id });
    if (i % 4 === 0) r.ips.push({ net: `2001:db8:${(i & 0xffff).toString(16)}::/48`, id });
    r.categoryHosts.push({ host: i < HOSTNAMES.length && i % 2 ? HOSTNAMES[i] : `cat${i}.bench.example`, category: 1 + (i % 20) });
    if (i % 16 === 0) r.categoryNets.push({ net: `198.19.${(i >> 4) & 255}.0/24`, category: 3 });
  }
  for (let p = 0; p < 100; p++) r.ports.push({ l4: p % 2 ? 'udp' : 'tcp', lo: 7000 + p * 10, hi: 7000 + p * 10 + 4, id: 1024 + (p % apps) });
  for (let i = 0; i < 16; i++) r.riskMasks.push({ net: `10.${i * 16}.0.0/16`, mask: String(~(1n << 46n) & ((1n << 64n) - 1n)) });
  r.riskMasks.push({ host: 'bench.example', mask: '0' });
  return r;
}

export async function trial(mode: Mode, files: string[], maxFlows: number, maxHosts: number) {
  warm(files);
  // the process's resident memory before the engine: the memory part's cross-check of the engine's own accounting
  const rss0 = process.memoryUsage().rss;
  // Tables are faulted in before timing (engine option prefault), as a
  // service does at start: the figures are steady-state packet processing,
  // not the kernel zeroing fresh pages (FLOWGATE_BENCH_COLD=1 to include it).
  const prefault = !process.env.FLOWGATE_BENCH_COLD;
  // packet workers: FLOWGATE_BENCH_WORKERS (the workers part), else one, so
  // that every other part's figures stay comparable across machines
  const workers = Number(process.env.FLOWGATE_BENCH_WORKERS ?? 1);
  const e = new Engine({ files, workers, mode: mode === 'no-dpi' || mode === 'no-checks' ? 'full' : mode, dpi: mode !== 'no-dpi', checks: mode !== 'no-checks', prefault, maxFlows, maxHosts, flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10,
    // every host's side state held (local: sites, ICMP, used ports, behaviour; remote: behaviour): pools for each host slot
    hostSideShare: 1,
    // the maps bench's baseline runs without the behaviour maps
    ...(process.env.FLOWGATE_BENCH_NO_MAPS ? { behaviourMapEntries: 0 } : {}),
    // pool and side-table sizes of a part (the memory part: every flow's DPI state held)
    ...(process.env.FLOWGATE_BENCH_SIZES ? (JSON.parse(process.env.FLOWGATE_BENCH_SIZES) as Partial<EngineOptionsInput>) : {}),
    // the recorder bench: every packet also recorded (a replay waits for the disk: nothing dropped)
    ...(process.env.FLOWGATE_BENCH_RECORD ? { record: { dir: process.env.FLOWGATE_BENCH_RECORD, maxBytes: 64 * 2 ** 30 } } : {}) });
  if (!process.env.FLOWGATE_BENCH_NO_SCORES) e.setRiskScores(defaultScores());
  // host pools: each new host looks its pool up once
  // the operator's classification rules (custom protocols, categories, risk exceptions)
  if (process.env.FLOWGATE_BENCH_RULES) Engine.setUserRules(benchRules(Number(process.env.FLOWGATE_BENCH_RULES)));
  const members = process.env.FLOWGATE_BENCH_POOLS ? benchPoolMembers(Number(process.env.FLOWGATE_BENCH_POOLS)) : null;
  if (members) e.setHostPools(members);
  const { st, secs, cpuSecs } = await timedRun(e, () => (e.recorderStats()?.ringUsed ?? 0) === 0);
  const s = e.stats();
  const rec = e.recorderStats();
  const workerPackets = e.workerPackets();
  // a membership change re-assigns every host in the table at once
  let reassignMs = 0;
  if (members) {
    const t0 = process.hrtime.bigint();
    e.setHostPools(members.slice(1));
    reassignMs = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const rss = process.memoryUsage().rss - rss0;
  e.close();
  const packets = mode === 'read-only' ? s.read_only_packets : s.packets;
  const bytes = mode === 'read-only' ? s.read_only_bytes : s.bytes;
  return {
    mode,
    workers,
    /** packets each worker took (null when the addon does not count them per worker) */
    worker_packets: workerPackets,
    secs,
    packets,
    bytes,
    mpps: packets / secs / 1e6,
    /** by CPU time: steadier than wall time when the machine is shared */
    cpu_mpps: packets / cpuSecs / 1e6,
    gbps: (bytes * 8) / secs / 1e9,
    flows: s.num_flows,
    hosts: s.num_hosts,
    flow_memory_bytes: s.flow_memory_bytes,
    host_memory_bytes: s.host_memory_bytes,
    /** the engine's whole accounted memory (tables, pools, side arrays of every kind) */
    memory_bytes: s.memory_bytes,
    /** the process's resident memory grown since before the engine (tables, rings, buffers, the JS heap's growth) */
    rss_bytes: rss,
    flow_table_full: s.flow_table_full,
    /** state a table or pool refused: a run with any is not a figure */
    refused: refusedState(s as unknown as Record<string, unknown>),
    /** the DPI and per-host pools' refusal counters, printed beside every figure */
    pools: { flow_info_full: s.flow_info_full, flow_meta_full: s.flow_meta_full, host_l7_pool_full: s.host_l7_pool_full, host_contacts_full: s.host_contacts_full, host_side_full: s.host_side_full },
    error: st.error,
    reassign_ms: reassignMs,
    /** the recorder bench: packets and captured bytes written, dropped */
    recorded: rec ? { packets: rec.packets, bytes: rec.bytes, drops: rec.drops, diskBytes: rec.diskBytes } : null,
    fileBytes: files.reduce((a, f) => a + statSync(f).size, 0),
  };
}

if (process.argv[1]?.endsWith('trial.js')) {
  const [mode, maxFlows, maxHosts, ...files] = process.argv.slice(2);
  const r = await trial(mode as Mode, files, Number(maxFlows), Number(maxHosts));
  process.stdout.write(JSON.stringify(r) + '\n');
}
