// Who is calling. ntopng accepts, in this order: an API token
// (`Authorization: Token <t>`), HTTP basic auth, a session cookie (from the
// session endpoint), and v0's cookie carrying user and password.
import type { Context } from 'hono';
import { parse } from 'hono/utils/cookie';

import type { User, Users } from '../services/users.js';
import { header } from './params.js';

/** `failedLogin`: the user name whose password was wrong (ntopng records a failed login for it). */
export type AuthResult = { user: User } | { user: null; reason: string; failedLogin?: string };

export async function authenticate(c: Context, users: Users): Promise<AuthResult> {
  const auth = header(c, 'authorization');
  if (auth) {
    const known = users.byCredential(auth);
    if (known) return { user: known };
    const [scheme, rest = ''] = auth.trim().split(/\s+(.*)/s);
    const s = scheme.toLowerCase();
    if (s === 'token') {
      const u = users.byToken(rest.trim());
      return u ? { user: u } : { user: null, reason: 'unknown API token' };
    }
    if (s === 'basic') {
      let decoded: string;
      try {
        decoded = Buffer.from(rest.trim(), 'base64').toString('utf8');
      } catch {
        return { user: null, reason: 'malformed basic authorization' };
      }
      const i = decoded.indexOf(':');
      if (i <= 0) return { user: null, reason: 'malformed basic authorization' };
      const name = decoded.slice(0, i);
      const u = await users.verify(name, decoded.slice(i + 1));
      if (u) users.rememberCredential(auth, u);
      return u ? { user: u } : { user: null, reason: 'wrong user name or password', failedLogin: name };
    }
    return { user: null, reason: `unsupported authorization scheme '${scheme}'` };
  }
  const cookieHeader = header(c, 'cookie');
  const cookies = cookieHeader ? parse(cookieHeader) : {};
  // ntopng names its session cookie `session` (newer releases add a
  // `session_<port>_<n>` suffix): accept both.
  const sessionId = cookies.session ?? Object.entries(cookies).find(([k]) => k.startsWith('session_'))?.[1];
  if (sessionId) {
    const u = users.bySession(sessionId);
    if (u && (!cookies.user || cookies.user === u.username)) return { user: u };
    return { user: null, reason: 'unknown or expired session' };
  }
  if (cookies.user && cookies.password !== undefined) {
    const u = await users.verify(cookies.user, cookies.password);
    return u ? { user: u } : { user: null, reason: 'wrong user name or password', failedLogin: cookies.user };
  }
  return { user: null, reason: 'authentication required' };
}
