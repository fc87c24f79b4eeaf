// Device/MAC Address Tracking (ntopng Pro's device exclusions, pro v2
// add/edit/delete/get device/exclusion.lua): the known devices of an
// interface with their status (allowed: no alert when they connect;
// denied: the connected alert each time), disconnection alert and alias.
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { parseMac, type DeviceChecks, type DeviceRow } from '../../services/checks/device-checks.js';

function devicesOf(ctx: ApiCtx): DeviceChecks {
  const d = ctx.deps.devices;
  if (!d) throw new ApiError(RC.INTERNAL_ERROR, 'device tracking is not running');
  return d;
}

const when = (t: number) => ({ timestamp: t, data: t ? new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19) : '' });

/** A MAC parameter, or null for 'all' (or none, where every device is meant). */
function macOrAll(v: string | undefined, name: string): string | null {
  if (v === undefined || v === 'all') return null;
  const m = parseMac(v);
  if (!m) throw new ApiError(RC.INVALID_ARGUMENTS, `${name} must be a MAC address (aa:bb:cc:dd:ee:ff) or 'all'`);
  return m;
}

/** get/device/exclusion.lua: the table's rows (mac_address, last_ip, manufacturer, first_seen, last_seen, status, trigger_alert). */
export function getDevices(ctx: ApiCtx) {
  return devicesOf(ctx)
    .list(ctx.iface.ifid)
    .map((r: DeviceRow) => ({
      mac_address: { mac: r.mac, ...(r.alias ? { alias: r.alias } : {}) },
      last_ip: r.last_ip,
      // no manufacturer (OUI) database yet
      manufacturer: '',
      first_seen: when(r.first_seen),
      last_seen: when(r.last_seen),
      status: r.status,
      trigger_alert: r.trigger_alert,
    }));
}

/** add/device/exclusion.lua: mac_list (comma, space or newline separated); each becomes an allowed device. */
export async function addDevices(ctx: ApiCtx, p: { mac_list: string; trigger_alerts?: boolean }) {
  const macs: string[] = [];
  for (const raw of p.mac_list.split(/[\s,]+/)) {
    if (!raw) continue;
    const m = parseMac(raw);
    if (!m) throw new ApiError(RC.INVALID_ARGUMENTS, `'${raw.slice(0, 64)}' is not a MAC address (aa:bb:cc:dd:ee:ff)`);
    macs.push(m);
  }
  if (!macs.length) throw new ApiError(RC.INVALID_ARGUMENTS, 'mac_list names no MAC address');
  await devicesOf(ctx).add(ctx.iface.ifid, macs, p.trigger_alerts ?? false, Math.floor(Date.now() / 1000));
  track(ctx, 'add_device_exclusion', { ifid: ctx.iface.ifid, macs });
  return [];
}

/** edit/device/exclusion.lua: mac (or 'all'), with any of mac_alias, mac_status (allowed | denied), trigger_alerts. */
export async function editDevice(ctx: ApiCtx, p: { mac?: string; mac_alias?: string; mac_status?: string; trigger_alerts?: boolean }) {
  const mac = macOrAll(p.mac, 'mac');
  if (p.mac_status !== undefined && p.mac_status !== 'allowed' && p.mac_status !== 'denied') throw new ApiError(RC.INVALID_ARGUMENTS, "mac_status must be 'allowed' or 'denied'");
  if (p.mac_alias !== undefined && !/^[^\s<>"'&]{0,64}$/.test(p.mac_alias)) throw new ApiError(RC.INVALID_ARGUMENTS, 'mac_alias must be one word of at most 64 characters');
  const ok = await devicesOf(ctx).edit(ctx.iface.ifid, mac, { alias: p.mac_alias, status: p.mac_status as 'allowed' | 'denied' | undefined, trigger_alert: p.trigger_alerts });
  if (!ok) throw new ApiError(RC.INVALID_ARGUMENTS, `device ${mac} is not known on this interface`);
  track(ctx, 'edit_device_exclusion', { ifid: ctx.iface.ifid, mac: mac ?? 'all' });
  return [];
}

/** delete/device/exclusion.lua: device = a MAC or 'all'; a forgotten device is new again when next seen. */
export async function deleteDevice(ctx: ApiCtx, p: { device: string }) {
  const mac = macOrAll(p.device, 'device');
  const ok = await devicesOf(ctx).forget(ctx.iface.ifid, mac);
  if (!ok) throw new ApiError(RC.INVALID_ARGUMENTS, `device ${mac} is not known on this interface`);
  track(ctx, 'delete_device_exclusion', { ifid: ctx.iface.ifid, device: mac ?? 'all' });
  return [];
}
