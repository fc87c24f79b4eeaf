// Route declarations of active monitoring: ntopng's page scripts
// edit_active_monitoring_host.lua (administrators) and
// get_active_monitoring_hosts.lua, and the v1/v2 export / import / reset of
// its configuration (administrators).
import { z } from 'zod';

import { str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import * as am from './active-monitoring.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_CONTENT, CONFIGURATION_FILE_MISMATCH, PARTIAL_IMPORT } = RC;
const V12 = ['v1', 'v2'] as const;
const opt = (max = 1024) => str(max).optional();

/** a JSON document given as text (ntopng's `JSON` form field) or, in a JSON body, as the value itself */
const jsonParam = () => z.preprocess((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v), z.string().max(1 << 20));

const exportRoute = (versions: ('v1' | 'v2')[], method: 'GET' | 'POST') =>
  route({
    path: 'export/active_monitoring/config', versions, method, perm: 'admin',
    summary: 'Export of the active monitoring hosts: rsp {version: "1.0", modules: {active_monitoring: {<measurement>@<host>: {show_iface, ifname, threshold, granularity, save_result, readonly}}}}; download (any value): the file alone',
    params: { download: opt(16) }, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx, p) => am.exportConfig(ctx, p),
  });

export const activeMonitoringRoutes: RouteDef[] = [
  route({
    path: 'edit_active_monitoring_host', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary: 'Add, edit or delete an active monitoring host: action add | edit | delete, am_host (icmp: name or address; http: URL; tcp: host:port), measurement (icmp, http, tcp; older icmp6, https), threshold (ms, default 500), granularity (min | 5mins | hour, default min), pool (active_monitoring pool id), ifname (icmp: the interface to ping from); edit: old_am_host, old_measurement, old_granularity; answers {success: true, message} or {error, success: false}',
    params: {
      action: opt(32),
      am_host: opt(),
      measurement: opt(32),
      threshold: opt(32),
      granularity: opt(16),
      pool: opt(16),
      ifname: opt(64),
      old_am_host: opt(),
      old_measurement: opt(32),
      old_granularity: opt(16),
    },
    errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx, p) => am.editHost(ctx, p),
  }),
  route({
    path: 'get_active_monitoring_hosts', page: true, versions: ['v0'], method: 'GET', perm: 'user',
    summary: 'The active monitoring hosts: [{key, label, html_label, host, alerted, measurement, measurement_key, chart, threshold, last_measure, value_js_formatter, last_mesurement_time, last_ip, ifname, granularity, availability, hours, unit, jitter, pool, readonly}]',
    params: {}, errors: [INTERNAL_ERROR],
    handler: (ctx) => am.listHosts(ctx),
  }),
  exportRoute(['v2'], 'GET'),
  exportRoute(['v1'], 'POST'),
  route({
    path: 'import/active_monitoring/config', versions: [...V12], method: 'POST', perm: 'admin',
    summary: 'Import of an export (JSON: the file, or the file as the JSON body): each host added, or edited when it exists, in the default pool; -27: no active_monitoring in the file; -28: some hosts not valid (the others imported)',
    params: { JSON: jsonParam().optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, BAD_CONTENT, CONFIGURATION_FILE_MISMATCH, PARTIAL_IMPORT, INTERNAL_ERROR],
    handler: (ctx, p) => am.importConfig(ctx, p),
  }),
  route({
    path: 'reset/active_monitoring/config', versions: [...V12], method: 'POST', perm: 'admin',
    summary: 'Delete every active monitoring host (their alerts released, their pool bindings removed)',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => am.resetConfig(ctx),
  }),
];
