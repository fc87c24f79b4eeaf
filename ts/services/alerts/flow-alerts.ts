// ⑧ Historical flow alerts: as with ntopng on ClickHouse (flow_alerts_view),
// they ARE the rows of the flows table whose STATUS (predominant alert) is
// non-zero; nothing else is stored. This is the one place the alert
// endpoints reach the store: window/interface/user scope and ntopng's
// `value;op` filters come from the query layer (bound parameters only).
import type { Backend } from '../store/backend.js';
import { FLOW_COLUMNS, FLOWS_TABLE } from '../store/flow-columns.js';
import { catalogOf, type ColumnCatalog, type Expr, type SelectQuery } from '../store/query/ast.js';
import { tagFilters, windowConditions, type Window } from '../store/query/build.js';
import { compiler } from '../store/query/compile.js';
import { formatRowsYielding } from '../store/query/format.js';
import { QueryError } from '../store/query/parse.js';
import { Engine } from '../../bindings/engine.js';
import { BY_ALERT_ID, categoryField, FLOW_RISK_ALERTS, scoreToSeverity, SEVERITIES } from './catalogue.js';
import { alertTitle } from './titles.js';

export { QueryError };
export type { Window };

/** The filters of the alert endpoints (ntopng's `value;op[,value;op…]` on these tags). */
export const ALERT_FILTERS = ['alert_id', 'severity', 'score', 'cli_ip', 'srv_ip', 'ip', 'cli_port', 'srv_port', 'vlan_id', 'l7proto'] as const;

/** view column (ntopng's flow_alerts_view name) → flows column */
const VIEW: [string, string][] = [
  ['rowid', 'FLOW_ID'], ['tstamp', 'FIRST_SEEN'], ['tstamp_end', 'LAST_SEEN'], ['alert_id', 'STATUS'], ['score', 'SCORE'],
  ['severity', 'SEVERITY'], ['alert_category', 'ALERT_CATEGORY'], ['alerts_map', 'ALERTS_MAP'], ['flow_risk_bitmap', 'FLOW_RISK'],
  ['cli_ip4', 'IPV4_SRC_ADDR'], ['cli_ip6', 'IPV6_SRC_ADDR'], ['srv_ip4', 'IPV4_DST_ADDR'], ['srv_ip6', 'IPV6_DST_ADDR'],
  ['cli_port', 'IP_SRC_PORT'], ['srv_port', 'IP_DST_PORT'], ['vlan_id', 'VLAN_ID'], ['proto', 'PROTOCOL'], ['ip_version', 'IP_PROTOCOL_VERSION'],
  ['l7_proto', 'L7_PROTO'], ['l7_master_proto', 'L7_PROTO_MASTER'], ['l7_cat', 'L7_CATEGORY'], ['info', 'INFO'],
  ['cli_name', 'SRC_LABEL'], ['srv_name', 'DST_LABEL'], ['cli_location', 'CLIENT_LOCATION'], ['srv_location', 'SERVER_LOCATION'],
  ['community_id', 'COMMUNITY_ID'], ['cli2srv_bytes', 'SRC2DST_BYTES'], ['srv2cli_bytes', 'DST2SRC_BYTES'],
  ['cli2srv_pkts', 'SRC2DST_PACKETS'], ['srv2cli_pkts', 'DST2SRC_PACKETS'],
];

export interface AlertPage {
  /** zero-based first record */
  start?: number;
  /** records (default 10, at most 10000) */
  length?: number;
}

export const MAX_LENGTH = 10_000;

/**
 * ntopng's flow_alerts_view names for the flows table's columns (its
 * get/alert/list/alerts.lua queries the view): a clause may name either.
 * cli_ip / srv_ip, which the view builds from both address columns, and
 * the MITRE columns have no single column here.
 */
export const FLOW_ALERTS_VIEW: Readonly<Record<string, string>> = {
  ROWID: 'FLOW_ID', IP_VERSION: 'IP_PROTOCOL_VERSION', TSTAMP: 'FIRST_SEEN', TSTAMP_END: 'LAST_SEEN', CLI2SRV_PKTS: 'SRC2DST_PACKETS',
  SRV2CLI_PKTS: 'DST2SRC_PACKETS', CLI2SRV_BYTES: 'SRC2DST_BYTES', SRV2CLI_BYTES: 'DST2SRC_BYTES', PROTO: 'PROTOCOL', CLI_PORT: 'IP_SRC_PORT',
  SRV_PORT: 'IP_DST_PORT', L7_MASTER_PROTO: 'L7_PROTO_MASTER', L7_CAT: 'L7_CATEGORY', FLOW_RISK_BITMAP: 'FLOW_RISK', ALERT_ID: 'STATUS',
  CLI_NAME: 'SRC_LABEL', SRV_NAME: 'DST_LABEL', CLI_HOST_POOL_ID: 'SRC_HOST_POOL_ID', SRV_HOST_POOL_ID: 'DST_HOST_POOL_ID',
  CLI_NETWORK: 'SRC_NETWORK_ID', SRV_NETWORK: 'DST_NETWORK_ID', CLI_BLACKLISTED: 'IS_CLI_BLACKLISTED', SRV_BLACKLISTED: 'IS_SRV_BLACKLISTED',
  CLI_LOCATION: 'CLIENT_LOCATION', SRV_LOCATION: 'SERVER_LOCATION',
};

/** One row of flow_alerts_view, values as strings. */
export type AlertRow = Record<string, string>;

export class FlowAlerts {
  readonly catalog: ColumnCatalog;

  constructor(private readonly backend: Backend) {
    this.catalog = catalogOf(FLOWS_TABLE.name, FLOW_COLUMNS);
  }

  private col(name: string): Extract<Expr, { t: 'col' }> {
    const c = this.catalog.byName.get(name)!;
    return { t: 'col', col: c, kind: c.kind };
  }

  /** window, scope, STATUS != 0, and the request's filters */
  private where(w: Window, filters: Record<string, string | undefined>): Expr[] {
    const f: Record<string, string | undefined> = {};
    for (const k of ALERT_FILTERS) f[k] = filters[k];
    return [
      ...windowConditions(this.catalog, w),
      { t: 'cmp', op: '!=', l: this.col('STATUS'), r: { t: 'lit', value: 0, kind: 'num' }, kind: 'bool' },
      ...tagFilters(this.catalog, f),
    ];
  }

  /** get/flow/alert/list.lua: a page of alert rows (newest first) and how many match. */
  async list(w: Window, filters: Record<string, string | undefined>, page: AlertPage): Promise<{ rows: AlertRow[]; total: number }> {
    const length = page.length ?? 10;
    const start = page.start ?? 0;
    if (!Number.isInteger(length) || length < 1) throw new QueryError('length must be a positive integer');
    if (!Number.isInteger(start) || start < 0) throw new QueryError('start must be a non-negative integer');
    const sel: SelectQuery = {
      items: VIEW.map(([key, name]) => ({ expr: this.col(name), key })),
      where: this.where(w, filters),
      groupBy: [],
      // newest first, then by flow, so pages never overlap on ties
      orderBy: [{ expr: this.col('FIRST_SEEN'), desc: true }, { expr: this.col('FLOW_ID'), desc: false }, { expr: this.col('LAST_SEEN'), desc: false }],
      limit: Math.min(length, MAX_LENGTH),
      offset: start,
    };
    const cmp = compiler(this.backend.dialect, this.catalog);
    const q = cmp.select(sel);
    const count = cmp.count(sel);
    const [rows, totals] = await Promise.all([this.backend.query(q), this.backend.query(count)]);
    // ungrouped: the inner count is one row holding the matching rows
    return { rows: await formatRowsYielding(rows, q.columns), total: Number(totals[0]?.rows ?? 0) };
  }

  /** alert count per value of one column (STATUS or SEVERITY), largest first */
  async countBy(column: 'STATUS' | 'SEVERITY', w: Window, filters: Record<string, string | undefined> = {}): Promise<{ value: number; count: number }[]> {
    const key = this.col(column);
    const sel: SelectQuery = {
      items: [
        { expr: key, key: 'value' },
        { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' },
      ],
      where: this.where(w, filters),
      groupBy: [key],
      orderBy: [{ expr: { t: 'item', index: 1 }, desc: true }, { expr: { t: 'item', index: 0 }, desc: false }],
      limit: 1000,
    };
    const q = compiler(this.backend.dialect, this.catalog).select(sel);
    return (await formatRowsYielding(await this.backend.query(q), q.columns)).map((r) => ({ value: Number(r.value), count: Number(r.count) }));
  }

  /** the most frequent values of some columns among the alert rows: [values…, count], most first (ntopng's top_*_historical) */
  async top(columns: string[], w: Window, filters: Record<string, string | undefined>, limit: number): Promise<{ keys: string[]; count: number }[]> {
    const ks = columns.map((c) => this.col(c));
    const sel: SelectQuery = {
      items: [...ks.map((k, i) => ({ expr: k, key: `k${i}` })), { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' }],
      where: this.where(w, filters),
      groupBy: ks,
      orderBy: [{ expr: { t: 'item', index: ks.length }, desc: true }, ...ks.map((_, i) => ({ expr: { t: "item" as const, index: i }, desc: false }))],
      limit,
    };
    const q = compiler(this.backend.dialect, this.catalog).select(sel);
    return (await formatRowsYielding(await this.backend.query(q), q.columns)).map((r) => ({ keys: columns.map((_, i) => r[`k${i}`]), count: Number(r.count) }));
  }

  /** matching alert rows */
  async count(w: Window, filters: Record<string, string | undefined>): Promise<number> {
    const sel: SelectQuery = { items: [{ expr: this.col('FLOW_ID'), key: 'id' }], where: this.where(w, filters), groupBy: [], orderBy: [], limit: 1 };
    const r = await this.backend.query(compiler(this.backend.dialect, this.catalog).count(sel));
    return Number(r[0]?.rows ?? 0);
  }

  /** alert count and score sum per (severity, first-seen second): the 'all' family's per-entity and per-slot answers */
  async bySeveritySecond(w: Window, filters: Record<string, string | undefined> = {}): Promise<{ severity: number; tstamp: number; count: number; score: number }[]> {
    const sev = this.col('SEVERITY'), t = this.col('FIRST_SEEN');
    const sel: SelectQuery = {
      items: [
        { expr: sev, key: 'severity' },
        { expr: t, key: 'tstamp' },
        { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' },
        { expr: { t: 'agg', fn: 'SUM', arg: this.col('SCORE'), distinct: false, kind: 'num' }, key: 'score' },
      ],
      where: this.where(w, filters),
      groupBy: [sev, t],
      orderBy: [],
      limit: 1_000_000,
    };
    const q = compiler(this.backend.dialect, this.catalog).select(sel);
    return (await formatRowsYielding(await this.backend.query(q), q.columns)).map((r) => ({
      severity: Number(r.severity), tstamp: Number(r.tstamp), count: Number(r.count), score: Number(r.score),
    }));
  }

  /** alerts per hour of each UTC day inside the window: {day start: [24 counts]} */
  async perHour(w: Window, filters: Record<string, string | undefined> = {}): Promise<Record<string, number[]>> {
    const t = this.col('FIRST_SEEN');
    // grouped by the first-seen second (portable SQL on both backends), bucketed per hour here
    const sel: SelectQuery = {
      items: [
        { expr: t, key: 'tstamp' },
        { expr: { t: 'agg', fn: 'COUNT', distinct: false, kind: 'num' }, key: 'count' },
      ],
      where: this.where(w, filters),
      groupBy: [t],
      orderBy: [],
      limit: 1_000_000,
    };
    const q = compiler(this.backend.dialect, this.catalog).select(sel);
    const out: Record<string, number[]> = {};
    for (const r of await formatRowsYielding(await this.backend.query(q), q.columns)) {
      const ts = Number(r.tstamp);
      const day = ts - (ts % 86400);
      (out[String(day)] ??= new Array(24).fill(0))[Math.floor((ts - day) / 3600)] += Number(r.count);
    }
    return out;
  }
}

const services = new WeakMap<Backend, FlowAlerts>();
/** one service per store */
export function flowAlerts(be: Backend): FlowAlerts {
  let s = services.get(be);
  if (!s) services.set(be, (s = new FlowAlerts(be)));
  return s;
}

/** The alert's name: ntopng's key without its prefix, as the v1 type counters give it. */
export function alertName(alertId: number): string {
  return BY_ALERT_ID.get(alertId)?.key ?? String(alertId);
}

/**
 * The alert's label (alert_consts.alertTypeLabel): its definition's English
 * title; a risk alert without a definition file is titled with nDPI's name
 * of the risk (ndpi_risk2str, as ntopng's flow_risk_simple_alert_definition).
 */
export function alertLabel(alertId: number): string {
  return (labels ??= flowAlertLabels()).get(alertId) ?? String(alertId);
}

let labels: Map<number, string> | undefined;
/** every flow alert's label, worked out once (a record asks for one per row) */
function flowAlertLabels(): Map<number, string> {
  const risks = Engine.info().dpi.risks; // nDPI's names, from the engine's registry
  const out = new Map<number, string>();
  for (const a of BY_ALERT_ID.values()) out.set(a.alertId, alertTitle('flow', a.alertId) ?? a.key);
  for (const r of FLOW_RISK_ALERTS) if (!alertTitle('flow', r.alertId) && risks[r.risk]) out.set(r.alertId, risks[r.risk]!);
  return out;
}

const ntopIp = (v4: string, v6: string) => (v4 && v4 !== '0.0.0.0' ? v4 : v6);

/**
 * A flow_alerts_view row as ntopng's flow_alert_store format_record (with
 * no_html) answers it: the common alert fields and the flow ones.
 */
export function formatAlertRecord(r: AlertRow): Record<string, unknown> {
  const id = Number(r.alert_id);
  const score = Number(r.score);
  const sevId = scoreToSeverity(score); // ntopng's record severity comes from the score
  const sev = SEVERITIES[sevId] ?? SEVERITIES[0];
  const name = alertName(id);
  const typeLabel = alertLabel(id);
  const tstamp = Number(r.tstamp);
  const cli = ntopIp(r.cli_ip4, r.cli_ip6), srv = ntopIp(r.srv_ip4, r.srv_ip6);
  const cat = Number(r.alert_category);
  const location = (v: string) => (v === '1' ? 'L' : v === '2' ? 'M' : 'R');
  return {
    family: 'flow',
    row_id: r.rowid,
    tstamp: { value: tstamp, label: new Date(tstamp * 1000).toISOString().replace('T', ' ').slice(0, 19), highlight: sev.color },
    alert_id: { value: String(id), label: typeLabel },
    alert_category: categoryField(cat),
    score: { value: score, label: String(score), color: sev.color },
    severity: { value: sevId, label: sev.title, color: sev.color },
    // no alert labels/acknowledgement yet: ntopng's empty value
    user_label: '',
    duration: Number(r.tstamp_end) - tstamp,
    count: 1,
    // ntopng reads it from the alert JSON, which risk alerts do not carry here
    script_key: '',
    subtype: '',
    alert_name: name,
    msg: { name, fullname: name, value: id, description: '' },
    info: { label: r.info, value: r.info },
    alerts_map: r.alerts_map,
    flow_risk_bitmap: r.flow_risk_bitmap,
    cli_ip: { value: cli, ip: cli, label: r.cli_name || cli, name: r.cli_name, location: location(r.cli_location) },
    srv_ip: { value: srv, ip: srv, label: r.srv_name || srv, name: r.srv_name, location: location(r.srv_location) },
    cli_port: { value: r.cli_port, label: r.cli_port },
    srv_port: { value: r.srv_port, label: r.srv_port },
    vlan_id: { value: Number(r.vlan_id), label: r.vlan_id === '0' ? '' : r.vlan_id },
    proto: { value: r.proto, label: ({ '6': 'TCP', '17': 'UDP', '1': 'ICMP', '58': 'ICMPv6' } as Record<string, string>)[r.proto] ?? r.proto },
    l7_proto: r.l7_proto,
    l7_master_proto: r.l7_master_proto,
    community_id: r.community_id,
    traffic: { cli2srv_bytes: Number(r.cli2srv_bytes), srv2cli_bytes: Number(r.srv2cli_bytes), cli2srv_pkts: Number(r.cli2srv_pkts), srv2cli_pkts: Number(r.srv2cli_pkts) },
  };
}
