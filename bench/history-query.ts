// Query latency of the flows database, through the same service the
// endpoints use (parse → compile → backend → format): a where query (one
// client's TCP flows, ntopng's python-client form) and a top-k (the default
// keys IPV4_SRC_ADDR,IPV4_DST_ADDR,L7_PROTO by SUM(BYTES)), each run several
// times over a store filled with 10 M synthetic flows (bench/history.ts
// fillFlows: 7 days, 2,000 LAN clients); p50/p99 in ms, warm-up not counted.
// DuckDB, then ClickHouse when a server can be started; each in its own
// process. `npm run bench -- history` runs it after the insert figures;
// FLOWGATE_HISTORY_QUERY_ROWS changes the row count.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openStore } from '../ts/services/store/index.js';
import type { Backend } from '../ts/services/store/backend.js';
import { FLOW_COLUMNS, FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowsQuery, type Window } from '../ts/services/store/flows-query.js';
import { clickhouseAvailable, fillFlows } from './history.js';

export interface QueryBenchOptions {
  backend: Backend;
  /** figure name prefix: history (DuckDB) or history_clickhouse */
  prefix: string;
  /** the window covering the filled flows */
  window: Window;
  /** a client address present in the data (dotted) */
  client: string;
  runs?: number;
  /** where figure lines go (default stdout) */
  print?: (line: string) => void;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up: caches, first-use compilation
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

export async function historyQueryBench(o: QueryBenchOptions): Promise<Record<string, number>> {
  const s = new FlowsQuery(o.backend, { name: FLOWS_TABLE.name, columns: FLOW_COLUMNS });
  const runs = o.runs ?? 20;
  let whereRows = 0;
  const where = await timed(runs, async () => {
    const r = await s.flows(
      { select: 'IPV4_SRC_ADDR,IPV4_DST_ADDR,PROTOCOL,IP_SRC_PORT,IP_DST_PORT,L7_PROTO', where: `(IP_PROTOCOL_VERSION=4) AND IPV4_SRC_ADDR=("${o.client}") AND (PROTOCOL=6)`, maxhits: 10 },
      o.window,
    );
    whereRows = r.length;
  });
  let topkRows = 0;
  const topk = await timed(Math.max(5, Math.round(runs / 2)), async () => {
    topkRows = (await s.topk({ maxhits: 10 }, o.window)).length;
  });
  if (!whereRows || !topkRows) throw new Error(`${o.prefix}: the bench queries found no rows (where ${whereRows}, topk ${topkRows})`);
  const figures: Record<string, number> = {
    [`${o.prefix}_where_p50`]: pct(where, 50),
    [`${o.prefix}_where_p99`]: pct(where, 99),
    [`${o.prefix}_topk_p50`]: pct(topk, 50),
    [`${o.prefix}_topk_p99`]: pct(topk, 99),
  };
  const print = o.print ?? console.log;
  for (const [k, v] of Object.entries(figures)) print(`${k}: ${v.toFixed(1)} ms`);
  return figures;
}

const ROWS = Number(process.env.FLOWGATE_HISTORY_QUERY_ROWS ?? 10_000_000);
/** the fill's last second (fixed: the same data every run) */
const END = 1_763_900_000;

/** One backend in this process: fill, then time the queries; figures as JSON on stdout. */
async function trial(clickhouse: boolean): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-hq-'));
  const { startClickHouse } = await import('../test/fixtures/clickhouse.js');
  const srv = clickhouse ? await startClickHouse() : null;
  try {
    const backend = await openStore({ dataDir: dir, clickhouse: srv ? { url: srv.url('bench') } : null });
    try {
      const t0 = performance.now();
      await fillFlows(backend, { rows: ROWS, days: 7, endSec: END });
      const fillSecs = (performance.now() - t0) / 1000;
      // the fill's clients are 192.168.0.1 … 192.168.7.208; this one has ~4,000 flows
      const figures = await historyQueryBench({
        backend,
        prefix: clickhouse ? 'history_clickhouse' : 'history',
        window: { begin: END - 8 * 86400, end: END, ifid: 0 },
        client: '192.168.3.1',
        print: () => undefined,
      });
      return { ...figures, fillSecs };
    } finally {
      await backend.close();
    }
  } finally {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function historyQueriesBench(print: (line: string) => void = console.log): Promise<void> {
  for (const ch of [false, true]) {
    if (ch && !clickhouseAvailable()) {
      print('history_clickhouse_where_p50: skipped (clickhouse-server not installed)');
      continue;
    }
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'trial', ch ? 'ch' : ''], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
    print(`${ch ? 'history_clickhouse' : 'history'}_query_rows: ${ROWS} flows (filled in ${r.fillSecs.toFixed(0)} s)`);
    for (const [k, v] of Object.entries(r)) if (k !== 'fillSecs') print(`${k}: ${v.toFixed(1)} ms`);
  }
}

if (process.argv[1]?.endsWith('history-query.js')) {
  if (process.argv[2] === 'trial') process.stdout.write(JSON.stringify(await trial(process.argv[3] === 'ch')) + '\n');
  else await historyQueriesBench();
}
