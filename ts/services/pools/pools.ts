// ⑧ Pools (ntopng 5.x: pools/pools.lua and its <kind>_pools.lua subclasses):
// named groups of members of one kind, each bound to notification
// recipients. Every kind has the default pool 0 (no members, the builtin
// recipients); host pools also the builtin "Jailed Hosts" pool 1. Kinds
// flow, mac, host_pool and system have only their default pool, whose
// recipients are all that can be edited.
//
// Kept in LMDB (one record per pool, a next-id counter per kind), mirrored
// in memory for reads. Host pool membership is sent to every engine as one
// table after each change (Engine.setHostPools), so host records, the host
// list's `pool` filter and stored flows carry the pool at once.
import type { Database } from 'lmdb';

import type { Engine } from '../../bindings/engine.js';
import type { AlertFamily } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import { NetPoolMatcher, engineMember, memberDetails, parseMember, type ParsedMember } from './members.js';
import { DEFAULT_POOL_ID, DEFAULT_POOL_NAME, FAMILY_POOL_KIND, POOL_KINDS, type PoolDirectory, type PoolKind, type RecipientDirectory } from './types.js';
import { luaTable } from '../lua-table.js';

/** host_pools.lua DROP_HOST_POOL_ID / DROP_HOST_POOL_NAME */
export const JAILED_POOL_ID = 1;
export const JAILED_POOL_NAME = 'Jailed Hosts';
/** pools.lua MIN_ASSIGNED_POOL_ID: 0 default, 1 the jail */
const MIN_ASSIGNED_POOL_ID = 2;
/** pools:get_max_num_pools (host pools: ntopng's UNLIMITED_NUM_HOST_POOLS; ids stay below it) */
export const MAX_POOLS = 128;
/** members of one pool (a bound on memory and on the engine's table) */
export const MAX_POOL_MEMBERS = 65536;

/** ntopng's instance key of each kind (the `key` of get/pools.lua entries) */
export const POOL_INSTANCE_KEY: Record<PoolKind, string> = {
  interface: 'interface',
  host: 'host',
  network: 'local_network',
  snmp_device: 'snmp_device',
  active_monitoring: 'active_monitoring',
  flow: 'flow',
  mac: 'mac',
  host_pool: 'host_pool',
  system: 'system',
};

/** the kinds that have only their default pool (pools:default_only) */
export const DEFAULT_ONLY: ReadonlySet<PoolKind> = new Set(['flow', 'mac', 'host_pool', 'system']);

interface PoolRecord {
  name: string;
  members: string[];
  recipients: number[];
}

/** Why a change was refused (the route answers the kind's code with this text). */
export class PoolError extends Error {
  constructor(
    message: string,
    /** the member is bound to another pool (bind) */
    readonly boundTo?: number,
  ) {
    super(message);
  }
}

/** What pools need to know of the service: the interfaces and their local networks, and the engines to send host pools to. */
export interface PoolContext {
  interfaces(): readonly { ifid: number; ifname: string; engine: Engine }[];
  /** the configured active monitoring host keys ('<measurement>@<host>'): the members active_monitoring pools take */
  amHosts?(): readonly string[];
  /** the SNMP devices' addresses (snmp_device pool members) */
  snmpDevices?(): readonly string[];
}

export class Pools implements PoolDirectory {
  private readonly pools = new Map<PoolKind, Map<number, PoolRecord>>();
  private readonly next = new Map<PoolKind, number>();
  private recipients: RecipientDirectory | null = null;
  private hostMatcher = new NetPoolMatcher();
  private hostMacs = false;
  /** changes are applied one after another (each checks, then writes) */
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: Database<unknown, string>,
    private readonly ctx: PoolContext,
  ) {
    for (const k of POOL_KINDS) this.pools.set(k, new Map());
    for (const { key, value } of db.getRange()) {
      const [kind, id] = String(key).split('/') as [PoolKind, string];
      if (!this.pools.has(kind)) continue;
      if (id === 'next' && typeof value === 'number') this.next.set(kind, value);
      else if (/^\d+$/.test(id) && isRecord(value)) this.pools.get(kind)!.set(Number(id), value);
    }
  }

  /** Opens the pools kept in the store, creating the builtin ones, and sends host pools to the engines. */
  static async open(store: ConfigStore, ctx: PoolContext, recipients?: RecipientDirectory | null): Promise<Pools> {
    const p = new Pools(store.db('pools'), ctx);
    if (recipients) p.recipients = recipients;
    await p.ensureBuiltins();
    p.applyHostPools();
    return p;
  }

  /** The recipients side (known after both are open); pools check recipient ids against it. */
  setRecipients(r: RecipientDirectory): void {
    this.recipients = r;
  }

  // ── reading ──────────────────────────────────────────────────────────

  /** pools:get_pool: the pool as ntopng returns it, undefined when it does not exist */
  get(kind: PoolKind, id: number) {
    const r = this.pools.get(kind)!.get(id);
    return r ? this.view(kind, id, r) : undefined;
  }

  /** pools:get_all_pools, by id */
  all(kind: PoolKind) {
    return [...this.pools.get(kind)!.entries()].sort((a, b) => a[0] - b[0]).map(([id, r]) => this.view(kind, id, r));
  }

  /** host pools: the pool a member is bound to (pools:get_pool_by_member), undefined when none */
  poolByMember(kind: PoolKind, member: string) {
    const m = this.canonical(kind, member);
    if (m === null) return undefined;
    for (const [id, r] of this.pools.get(kind)!) if (r.members.includes(m)) return this.view(kind, id, r);
    return undefined;
  }

  private view(kind: PoolKind, id: number, r: PoolRecord) {
    const member_details: Record<string, unknown> = Object.create(null);
    for (const m of r.members) member_details[m] = this.memberDetails(kind, m);
    const recipients = r.recipients.map((rid) => ({ recipient_id: rid, ...this.recipients?.describe(rid) }));
    const v: Record<string, unknown> = { pool_id: id, name: r.name, members: [...r.members], member_details: luaTable(member_details), recipients };
    if (kind === 'host') v.policy = '';
    return v;
  }

  private memberDetails(kind: PoolKind, m: string): Record<string, unknown> {
    switch (kind) {
      case 'host': {
        const p = parseMember(m);
        return p ? memberDetails(p) : { name: m };
      }
      case 'interface':
        return { name: this.ctx.interfaces().find((i) => String(i.ifid) === m)?.ifname ?? m };
      case 'network':
        return { local_network_id: this.localNetworks().indexOf(m) };
      default:
        return { name: m };
    }
  }

  // ── members ──────────────────────────────────────────────────────────

  private localNetworks(): string[] {
    const out: string[] = [];
    for (const i of this.ctx.interfaces()) for (const n of i.engine.localNetworks) if (!out.includes(n)) out.push(n);
    return out;
  }

  /** The member as stored, or null when it is not a valid member of the kind (pools:is_valid_member). */
  private canonical(kind: PoolKind, member: string): string | null {
    switch (kind) {
      case 'host':
        return parseMember(member)?.member ?? null;
      case 'interface':
        return this.ctx.interfaces().some((i) => String(i.ifid) === member) ? member : null;
      case 'network':
        return this.localNetworks().includes(member) ? member : null;
      case 'active_monitoring':
        return this.ctx.amHosts?.().includes(member) ? member : null;
      case 'snmp_device':
        return this.ctx.snmpDevices?.().includes(member) ? member : null;
      default:
        return null;
    }
  }

  private canonicalAll(kind: PoolKind, members: readonly string[]): string[] {
    const out: string[] = [];
    for (const m of members) {
      const c = this.canonical(kind, m);
      if (c === null) throw new PoolError(`'${m}' is not a valid ${POOL_INSTANCE_KEY[kind]} pool member`);
      if (!out.includes(c)) out.push(c);
    }
    if (out.length > MAX_POOL_MEMBERS) throw new PoolError(`a pool holds at most ${MAX_POOL_MEMBERS} members`);
    return out;
  }

  private checkRecipients(ids: readonly number[]): number[] {
    const out: number[] = [];
    for (const id of ids) {
      if (!this.recipients?.exists(id)) throw new PoolError(`recipient ${id} does not exist`);
      if (!out.includes(id)) out.push(id);
    }
    return out;
  }

  private ownerOf(kind: PoolKind, member: string): number | undefined {
    for (const [id, r] of this.pools.get(kind)!) if (r.members.includes(member)) return id;
    return undefined;
  }

  // ── changes ──────────────────────────────────────────────────────────

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** pools:add_pool: the new pool's id. Refused (PoolError): a duplicate name, a bad or already bound member, an unknown recipient, too many pools. */
  add(kind: PoolKind, name: string, members: readonly string[], recipients: readonly number[]): Promise<number> {
    return this.serial(async () => {
      if (DEFAULT_ONLY.has(kind)) throw new PoolError(`${POOL_INSTANCE_KEY[kind]} pools have only their default pool`);
      const pools = this.pools.get(kind)!;
      if (pools.size >= MAX_POOLS) throw new PoolError(`at most ${MAX_POOLS} ${POOL_INSTANCE_KEY[kind]} pools`);
      if (!name.trim()) throw new PoolError('the pool name is empty');
      if ([...pools.values()].some((r) => r.name === name)) throw new PoolError(`a pool named '${name}' exists`);
      const ms = this.canonicalAll(kind, members);
      for (const m of ms) if (this.ownerOf(kind, m) !== undefined) throw new PoolError(`'${m}' is in pool ${this.ownerOf(kind, m)}`);
      const rs = this.checkRecipients(recipients);
      const id = await this.assignId(kind);
      await this.persist(kind, id, { name, members: ms, recipients: rs });
      return id;
    });
  }

  /**
   * pools:edit_pool: a new name, members and recipients (undefined: kept).
   * The default pool keeps its name and has no members. Refused when the
   * pool does not exist or as add.
   */
  edit(kind: PoolKind, id: number, name: string | undefined, members: readonly string[] | undefined, recipients: readonly number[] | undefined): Promise<void> {
    return this.serial(async () => {
      const pools = this.pools.get(kind)!;
      const cur = pools.get(id);
      if (!cur) throw new PoolError(`pool ${id} does not exist`);
      if (name !== undefined && [...pools.entries()].some(([other, r]) => other !== id && r.name === name)) throw new PoolError(`a pool named '${name}' exists`);
      let ms = cur.members;
      if (members !== undefined) {
        ms = this.canonicalAll(kind, members);
        for (const m of ms) {
          const owner = this.ownerOf(kind, m);
          if (owner !== undefined && owner !== id) throw new PoolError(`'${m}' is in pool ${owner}`);
        }
      }
      const rs = recipients !== undefined ? this.checkRecipients(recipients) : cur.recipients;
      await this.persist(kind, id, { name: name ?? cur.name, members: ms, recipients: rs });
    });
  }

  /** pools:delete_pool: false when it does not exist. A builtin pool comes back at once (ntopng recreates it at the next call). */
  delete(kind: PoolKind, id: number): Promise<boolean> {
    return this.serial(async () => {
      if (!this.pools.get(kind)!.has(id)) return false;
      this.pools.get(kind)!.delete(id);
      await this.db.remove(`${kind}/${id}`);
      await this.ensureBuiltins();
      if (kind === 'host') this.applyHostPools();
      return true;
    });
  }

  /** delete/pools.lua: every pool of every kind, the id counters too; the builtin pools are created again. */
  deleteAll(): Promise<void> {
    return this.serial(async () => {
      for (const k of POOL_KINDS) {
        for (const id of this.pools.get(k)!.keys()) await this.db.remove(`${k}/${id}`);
        this.pools.get(k)!.clear();
        this.next.delete(k);
        await this.db.remove(`${k}/next`);
      }
      await this.ensureBuiltins();
      this.applyHostPools();
    });
  }

  /**
   * Binds a host pool member (bind/host/pool/member.lua). To the default
   * pool: the member leaves whatever pool held it. To another pool: refused
   * when the member is in a different pool (`boundTo` says which).
   */
  bindMember(kind: PoolKind, member: string, id: number, oldMember?: string): Promise<void> {
    return this.serial(async () => {
      const m = this.canonical(kind, member);
      if (m === null) throw new PoolError(`'${member}' is not a valid ${POOL_INSTANCE_KEY[kind]} pool member`);
      if (oldMember !== undefined) {
        const o = this.canonical(kind, oldMember);
        if (o !== null) await this.unbind(kind, o);
      }
      if (id === DEFAULT_POOL_ID) {
        await this.unbind(kind, m);
        return;
      }
      const target = this.pools.get(kind)!.get(id);
      if (!target) throw new PoolError(`pool ${id} does not exist`);
      const owner = this.ownerOf(kind, m);
      if (owner === id) return;
      if (owner !== undefined) throw new PoolError(`'${m}' is already bound to pool ${owner}`, owner);
      if (target.members.length >= MAX_POOL_MEMBERS) throw new PoolError(`a pool holds at most ${MAX_POOL_MEMBERS} members`);
      await this.persist(kind, id, { ...target, members: [...target.members, m] });
    });
  }

  private async unbind(kind: PoolKind, m: string): Promise<void> {
    const owner = this.ownerOf(kind, m);
    if (owner === undefined) return;
    const r = this.pools.get(kind)!.get(owner)!;
    await this.persist(kind, owner, { ...r, members: r.members.filter((x) => x !== m) });
  }

  /** host pools reuse the lowest free id; the other kinds count up (ntopng's two _assign_pool_id) */
  private async assignId(kind: PoolKind): Promise<number> {
    const pools = this.pools.get(kind)!;
    if (kind === 'host') {
      let id = MIN_ASSIGNED_POOL_ID;
      while (pools.has(id)) id++;
      if (id >= MAX_POOLS) throw new PoolError(`host pool ids are below ${MAX_POOLS}`);
      return id;
    }
    const id = Math.max(this.next.get(kind) ?? MIN_ASSIGNED_POOL_ID, MIN_ASSIGNED_POOL_ID);
    this.next.set(kind, id + 1);
    await this.db.put(`${kind}/next`, id + 1);
    return id;
  }

  private async persist(kind: PoolKind, id: number, r: PoolRecord): Promise<void> {
    // the default pool's name and members cannot change (pools:_persist)
    const rec = id === DEFAULT_POOL_ID ? { name: DEFAULT_POOL_NAME, members: [], recipients: r.recipients } : r;
    const before = this.pools.get(kind)!.get(id)?.members;
    await this.db.put(`${kind}/${id}`, rec);
    this.pools.get(kind)!.set(id, rec);
    // the engines re-assign every host (a stall of ms): only when membership changed, not for a name or recipients
    if (kind === 'host' && (before?.length !== rec.members.length || rec.members.some((m, i) => m !== before[i]))) this.applyHostPools();
  }

  private async ensureBuiltins(): Promise<void> {
    const builtin = this.recipients?.builtinIds() ?? [];
    for (const k of POOL_KINDS) {
      if (!this.pools.get(k)!.has(DEFAULT_POOL_ID)) await this.persist(k, DEFAULT_POOL_ID, { name: DEFAULT_POOL_NAME, members: [], recipients: [...builtin] });
    }
    if (!this.pools.get('host')!.has(JAILED_POOL_ID)) await this.persist('host', JAILED_POOL_ID, { name: JAILED_POOL_NAME, members: [], recipients: [...builtin] });
  }

  /** Sends the host pools' members to every engine (one table, swapped whole) and rebuilds the alert-side matcher. */
  applyHostPools(): void {
    const members = [];
    const matcher = new NetPoolMatcher();
    let macs = false;
    for (const [id, r] of this.pools.get('host')!) {
      if (id === DEFAULT_POOL_ID) continue;
      for (const m of r.members) {
        const p = parseMember(m);
        if (!p) continue;
        members.push(engineMember(p, id));
        matcher.add(p, id);
        if (p.kind === 'mac') macs = true;
      }
    }
    this.hostMatcher = matcher;
    this.hostMacs = macs;
    for (const i of this.ctx.interfaces()) i.engine.setHostPools(members);
  }

  // ── export / import (pool_import_export.lua) ─────────────────────────

  /** Every pool of every kind, by ntopng's instance key, as get_all_pools answers them. */
  exportConfig(): Record<string, unknown[]> {
    const out: Record<string, unknown[]> = {};
    for (const k of POOL_KINDS) out[POOL_INSTANCE_KEY[k]] = this.all(k);
    return out;
  }

  /**
   * Adds the file's pools, as ntopng's import does: recipients by name; a
   * pool whose name exists in its kind (the default pools, the jail) gets
   * the members and recipients it lacks, another is added. Answers what was
   * not applied (an unknown recipient or kind, a bad or taken member …).
   */
  async importConfig(conf: Record<string, unknown>): Promise<string[]> {
    const failedItems: string[] = [];
    const kindOf = new Map(POOL_KINDS.map((k) => [POOL_INSTANCE_KEY[k], k]));
    for (const [key, list] of Object.entries(conf)) {
      const kind = kindOf.get(key);
      if (!kind || !Array.isArray(list)) {
        if (!(Array.isArray(list) && !list.length)) failedItems.push(`'${key.slice(0, 40)}': not a pool kind with a list of pools`);
        continue;
      }
      for (const x of list) {
        const p = (x && typeof x === 'object' ? x : {}) as { name?: unknown; members?: unknown; recipients?: unknown };
        const label = `${key} pool ${JSON.stringify(String(p.name ?? '?')).slice(0, 80)}`;
        if (typeof p.name !== 'string' || !Array.isArray(p.members) || !p.members.every((m) => typeof m === 'string')) {
          failedItems.push(`${label}: name and members are required`);
          continue;
        }
        const rids: number[] = [];
        for (const r of Array.isArray(p.recipients) ? p.recipients : []) {
          const name = (r as { recipient_name?: unknown })?.recipient_name;
          const id = typeof name === 'string' ? this.recipientByName(name) : undefined;
          if (id === undefined) failedItems.push(`${label}: recipient ${JSON.stringify(String(name ?? '?')).slice(0, 80)} does not exist`);
          else rids.push(id);
        }
        const members = p.members as string[];
        const existing = [...this.pools.get(kind)!.entries()].find(([, r]) => r.name === p.name);
        try {
          if (!existing) {
            await this.add(kind, p.name, members, rids);
            continue;
          }
          const [id, cur] = existing;
          // pools:add_to_pool: the members not bound anywhere yet, the recipients it lacks
          for (const m of members) {
            try {
              if (id === DEFAULT_POOL_ID || DEFAULT_ONLY.has(kind)) throw new PoolError('the default pool has no members');
              if (kind === 'host') await this.bindMember(kind, m, id);
              else await this.edit(kind, id, undefined, [...this.pools.get(kind)!.get(id)!.members, m], undefined);
            } catch (e) {
              failedItems.push(`${label}: member '${m.slice(0, 64)}': ${(e as Error).message}`);
            }
          }
          const missing = rids.filter((r) => !cur.recipients.includes(r));
          if (missing.length) await this.edit(kind, id, undefined, undefined, [...this.pools.get(kind)!.get(id)!.recipients, ...missing]);
        } catch (e) {
          failedItems.push(`${label}: ${(e as Error).message}`);
        }
      }
    }
    return failedItems;
  }

  private recipientByName(name: string): number | undefined {
    for (let id = 0; id < 64; id++) if (this.recipients?.describe(id)?.recipient_name === name) return id;
    return undefined;
  }

  // ── PoolDirectory ────────────────────────────────────────────────────

  poolOf(family: AlertFamily | 'flow', ifid: number, entityVal: string): number {
    const kind = FAMILY_POOL_KIND[family];
    if (DEFAULT_ONLY.has(kind)) return DEFAULT_POOL_ID;
    if (kind === 'host') {
      const at = entityVal.lastIndexOf('@');
      const ip = at < 0 ? entityVal : entityVal.slice(0, at);
      const vlan = at < 0 ? 0 : Number(entityVal.slice(at + 1)) || 0;
      // a MAC member decides first: the engine knows the host's MAC
      if (this.hostMacs) {
        const h = this.ctx.interfaces().find((i) => i.ifid === ifid)?.engine.host(ip, vlan);
        if (h) return h.host_pool_id;
      }
      return this.hostMatcher.lookup(ip, vlan) ?? DEFAULT_POOL_ID;
    }
    const m = this.canonical(kind, entityVal);
    return (m !== null && this.ownerOf(kind, m)) || DEFAULT_POOL_ID;
  }

  recipientsOf(kind: PoolKind, poolId: number): number[] {
    const pools = this.pools.get(kind)!;
    return [...(pools.get(poolId) ?? pools.get(DEFAULT_POOL_ID))?.recipients ?? []];
  }

  /** the pools (any kind) a recipient is bound to, with ntopng's instance key (get/recipient/pools.lua) */
  poolsOfRecipient(recipientId: number) {
    const out: Record<string, unknown>[] = [];
    for (const k of POOL_KINDS) for (const p of this.all(k)) if ((p.recipients as { recipient_id: number }[]).some((r) => r.recipient_id === recipientId)) out.push({ ...p, key: POOL_INSTANCE_KEY[k] });
    return out;
  }

  poolsBoundTo(recipientId: number): number {
    let n = 0;
    for (const k of POOL_KINDS) for (const r of this.pools.get(k)!.values()) if (r.recipients.includes(recipientId)) n++;
    return n;
  }

  bindRecipientEverywhere(recipientId: number): Promise<void> {
    return this.serial(async () => {
      for (const k of POOL_KINDS) for (const [id, r] of this.pools.get(k)!) if (!r.recipients.includes(recipientId)) await this.persist(k, id, { ...r, recipients: [...r.recipients, recipientId] });
    });
  }

  unbindRecipient(recipientId: number): Promise<void> {
    return this.serial(async () => {
      for (const k of POOL_KINDS) for (const [id, r] of this.pools.get(k)!) if (r.recipients.includes(recipientId)) await this.persist(k, id, { ...r, recipients: r.recipients.filter((x) => x !== recipientId) });
    });
  }
}

function isRecord(v: unknown): v is PoolRecord {
  const r = v as PoolRecord;
  return !!r && typeof r.name === 'string' && Array.isArray(r.members) && Array.isArray(r.recipients);
}

export type { ParsedMember };
