// ⑧ The historical store's SQL backends: DuckDB embedded in the data
// directory (default) and ClickHouse over HTTP (scale-out). Everything above
// this file (flows writer, flows queries, timeseries, later alerts) speaks
// to a Backend and never to a driver; what the two dialects spell
// differently lives in the two implementations and in `Dialect`.

/** Portable column types; each backend maps them to its own DDL type. */
export type ColType = 'u8' | 'u16' | 'u32' | 'u64' | 'i64' | 'f64' | 'str' | 'datetime';

export interface ColumnDef {
  name: string;
  type: ColType;
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

/** A value bound to a `?` placeholder. Text from a request only ever travels as one of these. */
export type SqlValue = number | bigint | string | boolean | null;

export interface Query {
  /** SQL with `?` placeholders; no value is ever spliced into this text */
  sql: string;
  params: SqlValue[];
}

export type Row = Record<string, unknown>;

/** Rows to append, column-major: `columns[i][r]` is column i of row r (same order as the table's columns). */
export interface Batch {
  rows: number;
  columns: unknown[][];
}

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
  close(): Promise<void>;
}
