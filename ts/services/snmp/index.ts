// ⑧ SNMP devices (ntopng's pro SNMP family, first part): devices added by
// address or /24 discovery with v1, v2c or v3 credentials, each answering a
// GET of its system group before it is kept; edited, deleted, listed; an
// interface's admin status set with the write credentials. Kept in LMDB
// (db 'snmp_devices', keyed by address), exported and imported with the
// configuration. Polling of interface counters comes later.
import { isIP } from 'node:net';

import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import type { ConfigStore } from '../config-store.js';
import { OID, snmpGet, snmpSetInt, type SnmpCredentials, type SnmpOptions } from './client.js';

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

/** Probes a /24 this many addresses at a time. */
const DISCOVERY_PARALLEL = 128;

export class SnmpDevices {
  private readonly db: Database<SnmpDevice, string>;

  constructor(store: ConfigStore, private readonly opts: SnmpOptions = {}) {
    this.db = store.db<SnmpDevice>('snmp_devices');
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

const EMPTY_SYSTEM: SnmpSystem = { sysName: '', sysDescr: '', sysObjectID: '', sysContact: '', sysLocation: '', sysUpTime: 0 };
const now = () => Math.floor(Date.now() / 1000);

function cmpIp(a: string, b: string): number {
  const n = (s: string) => (isIP(s) === 4 ? s.split('.').reduce((x, y) => x * 256 + Number(y), 0) : Infinity);
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
