// Active monitoring endpoints: the page scripts edit_active_monitoring_host.lua
// (add / edit / delete, answering {success, message} or {error, success:
// false} as ntopng) and get_active_monitoring_hosts.lua (the list the UI
// reads), and the v1/v2 export / import / reset of its configuration in
// ntopng's import/export envelope {version: "1.0", modules: {active_monitoring:
// {<measurement>@<host>: {show_iface, ifname, threshold, granularity,
// save_result, readonly}}}}, so a file moves between ntopng and flowgate.
import { track } from '../activity.js';
import { jsonParam } from '../params.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { AmError, MEASUREMENTS, type ActiveMonitoring } from '../../services/active-monitoring/index.js';

/** import_export_rest_utils.IMPORT_EXPORT_JSON_VERSION */
const EXPORT_VERSION = '1.0';
/** the module's name in the envelope (the v1/v2 scripts' instances["active_monitoring"]) */
const MODULE = 'active_monitoring';

function service(ctx: ApiCtx): ActiveMonitoring {
  const a = ctx.deps.activeMonitoring;
  if (!a) throw new ApiError(RC.INTERNAL_ERROR, 'active monitoring is not running');
  return a;
}

export interface EditHostParams {
  action?: string;
  am_host?: string;
  measurement?: string;
  threshold?: string;
  granularity?: string;
  pool?: string;
  ifname?: string;
  old_am_host?: string;
  old_measurement?: string;
  old_granularity?: string;
}

const failed = (error: string) => ({ error, success: false });
const missing = (param: string) => failed(`Missing "${param}" parameter`);

/** /lua/edit_active_monitoring_host.lua */
export async function editHost(ctx: ApiCtx, p: EditHostParams) {
  const am = service(ctx);
  if (!p.action) return failed('Something went wrong (empty action). Reload the page and try again.');
  if (!p.am_host) return missing('am_host');
  if (!p.measurement) return missing('measurement');
  let pool: number | undefined;
  if (p.pool !== undefined) {
    if (!/^\d{1,5}$/.test(p.pool)) return failed(`invalid pool '${p.pool}'`);
    pool = Number(p.pool);
  }
  const input = { host: p.am_host, measurement: p.measurement, threshold: p.threshold, granularity: p.granularity, pool, ifname: p.ifname };
  try {
    switch (p.action) {
      case 'add': {
        const key = await am.add(input);
        track(ctx, 'am_host_add', { key });
        return { message: `Host ${p.am_host} was successfully added!`, success: true };
      }
      case 'edit': {
        if (!p.old_am_host) return missing('old_am_host');
        if (!p.old_measurement) return missing('old_measurement');
        if (!p.old_granularity) return missing('old_granularity');
        const key = await am.edit({ host: p.old_am_host, measurement: p.old_measurement }, input);
        track(ctx, 'am_host_edit', { key, old_key: `${p.old_measurement}@${p.old_am_host}` });
        return { message: `Host ${p.old_am_host} was successfully edited!`, success: true };
      }
      case 'delete':
        await am.delete(p.am_host, p.measurement);
        track(ctx, 'am_host_delete', { key: `${p.measurement}@${p.am_host}` });
        return { message: `Host ${p.am_host} was successfully deleted!`, success: true };
      default:
        return failed('Bad "action" paramater');
    }
  } catch (e) {
    if (e instanceof AmError) return failed(e.message);
    throw e;
  }
}

/** /lua/get_active_monitoring_hosts.lua: one entry per host, as ntopng's fields. */
export function listHosts(ctx: ApiCtx) {
  return service(ctx)
    .list()
    .map((h) => {
      const m = MEASUREMENTS[h.measurement];
      const chart = h.last ? `/lua/monitor/active_monitoring_monitor.lua?am_host=${h.host}&measurement=${h.measurement}&page=historical` : '';
      return {
        key: h.key,
        label: h.host,
        html_label: h.conf.ifname ? `${h.host} [ <span class="fas fa-ethernet"></span> ${h.conf.ifname} ]` : h.host,
        host: h.host,
        alerted: h.alerted ? 1 : 0,
        measurement: m.label,
        measurement_key: h.measurement,
        chart,
        threshold: h.conf.threshold,
        last_measure: h.last ? h.last.value : '',
        value_js_formatter: m.valueJsFormatter,
        // (sic: ntopng's field name)
        last_mesurement_time: h.last ? h.last.when : '',
        last_ip: h.last ? h.last.ip : '',
        ifname: h.conf.ifname,
        granularity: h.conf.granularity,
        availability: h.availability ? h.availability.pct : '',
        hours: h.availability ? h.availability.hours : [],
        unit: m.unit,
        jitter: '',
        pool: h.pool,
        readonly: h.conf.readonly,
      };
    });
}

/** A JSON file answer (download=…): the document without the envelope. */
const download = (body: unknown, filename: string) =>
  new Response(JSON.stringify(body), {
    headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${filename}"` },
  });

/** export/active_monitoring/config.lua */
export function exportConfig(ctx: ApiCtx, p: { download?: string }) {
  const env = { version: EXPORT_VERSION, modules: { [MODULE]: service(ctx).exportConfig() } };
  track(ctx, 'export', { modules: [MODULE] });
  return p.download ? download(env, 'configuration.json') : env;
}

/**
 * import/active_monitoring/config.lua: the envelope in `JSON` (ntopng's form
 * field) or as the JSON body itself. -5: not an envelope of this version;
 * -27: no active monitoring in it; -8: its hosts are not an object; -28:
 * some hosts were not valid (the others are imported).
 */
export async function importConfig(ctx: ApiCtx, p: { JSON?: string }) {
  const am = service(ctx);
  const raw = ctx.raw ?? {};
  let env: unknown;
  if (p.JSON !== undefined) env = jsonParam(p.JSON, 'JSON');
  else if ('version' in raw || 'modules' in raw) env = raw;
  if (!env || typeof env !== 'object' || (env as { version?: unknown }).version !== EXPORT_VERSION) {
    throw new ApiError(RC.INVALID_ARGUMENTS, `expected an export of version ${EXPORT_VERSION}: {"version": "${EXPORT_VERSION}", "modules": {"${MODULE}": …}}`);
  }
  const modules = (env as { modules?: unknown }).modules;
  const conf = modules && typeof modules === 'object' ? (modules as Record<string, unknown>)[MODULE] : undefined;
  if (conf === undefined || conf === null) throw new ApiError(RC.CONFIGURATION_FILE_MISMATCH, `the file holds no '${MODULE}' configuration`);
  // an empty Lua table is encoded as [] by ntopng's JSON
  if (Array.isArray(conf) && conf.length === 0) return [];
  if (typeof conf !== 'object' || Array.isArray(conf)) throw new ApiError(RC.BAD_CONTENT, `'${MODULE}' must be an object of <measurement>@<host> → settings`);
  const r = await am.importConfig(conf as Record<string, unknown>);
  track(ctx, 'import', { modules: [MODULE] });
  if (r.skipped.length) {
    throw new ApiError(RC.PARTIAL_IMPORT, `imported ${r.imported.length} host(s); not valid, skipped: ${r.skipped.slice(0, 20).join(', ')}${r.skipped.length > 20 ? ' …' : ''}`);
  }
  return [];
}

/** reset/active_monitoring/config.lua: every host deleted (alerts released, pools unbound). */
export async function resetConfig(ctx: ApiCtx) {
  await service(ctx).reset();
  track(ctx, 'reset', { modules: [MODULE] });
  return [];
}
