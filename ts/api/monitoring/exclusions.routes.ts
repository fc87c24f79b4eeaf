// Route declarations of the alert exclusions (ntopng's pro REST scripts,
// spec "Alert exclusions"): add, delete one, delete all, and the lists per
// type and per host. Administrators only (-3 otherwise); bad addresses,
// alert keys or types → -5, nothing changed.
import { bool, int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { addExclusion, deleteAllExclusions, deleteExclusion, deleteHostExclusion, getDomainExclusions, getExclusions, getHostExclusions } from './exclusions.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const one = {
  type: str(32).optional(),
  alert_addr: str(128).optional(),
  alert_domain: str(512).optional(),
  alert_certificate: str(2048).optional(),
  subdir: str(16).optional(),
  flow_alert_key: str(16).optional(),
  host_alert_key: str(16).optional(),
};
const WHAT = "type host (alert_addr: IP or CIDR, optionally @vlan; subdir flow or host; flow_alert_key / host_alert_key, 0 = every alert), domain (alert_domain, flow_alert_key) or certificate (alert_certificate, flow_alert_key)";

export const exclusionRoutes: RouteDef[] = [
  route({
    path: 'add/alert/exclusion', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: `Exclude an alert: ${WHAT}; delete_alerts=true also deletes the subject's stored and engaged host alerts of that key`,
    params: { ...one, delete_alerts: bool().optional() },
    errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => addExclusion(ctx, p),
  }),
  route({
    path: 'delete/alert/exclusion', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: `Remove an alert exclusion: ${WHAT}; -5 when there is no such exclusion`,
    params: one,
    errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => deleteExclusion(ctx, p),
  }),
  route({
    path: 'get/alert/exclusion', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'The exclusions of a type (host, domain, certificate): [{type, alert_addr | alert_domain | alert_certificate, subdir, alert_key, alert_name}]',
    params: { type: str(32).optional() },
    errors: [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => getExclusions(ctx, p),
  }),
  route({
    path: 'delete/all/alert/exclusions', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'Remove every exclusion of a type: flow or host (the host subjects\' flow or host alert exclusions; host: only that host), domain, certificate; rsp {deleted}',
    params: { type: str(32), host: str(128).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => deleteAllExclusions(ctx, p),
  }),
  ...(['flow', 'host'] as const).flatMap((subdir) => [
    route({
      path: `delete/${subdir}/alert/exclusions`, versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
      summary: `Remove one ${subdir} alert exclusion of a host: alert_addr (IP or CIDR, optionally @vlan), alert_key`,
      params: { alert_addr: str(128), alert_key: int(0, 65535) },
      errors: [NOT_GRANTED, INVALID_ARGUMENTS],
      handler: (ctx, p) => deleteHostExclusion(ctx, subdir, p),
    }),
    route({
      path: `get/${subdir}/alert/exclusions`, versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
      summary: `The ${subdir} alerts excluded for a host (IP or CIDR, optionally @vlan): [{alert_key, alert_name}]`,
      params: { host: str(128) },
      errors: [NOT_GRANTED, INVALID_ARGUMENTS],
      handler: (ctx, p) => getHostExclusions(ctx, subdir, p),
    }),
  ]),
  route({
    path: 'get/domain/alert/exclusions', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'Every excluded domain: [{alert_domain, flow_alerts: [{alert_key, alert_name}]}]',
    params: {},
    errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx) => getDomainExclusions(ctx),
  }),
];
