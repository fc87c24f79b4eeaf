// Route declarations of the flows database (ntopng's licensed /lua/pro/
// set): historical flows with ntopng's SQL-like clauses, their top-k, the
// column list and the historical explorer's top_conversations preset.
import { z } from 'zod';

import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { FILTER_TAGS } from '../../services/store/query/build.js';
import { MAX_HITS } from '../../services/store/query/parse.js';
import { dbColumns, dbFlows, dbSearch, dbTopk } from './db.js';

const { NOT_FOUND, INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const ERRORS = [NOT_FOUND, INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR];

const epoch = () => int(0, 0xffffffff).optional();
// Clauses are bounded and checked by the query language itself (its messages
// name the limit); this only keeps bodies sane.
const clause = () => str(1 << 20).optional();

const time = {
  begin_time_clause: epoch(),
  end_time_clause: epoch(),
  epoch_begin: epoch(),
  epoch_end: epoch(),
};

const flowsV01 = { ...time, select_clause: clause(), where_clause: clause(), maxhits_clause: int().optional() };
const flowsV2 = { ...flowsV01, order_by_clause: clause(), group_by_clause: clause() };

const approx = z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1'));
const order = z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['asc', 'desc'])).optional();

const SUMMARY_FLOWS = `Historical flows: select_clause (default *), where_clause, maxhits_clause (default 10, at most ${MAX_HITS}); values are strings`;

export const dbRoutes: RouteDef[] = [
  route({
    path: 'get/db/flows', pro: true, versions: ['v0', 'v1'], method: 'GET', perm: 'user', ifid: true,
    summary: SUMMARY_FLOWS, params: flowsV01, errors: ERRORS,
    handler: (ctx, p) => dbFlows(ctx, p),
  }),
  route({
    path: 'get/db/flows', pro: true, versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `${SUMMARY_FLOWS}; order_by_clause, group_by_clause`, params: flowsV2, errors: ERRORS,
    handler: (ctx, p) => dbFlows(ctx, p),
  }),
  route({
    path: 'get/db/topk_flows', pro: true, versions: ['v0', 'v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Top-k of historical flows: select_keys_clause (default IPV4_SRC_ADDR,IPV4_DST_ADDR,L7_PROTO), select_values_clause (default BYTES = TOTAL_BYTES), topk_clause (SUM, AVG, MAX, MIN, COUNT; default SUM), maxhits_clause (default 10, at most ${MAX_HITS}); always exact (approx_search accepted)`,
    params: {
      ...time,
      select_keys_clause: clause(),
      select_values_clause: clause(),
      where_clause: clause(),
      topk_clause: str(16).optional(),
      approx_search: approx.optional(),
      maxhits_clause: int().optional(),
    },
    errors: ERRORS,
    handler: (ctx, p) => dbTopk(ctx, p),
  }),
  route({
    path: 'get/db/columns_info', pro: true, versions: ['v2'], method: 'GET', perm: 'user',
    summary: 'Columns of the flows database: column_name, tag (ntopng filter/record name), label, db_type, db_raw_type',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => dbColumns(ctx),
  }),
  route({
    path: 'get/db/historical_db_search', pro: true, versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Historical explorer query (query_preset=top_conversations): rsp {records, stats}, recordsTotal/recordsFiltered; filters <tag>=<value>;<op> (${FILTER_TAGS.join(', ')})`,
    params: {
      epoch_begin: epoch(),
      epoch_end: epoch(),
      query_preset: str(64).optional(),
      start: int(0).optional(),
      length: int(1).optional(),
      sort: str(64).optional(),
      order,
      visible_columns: str(4096).optional(),
      ...Object.fromEntries(FILTER_TAGS.map((t) => [t, str(4096).optional()])),
    },
    errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => {
      const filters: Record<string, string | undefined> = {};
      for (const t of FILTER_TAGS) filters[t] = (p as Record<string, unknown>)[t] as string | undefined;
      return dbSearch(ctx, p, filters);
    },
  }),
];
