// Route declarations of active monitoring: ntopng's page scripts
// edit_active_monitoring_host.lua (administrators) and
// get_active_monitoring_hosts.lua; the export / import / reset of its
// configuration are in config-io.routes.ts.
import { str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import * as am from './active-monitoring.js';

const { NOT_GRANTED, INTERNAL_ERROR } = RC;
const opt = (max = 1024) => str(max).optional();

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
];
