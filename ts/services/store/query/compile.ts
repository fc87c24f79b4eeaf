// AST → SQL text with `?` placeholders and the values beside it, for DuckDB
// and ClickHouse. As kysely's compilers do, one base class walks the tree and
// each dialect overrides only what it spells differently (time conversion,
// ILIKE, any(), arithmetic types); every literal leaves as a bound parameter
// and every name is a catalog column or a generated item alias.
import type { Query, SqlValue } from '../backend.js';
import type { ColumnCatalog, Expr, Kind, OrderItem, SelectQuery } from './ast.js';
import { bytesToIpv6 } from './ip.js';

export type Dialect = 'duckdb' | 'clickhouse';

/** How each answered value is keyed and printed (see format.ts). */
export interface OutputColumn {
  key: string;
  kind: Kind;
}

export interface CompiledQuery extends Query {
  columns: OutputColumn[];
}

/** The alias of select item i in the SQL (user aliases live only in `columns`). */
export const itemAlias = (i: number) => `c${i}`;

export abstract class Compiler {
  protected params: SqlValue[] = [];

  constructor(protected readonly catalog: ColumnCatalog) {}

  // ── what dialects override ───────────────────────────────────────────
  ident(name: string): string {
    return `"${name}"`;
  }
  /** a stored time as epoch seconds (integer) */
  abstract epoch(sql: string): string;
  /** epoch seconds (a parameter) as the stored time type */
  abstract timeFromEpoch(param: string): string;
  /** arithmetic operand: a type that neither overflows nor fails on negative results */
  abstract toFloat(sql: string): string;
  abstract anyValue(sql: string): string;
  ilike(arg: string, pattern: string, not: boolean): string {
    return `${arg} ${not ? 'NOT ' : ''}ILIKE ${pattern}`;
  }
  sum(sql: string): string {
    return `SUM(${sql})`;
  }
  nullIfZero(sql: string): string {
    return `NULLIF(${sql}, 0)`;
  }
  /** MIN/MAX/ANY (kind: what the aggregate yields) */
  pick(fn: 'MIN' | 'MAX' | 'ANY', sql: string, _kind: Kind): string {
    return fn === 'ANY' ? this.anyValue(sql) : `${fn}(${sql})`;
  }
  /** an IPv6 text column between two bounds given as 32 hex digits */
  abstract ipv6InRange(col: string, loHex: string, hiHex: string): string;
  /** dotted IPv4 text → its number (NULL, or no match, when not an address) */
  abstract ipv4FromText(col: string): string;

  // ── the walk ─────────────────────────────────────────────────────────
  param(v: SqlValue): string {
    this.params.push(v);
    return '?';
  }

  /** An expression as a value: times as epoch seconds. */
  value(e: Expr): string {
    switch (e.t) {
      case 'col':
        return e.kind === 'time' ? this.epoch(this.ident(e.col.sql)) : this.ident(e.col.sql);
      case 'lit':
        return this.param(e.value);
      case 'null':
        return 'NULL';
      case 'arith': {
        const r = this.toFloat(this.value(e.r));
        // x / 0 is NULL (''), not inf/nan, on both backends
        return `(${this.toFloat(this.value(e.l))} ${e.op} ${e.op === '/' ? this.nullIfZero(r) : r})`;
      }
      case 'neg':
        return `(0 - ${this.toFloat(this.value(e.arg))})`;
      case 'abs':
        return `abs(${this.toFloat(this.value(e.arg))})`;
      case 'agg':
        return this.aggregate(e);
      case 'ip4num':
        return this.ipv4FromText(this.ident(e.arg.col.sql));
      default:
        return this.cond(e);
    }
  }

  /** Aggregates of times work on epoch seconds too (value() of a time), so MIN(FIRST_SEEN) is a number. */
  aggregate(e: Extract<Expr, { t: 'agg' }>): string {
    if (!e.arg) return 'COUNT(*)';
    const arg = this.value(e.arg);
    switch (e.fn) {
      case 'COUNT':
        return `COUNT(${e.distinct ? 'DISTINCT ' : ''}${arg})`;
      case 'SUM':
        return this.sum(arg);
      case 'AVG':
        return `AVG(${arg})`;
      default:
        return this.pick(e.fn, arg, e.kind);
    }
  }

  /**
   * Both sides of a comparison: a stored time compared with a time literal
   * stays in its stored type (the partition key: pruning works), else values.
   */
  private side(e: Expr, timeMode: boolean): string {
    if (!timeMode) return this.value(e);
    if (e.t === 'col') return this.ident(e.col.sql);
    if (e.t === 'lit') return this.timeFromEpoch(this.param(e.value));
    return this.value(e);
  }

  private timeMode(...es: Expr[]): boolean {
    return es.every((e) => e.kind === 'time' && (e.t === 'col' || e.t === 'lit'));
  }

  cond(e: Expr): string {
    switch (e.t) {
      case 'cmp': {
        const tm = this.timeMode(e.l, e.r);
        return `${this.side(e.l, tm)} ${e.op} ${this.side(e.r, tm)}`;
      }
      case 'logic':
        return `(${e.args.map((a) => this.cond(a)).join(` ${e.op} `)})`;
      case 'not':
        return `(NOT ${this.cond(e.arg)})`;
      case 'in': {
        const tm = this.timeMode(e.arg, ...e.list);
        return `${this.side(e.arg, tm)} ${e.not ? 'NOT IN' : 'IN'} (${e.list.map((v) => this.side(v, tm)).join(', ')})`;
      }
      case 'like':
        return e.ci ? this.ilike(this.value(e.arg), this.value(e.pattern), e.not) : `${this.value(e.arg)} ${e.not ? 'NOT ' : ''}LIKE ${this.value(e.pattern)}`;
      case 'isnull':
        return `${this.value(e.arg)} IS ${e.not ? 'NOT ' : ''}NULL`;
      case 'innet':
        return e.arg.kind === 'ipv6'
          ? this.ipv6InRange(this.ident(e.arg.col.sql), String(e.lo), String(e.hi))
          : `${this.ident(e.arg.col.sql)} BETWEEN ${this.param(e.lo)} AND ${this.param(e.hi)}`;
      case 'never':
        return '1 = 0';
      case 'between': {
        const tm = this.timeMode(e.arg, e.lo, e.hi);
        return `${this.side(e.arg, tm)} ${e.not ? 'NOT ' : ''}BETWEEN ${this.side(e.lo, tm)} AND ${this.side(e.hi, tm)}`;
      }
      default:
        return this.value(e);
    }
  }

  private order(o: OrderItem): string {
    const what = o.expr.t === 'item' ? this.ident(itemAlias(o.expr.index)) : this.value(o.expr);
    return `${what} ${o.desc ? 'DESC' : 'ASC'}`;
  }

  select(q: SelectQuery): CompiledQuery {
    this.params = [];
    const items = q.items.map((it, i) => `${this.value(it.expr)} AS ${this.ident(itemAlias(i))}`);
    let sql = `SELECT ${items.join(', ')} FROM ${this.ident(this.catalog.table)}`;
    if (q.where.length) sql += ` WHERE ${q.where.map((w) => (w.t === 'logic' ? this.cond(w) : `(${this.cond(w)})`)).join(' AND ')}`;
    if (q.groupBy.length) sql += ` GROUP BY ${q.groupBy.map((g) => this.value(g)).join(', ')}`;
    if (q.orderBy.length) sql += ` ORDER BY ${q.orderBy.map((o) => this.order(o)).join(', ')}`;
    sql += ` LIMIT ${this.param(q.limit)}`;
    if (q.offset) sql += ` OFFSET ${this.param(q.offset)}`;
    return { sql, params: this.params, columns: q.items.map((it) => ({ key: it.key, kind: it.expr.kind })) };
  }

  /** Conditions ANDed into one WHERE body (no keyword), for deleteWhere. */
  where(conds: Expr[]): Query {
    this.params = [];
    const sql = conds.length ? conds.map((w) => `(${this.cond(w)})`).join(' AND ') : '1 = 1';
    return { sql, params: this.params };
  }

  /** SELECT COUNT(*) of the groups (or rows) a query would answer, and of the rows it reads. */
  count(q: SelectQuery): Query {
    this.params = [];
    let inner = `SELECT COUNT(*) AS ${this.ident('n')} FROM ${this.ident(this.catalog.table)}`;
    if (q.where.length) inner += ` WHERE ${q.where.map((w) => `(${this.cond(w)})`).join(' AND ')}`;
    if (q.groupBy.length) inner += ` GROUP BY ${q.groupBy.map((g) => this.value(g)).join(', ')}`;
    const sql = `SELECT COUNT(*) AS ${this.ident('groups')}, ${this.sum(this.ident('n'))} AS ${this.ident('rows')} FROM (${inner}) AS ${this.ident('g')}`;
    return { sql, params: this.params };
  }
}

export class DuckDbCompiler extends Compiler {
  // the store keeps DuckDB times as UINTEGER epoch seconds (duckdb.ts)
  epoch(sql: string): string {
    return sql;
  }
  timeFromEpoch(param: string): string {
    return param;
  }
  toFloat(sql: string): string {
    return `CAST(${sql} AS DOUBLE)`;
  }
  anyValue(sql: string): string {
    return `any_value(${sql})`;
  }
  override sum(sql: string): string {
    // ClickHouse sums an empty set to 0, DuckDB to NULL: answer 0 on both
    return `COALESCE(SUM(${sql}), 0)`;
  }
  override pick(fn: 'MIN' | 'MAX' | 'ANY', sql: string, kind: Kind): string {
    // ClickHouse answers an empty set's MIN/MAX/any with the type's default (0, ''): so does DuckDB here
    return `COALESCE(${super.pick(fn, sql, kind)}, ${kind === 'str' || kind === 'ipv6' ? "''" : '0'})`;
  }
  /**
   * DuckDB cannot parse addresses without the inet extension (a download):
   * the stored inet_ntop text is expanded in SQL to 32 hex digits, which
   * compare like the address bytes (dotted IPv4 tails and '::' included).
   */
  ipv6InRange(col: string, loHex: string, hiHex: string): string {
    return `${duckIpv6Key(col)} BETWEEN ${this.param(loHex)} AND ${this.param(hiHex)}`;
  }
  ipv4FromText(col: string): string {
    const o = (n: number) => `CAST(split_part(${col}, '.', ${n}) AS UBIGINT)`;
    return `(CASE WHEN regexp_full_match(${col}, '[0-9]{1,3}[.][0-9]{1,3}[.][0-9]{1,3}[.][0-9]{1,3}') THEN ${o(1)} * 16777216 + ${o(2)} * 65536 + ${o(3)} * 256 + ${o(4)} END)`;
  }
}

/** SQL of a DuckDB expression: IPv6 text → its 16 bytes as 32 lower-case hex digits. */
function duckIpv6Key(col: string): string {
  const quad = `string_split(regexp_extract(${col}, '[0-9.]+$'), '.')`;
  const oct = (n: number) => `COALESCE(TRY_CAST(${quad}[${n}] AS INTEGER), 0)`;
  const text = `(CASE WHEN contains(${col}, '.') THEN regexp_extract(${col}, '^(.*:)', 1) || printf('%02x%02x:%02x%02x', ${oct(1)}, ${oct(2)}, ${oct(3)}, ${oct(4)}) ELSE ${col} END)`;
  const groups = (s: string) => `(CASE WHEN ${s} = '' THEN []::VARCHAR[] ELSE string_split(${s}, ':') END)`;
  const zeros = `list_transform(range(8 - len(${groups('p[1]')}) - len(${groups('p[2]')})), lambda x: '0')`;
  const all = `CASE WHEN len(p) = 1 THEN string_split(p[1], ':') ELSE list_concat(${groups('p[1]')}, ${zeros}, ${groups('p[2]')}) END`;
  // list_transform([v], lambda p: …)[1] names v once (p: the halves around '::')
  return `list_transform([string_split(${text}, '::')], lambda p: array_to_string(list_transform(${all}, lambda g: lpad(g, 4, '0')), ''))[1]`;
}

export class ClickHouseCompiler extends Compiler {
  epoch(sql: string): string {
    return `toUnixTimestamp(${sql})`;
  }
  timeFromEpoch(param: string): string {
    return `toDateTime(${param})`;
  }
  toFloat(sql: string): string {
    return `toFloat64(${sql})`;
  }
  anyValue(sql: string): string {
    return `any(${sql})`;
  }
  override nullIfZero(sql: string): string {
    return `nullIf(${sql}, 0)`;
  }
  ipv6InRange(col: string, loHex: string, hiHex: string): string {
    const text = (h: string) => bytesToIpv6(Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16))));
    return `IPv6StringToNum(${col}) BETWEEN IPv6StringToNum(${this.param(text(loHex))}) AND IPv6StringToNum(${this.param(text(hiHex))})`;
  }
  ipv4FromText(col: string): string {
    // 0 for text that is not an address (never inside a scope network but 0.0.0.0/x)
    return `IPv4StringToNum(${col})`;
  }
  override ilike(arg: string, pattern: string, not: boolean): string {
    // ILIKE arrived after ClickHouse 18.16
    return `lower(${arg}) ${not ? 'NOT ' : ''}LIKE lower(${pattern})`;
  }
}

export function compiler(dialect: Dialect, catalog: ColumnCatalog): Compiler {
  return dialect === 'duckdb' ? new DuckDbCompiler(catalog) : new ClickHouseCompiler(catalog);
}

export function compile(q: SelectQuery, catalog: ColumnCatalog, dialect: Dialect): CompiledQuery {
  return compiler(dialect, catalog).select(q);
}
