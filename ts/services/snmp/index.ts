// ⑧ SNMP devices (ntopng's pro SNMP family, first part): devices added by
// address or /24 discovery with v1, v2c or v3 credentials, each answering a
// GET of its system group before it is kept; edited, deleted, listed; an
// interface's admin status set with the write credentials. Kept in LMDB
// (db 'snmp_devices', keyed by address), exported and imported with the
// configuration. Every 5 minutes (ntopng's SNMP polling step) each device's
// system group, ifTable and ifXTable are read: 64-bit counters where the device has
// them, the step's deltas written as the snmp_if:traffic / packets / errors
// series (system interface), and ntopng's SNMP behavioural checks raised
// from two polls (portAlerts below): operational status change, discards or
// errors increased, errors over 5 % of the packets, traffic started or stopped.
import { isIP } from 'node:net';

import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import { scoreToSeverity } from '../alerts/catalogue.js';
import { SYSTEM_IFID, type AlertInput } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import { ipv4ToNumber } from '../cidr.js';
import { StepPoller } from '../step-poller.js';
import { SYSTEM_TS_IFID } from '../timeseries/schemas.js';
import type { Point } from '../timeseries/store.js';
import { OID, num, snmpGet, snmpSetInt, snmpTable, textOf, type SnmpCredentials, type SnmpOptions } from './client.js';

export type { SnmpCredentials } from './client.js';

/** The system group as the device answered it when added or edited. */
export interface SnmpSystem {
  sysName: string;
  sysDescr: string;
  sysObjectID: string;
  sysContact: string;
  sysLocation: string;
  /** hundredths of a second, as sysUpTime */
  sysUpTime: number;
}

export interface SnmpDevice extends SnmpCredentials {
  ip: string;
  /** the symbolic name it was added by ('' when added by address) */
  name: string;
  /** epoch seconds */
  added: number;
  system: SnmpSystem;
}

/** One interface as the last poll read it (IF-MIB; counters: 64-bit where the device has ifXTable's). */
export interface SnmpInterface {
  index: number;
  name: string;
  descr: string;
  alias: string;
  type: number;
  /** bit/s (ifHighSpeed × 10^6 where given, else ifSpeed) */
  speed: number;
  /** 1 up, 2 down, 3 testing (ifAdminStatus); oper adds 4 unknown, 5 dormant, 6 notPresent, 7 lowerLayerDown */
  admin_status: number;
  oper_status: number;
  in_bytes: number;
  out_bytes: number;
  in_ucast: number;
  out_ucast: number;
  in_nucast: number;
  out_nucast: number;
  in_discards: number;
  out_discards: number;
  in_errors: number;
  out_errors: number;
  /** the byte and unicast counters are ifXTable's 64-bit ones */
  hc: boolean;
}

interface PollState {
  /** epoch seconds of the last poll that answered */
  polled: number;
  interfaces: Map<number, SnmpInterface>;
  /** per interface, the bytes (in + out) of the last step (absent: not known) */
  traffic: Map<number, number>;
  error: string;
  /** sysUpTime the last poll read (hundredths of a second) */
  uptime: number;
}

/** What the poller writes to and raises into (absent: nothing is written or raised). */
export interface SnmpSinks {
  points?: { write(p: Iterable<Point>): void; stepClosed?(ifid: number, boundary: number, clock?: boolean): void } | null;
  alerts?: { emit(a: AlertInput): void } | null;
}

/** ntopng's SNMP polling step (the snmp_if schemas' step) */
export const POLL_STEP = 300;
/** other_alert_keys.lua: alert_port_status_change (OTHER_BASE_KEY + 28) */
export const ALERT_PORT_STATUS_CHANGE = 4096 + 28;
/** alert_snmp_device_reset (OTHER_BASE_KEY + 34), alert_snmp_device_polling_error (+ 95) */
export const ALERT_DEVICE_RESET = 4096 + 34;
export const ALERT_POLLING_ERROR = 4096 + 95;
/** alert_port_errors (+ 25), alert_snmp_interface_errors (+ 80), alert_snmp_device_traffic_change (+ 81) */
export const ALERT_PORT_ERRORS = 4096 + 25;
export const ALERT_INTERFACE_ERRORS = 4096 + 80;
export const ALERT_TRAFFIC_CHANGE = 4096 + 81;
/** ntopng's Interface Errors Exceeded: errors over 5 % of the packets */
const ERRORS_PCT = 5;
const SCORE_WARNING = 50;

const IF_TABLE = '1.3.6.1.2.1.2.2', IF_X_TABLE = '1.3.6.1.2.1.31.1.1';
const MOD32 = 2 ** 32;

/** Probes a /24 this many addresses at a time. */
const DISCOVERY_PARALLEL = 128;

export class SnmpDevices {
  private readonly db: Database<SnmpDevice, string>;
  private readonly state = new Map<string, PollState>();
  private readonly poller = new StepPoller('snmp_devices', POLL_STEP, async (now) => {
    for (const d of this.list()) await this.poll(d, now);
  });

  constructor(
    store: ConfigStore,
    private readonly opts: SnmpOptions = {},
    private readonly sinks: SnmpSinks = {},
  ) {
    this.db = store.db<SnmpDevice>('snmp_devices');
  }

  /** Where the poll's series go (the timeseries store, once connected). */
  setPoints(points: SnmpSinks['points']): this {
    this.sinks.points = points;
    return this;
  }

  /** Polls every device each POLL_STEP seconds of wall time, on the step's boundaries. */
  start(): this {
    this.poller.start();
    return this;
  }

  stop(): void {
    this.poller.stop();
  }

  /** One poll of every device, one after the other (a call during a poll waits for it). */
  pollAll(now?: number): Promise<void> {
    return this.poller.poll(now);
  }

  /** The interfaces of a device as its last poll read them (null: never polled). */
  interfaces(ip: string): { polled: number; error: string; interfaces: SnmpInterface[] } | null {
    const st = this.state.get(ip);
    if (!st) return null;
    return { polled: st.polled, error: st.error, interfaces: [...st.interfaces.values()].sort((a, b) => a.index - b.index) };
  }

  private async poll(dev: SnmpDevice, now: number): Promise<void> {
    let d = dev;
    const prev = this.state.get(d.ip);
    // A poll that fails raises alert_snmp_device_polling_error once (the first failure after an
    // answer, or the first poll); the state keeps the last interfaces read.
    const failed = (reason: string) => {
      if (!prev?.error) this.sinks.alerts?.emit(deviceAlert(d, ALERT_POLLING_ERROR, now, { reason }));
      this.state.set(d.ip, { polled: prev?.polled ?? 0, interfaces: prev?.interfaces ?? new Map(), traffic: new Map(), error: reason, uptime: prev?.uptime ?? 0 });
    };
    // the system group first: a device imported (not probed) gets its name, a renamed one the new one
    const system = await this.probe(d.ip, d);
    if (!system) return failed('no answer to a GET of the system group');
    if (system.sysName !== d.system.sysName || system.sysDescr !== d.system.sysDescr || system.sysLocation !== d.system.sysLocation || system.sysContact !== d.system.sysContact) {
      d = { ...d, system };
      if (this.db.get(d.ip)) await this.db.put(d.ip, d);
    }
    // sysUpTime went back: the device restarted (its counters started again)
    const restarted = !!prev?.uptime && system.sysUpTime < prev.uptime;
    if (restarted) this.sinks.alerts?.emit(deviceAlert(d, ALERT_DEVICE_RESET, now, {}));
    let rows: Record<string, Record<string, unknown>>;
    try {
      rows = await snmpTable(d.ip, d, IF_TABLE, this.opts);
    } catch (e) {
      return failed((e as Error).message);
    }
    // ifXTable: absent on v1-only agents (no Counter64 in SNMPv1)
    const x = d.version === 0 ? {} : await snmpTable(d.ip, d, IF_X_TABLE, this.opts).catch(() => ({}) as Record<string, Record<string, unknown>>);
    const interfaces = new Map<number, SnmpInterface>();
    for (const [key, r] of Object.entries(rows)) {
      const index = Number(key);
      const xr = (x as Record<string, Record<string, unknown>>)[key] ?? {};
      const hc = xr['6'] !== undefined && xr['10'] !== undefined;
      const g = (row: Record<string, unknown>, col: number) => num(row[String(col)]);
      interfaces.set(index, {
        index,
        name: textOf(xr['1']) || textOf(r['2']),
        descr: textOf(r['2']),
        alias: textOf(xr['18']),
        type: g(r, 3),
        speed: xr['15'] !== undefined && g(xr, 15) > 0 ? g(xr, 15) * 1e6 : g(r, 5),
        admin_status: g(r, 7),
        oper_status: g(r, 8),
        in_bytes: hc ? g(xr, 6) : g(r, 10),
        out_bytes: hc ? g(xr, 10) : g(r, 16),
        in_ucast: hc && xr['7'] !== undefined ? g(xr, 7) : g(r, 11),
        out_ucast: hc && xr['11'] !== undefined ? g(xr, 11) : g(r, 17),
        // non-unicast: ifXTable's multicast + broadcast where given, else ifTable's (deprecated) NUcast
        in_nucast: hc && xr['8'] !== undefined ? g(xr, 8) + g(xr, 9) : g(r, 12),
        out_nucast: hc && xr['12'] !== undefined ? g(xr, 12) + g(xr, 13) : g(r, 18),
        in_discards: g(r, 13),
        out_discards: g(r, 19),
        in_errors: g(r, 14),
        out_errors: g(r, 20),
        hc,
      });
    }
    const traffic = new Map<number, number>();
    this.state.set(d.ip, { polled: now, interfaces, traffic, error: '', uptime: system.sysUpTime });
    // no deltas across a restart (the counters started again) or from a poll that failed
    if (!prev || !prev.polled || restarted || prev.error) return;
    const tstamp = Math.floor(now / POLL_STEP) * POLL_STEP;
    const points: Point[] = [];
    for (const cur of interfaces.values()) {
      const old = prev.interfaces.get(cur.index);
      if (!old) continue;
      if (old.oper_status !== cur.oper_status) this.sinks.alerts?.emit(statusAlert(d, cur, now));
      const step = stepDeltas(old, cur);
      if (step.bytes !== null) traffic.set(cur.index, step.bytes);
      for (const a of portAlerts(step, prev.traffic.get(cur.index))) this.sinks.alerts?.emit(portAlert(d, cur, now, a));
      const tags = `device=${d.ip},if_index=${cur.index}`;
      const put = (schema: string, metrics: [string, number | null][]) => {
        if (metrics.some(([, v]) => v === null)) return;
        for (const [metric, value] of metrics) points.push({ ifid: SYSTEM_TS_IFID, schema, tags, metric, tstamp, value: value! });
      };
      put('snmp_if:traffic', [['bytes_sent', delta(old.out_bytes, cur.out_bytes, cur.hc)], ['bytes_rcvd', delta(old.in_bytes, cur.in_bytes, cur.hc)]]);
      put('snmp_if:packets', [
        ['ucast_sent', delta(old.out_ucast, cur.out_ucast, cur.hc)], ['nucast_sent', delta(old.out_nucast, cur.out_nucast, cur.hc)],
        ['ucast_rcvd', delta(old.in_ucast, cur.in_ucast, cur.hc)], ['nucast_rcvd', delta(old.in_nucast, cur.in_nucast, cur.hc)],
      ]);
      put('snmp_if:errors', [
        ['packets_disc', delta(old.in_discards + old.out_discards, cur.in_discards + cur.out_discards, false)],
        ['packets_err', delta(old.in_errors + old.out_errors, cur.in_errors + cur.out_errors, false)],
      ]);
    }
    if (points.length && this.sinks.points) {
      this.sinks.points.write(points);
      this.sinks.points.stepClosed?.(SYSTEM_TS_IFID, tstamp, false);
    }
  }

  list(): SnmpDevice[] {
    return [...this.db.getRange()].map((e) => e.value).sort((a, b) => cmpIp(a.ip, b.ip));
  }

  get(ip: string): SnmpDevice | undefined {
    return this.db.get(ip);
  }

  /** GET of the system group: the device's answer, or null when it does not answer these credentials. */
  async probe(ip: string, c: SnmpCredentials, o: SnmpOptions = this.opts): Promise<SnmpSystem | null> {
    try {
      const v = await snmpGet(ip, c, [OID.sysDescr, OID.sysObjectID, OID.sysUpTime, OID.sysContact, OID.sysName, OID.sysLocation], o);
      if (!Object.keys(v).length) return null;
      const s = (oid: string) => String(v[oid] ?? '');
      return { sysName: s(OID.sysName), sysDescr: s(OID.sysDescr), sysObjectID: s(OID.sysObjectID), sysContact: s(OID.sysContact), sysLocation: s(OID.sysLocation), sysUpTime: Number(v[OID.sysUpTime] ?? 0) };
    } catch {
      return null;
    }
  }

  /**
   * add/snmp/device: one address (cidr 32) or every responder of its /24
   * (cidr 24, IPv4) not added yet. -10 the address is already added, -11 it
   * does not answer, -12 no address of the /24 answered.
   */
  async add(ip: string, name: string, c: SnmpCredentials, cidr: 24 | 32): Promise<{ ip: string; name?: string }[]> {
    if (cidr === 32) {
      if (this.db.get(ip)) throw new ApiError(RC.SNMP_DEVICE_ALREADY_ADDED, `${ip} is already a monitored SNMP device`);
      const system = await this.probe(ip, c);
      if (!system) throw new ApiError(RC.SNMP_DEVICE_UNREACHABLE, `${ip} does not answer SNMP with these credentials`);
      await this.db.put(ip, { ip, name, ...c, added: now(), system });
      return [name ? { ip, name } : { ip }];
    }
    if (isIP(ip) !== 4) throw new ApiError(RC.INVALID_ARGUMENTS, 'cidr 24 scans an IPv4 /24: snmp_host must be an IPv4 address');
    const base = ip.split('.').slice(0, 3).join('.');
    const targets = Array.from({ length: 254 }, (_, i) => `${base}.${i + 1}`).filter((a) => !this.db.get(a));
    const found: { ip: string; system: SnmpSystem }[] = [];
    for (let i = 0; i < targets.length; i += DISCOVERY_PARALLEL) {
      const part = targets.slice(i, i + DISCOVERY_PARALLEL);
      const answers = await Promise.all(part.map((a) => this.probe(a, c, { ...this.opts, retries: 0 })));
      answers.forEach((system, k) => system && found.push({ ip: part[k], system }));
    }
    if (!found.length) throw new ApiError(RC.NO_SNMP_DEVICE_DISCOVERED, `no address of ${base}.0/24 answered SNMP with these credentials`);
    for (const f of found) await this.db.put(f.ip, { ip: f.ip, name: '', ...c, added: now(), system: f.system });
    return found.map((f) => ({ ip: f.ip }));
  }

  /** edit/snmp/device/device: new credentials for a device (-22 unknown), checked against it first (-11). */
  async edit(ip: string, c: SnmpCredentials): Promise<void> {
    const d = this.db.get(ip);
    if (!d) throw new ApiError(RC.SNMP_UNKNOWN_DEVICE, `${ip} is not a monitored SNMP device`);
    const system = await this.probe(ip, c);
    if (!system) throw new ApiError(RC.SNMP_DEVICE_UNREACHABLE, `${ip} does not answer SNMP with these credentials`);
    await this.db.put(ip, { ...d, ...c, system });
  }

  /** delete/snmp/device: false when it was not a device. */
  async delete(ip: string): Promise<boolean> {
    if (!this.db.get(ip)) return false;
    await this.db.remove(ip);
    this.state.delete(ip);
    return true;
  }

  /** change/snmp/device/interface/status: SET IF-MIB ifAdminStatus.<index> to up (1) or down (2). */
  async setAdminStatus(ip: string, index: number, up: boolean): Promise<void> {
    const d = this.db.get(ip);
    if (!d) throw new ApiError(RC.INVALID_HOST, `${ip} is not a monitored SNMP device`);
    if (d.version !== 2 && !d.write_community) throw new ApiError(RC.SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED, `${ip} has no write community`);
    try {
      await snmpSetInt(ip, d, `${OID.ifAdminStatus}.${index}`, up ? 1 : 2, this.opts);
    } catch (e) {
      throw new ApiError(RC.SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED, `SET ifAdminStatus.${index} on ${ip}: ${(e as Error).message}`);
    }
  }

  /** The configuration export: ntopng's device fields by address. */
  exportConfig(): Record<string, Record<string, string>> {
    return Object.fromEntries(this.list().map((d) => [d.ip, toConfig(d)]));
  }

  /** The configuration import: devices given by their fields (not probed: a device down now is still configured); what was not taken. */
  async importConfig(conf: Record<string, unknown>): Promise<string[]> {
    const skipped: string[] = [];
    for (const [key, v] of Object.entries(conf)) {
      try {
        const p = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
        const ip = String(p.snmp_host ?? key);
        if (!isIP(ip)) throw new Error('not an address');
        const c = parseCredentials(p);
        const old = this.db.get(ip);
        await this.db.put(ip, { ip, name: '', added: now(), system: old?.system ?? EMPTY_SYSTEM, ...c });
      } catch (e) {
        skipped.push(`SNMP device '${key.slice(0, 120)}': ${(e as Error).message}`);
      }
    }
    return skipped;
  }

  async reset(): Promise<void> {
    await this.db.clearAsync();
  }
}

/** alert_port_status_change.new(device_ip, device_name, if_index, interface_name, status): the new operational status */
function statusAlert(d: SnmpDevice, i: SnmpInterface, tstamp: number): AlertInput {
  const name = d.system.sysName || d.name;
  return {
    family: 'snmp_device',
    ifid: SYSTEM_IFID,
    entityVal: d.ip,
    alertId: ALERT_PORT_STATUS_CHANGE,
    subtype: String(i.index),
    tstamp,
    score: SCORE_WARNING,
    severity: scoreToSeverity(SCORE_WARNING),
    fields: { ip: d.ip, port: i.index, name, port_name: i.name },
    json: { device: d.ip, device_name: name, interface: i.index, interface_name: i.name, status: i.oper_status },
  };
}

/** The counters' growth between two polls of an interface (null: a counter went back, not a wrap). */
export interface StepDeltas {
  bytes: number | null;
  packets: number | null;
  errors: number | null;
  discards: number | null;
}

export function stepDeltas(old: SnmpInterface, cur: SnmpInterface): StepDeltas {
  const sum = (a: (number | null)[]) => (a.some((x) => x === null) ? null : (a as number[]).reduce((x, y) => x + y, 0));
  return {
    bytes: sum([delta(old.in_bytes, cur.in_bytes, cur.hc), delta(old.out_bytes, cur.out_bytes, cur.hc)]),
    packets: sum([delta(old.in_ucast, cur.in_ucast, cur.hc), delta(old.out_ucast, cur.out_ucast, cur.hc), delta(old.in_nucast, cur.in_nucast, cur.hc), delta(old.out_nucast, cur.out_nucast, cur.hc)]),
    errors: delta(old.in_errors + old.out_errors, cur.in_errors + cur.out_errors, false),
    discards: delta(old.in_discards + old.out_discards, cur.in_discards + cur.out_discards, false),
  };
}

/** a 32-bit counter that went round wraps; a 64-bit one going back is a reset (null) */
function delta(a: number, b: number, wide: boolean): number | null {
  return b >= a ? b - a : wide ? null : b + MOD32 - a;
}

export type PortAlert =
  | { alertId: typeof ALERT_PORT_ERRORS }
  | { alertId: typeof ALERT_INTERFACE_ERRORS; errors: number }
  | { alertId: typeof ALERT_TRAFFIC_CHANGE; curr_traffic: number; prev_traffic: number };

/**
 * ntopng's SNMP behavioural checks on one interface's step (doc/src/alerts/
 * snmp_checks.rst): High Interface Discards/Errors — the discard or error
 * counters grew; Interface Errors Exceeded — the errors are over 5 % of the
 * packets (`errors`: that percentage, rounded to 0.01); Traffic Change
 * Detected — bytes after a step without, or none after a step with.
 */
export function portAlerts(step: StepDeltas, prevTraffic: number | undefined): PortAlert[] {
  const out: PortAlert[] = [];
  if ((step.errors ?? 0) > 0 || (step.discards ?? 0) > 0) out.push({ alertId: ALERT_PORT_ERRORS });
  if (step.errors !== null && step.packets !== null && step.errors > 0 && (step.errors * 100) / (step.packets + step.errors) > ERRORS_PCT) {
    out.push({ alertId: ALERT_INTERFACE_ERRORS, errors: Math.round((step.errors * 10000) / (step.packets + step.errors)) / 100 });
  }
  if (step.bytes !== null && prevTraffic !== undefined && (step.bytes === 0) !== (prevTraffic === 0)) {
    out.push({ alertId: ALERT_TRAFFIC_CHANGE, curr_traffic: step.bytes, prev_traffic: prevTraffic });
  }
  return out;
}

/** alert_port_errors.new / alert_snmp_interface_errors.new / alert_snmp_device_traffic_change.new (device, its name, the interface) */
function portAlert(d: SnmpDevice, i: SnmpInterface, tstamp: number, a: PortAlert): AlertInput {
  const name = d.system.sysName || d.name;
  const { alertId, ...extra } = a;
  return {
    family: 'snmp_device',
    ifid: SYSTEM_IFID,
    entityVal: d.ip,
    alertId,
    subtype: String(i.index),
    tstamp,
    score: SCORE_WARNING,
    severity: scoreToSeverity(SCORE_WARNING),
    fields: { ip: d.ip, port: i.index, name, port_name: i.name },
    json: { device: d.ip, device_name: name, interface: i.index, interface_name: i.name, ...extra },
  };
}

/** alert_snmp_device_reset.new(device_ip, device_name), alert_snmp_device_polling_error.new(device_ip, device_name, reason) */
function deviceAlert(d: SnmpDevice, alertId: number, tstamp: number, extra: Record<string, unknown>): AlertInput {
  const name = d.system.sysName || d.name;
  return {
    family: 'snmp_device',
    ifid: SYSTEM_IFID,
    entityVal: d.ip,
    alertId,
    subtype: '',
    tstamp,
    score: SCORE_WARNING,
    severity: scoreToSeverity(SCORE_WARNING),
    fields: { ip: d.ip, port: 0, name, port_name: '' },
    json: { device: d.ip, device_name: name, ...extra },
  };
}

const EMPTY_SYSTEM: SnmpSystem = { sysName: '', sysDescr: '', sysObjectID: '', sysContact: '', sysLocation: '', sysUpTime: 0 };
const now = () => Math.floor(Date.now() / 1000);

function cmpIp(a: string, b: string): number {
  const n = (s: string) => (isIP(s) === 4 ? ipv4ToNumber(s) : Infinity);
  return n(a) - n(b) || a.localeCompare(b);
}

function toConfig(d: SnmpDevice): Record<string, string> {
  return {
    snmp_host: d.ip,
    snmp_version: String(d.version),
    snmp_read_community: d.read_community,
    snmp_write_community: d.write_community,
    snmp_level: d.level,
    snmp_auth_protocol: d.auth_protocol,
    snmp_auth_passphrase: d.auth_passphrase,
    snmp_privacy_protocol: d.privacy_protocol,
    snmp_privacy_passphrase: d.privacy_passphrase,
  };
}

/**
 * The credentials of add/edit (and of an import), as ntopng checks them:
 * snmp_version 0 (v1), 1 (v2c) or 2 (v3); v1/v2c a read community; v3 a
 * level, the user in snmp_read_community, MD5 or SHA with an 8+ character
 * passphrase unless noAuthNoPriv, DES or AES with one for authPriv.
 * Throws an Error naming what is wrong (the API answers -5).
 */
export function parseCredentials(p: Record<string, unknown>): SnmpCredentials {
  const s = (k: string) => (p[k] === undefined || p[k] === null ? '' : String(p[k]));
  const v = s('snmp_version');
  if (!['0', '1', '2'].includes(v)) throw new Error("snmp_version must be '0' (v1), '1' (v2c) or '2' (v3)");
  const c: SnmpCredentials = {
    version: Number(v) as 0 | 1 | 2,
    read_community: s('snmp_read_community'),
    write_community: s('snmp_write_community'),
    level: '',
    auth_protocol: '',
    auth_passphrase: '',
    privacy_protocol: '',
    privacy_passphrase: '',
  };
  if (!c.read_community) throw new Error(c.version === 2 ? 'snmp_read_community (the SNMPv3 user) is required' : 'snmp_read_community is required');
  if (c.version !== 2) return c;
  c.write_community = '';
  const level = s('snmp_level');
  if (level !== 'noAuthNoPriv' && level !== 'authNoPriv' && level !== 'authPriv') throw new Error('snmp_level must be noAuthNoPriv, authNoPriv or authPriv');
  c.level = level;
  if (level === 'noAuthNoPriv') return c;
  const ap = s('snmp_auth_protocol').toUpperCase();
  if (ap !== 'MD5' && ap !== 'SHA') throw new Error('snmp_auth_protocol must be MD5 or SHA');
  if (s('snmp_auth_passphrase').length < 8) throw new Error('snmp_auth_passphrase needs 8 or more characters');
  c.auth_protocol = ap;
  c.auth_passphrase = s('snmp_auth_passphrase');
  if (level === 'authNoPriv') return c;
  const pp = s('snmp_privacy_protocol').toUpperCase();
  if (pp !== 'DES' && pp !== 'AES') throw new Error('snmp_privacy_protocol must be DES or AES');
  if (s('snmp_privacy_passphrase').length < 8) throw new Error('snmp_privacy_passphrase needs 8 or more characters');
  c.privacy_protocol = pp;
  c.privacy_passphrase = s('snmp_privacy_passphrase');
  return c;
}
