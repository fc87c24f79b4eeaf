// Route declarations of Device/MAC Address Tracking (spec "Device
// exclusions", ntopng Pro's pro/rest/v2 device/exclusion.lua family).
// Administrators only; -2 unknown interface, -5 bad MAC / status.
import { bool, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { addDevices, deleteDevice, editDevice, getDevices } from './device-exclusions.js';

const { INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR } = RC;
const errors = [INVALID_INTERFACE, NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR];
const common = { versions: ['v2' as const], pro: true, perm: 'admin' as const, ifid: true, errors };

export const deviceExclusionRoutes: RouteDef[] = [
  route({
    ...common, path: 'get/device/exclusion', method: 'GET',
    summary: 'The known devices: [{mac_address: {mac, alias}, last_ip, manufacturer, first_seen: {timestamp, data}, last_seen, status: allowed | denied, trigger_alert}]',
    params: {}, handler: (ctx) => getDevices(ctx),
  }),
  route({
    ...common, path: 'add/device/exclusion', method: 'POST',
    summary: 'Add devices as allowed: mac_list (comma-separated MACs), trigger_alerts (an alert when one disconnects)',
    params: { mac_list: str(65536), trigger_alerts: bool().optional() }, handler: (ctx, p) => addDevices(ctx, p),
  }),
  route({
    ...common, path: 'edit/device/exclusion', method: 'POST',
    summary: "Edit a device (mac, or 'all'): mac_alias, mac_status (allowed: no alert when it connects; denied: an alert each time), trigger_alerts",
    params: { mac: str(32).optional(), mac_alias: str(128).optional(), mac_status: str(16).optional(), trigger_alerts: bool().optional() },
    handler: (ctx, p) => editDevice(ctx, p),
  }),
  route({
    ...common, path: 'delete/device/exclusion', method: 'POST',
    summary: "Forget a device (device: a MAC, or 'all'): it is a new device again when next seen",
    params: { device: str(32) }, handler: (ctx, p) => deleteDevice(ctx, p),
  }),
];
