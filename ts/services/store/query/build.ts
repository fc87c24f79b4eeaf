// The queries of the flows-database endpoints, put together from parsed
// clauses and the conditions the service adds itself: the time window (as
// ntopng bounds it: FIRST_SEEN >= begin AND LAST_SEEN <= end, i.e. flows that
// lie wholly inside it), the interface, and the networks an unprivileged user
// may see (client or server inside one of them).
import ipaddr from 'ipaddr.js';

import type { CmpOp, ColumnCatalog, Expr, SelectItem, SelectQuery } from './ast.js';
import { ipv4ToNum } from './ip.js';
import { checkGrouping, lex, literalFor, MAX_HITS, parseGroupBy, parseMaxHits, parseOrderBy, parseSelect, parseWhere, QueryError } from './parse.js';

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

// ── historical_db_search.lua ─────────────────────────────────────────────

/** ntopng's filter operators (`<value>;<op>`) on numbers and text. */
const OPS: Record<string, CmpOp> = { eq: '=', neq: '!=', lt: '<', gt: '>', lte: '<=', gte: '>=' };

/** Filter tags on one column (ntopng's tags; `ip`, `cli_ip`, `srv_ip`, `l7proto` are handled apart). */
const TAG_COLUMN: Readonly<Record<string, string>> = {
  vlan_id: 'VLAN_ID',
  l4proto: 'PROTOCOL',
  ip_version: 'IP_PROTOCOL_VERSION',
  cli_port: 'IP_SRC_PORT',
  srv_port: 'IP_DST_PORT',
  l7proto_master: 'L7_PROTO_MASTER',
  l7cat: 'L7_CATEGORY',
  cli_name: 'SRC_LABEL',
  srv_name: 'DST_LABEL',
  info: 'INFO',
  community_id: 'COMMUNITY_ID',
  score: 'SCORE',
  alert_id: 'STATUS',
  severity: 'SEVERITY',
  cli_asn: 'SRC_ASN',
  srv_asn: 'DST_ASN',
  probe_ip: 'PROBE_IP',
  input_snmp: 'INPUT_SNMP',
  output_snmp: 'OUTPUT_SNMP',
  cli_location: 'CLIENT_LOCATION',
  srv_location: 'SERVER_LOCATION',
  packets: 'PACKETS',
  bytes: 'TOTAL_BYTES',
};

/** The filter parameters historical_db_search.lua takes. */
export const FILTER_TAGS = ['ip', 'cli_ip', 'srv_ip', 'l7proto', ...Object.keys(TAG_COLUMN)] as const;

const L4_NAMES: Record<string, number> = { icmp: 1, igmp: 2, tcp: 6, udp: 17, gre: 47, esp: 50, icmpv6: 58, sctp: 132 };

/**
 * One tag's `<value>;<op>[,<value>;<op>…]` parts. `in`/`nin` (ntopng's
 * "contains" on text tags) only where `text` says the tag is text.
 */
function tagParts(tag: string, raw: string): { text: string; op: CmpOp | 'in' | 'nin' }[] {
  const out: { text: string; op: CmpOp | 'in' | 'nin' }[] = [];
  for (const part of raw.split(',')) {
    if (!part.trim()) continue;
    const cut = part.lastIndexOf(';');
    const text = (cut >= 0 ? part.slice(0, cut) : part).trim();
    const opName = cut >= 0 ? part.slice(cut + 1).trim() : 'eq';
    const op = opName === 'in' || opName === 'nin' ? opName : OPS[opName];
    if (!op) throw new QueryError(`${tag}: operator '${opName}' is not one of ${[...Object.keys(OPS), 'in', 'nin'].join(', ')}`);
    out.push({ text, op });
  }
  return out;
}

/** several `eq` of one tag are alternatives (OR), everything else must all hold (AND) */
function combine(out: Expr[], parts: { e: Expr; eq: boolean }[]): void {
  const alternatives = parts.filter((p) => p.eq).map((p) => p.e);
  for (const p of parts) if (!p.eq) out.push(p.e);
  if (alternatives.length) out.push(alternatives.length === 1 ? alternatives[0] : { t: 'logic', op: 'OR', args: alternatives, kind: 'bool' });
}

/** `column <op> value`, the value converted for the column; in/nin: contains (text columns only). */
function tagCondition(catalog: ColumnCatalog, name: string, op: CmpOp | 'in' | 'nin', text: string, tag: string): Expr {
  const c = col(catalog, name);
  if (op === 'in' || op === 'nin') {
    if (c.kind !== 'str') throw new QueryError(`${tag}: operator '${op}' applies to text filters only`);
    return { t: 'like', arg: c, pattern: literalFor(catalog, c.col, `%${text}%`, tag), ci: true, not: op === 'nin', kind: 'bool' };
  }
  return { t: 'cmp', op, l: c, r: literalFor(catalog, c.col, text, tag), kind: 'bool' };
}

/**
 * ntopng's tag filters: `tag=<value>;<op>[,<value>;<op>…]`. Without `tags`,
 * the flows table's (historical_db_search.lua: addresses pick their family's
 * columns, ip/l7proto match either side); with `tags` (tag → column, e.g. an
 * alert table's), each tag is one column.
 */
export function tagFilters(catalog: ColumnCatalog, filters: Record<string, string | undefined>, tags?: Readonly<Record<string, string>>): Expr[] {
  const out: Expr[] = [];
  if (tags) {
    for (const [tag, name] of Object.entries(tags)) {
      const raw = filters[tag];
      if (raw === undefined || raw === '') continue;
      combine(out, tagParts(tag, raw).map(({ text, op }) => ({ e: tagCondition(catalog, name, op, text, tag), eq: op === '=' })));
    }
    return out;
  }
  for (const tag of FILTER_TAGS) {
    const raw = filters[tag];
    if (raw === undefined || raw === '') continue;
    combine(
      out,
      tagParts(tag, raw).map(({ text, op }) => {
        if (op === 'in' || op === 'nin') {
          if (!TAG_COLUMN[tag]) throw new QueryError(`${tag}: operator '${op}' applies to text filters only`);
          return { e: tagCondition(catalog, TAG_COLUMN[tag], op, text, tag), eq: false };
        }
        const cmp = (name: string, value = text): Expr => tagCondition(catalog, name, op, value, tag);
        // an address picks its family's columns
        const fam = (pair: [string, string]) => (ipv4ToNum(text) !== null ? pair[0] : pair[1]);
        let e: Expr;
        switch (tag) {
          case 'ip':
          case 'l7proto': {
            const [a, b] = tag === 'ip' ? [fam(['IPV4_SRC_ADDR', 'IPV6_SRC_ADDR']), fam(['IPV4_DST_ADDR', 'IPV6_DST_ADDR'])] : ['L7_PROTO', 'L7_PROTO_MASTER'];
            // either side equal / neither side equal
            e = { t: 'logic', op: op === '!=' ? 'AND' : 'OR', args: [cmp(a), cmp(b)], kind: 'bool' };
            break;
          }
          case 'cli_ip':
            e = cmp(fam(['IPV4_SRC_ADDR', 'IPV6_SRC_ADDR']));
            break;
          case 'srv_ip':
            e = cmp(fam(['IPV4_DST_ADDR', 'IPV6_DST_ADDR']));
            break;
          case 'l4proto':
            e = cmp(TAG_COLUMN[tag], L4_NAMES[text.toLowerCase()] !== undefined ? String(L4_NAMES[text.toLowerCase()]) : text);
            break;
          default:
            e = cmp(TAG_COLUMN[tag]);
        }
        return { e, eq: op === '=' };
      }),
    );
  }
  return out;
}

export interface SearchPage {
  /** zero-based index of the first record */
  start?: number;
  /** records per page (default 10, at most MAX_HITS) */
  length?: number;
  /** a record field */
  sort?: string;
  order?: 'asc' | 'desc';
}

/**
 * The top_conversations preset: one record per (VLAN, client, server) with
 * its flows and bytes, largest first (the python client's
 * get_top_conversations: sort=bytes, order=DESC, length=10).
 */
export function conversationsQuery(catalog: ColumnCatalog, page: SearchPage, filters: Expr[], w: Window): SelectQuery {
  const c = (name: string) => col(catalog, name);
  const keys = ['VLAN_ID', 'IP_PROTOCOL_VERSION', 'IPV4_SRC_ADDR', 'IPV6_SRC_ADDR', 'IPV4_DST_ADDR', 'IPV6_DST_ADDR'].map(c);
  const items: SelectItem[] = [
    ...keys.map((k) => ({ expr: k, key: k.col.name })),
    { expr: { t: 'agg', fn: 'ANY', arg: c('SRC_LABEL'), distinct: false, kind: 'str' }, key: 'SRC_LABEL' },
    { expr: { t: 'agg', fn: 'ANY', arg: c('DST_LABEL'), distinct: false, kind: 'str' }, key: 'DST_LABEL' },
    { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' },
    { expr: { t: 'agg', fn: 'SUM', arg: c('TOTAL_BYTES'), distinct: false, kind: 'num' }, key: 'bytes' },
  ];
  const idx = (key: string) => items.findIndex((i) => i.key === key);
  const SORT: Record<string, number[]> = {
    bytes: [idx('bytes')],
    count: [idx('count')],
    flows_number: [idx('count')],
    vlan_id: [idx('VLAN_ID')],
    cli_ip: [idx('IPV4_SRC_ADDR'), idx('IPV6_SRC_ADDR')],
    srv_ip: [idx('IPV4_DST_ADDR'), idx('IPV6_DST_ADDR')],
    cli_name: [idx('SRC_LABEL')],
    srv_name: [idx('DST_LABEL')],
  };
  const sort = page.sort || 'bytes';
  const by = SORT[sort];
  if (!by) throw new QueryError(`sort: '${sort}' is not one of ${Object.keys(SORT).join(', ')}`);
  const desc = (page.order ?? 'desc') === 'desc';
  // then by the conversation itself, so pages never overlap on ties
  const tie = [...SORT.cli_ip, ...SORT.srv_ip, idx('VLAN_ID')].filter((i) => !by.includes(i));
  const length = page.length ?? 10;
  if (!Number.isInteger(length) || length < 1) throw new QueryError('length must be a positive integer');
  return {
    items,
    where: [...windowConditions(catalog, w), ...filters],
    groupBy: keys,
    orderBy: [...by.map((index) => ({ expr: { t: 'item' as const, index }, desc })), ...tie.map((index) => ({ expr: { t: 'item' as const, index }, desc: false }))],
    limit: Math.min(length, MAX_HITS),
    offset: page.start ?? 0,
  };
}
