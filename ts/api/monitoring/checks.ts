// Checks configuration endpoints: read, export, import, toggle, edit (the
// REST scripts and the two page scripts automation calls). Every change is
// recorded as user activity.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import { jsonParam } from '../params.js';
import type { ApiCtx } from '../route.js';
import { checksExport, download } from './config-io.js';
import { CHECK_SUBDIRS } from '../../services/checks/definitions.js';
import { ALLOW, DROP, DeviceProtocolError, DeviceProtocols, type Role } from '../../services/checks/device-protocols.js';
import { Engine, categoryName, protocolInfo } from '../../bindings/engine.js';

/** get/checks/config.lua: {"0": configset, alert_exclusions}. */
export function getConfig(ctx: ApiCtx, p: { download?: boolean }) {
  const conf = checksExport(ctx);
  return p.download ? download(conf, 'scripts_configuration.json') : conf;
}

/** set/checks/config.lua: `JSON` = what get/checks/config returns. */
export async function setConfig(ctx: ApiCtx, p: { JSON: string }) {
  await ctx.deps.checks.importConfig(jsonParam(p.JSON, 'JSON'));
  track(ctx, 'set_scripts_config', {});
  return [];
}

/** enable/check.lua, disable/check.lua */
export async function toggleCheck(ctx: ApiCtx, p: { check_subdir: string; script_key: string }, enabled: boolean) {
  await ctx.deps.checks.setEnabled(p.check_subdir, p.script_key, enabled);
  track(ctx, enabled ? 'enable_check' : 'disable_check', { check_subdir: p.check_subdir, script_key: p.script_key });
  return { success: true };
}

/** /lua/toggle_all_checks.lua: action enable|disable, check_subdir (absent or 'all': every subdir). */
export async function toggleAllChecks(ctx: ApiCtx, p: { action: string; check_subdir?: string }) {
  const subdirs = !p.check_subdir || p.check_subdir === 'all' ? [...CHECK_SUBDIRS] : [p.check_subdir];
  await ctx.deps.checks.setAllEnabled(subdirs, p.action === 'enable');
  track(ctx, 'toggle_all_checks', { action: p.action, check_subdir: p.check_subdir ?? 'all' });
  return { success: true };
}

/** /lua/edit_check_config.lua: `JSON` = the check's hooks {<hook>: {enabled, script_conf}}. */
export async function editCheckConfig(ctx: ApiCtx, p: { check_subdir: string; script_key: string; JSON: string }) {
  const hooks = jsonParam(p.JSON, 'JSON');
  await ctx.deps.checks.update(p.check_subdir, p.script_key, hooks);
  track(ctx, 'edit_check_config', { check_subdir: p.check_subdir, script_key: p.script_key, config: hooks });
  return { success: true };
}

/** delete/host/new_devices.lua: no device is known any more (new_devices.reset_macs); each is alerted again when next seen. */
export async function deleteNewDevices(ctx: ApiCtx) {
  if (!ctx.deps.devices) throw new ApiError(RC.INTERNAL_ERROR, 'device tracking is not running');
  await ctx.deps.devices.resetKnown();
  track(ctx, 'delete_new_devices', {});
  return [];
}

// ── device protocol policies (ntopng's device protocols page) ───────────

const deviceProtocols = (ctx: ApiCtx): DeviceProtocols => {
  if (!ctx.deps.deviceProtocols) throw new ApiError(RC.INTERNAL_ERROR, 'the device protocol policies are not available');
  return ctx.deps.deviceProtocols;
};
const devtypeOf = (v: unknown) => {
  try {
    return DeviceProtocols.devtype(v ?? '0');
  } catch (e) {
    throw new ApiError(RC.INVALID_ARGUMENTS, (e as Error).message);
  }
};

/**
 * /lua/admin/edit_device_protocols.lua (edit_presets.lua): with
 * edit_device_policy, each client_policy_<id> / server_policy_<id> = 0
 * (alert) | 1 (allow) of device_type; with action=reset, device_type back to
 * its preset. Answers {success, device_type, changed} (ntopng answers its page).
 */
export async function editDeviceProtocols(ctx: ApiCtx, p: { device_type?: string; action?: string; edit_device_policy?: string }) {
  const dp = deviceProtocols(ctx);
  const devtype = devtypeOf(p.device_type);
  if (p.action === 'reset') {
    await dp.reset(devtype);
    track(ctx, 'reset_device_protocols', { device_type: devtype });
    return { success: true, device_type: devtype, changed: 0 };
  }
  // present even empty, as the page posts it (edit_presets.lua tests it against nil)
  if (p.edit_device_policy === undefined && !Object.hasOwn(ctx.raw ?? {}, 'edit_device_policy')) throw new ApiError(RC.INVALID_ARGUMENTS, 'edit_device_policy (with client_policy_<id> / server_policy_<id>) or action=reset');
  const changes: { role: Role; protoId: number; action: string }[] = [];
  for (const [k, v] of Object.entries(ctx.raw ?? {})) {
    const m = /^(client|server)_policy_(\d{1,5})$/.exec(k);
    if (!m) continue;
    const protoId = Number(m[2]);
    if (!protocolInfo(protoId)) throw new ApiError(RC.INVALID_ARGUMENTS, `${k}: no protocol ${protoId}`);
    changes.push({ role: m[1] as Role, protoId, action: String(v) });
  }
  try {
    const changed = await dp.update(devtype, changes);
    track(ctx, 'edit_device_protocols', { device_type: devtype, changes: changes.length });
    return { success: true, device_type: devtype, changed };
  } catch (e) {
    if (e instanceof DeviceProtocolError) throw new ApiError(RC.INVALID_ARGUMENTS, e.message);
    throw e;
  }
}

const DP_SORT = new Set(['column_', 'column_ndpi_application', 'column_ndpi_category']);

/**
 * /lua/admin/get_device_protocols.lua: the protocols with the actions of
 * device_type as client and server, paged (perPage 10) and sorted by name or
 * category; filters policy_filter (0 | 1: either role has it), l7proto (an
 * id), category (a name). The policy columns carry the action id where
 * ntopng's carry its radio buttons' HTML.
 */
export function getDeviceProtocols(ctx: ApiCtx, p: { device_type?: string; currentPage?: number; perPage?: number; sortColumn?: string; sortOrder?: 'asc' | 'desc'; policy_filter?: string; l7proto?: string; category?: string }) {
  const dp = deviceProtocols(ctx);
  const devtype = devtypeOf(p.device_type);
  const sortColumn = p.sortColumn || 'column_ndpi_application';
  if (!DP_SORT.has(sortColumn)) throw new ApiError(RC.INVALID_ARGUMENTS, `sortColumn: one of ${[...DP_SORT].join(', ')}`);
  if (p.policy_filter !== undefined && p.policy_filter !== '' && p.policy_filter !== ALLOW && p.policy_filter !== DROP) throw new ApiError(RC.INVALID_ARGUMENTS, 'policy_filter: 0 or 1');
  const protocols = Engine.info().dpi.protocols as { id: number; name: string; category: number }[];
  const conf = dp.policies(devtype, protocols.map((x) => x.id));
  let rows = protocols.map((x) => ({ id: x.id, name: x.name, cat: categoryName(x.category), conf: conf.get(x.id)! }));
  if (p.l7proto) rows = rows.filter((r) => String(r.id) === p.l7proto);
  if (p.category) rows = rows.filter((r) => r.cat === p.category);
  if (p.policy_filter) rows = rows.filter((r) => r.conf.client === p.policy_filter || r.conf.server === p.policy_filter);
  const key = sortColumn === 'column_ndpi_category' ? (r: (typeof rows)[number]) => r.cat : (r: (typeof rows)[number]) => r.name;
  rows.sort((a, b) => key(a).toLowerCase().localeCompare(key(b).toLowerCase()) * (p.sortOrder === 'desc' ? -1 : 1));
  const perPage = p.perPage ?? 10;
  const currentPage = p.currentPage ?? 1;
  const page = rows.slice((currentPage - 1) * perPage, currentPage * perPage);
  return {
    perPage,
    currentPage,
    totalRows: rows.length,
    data: page.map((r) => ({
      column_ndpi_application_id: String(r.id),
      column_ndpi_application: r.name,
      column_ndpi_category: r.cat,
      column_client_policy: r.conf.client,
      column_server_policy: r.conf.server,
    })),
    sort: [[sortColumn, p.sortOrder ?? 'asc']],
  };
}
