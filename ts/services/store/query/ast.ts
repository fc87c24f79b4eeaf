// The whitelisted AST of ntopng's flows-query clauses (where_clause,
// select_clause, group_by_clause, order_by_clause, the topk clauses). The
// parser only builds nodes whose every name was checked against the column
// catalog and the function list below; literals are already in the column's
// storage form (dotted IPv4 → UInt32, IPv6 canonical, dates → epoch), so the
// compilers only spell them as bound parameters.
import type { ColType } from '../backend.js';

/**
 * What a value means, beyond its storage type: decides how literals compared
 * with it are converted, which operators apply, and how the result formatter
 * prints it (IPv4 as dotted text, times as epoch seconds).
 */
export type Kind = 'num' | 'str' | 'ipv4' | 'ipv6' | 'time' | 'bool';

export interface CatalogColumn {
  /** canonical (ntopng) name, upper case */
  name: string;
  /** the name as the table stores it (ClickHouse names are case-sensitive: alert tables are lower case) */
  sql: string;
  type: ColType;
  kind: Exclude<Kind, 'bool'>;
}

/** The columns a query may name: the flows table (store/flow-columns.ts) or a test's own. */
export interface ColumnCatalog {
  table: string;
  columns: readonly CatalogColumn[];
  /** upper-case name → column; also ntopng's `<IP column>_FORMATTED` spellings */
  byName: ReadonlyMap<string, CatalogColumn>;
}

const IPV4_NAME = /(^|_)IPV4(_|$)|^PROBE_IP$/;
const IPV6_NAME = /(^|_)IPV6(_|$)/;

/**
 * A catalog from a table's columns. Kinds follow ntopng's schema: IPv4
 * addresses are UInt32 columns named IPV4_* (and PROBE_IP, the exporter),
 * IPv6 addresses the IPV6_* columns, times the datetime columns.
 */
export function catalogOf(table: string, cols: readonly { name: string; type: ColType }[]): ColumnCatalog {
  const columns: CatalogColumn[] = cols.map((c) => ({
    name: c.name.toUpperCase(),
    sql: c.name,
    type: c.type,
    kind:
      c.type === 'datetime' ? 'time'
      : c.type === 'str' ? (IPV6_NAME.test(c.name.toUpperCase()) ? 'ipv6' : 'str')
      : c.type === 'u32' && IPV4_NAME.test(c.name.toUpperCase()) ? 'ipv4'
      : IPV6_NAME.test(c.name.toUpperCase()) ? 'ipv6'
      : 'num',
  }));
  const byName = new Map<string, CatalogColumn>();
  for (const c of columns) byName.set(c.name, c);
  // ntopng's examples group by IPV4_DST_ADDR_FORMATTED (its select writes
  // IPv4NumToString(col) AS col_FORMATTED): the same grouping as the column.
  for (const c of columns) if (c.kind === 'ipv4' || c.kind === 'ipv6') byName.set(`${c.name}_FORMATTED`, c);
  // the spec writes the product's name as MONITOR where ntopng says NTOPNG
  const inst = byName.get('NTOPNG_INSTANCE_NAME');
  if (inst) byName.set('MONITOR_INSTANCE_NAME', inst);
  return { table, columns, byName };
}

export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type ArithOp = '+' | '-' | '*' | '/';
export type AggFn = 'SUM' | 'AVG' | 'MIN' | 'MAX' | 'COUNT' | 'ANY';
export const AGG_FNS: readonly AggFn[] = ['SUM', 'AVG', 'MIN', 'MAX', 'COUNT', 'ANY'];

export type Expr =
  | { t: 'col'; col: CatalogColumn; kind: Kind }
  /** a literal already converted to the compared column's storage form */
  | { t: 'lit'; value: number | bigint | string; kind: Kind }
  | { t: 'null'; kind: Kind }
  | { t: 'cmp'; op: CmpOp; l: Expr; r: Expr; kind: 'bool' }
  | { t: 'logic'; op: 'AND' | 'OR'; args: Expr[]; kind: 'bool' }
  | { t: 'not'; arg: Expr; kind: 'bool' }
  | { t: 'in'; arg: Expr; list: Expr[]; not: boolean; kind: 'bool' }
  | { t: 'like'; arg: Expr; pattern: Expr; ci: boolean; not: boolean; kind: 'bool' }
  | { t: 'isnull'; arg: Expr; not: boolean; kind: 'bool' }
  | { t: 'between'; arg: Expr; lo: Expr; hi: Expr; not: boolean; kind: 'bool' }
  | { t: 'arith'; op: ArithOp; l: Expr; r: Expr; kind: 'num' }
  | { t: 'neg'; arg: Expr; kind: 'num' }
  | { t: 'abs'; arg: Expr; kind: 'num' }
  /** `arg` undefined: COUNT(*) */
  | { t: 'agg'; fn: AggFn; arg?: Expr; distinct: boolean; kind: Kind }
  /**
   * An address column inside [lo, hi] (a CIDR, built by the service, never
   * parsed): IPv4 bounds as numbers, IPv6 bounds as 32 hex digits.
   */
  | { t: 'innet'; arg: Extract<Expr, { t: 'col' }>; lo: number | string; hi: number | string; kind: 'bool' }
  /** an IPv4 address stored as dotted text (alert tables' `ip`) as its number; NULL when the text is not one */
  | { t: 'ip4num'; arg: Extract<Expr, { t: 'col' }>; kind: 'num' }
  /** matches nothing (a user without any usable network) */
  | { t: 'never'; kind: 'bool' };

export interface SelectItem {
  expr: Expr;
  /** the key of this value in each answered record */
  key: string;
  /** the user's alias, when given (ORDER BY may name it) */
  alias?: string;
}

export interface OrderItem {
  /** an expression, or the index of the select item an alias named */
  expr: Expr | { t: 'item'; index: number };
  desc: boolean;
}

/** One query on the flows table, ready for a dialect compiler. */
export interface SelectQuery {
  items: SelectItem[];
  /** conditions ANDed together (time window, interface, user scope, where_clause) */
  where: Expr[];
  groupBy: Expr[];
  orderBy: OrderItem[];
  limit: number;
  offset?: number;
}

/** True when the expression contains an aggregate. */
export function hasAggregate(e: Expr | { t: 'item'; index: number }): boolean {
  switch (e.t) {
    case 'agg':
      return true;
    case 'cmp':
    case 'arith':
      return hasAggregate(e.l) || hasAggregate(e.r);
    case 'logic':
      return e.args.some(hasAggregate);
    case 'not':
    case 'neg':
    case 'abs':
    case 'isnull':
      return hasAggregate(e.arg);
    case 'in':
      return hasAggregate(e.arg) || e.list.some(hasAggregate);
    case 'like':
      return hasAggregate(e.arg) || hasAggregate(e.pattern);
    case 'between':
      return hasAggregate(e.arg) || hasAggregate(e.lo) || hasAggregate(e.hi);
    default:
      return false;
  }
}
