// The queries of the flows-database endpoints, put together from parsed
// clauses and the conditions the service adds itself: the time window (as
// ntopng bounds it: FIRST_SEEN >= begin AND LAST_SEEN <= end, i.e. flows that
// lie wholly inside it), the interface, and the networks an unprivileged user
// may see (client or server inside one of them).
import ipaddr from 'ipaddr.js';

import type { ColumnCatalog, Expr, SelectItem, SelectQuery } from './ast.js';
import { checkGrouping, lex, MAX_HITS, parseGroupBy, parseMaxHits, parseOrderBy, parseSelect, parseWhere, QueryError } from './parse.js';

function col(catalog: ColumnCatalog, name: string): Extract<Expr, { t: 'col' }> {
  const c = catalog.byName.get(name);
  if (!c) throw new Error(`the flows table has no column ${name}`);
  return { t: 'col', col: c, kind: c.kind };
}

const has = (catalog: ColumnCatalog, name: string) => catalog.byName.has(name);

export interface Window {
  /** epoch seconds */
  begin: number;
  end: number;
  /** INTERFACE_ID */
  ifid?: number;
  /** CIDRs whose flows (client or server inside) the user may see; undefined = all */
  networks?: string[];
}

/** The conditions every flows query carries. */
export function windowConditions(catalog: ColumnCatalog, w: Window): Expr[] {
  if (!Number.isInteger(w.begin) || !Number.isInteger(w.end) || w.begin < 0 || w.end < 0) {
    throw new QueryError('begin and end times must be epoch seconds');
  }
  if (w.end < w.begin) throw new QueryError('the end time is before the begin time');
  const out: Expr[] = [
    { t: 'cmp', op: '>=', l: col(catalog, 'FIRST_SEEN'), r: { t: 'lit', value: w.begin, kind: 'time' }, kind: 'bool' },
    { t: 'cmp', op: '<=', l: col(catalog, 'LAST_SEEN'), r: { t: 'lit', value: w.end, kind: 'time' }, kind: 'bool' },
  ];
  if (w.ifid !== undefined) out.push({ t: 'cmp', op: '=', l: col(catalog, 'INTERFACE_ID'), r: { t: 'lit', value: w.ifid, kind: 'num' }, kind: 'bool' });
  if (w.networks) out.push(networksCondition(catalog, w.networks));
  return out;
}

/** 16 bytes → 32 hex digits (the comparable form of an IPv6 bound). */
const hex = (b: number[]) => b.map((x) => x.toString(16).padStart(2, '0')).join('');

/**
 * Flows whose client or server lies in one of the CIDRs, per family (the
 * IPv4 columns of an IPv6 flow hold 0.0.0.0, so the version is checked). No
 * usable network: a condition nothing matches.
 */
export function networksCondition(catalog: ColumnCatalog, cidrs: string[]): Expr {
  const fam: Record<4 | 6, Expr[]> = { 4: [], 6: [] };
  for (const c of cidrs) {
    let net: [ipaddr.IPv4 | ipaddr.IPv6, number];
    try {
      net = ipaddr.parseCIDR(c);
    } catch {
      continue;
    }
    const [addr, prefix] = net;
    if (addr.kind() === 'ipv4') {
      const lo = (ipaddr.IPv4.networkAddressFromCIDR(c).toByteArray().reduce((a, b) => a * 256 + b, 0)) >>> 0;
      const hi = lo + 2 ** (32 - prefix) - 1;
      for (const name of ['IPV4_SRC_ADDR', 'IPV4_DST_ADDR']) {
        fam[4].push({ t: 'innet', arg: col(catalog, name), lo, hi, kind: 'bool' });
      }
    } else {
      const lo = ipaddr.IPv6.networkAddressFromCIDR(c).toByteArray();
      const hi = ipaddr.IPv6.broadcastAddressFromCIDR(c).toByteArray();
      for (const name of ['IPV6_SRC_ADDR', 'IPV6_DST_ADDR']) {
        fam[6].push({ t: 'innet', arg: col(catalog, name), lo: hex(lo), hi: hex(hi), kind: 'bool' });
      }
    }
  }
  const parts: Expr[] = [];
  for (const v of [4, 6] as const) {
    if (!fam[v].length) continue;
    const any: Expr = { t: 'logic', op: 'OR', args: fam[v], kind: 'bool' };
    parts.push(
      has(catalog, 'IP_PROTOCOL_VERSION')
        ? { t: 'logic', op: 'AND', args: [{ t: 'cmp', op: '=', l: col(catalog, 'IP_PROTOCOL_VERSION'), r: { t: 'lit', value: v, kind: 'num' }, kind: 'bool' }, any], kind: 'bool' }
        : any,
    );
  }
  if (!parts.length) return { t: 'never', kind: 'bool' };
  return parts.length === 1 ? parts[0] : { t: 'logic', op: 'OR', args: parts, kind: 'bool' };
}

export interface FlowsClauses {
  select?: string;
  where?: string;
  groupBy?: string;
  orderBy?: string;
  maxhits?: number;
}

/** get/db/flows.lua: SELECT <select> … WHERE <window> AND (<where>) [GROUP BY] [ORDER BY] LIMIT <maxhits>. */
export function flowsQuery(catalog: ColumnCatalog, c: FlowsClauses, w: Window): SelectQuery {
  const items = parseSelect(c.select, catalog);
  const where = parseWhere(c.where, catalog);
  const groupBy = parseGroupBy(c.groupBy, catalog);
  const orderBy = parseOrderBy(c.orderBy, catalog, items);
  checkGrouping(items, groupBy, orderBy);
  return { items, where: [...windowConditions(catalog, w), ...(where ? [where] : [])], groupBy, orderBy, limit: parseMaxHits(c.maxhits) };
}

export interface TopkClauses {
  keys?: string;
  values?: string;
  fn?: string;
  where?: string;
  maxhits?: number;
}

export const TOPK_FNS = ['SUM', 'AVG', 'MAX', 'MIN', 'COUNT'] as const;

/**
 * ntopng's value names from its nIndex days: BYTES is a flow's traffic both
 * ways (TOTAL_BYTES), PACKETS its packets; any numeric column also works.
 */
const VALUE_SYNONYMS: Record<string, string> = { BYTES: 'TOTAL_BYTES', IN_BYTES: 'SRC2DST_BYTES', OUT_BYTES: 'DST2SRC_BYTES', PKTS: 'PACKETS' };

/**
 * get/db/topk_flows.lua: the top keys by an aggregate of a value, largest
 * first. Exact (GROUP BY … ORDER BY … LIMIT); approx_search only permits
 * ntopng's approximation, so an exact answer is a valid one.
 */
export function topkQuery(catalog: ColumnCatalog, c: TopkClauses, w: Window): SelectQuery {
  const keys = parseGroupBy(c.keys?.trim() ? c.keys : 'IPV4_SRC_ADDR,IPV4_DST_ADDR,L7_PROTO', catalog, 'select_keys_clause') as Extract<Expr, { t: 'col' }>[];
  const valueText = (c.values ?? '').trim() || 'BYTES';
  const vt = lex(valueText, 'select_values_clause');
  if (vt.length !== 2 || vt[0].k !== 'id') throw new QueryError('select_values_clause: expected one column name (e.g. BYTES)');
  const valueName = vt[0].v.toUpperCase();
  const value = catalog.byName.get(VALUE_SYNONYMS[valueName] ?? valueName);
  if (!value) throw new QueryError(`select_values_clause: unknown column '${vt[0].v}'`);
  if (value.kind !== 'num') throw new QueryError(`select_values_clause: ${value.name} is not a numeric column`);
  const fn = ((c.fn ?? '').trim() || 'SUM').toUpperCase();
  if (!(TOPK_FNS as readonly string[]).includes(fn)) throw new QueryError(`topk_clause must be one of ${TOPK_FNS.join(', ')}`);
  const where = parseWhere(c.where, catalog);
  const items: SelectItem[] = keys.map((k) => ({ expr: k, key: k.col.name }));
  items.push({ expr: { t: 'agg', fn: fn as (typeof TOPK_FNS)[number], arg: { t: 'col', col: value, kind: 'num' }, distinct: false, kind: 'num' }, key: valueName });
  return {
    items,
    where: [...windowConditions(catalog, w), ...(where ? [where] : [])],
    groupBy: keys,
    orderBy: [{ expr: { t: 'item', index: items.length - 1 }, desc: true }],
    limit: parseMaxHits(c.maxhits),
  };
}

export { MAX_HITS };
