// HTTP basic auth for the egress policy API, with nProbe Cento-compatible
// credential storage: key `<product>.user.<name>.password`, value
// `sha256:<salt>:<hash>` where salt is 16 random bytes in lowercase hex and
// hash = hex(SHA-256(salt hex text ‖ password)), i.e.
//   printf '%s%s' "$SALT" "$PW" | openssl dgst -sha256
// There are no default credentials: a user without a stored value cannot log in.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type { MiddlewareHandler } from 'hono';

import type { Kv } from '../services/kv.js';
import { LoginGuard, MAX_SECRET, MAX_USER_NAME, peerAddress } from '../services/login-guard.js';

export const DEFAULT_PRODUCT = 'cento';
export const AUTH_REALM = 'flowgate egress';

const STORED_RE = /^sha256:([0-9a-f]{32}):([0-9a-f]{64})$/;
const SALT_RE = /^[0-9a-f]{32}$/;
const PRODUCT_RE = /^[A-Za-z0-9_-]+$/;

function sha256Hex(salt: string, password: string): string {
  return createHash('sha256').update(salt, 'utf8').update(password, 'utf8').digest('hex');
}

/** `sha256:<salt>:<hash>`; a fresh random salt unless one (32 lowercase hex) is given. */
export function hashPassword(password: string, salt?: string): string {
  const s = salt ?? randomBytes(16).toString('hex');
  if (!SALT_RE.test(s)) throw new Error('salt must be 32 lowercase hex characters');
  return `sha256:${s}:${sha256Hex(s, password)}`;
}

/** True if `stored` is well formed (`sha256:` + 32 hex + `:` + 64 hex, lowercase). */
export function isValidStored(stored: string): boolean {
  return STORED_RE.test(stored);
}

/** Constant-time check of `password` against a stored value; malformed values never match. */
export function verifyPassword(stored: string, password: string): boolean {
  const m = STORED_RE.exec(stored);
  if (!m) return false;
  const want = Buffer.from(m[2]!, 'hex');
  const got = Buffer.from(sha256Hex(m[1]!, password), 'hex');
  return timingSafeEqual(want, got);
}

export function validateProduct(product: string): string {
  if (!PRODUCT_RE.test(product)) throw new Error(`invalid product word '${product}' (letters, digits, '_' and '-' only)`);
  return product;
}

export function passwordKey(product: string, user: string): string {
  return `${validateProduct(product)}.user.${user}.password`;
}

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses `Authorization: Basic <base64(user:password)>` (RFC 7617). Returns
 * null for anything else: other schemes, bad base64, invalid UTF-8, no colon,
 * empty user name. The user name ends at the first colon; the password may
 * contain colons.
 */
export function parseBasicAuth(header: string | undefined | null): { user: string; password: string } | null {
  if (!header) return null;
  const m = /^basic[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!m) return null;
  const b64 = m[1]!;
  // Buffer.from(…, 'base64') silently skips junk; check the alphabet and length first.
  if (!B64_RE.test(b64) || b64.length % 4 === 1) return null;
  if (b64.includes('=') && b64.length % 4 !== 0) return null;
  let text: string;
  try {
    text = utf8.decode(Buffer.from(b64, 'base64'));
  } catch {
    return null;
  }
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

export type AuthEnv = { Variables: { user: string } };


/**
 * Hono middleware: 401 with a Basic challenge unless the request carries the
 * credentials of a user whose password is stored in `kv` under `product`.
 * Sets `c.get('user')` on success. A store failure answers 503 (not 401) so
 * clients do not mistake an outage for wrong credentials.
 */
export function basicAuth(kv: Kv, product: string = DEFAULT_PRODUCT, log: (msg: string) => void = (m) => console.warn(m)): MiddlewareHandler<AuthEnv> {
  validateProduct(product);
  const warned = new Set<string>();
  // wrong passwords throttled per source and per user (login-guard.ts)
  const guard = new LoginGuard(log);
  // Compared against when the user has no usable value so unknown users take as long as known ones.
  const dummy = hashPassword('', '0'.repeat(32));

  return async (c, next) => {
    const deny = (error: string) =>
      c.json({ error }, 401, { 'WWW-Authenticate': `Basic realm="${AUTH_REALM}"` });

    const header = c.req.header('Authorization');
    if (!header) return deny('authentication required');
    const creds = parseBasicAuth(header);
    if (!creds) return deny('malformed Authorization header');
    // longer than any user name or password a store holds: wrong credentials, the store is not asked
    // (LMDB refuses keys over ~2 KB, which is no outage)
    if (creds.user.length > MAX_USER_NAME || creds.password.length > MAX_SECRET) {
      verifyPassword(dummy, '');
      return deny('invalid credentials');
    }

    const src = peerAddress(c.env);
    const refused = guard.refusal(src, creds.user);
    if (refused) return deny(refused);
    const key = passwordKey(product, creds.user);
    let stored: string | undefined;
    try {
      stored = await kv.get(key);
    } catch (e) {
      log(`egress auth: credential store ${kv.description} failed: ${(e as Error).message}`);
      return c.json({ error: 'credential store unavailable' }, 503);
    }
    if (stored !== undefined && !isValidStored(stored)) {
      if (!warned.has(key)) {
        warned.add(key);
        log(`egress auth: ignoring malformed password value for key '${key}' in ${kv.description} (expected sha256:<32 hex>:<64 hex>)`);
      }
      stored = undefined;
    }
    const ok = verifyPassword(stored ?? dummy, creds.password) && stored !== undefined;
    // Same answer for unknown user, no password and wrong password: no user enumeration.
    if (!ok) {
      guard.failed(src, creds.user);
      return deny('invalid credentials');
    }
    guard.succeeded(src);

    c.set('user', creds.user);
    await next();
  };
}
