// Route declarations of the stored flow alerts (issue 13, first part): the
// v2 flow alert list, per-type and per-severity counters and the hourly
// alert timeseries with status=historical-flows.
import { z } from 'zod';

import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { ALERT_FILTERS, MAX_LENGTH } from '../../services/alerts/flow-alerts.js';
import { ALL_ALERT_TAGS, FAMILY_TAGS } from '../../services/alerts/alert-store.js';
import type { AlertFamily } from '../../services/alerts/types.js';
import {
  acknowledgeFamilyAlerts,
  allAlertTop,
  familyAlertTop,
  alertTopSummary,
  flowAlertTop,
  alertData,
  alertFilterConsts,
  alertQuery,
  alertSeverityCountersAll,
  alertSeverityTs,
  alertTsAll,
  alertTypeCountersAll,
  allAlertList,
  deleteFamilyAlerts,
  familyAlertList,
  flowAlertList,
} from './alerts.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const ERRORS = [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR];

const epoch = () => int(0, 0xffffffff).optional();
const filterParams = Object.fromEntries(ALERT_FILTERS.map((t) => [t, str(4096).optional()]));
const status = z.enum(['historical', 'historical-flows', 'engaged']).optional();
const pick = (p: Record<string, unknown>) => Object.fromEntries(ALERT_FILTERS.map((t) => [t, p[t] as string | undefined]));
const FILTERS = `filters <tag>=<value>;<op> (${ALERT_FILTERS.join(', ')}; op eq, neq, lt, gt, lte, gte)`;

// ── every other family ───────────────────────────────────────────────────

const familyStatus = str(16).optional();
const tagParams = Object.fromEntries([...ALL_ALERT_TAGS, 'alert_type', 'alert_severity'].map((t) => [t, str(4096).optional()]));
/** the request's filters of one family (ntopng's alert_type / alert_severity are alert_id / severity) */
function familyFilters(f: AlertFamily | 'all', p: Record<string, unknown>): Record<string, string | undefined> {
  const tags = f === 'all' ? { alert_id: '', severity: '', score: '' } : FAMILY_TAGS[f];
  const out: Record<string, string | undefined> = {};
  for (const t of Object.keys(tags)) out[t] = p[t] as string | undefined;
  out.alert_id ??= p.alert_type as string | undefined;
  out.severity ??= p.alert_severity as string | undefined;
  return out;
}
const tagList = (f: AlertFamily) => Object.keys(FAMILY_TAGS[f]).join(', ');
const common = { epoch_begin: epoch(), epoch_end: epoch() };

/** list paths: ntopng's family folder (snmp_device's list is pro, under snmp/device) */
const LISTED: [AlertFamily, string, boolean][] = [
  ['host', 'host', false], ['interface', 'interface', false], ['network', 'network', false], ['mac', 'mac', false],
  ['system', 'system', false], ['user', 'user', false], ['am_host', 'am_host', false], ['snmp_device', 'snmp/device', true],
];
const DELETABLE: AlertFamily[] = ['host', 'interface', 'mac', 'system', 'user', 'network', 'am_host', 'snmp_device'];

function familyRoutes(): RouteDef[] {
  const out: RouteDef[] = [];
  for (const [f, dir, pro] of LISTED) {
    out.push(
      route({
        path: `get/${dir}/alert/list`, versions: ['v2'], pro, method: 'GET', perm: 'user', ifid: true,
        summary: `${f} alerts, newest first (or sort/order by a column): rsp {records}, recordsTotal, recordsFiltered; status historical (default), acknowledged, any or engaged; epoch_begin and epoch_end (both, else every stored alert), start, length (default and at most ${MAX_LENGTH}); format json|txt; filters <tag>=<value>;<op> (${tagList(f)}; op eq, neq, lt, gt, lte, gte, in, nin)`,
        params: { ...common, start: int(0).optional(), length: int(1).optional(), format: str(8).optional(), status: familyStatus, sort: str(64).optional(), order: str(8).optional(), ...tagParams },
        errors: ERRORS,
        handler: (ctx, p) => familyAlertList(ctx, f, p, familyFilters(f, p)),
      }),
      route({
        path: `get/${dir}/alert/ts`, versions: ['v2'], pro, method: 'GET', perm: 'user', ifid: true,
        summary: `${f} alerts per severity over 31 time slots of the window: rsp {series: [{name, data: [[epoch ms, count]…]}], colors}; status; filters as the list`,
        params: { ...common, status: familyStatus, ...tagParams },
        errors: ERRORS,
        handler: (ctx, p) => alertSeverityTs(ctx, f, p, familyFilters(f, p)),
      }),
    );
  }
  for (const [f, dir] of LISTED) {
    out.push(
      route({
        path: `get/${dir}/alert/top`, versions: ['v2'], pro: true, method: 'GET', perm: 'user', ifid: true,
        summary: `The most frequent stored ${f} alerts, as cards: rsp [{name, label, tooltip, value: [{key, value, label, title, count (% of the matching alerts)}]}] for alert_id${f === 'host' || f === 'snmp_device' ? ', ip' : f === 'mac' ? ', address' : f === 'network' ? ', local_network_id' : ''}; action (a card's name: that card only); window and filters as the list`,
        params: { ...common, ...tagParams, action: str(32).optional() },
        errors: ERRORS,
        handler: (ctx, p) => familyAlertTop(ctx, f, p, familyFilters(f, p)),
      }),
    );
  }
  for (const [f, dir, pro] of LISTED) {
    out.push(
      route({
        path: `acknowledge/${dir}/alerts`, versions: ['v2'], pro, method: 'GET', perm: 'user', ifid: true,
        summary: `Acknowledges the stored ${f} alerts matching the window and filters (${tagList(f)}), or the one row_id (any time unless a window is given): alert_status acknowledged, user_label = label (stamped now); administrators only`,
        params: { ...common, label: str(1024).optional(), row_id: str(128).optional(), ...tagParams },
        errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
        handler: (ctx, p) => acknowledgeFamilyAlerts(ctx, f, p, familyFilters(f, p)),
      }),
    );
  }
  for (const f of DELETABLE) {
    const [, dir, pro] = LISTED.find((l) => l[0] === f)!;
    out.push(
      route({
        path: `delete/${dir}/alerts`, versions: ['v2'], pro, method: 'GET', perm: 'user', ifid: true,
        summary: `Deletes the stored ${f} alerts matching the window and filters (${tagList(f)}); administrators only`,
        params: { ...common, status: familyStatus, ...tagParams },
        errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
        handler: (ctx, p) => deleteFamilyAlerts(ctx, f, p, familyFilters(f, p)),
      }),
    );
  }
  out.push(
    route({
      path: 'delete/all/alerts', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
      summary: "Deletes the stored alerts of every family matching the window and filters (alert_id, severity, score …); the flows' alerts stay with their flows; administrators only",
      params: { ...common, status: familyStatus, ...tagParams },
      errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
      handler: async (ctx, p) => {
        for (const f of DELETABLE) await deleteFamilyAlerts(ctx, f, p, familyFilters('all', p));
        return [];
      },
    }),
    route({
      path: 'get/all/alert/list', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
      summary: 'Alerts per entity (flow included), most first: records {entity, entity_id, count, score, count_group_<severity group>}; status; start, length; format json|txt; alert_id, severity, score filters',
      params: { ...common, start: int(0).optional(), length: int(1).optional(), format: str(8).optional(), status: familyStatus, ...tagParams },
      errors: ERRORS,
      handler: (ctx, p) => allAlertList(ctx, p, familyFilters('all', p)),
    }),
    route({
      path: 'get/all/alert/ts', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
      summary: 'Alerts of every family (flow included) per severity over 31 time slots: rsp {series, colors}',
      params: { ...common, status: familyStatus, ...tagParams },
      errors: ERRORS,
      handler: (ctx, p) => alertSeverityTs(ctx, 'all', p, familyFilters('all', p)),
    }),
    route({
      path: 'get/alert/filter/consts', versions: ['v2'], method: 'GET', perm: 'user',
      summary: 'The filters of an alert page (page: interface, flow, host, network, snmp_device, mac, user, am_host, system; default all): [{id, label, value_type, value_label, type, operators [{id, label}], options}]',
      params: { page: str(32).optional() },
      errors: [],
      handler: (_ctx, p) => alertFilterConsts(p.page),
    }),
    route({
      path: 'get/alert/data', versions: ['v0', 'v1'], method: 'GET', perm: 'user', ifid: true,
      summary: 'Alert records {entity, type, score, date, severity, count, entity_val, msg} (v0: {entity, entity_val, date, severity, type, key, msg}); status historical (every family but flow), historical-flows or engaged; alert_type, alert_severity',
      params: { ...common, status: str(32).optional(), alert_type: int(0).optional(), alert_severity: int(0).optional() },
      errors: ERRORS,
      handler: (ctx, p) => alertData(ctx, p, ctx.version === 'v0' ? 'v0' : 'v1'),
    }),
    route({
      path: 'get/alert/list/alerts', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
      summary: 'Clauses on one alert family\'s table: alert_family (active_monitoring, flow, host, interface, mac, network, snmp, system, user), select_clause, where_clause, maxhits_clause (default 10), order_by, group_by; records whose values are strings',
      params: { ...common, alert_family: str(32), select_clause: str(16384).optional(), where_clause: str(16384).optional(), maxhits_clause: int(1).optional(), order_by: str(16384).optional(), group_by: str(16384).optional() },
      errors: [RC.NOT_FOUND, ...ERRORS],
      handler: (ctx, p) => alertQuery(ctx, p),
    }),
  );
  return out;
}

export const alertRoutes: RouteDef[] = [
  route({
    path: 'get/flow/alert/top', versions: ['v2'], pro: true, method: 'GET', perm: 'user', ifid: true,
    summary: `The most frequent stored flow alerts, as cards: rsp [{name, label, tooltip, value: [{key, value, label, title, count (% of the matching alerts)}]}] for alert_id, cli_ip, srv_ip, ip, l7_proto, vlan; action (a card's name: that card only); ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), format: str(8).optional(), action: str(32).optional(), ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => flowAlertTop(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/top', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary:
      "Every stored alert of the interface (no window or filter is read, as ntopng's): rsp [{name: 'top_alerts_by_count', label, tooltip, value: [{key, value, label, title, count (%)}]}, {name: 'top_alerts_by_severity', …, value: [{key, value, label, title, severity, severity_label}]}]",
    params: {},
    errors: ERRORS,
    handler: (ctx) => alertTopSummary(ctx),
  }),
  route({
    path: 'get/flow/alert/ts', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Stored flow alerts per severity over 31 time slots of the window: rsp {series: [{name, data: [[epoch ms, count]…]}], colors}; ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status: str(32).optional(), ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertSeverityTs(ctx, 'flow', p, pick(p)),
  }),
  route({
    path: 'get/all/alert/top', versions: ['v2'], pro: true, method: 'GET', perm: 'user', ifid: true,
    summary: 'The most frequent stored alert types of every family (flow included), as one card: rsp [{name: alert_id, label, tooltip, value: [{key, value, label, title, count (%), entity}]}]',
    params: { epoch_begin: epoch(), epoch_end: epoch(), action: str(32).optional() },
    errors: ERRORS,
    handler: (ctx, p) => allAlertTop(ctx, p),
  }),
  route({
    path: 'get/flow/alert/list', versions: ['v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Stored flow alerts (flows with a non-zero predominant alert), newest first: rsp {records}, recordsTotal, recordsFiltered; epoch_begin and epoch_end (both, else every stored alert), start, length (default and at most ${MAX_LENGTH}); ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), start: int(0).optional(), length: int(1).optional(), format: str(8).optional(), ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => flowAlertList(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/type/counters', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alert counts per type, largest first: rsp {'historical-flows': [{count, type, alert_id}] (flow alerts), historical: [{count, type, alert_id}] (every other family; status=engaged: the engaged ones)}; ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertTypeCountersAll(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/severity/counters', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alert counts per severity, largest first: rsp {'historical-flows': [{count, severity, severity_id}], historical: [{count, severity, severity_id}] (status=engaged: the engaged ones)}; ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => alertSeverityCountersAll(ctx, p, pick(p)),
  }),
  route({
    path: 'get/alert/ts', versions: ['v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary: `Alerts per hour: rsp {<UTC day start>: [24 counts]}; status=historical-flows (default: flow alerts), historical or engaged (every other family); ${FILTERS}`,
    params: { epoch_begin: epoch(), epoch_end: epoch(), status, alert_type: str(64).optional(), alert_severity: str(64).optional(), ...filterParams },
    errors: ERRORS,
    handler: (ctx, p) => {
      const f = pick(p);
      return alertTsAll(ctx, p, { ...f, alert_id: f.alert_id ?? p.alert_type, severity: f.severity ?? p.alert_severity });
    },
  }),
  ...familyRoutes(),
];
