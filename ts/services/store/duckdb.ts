// The embedded historical store: one DuckDB file, <data-dir>/history.duckdb.
//
// DuckDB has no partitions, so a partitioned table is one table per UTC day
// (`flows_20240131`) behind a view with the table's own name (`flows`) that
// queries read; the view is recreated whenever a day table is added or
// dropped, and retention drops whole day tables. Appends go through data
// chunks (a column at a time into DuckDB's vectors: ~1.3 M rows/s measured
// here against ~0.8 M/s row by row). Queries run on their own connections so
// a long SELECT never waits behind the writer (DuckDB's MVCC isolates them).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import {
  BIGINT,
  DOUBLE,
  DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  UBIGINT,
  UINTEGER,
  USMALLINT,
  UTINYINT,
  VARCHAR,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';

import {
  StoreError,
  checkIdent,
  dayOf,
  intResult,
  type Backend,
  type Batch,
  type ColType,
  type ColumnDef,
  type Query,
  type Row,
  type SqlValue,
  type TableDef,
} from './backend.js';

const DDL: Record<ColType, string> = {
  u8: 'UTINYINT',
  u16: 'USMALLINT',
  u32: 'UINTEGER',
  u64: 'UBIGINT',
  i64: 'BIGINT',
  f64: 'DOUBLE',
  str: 'VARCHAR',
  datetime: 'UINTEGER', // epoch seconds, as ClickHouse's DateTime holds them
};
const CHUNK_TYPE: Record<ColType, DuckDBType> = {
  u8: UTINYINT,
  u16: USMALLINT,
  u32: UINTEGER,
  u64: UBIGINT,
  i64: BIGINT,
  f64: DOUBLE,
  str: VARCHAR,
  datetime: UINTEGER,
};
/** DuckDB's vector size: the most rows one data chunk holds */
const CHUNK_ROWS = 2048;
const DAY_SUFFIX = /_(\d{8})$/;

const q = (ident: string) => `"${checkIdent(ident)}"`;

/** A stored value in the column's own JS shape (missing → 0 / ''), refusing what the column cannot hold. */
function cell(type: ColType, v: unknown): DuckDBValue {
  switch (type) {
    case 'str':
      return v == null ? '' : String(v);
    case 'u64':
    case 'i64':
      if (typeof v === 'bigint') return v;
      return BigInt(Math.trunc(Number(v ?? 0)));
    default: {
      const n = Number(v ?? 0);
      if (!Number.isFinite(n)) throw new StoreError('query', `non-finite value for a ${type} column`);
      return n;
    }
  }
}

function normalizeRow(o: Record<string, unknown>): Row {
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'bigint') o[k] = intResult(v);
  }
  return o;
}

class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.tail.then(fn, fn);
    this.tail = p.catch(() => undefined);
    return p;
  }
}

interface TableState {
  def: TableDef;
  /** day tables present, 'YYYYMMDD' */
  days: Set<string>;
}

export class DuckDbBackend implements Backend {
  readonly dialect = 'duckdb' as const;
  readonly description: string;
  /** writer connection: DDL and appends, one at a time */
  private readonly serial = new Serial();
  private readonly tables = new Map<string, TableState>();
  /** idle reader connections, reused */
  private readonly readers: DuckDBConnection[] = [];
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
  ) {
    this.description = `duckdb ${path}`;
  }

  static async open(path: string): Promise<DuckDbBackend> {
    try {
      mkdirSync(dirname(path), { recursive: true });
      const instance = await DuckDBInstance.create(path);
      const writer = await instance.connect();
      return new DuckDbBackend(path, instance, writer);
    } catch (e) {
      throw new StoreError('unavailable', `duckdb ${path}: ${(e as Error).message}`, { cause: e });
    }
  }

  private live(): void {
    if (this.closed) throw new StoreError('unavailable', `${this.description}: closed`);
  }

  ensureTable(t: TableDef): Promise<void> {
    return this.serial.run(async () => {
      this.live();
      checkIdent(t.name);
      for (const c of t.columns) checkIdent(c.name);
      const existing = await this.listTables();
      if (!t.partitionBy) {
        await this.createOrMigrate(t.name, t.columns, existing);
        this.tables.set(t.name, { def: t, days: new Set() });
        return;
      }
      if (!t.columns.some((c) => c.name === t.partitionBy)) {
        throw new StoreError('query', `${t.name}: partition column ${t.partitionBy} is not a column`);
      }
      const days = new Set<string>();
      for (const name of existing.keys()) {
        const m = DAY_SUFFIX.exec(name);
        if (m && name === `${t.name}_${m[1]}`) {
          days.add(m[1]);
          await this.createOrMigrate(name, t.columns, existing);
        }
      }
      this.tables.set(t.name, { def: t, days });
      await this.rebuildView(this.tables.get(t.name)!);
    });
  }

  /** table name → its column names, for the tables of the main schema */
  private async listTables(): Promise<Map<string, Set<string>>> {
    const r = await this.writer.run(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'main' AND table_catalog = current_database()`,
    );
    const out = new Map<string, Set<string>>();
    for (const [tn, cn] of (await r.getRows()) as [string, string][]) {
      let s = out.get(tn);
      if (!s) out.set(tn, (s = new Set()));
      s.add(cn);
    }
    // views are listed there too: keep base tables only
    const v = await this.writer.run(`SELECT view_name FROM duckdb_views() WHERE NOT internal`);
    for (const [vn] of (await v.getRows()) as [string][]) out.delete(vn);
    return out;
  }

  /** Creates the table, or adds the columns a newer TableDef has (older rows read 0 / ''). */
  private async createOrMigrate(name: string, cols: ColumnDef[], existing: Map<string, Set<string>>): Promise<void> {
    const have = existing.get(name);
    if (!have) {
      await this.writer.run(`CREATE TABLE ${q(name)} (${cols.map((c) => `${q(c.name)} ${DDL[c.type]}`).join(', ')})`);
      existing.set(name, new Set(cols.map((c) => c.name)));
      return;
    }
    for (const c of cols) {
      if (have.has(c.name)) continue;
      const def = c.type === 'str' ? `''` : '0';
      await this.writer.run(`ALTER TABLE ${q(name)} ADD COLUMN ${q(c.name)} ${DDL[c.type]} DEFAULT ${def}`);
      have.add(c.name);
    }
  }

  /** The view over the day tables, columns named (not `*`) so older day tables line up. */
  private async rebuildView(st: TableState): Promise<void> {
    const cols = st.def.columns.map((c) => q(c.name)).join(', ');
    const days = [...st.days].sort();
    const body = days.length
      ? days.map((d) => `SELECT ${cols} FROM ${q(`${st.def.name}_${d}`)}`).join(' UNION ALL ')
      : `SELECT ${st.def.columns.map((c) => `CAST(NULL AS ${DDL[c.type]}) AS ${q(c.name)}`).join(', ')} WHERE false`;
    await this.writer.run(`CREATE OR REPLACE VIEW ${q(st.def.name)} AS ${body}`);
  }

  private state(t: TableDef): TableState {
    const st = this.tables.get(t.name);
    if (!st) throw new StoreError('query', `${t.name}: ensureTable() first`);
    return st;
  }

  append(t: TableDef, batch: Batch): Promise<void> {
    return this.serial.run(async () => {
      this.live();
      const st = this.state(t);
      if (batch.columns.length !== t.columns.length) {
        throw new StoreError('query', `${t.name}: batch has ${batch.columns.length} columns, table ${t.columns.length}`);
      }
      if (batch.rows === 0) return;
      if (!t.partitionBy) return this.appendRows(t.name, t.columns, batch, null);
      // Rows by day; a batch almost always falls in one day, so check that first.
      const pc = batch.columns[t.columns.findIndex((c) => c.name === t.partitionBy)];
      const first = dayOf(Number(pc[0] ?? 0));
      let byDay: Map<string, number[]> | null = null;
      const d0 = Math.floor(Number(pc[0] ?? 0) / 86400);
      for (let r = 1; r < batch.rows; r++) {
        if (Math.floor(Number(pc[r] ?? 0) / 86400) !== d0) {
          byDay = new Map();
          for (let i = 0; i < batch.rows; i++) {
            const d = dayOf(Number(pc[i] ?? 0));
            let l = byDay.get(d);
            if (!l) byDay.set(d, (l = []));
            l.push(i);
          }
          break;
        }
      }
      const groups: [string, number[] | null][] = byDay ? [...byDay] : [[first, null]];
      let added = false;
      for (const [day] of groups) {
        if (st.days.has(day)) continue;
        await this.writer.run(
          `CREATE TABLE IF NOT EXISTS ${q(`${t.name}_${day}`)} (${t.columns.map((c) => `${q(c.name)} ${DDL[c.type]}`).join(', ')})`,
        );
        st.days.add(day);
        added = true;
      }
      if (added) await this.rebuildView(st);
      for (const [day, rows] of groups) await this.appendRows(`${t.name}_${day}`, t.columns, batch, rows);
    });
  }

  /** Appends all rows of the batch (or the listed ones) in data chunks of DuckDB's vector size. */
  private async appendRows(table: string, cols: ColumnDef[], batch: Batch, rows: number[] | null): Promise<void> {
    const appender = await this.writer.createAppender(checkIdent(table));
    try {
      const types = cols.map((c) => CHUNK_TYPE[c.type]);
      const total = rows ? rows.length : batch.rows;
      for (let off = 0; off < total; off += CHUNK_ROWS) {
        const n = Math.min(CHUNK_ROWS, total - off);
        const chunk = DuckDBDataChunk.create(types, n);
        chunk.rowCount = n;
        for (let c = 0; c < cols.length; c++) {
          const vec = chunk.getColumnVector(c);
          const src = batch.columns[c];
          const type = cols[c].type;
          for (let i = 0; i < n; i++) vec.setItem(i, cell(type, src[rows ? rows[off + i] : off + i]));
          vec.flush();
        }
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
    } catch (e) {
      throw e instanceof StoreError ? e : new StoreError('query', `${this.description}: append to ${table}: ${(e as Error).message}`, { cause: e });
    } finally {
      appender.closeSync();
    }
  }

  async query(qy: Query): Promise<Row[]> {
    this.live();
    const conn = this.readers.pop() ?? (await this.instance.connect());
    try {
      const params = qy.params.map(bindValue);
      const r = await conn.run(qy.sql, params.length ? params : undefined);
      const rows = (await r.getRowObjectsJS()) as Record<string, unknown>[];
      for (const o of rows) normalizeRow(o);
      return rows;
    } catch (e) {
      throw new StoreError('query', `duckdb: ${(e as Error).message}`, { cause: e });
    } finally {
      if (this.closed) conn.closeSync();
      else this.readers.push(conn);
    }
  }

  partitions(t: TableDef): Promise<{ day: string; bytes: number; rows: number }[]> {
    return this.serial.run(async () => {
      this.live();
      const st = this.state(t);
      const out: { day: string; bytes: number; rows: number }[] = [];
      for (const day of [...st.days].sort()) {
        const name = `${t.name}_${day}`;
        const rows = Number(((await (await this.writer.run(`SELECT count(*) FROM ${q(name)}`)).getRows())[0][0]) as bigint);
        out.push({ day, rows, bytes: await this.tableBytes(name) });
      }
      return out;
    });
  }

  /**
   * Bytes a table takes in the file: its distinct storage blocks × the block
   * size. Rows not yet checkpointed (still in the WAL) have no block: they are
   * counted at their uncompressed column widths so a young day is not "free".
   */
  private async tableBytes(name: string): Promise<number> {
    const r = await this.writer.run(
      `SELECT count(DISTINCT block_id) FILTER (WHERE persistent) AS blocks,
              sum(count) FILTER (WHERE NOT persistent) AS unpersisted
         FROM pragma_storage_info(?)`,
      [name],
    );
    const [blocks, unpersisted] = (await r.getRows())[0] as [bigint | number, bigint | number | null];
    const bs = await this.blockSize();
    return Number(blocks) * bs + Number(unpersisted ?? 0) * 8;
  }

  private blockSizeCache = 0;
  private async blockSize(): Promise<number> {
    if (!this.blockSizeCache) {
      const r = await this.writer.run(`SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()`);
      this.blockSizeCache = Number((await r.getRows())[0][0]) || 262144;
    }
    return this.blockSizeCache;
  }

  dropPartition(t: TableDef, day: string): Promise<void> {
    return this.serial.run(async () => {
      this.live();
      if (!/^\d{8}$/.test(day)) throw new StoreError('query', `invalid partition ${JSON.stringify(day)}`);
      const st = this.state(t);
      if (!st.days.has(day)) return;
      st.days.delete(day);
      // the view first: it must never name a missing table
      await this.rebuildView(st);
      await this.writer.run(`DROP TABLE IF EXISTS ${q(`${t.name}_${day}`)}`);
    });
  }

  close(): Promise<void> {
    return this.serial.run(async () => {
      if (this.closed) return;
      this.closed = true;
      for (const c of this.readers.splice(0)) c.closeSync();
      this.writer.closeSync();
      this.instance.closeSync();
    });
  }
}

/** DuckDB binds JS values itself (number → INTEGER/BIGINT/DOUBLE, bigint → HUGEINT, string → VARCHAR). */
function bindValue(v: SqlValue): DuckDBValue {
  if (typeof v === 'number' && !Number.isFinite(v)) throw new StoreError('query', 'non-finite number bound to a query');
  return v;
}
