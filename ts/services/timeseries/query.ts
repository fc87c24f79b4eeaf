// ⑧ Reading series back, with ntopng's ts.lua semantics (ts_utils.query,
// ts_common.lua): the resolution whose points cover the start of the range,
// counters as per-second rates (what a step carried / its length), gauges as
// values, at most `limit` points (groups of points averaged, as ntopng's
// sampleSeries does), missing points null (ntopng's NaN, which its JSON
// writes as null), and the statistics ntopng computes over a series.
//
// Gaps inside a series (between two of its points) are steps the engine saw
// pass without this series changing — the quiet minutes a replay jumps over —
// and read as 0 for counters and as the previous value for gauges. Totals are
// the sums of the stored deltas, so they equal the bytes (packets …) exactly.
import type { Schema } from './schemas.js';
import { LEVEL_STEP, type Level, type TsStore } from './store.js';

export interface SeriesQuery {
  schema: Schema;
  ifid: number;
  /** canonical tags text (tagsText) */
  tags: string;
  begin: number;
  end: number;
  /** maximum number of points */
  limit: number;
}

export interface MetricData {
  metric: string;
  /** per point: a rate (counters) or a value (gauges); null where unknown */
  data: (number | null)[];
  /** counters: what the points carried over the range (exact); gauges: null */
  total: number | null;
}

export interface SeriesData {
  level: Level;
  /** the first point's time */
  start: number;
  /** seconds between points after downsampling */
  step: number;
  count: number;
  metrics: MetricData[];
}

export async function querySeries(store: TsStore, q: SeriesQuery): Promise<SeriesData> {
  const level = store.levelFor(q.begin, q.end);
  const step0 = level === 'raw' ? q.schema.step : LEVEL_STEP[level];
  const start = Math.floor(q.begin / step0) * step0;
  const n0 = q.end > start ? Math.ceil((q.end - start) / step0) : 0;
  const end = start + n0 * step0;
  const points = n0 ? await store.read(level, q.ifid, q.schema.name, q.tags, start, end) : [];
  const edges = n0 ? await store.around(level, q.ifid, q.schema.name, q.tags, start, end) : { before: false, after: false };
  const counter = q.schema.type === 'counter';

  const metrics: MetricData[] = q.schema.metrics.map((metric) => {
    const raw: (number | null)[] = new Array(n0).fill(null);
    let total = 0;
    for (const p of points) {
      if (p.metric !== metric) continue;
      raw[(p.tstamp - start) / step0] = p.value;
      total += p.value;
    }
    fillInnerGaps(raw, edges.before, edges.after, counter);
    const data = counter ? raw.map((v) => (v === null ? null : v / step0)) : raw;
    return { metric, data, total: counter ? total : null };
  });

  let step = step0;
  let count = n0;
  if (n0 > q.limit && q.limit > 0) {
    const k = Math.ceil(n0 / q.limit);
    for (const m of metrics) m.data = downsample(m.data, k);
    step = step0 * k;
    count = metrics[0]?.data.length ?? 0;
  }
  return { level, start, step, count, metrics };
}

/**
 * Unknown points with a known point (or the series' data outside the range)
 * on both sides become 0 (counters) or the previous value (gauges).
 */
function fillInnerGaps(v: (number | null)[], before: boolean, after: boolean, counter: boolean): void {
  let last = -1;
  for (let i = 0; i < v.length; i++) if (v[i] !== null) last = i;
  const lastKnown = after ? v.length : last;
  let seen = before;
  let prevVal: number | null = null;
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== null) {
      seen = true;
      prevVal = v[i];
      continue;
    }
    if (!seen || i > lastKnown) continue;
    if (counter) v[i] = 0;
    else if (prevVal !== null) v[i] = prevVal;
  }
}

/** ntopng's sampleSeries: groups of k points averaged, unknown points counted as 0, a group of unknowns unknown. */
function downsample(data: (number | null)[], k: number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = 0; i < data.length; i += k) {
    let sum = 0;
    let known = false;
    const g = Math.min(k, data.length - i);
    for (let j = i; j < i + g; j++) {
      const x = data[j];
      if (x !== null) (sum += x), (known = true);
    }
    out.push(known ? sum / g : null);
  }
  return out;
}

export interface Statistics {
  total?: number;
  average: number | null;
  '95th_percentile': number | null;
  min_val: number | null;
  max_val: number | null;
  min_val_idx: number;
  max_val_idx: number;
}

/**
 * ts_common.calculateStatistics + calculateMinMax over one series: average
 * of the known points, ntopng's 95th percentile (sorted, unknown as 0, the
 * element at round(0.95·n) − 1 in its 1-based list), the smallest and
 * largest known values and their 0-based positions.
 */
export function statistics(data: readonly (number | null)[], total: number | null): Statistics {
  let sum = 0;
  let known = 0;
  let min: number | null = null;
  let max: number | null = null;
  let minIdx = 0;
  let maxIdx = 0;
  data.forEach((v, i) => {
    if (v === null) return;
    sum += v;
    known++;
    if (min === null || v < min) (min = v), (minIdx = i);
    if (max === null || v > max) (max = v), (maxIdx = i);
  });
  const s: Statistics = {
    average: known ? sum / known : null,
    '95th_percentile': percentile95(data),
    min_val: min,
    max_val: max,
    min_val_idx: minIdx,
    max_val_idx: maxIdx,
  };
  if (total !== null) s.total = total;
  return s;
}

function percentile95(data: readonly (number | null)[]): number | null {
  if (data.length === 0) return 0;
  if (data.length === 1) return data[0];
  if (data.every((v) => v === null)) return null;
  const sorted = data.map((v) => v ?? 0).sort((a, b) => a - b);
  // Lua: n = floor(0.95·#N + 0.5); N[n − 1] (1-based), i.e. index n − 2; nil (→ 0) below the list
  const i = Math.floor(0.95 * sorted.length + 0.5) - 2;
  return i >= 0 ? sorted[i] : 0;
}

/** Per point, the sum of the known values of every metric (ntopng's makeTotalSerie: unknowns count as 0). */
export function totalSerie(metrics: readonly MetricData[], count: number): number[] {
  const out: number[] = new Array(count).fill(0);
  for (const m of metrics) m.data.forEach((v, i) => v !== null && (out[i] += v));
  return out;
}
