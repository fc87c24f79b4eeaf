// ⑧ Reading (and deleting) the stored alerts of every family but flow, and
// reading the engaged ones the same way: the one place the alert endpoints
// reach the alert tables. Window, interface, status and user scope come from
// the request, ntopng's `value;op` filters go through the query layer
// (tagFilters with the family's tag → column map: bound values only), and
// engaged alerts (memory) are matched by evaluating the same conditions on
// their would-be rows, so both statuses filter alike.
import ipaddr from 'ipaddr.js';

import { StoreError, type Backend } from '../store/backend.js';
import { catalogOf, type CatalogColumn, type ColumnCatalog, type Expr, type SelectItem, type SelectQuery } from '../store/query/ast.js';
import { tagFilters } from '../store/query/build.js';
import { compiler } from '../store/query/compile.js';
import { formatRowsYielding } from '../store/query/format.js';
import { ipv6ToBytes } from '../store/query/ip.js';
import { checkGrouping, parseGroupBy, parseMaxHits, parseOrderBy, parseSelect, parseWhere, QueryError } from '../store/query/parse.js';
import { ALERT_STATUS, ALERT_TABLES, storedIfid } from './alert-tables.js';
import type { AlertService } from './alert-service.js';
import { alertColumns } from './alert-row.js';
import { alertKeyText, SYSTEM_IFID, type AlertFamily, type EngagedAlert } from './types.js';

export { QueryError };

/** ntopng's status parameter of the alert pages */
export type AlertStatus = 'historical' | 'acknowledged' | 'any' | 'engaged';

export interface AlertWindow {
  begin: number;
  end: number;
  /** the interface asked for (families on the system interface ignore it) */
  ifid: number;
  /** CIDRs a restricted user may see; undefined = everything */
  networks?: string[];
}

const COMMON_TAGS = {
  alert_id: 'ALERT_ID', alert_category: 'ALERT_CATEGORY', severity: 'SEVERITY', score: 'SCORE',
  tstamp: 'TSTAMP', description: 'DESCRIPTION', row_id: 'ROWID',
} as const;

/** ntopng's filters of each family (alert_store.lua add_request_filters and the families' additions): tag → column */
export const FAMILY_TAGS: Readonly<Record<AlertFamily, Readonly<Record<string, string>>>> = {
  host: { ...COMMON_TAGS, vlan_id: 'VLAN_ID', ip_version: 'IP_VERSION', ip: 'IP', name: 'NAME', host_pool_id: 'HOST_POOL_ID', network: 'NETWORK' },
  interface: { ...COMMON_TAGS, subtype: 'SUBTYPE' },
  network: { ...COMMON_TAGS, network_name: 'NAME' },
  snmp_device: { ...COMMON_TAGS, ip: 'IP', snmp_interface: 'PORT' },
  mac: COMMON_TAGS,
  system: COMMON_TAGS,
  user: COMMON_TAGS,
  am_host: COMMON_TAGS,
};

/** every filter parameter some family takes (route declarations) */
export const ALL_ALERT_TAGS: readonly string[] = [...new Set(Object.values(FAMILY_TAGS).flatMap((t) => Object.keys(t)))];

/** Families whose alerts belong to ntopng's system interface, whatever ifid is asked. */
export const SYSTEM_FAMILIES: ReadonlySet<AlertFamily> = new Set(['system', 'user', 'am_host', 'snmp_device']);
export const familyIfid = (f: AlertFamily, ifid: number) => (SYSTEM_FAMILIES.has(f) ? SYSTEM_IFID : ifid);

export const MAX_LENGTH = 10_000;

const CATALOGS = Object.fromEntries(Object.entries(ALERT_TABLES).map(([f, t]) => [f, catalogOf(t.name, t.columns)])) as Record<AlertFamily, ColumnCatalog>;
export const alertCatalog = (f: AlertFamily) => CATALOGS[f];

const colOf = (cat: ColumnCatalog, name: string): Extract<Expr, { t: 'col' }> => {
  const c = cat.byName.get(name)!;
  return { t: 'col', col: c, kind: c.kind };
};
const lit = (value: number | string, kind: 'num' | 'str' | 'time' = 'num'): Expr => ({ t: 'lit', value, kind });
const cmp = (op: '=' | '>=' | '<=', l: Expr, r: Expr): Expr => ({ t: 'cmp', op, l, r, kind: 'bool' });

/** A stored or engaged alert as a row: column → value (numbers for numeric columns). */
export type AlertRow = Record<string, string | number>;

/** Grouped counts (ALERT_ID / SEVERITY / TSTAMP keys, in the order asked). */
export interface Group {
  keys: number[];
  count: number;
  score: number;
}

export class AlertStore {
  constructor(
    private readonly store: Backend | null,
    private readonly service: AlertService,
  ) {}

  /** stored alerts need the store; engaged ones do not */
  private get backend(): Backend {
    if (!this.store) throw new StoreError('unavailable', 'the historical store (where alerts are kept) is not available');
    return this.store;
  }

  // ── conditions ───────────────────────────────────────────────────────

  /**
   * The family's conditions for a request: window on tstamp, interface
   * (ntopng: interface_id unless the system interface), status, user scope,
   * then the request's filters. `time: false` leaves the window out (engaged).
   */
  conditions(f: AlertFamily, w: AlertWindow, status: AlertStatus, filters: Record<string, string | undefined>, time = true): Expr[] {
    const cat = CATALOGS[f];
    const out: Expr[] = [];
    if (time) {
      if (!Number.isInteger(w.begin) || !Number.isInteger(w.end) || w.begin < 0 || w.end < w.begin) throw new QueryError('epoch_begin/epoch_end: invalid window');
      out.push(cmp('>=', colOf(cat, 'TSTAMP'), lit(w.begin, 'time')), cmp('<=', colOf(cat, 'TSTAMP'), lit(w.end, 'time')));
    }
    if (!SYSTEM_FAMILIES.has(f)) out.push(cmp('=', colOf(cat, 'INTERFACE_ID'), lit(storedIfid(w.ifid))));
    if (status === 'historical' || status === 'acknowledged') out.push(cmp('=', colOf(cat, 'ALERT_STATUS'), lit(ALERT_STATUS[status])));
    else if (status === 'any') out.push({ t: 'in', arg: colOf(cat, 'ALERT_STATUS'), list: [lit(0), lit(1)], not: false, kind: 'bool' });
    if (w.networks) out.push(scopeCondition(f, cat, w.networks));
    out.push(...tagFilters(cat, filters, FAMILY_TAGS[f]));
    return out;
  }

  // ── engaged alerts as rows ───────────────────────────────────────────

  /** The engaged alerts of a family matching the request (ntopng ignores epoch_begin for them, not epoch_end), newest first. */
  engagedRows(f: AlertFamily, w: AlertWindow, filters: Record<string, string | undefined>): AlertRow[] {
    const conds = this.conditions(f, w, 'engaged', filters, false);
    const rows: AlertRow[] = [];
    for (const a of this.service.engaged(f, familyIfid(f, w.ifid))) {
      if (a.tstamp > w.end) continue;
      const row = engagedRow(f, a);
      if (conds.every((c) => truthy(evalExpr(c, row)))) rows.push(row);
    }
    return rows.sort((x, y) => Number(y.tstamp) - Number(x.tstamp) || String(x.rowid).localeCompare(String(y.rowid)));
  }

  // ── lists ────────────────────────────────────────────────────────────

  /** get/<family>/alert/list.lua: a page of rows (newest first, or by `sort`) and how many match. */
  async list(
    f: AlertFamily,
    w: AlertWindow,
    status: AlertStatus,
    filters: Record<string, string | undefined>,
    page: { start?: number; length?: number; sort?: string; order?: string },
  ): Promise<{ rows: AlertRow[]; total: number }> {
    const start = page.start ?? 0;
    const length = Math.min(page.length ?? 10, MAX_LENGTH);
    const cat = CATALOGS[f];
    const sortCol = page.sort ? cat.byName.get(page.sort.toUpperCase()) : undefined;
    if (page.sort && !sortCol) throw new QueryError(`sort: '${page.sort}' is not a column of ${cat.table}`);
    const desc = (page.order ?? 'desc').toLowerCase() !== 'asc';
    this.service.countQuery(familyIfid(f, w.ifid));
    if (status === 'engaged') {
      let rows = this.engagedRows(f, w, filters);
      if (sortCol) {
        const k = sortCol.sql;
        rows = rows.sort((x, y) => (x[k] < y[k] ? -1 : x[k] > y[k] ? 1 : 0) * (desc ? -1 : 1));
      }
      return { rows: rows.slice(start, start + length), total: rows.length };
    }
    const items: SelectItem[] = cat.columns.map((c) => ({ expr: { t: 'col', col: c, kind: c.kind }, key: c.sql }));
    const sel: SelectQuery = {
      items,
      where: this.conditions(f, w, status, filters),
      groupBy: [],
      // then by rowid, so pages never overlap on ties
      orderBy: [{ expr: colOf(cat, sortCol?.name ?? 'TSTAMP'), desc }, { expr: colOf(cat, 'ROWID'), desc: false }],
      limit: length,
      offset: start,
    };
    const c = compiler(this.backend.dialect, cat);
    const q = c.select(sel);
    const count = c.count(sel);
    const [rows, totals] = await Promise.all([this.backend.query(q), this.backend.query(count)]);
    return { rows: numeric(cat, await formatRowsYielding(rows, q.columns)), total: Number(totals[0]?.rows ?? 0) };
  }

  /** Counts (and score sums) grouped by some of ALERT_ID, SEVERITY, TSTAMP (seconds), from the store or the engaged alerts. */
  async groups(f: AlertFamily, w: AlertWindow, status: AlertStatus, filters: Record<string, string | undefined>, keys: ('ALERT_ID' | 'SEVERITY' | 'TSTAMP')[]): Promise<Group[]> {
    const cat = CATALOGS[f];
    this.service.countQuery(familyIfid(f, w.ifid));
    if (status === 'engaged') {
      const m = new Map<string, Group>();
      for (const r of this.engagedRows(f, w, filters)) {
        const ks = keys.map((k) => Number(r[cat.byName.get(k)!.sql]));
        const id = ks.join('|');
        const g = m.get(id) ?? { keys: ks, count: 0, score: 0 };
        g.count++;
        g.score += Number(r.score);
        m.set(id, g);
      }
      return [...m.values()];
    }
    const ks = keys.map((k) => colOf(cat, k));
    const sel: SelectQuery = {
      items: [
        ...ks.map((k, i) => ({ expr: k, key: `k${i}` })),
        { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' },
        { expr: { t: 'agg', fn: 'SUM', arg: colOf(cat, 'SCORE'), distinct: false, kind: 'num' }, key: 'score' },
      ],
      where: this.conditions(f, w, status, filters),
      groupBy: ks,
      orderBy: [],
      limit: 1_000_000,
    };
    const q = compiler(this.backend.dialect, cat).select(sel);
    return (await formatRowsYielding(await this.backend.query(q), q.columns)).map((r) => ({
      keys: keys.map((_, i) => Number(r[`k${i}`])),
      count: Number(r.count),
      score: Number(r.score),
    }));
  }

  /** The most frequent values of one column among the stored alerts matching the request, most first, and how many match. */
  async top(f: AlertFamily, w: AlertWindow, filters: Record<string, string | undefined>, column: string, limit: number): Promise<{ total: number; rows: { value: string; count: number }[] }> {
    const cat = CATALOGS[f];
    const k = colOf(cat, column);
    const where = this.conditions(f, w, 'historical', filters);
    const sel: SelectQuery = {
      items: [{ expr: k, key: 'value' }, { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' }],
      where,
      groupBy: [k],
      orderBy: [{ expr: { t: 'item', index: 1 }, desc: true }, { expr: { t: 'item', index: 0 }, desc: false }],
      limit,
    };
    const c = compiler(this.backend.dialect, cat);
    const q = c.select(sel);
    const all: SelectQuery = { items: [{ expr: colOf(cat, 'ROWID'), key: 'id' }], where, groupBy: [], orderBy: [], limit: 1 };
    const [rows, totals] = await Promise.all([this.backend.query(q), this.backend.query(c.count(all))]);
    this.service.countQuery(familyIfid(f, w.ifid));
    return { total: Number(totals[0]?.rows ?? 0), rows: (await formatRowsYielding(rows, q.columns)).map((r) => ({ value: r.value, count: Number(r.count) })) };
  }

  // ── delete ───────────────────────────────────────────────────────────

  /** delete/<family>/alerts.lua: the stored alerts matching the request (historical by default). */
  async delete(f: AlertFamily, w: AlertWindow, status: Exclude<AlertStatus, 'engaged'>, filters: Record<string, string | undefined>): Promise<number> {
    const cat = CATALOGS[f];
    const where = compiler(this.backend.dialect, cat).where(this.conditions(f, w, status, filters));
    return this.backend.deleteWhere(ALERT_TABLES[f], where);
  }

  /**
   * acknowledge/<family>/alerts.lua: the stored alerts matching the request
   * (historical or already acknowledged) become acknowledged, with the label
   * as user_label stamped `now` (ntopng's alert_store acknowledge).
   */
  async acknowledge(f: AlertFamily, w: AlertWindow, filters: Record<string, string | undefined>, label: string, now: number): Promise<number> {
    const cat = CATALOGS[f];
    const where = compiler(this.backend.dialect, cat).where(this.conditions(f, w, 'any', filters));
    const set = [
      { column: 'alert_status', value: ALERT_STATUS.acknowledged },
      { column: 'user_label', value: label },
      { column: 'user_label_tstamp', value: now },
    ];
    return this.backend.updateWhere(ALERT_TABLES[f], set, where);
  }

  // ── get/alert/list/alerts.lua ────────────────────────────────────────

  /** select/where/group_by/order_by/maxhits clauses on the family's table, inside the window and scope. */
  async query(
    f: AlertFamily,
    w: AlertWindow,
    c: { select?: string; where?: string; groupBy?: string; orderBy?: string; maxhits?: number },
  ): Promise<Record<string, string>[]> {
    const cat = CATALOGS[f];
    const items = parseSelect(c.select, cat).map((it) => ({ ...it, key: it.alias ?? (cat.byName.get(it.key) ? cat.byName.get(it.key)!.sql : it.key) }));
    const where = parseWhere(c.where, cat);
    const groupBy = parseGroupBy(c.groupBy, cat);
    const orderBy = parseOrderBy(c.orderBy, cat, items);
    checkGrouping(items, groupBy, orderBy);
    const sel: SelectQuery = {
      items,
      where: [...this.conditions(f, w, 'any', {}), ...(where ? [where] : [])],
      groupBy,
      orderBy,
      limit: parseMaxHits(c.maxhits),
    };
    this.service.countQuery(familyIfid(f, w.ifid));
    const q = compiler(this.backend.dialect, cat).select(sel);
    return formatRowsYielding(await this.backend.query(q), q.columns);
  }
}

/** Stored rows come back as strings: numeric columns as numbers again, as engaged rows hold them. */
function numeric(cat: ColumnCatalog, rows: Record<string, string>[]): AlertRow[] {
  const nums = cat.columns.filter((c) => c.type !== 'str').map((c) => c.sql);
  for (const r of rows) for (const k of nums) (r as AlertRow)[k] = Number(r[k]);
  return rows as AlertRow[];
}

/** An engaged alert as the row it would be stored as (rowid: its key; tstamp_end: its last refresh). */
export function engagedRow(f: AlertFamily, a: EngagedAlert): AlertRow {
  const r = alertColumns(f, a, a.firstSeen, a.tstamp, a.count);
  r.rowid = alertKeyText(a);
  r.alert_status = ALERT_STATUS.engaged;
  return r;
}

// ── user scope ─────────────────────────────────────────────────────────

/**
 * What a restricted user sees: host alerts whose host lies in one of the
 * networks, network alerts of those networks; other families are not theirs
 * (ntopng shows them to unrestricted users only).
 */
function scopeCondition(f: AlertFamily, cat: ColumnCatalog, cidrs: string[]): Expr {
  const any: Expr[] = [];
  for (const text of cidrs) {
    let net: [ipaddr.IPv4 | ipaddr.IPv6, number];
    try {
      net = ipaddr.parseCIDR(text);
    } catch {
      continue;
    }
    if (f === 'network') {
      any.push(cmp('=', colOf(cat, 'NAME'), lit(`${net[0].toString()}/${net[1]}`, 'str')));
      continue;
    }
    if (f !== 'host') continue;
    const ip = colOf(cat, 'IP');
    if (net[0].kind() === 'ipv4') {
      const lo = ipaddr.IPv4.networkAddressFromCIDR(text).toByteArray().reduce((a, b) => a * 256 + b, 0);
      const n: Expr = { t: 'ip4num', arg: ip, kind: 'num' };
      any.push({ t: 'logic', op: 'AND', args: [cmp('>=', n, lit(lo)), cmp('<=', n, lit(lo + 2 ** (32 - net[1]) - 1))], kind: 'bool' });
    } else {
      const hex = (b: number[]) => b.map((x) => x.toString(16).padStart(2, '0')).join('');
      any.push({
        t: 'logic', op: 'AND', kind: 'bool',
        args: [
          cmp('=', colOf(cat, 'IP_VERSION'), lit(6)),
          { t: 'innet', arg: { ...ip, kind: 'ipv6' }, lo: hex(ipaddr.IPv6.networkAddressFromCIDR(text).toByteArray()), hi: hex(ipaddr.IPv6.broadcastAddressFromCIDR(text).toByteArray()), kind: 'bool' },
        ],
      });
    }
  }
  if (!any.length) return { t: 'never', kind: 'bool' };
  return any.length === 1 ? any[0] : { t: 'logic', op: 'OR', args: any, kind: 'bool' };
}

// ── conditions on engaged rows ─────────────────────────────────────────

type Val = number | string | boolean | null;
const truthy = (v: Val) => v === true;

function likeRegex(pattern: string): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${body}$`, 'is');
}

function ipv4Num(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  return m ? ((+m[1] * 256 + +m[2]) * 256 + +m[3]) * 256 + +m[4] : null;
}

/** The SQL meaning of the condition nodes the alert filters and scope build, on one row. */
function evalExpr(e: Expr, row: AlertRow): Val {
  switch (e.t) {
    case 'col':
      return row[(e.col as CatalogColumn).sql] ?? null;
    case 'lit':
      return typeof e.value === 'bigint' ? Number(e.value) : e.value;
    case 'null':
      return null;
    case 'cmp': {
      const l = evalExpr(e.l, row), r = evalExpr(e.r, row);
      if (l === null || r === null) return null;
      const [a, b] = typeof l === 'number' || typeof r === 'number' ? [Number(l), Number(r)] : [String(l), String(r)];
      switch (e.op) {
        case '=': return a === b;
        case '!=': return a !== b;
        case '<': return a < b;
        case '<=': return a <= b;
        case '>': return a > b;
        case '>=': return a >= b;
      }
      return null;
    }
    case 'logic': {
      const vs = e.args.map((a) => evalExpr(a, row));
      return e.op === 'AND' ? vs.every(truthy) : vs.some(truthy);
    }
    case 'not':
      return !truthy(evalExpr(e.arg, row));
    case 'in': {
      const v = evalExpr(e.arg, row);
      const hit = e.list.some((x) => String(evalExpr(x, row)) === String(v));
      return e.not ? !hit : hit;
    }
    case 'like': {
      const hit = likeRegex(String(evalExpr(e.pattern, row))).test(String(evalExpr(e.arg, row) ?? ''));
      return e.not ? !hit : hit;
    }
    case 'ip4num':
      return ipv4Num(String(row[e.arg.col.sql] ?? ''));
    case 'innet': {
      const b = ipv6ToBytes(String(row[e.arg.col.sql] ?? ''));
      if (!b) return false;
      const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      return h >= String(e.lo) && h <= String(e.hi);
    }
    case 'never':
      return false;
    default:
      throw new QueryError('this filter cannot apply to engaged alerts');
  }
}
