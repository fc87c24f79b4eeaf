// ⑧ Where timeseries points live: three tables of the historical store (one
// Backend: DuckDB or ClickHouse), one per resolution, each partitioned by
// UTC day so retention drops whole days:
//   ts_raw   the sampler's points (60 s interface, 300 s hosts and others)
//   ts_hour  1-hour rollups, ts_day 1-day rollups
// A row is one metric of one series at one time: (ifid, schema, tags,
// metric, tstamp, value, n). `tags` is the canonical 'k=v,…' text of the
// schema's tags after ifid; `tstamp` the start of the step the point covers.
// Counters hold what the step carried (a rollup: the sum), gauges the value
// (a rollup: the mean of its n points). A point written twice for one time
// (a capture replayed again after a restart) counts once: reads take max().
//
// Writes are queued and appended in batches off the tick; rollups and
// retention run on the same queue, after the points they depend on.
import { StoreError, type Backend, type ColumnDef, type Query, type Row, type SqlValue, type TableDef } from '../store/backend.js';
import { schemaByName, type MetricType } from './schemas.js';

export type Level = 'raw' | 'hour' | 'day';
export const LEVELS: readonly Level[] = ['raw', 'hour', 'day'];
export const LEVEL_STEP: Record<Exclude<Level, 'raw'>, number> = { hour: 3600, day: 86400 };

const COLUMNS: ColumnDef[] = [
  { name: 'ifid', type: 'u16' },
  { name: 'schema', type: 'str' },
  { name: 'tags', type: 'str' },
  { name: 'metric', type: 'str' },
  { name: 'tstamp', type: 'datetime' },
  { name: 'value', type: 'f64' },
  { name: 'n', type: 'u32' },
];
const table = (name: string): TableDef => ({ name, columns: COLUMNS, orderBy: ['ifid', 'schema', 'tags', 'metric', 'tstamp'], partitionBy: 'tstamp' });
export const TABLES: Record<Level, TableDef> = { raw: table('ts_raw'), hour: table('ts_hour'), day: table('ts_day') };

/** Days each resolution is kept (ntopng's RRD defaults for 60 s / 300 s schemas: 1 day, 100 days, 1 year). */
export interface Retention {
  raw: number;
  hour: number;
  day: number;
}
export const DEFAULT_RETENTION: Retention = { raw: 1, hour: 100, day: 365 };

/** `--ts-retention-days raw,hour,day` (e.g. "1,100,365"). */
export function parseRetention(text: string): Retention {
  const parts = text.split(',').map((s) => s.trim());
  const n = parts.map(Number);
  if (parts.length !== 3 || n.some((v) => !Number.isInteger(v) || v < 1 || v > 36500)) {
    throw new Error(`--ts-retention-days wants three whole numbers of days (1 minute/5 minute, hour, day points), e.g. 1,100,365; got '${text}'`);
  }
  return { raw: n[0], hour: n[1], day: n[2] };
}

export interface Point {
  ifid: number;
  schema: string;
  tags: string;
  metric: string;
  tstamp: number;
  value: number;
}

export interface StoredPoint {
  metric: string;
  tstamp: number;
  value: number;
}

const DAY = 86400;

/** 'YYYYMMDD' → epoch seconds of that UTC day's start. */
const dayStart = (d: string) => Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8)) / 1000;

/** The column builders of one pending batch. */
class Columns {
  readonly cols: unknown[][] = COLUMNS.map(() => []);
  rows = 0;
  minT = Infinity;
  push(ifid: number, schema: string, tags: string, metric: string, tstamp: number, value: number, n: number): void {
    const c = this.cols;
    c[0].push(ifid), c[1].push(schema), c[2].push(tags), c[3].push(metric), c[4].push(tstamp), c[5].push(value), c[6].push(n);
    this.rows++;
    if (tstamp < this.minT) this.minT = tstamp;
  }
}

export interface TsStoreStats {
  written: number;
  writeErrors: number;
  rollups: number;
  droppedDays: number;
  /** points dropped while the store was not open */
  dropped: number;
  lastError: string | null;
}

const MAX_UNCONNECTED = 2_000_000;

export class TsStore {
  private backendRef: Backend | null = null;
  private connected!: () => void;
  // Jobs wait for connect(): the sampler starts with the engines, the store may open later.
  private chain: Promise<void> = new Promise<void>((r) => (this.connected = r));
  private pending = new Columns();
  /** per ifid: rollups are done up to here (exclusive), by level */
  private readonly rolled = new Map<number, { hour: number; day: number }>();
  /** oldest day kept, per table (Infinity: empty) */
  private readonly floor: Record<Level, number> = { raw: Infinity, hour: Infinity, day: Infinity };
  /** newest boundary seen: retention's "now" (packet time, so replays keep their history) */
  private newest = 0;
  private retentionDay = 0;
  readonly stats: TsStoreStats = { written: 0, writeErrors: 0, rollups: 0, droppedDays: 0, dropped: 0, lastError: null };

  constructor(
    readonly retention: Retention = DEFAULT_RETENTION,
    private readonly log: (line: string) => void = (l) => console.error(l),
  ) {}

  /** The newest boundary seen (packet time, epoch s; 0 before any): the series' "now". */
  get clock(): number {
    return this.newest;
  }

  /** Creates the tables if needed and starts writing what was queued. */
  async connect(backend: Backend): Promise<void> {
    for (const l of LEVELS) await backend.ensureTable(TABLES[l]);
    this.backendRef = backend;
    await this.loadFloors();
    const rows = await backend.query({ sql: `SELECT max(${this.t}) AS t FROM ${TABLES.raw.name}`, params: [] });
    this.newest = Math.max(this.newest, Number(rows[0]?.t ?? 0) || 0);
    this.connected();
  }

  get isConnected(): boolean {
    return this.backendRef !== null;
  }

  private get backend(): Backend {
    if (!this.backendRef) throw new StoreError('unavailable', 'the timeseries store is not open');
    return this.backendRef;
  }

  /** tstamp as epoch seconds in an expression (ClickHouse DateTime is read as text otherwise) */
  private get t(): string {
    return this.backend.dialect === 'clickhouse' ? 'toUInt32(tstamp)' : 'tstamp';
  }
  /** the start of the `secs`-long bucket holding the epoch-seconds expression `e` (secs: a constant of ours) */
  private bucket(e: string, secs: number): string {
    return this.backend.dialect === 'clickhouse' ? `intDiv(${e}, ${secs}) * ${secs}` : `(${e} // ${secs}) * ${secs}`;
  }

  private async loadFloors(): Promise<void> {
    for (const l of LEVELS) {
      const parts = await this.backend.partitions(TABLES[l]);
      this.floor[l] = parts.length ? dayStart(parts[0].day) : Infinity;
    }
  }

  /** Queues points for the next append (the tick never waits for the database). */
  write(points: Iterable<Point>): void {
    for (const p of points) this.pending.push(p.ifid, p.schema, p.tags, p.metric, p.tstamp, p.value, 1);
    // Not open (yet): keep a bounded backlog, then drop and count.
    if (!this.backendRef && this.pending.rows > MAX_UNCONNECTED) {
      this.stats.dropped += this.pending.rows;
      this.pending = new Columns();
      return;
    }
    this.enqueue(() => this.flushPending());
  }

  /** Points waiting for their append. */
  get backlog(): number {
    return this.pending.rows;
  }

  /**
   * The sampler closed the steps of `ifid` up to `boundary`: hours and days
   * that ended by then are rolled up (after the points queued so far), and
   * days past retention dropped. `clock` false: a wall-clock writer (the
   * system interface's series) whose time must not move the packet-time
   * clock retention goes by.
   */
  stepClosed(ifid: number, boundary: number, clock = true): void {
    if (clock && boundary > this.newest) this.newest = boundary;
    const hourEnd = Math.floor(boundary / 3600) * 3600;
    const dayEnd = Math.floor(boundary / DAY) * DAY;
    const r = this.rolled.get(ifid);
    if (r && hourEnd <= r.hour && dayEnd <= r.day) return;
    this.enqueue(async () => {
      const done = await this.rolledUpTo(ifid);
      if (hourEnd > done.hour) {
        await this.rollup('raw', 'hour', ifid, done.hour, hourEnd);
        done.hour = hourEnd;
      }
      if (dayEnd > done.day) {
        await this.rollup('hour', 'day', ifid, done.day, dayEnd);
        done.day = dayEnd;
      }
    });
    const today = Math.floor(this.newest / DAY);
    if (today > this.retentionDay) {
      this.retentionDay = today;
      this.enqueue(() => this.applyRetention());
    }
  }

  /** Resolves once everything queued so far is written (and rolled up); at once while not connected. */
  flush(): Promise<void> {
    return this.backendRef ? this.chain : Promise.resolve();
  }

  private enqueue(job: () => Promise<void>): void {
    this.chain = this.chain.then(job).catch((e: unknown) => {
      this.stats.writeErrors++;
      this.stats.lastError = (e as Error).message ?? String(e);
      this.log(`flowgate: timeseries: ${this.stats.lastError}`);
    });
  }

  private async flushPending(): Promise<void> {
    const b = this.pending;
    if (!b.rows) return;
    this.pending = new Columns();
    await this.backend.append(TABLES.raw, { rows: b.rows, columns: b.cols });
    this.stats.written += b.rows;
    const d = Math.floor(b.minT / DAY) * DAY;
    if (d < this.floor.raw) this.floor.raw = d;
  }

  /** Where rollups of ifid stand: from memory, else from the tables (a restart). */
  private async rolledUpTo(ifid: number): Promise<{ hour: number; day: number }> {
    let r = this.rolled.get(ifid);
    if (r) return r;
    const last = async (l: Level, step: number) => {
      const rows = await this.backend.query({ sql: `SELECT max(${this.t}) AS t FROM ${TABLES[l].name} WHERE ifid = ?`, params: [ifid] });
      const t = rows.length && rows[0].t != null ? Number(rows[0].t) : NaN;
      return Number.isFinite(t) && t > 0 ? t + step : 0;
    };
    r = { hour: await last('hour', 3600), day: await last('day', DAY) };
    this.rolled.set(ifid, r);
    return r;
  }

  /**
   * Rolls `from`'s points in [begin, end) into `to`'s buckets: counters sum,
   * gauges the mean weighted by the points each value stands for.
   */
  private async rollup(from: Level, to: 'hour' | 'day', ifid: number, begin: number, end: number): Promise<void> {
    const secs = LEVEL_STEP[to];
    const rows = await this.backend.query({
      sql:
        `SELECT schema, tags, metric, ${this.bucket('ts', secs)} AS b, sum(v) AS s, sum(v * n) AS sw, sum(n) AS sn FROM (` +
        `SELECT schema, tags, metric, ${this.t} AS ts, max(value) AS v, max(n) AS n FROM ${TABLES[from].name} ` +
        `WHERE ifid = ? AND ${this.t} >= ? AND ${this.t} < ? GROUP BY schema, tags, metric, ts` +
        `) GROUP BY schema, tags, metric, b`,
      params: [ifid, begin, end],
    });
    if (!rows.length) return;
    const out = new Columns();
    for (const r of rows) {
      const schema = String(r.schema);
      const type: MetricType = schemaByName(schema)?.type ?? 'counter';
      const n = Number(r.sn);
      const value = type === 'counter' ? Number(r.s) : Number(r.sw) / n;
      out.push(ifid, schema, String(r.tags), String(r.metric), Number(r.b), value, n);
    }
    await this.backend.append(TABLES[to], { rows: out.rows, columns: out.cols });
    this.stats.rollups += out.rows;
    const d = Math.floor(out.minT / DAY) * DAY;
    if (d < this.floor[to]) this.floor[to] = d;
  }

  /** Drops whole days older than each resolution's retention, counted back from the newest point. */
  private async applyRetention(): Promise<void> {
    const today = Math.floor(this.newest / DAY) * DAY;
    for (const l of LEVELS) {
      const cutoff = today - this.retention[l] * DAY;
      const parts = await this.backend.partitions(TABLES[l]);
      for (const p of parts) {
        if (dayStart(p.day) >= cutoff) continue;
        await this.backend.dropPartition(TABLES[l], p.day);
        this.stats.droppedDays++;
      }
    }
    await this.loadFloors();
  }

  /**
   * The finest resolution holding `begin` (ntopng's RRD picks the archive
   * covering the start); when none does, the finest with any data before `end`.
   */
  levelFor(begin: number, end: number): Level {
    for (const l of LEVELS) if (this.floor[l] <= begin) return l;
    for (const l of LEVELS) if (this.floor[l] < end) return l;
    return 'raw';
  }

  /** Points of one series in [begin, end), one per (metric, tstamp). */
  async read(level: Level, ifid: number, schema: string, tags: string, begin: number, end: number): Promise<StoredPoint[]> {
    const rows = await this.backend.query({
      sql:
        `SELECT metric, ${this.t} AS ts, max(value) AS v FROM ${TABLES[level].name} ` +
        `WHERE ifid = ? AND schema = ? AND tags = ? AND ${this.t} >= ? AND ${this.t} < ? GROUP BY metric, ts ORDER BY ts`,
      params: [ifid, schema, tags, begin, end],
    });
    return rows.map((r) => ({ metric: String(r.metric), tstamp: Number(r.ts), value: Number(r.v) }));
  }

  /** Whether the series has a point before `t` and one at or after `u` (gaps inside a series are known-quiet steps). */
  async around(level: Level, ifid: number, schema: string, tags: string, t: number, u: number): Promise<{ before: boolean; after: boolean }> {
    const q = (cond: string, v: number): Query => ({
      sql: `SELECT count(*) AS c FROM ${TABLES[level].name} WHERE ifid = ? AND schema = ? AND tags = ? AND ${this.t} ${cond} ?`,
      params: [ifid, schema, tags, v],
    });
    const [b, a] = await Promise.all([this.backend.query(q('<', t)), this.backend.query(q('>=', u))]);
    return { before: Number(b[0]?.c ?? 0) > 0, after: Number(a[0]?.c ?? 0) > 0 };
  }

  /**
   * Series of a schema whose tags start with `prefix` ('' for all), with the
   * sum per metric of their values in [begin, end) (counters: what they carried).
   */
  async totals(level: Level, ifid: number, schema: string, prefix: string, begin: number, end: number): Promise<{ tags: string; metric: string; total: number }[]> {
    const params: SqlValue[] = [ifid, schema, begin, end];
    let cond = '';
    if (prefix) {
      // a prefix as a range: index-friendly and the same in both dialects
      cond = ' AND tags >= ? AND tags < ?';
      params.push(prefix, prefix + '\uffff');
    }
    const rows: Row[] = await this.backend.query({
      sql:
        `SELECT tags, metric, sum(v) AS total FROM (` +
        `SELECT tags, metric, ${this.t} AS ts, max(value) AS v FROM ${TABLES[level].name} ` +
        `WHERE ifid = ? AND schema = ? AND ${this.t} >= ? AND ${this.t} < ?${cond} GROUP BY tags, metric, ts` +
        `) GROUP BY tags, metric`,
      params,
    });
    return rows.map((r) => ({ tags: String(r.tags), metric: String(r.metric), total: Number(r.total) }));
  }
}
