// Configuration export, import and reset (ntopng's import_export/*.lua and
// import_export_rest_utils.lua): one envelope {version: "1.0", modules:
// {<module>: <conf>}} for every module — scripts (the checks), active
// monitoring, notifications, pool, snmp, and `all`. As in ntopng, the pool
// paths carry the five modules together (pools name recipients and active
// monitoring hosts). A module's import applies what it can and lists what it
// could not: the answer is then -28 naming it; a file without a module the
// path needs is -27.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import { jsonParam } from '../params.js';
import type { ApiCtx } from '../route.js';
import { NetworkConfigError } from '../../services/checks/network-config.js';
import { hostKey, parseHost } from './hosts.js';

/** import_export_rest_utils.IMPORT_EXPORT_JSON_VERSION */
export const EXPORT_VERSION = '1.0';

interface ConfigModule {
  export(ctx: ApiCtx): unknown;
  /** applies `conf`; answers what was not applied ([] when everything was); throws ApiError for a conf of the wrong shape */
  import(ctx: ApiCtx, conf: unknown): Promise<string[]>;
  reset(ctx: ApiCtx): Promise<void>;
}

const need = <T>(v: T | null | undefined, what: string): T => {
  if (!v) throw new ApiError(RC.INTERNAL_ERROR, `${what} is not running`);
  return v;
};
/** ntopng's JSON writes an empty Lua table as [] */
const isEmpty = (v: unknown) => (Array.isArray(v) && !v.length) || (!!v && typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length);
const asObject = (v: unknown, what: string): Record<string, unknown> => {
  if (isEmpty(v)) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ApiError(RC.BAD_CONTENT, `${what} must be an object`);
  return v as Record<string, unknown>;
};

/** the checks' export: the configset and the stored alert exclusions (checks_import_export.lua), [] when none */
export function checksExport(ctx: ApiCtx): Record<string, unknown> {
  const rec = ctx.deps.exclusions?.record() ?? {};
  return { ...ctx.deps.checks.exportConfig(), alert_exclusions: Object.keys(rec).length ? rec : [] };
}

const checks: ConfigModule = {
  export: checksExport,
  import: async (ctx, conf) => {
    await ctx.deps.checks.importConfig(conf);
    return [];
  },
  reset: (ctx) => ctx.deps.checks.reset(),
};

const MODULES: Record<string, ConfigModule> = {
  scripts: checks,
  // am_import_export: {res: the hosts, vs_config: the hosts to scan}; a file of
  // the hosts alone (flowgate's earlier form) is read too
  active_monitoring: {
    export: (ctx) => {
      const res = need(ctx.deps.activeMonitoring, 'active monitoring').exportConfig();
      const vs = ctx.deps.scans?.exportConfig() ?? [];
      return { res: Object.keys(res).length ? res : [], vs_config: vs };
    },
    import: async (ctx, conf) => {
      const o = asObject(conf, "'active_monitoring' ({res, vs_config})");
      const wrapped = 'res' in o || 'vs_config' in o;
      const hosts = wrapped ? asObject(o.res ?? {}, "'active_monitoring.res' (<measurement>@<host> → settings)") : o;
      const failed: string[] = [];
      if (Object.keys(hosts).length) {
        const r = await need(ctx.deps.activeMonitoring, 'active monitoring').importConfig(hosts);
        failed.push(...r.skipped.map((k) => `active monitoring host '${k.slice(0, 120)}' is not valid`));
      }
      const vs = wrapped ? o.vs_config : undefined;
      if (vs !== undefined && !isEmpty(vs)) {
        if (!Array.isArray(vs)) throw new ApiError(RC.BAD_CONTENT, "'active_monitoring.vs_config' must be a list of hosts to scan");
        failed.push(...(await need(ctx.deps.scans, 'active scans').importConfig(vs)));
      }
      return failed;
    },
    reset: (ctx) => need(ctx.deps.activeMonitoring, 'active monitoring').reset(),
  },
  notifications: {
    export: (ctx) => need(ctx.deps.notifications, 'notifications').endpointConfigs(false),
    import: (ctx, conf) => {
      if (isEmpty(conf)) return Promise.resolve([]);
      if (!Array.isArray(conf)) throw new ApiError(RC.BAD_CONTENT, "'notifications' must be a list of endpoints with their recipients");
      return need(ctx.deps.notifications, 'notifications').importConfig(conf);
    },
    reset: (ctx) => need(ctx.deps.notifications, 'notifications').resetEndpoints(),
  },
  pool: {
    export: (ctx) => need(ctx.deps.pools, 'pools').exportConfig(),
    import: (ctx, conf) => need(ctx.deps.pools, 'pools').importConfig(asObject(conf, "'pool' (kind → pools)")),
    reset: (ctx) => need(ctx.deps.pools, 'pools').deleteAll(),
  },
  // the devices by address, with ntopng's add parameters; imported without probing (a device down now stays configured)
  snmp: {
    export: (ctx) => need(ctx.deps.snmp, 'SNMP devices').exportConfig(),
    import: (ctx, conf) => (isEmpty(conf) ? Promise.resolve([]) : need(ctx.deps.snmp, 'SNMP devices').importConfig(asObject(conf, "'snmp' (address → device)"))),
    reset: (ctx) => need(ctx.deps.snmp, 'SNMP devices').reset(),
  },
  // ntopng's infrastructure_import_export: the instances (its list); an import adds or replaces them by id
  infrastructure: {
    export: (ctx) => need(ctx.deps.infrastructure, 'infrastructure instances').exportConfig(),
    import: (ctx, conf) => {
      if (isEmpty(conf)) return Promise.resolve([]);
      if (!Array.isArray(conf)) throw new ApiError(RC.BAD_CONTENT, "'infrastructure' must be a list of instances");
      return need(ctx.deps.infrastructure, 'infrastructure instances').importConfig(conf);
    },
    reset: (ctx) => need(ctx.deps.infrastructure, 'infrastructure instances').reset(),
  },
};

/** settings that only `all` carries: the network configuration, the hosts' custom names, custom categories */
const NETWORK: ConfigModule = {
  export: (ctx) => need(ctx.deps.network, 'the network configuration').get(),
  import: async (ctx, conf) => {
    try {
      await need(ctx.deps.network, 'the network configuration').set(asObject(conf, "'network_config'") as Record<string, string>);
    } catch (e) {
      if (e instanceof NetworkConfigError) throw new ApiError(RC.BAD_CONTENT, `network_config: ${e.message}`);
      throw e;
    }
    return [];
  },
  reset: async (ctx) => {
    const n = need(ctx.deps.network, 'the network configuration');
    await n.set(Object.fromEntries(Object.keys(n.get()).map((k) => [k, ''])));
  },
};
const ALIASES: ConfigModule = {
  export: (ctx) => {
    const out: Record<string, string> = {};
    for (const { key, value } of ctx.deps.store.db<string>('host_aliases').getRange()) out[String(key)] = String(value);
    return out;
  },
  import: async (ctx, conf) => {
    const db = ctx.deps.store.db<string>('host_aliases');
    const failed: string[] = [];
    for (const [k, v] of Object.entries(asObject(conf, "'host_aliases'"))) {
      let key: string | undefined;
      try {
        const h = parseHost(k);
        key = hostKey(h.ip, h.vlan);
      } catch {
        key = undefined;
      }
      if (!key || typeof v !== 'string' || !v.trim() || v.length > 256) failed.push(`host alias '${k.slice(0, 80)}'`);
      else await db.put(key, v.trim());
    }
    return failed;
  },
  reset: async (ctx) => {
    const db = ctx.deps.store.db<string>('host_aliases');
    for (const { key } of db.getRange()) await db.remove(key);
  },
};
/** custom category hosts and aliases, the categories given to protocols (ntopng's prefs dump holds them) */
const CATEGORIES: ConfigModule = {
  export: (ctx) => need(ctx.deps.customApps, 'custom applications').exportConfig(),
  import: (ctx, conf) => need(ctx.deps.customApps, 'custom applications').importConfig(asObject(conf, "'categories'")),
  reset: (ctx) => need(ctx.deps.customApps, 'custom applications').resetConfig(),
};
MODULES.network_config = NETWORK;
MODULES.host_aliases = ALIASES;
MODULES.categories = CATEGORIES;

/**
 * `all`: every module in one file. Imported in dependency order (recipients
 * before the pools that name them, active monitoring hosts before the pools
 * that hold them); a module missing from the file is left as it is.
 */
const ALL_ORDER = ['notifications', 'active_monitoring', 'pool', 'scripts', 'snmp', 'infrastructure', 'network_config', 'host_aliases', 'categories'] as const;
MODULES.all = {
  export: (ctx) => Object.fromEntries(ALL_ORDER.map((m) => [m, MODULES[m].export(ctx)])),
  import: async (ctx, conf) => {
    const all = asObject(conf, "'all' (module → configuration)");
    const failed: string[] = [];
    for (const m of ALL_ORDER) {
      if (all[m] === undefined) continue;
      try {
        failed.push(...(await MODULES[m].import(ctx, all[m])));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        failed.push(`${m}: ${e.message}`);
      }
    }
    return failed;
  },
  reset: async (ctx) => {
    for (const m of ALL_ORDER) await MODULES[m].reset(ctx);
  },
};

/** the module names a path takes: `checks` is the newer spelling of `scripts` */
export const CONFIG_MODULES = ['checks', 'scripts', 'active_monitoring', 'notifications', 'pool', 'snmp', 'infrastructure', 'all'] as const;
export type ConfigModuleName = (typeof CONFIG_MODULES)[number];
/** the file's modules of each path, in import order (export/import pool/config.lua: the five of them) */
const PATH_MODULES: Record<ConfigModuleName, readonly string[]> = {
  checks: ['scripts'],
  scripts: ['scripts'],
  active_monitoring: ['active_monitoring'],
  notifications: ['notifications'],
  snmp: ['snmp'],
  infrastructure: ['infrastructure'],
  pool: ['snmp', 'active_monitoring', 'notifications', 'scripts', 'pool'],
  all: ['all'],
};

/** A JSON file answer (download): the document without the envelope. */
export const download = (body: unknown, filename: string) =>
  new Response(JSON.stringify(body), {
    headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${filename}"` },
  });

/** export/<module>/config.lua: the envelope; `download` (any value, as ntopng tests it for non-empty): the file itself */
export function exportConfig(ctx: ApiCtx, m: ConfigModuleName, p: { download?: string }) {
  const keys = PATH_MODULES[m];
  const env = { version: EXPORT_VERSION, modules: Object.fromEntries(keys.map((k) => [k, MODULES[k].export(ctx)])) };
  track(ctx, 'export', { modules: keys });
  return p.download ? download(env, 'configuration.json') : env;
}

/**
 * import/<module>/config.lua: the envelope in `JSON` (ntopng's form field) or
 * as the JSON body itself. -5 not an envelope of this version; -27 no such
 * module in it; -8 the module is of the wrong shape; -28 applied in part.
 */
export async function importConfig(ctx: ApiCtx, m: ConfigModuleName, p: { JSON?: string }) {
  const keys = PATH_MODULES[m];
  const raw = ctx.raw ?? {};
  const env = p.JSON !== undefined ? jsonParam(p.JSON, 'JSON') : 'version' in raw || 'modules' in raw ? raw : undefined;
  if (!env || typeof env !== 'object' || (env as { version?: unknown }).version !== EXPORT_VERSION) {
    throw new ApiError(RC.INVALID_ARGUMENTS, `expected an export of version ${EXPORT_VERSION}: {"version": "${EXPORT_VERSION}", "modules": {${keys.map((k) => `"${k}": …`).join(', ')}}}`);
  }
  const modules = (env as { modules?: unknown }).modules;
  const confOf = (k: string) => (modules && typeof modules === 'object' && Object.hasOwn(modules, k) ? (modules as Record<string, unknown>)[k] : undefined);
  const missing = keys.filter((k) => confOf(k) === undefined || confOf(k) === null);
  if (missing.length) throw new ApiError(RC.CONFIGURATION_FILE_MISMATCH, `the file holds no ${missing.map((k) => `'${k}'`).join(', ')} configuration`);
  const failed: string[] = [];
  for (const k of keys) {
    try {
      failed.push(...(await MODULES[k].import(ctx, confOf(k))));
    } catch (e) {
      // one module of several: the others are still applied
      if (!(e instanceof ApiError) || keys.length === 1) throw e;
      failed.push(`${k}: ${e.message}`);
    }
  }
  track(ctx, 'import', { modules: keys });
  if (failed.length) throw new ApiError(RC.PARTIAL_IMPORT, `not applied (${failed.length}): ${failed.slice(0, 10).join('; ')}${failed.length > 10 ? ' …' : ''}`);
  return [];
}

/** reset/<module>/config.lua: the path's own module (reset/pool/config resets the pools only, as ntopng) */
export async function resetConfig(ctx: ApiCtx, m: ConfigModuleName) {
  const key = m === 'checks' ? 'scripts' : m;
  await MODULES[key].reset(ctx);
  track(ctx, 'reset', { modules: [key] });
  return [];
}
