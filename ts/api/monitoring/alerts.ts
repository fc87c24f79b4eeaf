// Alert endpoints over the stored flow alerts (services/alerts): permission
// (ntopng's "alerts" capability), window, interface and user scope from the
// request. Errors: hostile filters → -5; no allow_alerts → -3; store missing
// or failing → -6.
import { flowAlerts, formatAlertRecord, QueryError, type FlowAlerts, type Window } from '../../services/alerts/flow-alerts.js';
import { alertName } from '../../services/alerts/flow-alerts.js';
import { SEVERITIES } from '../../services/alerts/catalogue.js';
import { StoreError } from '../../services/store/backend.js';
import { envelope, ApiError, RC } from '../rc.js';
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
export async function flowAlertList(ctx: ApiCtx, p: ListParams, filters: Record<string, string | undefined>) {
  const s = service(ctx);
  const w = window(ctx, p);
  const r = await answer(() => s.list(w, filters, { start: p.start, length: p.length }));
  return ctx.c.json({ ...envelope(RC.OK, { records: r.rows.map(formatAlertRecord) }), recordsTotal: r.total, recordsFiltered: r.total });
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
