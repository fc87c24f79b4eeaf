// Timeseries endpoints: ts.lua (v0, v1, v2), type/consts.lua, pro
// ts_multi.lua and v2 batch.lua. The service reads the series; here a
// request's ts_schema / ts_query become a series request (checked: -5 for a
// bad schema or query, -2 for an unknown ifid, -3 outside the user's
// interface or networks, -6 without a store), and results take ntopng's
// shapes: v0/v1 as ts_utils.query returns them, v2 as ts_data.get_timeseries.
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

import { Engine, l7Id } from '../../bindings/engine.js';
import { normalizeCidr } from '../../services/cidr.js';
import {
  SCHEMAS,
  hostTag,
  schemaByName,
  schemaFamily,
  statistics,
  totalSerie,
  type Schema,
  type SeriesData,
  type Statistics,
  type Timeseries,
} from '../../services/timeseries/index.js';
import { StoreError } from '../../services/store/backend.js';
import { SYSTEM_TS_IFID } from '../../services/timeseries/schemas.js';
import { SYSTEM_IFID } from '../../services/alerts/types.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx, Version } from '../route.js';
import { inNetworks } from './hosts.js';

/** ntopng's zoom durations (graph_common.zoom_vals): what ts_compare may name. */
export const COMPARE_SECONDS: Record<string, number> = { '1m': 60, '5m': 300, '30m': 1800, '1h': 3600, '1d': 86400, '1w': 604800, '1M': 2678400, '1Y': 31622400 };

/** Top queries return this many series (ts_utils.getQueryOptions: top = 8). */
const TOP_N = 8;
/** Without epochs: the last hour (ntopng: os.time() - 3600 .. os.time()). */
const DEFAULT_SPAN = 3600;

const bad = (msg: string) => new ApiError(RC.INVALID_ARGUMENTS, msg);

export function service(ctx: ApiCtx): Timeseries {
  const t = ctx.deps.timeseries;
  if (!t || !t.available) throw new ApiError(RC.INTERNAL_ERROR, 'the timeseries store is not available');
  return t;
}

/** ntopng's tsQueryToTags: 'k:v' pairs split at their first ':' (IPv6 values keep theirs). */
export function parseTsQuery(q: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const part of q.split(',')) {
    if (!part.trim()) continue;
    const i = part.indexOf(':');
    if (i <= 0) throw bad(`ts_query: '${part}' is not tag:value`);
    const k = part.slice(0, i).trim();
    if (!/^[a-z_][a-z0-9_]*$/i.test(k)) throw bad(`ts_query: '${k}' is not a tag name`);
    tags[k] = part.slice(i + 1).trim();
  }
  return tags;
}

export interface ResolvedQuery {
  schema: Schema;
  /** a top:<schema> query over the schema's last tag */
  topTag: string | null;
  ifid: number;
  /** the tags as the answer echoes them (`query`), ifid included */
  tags: Record<string, string>;
  /** canonical text of the fixed tags after ifid (all of them unless top) */
  text: string;
}

const canonicalIp = (ip: string) => (isIP(ip) === 6 ? ipaddr.parse(ip).toString() : ip);

/** Checks a schema name and ts_query against the schema, the interfaces and the user. */
export function resolveQuery(ctx: ApiCtx, schemaName: string | undefined, tsQuery: string | undefined): ResolvedQuery {
  if (!schemaName) throw bad('missing ts_schema');
  if (tsQuery === undefined || !tsQuery.trim()) throw bad('missing ts_query');
  const top = schemaName.startsWith('top:');
  const schema = schemaByName(top ? schemaName.slice(4) : schemaName);
  if (!schema) throw bad(`unknown ts_schema '${schemaName}'`);
  const tags = parseTsQuery(tsQuery);
  if (tags.ifid === undefined) throw bad('ts_query has no ifid');
  // system schemas (active monitoring) live on ntopng's system interface -1
  let ifid: number;
  if (schema.system) {
    if (tags.ifid !== String(SYSTEM_IFID)) throw new ApiError(RC.INVALID_INTERFACE, `${schema.name} is kept on the system interface: ifid:${SYSTEM_IFID}`);
    ifid = SYSTEM_TS_IFID;
  } else {
    if (!/^\d+$/.test(tags.ifid)) throw new ApiError(RC.INVALID_INTERFACE, `ifid '${tags.ifid}' is not an interface id`);
    const iface = ctx.deps.interfaces.get(Number(tags.ifid));
    if (!iface) throw new ApiError(RC.INVALID_INTERFACE, `no interface with ifid ${tags.ifid}`);
    if (ctx.user.allowed_interface && ctx.user.allowed_interface !== iface.ifname) throw new ApiError(RC.NOT_GRANTED, `interface ${tags.ifid} is not allowed for this user`);
    ifid = iface.ifid;
  }
  const out: Record<string, string> = { ifid: schema.system ? String(SYSTEM_IFID) : String(ifid) };
  const missing: string[] = [];
  for (const t of schema.tags.slice(1)) {
    const v = tags[t];
    if (v === undefined || v === '') {
      missing.push(t);
      continue;
    }
    // an active monitoring host is a name, URL or host:port as configured, not an address
    if (schema.system && (v.length > 1000 || v.includes(','))) throw bad(`ts_query: ${t} '${v.slice(0, 64)}' is not a valid value`);
    out[t] = schema.system ? v : normalizeTag(ctx, t, v);
  }
  let topTag: string | null = null;
  if (missing.length) {
    const last = schema.tags[schema.tags.length - 1];
    if (!top || missing.length > 1 || missing[0] !== last) throw bad(`ts_query lacks ${missing.join(', ')} (${schema.name} has tags ${schema.tags.join(', ')})`);
    topTag = last;
  }
  const fixedTags = schema.tags.slice(1).filter((t) => t !== topTag);
  const text = fixedTags.map((t) => `${t}=${out[t]}`).join(',');
  return { schema, topTag, ifid, tags: out, text };
}

function normalizeTag(ctx: ApiCtx, tag: string, v: string): string {
  switch (tag) {
    case 'host': {
      const m = /^\[?([0-9A-Fa-f:.]+?)\]?(?:@(\d{1,4}))?$/.exec(v);
      if (!m || !isIP(m[1])) throw bad(`ts_query: host '${v}' is not an IP address (optionally @vlan)`);
      const vlan = m[2] ? Number(m[2]) : 0;
      if (vlan > 4095) throw bad(`ts_query: VLAN ${vlan} out of range`);
      if (ctx.allowed && !inNetworks(m[1], ctx.allowed)) throw new ApiError(RC.NOT_GRANTED, `host ${m[1]} is outside the networks allowed to this user`);
      return hostTag(canonicalIp(m[1]), vlan);
    }
    case 'subnet': {
      const c = normalizeCidr(v);
      if (!c) throw bad(`ts_query: subnet '${v}' is not a CIDR`);
      if (ctx.allowed && !inNetworks(c.split('/')[0], ctx.allowed)) throw new ApiError(RC.NOT_GRANTED, `network ${c} is outside the networks allowed to this user`);
      return c;
    }
    case 'vlan':
      if (!/^\d{1,4}$/.test(v) || Number(v) > 4095) throw bad(`ts_query: vlan '${v}' is not a VLAN id`);
      return String(Number(v));
    case 'asn':
      if (!/^\d{1,10}$/.test(v)) throw bad(`ts_query: asn '${v}' is not a number`);
      return String(Number(v));
    default:
      if (v.length > 128 || /[,=]/.test(v)) throw bad(`ts_query: ${tag} '${v}' is not a valid value`);
      return v;
  }
}

export interface Epochs {
  begin: number;
  end: number;
}

/**
 * The window asked for; without an end, the series' own clock (packet time:
 * a replayed capture's last hour, not the wall clock's empty one), else now.
 */
export function epochs(ctx: ApiCtx, begin: number | undefined, end: number | undefined): Epochs {
  const e = end ?? (ctx.deps.timeseries?.store.clock || Math.floor(Date.now() / 1000));
  const b = begin ?? e - DEFAULT_SPAN;
  if (b >= e) throw bad(`epoch_begin (${b}) must be before epoch_end (${e})`);
  return { begin: b, end: e };
}

export function compareSeconds(c: string | undefined): number | null {
  if (c === undefined || c === '') return null;
  const s = COMPARE_SECONDS[c];
  if (s === undefined) throw bad(`ts_compare '${c}' is not one of ${Object.keys(COMPARE_SECONDS).join(', ')}`);
  return s;
}

/** A series an unprivileged user may see: its host or network inside the user's networks. */
function visible(ctx: ApiCtx, tags: Record<string, string>): boolean {
  if (!ctx.allowed) return true;
  if (tags.host !== undefined && !inNetworks(tags.host.split('@')[0], ctx.allowed)) return false;
  if (tags.subnet !== undefined && !inNetworks(tags.subnet.split('/')[0], ctx.allowed)) return false;
  return true;
}

/** One series of a result: its tags and data. */
export interface ResultSet {
  tags: Record<string, string>;
  data: SeriesData;
}

export interface TsResult {
  q: ResolvedQuery;
  epochs: Epochs;
  limit: number;
  sets: ResultSet[];
  /** ts_compare: the same query that long before */
  compare?: { key: string; result: TsResult };
}

/** Runs a resolved query: one series, or for top:<schema> the largest ones. */
export async function runQuery(ctx: ApiCtx, q: ResolvedQuery, ep: Epochs, limit: number, compare: string | null = null): Promise<TsResult> {
  const ts = service(ctx);
  const sets: ResultSet[] = [];
  try {
    if (q.topTag === null) {
      sets.push({ tags: q.tags, data: await ts.series({ schema: q.schema, ifid: q.ifid, tags: q.text, begin: ep.begin, end: ep.end, limit }) });
    } else {
      const top = (await ts.seriesTotals(q.schema, q.ifid, q.text, ep.begin, ep.end)).filter((x) => x.total > 0 && visible(ctx, x.tags)).slice(0, TOP_N);
      for (const t of top) {
        sets.push({ tags: { ifid: q.tags.ifid, ...t.tags }, data: await ts.series({ schema: q.schema, ifid: q.ifid, tags: t.text, begin: ep.begin, end: ep.end, limit }) });
      }
    }
  } catch (e) {
    if (e instanceof StoreError) throw new ApiError(RC.INTERNAL_ERROR, `timeseries store: ${e.message}`);
    throw e;
  }
  const r: TsResult = { q, epochs: ep, limit, sets };
  const back = compareSeconds(compare ?? undefined);
  if (back !== null) {
    const first = sets[0]?.data;
    const start = (first?.start ?? ep.begin) - back;
    const span = first ? first.step * first.count : ep.end - ep.begin;
    r.compare = { key: compare!, result: await runQuery(ctx, q, { begin: start, end: start + Math.max(span, 1) }, limit) };
  }
  return r;
}

// ── shapes ──────────────────────────────────────────────────────────────

const metaOf = (r: TsResult) => {
  const d = r.sets[0]?.data;
  const step = d?.step ?? (r.q.schema.step as number);
  const start = d?.start ?? Math.floor(r.epochs.begin / step) * step;
  const count = d?.count ?? 0;
  return { start, step, count };
};

const withTimes = (data: (number | null)[], start: number, step: number) => Object.fromEntries(data.map((v, i) => [String(start + i * step), v]));

/** ts_utils.query's statistics: over the sum of the metrics per point, with per-metric ones in by_serie. */
function queryStatistics(d: SeriesData, counter: boolean): Statistics & { by_serie: Statistics[] } {
  const tot = totalSerie(d.metrics, d.count);
  const total = counter ? d.metrics.reduce((a, m) => a + (m.total ?? 0), 0) : tot.reduce((a, v) => a + v, 0);
  return { ...statistics(tot, total), by_serie: d.metrics.map((m) => statistics(m.data, m.total ?? (counter ? 0 : null))) };
}

/**
 * v0 and v1 (ntopng's rest/v1 ts.lua over ts_utils.query): start, step,
 * count, series [{label, tags, data}], statistics, schema, query,
 * max_points. v0 gives each series' data keyed by epoch (the spec's shape);
 * v1 only with extended=1, as ntopng does.
 */
export function shapeV01(r: TsResult, version: Version, extended: boolean): Record<string, unknown> {
  const { start, step, count } = metaOf(r);
  const keyed = version === 'v0' || extended;
  const counter = r.q.schema.type === 'counter';
  const multi = r.sets.length > 1 || r.q.topTag !== null;
  const series = r.sets.flatMap((s) =>
    s.data.metrics.map((m) => ({
      label: multi ? `${s.tags[r.q.topTag!] ?? ''}${s.data.metrics.length > 1 ? ` ${m.metric}` : ''}` : m.metric,
      tags: s.tags,
      data: keyed ? withTimes(m.data, s.data.start, s.data.step) : m.data,
    })),
  );
  const out: Record<string, unknown> = {
    start,
    step,
    count,
    series,
    statistics: r.sets.length ? queryStatistics(r.sets.length === 1 ? r.sets[0].data : merged(r.sets), counter) : undefined,
    schema: `${r.q.topTag ? 'top:' : ''}${r.q.schema.name}`,
    query: r.q.tags,
    max_points: r.limit,
  };
  if (r.compare) {
    const c = r.compare.result;
    const cm = c.sets.length ? totalSerie(c.sets.length === 1 ? c.sets[0].data.metrics : merged(c.sets).metrics, metaOf(c).count) : [];
    out.additional_series = { [`${r.compare.key} ago`]: keyed ? withTimes(cm, start, step) : cm };
  }
  return out;
}

/** The sets of a top query as one series set (for its overall statistics). */
function merged(sets: ResultSet[]): SeriesData {
  const first = sets[0].data;
  return { ...first, metrics: sets.flatMap((s) => s.data.metrics) };
}

/** One v2 series entry (ts_data: id, data, statistics), with label and tags for older clients. */
function v2Series(r: TsResult) {
  const counter = r.q.schema.type === 'counter';
  return r.sets.flatMap((s) =>
    s.data.metrics.map((m) => ({
      id: m.metric,
      label: r.q.topTag ? `${s.tags[r.q.topTag]}${s.data.metrics.length > 1 ? ` ${m.metric}` : ''}` : m.metric,
      tags: s.tags,
      data: m.data,
      statistics: statistics(m.data, counter ? m.total : null),
    })),
  );
}

/**
 * v2 (ts_data.get_timeseries → driver:timeseries_query): metadata
 * {epoch_begin, epoch_end, epoch_step, num_point, schema, query} and series
 * [{id, data, statistics}]; ts_compare adds additional_series {'<c>_ago': …}.
 * Also start, step, count and statistics at the top, which ntopng's Python
 * client (historical.py) reads from this endpoint.
 */
export function shapeV2(r: TsResult): Record<string, unknown> {
  const { start, step, count } = metaOf(r);
  const out: Record<string, unknown> = {
    metadata: {
      epoch_begin: start,
      epoch_end: start + step * count,
      epoch_step: step,
      num_point: count,
      schema: `${r.q.topTag ? 'top:' : ''}${r.q.schema.name}`,
      query: r.q.tags,
    },
    series: v2Series(r),
    start,
    step,
    count,
  };
  if (r.sets.length) out.statistics = queryStatistics(r.sets.length === 1 ? r.sets[0].data : merged(r.sets), r.q.schema.type === 'counter');
  if (r.compare) out.additional_series = { [`${r.compare.key}_ago`]: shapeV2(r.compare.result) };
  return out;
}

// ── type/consts.lua ─────────────────────────────────────────────────────

const COLORS: Record<string, string> = { bytes: '#1f77b4', packets: '#1f77b4', bytes_sent: '#c6d9fd', bytes_rcvd: '#90ee90', num_devices: '#ac9ddf', num_flows: '#8c6f94', new_flows: '#8c6f94', num_hosts: '#ff7f0e' };
const color = (m: string) => COLORS[m] ?? '#c6d9fd';
const METRIC_LABELS: Record<string, string> = {
  bytes_sent: 'Sent', bytes_rcvd: 'Received', bytes_ingress: 'Ingress', bytes_egress: 'Egress', bytes_inner: 'Inner', flows_as_client: 'As Client', flows_as_server: 'As Server',
  // ntopng's graphs.* titles
  cli_score: 'Score as Client', srv_score: 'Score as Server', score_as_cli: 'Score as Client', score_as_srv: 'Score as Server',
  dumped_flows: 'Exported Flows', dropped_flows: 'Dropped Flows', engaged_alerts: 'Engaged Alerts', dropped_alerts: 'Dropped Alerts',
};
const metricLabel = (m: string) => METRIC_LABELS[m] ?? m.replace(/^num_/, '').replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const scaleOf = (s: Schema) => (s.unit === 'bps' ? 'Traffic' : s.unit === 'pps' ? 'Packets' : 'Value');

/** The entity tag of a family (after ifid), if any. */
const ENTITY_TAG: Record<string, string> = { host: 'host', subnet: 'subnet', vlan: 'vlan', asn: 'asn', country: 'country' };

export interface ConstsParams {
  query: string;
  ifid?: number;
  host?: string;
  subnet?: string;
  vlan?: string;
  asn?: string;
  epoch_begin?: number;
  epoch_end?: number;
}

/**
 * timeseries_info.retrieve_specific_timeseries: the family's schemas (id =
 * the family), then for schemas with a further tag (protocol, category …)
 * one top:<schema> entry per stored series that carried something in the
 * range, as ntopng lists them from its series.
 */
export async function consts(ctx: ApiCtx, p: ConstsParams): Promise<unknown[]> {
  const family = p.query.trim();
  if (!family) throw bad('missing query');
  const ifid = p.ifid ?? 0;
  const iface = ctx.deps.interfaces.get(ifid);
  if (!iface) throw new ApiError(RC.INVALID_INTERFACE, `no interface with ifid ${ifid}`);
  if (ctx.user.allowed_interface && ctx.user.allowed_interface !== iface.ifname) throw new ApiError(RC.NOT_GRANTED, `interface ${ifid} is not allowed for this user`);
  const schemas = SCHEMAS.filter((s) => schemaFamily(s.name) === family);
  const out: unknown[] = [];
  const entityTag = ENTITY_TAG[family];
  const base = schemas.filter((s) => s.tags.length === (entityTag ? 2 : 1));
  for (const s of base) {
    out.push({
      schema: s.name,
      id: family,
      label: s.label,
      priority: 0,
      measure_unit: s.unit,
      scale: scaleOf(s),
      timeseries: Object.fromEntries(s.metrics.map((m) => [m, { label: metricLabel(m), color: color(m) }])),
      ...(s.name.endsWith(':traffic') || s.name === 'iface:traffic_rxtx' ? { default_visible: true } : {}),
    });
  }
  // top entries need the entity (the host …) unless the family is the interface
  const entity = entityTag ? (p as unknown as Record<string, string | undefined>)[entityTag] : '';
  if (entityTag && !entity) return out;
  const ts = ctx.deps.timeseries;
  if (!ts || !ts.available) return out;
  const fixed = entityTag ? `${entityTag}=${normalizeTag(ctx, entityTag, entity!)}` : '';
  const begin = p.epoch_begin ?? 0;
  const end = p.epoch_end ?? 2 ** 32 - 1;
  for (const s of schemas.filter((x) => x.tags.length === (entityTag ? 3 : 2))) {
    const tag = s.tags[s.tags.length - 1];
    let totals;
    try {
      totals = await ts.seriesTotals(s, ifid, fixed, begin, end);
    } catch (e) {
      if (e instanceof StoreError) throw new ApiError(RC.INTERNAL_ERROR, `timeseries store: ${e.message}`);
      throw e;
    }
    for (const t of totals) {
      if (!(t.total > 0)) continue;
      const v = t.tags[tag];
      out.push({
        schema: `top:${s.name}`,
        group: s.label,
        priority: 2,
        query: `${tag}:${v}`,
        label: v,
        measure_unit: s.unit,
        scale: scaleOf(s),
        timeseries: Object.fromEntries(s.metrics.map((m) => [m, { label: s.metrics.length > 1 ? `${v} ${metricLabel(m)}` : v, color: color(m) }])),
      });
    }
  }
  return out;
}

// ── ts_multi.lua, batch.lua ─────────────────────────────────────────────

export interface TsRequest {
  ts_query: string;
  ts_schema: string;
  tskey?: string | number;
}

/** pro ts_multi.lua: one v2 result per request, in order (ntopng's charts read them as an array). */
export async function tsMulti(ctx: ApiCtx, p: { epoch_begin?: number; epoch_end?: number; limit?: number; ts_compare?: string; ts_requests: TsRequest[] | Record<string, TsRequest> }): Promise<unknown[]> {
  const reqs = Array.isArray(p.ts_requests) ? p.ts_requests : Object.values(p.ts_requests);
  if (!reqs.length) throw bad('ts_requests is empty');
  if (reqs.length > MAX_QUERIES) throw bad(`at most ${MAX_QUERIES} ts_requests`);
  const ep = epochs(ctx, p.epoch_begin, p.epoch_end);
  compareSeconds(p.ts_compare);
  const resolved = reqs.map((r) => resolveQuery(ctx, r.ts_schema, r.ts_query));
  const out: unknown[] = [];
  for (const q of resolved) out.push(shapeV2(await runQuery(ctx, q, ep, p.limit ?? 180, p.ts_compare || null)));
  return out;
}

export const MAX_QUERIES = 64;

export interface BatchQuery {
  id?: string | number;
  ts_schema?: string;
  ts_query?: string;
  tskey?: string | number;
  limit?: number | string;
  compare?: string;
}

/**
 * v2 batch.lua: each query answered on its own under its id (one bad query
 * gets {series: [], metadata: {}, measure_unit, error} and the others still
 * run); queries without an id are skipped, as ntopng does.
 */
export async function batch(ctx: ApiCtx, p: { epoch_begin?: number; epoch_end?: number; limit?: number; ts_compare?: string; queries: BatchQuery[] }): Promise<unknown> {
  if (p.queries.length > MAX_QUERIES) throw bad(`at most ${MAX_QUERIES} queries`);
  const ep = epochs(ctx, p.epoch_begin, p.epoch_end);
  service(ctx); // no store: -6 for the whole request
  const results: Record<string, unknown> = {};
  for (const q of p.queries) {
    const id = q.id === undefined ? '' : String(q.id);
    if (!id) continue;
    const schema = q.ts_schema ? schemaByName(q.ts_schema.replace(/^top:/, '')) : undefined;
    try {
      const r = resolveQuery(ctx, q.ts_schema, q.ts_query);
      const limit = q.limit !== undefined && Number.isInteger(Number(q.limit)) && Number(q.limit) > 0 ? Number(q.limit) : (p.limit ?? 180);
      results[id] = { ...shapeV2(await runQuery(ctx, r, ep, limit, q.compare ?? p.ts_compare ?? null)), measure_unit: r.schema.unit };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      results[id] = { series: [], metadata: {}, measure_unit: schema?.unit ?? 'number', error: e.message };
    }
  }
  return { meta: { epoch_begin: ep.begin, epoch_end: ep.end, date_format: 'DD/MM/YYYY HH:mm:ss' }, results };
}

// ── pro interface/top/ts_stats.lua, host/top/ts_stats.lua ──────────────

const CATEGORY_ID = new Map(Engine.info().dpi.categories.map((c) => [c.name, c.id]));

export type DetailView = 'top_protocols' | 'top_categories' | 'top_senders' | 'top_receivers';

/**
 * The rows of a top table over epoch_begin..epoch_end from the stored
 * series: what each application / category / local host carried, its share
 * of the total (percentage), and the ts_schema / ts_query that chart it.
 * For a host (`host` in ts_query): its applications and categories.
 */
export async function topStats(ctx: ApiCtx, family: 'interface' | 'host', p: { ts_query: string; epoch_begin?: number; epoch_end?: number; detail_view?: string }): Promise<unknown[]> {
  const view = (p.detail_view ?? 'top_protocols') as DetailView;
  const views: DetailView[] = family === 'host' ? ['top_protocols', 'top_categories'] : ['top_protocols', 'top_categories', 'top_senders', 'top_receivers'];
  if (!views.includes(view)) throw bad(`detail_view must be one of ${views.join(', ')}`);
  const ep = epochs(ctx, p.epoch_begin, p.epoch_end);
  const base = family === 'host' ? 'host:traffic' : 'iface:traffic';
  const q = resolveQuery(ctx, base, p.ts_query); // checks ifid (-2), the host and the user (-3)
  const fixed = family === 'host' ? `host=${q.tags.host}` : '';
  const ts = service(ctx);
  const schemaName =
    view === 'top_protocols' ? (family === 'host' ? 'host:ndpi' : 'iface:ndpi') : view === 'top_categories' ? (family === 'host' ? 'host:ndpi_categories' : 'iface:ndpi_categories') : 'host:traffic';
  const schema = schemaByName(schemaName)!;
  let totals;
  try {
    totals = await ts.seriesTotals(schema, q.ifid, fixed, ep.begin, ep.end);
  } catch (e) {
    if (e instanceof StoreError) throw new ApiError(RC.INTERNAL_ERROR, `timeseries store: ${e.message}`);
    throw e;
  }
  const metric = view === 'top_senders' ? 'bytes_sent' : view === 'top_receivers' ? 'bytes_rcvd' : null;
  const rows = totals
    .map((t) => ({ t, traffic: metric ? (t.byMetric[metric] ?? 0) : t.total }))
    .filter((x) => x.traffic > 0 && (!ctx.allowed || !x.t.tags.host || inNetworks(x.t.tags.host.split('@')[0], ctx.allowed)))
    .sort((a, b) => b.traffic - a.traffic);
  const all = rows.reduce((a, x) => a + x.traffic, 0);
  const query = (tags: Record<string, string>) => ['ifid:' + q.ifid, ...Object.entries(tags).map(([k, v]) => `${k}:${v}`)].join(',');
  return rows.map(({ t, traffic }) => {
    const row: Record<string, unknown> = { traffic, percentage: (traffic / all) * 100, ts_schema: schemaName, ts_query: query(t.tags) };
    if (view === 'top_protocols') row.protocol = { id: l7Id(t.tags.protocol) ?? 0, label: t.tags.protocol };
    else if (view === 'top_categories') row.category = { id: CATEGORY_ID.get(t.tags.category) ?? 0, label: t.tags.category };
    else row.host = { ip: t.tags.host.split('@')[0], label: t.tags.host };
    return row;
  });
}
