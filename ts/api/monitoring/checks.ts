// Checks configuration endpoints: read, export, import, toggle, edit (the
// REST scripts and the two page scripts automation calls). Every change is
// recorded as user activity.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import { jsonParam } from '../params.js';
import type { ApiCtx } from '../route.js';
import { checksExport, download } from './config-io.js';
import { CHECK_SUBDIRS } from '../../services/checks/definitions.js';

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
