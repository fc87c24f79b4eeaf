// ⑧ The historical store's SQL backends: DuckDB embedded in the data
// directory (default) and ClickHouse over HTTP (scale-out). Everything above
// this file (flows writer, flows queries, timeseries, later alerts) speaks
// to a Backend and never to a driver; what the two dialects spell
// differently lives in the two implementations and in `Dialect`.
import type { TextColumn } from './text-column.js';

/** Portable column types; each backend maps them to its own DDL type. */
export type ColType = 'u8' | 'u16' | 'u32' | 'u64' | 'i64' | 'f64' | 'str' | 'datetime';

export interface ColumnDef {
  name: string;
  type: ColType;
  /**
   * Not known yet: every row holds the default 0 / '' (ntopng's unknown
   * value). A partitioned table need not store it (DuckDB's view reads the
   * default, ClickHouse fills the column's DEFAULT); a batch still carries
   * the column and its values are ignored. Dropping the flag later stores
   * it from then on, older rows reading the default.
   */
  absent?: boolean;
}

export interface TableDef {
  name: string;
  columns: ColumnDef[];
  /** ClickHouse ORDER BY key (DuckDB ignores it) */
  orderBy: string[];
  /**
   * Column whose day (UTC) is the partition: ClickHouse PARTITION BY
   * toYYYYMMDD(col); DuckDB keeps one table per day behind a view. Retention
   * drops whole partitions.
   */
  partitionBy?: string;
}

/**
 * The typed array whose elements are a column type's values as both
 * backends take them (little-endian, DuckDB's vector and ClickHouse's
 * RowBinary alike): a column held in one is copied as it is.
 */
export const SAME: Partial<Record<ColType, Function>> = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  datetime: Uint32Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
  f64: Float64Array,
};

/** A value bound to a `?` placeholder. Text from a request only ever travels as one of these. */
export type SqlValue = number | bigint | string | boolean | null;

export interface Query {
  /** SQL with `?` placeholders; no value is ever spliced into this text */
  sql: string;
  params: SqlValue[];
}

export type Row = Record<string, unknown>;

/**
 * Rows to append, column-major: `columns[i][r]` is column i of row r (same
 * order as the table's columns). A column may be a plain array or a typed
 * array (the flow writer decodes straight into Uint32Array…, u64 columns
 * into BigUint64Array), a string column also a TextColumn (UTF-8 bytes).
 * Integers may be numbers or bigints; a missing value (null/undefined) is
 * stored as 0 or '' (no column is nullable, as in ntopng's schema).
 */
export interface Batch {
  rows: number;
  columns: Column[];
  /** columns other batches hold too (constants): sent to another thread, they are copied, never moved (batch-wire.ts) */
  shared?: ReadonlySet<unknown>;
}

export type Column = ArrayLike<unknown> | TextColumn;

export interface Backend {
  readonly dialect: 'duckdb' | 'clickhouse';
  /** where the data lives, for log lines ("duckdb /data/history.duckdb", "clickhouse http://…/db") */
  readonly description: string;
  /** creates the table (and its partitioning) if missing; idempotent */
  ensureTable(t: TableDef): Promise<void>;
  /** appends rows in one batch (DuckDB appender / ClickHouse INSERT … FORMAT RowBinary) */
  append(t: TableDef, batch: Batch): Promise<void>;
  /** runs a SELECT; numbers come back as number (bigint beyond 2^53), text as string */
  query(q: Query): Promise<Row[]>;
  /** partitions (UTC days, 'YYYYMMDD') of a partitioned table, oldest first, with their byte size */
  partitions(t: TableDef): Promise<{ day: string; bytes: number; rows: number }[]>;
  /** drops one day-partition */
  dropPartition(t: TableDef, day: string): Promise<void>;
  /**
   * Deletes the rows matching a condition (`where.sql`: column names and `?`
   * placeholders only, values bound) and resolves once they are gone
   * (DuckDB DELETE per day table; ClickHouse's ALTER TABLE … DELETE mutation,
   * waited for). Resolves to the rows deleted when the backend knows (DuckDB), else -1.
   */
  deleteWhere(t: TableDef, where: Query): Promise<number>;
  /**
   * Sets columns (not in the sort or partition key) of the rows matching a
   * condition, values bound; resolves once done (DuckDB UPDATE per day table;
   * ClickHouse's ALTER TABLE … UPDATE mutation, waited for). Resolves to the
   * rows changed when the backend knows (DuckDB), else -1.
   */
  updateWhere(t: TableDef, set: readonly { column: string; value: SqlValue }[], where: Query): Promise<number>;
  close(): Promise<void>;
}

/**
 * Why a store call failed: `unavailable` (cannot reach/open the store: the
 * service keeps serving the live API and reports it), `query` (the store
 * refused the statement: a bad query, an unknown column).
 */
export class StoreError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'query',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Table and column names come from code (TableDef), never from requests; still, refuse anything odd. */
export function checkIdent(name: string): string {
  if (!IDENT.test(name)) throw new StoreError('query', `invalid SQL identifier ${JSON.stringify(name)}`);
  return name;
}

/** The partition ('YYYYMMDD', UTC) holding an epoch-seconds time. */
export function dayOf(epochSec: number): string {
  const d = new Date(Math.floor(epochSec / 86400) * 86400_000);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** 64-bit results: a number when exact (|v| ≤ 2^53), else the bigint. */
export function intResult(v: bigint): number | bigint {
  return v <= 9007199254740992n && v >= -9007199254740992n ? Number(v) : v;
}

/** A column of the table by name (updateWhere's SET list): anything else is refused, never reaches SQL. */
export function columnOf(t: TableDef, name: string): string {
  if (!t.columns.some((c) => c.name === name)) throw new StoreError('query', `${t.name} has no column '${name}'`);
  return name;
}
