// Route declarations of the pools family (v1 and v2): per kind add / edit /
// delete / get, every pool at once, the pools of a recipient, host pool
// members. SNMP device pools live under the pro prefix.
import { int, str, toBool } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { DEFAULT_ONLY } from '../../services/pools/pools.js';
import { POOL_KINDS, type PoolKind } from '../../services/pools/types.js';
import * as pools from './pools.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, ADD_POOL_FAILED, EDIT_POOL_FAILED, POOL_NOT_FOUND, BIND_POOL_MEMBER_FAILED, INTERNAL_ERROR } = RC;
const V12 = ['v1', 'v2'] as const;

/** the kind's words in the path */
const WORD: Record<PoolKind, string> = {
  interface: 'interface',
  host: 'host',
  network: 'network',
  snmp_device: 'snmp/device',
  active_monitoring: 'active_monitoring',
  flow: 'flow',
  mac: 'mac',
  host_pool: 'host_pool',
  system: 'system',
};

const poolFields = {
  pool_name: str(256),
  /** required, but may be empty (no members): checked by the handler, as the parameter layer drops empty values */
  pool_members: str(1 << 20).optional(),
  /** v2: recipient ids, comma-separated */
  recipients: str(4096).optional(),
  /** v1 (ntopng 4): the configuration set */
  confset_id: int(0, 65535).optional(),
};

const perKind = (k: PoolKind): RouteDef[] => {
  const w = WORD[k];
  const pro = k === 'snmp_device';
  const label = `${k.replace('_', ' ')} pool`;
  const out: RouteDef[] = [];
  if (!DEFAULT_ONLY.has(k)) {
    out.push(
      route({
        path: `add/${w}/pool`, versions: [...V12], pro, method: 'POST', perm: 'admin',
        summary: `Add a ${label}: pool_name, pool_members (comma-separated), recipients (ids, comma-separated) → {pool_id}`,
        params: poolFields, errors: [NOT_GRANTED, INVALID_ARGUMENTS, ADD_POOL_FAILED, INTERNAL_ERROR],
        handler: (ctx, p) => pools.addPool(ctx, k, p),
      }),
      route({
        path: `delete/${w}/pool`, versions: [...V12], pro, method: 'POST', perm: 'admin',
        summary: `Delete a ${label}`, params: { pool: int(0, 65535) },
        errors: [NOT_GRANTED, INVALID_ARGUMENTS, POOL_NOT_FOUND, INTERNAL_ERROR],
        handler: (ctx, p) => pools.deletePool(ctx, k, p.pool),
      }),
    );
  }
  out.push(
    route({
      path: `edit/${w}/pool`, versions: [...V12], pro, method: 'POST', perm: 'admin',
      summary: DEFAULT_ONLY.has(k) ? `Edit the recipients of the ${k.replace('_', ' ')} default pool (pool 0)` : `Edit a ${label}: name, members and recipients`,
      params: { pool: int(0, 65535), ...poolFields }, errors: [NOT_GRANTED, INVALID_ARGUMENTS, EDIT_POOL_FAILED, INTERNAL_ERROR],
      handler: (ctx, p) => pools.editPool(ctx, k, p),
    }),
  );
  // snmp/device and active_monitoring are also spelt get/<kind>/pool.lua
  for (const get of k === 'snmp_device' || k === 'active_monitoring' ? ['pools', 'pool'] : ['pools']) {
    out.push(
      route({
        path: `get/${w}/${get}`, versions: [...V12], pro, method: 'GET', perm: 'user',
        summary: `Every ${label}, or one (pool)`, params: { pool: int(0, 65535).optional() }, errors: [POOL_NOT_FOUND, INTERNAL_ERROR],
        handler: (ctx, p) => pools.getPools(ctx, k, p.pool),
      }),
    );
  }
  return out;
};

export const poolRoutes: RouteDef[] = [
  ...POOL_KINDS.flatMap(perKind),
  route({
    path: 'get/pools', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'Every pool of every kind, each with its kind as `key`', params: {}, errors: [],
    handler: (ctx) => pools.allPools(ctx),
  }),
  route({
    path: 'delete/pools', versions: [...V12], method: 'POST', perm: 'admin',
    summary: 'Delete every pool of every kind (the default pools and the jail come back empty)', params: {}, errors: [],
    handler: (ctx) => pools.deleteAllPools(ctx),
  }),
  ...['recipient/pools', 'get/recipient/pools'].map((path) =>
    route({
      path, versions: [...V12], method: 'GET', perm: 'user',
      summary: 'The pools (any kind) a recipient is bound to', params: { recipient_id: int(0, 32767) }, errors: [INVALID_ARGUMENTS],
      handler: (ctx, p) => pools.recipientPools(ctx, p.recipient_id),
    }),
  ),
  route({
    path: 'get/host/pool/members', versions: [...V12], method: 'GET', perm: 'user',
    summary: "A host pool's members with their details (name, vlan, type mac|net|ip, hostkey)", params: { pool: int(0, 65535).optional() },
    errors: [POOL_NOT_FOUND],
    handler: (ctx, p) => pools.hostPoolMembers(ctx, p.pool),
  }),
  route({
    path: 'bind/host/pool/member', versions: [...V12], method: 'POST', perm: 'admin',
    summary: 'Bind a member (MAC, address or CIDR, @vlan) to a host pool; pool 0 removes it from its pool; action=edit replaces old_member',
    params: { pool: int(0, 65535), member: str(64), action: str(16).optional(), old_member: str(64).optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, BIND_POOL_MEMBER_FAILED],
    handler: (ctx, p) => pools.bindHostMember(ctx, p),
  }),
  route({
    path: 'get/host/pool_by_member', versions: [...V12], method: 'GET', perm: 'user',
    summary: 'The host pool a member is bound to ([] when none)', params: { member: str(64), pool_name_only: toBool().optional() },
    errors: [INVALID_ARGUMENTS],
    handler: (ctx, p) => pools.hostPoolByMember(ctx, p),
  }),
];
