// Wrong passwords are throttled, as ntopng does for its logins
// (Ntop::checkGuiUserPassword: MAX_FAILED_LOGIN_ATTEMPTS 5 per source
// address, which is then refused for FAILED_LOGIN_ATTEMPTS_INTERVAL 300 s
// after its last failure; a success clears it), plus a per-user bound
// ntopng does not have: a name that failed MAX_USER_FAILURES times from
// anywhere is refused the same way. Loopback is never refused (its failures
// still count toward the user's bound and are logged), so an attacker cannot
// lock the administrator out of the machine itself. A refused attempt
// checks no password. Used by both APIs (one guard each).
import { isIP } from 'node:net';

/**
 * Longest credential parts either API looks up (user names; API tokens,
 * session ids, passwords): anything longer is a failed authentication
 * before any store is asked (LMDB refuses keys over ~2 KB).
 */
export const MAX_USER_NAME = 255, MAX_SECRET = 1024;

/** The peer's address of a request served by @hono/node-server (node's socket); undefined otherwise. */
export const peerAddress = (env: unknown) => (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;

/** ntopng's MAX_FAILED_LOGIN_ATTEMPTS and FAILED_LOGIN_ATTEMPTS_INTERVAL (s) */
export const MAX_SOURCE_FAILURES = 5, LOCKOUT_SEC = 300;
/** failures of one user name, from every source, before it is refused (loopback excepted) */
export const MAX_USER_FAILURES = 20;
/** entries kept per map: the oldest go first (a flood of sources cannot grow memory) */
const MAX_ENTRIES = 1 << 16;

interface Count {
  n: number;
  /** epoch ms of the last failure */
  last: number;
}

export const isLoopback = (addr: string | undefined) => !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));

export class LoginGuard {
  private readonly bySource = new Map<string, Count>();
  private readonly byUser = new Map<string, Count>();
  /** refused attempts, and failures counted, since start */
  refused = 0;
  failures = 0;

  constructor(
    private readonly log: (line: string) => void = (l) => console.error(l),
    private readonly now: () => number = Date.now,
  ) {}

  private live(m: Map<string, Count>, k: string): Count | undefined {
    const c = m.get(k);
    if (c && this.now() - c.last > LOCKOUT_SEC * 1000) {
      m.delete(k);
      return undefined;
    }
    return c;
  }

  /** Why an attempt from `source` for `user` is refused now, or null when it may be checked. */
  refusal(source: string | undefined, user: string): string | null {
    if (isLoopback(source)) return null;
    const s = source && isIP(source) ? this.live(this.bySource, source) : undefined;
    if (s && s.n >= MAX_SOURCE_FAILURES) return (this.refused++, `too many failed logins from ${source}: retry after ${LOCKOUT_SEC} s without one`);
    const u = this.live(this.byUser, user);
    if (u && u.n >= MAX_USER_FAILURES) return (this.refused++, `too many failed logins for this user: retry after ${LOCKOUT_SEC} s without one`);
    return null;
  }

  /** A password check failed. */
  failed(source: string | undefined, user: string): void {
    this.failures++;
    const bump = (m: Map<string, Count>, k: string, max: number, what: string) => {
      const c = this.live(m, k) ?? { n: 0, last: 0 };
      c.n++;
      c.last = this.now();
      m.delete(k); // re-inserted last: the map's order is the age order
      m.set(k, c);
      if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value!);
      if (c.n === max) this.log(`flowgate: ${what} refused for ${LOCKOUT_SEC} s after ${max} failed logins`);
    };
    if (source && isIP(source)) bump(this.bySource, source, MAX_SOURCE_FAILURES, `logins from ${source} are`);
    bump(this.byUser, user, MAX_USER_FAILURES, `logins of user '${user.slice(0, 64)}' (but from loopback) are`);
  }

  /** A password check succeeded: the source starts again (ntopng deletes its counter). */
  succeeded(source: string | undefined): void {
    if (source) this.bySource.delete(source);
  }
}
