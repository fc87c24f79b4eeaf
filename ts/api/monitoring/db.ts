// Flows-database endpoints (ntopng's /lua/pro/rest/…/get/db/*): permission,
// time window and scope from the request, then the flows-query service.
// Errors: clauses the query language refuses → -5 with its message; no
// historical permission → -3; store missing or failing → -6.
import type { Backend } from '../../services/store/backend.js';
import { StoreError } from '../../services/store/backend.js';
import { FLOW_COLUMNS, FLOWS_TABLE } from '../../services/store/flow-columns.js';
import { FlowsQuery, processedRecords, QueryError, type Window } from '../../services/store/flows-query.js';
import { envelope, ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';

const services = new WeakMap<Backend, FlowsQuery>();

/** The service over the store, for a user allowed to read historical flows. */
function service(ctx: ApiCtx): FlowsQuery {
  // ntopng's capability "historical flows": administrators have every capability
  if (ctx.user.role !== 'administrator' && !ctx.user.allow_historical_flows) {
    throw new ApiError(RC.NOT_GRANTED, `user ${ctx.user.username} may not read historical flows (allow_historical_flows)`);
  }
  const be = ctx.deps.history;
  if (!be) throw new ApiError(RC.INTERNAL_ERROR, 'the historical flows store is not available');
  let s = services.get(be);
  if (!s) services.set(be, (s = new FlowsQuery(be, { name: FLOWS_TABLE.name, columns: FLOW_COLUMNS })));
  return s;
}

/** Query-language and store errors as the API's return codes. */
async function answer<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof QueryError) throw new ApiError(RC.INVALID_ARGUMENTS, e.message);
    if (e instanceof StoreError) {
      throw new ApiError(RC.INTERNAL_ERROR, e.kind === 'unavailable' ? `historical flows store unavailable: ${e.message}` : `historical flows query failed: ${e.message}`);
    }
    throw e;
  }
}

export interface TimeParams {
  begin_time_clause?: number;
  end_time_clause?: number;
  /** what ntopng's python client (historical.py get_flows) sends instead */
  epoch_begin?: number;
  epoch_end?: number;
}

/** The window (ntopng: FIRST_SEEN >= begin AND LAST_SEEN <= end), the interface, the user's networks. */
function window(ctx: ApiCtx, p: TimeParams): Window {
  const begin = p.begin_time_clause ?? p.epoch_begin;
  const end = p.end_time_clause ?? p.epoch_end;
  if (begin === undefined || end === undefined) {
    throw new ApiError(RC.INVALID_ARGUMENTS, 'begin_time_clause and end_time_clause (or epoch_begin and epoch_end) are required, in epoch seconds');
  }
  if (end < begin) throw new ApiError(RC.INVALID_ARGUMENTS, 'the end time is before the begin time');
  return { begin, end, ifid: ctx.iface.ifid, networks: ctx.allowed };
}

export interface FlowsParams extends TimeParams {
  select_clause?: string;
  where_clause?: string;
  maxhits_clause?: number;
  order_by_clause?: string;
  group_by_clause?: string;
}

export function dbFlows(ctx: ApiCtx, p: FlowsParams) {
  const s = service(ctx);
  const w = window(ctx, p);
  return answer(() =>
    s.flows({ select: p.select_clause, where: p.where_clause, maxhits: p.maxhits_clause, orderBy: p.order_by_clause, groupBy: p.group_by_clause }, w),
  );
}

export interface TopkParams extends TimeParams {
  select_keys_clause?: string;
  select_values_clause?: string;
  where_clause?: string;
  topk_clause?: string;
  approx_search?: boolean;
  maxhits_clause?: number;
}

export function dbTopk(ctx: ApiCtx, p: TopkParams) {
  const s = service(ctx);
  const w = window(ctx, p);
  // approx_search only allows ntopng to approximate: the answer is always exact
  return answer(() => s.topk({ keys: p.select_keys_clause, values: p.select_values_clause, fn: p.topk_clause, where: p.where_clause, maxhits: p.maxhits_clause }, w));
}

export function dbColumns(ctx: ApiCtx) {
  return service(ctx).columns();
}

export interface SearchParams {
  epoch_begin?: number;
  epoch_end?: number;
  query_preset?: string;
  start?: number;
  length?: number;
  sort?: string;
  order?: 'asc' | 'desc';
  [filter: string]: unknown;
}

export const SEARCH_PRESETS = ['top_conversations'] as const;

/**
 * historical_db_search.lua: rsp {records, stats} with recordsTotal and
 * recordsFiltered beside rsp, as ntopng's tables read them.
 */
export async function dbSearch(ctx: ApiCtx, p: SearchParams, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const w = window(ctx, p);
  const preset = p.query_preset ?? '';
  if (!(SEARCH_PRESETS as readonly string[]).includes(preset)) {
    throw new ApiError(RC.INVALID_ARGUMENTS, `query_preset '${preset}' is not served (one of ${SEARCH_PRESETS.join(', ')})`);
  }
  const r = await answer(() => s.topConversations({ start: p.start, length: p.length, sort: p.sort, order: p.order }, filters, w));
  const rsp = {
    records: r.records,
    stats: { query_duration_msec: Math.round(r.ms), num_records_processed: processedRecords(r.rowsRead, r.ms), query: r.sql },
  };
  return ctx.c.json({ ...envelope(RC.OK, rsp), recordsTotal: r.total, recordsFiltered: r.total });
}
