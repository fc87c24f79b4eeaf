// The scale-out historical store: ClickHouse over its HTTP interface (port
// 8123), no driver. Tables are MergeTree, PARTITION BY toYYYYMMDD(<time>)
// as ntopng's schema has them; appends are one `INSERT … FORMAT RowBinary`
// per batch (encoded here: little-endian fixed widths, varint-prefixed
// strings, DateTime = UInt32 seconds); SELECTs answer `FORMAT JSON`.
//
// ClickHouse 18.16 (what Debian ships, what CI installs) has no bound
// parameters on HTTP, so `renderSql` is the ONE place where a value becomes
// SQL text: each `?` outside quotes/comments is replaced by a literal built
// from the typed value (finite numbers, escaped quoted strings). The SQL
// text itself never carries request text.
import {
  StoreError,
  checkIdent,
  intResult,
  type Backend,
  type Batch,
  type ColType,
  type Column,
  type ColumnDef,
  type Query,
  type Row,
  type SqlValue,
  columnOf,
  SAME,
  type TableDef,
} from './backend.js';
import { TextColumn } from './text-column.js';

export interface ClickHouseOptions {
  /** http(s)://host:8123/<database> (database default `flowgate`); user:password@ in the URL also works */
  url: string;
  user?: string;
  password?: string;
  /** per-request timeout (default 60 s) */
  timeoutMs?: number;
}

const DDL: Record<ColType, string> = {
  u8: 'UInt8',
  u16: 'UInt16',
  u32: 'UInt32',
  u64: 'UInt64',
  i64: 'Int64',
  f64: 'Float64',
  str: 'String',
  datetime: "DateTime('UTC')",
};

const q = (ident: string) => `\`${checkIdent(ident)}\``;

// ---------------------------------------------------------------- literals

/** One value as a ClickHouse literal. */
export function sqlLiteral(v: SqlValue): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'boolean':
      return v ? '1' : '0';
    case 'bigint':
      return v < 0n ? `(${v})` : String(v);
    case 'number':
      if (!Number.isFinite(v)) throw new StoreError('query', 'non-finite number bound to a query');
      // parenthesized when negative: `a-?` must not become the comment `a--1`
      return v < 0 || Object.is(v, -0) ? `(${v})` : String(v);
    case 'string':
      return quoteString(v);
    default:
      throw new StoreError('query', `cannot bind a ${typeof v}`);
  }
}

function quoteString(s: string): string {
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch === 0x27) out += "\\'";
    else if (ch === 0x5c) out += '\\\\';
    else if (ch < 0x20 || ch === 0x7f) out += `\\x${ch.toString(16).padStart(2, '0')}`;
    else out += s[i];
  }
  return out + "'";
}

/**
 * Replaces each `?` placeholder with its value's literal, skipping `?` inside
 * '…' strings, "…"/`…` identifiers and comments; the count must match.
 */
export function renderSql(sql: string, params: readonly SqlValue[]): string {
  let out = '';
  let p = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < n) {
        if (sql[j] === '\\') j += 2;
        else if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2; // doubled quote
          else break;
        } else j++;
      }
      if (j >= n) throw new StoreError('query', 'unterminated quote in SQL');
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i);
      const end = j < 0 ? n : j;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2);
      if (j < 0) throw new StoreError('query', 'unterminated comment in SQL');
      out += sql.slice(i, j + 2);
      i = j + 2;
    } else if (c === '?') {
      if (p >= params.length) throw new StoreError('query', `SQL has more ? than the ${params.length} values given`);
      out += sqlLiteral(params[p++]);
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (p !== params.length) throw new StoreError('query', `SQL has ${p} ? for ${params.length} values`);
  return out;
}

// ---------------------------------------------------------------- RowBinary

function num(v: unknown): number {
  if (v == null) return 0;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw new StoreError('query', 'non-finite value in a batch');
  return n;
}

function writeStr(buf: Buffer, o: number, s: string): number {
  const l = s.length;
  let ascii = true;
  for (let k = 0; k < l; k++) {
    if (s.charCodeAt(k) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    o = writeVarint(buf, o, l);
    if (l > 32) buf.write(s, o, l, 'latin1');
    else for (let k = 0; k < l; k++) buf[o + k] = s.charCodeAt(k);
    return o + l;
  }
  const n = Buffer.byteLength(s, 'utf8');
  o = writeVarint(buf, o, n);
  buf.write(s, o, n, 'utf8');
  return o + n;
}

type CellWriter = (buf: Buffer, o: number, r: number) => number;

/** One column's RowBinary writer: reads row r of `src`, writes it at o, returns the next offset. */
function cellWriter(type: ColType, src: ArrayLike<unknown>): CellWriter {
  switch (type) {
    case 'u8':
      return (buf, o, r) => ((buf[o] = num(src[r]) & 0xff), o + 1);
    case 'u16':
      return (buf, o, r) => buf.writeUInt16LE(num(src[r]) & 0xffff, o);
    case 'u32':
    case 'datetime':
      return (buf, o, r) => buf.writeUInt32LE(num(src[r]) >>> 0, o);
    case 'f64':
      return (buf, o, r) => buf.writeDoubleLE(num(src[r]), o);
    case 'u64':
    case 'i64':
      return (buf, o, r) => {
        const v = src[r];
        if (typeof v === 'bigint') return buf.writeBigUInt64LE(BigInt.asUintN(64, v), o);
        const n = Math.trunc(num(v));
        if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
          buf.writeUInt32LE(n % 0x100000000, o);
          return buf.writeUInt32LE(Math.floor(n / 0x100000000), o + 4);
        }
        return buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(n)), o);
      };
    case 'str':
      return (buf, o, r) => {
        const v = src[r];
        return writeStr(buf, o, v == null ? '' : typeof v === 'string' ? v : String(v));
      };
  }
}


const varintLen = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/**
 * Rows of a column-major batch as RowBinary (rows one after another, the
 * given columns in order); `data[i]` holds the values of `cols[i]`. Typed
 * arrays of the column's own type and TextColumns are copied byte for byte
 * into one buffer of the exact size; other columns convert each value.
 */
export function encodeRowBinary(cols: ColumnDef[], data: Column[], rows: number): Buffer {
  const nc = cols.length;
  // per column: bytes per value copied from `raw` (1, 2, 4, 8), 0 = TextColumn, -1 = converted
  const width = new Int8Array(nc);
  const raw: Uint8Array[] = [];
  const text: TextColumn[] = [];
  const writers: CellWriter[] = [];
  let size = 0;
  for (let c = 0; c < nc; c++) {
    const t = cols[c].type;
    const src = data[c];
    if (src instanceof TextColumn) {
      width[c] = 0;
      text[c] = src;
      for (let r = 0; r < rows; r++) size += varintLen(src.len[r]) + src.len[r];
    } else if (t !== 'str' && ArrayBuffer.isView(src) && src.constructor === SAME[t]) {
      width[c] = WIDTH[t];
      raw[c] = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
      size += WIDTH[t] * rows;
    } else {
      width[c] = -1;
      writers[c] = cellWriter(t, src);
      if (t !== 'str') size += WIDTH[t] * rows;
      // at most 3 bytes per UTF-16 unit and a 5-byte varint per string
      else for (let r = 0; r < rows; r++) {
        const v = src[r];
        size += 5 + 3 * (v == null ? 0 : typeof v === 'string' ? v.length : String(v).length);
      }
    }
  }
  const buf = Buffer.allocUnsafe(size);
  let o = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < nc; c++) {
      const w = width[c];
      if (w > 0) {
        const b = raw[c], at = r * w;
        buf[o] = b[at];
        if (w > 1) {
          buf[o + 1] = b[at + 1];
          if (w > 2) {
            buf[o + 2] = b[at + 2];
            buf[o + 3] = b[at + 3];
            if (w > 4) for (let k = 4; k < 8; k++) buf[o + k] = b[at + k];
          }
        }
        o += w;
      } else if (w === 0) {
        const t = text[c];
        const l = t.len[r], s = t.start[r], b = t.bytes;
        o = writeVarint(buf, o, l);
        if (l > 32) buf.set(b.subarray(s, s + l), o);
        else for (let k = 0; k < l; k++) buf[o + k] = b[s + k];
        o += l;
      } else o = writers[c](buf, o, r);
    }
  }
  return buf.subarray(0, o);
}

const WIDTH: Record<Exclude<ColType, 'str'>, number> = { u8: 1, u16: 2, u32: 4, datetime: 4, u64: 8, i64: 8, f64: 8 };

function writeVarint(buf: Buffer, o: number, n: number): number {
  while (n >= 0x80) {
    buf[o++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[o++] = n;
  return o;
}

// ---------------------------------------------------------------- results

interface JsonAnswer {
  meta: { name: string; type: string }[];
  data: Record<string, unknown>[];
}

const INT64 = /^(Nullable\()?U?Int64\)?$/;
const DATETIME = /^(Nullable\()?DateTime(\('([^']*)'\))?\)?$/;

/** 'YYYY-MM-DD hh:mm:ss' in time zone `tz` → epoch seconds */
function epochOf(text: string, tz: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(text);
  if (!m) return NaN;
  const asUtc = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
  if (tz === 'UTC' || tz === 'Etc/UTC') return asUtc;
  // the zone's offset at that moment (twice: the first guess may sit across a DST change)
  let t = asUtc - tzOffset(asUtc, tz);
  t = asUtc - tzOffset(t, tz);
  return t;
}
function tzOffset(epoch: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(epoch * 1000));
  const g = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return Date.UTC(g('year'), g('month') - 1, g('day'), g('hour'), g('minute'), g('second')) / 1000 - epoch;
}

// ---------------------------------------------------------------- backend

export class ClickHouseBackend implements Backend {
  readonly dialect = 'clickhouse' as const;
  readonly description: string;
  readonly database: string;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  /** the server's own time zone, for DateTime values without one */
  private serverTz = 'UTC';
  private closed = false;
  private inflight = new Set<Promise<unknown>>();

  private constructor(o: ClickHouseOptions) {
    let u: URL;
    try {
      u = new URL(o.url);
    } catch {
      throw new StoreError('unavailable', `clickhouse: invalid URL ${JSON.stringify(o.url)}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new StoreError('unavailable', `clickhouse: URL must be http(s)://host:8123/<db>, got ${u.protocol}`);
    }
    const db = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, '')) || 'flowgate';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new StoreError('unavailable', `clickhouse: invalid database name ${JSON.stringify(db)}`);
    const user = o.user ?? (u.username ? decodeURIComponent(u.username) : 'default');
    const password = o.password ?? (u.password ? decodeURIComponent(u.password) : '');
    this.database = db;
    this.base = new URL(`${u.protocol}//${u.host}/`);
    // Basic auth: understood by every ClickHouse version (X-ClickHouse-User/Key came later than 18.16)
    this.headers = { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.description = `clickhouse ${this.base.origin}/${db}`;
  }

  /** Connects (SELECT 1), creates the database if missing. Throws StoreError('unavailable') with the reason. */
  static async open(o: ClickHouseOptions): Promise<ClickHouseBackend> {
    const b = new ClickHouseBackend(o);
    await b.post(`CREATE DATABASE IF NOT EXISTS ${q(b.database)}`, null, false);
    const tz = await b.query({ sql: 'SELECT timezone() AS tz', params: [] });
    b.serverTz = String(tz[0]?.tz ?? 'UTC');
    return b;
  }

  /** One HTTP request: the statement in the URL when a body carries data, else in the body. */
  private async post(sql: string, body: Buffer | null, inDb = true): Promise<string> {
    if (this.closed) throw new StoreError('unavailable', `${this.description}: closed`);
    const url = new URL(this.base);
    if (inDb) url.searchParams.set('database', this.database);
    if (body) url.searchParams.set('query', sql);
    const p = (async () => {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: this.headers,
          body: body ? (body as Uint8Array<ArrayBuffer>) : sql, // allocUnsafe: never a SharedArrayBuffer
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (e) {
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (e as Error).message;
        throw new StoreError('unavailable', `${this.description}: cannot reach the server (${why})`, { cause: e });
      }
      const text = await res.text();
      if (!res.ok) {
        const msg = text.trim().split('\n')[0].slice(0, 500);
        // 516 = authentication failed, 192 = unknown user: the store is unusable, not the query wrong
        const auth = /^Code: (516|192|193|194)\b/.test(msg) || res.status === 401 || res.status === 403;
        throw new StoreError(auth ? 'unavailable' : 'query', `${this.description}: ${msg || `HTTP ${res.status}`}`);
      }
      return text;
    })();
    this.inflight.add(p);
    try {
      return await p;
    } finally {
      this.inflight.delete(p);
    }
  }

  async ensureTable(t: TableDef): Promise<void> {
    checkIdent(t.name);
    const cols = t.columns.map((c) => `${q(c.name)} ${DDL[c.type]}`).join(', ');
    if (t.partitionBy && !t.columns.some((c) => c.name === t.partitionBy)) {
      throw new StoreError('query', `${t.name}: partition column ${t.partitionBy} is not a column`);
    }
    const part = t.partitionBy ? ` PARTITION BY toYYYYMMDD(${q(t.partitionBy)})` : '';
    const order = t.orderBy.length ? `(${t.orderBy.map(q).join(', ')})` : 'tuple()';
    await this.post(`CREATE TABLE IF NOT EXISTS ${q(t.name)} (${cols}) ENGINE = MergeTree()${part} ORDER BY ${order}`, null);
    // columns a newer TableDef added (older rows read their default 0 / '')
    const have = new Set(
      (await this.query({ sql: 'SELECT name FROM system.columns WHERE database = ? AND table = ?', params: [this.database, t.name] })).map(
        (r) => String(r.name),
      ),
    );
    for (const c of t.columns) {
      if (!have.has(c.name)) await this.post(`ALTER TABLE ${q(t.name)} ADD COLUMN ${q(c.name)} ${DDL[c.type]}`, null);
    }
  }

  async append(t: TableDef, batch: Batch): Promise<void> {
    if (batch.columns.length !== t.columns.length) {
      throw new StoreError('query', `${t.name}: batch has ${batch.columns.length} columns, table ${t.columns.length}`);
    }
    if (batch.rows === 0) return;
    // absent columns are left to their DEFAULT (see ColumnDef.absent)
    const idx = t.columns.map((c, i) => (t.partitionBy && c.absent ? -1 : i)).filter((i) => i >= 0);
    const cols = idx.map((i) => t.columns[i]);
    const body = encodeRowBinary(cols, idx.map((i) => batch.columns[i]), batch.rows);
    await this.post(`INSERT INTO ${q(t.name)} (${cols.map((c) => q(c.name)).join(', ')}) FORMAT RowBinary`, body);
  }

  async query(qy: Query): Promise<Row[]> {
    let sql = renderSql(qy.sql, qy.params).replace(/[\s;]+$/, '');
    const reads = /^\s*(\(\s*)*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS)\b/i.test(sql);
    if (!reads) {
      await this.post(sql, null);
      return [];
    }
    if (!/\bFORMAT\s+\w+\s*$/i.test(sql)) sql += ' FORMAT JSON';
    const text = await this.post(sql, null);
    let ans: JsonAnswer;
    try {
      ans = JSON.parse(text) as JsonAnswer;
    } catch (e) {
      throw new StoreError('query', `${this.description}: answer is not JSON (${(e as Error).message})`);
    }
    // 64-bit integers come quoted, DateTime as text: numbers as the DuckDB backend returns them
    const fix: [string, 'int' | 'time', string][] = [];
    for (const m of ans.meta) {
      if (INT64.test(m.type)) fix.push([m.name, 'int', '']);
      else {
        const d = DATETIME.exec(m.type);
        if (d) fix.push([m.name, 'time', d[3] ?? this.serverTz]);
      }
    }
    if (fix.length) {
      for (const row of ans.data) {
        for (const [name, kind, tz] of fix) {
          const v = row[name];
          if (typeof v !== 'string') continue;
          row[name] = kind === 'int' ? intResult(BigInt(v)) : epochOf(v, tz);
        }
      }
    }
    return ans.data;
  }

  async partitions(t: TableDef): Promise<{ day: string; bytes: number; rows: number }[]> {
    const r = await this.query({
      sql: `SELECT partition, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
             WHERE active AND database = ? AND table = ? GROUP BY partition ORDER BY partition`,
      params: [this.database, t.name],
    });
    return r.map((x) => ({ day: String(x.partition), rows: Number(x.rows), bytes: Number(x.bytes) }));
  }

  async dropPartition(t: TableDef, day: string): Promise<void> {
    if (!/^\d{8}$/.test(day)) throw new StoreError('query', `invalid partition ${JSON.stringify(day)}`);
    await this.post(`ALTER TABLE ${q(t.name)} DROP PARTITION ${day}`, null);
  }

  /**
   * ClickHouse 18.16 deletes through a mutation (ALTER TABLE … DELETE WHERE),
   * which runs in the background and has no synchronous setting yet: it is
   * waited for in system.mutations (every mutation of the table done).
   */
  async deleteWhere(t: TableDef, where: Query): Promise<number> {
    await this.post(`ALTER TABLE ${q(t.name)} DELETE WHERE ${renderSql(where.sql, where.params)}`, null);
    await this.mutationsDone(t);
    return -1;
  }

  /** waits until the table's mutations are done (ALTER … DELETE / UPDATE run in the background) */
  private async mutationsDone(t: TableDef): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      const r = await this.query({
        sql: 'SELECT count() AS pending FROM system.mutations WHERE database = ? AND table = ? AND is_done = 0',
        params: [this.database, t.name],
      });
      if (!Number(r[0]?.pending ?? 0)) return;
      if (Date.now() > deadline) throw new StoreError('query', `${this.description}: a change of ${t.name} still running after ${this.timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, wait));
    }
  }

  async updateWhere(t: TableDef, set: readonly { column: string; value: SqlValue }[], where: Query): Promise<number> {
    // cast to the column's type (a DateTime column takes no plain number in a mutation)
    const cols = set
      .map((s) => {
        const c = t.columns.find((x) => x.name === columnOf(t, s.column))!;
        return `${q(c.name)} = CAST(${renderSql('?', [s.value])} AS ${DDL[c.type]})`;
      })
      .join(', ');
    await this.post(`ALTER TABLE ${q(t.name)} UPDATE ${cols} WHERE ${renderSql(where.sql, where.params)}`, null);
    await this.mutationsDone(t);
    return -1;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    this.closed = true;
  }
}
