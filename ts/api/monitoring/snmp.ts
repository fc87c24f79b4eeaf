// ⑨ SNMP devices (pro): add (one address or a /24), edit, delete, list,
// their system group, and an interface's admin status (services/snmp).
import { isIP } from 'node:net';

import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { parseCredentials, type SnmpCredentials, type SnmpDevices } from '../../services/snmp/index.js';
import { resolveName } from './lookups.js';

/** the add/edit parameters (all text, as ntopng's) */
export const CREDENTIAL_PARAMS = [
  'snmp_read_community', 'snmp_write_community', 'snmp_version', 'snmp_level', 'snmp_auth_protocol',
  'snmp_auth_passphrase', 'snmp_privacy_protocol', 'snmp_privacy_passphrase',
] as const;
type Params = Partial<Record<(typeof CREDENTIAL_PARAMS)[number] | 'snmp_host' | 'cidr' | 'host', string>>;

const devices = (ctx: ApiCtx): SnmpDevices => {
  if (!ctx.deps.snmp) throw new ApiError(RC.INTERNAL_ERROR, 'SNMP devices are not running');
  return ctx.deps.snmp;
};

function credentials(p: Params): SnmpCredentials {
  try {
    return parseCredentials(p);
  } catch (e) {
    throw new ApiError(RC.INVALID_ARGUMENTS, (e as Error).message);
  }
}

/** snmp_host: an address as given, or a name resolved (-9); anything else is not a host (-4). */
async function target(host: string | undefined, what = 'snmp_host'): Promise<{ ip: string; name: string }> {
  const h = host?.trim() ?? '';
  if (!h) throw new ApiError(RC.INVALID_ARGUMENTS, `${what} is required`);
  if (isIP(h)) return { ip: h, name: '' };
  // a DNS name: labels of letters, digits and hyphens
  if (h.length > 253 || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(h)) {
    throw new ApiError(RC.INVALID_HOST, `${what}: '${h.slice(0, 64)}' is neither an address nor a host name`);
  }
  return { ip: await resolveName(h), name: h };
}

/** add/snmp/device: rsp.added_devices [{ip, name (when added by name)}] */
export async function addDevice(ctx: ApiCtx, p: Params) {
  const c = credentials(p);
  const cidr = p.cidr?.trim() || '32';
  if (cidr !== '24' && cidr !== '32') throw new ApiError(RC.INVALID_ARGUMENTS, "cidr must be '24' or '32'");
  const t = await target(p.snmp_host);
  const added = await devices(ctx).add(t.ip, t.name, c, cidr === '24' ? 24 : 32);
  track(ctx, 'add_snmp_device', { snmp_host: p.snmp_host, cidr, snmp_version: c.version, added: added.map((a) => a.ip) });
  return { added_devices: added };
}

/** edit/snmp/device/device: new credentials for a device already added */
export async function editDevice(ctx: ApiCtx, p: Params) {
  const c = credentials(p);
  const t = await target(p.snmp_host);
  await devices(ctx).edit(t.ip, c);
  track(ctx, 'edit_snmp_device', { snmp_host: t.ip, snmp_version: c.version });
  return [];
}

export async function deleteDevice(ctx: ApiCtx, p: Params) {
  const ip = p.host?.trim() ?? '';
  if (!isIP(ip)) throw new ApiError(RC.INVALID_ARGUMENTS, 'host must be the address of an SNMP device');
  if (!(await devices(ctx).delete(ip))) throw new ApiError(RC.INVALID_ARGUMENTS, `${ip} is not a monitored SNMP device`);
  track(ctx, 'delete_snmp_device', { host: ip });
  return [];
}

/** change/snmp/device/interface/status: empty rsp on success, -26 when the device refuses */
export async function changeInterfaceStatus(ctx: ApiCtx, p: { host?: string; snmp_admin_status?: string; snmp_port_idx?: number }) {
  const ip = p.host?.trim() ?? '';
  if (!isIP(ip)) throw new ApiError(RC.INVALID_HOST, 'host must be the address of an SNMP device');
  const st = p.snmp_admin_status?.trim().toLowerCase();
  if (st !== 'up' && st !== 'down') throw new ApiError(RC.INVALID_ARGUMENTS, "snmp_admin_status must be 'up' or 'down'");
  if (p.snmp_port_idx === undefined) throw new ApiError(RC.INVALID_ARGUMENTS, 'snmp_port_idx (the interface index) is required');
  await devices(ctx).setAdminStatus(ip, p.snmp_port_idx, st === 'up');
  track(ctx, 'snmp_interface_status', { host: ip, snmp_port_idx: p.snmp_port_idx, snmp_admin_status: st });
  return [];
}

/** get/snmp/device/list: the devices, `name` their sysName (else the name they were added by, else the address) as ntopng's source lists show them */
export function listDevices(ctx: ApiCtx) {
  return devices(ctx)
    .list()
    .map((d) => ({ ip: d.ip, name: d.system.sysName || d.name || d.ip, version: d.version, added: d.added, sysDescr: d.system.sysDescr, sysObjectID: d.system.sysObjectID }));
}

/** One device (`host`; -22 when it is none) or all of them. */
function picked(ctx: ApiCtx, host: string | undefined) {
  const h = host?.trim();
  const all = devices(ctx).list();
  const pick = h ? all.filter((d) => d.ip === h) : all;
  if (h && !pick.length) throw new ApiError(RC.SNMP_UNKNOWN_DEVICE, `${h.slice(0, 64)} is not a monitored SNMP device`);
  return pick;
}

/** get/snmp/device/system: the system group of one device (host) or of all */
export function deviceSystem(ctx: ApiCtx, p: { host?: string }) {
  return picked(ctx, p.host).map((d) => ({ ip: d.ip, ...d.system }));
}

/** get/snmp/device/interfaces: each device's interfaces as its last poll read them (polled: epoch s, 0 never; error: why the last poll failed) */
export function deviceInterfaces(ctx: ApiCtx, p: { host?: string }) {
  const snmp = devices(ctx);
  return picked(ctx, p.host).map((d) => ({ ip: d.ip, ...(snmp.interfaces(d.ip) ?? { polled: 0, error: '', interfaces: [] }) }));
}
