// Route declarations of the stored flow alerts (issue 13, first part): the
// v2 flow alert list, per-type and per-severity counters and the hourly
// alert timeseries with status=historical-flows.
import { z } from 'zod';

import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { ALERT_FILTERS, MAX_LENGTH } from '../../services/alerts/flow-alerts.js';
import { alertSeverityCounters, alertTs, alertTypeCounters, flowAlertList } from './alerts.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const ERRORS = [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR];

const epoch = () => int(0, 0xffffffff).optional();
const filterParams = Object.fromEntries(ALERT_FILTERS.map((t) => [t, str(4096).optional()]));
const status = z.enum(['historical', 'historical-flows', 'engaged']).optional();
const pick = (p: Record<string, unknown>) => Object.fromEntries(ALERT_FILTERS.map((t) => [t, p[t] as string | undefined]));
const FILTERS = `filters <tag>=<value>;<op> (${ALERT_FILTERS.join(', ')}; op eq, neq, lt, gt, lte, gte)`;

export const alertRoutes: RouteDef[] = [
  route({
    path: 'get/flow/alert/list', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Stored flow alerts (flows with a non-zero predominant alert), newest first: rsp {records}, recordsTotal, recordsFiltered; epoch_begin/epoch_end (default the last hour), start, length (≤ ${MAX_LENGTH}); ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), start: int(0).optional(), length: int(1).optional(), format: str(8).optional(), ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => flowAlertList(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/type/counters', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alert counts per type: rsp {'historical-flows': [{count, type, alert_id}], historical: []}; ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertTypeCounters(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/severity/counters', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alert counts per severity: rsp {'historical-flows': [{count, severity, severity_id}], historical: []}; ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertSeverityCounters(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/ts', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alerts per hour: rsp {<UTC day start>: [24 counts]} (status=historical-flows; historical answers {} until other alert families exist); ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertTs(ctx, p, pick(p)),
  }),
];
