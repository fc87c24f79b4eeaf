// Alert endpoints over the stored flow alerts (services/alerts): permission
// (ntopng's "alerts" capability), window, interface and user scope from the
// request. Errors: hostile filters → -5; no allow_alerts → -3; store missing
// or failing → -6.
import { flowAlerts, formatAlertRecord, QueryError, type FlowAlerts, type Window } from '../../services/alerts/flow-alerts.js';
import { alertLabel, alertName } from '../../services/alerts/flow-alerts.js';
import { SEVERITIES } from '../../services/alerts/catalogue.js';
import { lookup } from '../params.js';
import { StoreError } from '../../services/store/backend.js';
import { envelope, ApiError, RC } from '../rc.js';
import type { AlertService } from '../../services/alerts/alert-service.js';
import { MAX_LENGTH, type AlertStatus, type AlertWindow } from '../../services/alerts/alert-store.js';
import { addTotals, entityValue, filterConsts, formatEntityRecord, formatFamilyRecord, newTotals, toCsv, v0DataRecord, v1DataRecord, type EntityTotals } from '../../services/alerts/alert-format.js';
import { QUERY_FAMILY } from '../../services/alerts/alert-tables.js';
import { ENTITY_ID, familyAlertKeys, familyAlertLabel, familyAlertName } from '../../services/alerts/families.js';
import { FAMILY_TAGS } from '../../services/alerts/alert-store.js';
import { ALERT_FILTERS, FLOW_ALERTS_VIEW } from '../../services/alerts/flow-alerts.js';
import { BY_ALERT_ID } from '../../services/alerts/catalogue.js';
import { ALERT_FAMILIES, type AlertFamily } from '../../services/alerts/types.js';
import { FLOWS_TABLE } from '../../services/store/flow-columns.js';
import { FlowsQuery } from '../../services/store/flows-query.js';
import { shortenString } from '../../services/store/query/format.js';
import { track } from '../activity.js';
import type { ApiCtx } from '../route.js';

function service(ctx: ApiCtx): FlowAlerts {
  if (ctx.user.role !== 'administrator' && !ctx.user.allow_alerts) {
    throw new ApiError(RC.NOT_GRANTED, `user ${ctx.user.username} may not read alerts (allow_alerts)`);
  }
  const be = ctx.deps.history;
  if (!be) throw new ApiError(RC.INTERNAL_ERROR, 'the historical store (where flow alerts live) is not available');
  return flowAlerts(be);
}

async function answer<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof QueryError) throw new ApiError(RC.INVALID_ARGUMENTS, e.message);
    if (e instanceof StoreError) throw new ApiError(RC.INTERNAL_ERROR, `flow alerts query failed: ${e.message}`);
    throw e;
  }
}

export interface AlertWindowParams {
  epoch_begin?: number;
  epoch_end?: number;
}

/** ntopng's default window is the last hour up to now */
function window(ctx: ApiCtx, p: AlertWindowParams): Window {
  const now = Math.floor(Date.now() / 1000);
  const end = p.epoch_end ?? now;
  const begin = p.epoch_begin ?? end - 3600;
  if (end < begin) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_end is before epoch_begin');
  return { begin, end, ifid: ctx.iface.ifid, networks: ctx.allowed };
}

export interface ListParams extends AlertWindowParams {
  start?: number;
  length?: number;
}

/** v2 get/flow/alert/list.lua: {records}, recordsTotal and recordsFiltered beside rsp */
export async function flowAlertList(ctx: ApiCtx, p: ListParams & { format?: string }, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const w = storedWindow(ctx, p);
  const r = await answer(() => s.list(w, filters, { start: p.start, length: listLength(p.length) }));
  const records = r.rows.map(formatAlertRecord);
  // format=txt: CSV, as the family lists (ntopng's to_csv)
  if (p.format === 'txt') return ctx.c.body(toCsv(records as unknown as Record<string, unknown>[]), 200, { 'content-type': 'text/csv' });
  return ctx.c.json({ ...envelope(RC.OK, { records }), recordsTotal: r.total, recordsFiltered: r.total });
}

export interface CounterParams extends AlertWindowParams {
  status?: string;
}

// Only flow alerts exist so far: 'historical' (the other families' stored
// alerts) is honestly empty until those checks exist.
export async function alertTypeCounters(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const rows = await answer(() => s.countBy('STATUS', window(ctx, p), filters));
  return { 'historical-flows': rows.map((r) => ({ count: String(r.count), type: alertName(r.value), alert_id: r.value })), historical: [] };
}

export async function alertSeverityCounters(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const rows = await answer(() => s.countBy('SEVERITY', window(ctx, p), filters));
  return { 'historical-flows': rows.map((r) => ({ count: String(r.count), severity: SEVERITIES[r.value]?.name ?? String(r.value), severity_id: r.value })), historical: [] };
}

/** get/alert/ts.lua, status=historical-flows: {day start: [24 hourly counts]} */
export async function alertTs(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  if (p.status !== undefined && p.status !== 'historical-flows' && p.status !== 'historical') {
    throw new ApiError(RC.INVALID_ARGUMENTS, `status '${p.status}' is not one of historical, historical-flows`);
  }
  const s = service(ctx);
  // 'historical' (non-flow families) holds nothing yet
  if (p.status === 'historical') return {};
  return answer(() => s.perHour(window(ctx, p), filters));
}

// ── every other family (services/alerts/alert-service.ts, alert-store.ts) ──

const STATUSES = ['historical', 'acknowledged', 'any', 'engaged'] as const;

function alertsOf(ctx: ApiCtx): AlertService {
  if (ctx.user.role !== 'administrator' && !ctx.user.allow_alerts) {
    throw new ApiError(RC.NOT_GRANTED, `user ${ctx.user.username} may not read alerts (allow_alerts)`);
  }
  const a = ctx.deps.alerts;
  if (!a) throw new ApiError(RC.INTERNAL_ERROR, 'the alert service is not running');
  return a;
}

function statusOf(s: string | undefined): AlertStatus {
  const v = s ?? 'historical';
  if (!(STATUSES as readonly string[]).includes(v)) throw new ApiError(RC.INVALID_ARGUMENTS, `status '${v}' is not one of ${STATUSES.join(', ')}`);
  return v as AlertStatus;
}

function alertWindow(ctx: ApiCtx, p: AlertWindowParams): AlertWindow {
  const w = window(ctx, p);
  return { begin: w.begin, end: w.end, ifid: ctx.iface.ifid, networks: ctx.allowed };
}

/**
 * The stored alerts a list, delete or acknowledge request means: ntopng's
 * alert_store:add_time_filter filters on time only when both epoch_begin and
 * epoch_end are given; otherwise every stored alert (its web page deletes one
 * alert by row_id alone).
 */
function storedWindow(ctx: ApiCtx, p: AlertWindowParams): AlertWindow {
  return p.epoch_begin === undefined || p.epoch_end === undefined ? wholeWindow(ctx) : alertWindow(ctx, p);
}

/** every stored alert of the interface, whatever its time */
const wholeWindow = (ctx: ApiCtx): AlertWindow => ({ begin: 0, end: 0xffffffff, ifid: ctx.iface.ifid, networks: ctx.allowed });

/** ntopng's lists have no limit unless `length` is given: here MAX_LENGTH at most */
const listLength = (length: number | undefined) => Math.min(length ?? MAX_LENGTH, MAX_LENGTH);

export interface FamilyListParams extends ListParams {
  status?: string;
  format?: string;
  sort?: string;
  order?: string;
}

/** v2 get/<family>/alert/list.lua: {records}, recordsTotal/recordsFiltered; format=txt answers CSV */
export async function familyAlertList(ctx: ApiCtx, f: AlertFamily, p: FamilyListParams, filters: Record<string, string | undefined>) {
  const a = alertsOf(ctx);
  const status = statusOf(p.status);
  const r = await answer(() => a.store.list(f, storedWindow(ctx, p), status, filters, { start: p.start, length: listLength(p.length), sort: p.sort, order: p.order }));
  const records = r.rows.map((row) => formatFamilyRecord(f, row));
  if (p.format === 'txt') return ctx.c.body(toCsv(records), 200, { 'content-type': 'text/csv' });
  return ctx.c.json({ ...envelope(RC.OK, { records }), recordsTotal: r.total, recordsFiltered: r.total });
}

/** Flow alerts grouped by severity and first-seen second (the 'all' answers), [] without a store. */
async function flowGroups(ctx: ApiCtx, w: AlertWindow, status: AlertStatus, filters: Record<string, string | undefined>) {
  // flow alerts are stored rows: nothing is engaged, nothing acknowledged
  if (status === 'engaged' || status === 'acknowledged' || !ctx.deps.history) return [];
  return flowAlerts(ctx.deps.history).bySeveritySecond({ begin: w.begin, end: w.end, ifid: w.ifid, networks: w.networks }, filters);
}

/** Every family's alerts grouped by (severity, second), flow included, as all_alerts_view reads them. */
async function allGroups(ctx: ApiCtx, a: AlertService, w: AlertWindow, status: AlertStatus, filters: Record<string, string | undefined>) {
  const out: { family: AlertFamily | 'flow'; severity: number; tstamp: number; count: number; score: number }[] = [];
  for (const g of await flowGroups(ctx, w, status, filters)) out.push({ family: 'flow', ...g });
  for (const f of ALERT_FAMILIES) {
    // a restricted user sees host and network alerts only (scope), the others answer nothing
    if (!a.stored && status !== 'engaged') continue;
    for (const g of await a.store.groups(f, w, status, filters, ['SEVERITY', 'TSTAMP'])) {
      out.push({ family: f, severity: g.keys[0], tstamp: g.keys[1], count: g.count, score: g.score });
    }
  }
  return out;
}

/** v2 get/all/alert/list.lua: one record per alert entity with its counts per severity group */
export async function allAlertList(ctx: ApiCtx, p: FamilyListParams, filters: Record<string, string | undefined>) {
  const a = alertsOf(ctx);
  const status = statusOf(p.status);
  const w = storedWindow(ctx, p);
  const groups = await answer(() => allGroups(ctx, a, w, status, filters));
  const totals = new Map<AlertFamily | 'flow', EntityTotals>();
  for (const g of groups) {
    let t = totals.get(g.family);
    if (!t) totals.set(g.family, (t = newTotals(g.family)));
    addTotals(t, g.severity, g.count, g.score);
  }
  const all = [...totals].map(([f, t]) => formatEntityRecord(f, t)).sort((x, y) => y.count - x.count || x.entity_id - y.entity_id);
  const start = p.start ?? 0;
  const records = all.slice(start, start + listLength(p.length));
  if (p.format === 'txt') return ctx.c.body(toCsv(records), 200, { 'content-type': 'text/csv' });
  return ctx.c.json({ ...envelope(RC.OK, { records }), recordsTotal: all.length, recordsFiltered: all.length });
}

/** ntopng's count_by_severity_and_time: 31 slots over the window (at least 1 s wide), aligned on the slot width */
function slotBounds(w: AlertWindow) {
  const span = w.end - w.begin;
  const width = span < 31 ? 1 : Math.floor(span / 31);
  const min = w.begin - (w.begin % width);
  return { min, max: min + width * 31, width };
}

/** v2 get/all/alert/ts.lua, get/<family>/alert/ts.lua: {series: [{name, data: [[ms, count]…]}], colors} per severity, highest first */
export async function alertSeverityTs(ctx: ApiCtx, f: AlertFamily | 'all' | 'flow', p: CounterParams, filters: Record<string, string | undefined>) {
  const a = alertsOf(ctx);
  const status = statusOf(p.status);
  const w = alertWindow(ctx, p);
  const { min, max, width } = slotBounds(w);
  const groups = await answer(async () =>
    f === 'all'
      ? allGroups(ctx, a, w, status, filters)
      : f === 'flow'
        ? flowGroups(ctx, w, status, filters)
        : (await a.store.groups(f, w, status, filters, ['SEVERITY', 'TSTAMP'])).map((g) => ({ severity: g.keys[0], tstamp: g.keys[1], count: g.count })),
  );
  const bySev = new Map<number, Map<number, number>>();
  for (const g of groups) {
    // an engaged alert raised before the window counts from its first slot
    const slot = Math.max(min, g.tstamp - (g.tstamp % width));
    if (slot > max) continue;
    let m = bySev.get(g.severity);
    if (!m) bySev.set(g.severity, (m = new Map()));
    m.set(slot, (m.get(slot) ?? 0) + g.count);
    // an engaged alert lasts: it counts in every slot up to the window's end (count_by_severity_and_time)
    if (status === 'engaged') for (let t = slot; t < w.end; ) (t += width), m.set(t, (m.get(t) ?? 0) + g.count);
  }
  const points = (m: Map<number, number> | undefined) => {
    const out: [number, number][] = [];
    for (let s = min; s <= max + 1; s += width) out.push([s * 1000, m?.get(s) ?? 0]);
    return out;
  };
  // count_by_severity_and_time_request: per severity its English title, highest first; none at all
  // is the zero series of severity 0 ('None')
  const sevs = [...bySev.keys()].sort((x, y) => y - x);
  if (!sevs.length) return { series: [{ name: SEVERITIES[0]!.title, data: points(undefined) }], colors: [SEVERITIES[0]!.color] };
  return {
    series: sevs.map((s) => ({ name: SEVERITIES[s]?.title ?? String(s), data: points(bySev.get(s)) })),
    colors: sevs.map((s) => SEVERITIES[s]?.color ?? '#ccc'),
  };
}

/** counts per alert type or severity of the other families ('historical' key of the counters) */
async function familyCounts(ctx: ApiCtx, key: 'ALERT_ID' | 'SEVERITY', p: CounterParams, filters: Record<string, string | undefined>) {
  const a = ctx.deps.alerts;
  if (!a) return [];
  const status = p.status === 'engaged' ? 'engaged' : 'historical';
  if (status === 'historical' && !a.stored) return [];
  const w = alertWindow(ctx, p);
  const m = new Map<string, { value: number; name: string; count: number }>();
  for (const f of ALERT_FAMILIES) {
    for (const g of await a.store.groups(f, w, status, filters, [key])) {
      const name = key === 'ALERT_ID' ? familyAlertName(f, g.keys[0]) : (SEVERITIES[g.keys[0]]?.name ?? String(g.keys[0]));
      const e = m.get(name) ?? { value: g.keys[0], name, count: 0 };
      e.count += g.count;
      m.set(name, e);
    }
  }
  return [...m.values()].sort((x, y) => y.count - x.count || x.value - y.value);
}

export async function alertTypeCountersAll(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  const flows = p.status === 'engaged' ? { 'historical-flows': [] } : await alertTypeCounters(ctx, p, filters);
  const other = await answer(() => familyCounts(ctx, 'ALERT_ID', p, filters));
  return { ...flows, historical: other.map((r) => ({ count: String(r.count), type: r.name, alert_id: r.value })) };
}

export async function alertSeverityCountersAll(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  const flows = p.status === 'engaged' ? { 'historical-flows': [] } : await alertSeverityCounters(ctx, p, filters);
  const other = await answer(() => familyCounts(ctx, 'SEVERITY', p, filters));
  return { ...flows, historical: other.map((r) => ({ count: String(r.count), severity: r.name, severity_id: r.value })) };
}

/** get/alert/ts.lua: status=historical-flows (flows), historical or engaged (every other family): {day start: [24 hourly counts]} */
export async function alertTsAll(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>) {
  // ntopng's alert/ts.lua: status and both epochs are required, the end after the begin
  if (!p.status) throw new ApiError(RC.INVALID_ARGUMENTS, 'status is required (historical-flows, historical, engaged)');
  if (p.epoch_begin === undefined || p.epoch_end === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_begin and epoch_end are required');
  if (p.epoch_end <= p.epoch_begin) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_end must be after epoch_begin');
  const counts = p.status === 'historical-flows' ? ((await alertTs(ctx, p, filters)) as Record<string, number[]>) : await familyTs(ctx, p, filters);
  // every UTC day of the range with its 24 hours, zeros where nothing was (ntopng pre-fills them);
  // past a year, only the days that have alerts (a whole-time window would be tens of thousands of days)
  const DAY = 86400;
  const first = p.epoch_begin - (p.epoch_begin % DAY), last = p.epoch_end - (p.epoch_end % DAY) + DAY;
  if ((last - first) / DAY > 366) return counts;
  const out: Record<string, number[]> = {};
  for (let d = first; d < last; d += DAY) out[String(d)] = counts[String(d)] ?? new Array(24).fill(0);
  return out;
}

/** every family but flow: per UTC day, the 24 hourly counts */
async function familyTs(ctx: ApiCtx, p: CounterParams, filters: Record<string, string | undefined>): Promise<Record<string, number[]>> {
  const a = alertsOf(ctx);
  const status = statusOf(p.status);
  const w = alertWindow(ctx, p);
  const out: Record<string, number[]> = {};
  await answer(async () => {
    for (const f of ALERT_FAMILIES) {
      if (status !== 'engaged' && !a.stored) throw new StoreError('unavailable', 'the historical store (where alerts are kept) is not available');
      for (const g of await a.store.groups(f, w, status, filters, ['TSTAMP'])) {
        const ts = g.keys[0];
        const day = ts - (ts % 86400);
        (out[String(day)] ??= new Array(24).fill(0))[Math.floor((ts - day) / 3600)] += g.count;
      }
    }
  });
  return out;
}

export interface DataParams extends AlertWindowParams {
  status?: string;
  alert_type?: number;
  alert_severity?: number;
}

/** v1 (and v0) get/alert/data.lua: historical (every family but flow), historical-flows, engaged */
export async function alertData(ctx: ApiCtx, p: DataParams, version: 'v0' | 'v1') {
  if (!p.status) throw new ApiError(RC.INVALID_ARGUMENTS, 'status is required (historical, historical-flows, engaged)');
  if (!['historical', 'historical-flows', 'engaged'].includes(p.status)) throw new ApiError(RC.INVALID_ARGUMENTS, `status '${p.status}' is not one of historical, historical-flows, engaged`);
  const filters: Record<string, string | undefined> = {
    alert_id: p.alert_type !== undefined ? String(p.alert_type) : undefined,
    severity: p.alert_severity !== undefined ? String(p.alert_severity) : undefined,
  };
  const out: (ReturnType<typeof v1DataRecord> & { id: number })[] = [];
  await answer(async () => {
    if (p.status === 'historical-flows') {
      const r = await service(ctx).list(window(ctx, p), filters, { length: MAX_LENGTH });
      for (const row of r.rows) {
        const rec = formatAlertRecord(row) as { cli_ip: { ip: string }; srv_ip: { ip: string }; cli_port: { value: string }; srv_port: { value: string }; alert_name: string; score: { value: number }; tstamp: { value: number } };
        const ev = `${rec.cli_ip.ip}:${rec.cli_port.value} -> ${rec.srv_ip.ip}:${rec.srv_port.value}`;
        out.push({ ...v1DataRecord('flow', ev, rec.alert_name, rec.score.value, rec.tstamp.value, 1, rec.alert_name), id: Number(row.alert_id) });
      }
      return;
    }
    const a = alertsOf(ctx);
    const status = p.status === 'engaged' ? 'engaged' : 'historical';
    const w = alertWindow(ctx, p);
    for (const f of ALERT_FAMILIES) {
      const r = await a.store.list(f, w, status, filters, { length: MAX_LENGTH });
      for (const row of r.rows) {
        const rec = formatFamilyRecord(f, row) as { alert_name: string; description: string; count: number };
        out.push({ ...v1DataRecord(f, entityValue(f, row), rec.alert_name, Number(row.score), Number(row.tstamp), rec.count, rec.description || rec.alert_name), id: Number(row.alert_id) });
      }
    }
  });
  out.sort((x, y) => Number(y.date) - Number(x.date));
  return version === 'v0' ? out.map((r) => v0DataRecord(r, r.id)) : out.map(({ id: _id, ...r }) => r);
}

export interface QueryParams extends AlertWindowParams {
  alert_family: string;
  select_clause?: string;
  where_clause?: string;
  maxhits_clause?: number;
  order_by?: string;
  group_by?: string;
}

/** v2 get/alert/list/alerts.lua: the clauses on one family's table (flow: the flows table's alert rows) */
export async function alertQuery(ctx: ApiCtx, p: QueryParams) {
  const f = lookup(QUERY_FAMILY, p.alert_family);
  if (!f) throw new ApiError(RC.INVALID_ARGUMENTS, `alert_family '${p.alert_family}' is not one of ${Object.keys(QUERY_FAMILY).join(', ')}`);
  // ntopng's list/alerts.lua: both epochs are required
  if (p.epoch_begin === undefined || p.epoch_end === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, 'epoch_begin and epoch_end are required');
  const clauses = { select: p.select_clause, where: p.where_clause, groupBy: p.group_by, orderBy: p.order_by, maxhits: p.maxhits_clause };
  if (f === 'flow') {
    const be = service(ctx) && ctx.deps.history!;
    const w = window(ctx, p);
    return answer(() => new FlowsQuery(be, FLOWS_TABLE, FLOW_ALERTS_VIEW).flows({ ...clauses, where: p.where_clause?.trim() ? `STATUS != 0 AND (${p.where_clause})` : 'STATUS != 0' }, w));
  }
  const a = alertsOf(ctx);
  return answer(() => a.store.query(f, alertWindow(ctx, p), clauses));
}

/** delete/<family>/alerts.lua (administrators): the stored alerts matching the filters */
export async function deleteFamilyAlerts(ctx: ApiCtx, f: AlertFamily, p: CounterParams, filters: Record<string, string | undefined>) {
  if (ctx.user.role !== 'administrator') throw new ApiError(RC.NOT_GRANTED, 'only administrators delete alerts');
  const a = alertsOf(ctx);
  const status = statusOf(p.status);
  if (status === 'engaged') throw new ApiError(RC.INVALID_ARGUMENTS, 'engaged alerts are not stored: they end when their check releases them');
  await answer(() => a.store.delete(f, storedWindow(ctx, p), status, filters));
  return [];
}

export interface AckParams extends CounterParams {
  label?: string;
  row_id?: string;
}

/**
 * acknowledge/<family>/alerts.lua (administrators): the stored alerts
 * matching the window (every stored one without both epochs) and filters,
 * or the one row_id, acknowledged with `label`.
 */
export async function acknowledgeFamilyAlerts(ctx: ApiCtx, f: AlertFamily, p: AckParams, filters: Record<string, string | undefined>) {
  if (ctx.user.role !== 'administrator') throw new ApiError(RC.NOT_GRANTED, 'only administrators acknowledge alerts');
  const a = alertsOf(ctx);
  const w = storedWindow(ctx, p);
  const label = p.label ?? '';
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(label)) throw new ApiError(RC.INVALID_ARGUMENTS, 'label holds control characters');
  const fs = p.row_id !== undefined ? { ...filters, row_id: p.row_id.includes(";") ? p.row_id : `${p.row_id};eq` } : filters;
  await answer(() => a.store.acknowledge(f, w, fs, label, Math.floor(Date.now() / 1000)));
  track(ctx, 'acknowledge_alerts', { family: f, label, row_id: p.row_id ?? '' });
  return [];
}

/** v2 get/alert/filter/consts.lua: the filters of one alert page (family) and, for alert_id, its alert types */
export function alertFilterConsts(page: string | undefined) {
  const p = page ?? 'all';
  const f = (ALERT_FAMILIES as readonly string[]).includes(p) ? (p as AlertFamily) : null;
  if (p === 'flow') return filterConsts([...ALERT_FILTERS], [...BY_ALERT_ID.values()].map((r) => ({ id: r.alertId, label: alertLabel(r.alertId) })));
  if (!f) return filterConsts(['alert_id', 'alert_category', 'severity', 'score', 'description'], null);
  const tags = Object.keys(FAMILY_TAGS[f]).filter((t) => t !== 'tstamp' && t !== 'row_id');
  return filterConsts(tags, familyAlertKeys(f).map((k) => ({ id: k.id, label: familyAlertLabel(f, k.id) })));
}

// ── top (pro get/<family>/alert/top.lua; get/alert/top.lua) ───────────────

/** ntopng's alert_store top limit */
const TOP_LIMIT = 10;

/** format_top_alerts / format_top_generic: {key, value, label (shortened), title, count (% of the matching alerts)} */
const topEntry = (key: string, value: string | number, label: string, count: number, total: number) => ({
  key, value, label: shortenString(label), title: label, count: total ? Math.floor((count * 100) / total) : 0,
});

/** top columns per family beside alert_id (the family stores' _get_additional_stats): [card name, column] */
const FAMILY_TOP: Partial<Record<AlertFamily, [string, string][]>> = {
  host: [['ip', 'IP']],
  mac: [['address', 'ADDRESS']],
  network: [['local_network_id', 'NAME']],
  snmp_device: [['ip', 'IP']],
};

/** the alert stats page's cards: ntopng's titles and tooltips (alerts_dashboard.top_*, tooltips.top_*) by the store's top name */
const TOP_CARDS: Readonly<Record<string, readonly [label: string, tooltip: string]>> = {
  alert_id: ['Top Alerts', 'Most seen alerts'],
  ip: ['Top Hosts', 'Hosts with most alerts'],
  cli_ip: ['Top Clients', 'Hosts as client with most alerts'],
  srv_ip: ['Top Servers', 'Hosts as server with most alerts'],
  l7_proto: ['Top Applications', 'Applications with most alerts'],
  vlan: ['Top VLANs', 'VLANs with most alerts'],
  address: ['Top Mac Addresses', 'Mac Addresses with most alerts'],
  local_network_id: ['Top Networks', 'Networks with most alerts'],
};

/**
 * The pro top.lua answer as ntopng's alert stats page reads it (and the
 * Python client's examples): one card per top, [{name, label, tooltip,
 * value: entries}]; an `action` other than `overview` asks for that card only.
 */
function topCards(top: Record<string, unknown[]>, action?: string) {
  const cards = Object.entries(top).map(([name, value]) => ({ name, label: TOP_CARDS[name]?.[0] ?? name, tooltip: TOP_CARDS[name]?.[1] ?? '', value }));
  return action && action !== 'overview' ? cards.filter((c) => c.name === action) : cards;
}

/** get/<family>/alert/top.lua: the cards of alert_id and the family's own tops over the stored (historical) alerts */
export async function familyAlertTop(ctx: ApiCtx, f: AlertFamily, p: AlertWindowParams & { action?: string }, filters: Record<string, string | undefined>) {
  const a = alertsOf(ctx);
  const w = alertWindow(ctx, p);
  return answer(async () => {
    const ids = await a.store.top(f, w, filters, 'ALERT_ID', TOP_LIMIT);
    const top: Record<string, unknown[]> = {
      alert_id: ids.rows.map((r) => topEntry('alert_id', Number(r.value), familyAlertLabel(f, Number(r.value)), r.count, ids.total)),
    };
    for (const [key, col] of FAMILY_TOP[f] ?? []) {
      const t = await a.store.top(f, w, filters, col, TOP_LIMIT);
      top[key] = t.rows.map((r) => topEntry(key, r.value, r.value, r.count, ids.total));
    }
    return topCards(top, p.action);
  });
}

const flowIp = (v4: string, v6: string) => (v4 && v4 !== '0.0.0.0' ? v4 : v6);

/** get/flow/alert/top.lua: alert_id, cli_ip, srv_ip, ip (both merged), l7_proto, vlan */
export async function flowAlertTop(ctx: ApiCtx, p: AlertWindowParams & { action?: string }, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const w = window(ctx, p);
  return answer(async () => {
    const total = await s.count(w, filters);
    const ids = await s.top(['STATUS'], w, filters, TOP_LIMIT);
    const cli = await s.top(['IPV4_SRC_ADDR', 'IPV6_SRC_ADDR'], w, filters, TOP_LIMIT);
    const srv = await s.top(['IPV4_DST_ADDR', 'IPV6_DST_ADDR'], w, filters, TOP_LIMIT);
    const l7 = await s.top(['L7_PROTO'], w, filters, TOP_LIMIT);
    const vlan = await s.top(['VLAN_ID'], w, filters, TOP_LIMIT);
    const ips = (rows: { keys: string[]; count: number }[]) => rows.map((r) => ({ ip: flowIp(r.keys[0], r.keys[1]), count: r.count }));
    // top_ip_merge: an address counted as client and as server adds up
    const merged = new Map<string, number>();
    for (const r of [...ips(cli), ...ips(srv)]) merged.set(r.ip, (merged.get(r.ip) ?? 0) + r.count);
    const ip = [...merged].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).slice(0, TOP_LIMIT);
    return topCards(
      {
        alert_id: ids.map((r) => topEntry('alert_id', Number(r.keys[0]), alertLabel(Number(r.keys[0])), r.count, total)),
        cli_ip: ips(cli).map((r) => topEntry('cli_ip', r.ip, r.ip, r.count, total)),
        srv_ip: ips(srv).map((r) => topEntry('srv_ip', r.ip, r.ip, r.count, total)),
        ip: ip.map(([v, n]) => topEntry('ip', v, v, n, total)),
        l7_proto: l7.map((r) => topEntry('l7_proto', Number(r.keys[0]), r.keys[0], r.count, total)),
        vlan: vlan.map((r) => topEntry('vlan_id', Number(r.keys[0]), r.keys[0], r.count, total)),
      },
      p.action,
    );
  });
}

/**
 * v2 get/alert/top.lua (the python client's get_alerts_stats, read by its
 * report): ntopng's all_alert_store queried without the request's filters —
 * every stored alert of the interface (flows' included, acknowledged or not,
 * any time; the window and `ip` it is sent are not read) — as two lists:
 * the ten (entity, alert type) pairs seen most, and the ten of highest
 * severity (then most seen), each with ntopng's English titles.
 */
export async function alertTopSummary(ctx: ApiCtx) {
  const a = alertsOf(ctx);
  const w = wholeWindow(ctx);
  return answer(async () => {
    // per (entity, alert id): count and highest severity, from (id, severity) groups
    const pairs = new Map<string, { entity: number; id: number; label: string; severity: number; count: number }>();
    const add = (entity: number, id: number, label: string, severity: number, count: number) => {
      const k = `${entity}:${id}`;
      const e = pairs.get(k) ?? { entity, id, label, severity, count: 0 };
      e.severity = Math.max(e.severity, severity);
      e.count += count;
      pairs.set(k, e);
    };
    if (ctx.deps.history)
      for (const r of await flowAlerts(ctx.deps.history).top(['STATUS', 'SEVERITY'], w, {}, 1_000_000))
        add(ENTITY_ID.flow, Number(r.keys[0]), alertLabel(Number(r.keys[0])), Number(r.keys[1]), r.count);
    for (const f of ALERT_FAMILIES)
      for (const g of await a.store.groups(f, w, 'any', {}, ['ALERT_ID', 'SEVERITY']))
        add(ENTITY_ID[f], g.keys[0], familyAlertLabel(f, g.keys[0]), g.keys[1], g.count);
    const all = [...pairs.values()];
    const total = all.reduce((n, e) => n + e.count, 0);
    const tie = (x: (typeof all)[number], y: (typeof all)[number]) => x.entity - y.entity || x.id - y.id;
    const byCount = [...all].sort((x, y) => y.count - x.count || tie(x, y)).slice(0, TOP_LIMIT);
    const bySeverity = [...all].sort((x, y) => y.severity - x.severity || y.count - x.count || tie(x, y)).slice(0, TOP_LIMIT);
    const entry = (e: (typeof all)[number]) => ({ key: 'alert_id', value: e.id, label: shortenString(e.label), title: e.label });
    return [
      {
        name: 'top_alerts_by_count', label: 'Top Alerts By Count', tooltip: 'Most seen alerts',
        value: byCount.map((e) => ({ ...entry(e), count: Math.floor((e.count * 100) / total) })),
      },
      {
        name: 'top_alerts_by_severity', label: 'Top Alerts By Severity', tooltip: 'Alerts with higher severity',
        value: bySeverity.map((e) => ({ ...entry(e), severity: e.severity, severity_label: SEVERITIES[e.severity]?.title ?? '' })),
      },
    ];
  });
}

/** get/all/alert/top.lua: the top alert types of every family (flow included), one card: alert_id [{…, entity}] */
export async function allAlertTop(ctx: ApiCtx, p: AlertWindowParams & { action?: string }) {
  const a = alertsOf(ctx);
  const w = alertWindow(ctx, p);
  return answer(async () => {
    const rows: { entity: string; id: number; name: string; count: number }[] = [];
    let total = 0;
    if (ctx.deps.history) {
      const fa = flowAlerts(ctx.deps.history);
      const fw = window(ctx, p);
      total += await fa.count(fw, {});
      for (const r of await fa.top(['STATUS'], fw, {}, TOP_LIMIT)) rows.push({ entity: 'flow', id: Number(r.keys[0]), name: alertLabel(Number(r.keys[0])), count: r.count });
    }
    for (const f of ALERT_FAMILIES) {
      const t = await a.store.top(f, w, {}, 'ALERT_ID', TOP_LIMIT);
      total += t.total;
      for (const r of t.rows) rows.push({ entity: f, id: Number(r.value), name: familyAlertLabel(f, Number(r.value)), count: r.count });
    }
    rows.sort((x, y) => y.count - x.count || x.entity.localeCompare(y.entity) || x.id - y.id);
    return topCards({ alert_id: rows.slice(0, TOP_LIMIT).map((r) => ({ ...topEntry('alert_id', r.id, r.name, r.count, total), entity: r.entity })) }, p.action);
  });
}
