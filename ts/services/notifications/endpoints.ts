// ⑧ Notification endpoints (ntopng 5.x notifications/endpoints.lua and
// endpoints/*.lua): a configured destination of one type with that type's
// params, kept in LMDB by id. The types, their params and how each value is
// checked are data here; what a type delivers is in senders/.
import { isIP } from 'node:net';

import type { Database } from 'lmdb';

import type { ConfigStore } from '../config-store.js';

export type EndpointType = 'alert_store_db' | 'webhook' | 'syslog' | 'email' | 'slack' | 'telegram' | 'discord';

/** A param's check: the error text, or undefined when the value is fine. */
type Check = (v: string) => string | undefined;

export interface ParamSpec {
  name: string;
  optional?: boolean;
  check: Check;
}

export interface EndpointTypeInfo {
  /** ntopng's module name (shown by the UI) */
  name: string;
  /** created at first start, not configurable (alert_store_db) */
  builtin?: boolean;
  /** delivered for real here; false: accepted as configuration only */
  delivered: boolean;
  endpointParams: readonly ParamSpec[];
  recipientParams: readonly ParamSpec[];
}

const MAX_VALUE = 1024;
const CTRL = /[\u0000-\u001f\u007f]/;

const text = (max = 256): Check => (v) => (v.length > max ? `longer than ${max} characters` : CTRL.test(v) ? 'control characters (line breaks …) are not allowed' : undefined);

const httpUrl: Check = (v) => {
  const t = text(2048)(v);
  if (t) return t;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (!u.hostname) return 'the URL has no host';
  return undefined;
};

/** A DNS name or an IP address (IPv6 with or without brackets). */
export function isHostName(v: string): boolean {
  const h = v.startsWith('[') && v.endsWith(']') ? v.slice(1, -1) : v;
  if (isIP(h)) return true;
  if (h.length > 253 || !h) return false;
  return h.split('.').every((l) => /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(l));
}

const host: Check = (v) => (isHostName(v) ? undefined : 'not a host name or an IP address');
const port: Check = (v) => (/^\d{1,5}$/.test(v) && +v >= 1 && +v <= 65535 ? undefined : 'must be a port number 1-65535');
const oneOf = (values: readonly string[]): Check => (v) => (values.includes(v) ? undefined : `must be one of ${values.join(', ')}`);

/** The address of 'Name <addr>' or 'addr' (what ntopng's email.lua strips to). */
export const bareAddress = (v: string) => /<([^<>]*)>\s*$/.exec(v)?.[1] ?? v.trim();

const email: Check = (v) => {
  const t = text()(v);
  if (t) return t;
  return /^[^\s@<>,;"]+@[A-Za-z0-9.-]+$/.test(bareAddress(v)) && isHostName(bareAddress(v).split('@')[1]) ? undefined : 'not an email address (user@domain or Name <user@domain>)';
};

/** smtp://host[:port] (plain) or smtps://host[:port] (TLS); without a scheme smtp:// (ntopng's email.lua). */
export function parseSmtpServer(v: string): { tls: boolean; host: string; port: number } | undefined {
  const m = /^(?:(smtps?):\/\/)?(\[[0-9A-Fa-f:.]+\]|[^:/[\]]+)(?::(\d{1,5}))?\/?$/.exec(v.trim());
  if (!m || !isHostName(m[2])) return undefined;
  const tls = m[1] === 'smtps';
  const p = m[3] ? Number(m[3]) : tls ? 465 : 25;
  if (p < 1 || p > 65535) return undefined;
  return { tls, host: m[2].replace(/^\[|\]$/g, ''), port: p };
}
const smtpServer: Check = (v) => text()(v) ?? (parseSmtpServer(v) ? undefined : 'must be smtp://host[:port] or smtps://host[:port]');

export const SYSLOG_FORMATS = ['plaintext', 'plaintextrfc', 'json'] as const;

export const ENDPOINT_TYPES: Readonly<Record<EndpointType, EndpointTypeInfo>> = {
  alert_store_db: { name: 'Alert Store DB', builtin: true, delivered: true, endpointParams: [], recipientParams: [] },
  webhook: {
    name: 'Webhook',
    delivered: true,
    endpointParams: [
      { name: 'webhook_url', check: httpUrl },
      { name: 'webhook_sharedsecret', optional: true, check: text() },
      { name: 'webhook_username', optional: true, check: (v) => text()(v) ?? (v.includes(':') ? "a user name cannot hold ':'" : undefined) },
      { name: 'webhook_password', optional: true, check: text() },
    ],
    recipientParams: [],
  },
  syslog: {
    name: 'Syslog',
    delivered: true,
    endpointParams: [
      { name: 'syslog_alert_format', check: oneOf(SYSLOG_FORMATS) },
      { name: 'syslog_protocol', optional: true, check: oneOf(['udp', 'tcp']) },
      { name: 'syslog_host', optional: true, check: host },
      { name: 'syslog_port', optional: true, check: port },
    ],
    recipientParams: [],
  },
  email: {
    name: 'Email',
    delivered: true,
    endpointParams: [
      { name: 'smtp_server', check: smtpServer },
      { name: 'email_sender', check: email },
      { name: 'smtp_username', optional: true, check: text() },
      { name: 'smtp_password', optional: true, check: text() },
    ],
    recipientParams: [
      { name: 'email_recipient', check: email },
      { name: 'cc', optional: true, check: email },
    ],
  },
  // configuration only: their services are not reachable from here, nothing is sent
  slack: {
    name: 'Slack',
    delivered: false,
    endpointParams: [
      { name: 'slack_sender_username', check: text() },
      { name: 'slack_webhook', check: httpUrl },
    ],
    recipientParams: [],
  },
  telegram: {
    name: 'Telegram',
    delivered: false,
    endpointParams: [{ name: 'telegram_token', check: text() }],
    recipientParams: [{ name: 'telegram_channel', check: text() }],
  },
  discord: {
    name: 'Discord',
    delivered: false,
    endpointParams: [{ name: 'discord_url', check: httpUrl }],
    recipientParams: [{ name: 'discord_username', check: text() }],
  },
};

export const isEndpointType = (t: unknown): t is EndpointType => typeof t === 'string' && Object.hasOwn(ENDPOINT_TYPES, t);

/** ntopng's answer of a failed operation: {status: "failed", error: {type, …}} */
export interface Failed {
  status: 'failed';
  error: { type: string; [k: string]: unknown };
  [k: string]: unknown;
}
export const failed = (type: string, more: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Failed => ({ status: 'failed', ...top, error: { type, ...more } });

export type Params = Record<string, string>;

/**
 * The params a type expects, taken from `given` (a request's parameters:
 * anything else is ignored, as ntopng's safe_params). A missing mandatory
 * one is ntopng's missing_mandatory_param; a bad value invalid_param_value
 * naming the param and why. Empty optional values are left out.
 */
export function pickParams(specs: readonly ParamSpec[], given: Readonly<Record<string, unknown>>): { ok: true; params: Params } | { ok: false; failed: Failed } {
  const params: Params = Object.create(null);
  for (const s of specs) {
    const raw = Object.hasOwn(given, s.name) ? given[s.name] : undefined;
    if (raw !== undefined && raw !== null && typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      return { ok: false, failed: failed('invalid_param_value', { param: s.name, message: 'must be text' }) };
    }
    const v = raw === undefined || raw === null ? '' : String(raw).trim();
    if (!v) {
      if (s.optional) continue;
      return { ok: false, failed: failed('missing_mandatory_param', { missing_param: s.name }) };
    }
    const why = v.length > MAX_VALUE ? `longer than ${MAX_VALUE} characters` : s.check(v);
    if (why) return { ok: false, failed: failed('invalid_param_value', { param: s.name, message: `${s.name}: ${why}` }) };
    params[s.name] = v;
  }
  return { ok: true, params };
}

/** One endpoint as stored. */
export interface EndpointRecord {
  endpoint_id: number;
  endpoint_key: EndpointType;
  endpoint_conf_name: string;
  params: Params;
  builtin: boolean;
}

const NEXT_ID = 'next_id';
const MAX_NAME = 128;

export function checkName(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name.trim()) return 'empty';
  if (name.length > MAX_NAME) return `longer than ${MAX_NAME} characters`;
  if (CTRL.test(name)) return 'control characters are not allowed';
  return undefined;
}

/** The endpoints, in LMDB ('notification_endpoints': id → record, and the id counter). */
export class Endpoints {
  private readonly byId = new Map<number, EndpointRecord>();

  private constructor(private readonly db: Database<unknown, string>) {
    for (const { key, value } of db.getRange()) {
      if (key === NEXT_ID) continue;
      const r = value as EndpointRecord;
      // only what this version can use
      if (r && typeof r === 'object' && Number.isInteger(r.endpoint_id) && isEndpointType(r.endpoint_key) && typeof r.endpoint_conf_name === 'string') {
        this.byId.set(r.endpoint_id, { ...r, params: Object.assign(Object.create(null), r.params ?? {}), builtin: !!r.builtin });
      }
    }
  }

  static open(store: ConfigStore): Endpoints {
    return new Endpoints(store.db('notification_endpoints'));
  }

  get(id: number): EndpointRecord | undefined {
    return this.byId.get(id);
  }

  /** by id */
  list(): EndpointRecord[] {
    return [...this.byId.values()].sort((a, b) => a.endpoint_id - b.endpoint_id);
  }

  byName(name: string): EndpointRecord | undefined {
    for (const e of this.byId.values()) if (e.endpoint_conf_name === name) return e;
    return undefined;
  }

  /** ntopng's ids come from a counter that never goes back (incrCache): a reset does not reuse them. */
  async add(type: EndpointType, name: string, params: Params, builtin: boolean): Promise<EndpointRecord> {
    const id = (Number(this.db.get(NEXT_ID)) || 0) + 1;
    const r: EndpointRecord = { endpoint_id: id, endpoint_key: type, endpoint_conf_name: name, params, builtin };
    await this.db.transaction(() => {
      this.db.put(NEXT_ID, id);
      this.db.put(String(id), { ...r, params: { ...params } });
    });
    this.byId.set(id, r);
    return r;
  }

  async put(r: EndpointRecord): Promise<void> {
    await this.db.put(String(r.endpoint_id), { ...r, params: { ...r.params } });
    this.byId.set(r.endpoint_id, r);
  }

  async remove(id: number): Promise<void> {
    await this.db.remove(String(id));
    this.byId.delete(id);
  }
}
