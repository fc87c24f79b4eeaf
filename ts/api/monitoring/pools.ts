// The pool endpoints (ntopng 5.x pools_rest_utils.lua): add, edit, delete
// and get pools of each kind, every pool at once, the pools of a recipient,
// and host pool members.
import { track } from '../activity.js';
import { ApiError, RC, SuccessAnswer } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { PoolError, POOL_INSTANCE_KEY, type Pools } from '../../services/pools/pools.js';
import { POOL_KINDS, type PoolKind } from '../../services/pools/types.js';

export function poolsOf(ctx: ApiCtx): Pools {
  const p = ctx.deps.pools;
  if (!p) throw new ApiError(RC.INTERNAL_ERROR, 'pools are not running');
  return p;
}

/** pools:parse_members: the comma-separated list as is ('' → none) */
const members = (s: string) => (s === '' ? [] : s.split(','));

/** pools:parse_recipients: comma-separated ids, what is not a number left out */
const recipients = (s: string | undefined) =>
  s === undefined ? undefined : s.split(',').flatMap((x) => (/^\s*\d{1,5}\s*$/.test(x) ? [Number(x)] : []));

/** pool_members is required (ntopng: `not members` → -5) but '' is a pool without members */
function membersParam(ctx: ApiCtx, p: AddPoolParams): string[] {
  if (p.pool_members !== undefined) return members(p.pool_members);
  if (ctx.raw && Object.hasOwn(ctx.raw, 'pool_members')) return [];
  throw new ApiError(RC.INVALID_ARGUMENTS, 'pool_members is required (comma-separated, may be empty)');
}

const refuse = (rc: number) => (e: unknown) => {
  if (e instanceof PoolError) throw new ApiError(rc, e.message);
  throw e;
};

export interface AddPoolParams {
  pool_name: string;
  pool_members?: string;
  recipients?: string;
  confset_id?: number;
}

export async function addPool(ctx: ApiCtx, kind: PoolKind, p: AddPoolParams) {
  // v1's configuration set: one set exists here (id 0), as in ntopng since it kept a single one
  if (p.confset_id !== undefined && p.confset_id !== 0) throw new ApiError(RC.ADD_POOL_FAILED, `configuration set ${p.confset_id} does not exist (only 0)`);
  const id = await poolsOf(ctx).add(kind, p.pool_name, membersParam(ctx, p), recipients(p.recipients) ?? []).catch(refuse(RC.ADD_POOL_FAILED));
  track(ctx, 'add_pool', { pool_name: p.pool_name, members: p.pool_members, pool_key: POOL_INSTANCE_KEY[kind] });
  return new SuccessAnswer('POOL_ADDED_SUCCESSFULLY', { pool_id: id });
}

export async function editPool(ctx: ApiCtx, kind: PoolKind, p: AddPoolParams & { pool: number }) {
  // ntopng's edit_pool stores the recipients given: none (missing or empty) unbinds every one
  await poolsOf(ctx).edit(kind, p.pool, p.pool_name, membersParam(ctx, p), recipients(p.recipients) ?? []).catch(refuse(RC.EDIT_POOL_FAILED));
  track(ctx, 'edit_pool', { pool_id: p.pool, pool_name: p.pool_name, members: p.pool_members, pool_key: POOL_INSTANCE_KEY[kind] });
  return new SuccessAnswer('POOL_EDITED_SUCCESSFULLY', []);
}

export async function deletePool(ctx: ApiCtx, kind: PoolKind, id: number) {
  const pools = poolsOf(ctx);
  const cur = pools.get(kind, id);
  if (!cur || !(await pools.delete(kind, id))) throw new ApiError(RC.POOL_NOT_FOUND, `pool ${id} does not exist`);
  track(ctx, 'delete_pool', { pool_id: id, pool_name: cur.name, pool_key: POOL_INSTANCE_KEY[kind] });
  return new SuccessAnswer('POOL_DELETED_SUCCESSFULLY', []);
}

/** get/<kind>/pools.lua: every pool of the kind, or `{[pool]: pool}` */
export function getPools(ctx: ApiCtx, kind: PoolKind, id: number | undefined) {
  const pools = poolsOf(ctx);
  if (id === undefined) return pools.all(kind);
  const one = pools.get(kind, id);
  if (!one) throw new ApiError(RC.POOL_NOT_FOUND, `pool ${id} does not exist`);
  return luaKeyed(id, one);
}

/**
 * A Lua table with the one key `k`, as ntopng's JSON encoder (dkjson) writes
 * it: an array (nulls before) when k is 1-10, else an object keyed by the
 * number's text.
 */
function luaKeyed(k: number, v: unknown): unknown {
  if (k >= 1 && k <= 10) return [...Array<null>(k - 1).fill(null), v];
  const o: Record<string, unknown> = Object.create(null);
  o[String(k)] = v;
  return o;
}

/** get/pools.lua: the pools of every kind, each with its kind's `key` */
export function allPools(ctx: ApiCtx) {
  const pools = poolsOf(ctx);
  // ntopng lists its pool classes in file-name order
  const kinds = [...POOL_KINDS].sort((a, b) => `${POOL_INSTANCE_KEY[a]}_pools`.localeCompare(`${POOL_INSTANCE_KEY[b]}_pools`));
  return kinds.flatMap((k) => pools.all(k).map((p) => ({ ...p, key: POOL_INSTANCE_KEY[k] })));
}

export async function deleteAllPools(ctx: ApiCtx) {
  await poolsOf(ctx).deleteAll();
  track(ctx, 'delete_all_pools', {});
  return [];
}

export function recipientPools(ctx: ApiCtx, recipientId: number) {
  return poolsOf(ctx).poolsOfRecipient(recipientId);
}

/** get/host/pool/members.lua: the members' details, each with its `member` */
export function hostPoolMembers(ctx: ApiCtx, id: number | undefined) {
  const pool = id === undefined ? undefined : poolsOf(ctx).get('host', id);
  if (!pool) throw new ApiError(RC.POOL_NOT_FOUND, id === undefined ? 'pool is required' : `pool ${id} does not exist`);
  return Object.values(pool.member_details as Record<string, Record<string, unknown>>);
}

export async function bindHostMember(ctx: ApiCtx, p: { pool: number; member: string; action?: string; old_member?: string }) {
  const pools = poolsOf(ctx);
  await pools.bindMember('host', p.member, p.pool, p.action === 'edit' ? p.old_member : undefined).catch(refuse(RC.BIND_POOL_MEMBER_FAILED));
  track(ctx, 'bind_pool_member', { pool_id: p.pool, pool_name: pools.get('host', p.pool)?.name ?? '', member: p.member, pool_key: 'host' });
  return new SuccessAnswer('POOL_MEMBER_BOUND_SUCCESSFULLY', []);
}

/** get/host/pool_by_member.lua: the member's pool ([] when in none); pool_name_only: just its id and name */
export function hostPoolByMember(ctx: ApiCtx, p: { member: string; pool_name_only?: boolean }) {
  const pool = poolsOf(ctx).poolByMember('host', p.member);
  if (!pool) return [];
  return p.pool_name_only ? { pool_id: pool.pool_id, name: pool.name } : pool;
}
