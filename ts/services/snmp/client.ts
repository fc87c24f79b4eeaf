// ⑧ SNMP requests (the net-snmp package): a session per request for v1,
// v2c (community) and v3 (user, level, MD5/SHA authentication, DES/AES
// privacy), GET of scalars and SET of an integer, as promises.
import snmp from 'net-snmp';

export type SnmpVersion = 0 | 1 | 2;
export type SnmpLevel = 'noAuthNoPriv' | 'authNoPriv' | 'authPriv';

/** A device's credentials as ntopng takes them (v3: the read community field names the user). */
export interface SnmpCredentials {
  version: SnmpVersion;
  read_community: string;
  write_community: string;
  level: SnmpLevel | '';
  auth_protocol: 'MD5' | 'SHA' | '';
  auth_passphrase: string;
  privacy_protocol: 'DES' | 'AES' | '';
  privacy_passphrase: string;
}

export interface SnmpOptions {
  port?: number;
  timeoutMs?: number;
  retries?: number;
}

/** SNMPv2-MIB system group and IF-MIB ifAdminStatus (RFC 3418, RFC 2863) */
export const OID = {
  sysDescr: '1.3.6.1.2.1.1.1.0',
  sysObjectID: '1.3.6.1.2.1.1.2.0',
  sysUpTime: '1.3.6.1.2.1.1.3.0',
  sysContact: '1.3.6.1.2.1.1.4.0',
  sysName: '1.3.6.1.2.1.1.5.0',
  sysLocation: '1.3.6.1.2.1.1.6.0',
  ifAdminStatus: '1.3.6.1.2.1.2.2.1.7',
} as const;

function session(ip: string, c: SnmpCredentials, write: boolean, o: SnmpOptions): snmp.Session {
  const common = { port: o.port ?? 161, timeout: o.timeoutMs ?? 2000, retries: o.retries ?? 1, transport: (ip.includes(':') ? 'udp6' : 'udp4') as 'udp4' | 'udp6' };
  if (c.version !== 2) {
    return snmp.createSession(ip, write ? c.write_community : c.read_community, { ...common, version: c.version === 0 ? snmp.Version1 : snmp.Version2c });
  }
  const level = c.level === 'authPriv' ? snmp.SecurityLevel.authPriv : c.level === 'authNoPriv' ? snmp.SecurityLevel.authNoPriv : snmp.SecurityLevel.noAuthNoPriv;
  const user: snmp.User = { name: c.read_community, level };
  if (level !== snmp.SecurityLevel.noAuthNoPriv) {
    user.authProtocol = c.auth_protocol === 'MD5' ? snmp.AuthProtocols.md5 : snmp.AuthProtocols.sha;
    user.authKey = c.auth_passphrase;
  }
  if (level === snmp.SecurityLevel.authPriv) {
    user.privProtocol = c.privacy_protocol === 'DES' ? snmp.PrivProtocols.des : snmp.PrivProtocols.aes;
    user.privKey = c.privacy_passphrase;
  }
  return snmp.createV3Session(ip, user, common as snmp.SessionOptionsV3);
}

/** A value as text: strings and OIDs (Buffers as UTF-8). */
export const textOf = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : v === undefined || v === null ? '' : String(v));

/** One request on a session of its own, closed when it answers; rejects with the reason. */
function request<T>(ip: string, c: SnmpCredentials, write: boolean, o: SnmpOptions, run: (s: snmp.Session, done: (err: Error | null, v?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let s: snmp.Session;
    try {
      s = session(ip, c, write, o);
    } catch (e) {
      return reject(e);
    }
    s.on('error', () => {});
    run(s, (err, v) => {
      s.close();
      if (err) reject(err);
      else resolve(v as T);
    });
  });
}

/** GET of scalars: oid → value (text for strings and OIDs, numbers as numbers). */
export function snmpGet(ip: string, c: SnmpCredentials, oids: string[], o: SnmpOptions = {}): Promise<Record<string, string | number>> {
  return request(ip, c, false, o, (s, done) =>
    s.get(oids, (err, vbs) => {
      if (err) return done(err);
      const out: Record<string, string | number> = {};
      for (const vb of vbs ?? []) if (!snmp.isVarbindError(vb)) out[vb.oid] = typeof vb.value === 'number' ? vb.value : textOf(vb.value);
      done(null, out);
    }),
  );
}

/** SET of one INTEGER (with the write community, or the v3 user). */
export function snmpSetInt(ip: string, c: SnmpCredentials, oid: string, value: number, o: SnmpOptions = {}): Promise<void> {
  return request(ip, c, true, o, (s, done) =>
    s.set([{ oid, type: snmp.ObjectType.Integer, value }], (err, vbs) => {
      if (err) return done(err);
      const bad = (vbs ?? []).find((vb) => snmp.isVarbindError(vb));
      done(bad ? new Error(snmp.varbindError(bad)) : null);
    }),
  );
}

/** A value as a number: Counter64 arrives as 8 big-endian bytes, strings as text. */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (Buffer.isBuffer(v)) {
    let n = 0;
    for (const b of v) n = n * 256 + b;
    return n;
  }
  return Number(v) || 0;
}

/** A table walked by columns (GETBULK for v2c/v3, GETNEXT for v1): index → column → value. */
export function snmpTable(ip: string, c: SnmpCredentials, oid: string, o: SnmpOptions = {}): Promise<Record<string, Record<string, unknown>>> {
  return request(ip, c, false, o, (s, done) => s.table(oid, 20, (err, t) => done(err ?? null, (t ?? {}) as Record<string, Record<string, unknown>>)));
}

