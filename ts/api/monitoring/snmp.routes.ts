// Route declarations of the SNMP family (pro): devices and interface status.
import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { CREDENTIAL_PARAMS, addDevice, changeInterfaceStatus, deleteDevice, deviceInterfaces, deviceSystem, editDevice, listDevices } from './snmp.js';

const creds = Object.fromEntries(CREDENTIAL_PARAMS.map((k) => [k, str(256).optional()]));

export const snmpRoutes: RouteDef[] = [
  route({
    path: 'add/snmp/device', versions: ['v1', 'v2'], pro: true, method: 'GET', perm: 'admin',
    summary:
      "Adds an SNMP device that answers a GET of its system group with these credentials (v1/v2c: communities; v3: the user in snmp_read_community, level, MD5/SHA, DES/AES, 8+ character passphrases): cidr 32 the one address or name, cidr 24 every responder of its /24 not added yet. rsp.added_devices [{ip, name}]. -10 already added, -11 no answer, -12 none in the /24, -9 a name that does not resolve, -4 not a host, -5 bad credentials",
    params: { snmp_host: str(256).optional(), cidr: str(8).optional(), ...creds },
    errors: [RC.NOT_GRANTED, RC.INVALID_HOST, RC.INVALID_ARGUMENTS, RC.NAME_RESOLUTION_FAILED, RC.SNMP_DEVICE_ALREADY_ADDED, RC.SNMP_DEVICE_UNREACHABLE, RC.NO_SNMP_DEVICE_DISCOVERED],
    handler: (ctx, p) => addDevice(ctx, p as Record<string, string>),
  }),
  route({
    path: 'edit/snmp/device/device', versions: ['v1', 'v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'New credentials for an SNMP device (checked against it first): -22 not a device, -11 no answer with them',
    params: { snmp_host: str(256).optional(), ...creds },
    errors: [RC.NOT_GRANTED, RC.INVALID_HOST, RC.INVALID_ARGUMENTS, RC.NAME_RESOLUTION_FAILED, RC.SNMP_DEVICE_ALREADY_ADDED, RC.SNMP_DEVICE_UNREACHABLE, RC.NO_SNMP_DEVICE_DISCOVERED, RC.SNMP_UNKNOWN_DEVICE],
    handler: (ctx, p) => editDevice(ctx, p as Record<string, string>),
  }),
  route({
    path: 'delete/snmp/device', versions: ['v2'], pro: true, method: 'GET', perm: 'admin',
    summary: 'Stops monitoring an SNMP device (-5 not a device)',
    params: { host: str(64).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS],
    handler: (ctx, p) => deleteDevice(ctx, p),
  }),
  route({
    path: 'change/snmp/device/interface/status', versions: ['v1', 'v2'], pro: true, method: 'GET', perm: 'admin',
    summary: "SET IF-MIB ifAdminStatus.<snmp_port_idx> of a device to up (1) or down (2) with its write community (v3: its user); empty rsp on success, -26 when the device refuses or does not answer, -4 not a device",
    params: { host: str(64).optional(), snmp_admin_status: str(8).optional(), snmp_port_idx: int(1, 2 ** 31 - 1).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_HOST, RC.INVALID_ARGUMENTS, RC.SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED],
    handler: (ctx, p) => changeInterfaceStatus(ctx, p),
  }),
  route({
    path: 'get/snmp/device/list', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: "The SNMP devices: ip, name (sysName, else the name it was added by), version, added (epoch), sysDescr, sysObjectID",
    params: {},
    errors: [RC.NOT_GRANTED],
    handler: (ctx) => listDevices(ctx),
  }),
  route({
    path: 'get/snmp/device/system', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary: "The system group (sysName, sysDescr, sysObjectID, sysContact, sysLocation, sysUpTime) each device answered when added or edited; `host` one device (-22 not a device)",
    params: { host: str(64).optional() },
    errors: [RC.NOT_GRANTED, RC.SNMP_UNKNOWN_DEVICE],
    handler: (ctx, p) => deviceSystem(ctx, p),
  }),
  route({
    path: 'get/snmp/device/interfaces', versions: ['v2'], pro: true, method: 'GET', perm: 'user',
    summary:
      "Each device's interfaces as the last 5-minute poll read them (IF-MIB ifTable and ifXTable): index, name, descr, alias, type, speed (bit/s), admin_status, oper_status, the byte, unicast, non-unicast, discard and error counters (64-bit where the device has them: hc), with the poll's epoch and error; `host` one device (-22 not a device)",
    params: { host: str(64).optional() },
    errors: [RC.NOT_GRANTED, RC.SNMP_UNKNOWN_DEVICE],
    handler: (ctx, p) => deviceInterfaces(ctx, p),
  }),
];
