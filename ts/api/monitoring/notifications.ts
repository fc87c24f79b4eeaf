// Notification endpoints and recipients (ntopng 5.x edit_endpoint.lua,
// edit_notification_recipient.lua, get_endpoint_configs.lua,
// get_recipients_endpoint.lua, rest/v2/delete/endpoints|recipients.lua):
// the answers are ntopng's; the work is the Notifications service's. A
// type's params are read from every parameter of the request, as ntopng
// passes _POST whole.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import type { Notifications } from '../../services/notifications/index.js';

function serviceOf(ctx: ApiCtx): Notifications {
  const s = ctx.deps.notifications;
  if (!s) throw new ApiError(RC.INTERNAL_ERROR, 'notifications are not running');
  return s;
}

/** every request parameter (a prototype-less object) */
const given = (ctx: ApiCtx): Readonly<Record<string, unknown>> => ctx.raw ?? Object.create(null);

const INVALID_ACTION = { success: false, message: "Invalid 'action' parameter." };

export async function editEndpoint(ctx: ApiCtx, p: { action?: string; endpoint_id?: string; endpoint_conf_name?: string; endpoint_conf_type?: string }) {
  const s = serviceOf(ctx);
  let result;
  if (p.action === 'add') result = await s.addEndpoint(p.endpoint_conf_type, p.endpoint_conf_name, given(ctx));
  else if (p.action === 'edit') result = await s.editEndpoint(p.endpoint_id, p.endpoint_conf_name, given(ctx));
  else if (p.action === 'remove') result = await s.removeEndpoint(p.endpoint_id);
  else return INVALID_ACTION;
  if (result.status === 'OK') {
    // the params stay out of the record: they hold credentials
    track(ctx, 'edit_endpoint', { action: p.action, endpoint_id: p.endpoint_id ?? result.endpoint_id, endpoint_conf_name: p.endpoint_conf_name, endpoint_conf_type: p.endpoint_conf_type });
  }
  return { result };
}

export async function editRecipient(
  ctx: ApiCtx,
  p: { action?: string; recipient_id?: string; recipient_name?: string; endpoint_id?: string; recipient_check_categories?: string; recipient_minimum_severity?: string; bind_to_all_pools?: string },
) {
  const s = serviceOf(ctx);
  const filters = { name: p.recipient_name, categories: p.recipient_check_categories, minimumSeverity: p.recipient_minimum_severity, given: given(ctx) };
  let result;
  switch (p.action) {
    case 'add':
      result = await s.addRecipient({ ...filters, endpointId: p.endpoint_id, bindToAllPools: p.bind_to_all_pools === 'true' });
      break;
    case 'edit':
      result = await s.editRecipient({ ...filters, recipientId: p.recipient_id });
      break;
    case 'remove':
      result = await s.removeRecipient(p.recipient_id);
      break;
    case 'test':
      // a test changes nothing: not recorded
      return { result: await s.testRecipient(p.endpoint_id, given(ctx)) };
    default:
      return INVALID_ACTION;
  }
  if (result === true || (typeof result === 'object' && result.status === 'OK')) {
    const id = p.recipient_id ?? (typeof result === 'object' ? result.recipient_id : undefined);
    track(ctx, 'edit_notification_recipient', { action: p.action, recipient_id: id, recipient_name: p.recipient_name, endpoint_id: p.endpoint_id });
  }
  return { result };
}

export const endpointConfigs = (ctx: ApiCtx) => serviceOf(ctx).endpointConfigs();

export const recipientList = (ctx: ApiCtx) => serviceOf(ctx).recipientList();

export async function resetEndpoints(ctx: ApiCtx) {
  await serviceOf(ctx).resetEndpoints();
  track(ctx, 'delete_endpoints', {});
  return [];
}

export async function resetRecipients(ctx: ApiCtx) {
  await serviceOf(ctx).resetRecipients();
  track(ctx, 'delete_recipients', {});
  return [];
}
