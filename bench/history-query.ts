// Query latency of the flows database, through the same service the
// endpoints use (parse → compile → backend → format): a where query (one
// client's TCP flows, ntopng's python-client form) and a top-k (the default
// keys IPV4_SRC_ADDR,IPV4_DST_ADDR,L7_PROTO by SUM(BYTES)), each run several
// times over a filled store; p50/p99 in ms. The store is filled by the
// caller (bench/history.ts); warm-up runs are not counted.
import type { Backend } from '../ts/services/store/backend.js';
import { FLOW_COLUMNS, FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowsQuery, type Window } from '../ts/services/store/flows-query.js';

export interface QueryBenchOptions {
  backend: Backend;
  /** figure name prefix: history (DuckDB) or history_clickhouse */
  prefix: string;
  /** the window covering the filled flows */
  window: Window;
  /** a client address present in the data (dotted) */
  client: string;
  runs?: number;
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
  for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v.toFixed(1)} ms`);
  return figures;
}
