// ⑧ Users of the monitoring API, their sessions and API tokens, kept in the
// configuration store. Passwords are stored as scrypt hashes (slow, salted);
// a successful check is remembered for a few minutes as a digest keyed by a
// secret that lives only in this process (with the user record), so HTTP
// basic auth on every request pays neither scrypt nor a store read.
import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

import { ApiError, RC } from '../api/rc.js';
import { normalizeCidr } from './cidr.js';
import { LoginGuard } from './login-guard.js';
import type { ConfigStore } from './config-store.js';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, o: object) => Promise<Buffer>;

export type Role = 'administrator' | 'unprivileged';
export const LANGUAGES = ['en', 'it', 'de', 'jp', 'pt', 'cz'] as const;
export const ALL_NETWORKS = ['0.0.0.0/0', '::/0'];

export interface User {
  username: string;
  full_name: string;
  role: Role;
  /** CIDRs whose hosts and flows the user may see */
  allowed_networks: string[];
  /** ifname the user is restricted to; '' = every interface */
  allowed_interface: string;
  language: (typeof LANGUAGES)[number];
  allow_pcap_download: boolean;
  allow_historical_flows: boolean;
  allow_alerts: boolean;
  password: string;
  created: number;
}

interface Session {
  username: string;
  /** epoch ms (0, from older versions: ended) */
  expires: number;
  /** creation order (epoch ms × 1000 + a per-process count): which session is the oldest */
  created?: number;
}

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
/** Session lifetimes: ntopng's HTTP_SESSION_DURATION (default) and EXTENDED_HTTP_SESSION_DURATION (the most). */
export const DEFAULT_SESSION_SEC = 12 * 3600, MAX_SESSION_SEC = 7 * 24 * 3600;
/** Live sessions a user may hold: a new one ends the oldest. */
export const MAX_SESSIONS = 32;
const CACHE_MS = 5 * 60_000;

export async function hashPassword(pw: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(pw, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('hex')}$${hash.toString('hex')}`;
}

/** A well-formed hash no password matches in practice (its salt and digest are fixed zeros), with the current cost. */
const DUMMY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${'0'.repeat(32)}$${'0'.repeat(64)}`;

async function checkHash(stored: string, pw: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([0-9a-f]{32})\$([0-9a-f]{64})$/.exec(stored);
  if (!m) return false;
  const want = Buffer.from(m[5], 'hex');
  const got = await scryptAsync(pw, Buffer.from(m[4], 'hex'), 32, { N: +m[1], r: +m[2], p: +m[3], maxmem: SCRYPT.maxmem });
  return timingSafeEqual(want, got);
}

export function parseNetworkList(s: string): string[] | null {
  const out: string[] = [];
  for (const part of s.split(',')) {
    if (!part.trim()) continue;
    const c = normalizeCidr(part);
    if (!c) return null;
    out.push(c);
  }
  return out;
}

/** True when the list lets the user see every address. */
export const seesEverything = (nets: string[]) =>
  nets.some((n) => n === '0.0.0.0/0') && nets.some((n) => n === '::/0');

export interface UserFields {
  full_name?: string;
  password?: string;
  confirm_password?: string;
  user_role?: string;
  allowed_networks?: string;
  allowed_interface?: string;
  user_language?: string;
  allow_pcap_download?: string;
  allow_historical_flows?: string;
  allow_alerts?: string;
}

export class Users {
  /** wrong passwords are throttled per source and per user (the API's authentication asks it) */
  readonly guard = new LoginGuard();
  private readonly users;
  private readonly sessions;
  private readonly tokens;
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, { mac: Buffer; until: number; user: User }>();
  // Verified Authorization header values → user (the hot path of API
  // pollers: no decoding, no digest). The value is what the client sends on
  // every request; any change to users drops them all (generation).
  private readonly credentials = new Map<string, { until: number; gen: number; user: User }>();
  private gen = 0;

  /** `resolveInterface` maps an allowed_interface value (ifid or name) to an ifname, or null */
  constructor(
    store: ConfigStore,
    private readonly resolveInterface: (v: string) => string | null = (v) => v,
  ) {
    this.users = store.db<User>('users');
    this.sessions = store.db<Session>('sessions');
    this.tokens = store.db<{ username: string }>('tokens');
  }

  get(username: string): User | undefined {
    return this.users.get(username);
  }

  list(): User[] {
    return [...this.users.getRange()].map((e) => e.value);
  }

  get count(): number {
    return this.users.getKeysCount();
  }

  /**
   * First start: an administrator `admin`, with the given password or a
   * generated one (returned so the caller prints it once).
   */
  async ensureAdmin(password?: string): Promise<{ created: boolean; password?: string; generated: boolean }> {
    if (this.count > 0) return { created: false, generated: false };
    const generated = !password;
    const pw = password || randomBytes(12).toString('base64url');
    await this.add({ username: 'admin', full_name: 'Administrator', password: pw, confirm_password: pw, user_role: 'administrator' });
    return { created: true, password: pw, generated };
  }

  private validate(f: UserFields, base?: User): Omit<User, 'username' | 'password' | 'created'> {
    const bad = (what: string): never => {
      throw new ApiError(base ? RC.EDIT_USER_FAILED : RC.INVALID_ARGUMENTS, what);
    };
    const role = f.user_role ?? base?.role ?? 'unprivileged';
    if (role !== 'administrator' && role !== 'unprivileged') bad(`user_role must be unprivileged or administrator`);
    let nets = base?.allowed_networks ?? ALL_NETWORKS;
    if (f.allowed_networks !== undefined) {
      const parsed = parseNetworkList(f.allowed_networks);
      if (!parsed) bad(`allowed_networks must be a comma-separated list of CIDR networks`);
      nets = parsed!.length ? parsed! : ALL_NETWORKS;
    }
    let iface = base?.allowed_interface ?? '';
    if (f.allowed_interface !== undefined) {
      if (f.allowed_interface === '') iface = '';
      else {
        const r = this.resolveInterface(f.allowed_interface);
        if (r === null) bad(`allowed_interface '${f.allowed_interface}' is not a monitored interface`);
        iface = r!;
      }
    }
    const lang = f.user_language ?? base?.language ?? 'en';
    if (!(LANGUAGES as readonly string[]).includes(lang)) bad(`user_language must be one of ${LANGUAGES.join(', ')}`);
    const flag = (v: string | undefined, dflt: boolean) => (v === undefined ? dflt : v === '1' || v === 'true');
    return {
      full_name: f.full_name ?? base?.full_name ?? '',
      role: role as Role,
      allowed_networks: nets,
      allowed_interface: iface,
      language: lang as User['language'],
      allow_pcap_download: flag(f.allow_pcap_download, base?.allow_pcap_download ?? false),
      allow_historical_flows: flag(f.allow_historical_flows, base?.allow_historical_flows ?? role === 'administrator'),
      // ntopng's add/ntopng/user: a flag not given is off (administrators have every capability anyway)
      allow_alerts: flag(f.allow_alerts, base?.allow_alerts ?? role === 'administrator'),
    };
  }

  async add(f: UserFields & { username: string }): Promise<User> {
    if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(f.username)) {
      throw new ApiError(RC.INVALID_ARGUMENTS, 'username: 1-64 letters, digits, _ . @ -');
    }
    if (!f.password) throw new ApiError(RC.INVALID_ARGUMENTS, 'password is required');
    if (f.password !== f.confirm_password) throw new ApiError(RC.PASSWORD_MISMATCH, 'password and confirm_password differ');
    if (this.users.get(f.username)) throw new ApiError(RC.USER_ALREADY_EXISTING, `user '${f.username}' already exists`);
    const user: User = { username: f.username, ...this.validate(f), password: await hashPassword(f.password), created: Date.now() };
    // checked and written in one write transaction (two adds at once: one wins)
    const ok = await this.users.transaction(() => {
      if (this.users.get(f.username)) return false;
      this.users.put(f.username, user);
      return true;
    });
    if (!ok) throw new ApiError(RC.USER_ALREADY_EXISTING, `user '${f.username}' already exists`);
    return user;
  }

  async edit(username: string, f: UserFields): Promise<User> {
    const base = this.users.get(username);
    if (!base) throw new ApiError(RC.USER_ALREADY_EXISTING, `user '${username}' does not exist`, 'USER_DOES_NOT_EXIST');
    if (f.password !== undefined && f.password !== (f.confirm_password ?? f.password)) {
      throw new ApiError(RC.EDIT_USER_FAILED, 'password and confirm_password differ');
    }
    const next: User = { ...base, ...this.validate(f, base) };
    if (base.role === 'administrator' && next.role !== 'administrator' && this.admins() <= 1) {
      throw new ApiError(RC.EDIT_USER_FAILED, 'the last administrator cannot lose the role');
    }
    if (f.password) next.password = await hashPassword(f.password);
    await this.users.put(username, next);
    this.verified.delete(username);
    this.gen++;
    return next;
  }

  async delete(username: string): Promise<void> {
    const u = this.users.get(username);
    if (!u) throw new ApiError(RC.DELETE_USER_FAILED, `user '${username}' does not exist`);
    if (u.role === 'administrator' && this.admins() <= 1) throw new ApiError(RC.DELETE_USER_FAILED, 'the last administrator cannot be deleted');
    await this.users.remove(username);
    this.verified.delete(username);
    this.gen++;
    await this.users.transaction(() => {
      for (const { key, value } of this.sessions.getRange()) if (value.username === username) this.sessions.remove(key);
      for (const { key, value } of this.tokens.getRange()) if (value.username === username) this.tokens.remove(key);
    });
  }

  private admins(): number {
    return this.list().filter((u) => u.role === 'administrator').length;
  }

  /** The user when the password is right, else null. */
  async verify(username: string, password: string): Promise<User | null> {
    // Cached: a one-shot keyed digest (no HMAC object, no store read) per request.
    const mac = hash('sha256', Buffer.concat([this.cacheKey, Buffer.from(`${username}\0${password}`)]), 'buffer');
    const hit = this.verified.get(username);
    if (hit && hit.until > Date.now() && timingSafeEqual(hit.mac, mac)) return hit.user;
    const u = this.users.get(username);
    // an unknown user costs the same scrypt as a known one: timing does not tell which names exist
    if (!u) return (await checkHash(DUMMY_HASH, password), null);
    if (!(await checkHash(u.password, password))) return null;
    this.verified.set(username, { mac, until: Date.now() + CACHE_MS, user: u });
    return u;
  }

  /** The user an Authorization header value was verified for, recently and since no user changed. */
  byCredential(header: string): User | null {
    const e = this.credentials.get(header);
    return e && e.gen === this.gen && e.until > Date.now() ? e.user : null;
  }

  rememberCredential(header: string, user: User): void {
    if (this.credentials.size >= 1024) this.credentials.clear();
    this.credentials.set(header, { until: Date.now() + CACHE_MS, gen: this.gen, user });
  }

  /**
   * A session id for the user, valid `durationSec` (0: ntopng's default
   * login session, 12 h; at most 7 days). A user holds at most
   * MAX_SESSIONS live sessions: a new one ends the oldest; expired ones go
   * as sessions are created.
   */
  private sessionSeq = 0;

  async createSession(username: string, durationSec: number): Promise<string> {
    const id = randomBytes(16).toString('hex');
    const now = Date.now();
    const secs = durationSec > 0 ? Math.min(durationSec, MAX_SESSION_SEC) : DEFAULT_SESSION_SEC;
    await this.sessions.transaction(() => {
      const mine: { key: string; created: number }[] = [];
      for (const { key, value } of this.sessions.getRange()) {
        // sessions of older versions could have no end: they end now
        if (!value.expires || value.expires < now) this.sessions.remove(key);
        else if (value.username === username) mine.push({ key, created: value.created ?? 0 });
      }
      mine.sort((a, b) => a.created - b.created);
      for (let i = 0; i <= mine.length - MAX_SESSIONS; i++) this.sessions.remove(mine[i]!.key);
      this.sessions.put(id, { username, expires: now + secs * 1000, created: now * 1000 + (this.sessionSeq++ % 1000) });
    });
    return id;
  }

  bySession(id: string): User | null {
    const s = this.sessions.get(id);
    if (!s) return null;
    if (!s.expires || s.expires < Date.now()) {
      void this.sessions.remove(id);
      return null;
    }
    return this.users.get(s.username) ?? null;
  }

  /** Ends a session (logout); unknown ids are ignored. */
  async endSession(id: string): Promise<void> {
    if (this.sessions.get(id)) await this.sessions.remove(id);
  }

  /** One API token per user, as ntopng keeps it: a new one replaces the old. */
  async createToken(username: string): Promise<string> {
    const token = randomBytes(16).toString('hex');
    await this.tokens.transaction(() => {
      for (const { key, value } of this.tokens.getRange()) if (value.username === username) this.tokens.remove(key);
      this.tokens.put(token, { username });
    });
    return token;
  }

  byToken(token: string): User | null {
    const t = this.tokens.get(token);
    return t ? (this.users.get(t.username) ?? null) : null;
  }
}
