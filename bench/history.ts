// Historical store: can the writer keep up with the engine? The pipeline
// benchmark's capture (200 k flows, 2 M packets, 60 s; bench/run.ts) goes
// through the full pipeline (its settings, default timeouts, every flow
// expired at the end) while the expired records are drained and kept
// (expiry rate: records per second of the pipeline run, ring large enough
// to drop none); then the same records are decoded and appended to a fresh
// DuckDB file in the writer's batches (insert rate: rows per second), and to
// ClickHouse when a server can be started. Each trial runs in a fresh
// process; best of FLOWGATE_BENCH_ROUNDS (default 3).
//   npm run bench -- history
// Prints history_expiry_rate, history_insert_rate, history_insert_vs_expiry
// (and *_clickhouse). Also exports fillFlows(): a store filled with N
// synthetic, realistic flows, for the query benchmarks.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { Engine, expiredLayout } from '../ts/bindings/engine.js';
import type { Backend } from '../ts/services/store/backend.js';
import { FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { useRecordLayout } from '../ts/services/store/flow-batch.js';
import { FlowSink } from '../ts/services/store/flow-sink.js';
import { openStore } from '../ts/services/store/index.js';
import { WorkerBackend } from '../ts/services/store/worker-backend.js';
import { generate } from './gen/generate.js';
import { refusedState } from './trial.js';

const here = dirname(fileURLToPath(import.meta.url));
const REC = expiredLayout.size;
const BATCH = Number(process.env.FLOWGATE_HISTORY_BATCH ?? 16384);

type Print = (line: string) => void;

/**
 * The flow writer's back half for a store: raw records pushed as the writer
 * pushes them (to the store worker's sink, buffers transferred; or a sink on
 * this thread for a Backend made here), nothing dropped (queue unbounded).
 */
async function rawSink(backend: Backend, runIds: Map<number, number>) {
  const o = { batchRows: BATCH, flushMs: 1000, maxQueued: 1e9, instanceName: 'bench' };
  if (backend instanceof WorkerBackend) {
    await backend.openFlows(expiredLayout, o, { buffer: () => undefined, counts: () => undefined, log: (l) => console.error(l) });
    for (const [ifid, runId] of runIds) await backend.attachFlows(ifid, runId, 1e9);
    return { push: (ifid: number, c: Uint8Array) => backend.pushFlows(ifid, c.buffer as ArrayBuffer, c.byteLength / REC, c.byteLength), flush: () => backend.flushFlows() };
  }
  useRecordLayout(expiredLayout);
  const sink = new FlowSink(backend, o, { counts: () => undefined, log: (l) => console.error(l) });
  for (const [ifid, runId] of runIds) sink.attach(ifid, runId, 1e9);
  return { push: (ifid: number, c: Uint8Array) => sink.push(ifid, c, c.byteLength / REC), flush: async () => (await sink.flush(), sink.close()) };
}

/** Writes raw records (REC bytes each, chunks own their buffers: they are transferred) as the writer does; rows written. */
async function appendRecords(backend: Backend, chunks: Uint8Array[], ifid = 0, runId = 1): Promise<number> {
  const sink = await rawSink(backend, new Map([[ifid, runId]]));
  for (const c of chunks) sink.push(ifid, c);
  await sink.flush();
  const r = await backend.query({ sql: 'SELECT count(*) AS n FROM flows', params: [] });
  return Number(r[0]!.n);
}

interface TrialResult {
  records: number;
  pipelineSecs: number;
  ringDrops: number;
  /** pools or tables that refused state during the pipeline run (none, or the run is not a figure) */
  refused: Record<string, number>;
  insertSecs: number;
  /** the DuckDB checkpoint that follows (runs on DuckDB's threads, off the event loop) */
  checkpointSecs: number;
  rows: number;
  /** the event loop's worst delay while the DuckDB insert ran (ms) */
  loopMaxMs: number;
  chInsertSecs: number | null;
}

/** One trial (own process): the pipeline with its records kept, then the inserts. */
async function trial(file: string, withClickHouse: boolean): Promise<TrialResult> {
  const chunks: Uint8Array[] = [];
  const buf = new ArrayBuffer(REC * 4096);
  // the table sized so that no pool refuses state (bench/run.ts says why)
  // one worker, as every part but `workers`: figures comparable across machines
  const e = new Engine({ files: [file], workers: 1, flushAtEnd: true, prefault: true, maxFlows: 1 << 22, maxHosts: 65_536, hostSideShare: 1, ringRecords: 1 << 18 });
  const drain = () => {
    for (;;) {
      const n = e.drainExpiredRaw(buf);
      if (n) chunks.push(new Uint8Array(buf.slice(0, n * REC)));
      if (n < 4096) break;
    }
  };
  e.onExpired(drain);
  const t0 = process.hrtime.bigint();
  e.start();
  await e.waitDone();
  drain();
  const pipelineSecs = Number(process.hrtime.bigint() - t0) / 1e9;
  const ringDrops = e.stats().expired_ring_drops;
  const refused = refusedState(e.stats() as unknown as Record<string, unknown>);
  e.close();
  const records = chunks.reduce((a, c) => a + c.byteLength / REC, 0);

  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'flowgate-hist-bench-'));
  let insertSecs = 0, rows = 0, checkpointSecs = 0, loopMaxMs = 0;
  try {
    const backend = await openStore({ dataDir: dir });
    await backend.ensureTable(FLOWS_TABLE);
    const mine = withClickHouse ? chunks.map((c) => c.slice()) : chunks;
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const t1 = process.hrtime.bigint();
    rows = await appendRecords(backend, mine);
    insertSecs = Number(process.hrtime.bigint() - t1) / 1e9;
    loop.disable();
    loopMaxMs = loop.max / 1e6;
    const t2 = process.hrtime.bigint();
    await backend.query({ sql: 'CHECKPOINT', params: [] });
    checkpointSecs = Number(process.hrtime.bigint() - t2) / 1e9;
    await backend.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  let chInsertSecs: number | null = null;
  if (withClickHouse) {
    const { startClickHouse } = await import('../test/fixtures/clickhouse.js');
    const srv = await startClickHouse();
    try {
      const backend = await openStore({ dataDir: '', clickhouse: { url: srv.url('bench') } });
      await backend.ensureTable(FLOWS_TABLE);
      const t1 = process.hrtime.bigint();
      await appendRecords(backend, chunks);
      chInsertSecs = Number(process.hrtime.bigint() - t1) / 1e9;
      await backend.close();
    } finally {
      await srv.stop();
    }
  }
  return { records, pipelineSecs, ringDrops, refused, insertSecs, checkpointSecs, rows, loopMaxMs, chInsertSecs };
}

/** A clickhouse-server binary is on PATH (the ClickHouse figures are taken with it). */
export function clickhouseAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v clickhouse-server'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function historyBench(print: Print = console.log): Promise<void> {
  const rounds = Number(process.env.FLOWGATE_BENCH_ROUNDS ?? 3);
  const dir = join(here, '..', '..', 'bench', 'out');
  mkdirSync(dir, { recursive: true });
  // the same file (name and seed) as bench/run.ts's pipeline capture
  const file = join(dir, 'mix-200000f-2000000p-10000h.pcap');
  if (!existsSync(file) || statSync(file).size === 0) generate({ out: file, flows: 200_000, packets: 2_000_000, hosts: 10_000, seed: 7 });
  const ch = clickhouseAvailable();
  // best of the rounds for each rate (the expiry rate's best is the bar the writer must clear)
  let b: TrialResult | null = null;
  let expiry = 0, insert = 0, withCheckpoint = 0, bestCh = Infinity, loopMax = 0;
  for (let i = 0; i < rounds; i++) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'trial', file, ch && i === 0 ? 'ch' : ''], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = JSON.parse(out.trim().split('\n').pop()!) as TrialResult;
    if (r.rows !== r.records || r.ringDrops) throw new Error(`trial lost records: ${JSON.stringify(r)}`);
    if (Object.keys(r.refused).length) throw new Error(`trial: state refused ${JSON.stringify(r.refused)}: not a figure`);
    if (r.chInsertSecs !== null) bestCh = Math.min(bestCh, r.chInsertSecs);
    expiry = Math.max(expiry, r.records / r.pipelineSecs);
    insert = Math.max(insert, r.rows / r.insertSecs);
    withCheckpoint = Math.max(withCheckpoint, r.rows / (r.insertSecs + r.checkpointSecs));
    loopMax = Math.max(loopMax, r.loopMaxMs);
    b = r;
  }
  b = b!;
  print(`history_capture: 200000 flows, 2000000 packets, ${b.records} expired records (ring drops ${b.ringDrops}), ${b.rows} rows`);
  print(`history_expiry_rate: ${Math.round(expiry)} flows/s`);
  print(`history_insert_rate: ${Math.round(insert)} flows/s`);
  print(`history_insert_vs_expiry: ${(insert / expiry).toFixed(2)} x`);
  // DuckDB's checkpoint (WAL into the file, compressed) runs on its own threads; counted in series here
  print(`history_insert_rate_with_checkpoint: ${Math.round(withCheckpoint)} flows/s (${(withCheckpoint / expiry).toFixed(2)} x)`);
  // the main thread only drains and transfers: decoding and appends run on the store's worker
  print(`history_event_loop_max_delay: ${loopMax.toFixed(1)} ms (worst of the rounds, while the insert ran)`);
  if (Number.isFinite(bestCh)) {
    const chRate = b.rows / bestCh;
    print(`history_insert_rate_clickhouse: ${Math.round(chRate)} flows/s`);
    print(`history_insert_vs_expiry_clickhouse: ${(chRate / expiry).toFixed(2)} x`);
  } else {
    print('history_insert_rate_clickhouse: skipped (clickhouse-server not installed)');
  }
}

// ---------------------------------------------------------------- synthetic fill

/** Deterministic xorshift stream */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const HOSTNAMES = ['www.google.com', 'api.github.com', 'www.ntop.org', 'cdn.jsdelivr.net', 'www.youtube.com', 'graph.facebook.com', 'outlook.office365.com', 'dns.google', 'www.wikipedia.org', 'speedtest.net'];
// [master, app, category, proto, server port, share]
const APPS: [number, number, number, number, number, number][] = [
  [91, 126, 5, 6, 443, 0.3], // TLS.Google
  [91, 0, 5, 6, 443, 0.15], // TLS
  [5, 0, 14, 17, 53, 0.2], // DNS
  [7, 0, 5, 6, 80, 0.1], // HTTP
  [188, 126, 5, 17, 443, 0.1], // QUIC.Google
  [92, 0, 15, 6, 22, 0.05], // SSH
  [9, 0, 14, 17, 123, 0.05], // NTP
  [0, 0, 0, 17, 5000, 0.05], // Unknown UDP
];

export interface FillOptions {
  rows: number;
  /** days the flows spread over, ending at `endSec` (default 7) */
  days?: number;
  endSec?: number;
  seed?: number;
  /** ifids used (default [0]) */
  ifids?: number[];
  onProgress?: (rows: number) => void;
}

/**
 * Fills the flows table with `rows` synthetic flows shaped like a LAN's
 * (2,000 local clients in 192.168/16, 20 % IPv6, 500 servers, TLS/DNS/HTTP/
 * QUIC/SSH/NTP mix, heavy-tailed sizes, INFO names), through the writer's own
 * path (raw records to the store's flow sink, decoded and appended in 16 k-row
 * batches there). Returns rows/s.
 */
export async function fillFlows(backend: Backend, o: FillOptions): Promise<number> {
  await backend.ensureTable(FLOWS_TABLE);
  const r = rng(o.seed ?? 42);
  const F = expiredLayout.fields;
  const days = o.days ?? 7;
  const end = o.endSec ?? Math.floor(Date.now() / 1000);
  const start = end - days * 86400;
  const ifids = o.ifids ?? [0];
  const sink = await rawSink(backend, new Map(ifids.map((i) => [i, 1_000 + i])));
  const CHUNK = 4096;
  const chunks = ifids.map(() => ({ b: new Uint8Array(REC * CHUNK), n: 0 }));
  const send = (k: number) => {
    const c = chunks[k]!;
    if (c.n) sink.push(ifids[k]!, c.b.subarray(0, c.n * REC).slice());
    c.n = 0;
  };
  const raw = new Uint8Array(REC);
  const v = new DataView(raw.buffer);
  const enc = new TextEncoder();
  const cum = APPS.reduce<number[]>((a, x) => [...a, (a[a.length - 1] ?? 0) + x[5]], []);
  const setIp = (off: number, six: boolean, host: number, local: boolean) => {
    raw.fill(0, off, off + 16);
    if (six) {
      raw[off] = local ? 0xfd : 0x2a;
      raw[off + 1] = local ? 0x00 : 0x00;
      v.setUint32(off + 12, host, false);
    } else {
      raw[off + 10] = 0xff;
      raw[off + 11] = 0xff;
      v.setUint32(off + 12, local ? (0xc0a80000 | (host & 0xffff)) >>> 0 : (0x5db80000 + host) >>> 0, false);
    }
  };
  const setStr = (off: number, len: number, s: string) => {
    raw.fill(0, off, off + len);
    raw.set(enc.encode(s).subarray(0, len - 1), off);
  };
  const setU64 = (off: number, n: number) => {
    v.setUint32(off, n % 0x100000000, true);
    v.setUint32(off + 4, Math.floor(n / 0x100000000), true);
  };
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < o.rows; i++) {
    const x = r();
    const a = APPS[cum.findIndex((c) => x < c)] ?? APPS[0];
    const six = r() < 0.2;
    const first = start + Math.floor(((end - start) * i) / o.rows);
    const dur = a[3] === 17 && a[4] === 53 ? 0 : Math.floor(-Math.log(1 - r()) * 30);
    const pk0 = 1 + Math.floor(-Math.log(1 - r()) * 8), pk1 = a[4] === 53 ? 1 : Math.floor(pk0 * (0.5 + r()));
    const by0 = pk0 * (60 + Math.floor(r() * 400)), by1 = pk1 * (60 + Math.floor(r() * 1400));
    setIp(F.cli_ip.off, six, Math.floor(r() * 2000) + 1, true);
    setIp(F.srv_ip.off, six, Math.floor(Math.pow(r(), 3) * 500) + 1, a[4] === 5000);
    setU64(F.first_ns.off, first * 1e9);
    setU64(F.last_ns.off, (first + dur) * 1e9);
    setU64(F.cli2srv_bytes.off, by0);
    setU64(F.srv2cli_bytes.off, by1);
    v.setUint32(F.cli2srv_pkts.off, pk0, true);
    v.setUint32(F.srv2cli_pkts.off, pk1, true);
    v.setUint32(F.serial.off, i, true);
    v.setUint16(F.cli_port.off, 1024 + Math.floor(r() * 64000), true);
    v.setUint16(F.srv_port.off, a[4], true);
    v.setUint16(F.vlan.off, r() < 0.1 ? 10 + Math.floor(r() * 10) : 0, true);
    v.setUint16(F.l7_master.off, a[0], true);
    v.setUint16(F.l7_app.off, a[1] || a[0], true);
    v.setUint16(F.l7_category.off, a[2], true);
    raw[F.proto.off] = a[3];
    raw[F.ip_version.off] = six ? 6 : 4;
    raw[F.cli_flags.off] = a[3] === 6 ? 0x1b : 0;
    raw[F.srv_flags.off] = a[3] === 6 ? 0x1b : 0;
    raw[F.kind.off] = 0;
    raw[F.cli_location.off] = 1;
    raw[F.srv_location.off] = a[4] === 5000 ? 1 : 0;
    setU64(F.risks.off, r() < 0.05 ? 2 ** Math.floor(r() * 40) : 0);
    const name = a[0] === 91 || a[0] === 188 || a[0] === 7 || a[0] === 5 ? HOSTNAMES[Math.floor(r() * HOSTNAMES.length)]! : '';
    setStr(F.info.off, F.info.len, a[0] === 7 ? `${name}/index.html` : name);
    setStr(F.srv_name.off, F.srv_name.len, a[0] === 5 ? '' : name);
    setStr(F.cli_name.off, F.cli_name.len, '');
    const k = i % ifids.length;
    const c = chunks[k]!;
    c.b.set(raw, c.n++ * REC);
    if (c.n === CHUNK) send(k);
    if ((i + 1) % BATCH === 0) o.onProgress?.(i + 1);
  }
  ifids.forEach((_, k) => send(k));
  await sink.flush();
  return o.rows / (Number(process.hrtime.bigint() - t0) / 1e9);
}

if (process.argv[1]?.endsWith('history.js')) {
  if (process.argv[2] === 'trial') {
    const r = await trial(process.argv[3]!, process.argv[4] === 'ch');
    process.stdout.write(JSON.stringify(r) + '\n');
  } else await historyBench();
}
