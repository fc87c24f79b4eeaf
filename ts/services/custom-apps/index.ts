// ⑧ Custom applications and categories (ntopng's -p protos.txt with
// protos_utils.lua, its custom category hosts with categories_utils.lua,
// and the per-protocol categories of setCustomnDPIProtoCategory), applied
// natively: every change is compiled into one rule set for the engines'
// classifier (Engine.setUserRules), effective from the next new flow.
//
// The protocols file is the truth for custom protocols: read at start,
// rewritten whole (ntopng's layout, a .bak of the operator's original kept
// once) by edit/delete application, then read back and applied. Custom
// category hosts, category aliases, protocol categories and the id counter
// live in LMDB.
import { readFileSync, renameSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import type { Database } from 'lmdb';

import { Engine, type UserRulesSpec } from '../../bindings/engine.js';
import { normalizeCidr } from '../cidr.js';
import type { ConfigStore } from '../config-store.js';
import { parseApiRule, parseProtosTxt, protoName, renderProtosTxt, type ParseIssue, type ProtoRule, type ProtosTxt } from './protos-file.js';

/** ntopng's first id for applications added through its editor (protos_utils first_proto_id) */
export const FIRST_EDITOR_ID = 1024;
/** ids stay below this (the engine keeps 14 bits of application id per host entry) */
export const MAX_APP_ID = 16383;
/** custom category hosts per category (a bound on the rule set's size) */
export const MAX_CATEGORY_HOSTS = 65536;

export class CustomAppsError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'no_file',
  ) {
    super(message);
  }
}

export interface CustomApp {
  name: string;
  id: number;
  rules: ProtoRule[];
}

export interface CustomAppsOptions {
  /** the protocols file (-p); absent: no custom protocols, the editor answers -3 */
  file?: string;
  log?: (line: string) => void;
  /** resolves ip: rules that name a host (default: the system resolver) */
  resolve?: (name: string, v6: boolean) => Promise<string[]>;
}

export interface CategoryEntry {
  hosts: string[];
  alias?: string;
}

const defaultResolve = async (name: string, v6: boolean) => (await lookup(name, { all: true, family: v6 ? 6 : 4 })).map((a) => a.address);

export class CustomApps {
  private apps: CustomApp[] = [];
  private issues: ParseIssue[] = [];
  /** the file's risk exceptions and kept lines (written back with the applications) */
  private extra: Pick<ProtosTxt, 'riskMasks' | 'kept'> = { riskMasks: [], kept: [] };
  private readonly db: Database<unknown, string>;
  private readonly log: (line: string) => void;
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    store: ConfigStore,
    private readonly o: CustomAppsOptions,
  ) {
    this.db = store.db('custom_apps');
    this.log = o.log ?? ((l) => console.error(l));
  }

  /** Reads the protocols file (a missing one is created empty on the first edit) and applies everything. */
  static async open(store: ConfigStore, o: CustomAppsOptions = {}): Promise<CustomApps> {
    const c = new CustomApps(store, o);
    await c.reload();
    return c;
  }

  get hasFile(): boolean {
    return !!this.o.file;
  }

  /** what the file held that was left out, with line numbers */
  get fileIssues(): readonly ParseIssue[] {
    return this.issues;
  }

  applications(): readonly CustomApp[] {
    return this.apps;
  }

  categoryHosts(cat: number): string[] {
    return this.categories()[cat]?.hosts ?? [];
  }

  categoryAlias(cat: number): string | undefined {
    return this.categories()[cat]?.alias;
  }

  /** the category the operator gave a protocol, if any */
  appCategory(id: number): number | undefined {
    return this.appCategories()[id];
  }

  /**
   * edit/application/application: the named application's rules replaced
   * (a new name is appended with the next id from 1024), and the category
   * of `protoId` (else of the named application) set when it differs.
   */
  editApplication(p: { alias?: string; rules?: string; category?: number; protoId?: number }): Promise<void> {
    return this.serial(async () => {
      // nDPI splits a line at its last '@', a name at '=', rules at ',', and reads lines
      if (p.alias && /[@=,#\x00-\x1f\x7f]/.test(p.alias)) throw new CustomAppsError("an application name holds none of '@', '=', ',', '#' or control characters", 'invalid');
      const alias = p.alias?.trim() ? protoName(p.alias) : '';
      if (!alias && p.protoId === undefined) throw new CustomAppsError('protocol_alias or l7_proto_id is required', 'invalid');
      if (alias.length > 64) throw new CustomAppsError('protocol names have 1-64 characters', 'invalid');
      const texts = (p.rules ?? '').split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
      const rules: ProtoRule[] = [];
      for (const t of texts) {
        const r = parseApiRule(t);
        if (typeof r === 'string') throw new CustomAppsError(`rule '${t.slice(0, 200)}': ${r}`, 'invalid');
        rules.push(r);
      }
      const builtin = alias ? builtinId(alias) : undefined;
      let target = p.protoId;
      if (target !== undefined && !Engine.info().dpi.protocols.some((x) => x.id === target)) throw new CustomAppsError(`unknown application id ${target}`, 'invalid');
      if (p.category !== undefined && !Engine.info().dpi.categories.some((c) => c.id === p.category)) throw new CustomAppsError(`unknown category ${p.category}`, 'invalid');
      // rules, or a name nDPI does not have: the protocols file changes
      if (alias && (rules.length || builtin === undefined)) {
        const file = this.requireFile();
        const cur = this.readFile();
        const at = cur.findIndex((a) => a.name.toLowerCase() === alias.toLowerCase());
        if (at >= 0) cur[at] = { ...cur[at], name: alias, rules };
        else cur.push({ name: alias, id: builtin ?? (await this.nextId(cur)), rules });
        this.writeFile(file, cur);
        await this.load();
        target ??= builtin ?? this.apps.find((a) => a.name.toLowerCase() === alias.toLowerCase())?.id;
      } else target ??= builtin;
      // ntopng's editor sends the category with the protocol id (0 when absent)
      const category = p.category ?? (p.protoId !== undefined ? 0 : undefined);
      if (target !== undefined && category !== undefined) {
        const current = this.appCategories()[target] ?? Engine.info().dpi.protocols.find((x) => x.id === target)?.category;
        if (current !== category) await this.db.put('app_categories', { ...this.appCategories(), [target]: category });
      }
      this.apply();
    });
  }

  /** delete/application/application: the named custom application's rules leave the file. */
  deleteApplication(alias: string | undefined): Promise<void> {
    return this.serial(async () => {
      const name = alias?.trim() ? protoName(alias) : '';
      if (!name) throw new CustomAppsError('protocol_alias is required', 'invalid');
      const file = this.requireFile();
      const cur = this.readFile();
      const at = cur.findIndex((a) => a.name.toLowerCase() === name.toLowerCase());
      if (at < 0) throw new CustomAppsError(`no application '${name.slice(0, 64)}' in ${file}`, 'invalid');
      const [gone] = cur.splice(at, 1);
      this.writeFile(file, cur);
      // its category goes with it (ntopng's clearOldApplications); nDPI's protocols keep theirs
      if (builtinId(gone.name) === undefined && this.appCategories()[gone.id] !== undefined) {
        const rest = { ...this.appCategories() };
        delete rest[gone.id];
        await this.db.put('app_categories', rest);
      }
      await this.load();
      this.apply();
    });
  }

  /**
   * edit/category/category: the category's custom hosts (names, addresses,
   * networks) replaced, as categories_utils.updateCustomCategoryHosts; a
   * host another category already lists stays there (ntopng drops it
   * here). The alias names the category in the category list.
   */
  editCategory(cat: number, hostsText: string | undefined, alias: string | undefined): Promise<{ hosts: string[]; skipped: string[] }> {
    return this.serial(async () => {
      if (!Engine.info().dpi.categories.some((c) => c.id === cat)) throw new CustomAppsError(`unknown category ${cat}`, 'invalid');
      const all = this.categories();
      const elsewhere = new Set(Object.entries(all).flatMap(([id, e]) => (+id === cat ? [] : e.hosts)));
      const hosts: string[] = [];
      const skipped: string[] = [];
      for (const raw of (hostsText ?? '').split(',')) {
        const h = categoryHost(raw);
        if (h === undefined) continue;
        if (h === null) throw new CustomAppsError(`'${raw.trim().slice(0, 200)}' is not a host name, address or network`, 'invalid');
        if (elsewhere.has(h)) skipped.push(h);
        else if (!hosts.includes(h)) hosts.push(h);
      }
      if (hosts.length > MAX_CATEGORY_HOSTS) throw new CustomAppsError(`a category holds at most ${MAX_CATEGORY_HOSTS} hosts`, 'invalid');
      const a = alias?.trim() ? alias.trim().slice(0, 64) : all[cat]?.alias;
      const next = { ...all };
      if (hosts.length || a) next[cat] = { hosts, ...(a ? { alias: a } : {}) };
      else delete next[cat];
      await this.db.put('categories', next);
      this.apply();
      return { hosts, skipped };
    });
  }

  /**
   * What ntopng's prefs dump carries of this (the `all` export): custom
   * category hosts and aliases, and the categories given to protocols. The
   * protocols file is the operator's own file, not part of it (as in ntopng).
   */
  exportConfig(): { categories: Record<string, CategoryEntry>; app_categories: Record<string, number> } {
    return { categories: { ...this.categories() }, app_categories: { ...this.appCategories() } };
  }

  /** Replaces both with an export's (what is not valid is left out and named). */
  importConfig(conf: { categories?: unknown; app_categories?: unknown }): Promise<string[]> {
    return this.serial(async () => {
      const failed: string[] = [];
      const cats = new Set(Engine.info().dpi.categories.map((c) => c.id));
      const protos = new Set(Engine.info().dpi.protocols.map((p) => p.id));
      const categories: Record<number, CategoryEntry> = {};
      const owner = new Map<string, number>();
      for (const [id, e] of Object.entries(isRecord(conf.categories) ? conf.categories : {})) {
        const hosts = isRecord(e) && Array.isArray(e.hosts) ? e.hosts.map((h) => (typeof h === 'string' ? categoryHost(h) : null)) : null;
        const alias = isRecord(e) && typeof e.alias === 'string' && e.alias.trim() ? e.alias.trim().slice(0, 64) : undefined;
        if (!/^\d{1,5}$/.test(id) || !cats.has(+id) || !hosts || hosts.some((h) => !h) || hosts.length > MAX_CATEGORY_HOSTS) {
          failed.push(`category '${id.slice(0, 16)}'`);
          continue;
        }
        // a host listed twice stays with the first category (as editCategory keeps it)
        const own: string[] = [];
        for (const h of hosts as string[])
          if (!owner.has(h)) owner.set(h, +id), own.push(h);
        categories[+id] = { hosts: own, ...(alias ? { alias } : {}) };
      }
      const appCats: Record<number, number> = {};
      for (const [id, c] of Object.entries(isRecord(conf.app_categories) ? conf.app_categories : {})) {
        if (/^\d{1,5}$/.test(id) && protos.has(+id) && typeof c === 'number' && cats.has(c)) appCats[+id] = c;
        else failed.push(`the category of protocol '${id.slice(0, 16)}'`);
      }
      await this.db.put('categories', categories);
      await this.db.put('app_categories', appCats);
      this.apply();
      return failed;
    });
  }

  /** No custom category hosts, aliases or protocol categories (the protocols file stays). */
  resetConfig(): Promise<void> {
    return this.serial(async () => {
      await this.db.put('categories', {});
      await this.db.put('app_categories', {});
      this.apply();
    });
  }

  /** Re-reads the file and applies everything (start, and after each change). */
  reload(): Promise<void> {
    return this.serial(async () => {
      await this.load();
      this.apply();
    });
  }

  private categories(): Record<number, CategoryEntry> {
    return (this.db.get('categories') as Record<number, CategoryEntry> | undefined) ?? {};
  }

  private appCategories(): Record<number, number> {
    return (this.db.get('app_categories') as Record<number, number> | undefined) ?? {};
  }

  private requireFile(): string {
    if (!this.o.file) throw new CustomAppsError('custom applications need the service started with -p <protocols file>', 'no_file');
    return this.o.file;
  }

  /** the file's applications with the ids they have now (what gets written back) */
  private readFile(): CustomApp[] {
    return this.apps.map((a) => ({ ...a, rules: [...a.rules] }));
  }

  private writeFile(file: string, apps: readonly CustomApp[]): void {
    // the operator's own file is kept once, as ntopng does
    if (existsSync(file) && !existsSync(`${file}.bak`)) copyFileSync(file, `${file}.bak`);
    const tmp = `${file}.tmp`;
    // nDPI's own protocols without an id: `rule@HTTP` adds to nDPI's HTTP, where
    // real nDPI would read `@HTTP=7` as a new protocol named HTTP
    writeFileSync(tmp, renderProtosTxt(apps.map((a) => (builtinName(a.id) !== undefined ? { ...a, id: undefined } : a)), this.extra));
    renameSync(tmp, file);
  }

  /** ntopng's counter from 1024, never reusing an id (a deleted application's stays retired) */
  private async nextId(cur: readonly CustomApp[]): Promise<number> {
    const used = new Set(cur.map((a) => a.id));
    let id = Math.max(FIRST_EDITOR_ID, ((this.db.get('last_id') as number | undefined) ?? FIRST_EDITOR_ID - 1) + 1);
    while (used.has(id) || builtinName(id) !== undefined) id++;
    if (id > MAX_APP_ID) throw new CustomAppsError(`no application id left below ${MAX_APP_ID + 1}`, 'invalid');
    await this.db.put('last_id', id);
    return id;
  }

  /** Parses the file and gives ids as nDPI does (see assignIds); symbolic addresses resolved. */
  private async load(): Promise<void> {
    const file = this.o.file;
    let text = '';
    if (file && existsSync(file)) text = readFileSync(file, 'utf8');
    const { apps, issues, riskMasks, kept } = loadProtosText(text);
    const resolve = this.o.resolve ?? defaultResolve;
    for (const a of apps) {
      const out: ProtoRule[] = [];
      for (const r of a.rules) {
        out.push(r);
        if (r.match !== 'ip' || !r.symbolic) continue;
        try {
          r.resolved = await resolve(r.net, r.v6);
        } catch (e) {
          issues.push({ line: 0, text: r.net, reason: `${a.name}: '${r.net}' does not resolve (${(e as Error).message})` });
        }
      }
      a.rules = out;
    }
    this.apps = apps;
    this.issues = issues;
    this.extra = { riskMasks, kept };
    for (const i of issues) this.log(`flowgate: protocols file ${file}${i.line ? `:${i.line}` : ''}: ${i.reason} (${i.text})`);
  }

  /** Everything compiled into one rule set for the engines. */
  private apply(): void {
    Engine.setUserRules(compileRules(this.apps, { appCategories: this.appCategories(), categories: this.categories(), riskMasks: this.extra.riskMasks }));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }
}

/** A protos.txt read as nDPI reads it: applications with their ids, risk exceptions, kept lines, issues (symbolic addresses not resolved). */
export function loadProtosText(text: string): { apps: CustomApp[] } & Pick<ProtosTxt, 'riskMasks' | 'kept' | 'issues'> {
  const { protocols, issues, riskMasks, kept } = parseProtosTxt(text);
  return { apps: assignIds(protocols, issues), riskMasks, kept, issues };
}

/**
 * Applications (custom or adding to nDPI's), the categories given to
 * protocols, custom category hosts and risk exceptions as the engines' rule
 * set (Engine.setUserRules).
 */
export function compileRules(
  apps: readonly CustomApp[],
  o: { appCategories?: Record<number, number>; categories?: Record<number, CategoryEntry>; riskMasks?: ProtosTxt['riskMasks'] } = {},
): UserRulesSpec {
  const spec: Required<UserRulesSpec> = { protocols: [], categories: [], ports: [], hosts: [], ips: [], categoryHosts: [], categoryNets: [], riskMasks: [] };
  const appCats = o.appCategories ?? {};
  for (const a of apps) {
    if (builtinName(a.id) === undefined) spec.protocols.push({ id: a.id, name: a.name, category: appCats[a.id] ?? 0 });
    for (const r of a.rules) {
      if (r.match === 'port') spec.ports.push({ l4: r.l4, lo: r.lo, hi: r.hi, id: a.id });
      else if (r.match === 'host') spec.hosts.push({ host: r.value, id: a.id });
      else if (!r.symbolic) spec.ips.push({ net: r.net, port: r.port, id: a.id });
      else for (const ip of r.resolved ?? []) spec.ips.push({ net: ip, port: r.port, id: a.id });
    }
  }
  for (const [id, category] of Object.entries(appCats)) if (builtinName(+id) !== undefined) spec.categories.push({ id: +id, category });
  for (const [cat, e] of Object.entries(o.categories ?? {})) {
    for (const h of e.hosts) {
      if (isIP(h.split('/')[0])) spec.categoryNets.push({ net: h, category: +cat });
      else spec.categoryHosts.push({ host: h, category: +cat });
    }
  }
  for (const m of o.riskMasks ?? []) spec.riskMasks.push(m.kind === 'ip' ? { net: m.value, mask: m.mask } : { host: m.value, mask: m.mask });
  return spec;
}

/**
 * nDPI's ids (ndpi_handle_rule): a name nDPI has keeps nDPI's id; each new
 * name takes the next id after nDPI's own (NDPI_MAX_SUPPORTED_PROTOCOLS),
 * counted over every new name in file order, unless `=id` gives one.
 */
function assignIds(protocols: ReturnType<typeof parseProtosTxt>['protocols'], issues: ParseIssue[]): CustomApp[] {
  let next = Math.max(...builtinIds()) + 1;
  const used = new Set<number>();
  const out: CustomApp[] = [];
  for (const p of protocols) {
    const builtin = builtinId(p.name);
    if (builtin !== undefined) {
      if (p.id !== undefined && p.id !== builtin) issues.push({ line: 0, text: p.name, reason: `${p.name} is nDPI's protocol ${builtin}: id ${p.id} ignored` });
      out.push({ name: builtinName(builtin)!, id: builtin, rules: p.rules });
      continue;
    }
    const id = p.id ?? next;
    next++;
    if (builtinName(id) !== undefined || used.has(id) || id < 1 || id > MAX_APP_ID) {
      const why = used.has(id) ? 'is already taken' : builtinName(id) !== undefined ? `is nDPI's ${builtinName(id)}` : `is not in 1-${MAX_APP_ID}`;
      issues.push({ line: 0, text: p.name, reason: `${p.name}: id ${id} ${why}; its rules are left out` });
      continue;
    }
    used.add(id);
    out.push({ name: p.name, id, rules: p.rules });
  }
  return out;
}

// nDPI's own protocols never change: indexed once
let builtinIndex: { byId: Map<number, string>; byName: Map<string, number> } | null = null;
function builtins() {
  if (!builtinIndex) {
    const list = Engine.info().dpi.protocols.filter((p) => !p.custom);
    builtinIndex = { byId: new Map(list.map((p) => [p.id, p.name])), byName: new Map(list.map((p) => [p.name.toLowerCase(), p.id])) };
  }
  return builtinIndex;
}
const builtinIds = () => [...builtins().byId.keys()];
const builtinId = (name: string) => builtins().byName.get(name.toLowerCase());
const builtinName = (id: number) => builtins().byId.get(id);

/** A custom category host in canonical form; undefined: empty, null: not a host, address or network. */
function categoryHost(raw: string): string | null | undefined {
  const s = raw.trim().toLowerCase();
  if (!s) return undefined;
  if (isIP(s.split('/')[0])) {
    const n = normalizeCidr(s);
    if (!n) return null;
    return n.endsWith('/32') || n.endsWith('/128') ? n.slice(0, n.lastIndexOf('/')) : n;
  }
  const r = parseApiRule(`host:${s}`);
  return typeof r === 'string' ? null : r.match === 'host' ? r.value : null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
