// Route declarations of notification endpoints and recipients: ntopng's
// page scripts edit_endpoint.lua, edit_notification_recipient.lua,
// get_endpoint_configs.lua, get_recipients_endpoint.lua (bare JSON) and the
// v1/v2 delete/endpoints.lua, delete/recipients.lua (factory resets).
// Administrators only: endpoint configurations hold credentials.
import { RC } from '../rc.js';
import { str } from '../params.js';
import { route, type RouteDef } from '../route.js';
import * as n from './notifications.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const opt = (max = 1024) => str(max).optional();

export const notificationRoutes: RouteDef[] = [
  route({
    path: 'edit_endpoint', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary: 'Add, edit or remove a notification endpoint: action add (endpoint_conf_type: webhook | syslog | email | slack | telegram | discord), edit or remove; endpoint_conf_name, endpoint_id and the type\'s params (webhook_url …); answers {result: {status: "OK" | "failed", endpoint_id?, error?: {type, …}}}',
    params: { action: opt(32), endpoint_id: opt(32), endpoint_conf_name: opt(), endpoint_conf_type: opt(64) },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => n.editEndpoint(ctx, p),
  }),
  route({
    path: 'edit_notification_recipient', page: true, versions: ['v0'], method: 'POST', perm: 'admin',
    summary: 'Add, edit, remove or test a recipient: action add | edit | remove | test; recipient_name, endpoint_id, recipient_id, recipient_check_categories (comma-separated category ids; none: all), recipient_minimum_severity (severity id; none: notice = 3), bind_to_all_pools ("true"), and the endpoint type\'s recipient params (email_recipient …); answers {result: …} (remove: true | false)',
    params: {
      action: opt(32),
      recipient_id: opt(32),
      recipient_name: opt(),
      endpoint_id: opt(32),
      recipient_check_categories: opt(),
      recipient_minimum_severity: opt(32),
      bind_to_all_pools: opt(16),
    },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR],
    handler: (ctx, p) => n.editRecipient(ctx, p),
  }),
  route({
    path: 'get_endpoint_configs', page: true, versions: ['v0'], method: 'GET', perm: 'admin',
    summary: 'Every notification endpoint with its params and its recipients (with their delivery stats)',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => n.endpointConfigs(ctx),
  }),
  route({
    path: 'get_recipients_endpoint', page: true, versions: ['v0'], method: 'GET', perm: 'admin',
    summary: 'Every recipient with its endpoint, filters, delivery stats and the number of pools bound to it (bind_to_pools)',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => n.recipientList(ctx),
  }),
  route({
    path: 'delete/endpoints', versions: ['v1', 'v2'], method: 'POST', perm: 'admin',
    summary: 'Delete every notification endpoint and recipient, then create the builtin ones again (factory reset)',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => n.resetEndpoints(ctx),
  }),
  route({
    path: 'delete/recipients', versions: ['v1', 'v2'], method: 'POST', perm: 'admin',
    summary: 'Delete every recipient, then create the builtin one again (factory reset of recipients)',
    params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
    handler: (ctx) => n.resetRecipients(ctx),
  }),
];
