// Who is calling. ntopng accepts, in this order: an API token
// (`Authorization: Token <t>`), HTTP basic auth, a session cookie (from the
// session endpoint), and v0's cookie carrying user and password.
import type { Context } from 'hono';
import { parse } from 'hono/utils/cookie';

import type { User, Users } from '../services/users.js';
import { MAX_SECRET, MAX_USER_NAME, peerAddress } from '../services/login-guard.js';
import { header } from './params.js';


const tooLong = { user: null, reason: 'credentials longer than accepted' } as const;

/** `failedLogin`: the user name whose password was wrong (ntopng records a failed login for it). */
export type AuthResult = { user: User } | { user: null; reason: string; failedLogin?: string };

export async function authenticate(c: Context, users: Users): Promise<AuthResult> {
  const auth = header(c, 'authorization');
  if (auth) {
    if (auth.length > 2 * MAX_SECRET) return tooLong;
    const known = users.byCredential(auth);
    if (known) return { user: known };
    const [scheme, rest = ''] = auth.trim().split(/\s+(.*)/s);
    const s = scheme.toLowerCase();
    if (s === 'token') {
      if (rest.trim().length > MAX_SECRET) return tooLong;
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
      if (name.length > MAX_USER_NAME || decoded.length - i - 1 > MAX_SECRET) return tooLong;
      const u = await checkPassword(c, users, name, decoded.slice(i + 1));
      if (u && 'username' in u) users.rememberCredential(auth, u);
      return passwordResult(u, name);
    }
    return { user: null, reason: `unsupported authorization scheme '${scheme}'` };
  }
  const cookieHeader = header(c, 'cookie');
  const cookies = cookieHeader ? parse(cookieHeader) : {};
  // ntopng names its session cookie `session` (newer releases add a
  // `session_<port>_<n>` suffix): accept both.
  const sessionId = cookies.session ?? Object.entries(cookies).find(([k]) => k.startsWith('session_'))?.[1];
  if (sessionId) {
    if (sessionId.length > MAX_SECRET || (cookies.user?.length ?? 0) > MAX_USER_NAME) return tooLong;
    const u = users.bySession(sessionId);
    if (u && (!cookies.user || cookies.user === u.username)) return { user: u };
    return { user: null, reason: 'unknown or expired session' };
  }
  if (cookies.user && cookies.password !== undefined) {
    if (cookies.user.length > MAX_USER_NAME || cookies.password.length > MAX_SECRET) return tooLong;
    return passwordResult(await checkPassword(c, users, cookies.user, cookies.password), cookies.user);
  }
  return { user: null, reason: 'authentication required' };
}

/** A password check under the login guard: the user, null (wrong), or why the attempt was refused unchecked. */
async function checkPassword(c: Context, users: Users, name: string, password: string): Promise<User | null | { refused: string }> {
  const src = peerAddress(c.env);
  const refused = users.guard.refusal(src, name);
  if (refused) return { refused };
  const u = await users.verify(name, password);
  if (u) users.guard.succeeded(src);
  else users.guard.failed(src, name);
  return u;
}

function passwordResult(u: User | null | { refused: string }, name: string): AuthResult {
  if (u && 'refused' in u) return { user: null, reason: u.refused };
  return u ? { user: u } : { user: null, reason: 'wrong user name or password', failedLogin: name };
}
