// Route declarations of the checks configuration: ntopng's REST scripts
// (get/set of the configset, enable/disable of one check; its export /
// import / reset are in config-io.routes.ts) and the page scripts
// toggle_all_checks.lua and edit_check_config.lua, and the device protocol
// policies' pages (edit / get_device_protocols.lua). Administrators only.
import { z } from 'zod';

import { given, int, oneOf, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { deleteNewDevices, editCheckConfig, editDeviceProtocols, getConfig, getDeviceProtocols, setConfig, toggleAllChecks, toggleCheck } from './checks.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_CONTENT } = RC;
const V12 = ['v1', 'v2'] as const;

/** a JSON document given as text (ntopng's `JSON` form field) or, in a JSON body, as the value itself */
const jsonParam = () => z.preprocess((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v), z.string().max(1 << 20));
const checkParams = { check_subdir: str(64), script_key: str(64) };

export const checksRoutes: RouteDef[] = [
  route({
    path: 'get/checks/config', versions: [...V12], method: 'GET', perm: 'admin',
    summary: 'The checks configuration: rsp {"0": {config: {<subdir>: {<script_key>: {<hook>: {enabled, script_conf}}}}, filters}, alert_exclusions}; download (any value): the file alone',
    params: { download: given().optional() }, errors: [NOT_GRANTED],
    handler: (ctx, p) => getConfig(ctx, p),
  }),
  route({
    path: 'set/checks/config', versions: [...V12], method: 'POST', perm: 'admin',
    summary: 'Replace the checks configuration (JSON: what get/checks/config returns)',
    params: { JSON: jsonParam() }, errors: [NOT_GRANTED, INVALID_ARGUMENTS, BAD_CONTENT],
    handler: (ctx, p) => setConfig(ctx, p),
  }),
  ...(['enable', 'disable'] as const).map((action) =>
    route({
      path: `${action}/check`, versions: [...V12], method: 'POST', perm: 'admin',
      summary: `${action === 'enable' ? 'Enable' : 'Disable'} a check: check_subdir (flow, host, interface, network, system …), script_key; rsp {success}`,
      params: checkParams, errors: [NOT_GRANTED, INVALID_ARGUMENTS],
      handler: (ctx, p) => toggleCheck(ctx, p, action === 'enable'),
    }),
  ),
  route({
    path: 'delete/host/new_devices', versions: [...V12], method: 'GET', perm: 'admin',
    summary: 'Forget every device (MAC) learned: each is reported as a new device (alert_device_connection_disconnection) when next seen',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => deleteNewDevices(ctx),
  }),
  route({
    path: 'toggle_all_checks', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary: 'Enable or disable every check of a subdir (check_subdir absent or all: every subdir); answers {success: true}',
    params: { action: oneOf(['enable', 'disable']), check_subdir: str(64).optional() }, errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => toggleAllChecks(ctx, p),
  }),
  route({
    path: 'edit_check_config', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary: "Set a check's configuration: JSON = {<hook>: {enabled, script_conf: {threshold, operator, …}}} ('all' for flow checks, 'min' otherwise); answers {success: true}",
    params: { ...checkParams, JSON: jsonParam() }, errors: [NOT_GRANTED, INVALID_ARGUMENTS],
    handler: (ctx, p) => editCheckConfig(ctx, p),
  }),
  route({
    path: 'admin/edit_device_protocols', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary:
      "The device protocol policies (device_protocol_not_allowed): device_type (0-12) with edit_device_policy and client_policy_<protocol id> / server_policy_<protocol id> = 0 (alert) | 1 (allow), or action=reset (back to ntopng's preset); answers {success, device_type, changed}",
    params: { device_type: str(4).optional(), action: str(16).optional(), edit_device_policy: str(16).optional() }, errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => editDeviceProtocols(ctx, p),
  }),
  route({
    path: 'admin/get_device_protocols', page: true, versions: ['v0'], method: 'GET', perm: 'admin',
    summary:
      'The protocols with the actions of device_type as client and server (column_client_policy / column_server_policy: 0 alert, 1 allow), paged (currentPage, perPage) and sorted (column_ndpi_application, column_ndpi_category); filters policy_filter (0 | 1), l7proto (an id), category (a name)',
    params: {
      device_type: str(4).optional(), currentPage: int(1).optional(), perPage: int(1, 10000).optional(), sortColumn: str(32).optional(), sortOrder: oneOf(['asc', 'desc']).optional(),
      policy_filter: str(4).optional(), l7proto: str(8).optional(), category: str(64).optional(),
    },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => getDeviceProtocols(ctx, p),
  }),
];
