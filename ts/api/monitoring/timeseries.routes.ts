// Route declarations of the timeseries family (handlers in timeseries.ts).
import { z } from 'zod';

import { int, oneOf, parseJsonData, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import * as lightview from './lightview.js';
import * as ts from './timeseries.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const ERRORS = [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR];

const Epoch = int(0, 2 ** 32 - 1);
/** ntopng reads `extended` as a flag: any of 1/true/yes is set */
const flag = () => z.preprocess((v) => (typeof v === 'string' ? ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()) : typeof v === 'number' ? v !== 0 : v), z.boolean());
/** a JSON value that may also arrive as text (form bodies, query strings) */
const json = <T extends z.ZodTypeAny>(t: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return parseJsonData(v);
    } catch {
      return v;
    }
  }, t);

const tsParams = {
  ts_schema: str(128),
  ts_query: str(1024),
  epoch_begin: Epoch.optional(),
  epoch_end: Epoch.optional(),
  limit: int(1, 100000).optional(),
  extended: flag().optional(),
  ts_compare: str(8).optional(),
  tskey: str(128).optional(),
  initial_point: str(8).optional(),
  no_fill: str(8).optional(),
  ts_aggregation: str(16).optional(),
};

const TsRequest = z.object({ ts_query: z.string().max(1024), ts_schema: z.string().max(128), tskey: z.union([z.string(), z.number()]).optional() }).passthrough();
const BatchQuery = z
  .object({
    id: z.union([z.string().max(128), z.number()]).optional(),
    ts_schema: z.string().max(128).optional(),
    ts_query: z.string().max(1024).optional(),
    tskey: z.union([z.string(), z.number()]).optional(),
    limit: z.union([z.number(), z.string()]).optional(),
    compare: z.string().max(8).optional(),
  })
  .passthrough();

const topStatsParams = {
  ts_query: str(1024),
  epoch_begin: Epoch.optional(),
  epoch_end: Epoch.optional(),
  detail_view: str(32).optional(),
  zoom: str(8).optional(),
  new_charts: str(8).optional(),
};

export const timeseriesRoutes: RouteDef[] = [
  route({
    path: 'get/timeseries/ts', versions: ['v0', 'v1', 'v2'], method: 'GET', perm: 'user',
    summary: 'One timeseries (ts_schema, ts_query) over epoch_begin..epoch_end: rates per second for counters, with statistics',
    params: tsParams, errors: ERRORS,
    handler: async (ctx, p) => {
      const q = ts.resolveQuery(ctx, p.ts_schema, p.ts_query);
      const r = await ts.runQuery(ctx, q, ts.epochs(ctx, p.epoch_begin, p.epoch_end), p.limit ?? 60, p.ts_compare || null);
      return ctx.version === 'v2' ? ts.shapeV2(r) : ts.shapeV01(r, ctx.version, p.extended ?? false);
    },
  }),
  route({
    path: 'get/timeseries/type/consts', versions: ['v1', 'v2'], method: 'GET', perm: 'user',
    summary: 'The timeseries of a family (query = iface, host, subnet, vlan, asn, country), with the series stored for its protocols, categories …',
    params: {
      query: str(32),
      ifid: int(0, 65535).optional(),
      host: str(64).optional(),
      subnet: str(64).optional(),
      vlan: str(8).optional(),
      asn: str(16).optional(),
      epoch_begin: Epoch.optional(),
      epoch_end: Epoch.optional(),
    },
    errors: ERRORS,
    handler: (ctx, p) => ts.consts(ctx, p),
  }),
  route({
    path: 'get/timeseries/ts_multi', versions: ['v2'], pro: true, method: 'POST', perm: 'user',
    summary: 'Several timeseries at once (ts_requests), each as get/timeseries/ts.lua v2 answers, optionally compared with a period before (ts_compare)',
    params: {
      ifid: int(0, 65535).optional(),
      epoch_begin: Epoch.optional(),
      epoch_end: Epoch.optional(),
      limit: int(1, 100000).optional(),
      ts_compare: str(8).optional(),
      ts_requests: json(z.union([z.array(TsRequest).max(ts.MAX_QUERIES), z.record(z.string(), TsRequest)])),
      version: str(8).optional(),
      zoom: str(8).optional(),
    },
    errors: [INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => ts.tsMulti(ctx, p),
  }),
  route({
    path: 'get/timeseries/batch', versions: ['v2'], method: 'POST', perm: 'user',
    summary: 'Queries {id, ts_schema, ts_query} answered together: {meta, results: {id: result}}',
    params: {
      ifid: int(0, 65535).optional(),
      epoch_begin: Epoch.optional(),
      epoch_end: Epoch.optional(),
      limit: int(1, 100000).optional(),
      ts_compare: str(8).optional(),
      queries: json(z.array(BatchQuery).max(ts.MAX_QUERIES)),
      version: str(8).optional(),
      zoom: str(8).optional(),
    },
    errors: [INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => ts.batch(ctx, p),
  }),
  route({
    path: 'get/interface/top/ts_stats', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: 'Top applications, categories, senders or receivers (detail_view) of an interface over epoch_begin..epoch_end, from the stored series',
    params: topStatsParams, errors: ERRORS,
    handler: (ctx, p) => ts.topStats(ctx, 'interface', p),
  }),
  route({
    path: 'get/host/top/ts_stats', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: "Top applications or categories (detail_view) of a local host over epoch_begin..epoch_end, from the stored series",
    params: topStatsParams, errors: ERRORS,
    handler: (ctx, p) => ts.topStats(ctx, 'host', p),
  }),
];

export const lightviewRoutes: RouteDef[] = [
  route({
    path: 'get/lightview/aggregate', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: 'Runs `endpoint` once per local interface and merges the answers for a dashboard component (pie, badge, table, sankey, timeseries); POST forwards its JSON body (batch.lua: series summed per query, split_series with split: true)',
    params: {
      endpoint: str(512).optional(),
      component: oneOf(lightview.COMPONENTS).optional(),
      max_values: int(1, 1000).optional(),
    },
    errors: ERRORS,
    handler: (ctx, p) => lightview.aggregate(ctx, p),
  }),
];
