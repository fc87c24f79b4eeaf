// Checks configuration endpoints: read, export, import, toggle, edit (the
// REST scripts and the two page scripts automation calls). Every change is
// recorded as user activity.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import { jsonParam } from '../params.js';
import type { ApiCtx } from '../route.js';
import { CHECK_SUBDIRS } from '../../services/checks/definitions.js';

/** import_export_rest_utils.IMPORT_EXPORT_JSON_VERSION */
const EXPORT_VERSION = '1.0';
/** the module name of checks in an export (checks_import_export.key) */
const MODULE = 'scripts';

/** A JSON file answer (download=…): the document without the envelope. */
const download = (body: unknown, filename: string) =>
  new Response(JSON.stringify(body), {
    headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${filename}"` },
  });

/** the export's alert_exclusions: the stored ones (checks_import_export.lua), [] when none */
function withExclusions(ctx: ApiCtx, conf: Record<string, unknown>): Record<string, unknown> {
  const rec = ctx.deps.exclusions?.record() ?? {};
  return { ...conf, alert_exclusions: Object.keys(rec).length ? rec : [] };
}

/** get/checks/config.lua: {"0": configset, alert_exclusions}. */
export function getConfig(ctx: ApiCtx, p: { download?: boolean }) {
  const conf = withExclusions(ctx, ctx.deps.checks.exportConfig());
  return p.download ? download(conf, 'scripts_configuration.json') : conf;
}

/** export/checks/config.lua: the checks module in the import/export envelope. */
export function exportConfig(ctx: ApiCtx, p: { download?: boolean }) {
  const env = { version: EXPORT_VERSION, modules: { [MODULE]: withExclusions(ctx, ctx.deps.checks.exportConfig()) } };
  track(ctx, 'export', { modules: [MODULE] });
  return p.download ? download(env, 'configuration.json') : env;
}

/**
 * import/checks/config.lua: an export's envelope {version, modules:
 * {scripts}}, in the `JSON` parameter (ntopng's form field) or as the JSON
 * body itself. -5: not an envelope of this version; -27: no checks in it.
 */
export async function importConfig(ctx: ApiCtx, p: { JSON?: string }) {
  const raw = ctx.raw ?? {};
  const env = p.JSON !== undefined ? jsonParam(p.JSON, 'JSON') : 'version' in raw || 'modules' in raw ? raw : undefined;
  if (!env || typeof env !== 'object' || (env as { version?: unknown }).version !== EXPORT_VERSION) {
    throw new ApiError(RC.INVALID_ARGUMENTS, `expected an export of version ${EXPORT_VERSION}: {"version": "${EXPORT_VERSION}", "modules": {"${MODULE}": …}}`);
  }
  const modules = (env as { modules?: unknown }).modules;
  const conf = modules && typeof modules === 'object' ? (modules as Record<string, unknown>)[MODULE] : undefined;
  if (conf === undefined) throw new ApiError(RC.CONFIGURATION_FILE_MISMATCH, `the file holds no '${MODULE}' (checks) configuration`);
  await ctx.deps.checks.importConfig(conf);
  track(ctx, 'import', { modules: [MODULE] });
  return [];
}

/** set/checks/config.lua: `JSON` = what get/checks/config returns. */
export async function setConfig(ctx: ApiCtx, p: { JSON: string }) {
  await ctx.deps.checks.importConfig(jsonParam(p.JSON, 'JSON'));
  track(ctx, 'set_scripts_config', {});
  return [];
}

/** reset/checks/config.lua */
export async function resetConfig(ctx: ApiCtx) {
  await ctx.deps.checks.reset();
  track(ctx, 'reset', { modules: [MODULE] });
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
