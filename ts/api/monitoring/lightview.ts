// pro lightview/aggregate.lua: runs one endpoint of this API once per local
// interface (ifid set for each; the caller's credentials go along, so every
// call is checked as the caller) and merges the answers as the dashboard
// component shows them: pie slices summed by label (the max_values largest),
// badge numbers summed, table rows concatenated, sankey nodes joined and
// links summed, timeseries summed point by point; no component: the last
// interface's answer as is. POSTed to batch.lua, each query runs on every
// interface (ifid in its ts_query replaced) and its series are summed, with
// the per-interface series too (split_series) for queries marked split.
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { header } from '../params.js';

export const COMPONENTS = ['pie', 'badge', 'table', 'sankey', 'timeseries'] as const;
export type Component = (typeof COMPONENTS)[number];

/** Parameters of aggregate.lua itself (not forwarded). */
const OWN = new Set(['endpoint', 'component', 'max_values', 'ifid']);

const bad = (msg: string) => new ApiError(RC.INVALID_ARGUMENTS, msg);

export interface AggregateParams {
  endpoint?: string;
  component?: Component;
  max_values?: number;
}

/** The endpoint as a path of this API (no scheme, host, or aggregate itself). */
function endpointPath(e: string): string {
  const path = e.trim().split('?')[0];
  if (!/^\/lua\/(pro\/)?rest\/[A-Za-z0-9_/.]+\.lua$/.test(path) || path.includes('..')) throw bad(`endpoint '${e}' is not a REST endpoint of this service`);
  if (path.includes('/lightview/')) throw bad('endpoint cannot be lightview itself');
  return path;
}

export async function aggregate(ctx: ApiCtx, p: AggregateParams): Promise<unknown> {
  if (!p.endpoint) return [];
  const path = endpointPath(p.endpoint);
  const forward = ctx.deps.forward;
  if (!forward) throw new ApiError(RC.INTERNAL_ERROR, 'forwarding is not available');
  const ifaces = ctx.deps.interfaces.list.filter((i) => !ctx.user.allowed_interface || ctx.user.allowed_interface === i.ifname);
  // forwarded: the caller's query parameters but ours, and its credentials
  const url = new URL(ctx.c.req.url);
  const extra = new URLSearchParams();
  const q0 = p.endpoint.indexOf('?');
  if (q0 >= 0) for (const [k, v] of new URLSearchParams(p.endpoint.slice(q0 + 1))) if (k !== 'ifid') extra.append(k, v);
  for (const [k, v] of url.searchParams) if (!OWN.has(k)) extra.append(k, v);
  const headers: Record<string, string> = {};
  for (const h of ['authorization', 'cookie']) {
    const v = header(ctx.c, h);
    if (v) headers[h] = v;
  }
  const post = ctx.c.req.method === 'POST';
  let body: Record<string, unknown> | null = null;
  if (post) {
    // what the body carried: the parameters read, less the query string's and ours
    body = {};
    for (const [k, v] of Object.entries(ctx.raw ?? {})) if (!OWN.has(k) && !url.searchParams.has(k)) body[k] = v;
  }
  const batch = path.endsWith('/get/timeseries/batch.lua');

  const answers: unknown[] = [];
  for (const i of ifaces) {
    const qs = new URLSearchParams(extra);
    qs.set('ifid', String(i.ifid));
    let init: RequestInit = { method: 'GET', headers };
    if (post) {
      let b: Record<string, unknown> = { ...body, ifid: i.ifid };
      if (batch && Array.isArray(b.queries)) b = { ...b, queries: (b.queries as Record<string, unknown>[]).map((x) => ({ ...x, ts_query: withIfid(String(x.ts_query ?? ''), i.ifid) })) };
      init = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(b) };
    }
    const res = await forward(`${path}?${qs}`, init);
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    const v2 = /\/rest\/v[12]\//.test(path);
    if (v2 && json && typeof json.rc === 'number' && json.rc !== 0) throw new ApiError(json.rc, `${path} on ifid ${i.ifid}: ${String(json.rc_str_detail ?? json.rc_str_hr ?? json.rc_str)}`);
    if (!v2 && res.status !== 200) throw new ApiError(res.status === 401 ? RC.NOT_GRANTED : RC.INVALID_ARGUMENTS, `${path} on ifid ${i.ifid}: ${JSON.stringify(json)}`);
    answers.push(v2 ? json?.rsp : json);
  }
  if (!answers.length) return [];
  if (batch && post) return mergeBatch(answers, ifaces.map((i) => i.ifid), (body?.queries as { id?: unknown; split?: unknown }[]) ?? []);
  switch (p.component) {
    case undefined:
      return answers[answers.length - 1];
    case 'pie':
      return mergePie(answers, p.max_values ?? 10);
    case 'badge':
      return answers.reduce((a, b) => sumDeep(a, b));
    case 'table':
      return mergeTable(answers);
    case 'sankey':
      return mergeSankey(answers);
    case 'timeseries':
      return answers.reduce((a, b) => sumSeriesAnswer(a, b));
  }
}

/** ts_query with its ifid tag set to this interface. */
function withIfid(q: string, ifid: number): string {
  const parts = q.split(',').filter((x) => x && !x.startsWith('ifid:'));
  return [`ifid:${ifid}`, ...parts].join(',');
}

type Slice = { label?: unknown; name?: unknown; value?: unknown };

/** Pie answers: arrays of {label, value} (or an object label → value), summed by label, largest first. */
function mergePie(answers: unknown[], max: number): unknown {
  const sums = new Map<string, number>();
  let asObject = false;
  for (const a of answers) {
    if (Array.isArray(a)) {
      for (const s of a as Slice[]) {
        const label = String(s.label ?? s.name ?? '');
        sums.set(label, (sums.get(label) ?? 0) + (Number(s.value) || 0));
      }
    } else if (a && typeof a === 'object') {
      asObject = true;
      for (const [k, v] of Object.entries(a)) sums.set(k, (sums.get(k) ?? 0) + (Number(v) || 0));
    }
  }
  const top = [...sums.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, max);
  return asObject ? Object.fromEntries(top) : top.map(([label, value]) => ({ label, value }));
}

/** Numbers summed, objects merged key by key, arrays element by element; anything else: the first. */
function sumDeep(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a === null || a === undefined) return b;
  if (b === null || b === undefined) return a;
  if (Array.isArray(a) && Array.isArray(b)) return a.map((x, i) => (i < b.length ? sumDeep(x, b[i]) : x)).concat(b.slice(a.length));
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = k in out ? sumDeep(out[k], v) : v;
    return out;
  }
  return a;
}

/** Table answers: arrays of rows, or {data: rows, …}: rows concatenated. */
function mergeTable(answers: unknown[]): unknown {
  if (answers.every(Array.isArray)) return (answers as unknown[][]).flat();
  const first = answers.find((a) => a && typeof a === 'object' && Array.isArray((a as { data?: unknown }).data)) as Record<string, unknown> | undefined;
  if (!first) return answers[answers.length - 1];
  const data = answers.flatMap((a) => ((a as { data?: unknown[] })?.data ?? []));
  return { ...first, data, recordsTotal: data.length, recordsFiltered: data.length };
}

interface SankeyAnswer {
  nodes?: { id?: unknown; label?: unknown }[];
  links?: { source?: unknown; target?: unknown; value?: unknown }[];
}

/** Sankey answers {nodes, links}: nodes joined by id (or label), links summed by (source, target). */
function mergeSankey(answers: unknown[]): unknown {
  const nodes = new Map<string, unknown>();
  const links = new Map<string, { source: unknown; target: unknown; value: number }>();
  for (const a of answers as SankeyAnswer[]) {
    for (const n of a?.nodes ?? []) nodes.set(String(n.id ?? n.label), nodes.get(String(n.id ?? n.label)) ?? n);
    for (const l of a?.links ?? []) {
      const k = `${String(l.source)}\u0000${String(l.target)}`;
      const e = links.get(k) ?? { ...l, source: l.source, target: l.target, value: 0 };
      e.value += Number(l.value) || 0;
      links.set(k, e);
    }
  }
  return { nodes: [...nodes.values()], links: [...links.values()] };
}

interface SeriesEntry {
  id?: string;
  data?: (number | null)[];
  statistics?: Record<string, unknown>;
}

const addPoints = (a: (number | null)[], b: (number | null)[]) => a.map((x, i) => (x === null && (b[i] ?? null) === null ? null : (x ?? 0) + (b[i] ?? 0)));

/** Two v2 timeseries answers (or arrays of them, as ts_multi gives) summed series by series, point by point. */
function sumSeriesAnswer(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return a.map((x, i) => (i < b.length ? sumSeriesAnswer(x, b[i]) : x));
  const x = a as { series?: SeriesEntry[] } | null;
  const y = b as { series?: SeriesEntry[] } | null;
  if (!x?.series || !y?.series) return a ?? b;
  const series = x.series.map((s) => {
    const o = y.series!.find((t) => t.id === s.id);
    if (!o?.data || !s.data) return s;
    const data = addPoints(s.data, o.data);
    const total = typeof s.statistics?.total === 'number' && typeof o.statistics?.total === 'number' ? s.statistics.total + o.statistics.total : undefined;
    return { ...s, data, statistics: total === undefined ? undefined : { total } };
  });
  return { ...x, series };
}

/** batch.lua on every interface: per query id, the series summed; `split: true` adds each interface's. */
function mergeBatch(answers: unknown[], ifids: number[], queries: { id?: unknown; split?: unknown }[]): unknown {
  const split = new Set(queries.filter((q) => q.split === true || q.split === 'true').map((q) => String(q.id)));
  const first = answers[0] as { meta?: unknown; results?: Record<string, unknown> };
  const results: Record<string, unknown> = {};
  for (const id of Object.keys(first?.results ?? {})) {
    const per = answers.map((a) => (a as { results?: Record<string, unknown> }).results?.[id]);
    let merged = per.reduce((a, b) => sumSeriesAnswer(a, b)) as Record<string, unknown>;
    if (split.has(id)) merged = { ...merged, split_series: per.map((r, i) => ({ ifid: ifids[i], ...(r as Record<string, unknown>) })) };
    results[id] = merged;
  }
  return { meta: first?.meta, results };
}
