// ⑧ The checks configuration: which checks are enabled and their
// script_conf (thresholds …), laid out as ntopng's configset (checks.lua:
// config.<subdir>.<script_key>.<hook> = {enabled, script_conf}, plus
// filters), kept in the configuration store (named db 'checks') so it
// survives restarts. Checks never configured follow their definition
// (definitions.ts). Listeners hear every change once it is stored, so the
// running checks apply it at once.
import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import type { ConfigStore } from '../config-store.js';
import { CHECK_DEFS, CHECK_HOOKS, checkDef, isCheckSubdir, type CheckDef, type ScriptConf } from './definitions.js';

export interface HookConfig {
  enabled: boolean;
  script_conf: ScriptConf;
}

/** One check's configuration: per hook ('all' for flow checks, 'min' … for the others). */
export type CheckConfig = Record<string, HookConfig>;

/** ntopng's configset (the default one, id 0: the only one ntopng still supports). */
export interface Configset {
  config: Record<string, Record<string, CheckConfig>>;
  filters: Record<string, unknown>;
}

const RECORD = 'configset';
/** a script_conf or filters larger than this (as JSON) is refused */
const MAX_CONF_JSON = 64 * 1024;
const KEY_RE = /^[A-Za-z0-9_]{1,64}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** an object, or the `[]` dkjson writes for an empty Lua table */
const asObject = (v: unknown): Record<string, unknown> | null => (isObject(v) ? v : Array.isArray(v) && v.length === 0 ? {} : null);
const clone = <T>(v: T): T => structuredClone(v);

/** The definition's configuration (what ntopng's initDefaultConfig writes). */
export function defaultConfig(d: CheckDef): CheckConfig {
  return { [d.hook]: { enabled: d.defaultEnabled, script_conf: clone(d.defaultValue) } };
}

/**
 * Checks one check's hooks: known hook names, `enabled` a boolean,
 * `script_conf` an object of bounded size; for threshold checks an operator
 * (gt, eq, lt: http_lint.validateOperator) and a non-negative number
 * (threshold_cross.lua parseConfig). Throws ApiError(rc) naming the fault.
 */
export function validateCheckConfig(subdir: string, key: string, v: unknown, rc: number): CheckConfig {
  const bad = (what: string): never => {
    throw new ApiError(rc, `${subdir}/${key}: ${what}`);
  };
  const d = checkDef(subdir, key);
  const hooks = asObject(v);
  if (!hooks) bad('the configuration must be an object of hooks');
  const out: CheckConfig = {};
  for (const [hook, hv] of Object.entries(hooks!)) {
    if (!(CHECK_HOOKS as readonly string[]).includes(hook)) bad(`unknown hook '${hook}' (${CHECK_HOOKS.join(', ')})`);
    if (d && hook !== d.hook) bad(`its configuration is kept under the '${d.hook}' hook, not '${hook}'`);
    if (!isObject(hv)) bad(`hook '${hook}' must be an object {enabled, script_conf}`);
    const h = hv as Record<string, unknown>;
    if (typeof h.enabled !== 'boolean') bad(`hook '${hook}': 'enabled' must be true or false`);
    const conf = h.script_conf === undefined ? {} : asObject(h.script_conf);
    if (!conf) bad(`hook '${hook}': 'script_conf' must be an object`);
    if (JSON.stringify(conf).length > MAX_CONF_JSON) bad(`hook '${hook}': 'script_conf' is larger than ${MAX_CONF_JSON} bytes`);
    if (d?.template === 'threshold_cross') {
      // a conf lacking them takes the definition's (checks.getTargetHookConfig)
      const op = conf!.operator ?? d.defaultValue.operator;
      const th = conf!.threshold ?? d.defaultValue.threshold;
      if (op !== 'gt' && op !== 'eq' && op !== 'lt') bad(`hook '${hook}': bad operator (gt, eq or lt)`);
      const n = typeof th === 'number' ? th : typeof th === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(th) ? Number(th) : NaN;
      if (!Number.isFinite(n) || n < 0 || n > Number.MAX_SAFE_INTEGER) bad(`hook '${hook}': bad threshold (a number from 0)`);
    }
    out[hook] = { enabled: h.enabled as boolean, script_conf: conf! };
  }
  if (!Object.keys(out).length) bad('no hook configured');
  return out;
}

/** dkjson writes an empty Lua table as `[]`: exports look as ntopng's do. */
export function luaJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(luaJson);
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (!keys.length) return [];
    return Object.fromEntries(keys.map((k) => [k, luaJson(v[k])]));
  }
  return v;
}

export class ChecksConfig {
  /** what was configured (changed or imported); everything else follows its definition */
  private stored: Configset;
  private readonly listeners = new Set<() => void>();
  /** writes one after the other: each starts from the previous one's result */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Database<Configset, string>) {
    const v = db.get(RECORD);
    this.stored = v && isObject(v.config) ? { config: v.config, filters: isObject(v.filters) ? v.filters : {} } : { config: {}, filters: {} };
  }

  static open(store: ConfigStore): ChecksConfig {
    return new ChecksConfig(store.db<Configset>('checks'));
  }

  /** Called after every change is stored; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One check's configuration: as configured, else its definition's. */
  check(subdir: string, key: string): CheckConfig {
    const c = this.stored.config[subdir]?.[key];
    if (c) return c;
    const d = checkDef(subdir, key);
    return d ? defaultConfig(d) : {};
  }

  /** Enabled on some hook (checks.isCheckEnabled). */
  isEnabled(subdir: string, key: string): boolean {
    return Object.values(this.check(subdir, key)).some((h) => h.enabled);
  }

  /** The script_conf a running check reads: its hook's, with the definition's defaults for keys it lacks (checks.getTargetHookConfig). */
  scriptConf(subdir: string, key: string): ScriptConf {
    const d = checkDef(subdir, key);
    const c = this.check(subdir, key);
    const h = c[d?.hook ?? 'all'] ?? Object.values(c)[0];
    return { ...(d?.defaultValue ?? {}), ...(h?.script_conf ?? {}) };
  }

  /** A threshold check's threshold as a number (null: not a threshold check). */
  threshold(subdir: string, key: string): number | null {
    const t = this.scriptConf(subdir, key).threshold;
    const n = typeof t === 'number' ? t : typeof t === 'string' ? Number(t) : NaN;
    return Number.isFinite(n) ? n : null;
  }

  /** The whole configset: every defined check, plus configured ones flowgate has no definition of. */
  configset(): Configset {
    const config: Configset['config'] = {};
    for (const d of CHECK_DEFS) (config[d.subdir] ??= {})[d.key] = clone(this.check(d.subdir, d.key));
    for (const [subdir, checks] of Object.entries(this.stored.config)) {
      for (const [key, c] of Object.entries(checks)) (config[subdir] ??= {})[key] ??= clone(c);
    }
    return { config, filters: clone(this.stored.filters) };
  }

  /** ntopng's checks_import_export export: {"0": configset, alert_exclusions} (none are kept here). */
  exportConfig(): Record<string, unknown> {
    return { 0: luaJson(this.configset()), alert_exclusions: [] };
  }

  /** The definition, or -5 for an unknown subdir or key. */
  definition(subdir: string, key: string): CheckDef {
    if (!isCheckSubdir(subdir)) throw new ApiError(RC.INVALID_ARGUMENTS, `unknown check_subdir '${subdir}'`);
    const d = checkDef(subdir, key);
    if (!d) throw new ApiError(RC.INVALID_ARGUMENTS, `unknown check '${key}' in ${subdir}`);
    return d;
  }

  /** enable/check.lua, disable/check.lua: every hook of the check switched (checks.toggleScript). */
  setEnabled(subdir: string, key: string, enabled: boolean): Promise<void> {
    const d = this.definition(subdir, key);
    return this.write((cs) => {
      const c = clone(this.check(d.subdir, d.key));
      for (const h of Object.values(c)) h.enabled = enabled;
      (cs.config[d.subdir] ??= {})[d.key] = c;
    });
  }

  /** toggle_all_checks.lua: every check of the subdirs (checks.toggleAllScripts). */
  setAllEnabled(subdirs: readonly string[], enabled: boolean): Promise<void> {
    for (const s of subdirs) if (!isCheckSubdir(s)) throw new ApiError(RC.INVALID_ARGUMENTS, `unknown check_subdir '${s}'`);
    return this.write((cs) => {
      for (const d of CHECK_DEFS) {
        if (!subdirs.includes(d.subdir)) continue;
        const c = clone(this.check(d.subdir, d.key));
        for (const h of Object.values(c)) h.enabled = enabled;
        (cs.config[d.subdir] ??= {})[d.key] = c;
      }
    });
  }

  /** edit_check_config.lua: the check's hooks replaced by these (checks.updateScriptConfig), checked first. */
  update(subdir: string, key: string, hooks: unknown): Promise<void> {
    const d = this.definition(subdir, key);
    const c = validateCheckConfig(d.subdir, d.key, hooks, RC.INVALID_ARGUMENTS);
    return this.write((cs) => {
      (cs.config[d.subdir] ??= {})[d.key] = c;
    });
  }

  /**
   * checks_import_export import: the export's {"0": configset, …} replaces
   * the configuration (empty: nothing to do). Each check's hooks are checked
   * as an edit is; checks flowgate has no definition of are kept as given.
   * Errors: -8 (bad content), nothing changed.
   */
  importConfig(conf: unknown): Promise<void> {
    const BAD = RC.BAD_CONTENT;
    const top = asObject(conf);
    if (!top) throw new ApiError(BAD, 'the checks configuration must be an object');
    if (!Object.keys(top).length) return Promise.resolve();
    const cs = asObject(top['0']);
    if (!cs) throw new ApiError(BAD, 'no configset "0" (the default configset) in the checks configuration');
    if (cs.id !== undefined && cs.id !== 0 && cs.id !== '0') throw new ApiError(BAD, `configset id ${JSON.stringify(cs.id)}: only the default configset (0) is supported`);
    const config = asObject(cs.config ?? {});
    if (!config) throw new ApiError(BAD, "the configset's 'config' must be an object");
    const next: Configset = { config: {}, filters: {} };
    for (const [subdir, checks] of Object.entries(config)) {
      if (!isCheckSubdir(subdir)) throw new ApiError(BAD, `unknown check subdir '${subdir}'`);
      const m = asObject(checks);
      if (!m) throw new ApiError(BAD, `config.${subdir} must be an object`);
      for (const [key, hooks] of Object.entries(m)) {
        if (!KEY_RE.test(key)) throw new ApiError(BAD, `bad check key '${key.slice(0, 64)}' in ${subdir}`);
        (next.config[subdir] ??= {})[key] = validateCheckConfig(subdir, key, hooks, BAD);
      }
    }
    const filters = cs.filters === undefined ? {} : asObject(cs.filters);
    if (!filters || JSON.stringify(filters).length > MAX_CONF_JSON) throw new ApiError(BAD, "the configset's 'filters' must be an object");
    next.filters = filters;
    return this.write((c) => {
      c.config = next.config;
      c.filters = next.filters;
    });
  }

  /** reset/checks/config.lua: back to every definition's configuration. */
  reset(): Promise<void> {
    return this.write((c) => {
      c.config = {};
      c.filters = {};
    });
  }

  private write(change: (cs: Configset) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const next = clone(this.stored);
      change(next);
      await this.db.put(RECORD, next);
      this.stored = next;
      for (const l of this.listeners) {
        try {
          l();
        } catch (e) {
          console.error(`flowgate: checks: a change listener failed: ${(e as Error).message}`);
        }
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
