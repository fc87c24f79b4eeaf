// Wrong passwords throttled (hardening): ntopng's rule per source address
// (5 failures, then refused until 300 s pass without one; a success clears
// it), a per-user bound across sources, loopback never refused; on a clock
// driven by the test. Then the egress API's middleware under it, with the
// peer address node would give.
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';

import { basicAuth, hashPassword, passwordKey, type AuthEnv } from '../ts/egress/credentials.js';
import { LOCKOUT_SEC, LoginGuard, MAX_SOURCE_FAILURES, MAX_USER_FAILURES } from '../ts/services/login-guard.js';
import type { Kv } from '../ts/services/kv.js';

describe('login guard', () => {
  let t = 1_000_000;
  const logs: string[] = [];
  const g = new LoginGuard((l) => logs.push(l), () => t);
  const A = '203.0.113.9';

  it('a source is refused after 5 failures until 300 s pass without one; a success clears it', () => {
    for (let i = 0; i < MAX_SOURCE_FAILURES; i++) {
      expect(g.refusal(A, 'bob')).toBeNull();
      g.failed(A, 'bob');
      t += 1000;
    }
    expect(g.refusal(A, 'bob')).toMatch(/too many failed logins from 203\.0\.113\.9/);
    expect(g.refusal(A, 'alice')).not.toBeNull(); // the source, whatever the name
    expect(logs).toEqual([`flowgate: logins from ${A} are refused for ${LOCKOUT_SEC} s after 5 failed logins`]);
    t += LOCKOUT_SEC * 1000 - 1000; // 300 s after the last failure, not yet past
    expect(g.refusal(A, 'bob')).not.toBeNull();
    t += 1001;
    expect(g.refusal(A, 'bob')).toBeNull();
    // a success starts the source again
    g.failed(A, 'bob');
    g.succeeded(A);
    for (let i = 0; i < MAX_SOURCE_FAILURES - 1; i++) g.failed(A, 'bob');
    expect(g.refusal(A, 'bob')).toBeNull();
    expect(g.refused).toBe(3);
  });

  it('a user name failing from many sources is refused everywhere but loopback', () => {
    const g2 = new LoginGuard(() => {}, () => t);
    for (let i = 0; i < MAX_USER_FAILURES; i++) g2.failed(`198.51.100.${i + 1}`, 'admin');
    expect(g2.refusal('198.51.100.250', 'admin')).toMatch(/for this user/);
    expect(g2.refusal('198.51.100.250', 'other')).toBeNull();
    for (const lo of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(g2.refusal(lo, 'admin'), lo).toBeNull();
  });

  it('loopback is never refused, its failures still counted', () => {
    const g3 = new LoginGuard(() => {}, () => t);
    for (let i = 0; i < 50; i++) g3.failed('127.0.0.1', 'admin');
    expect(g3.refusal('127.0.0.1', 'admin')).toBeNull();
    expect(g3.failures).toBe(50);
  });
});

describe('the egress API under the guard', () => {
  const store = new Map<string, string>();
  const kv: Kv = { description: 'memory', get: async (k) => store.get(k), set: async () => {}, del: async () => {}, close: async () => {} };
  store.set(passwordKey('cento', 'ops'), hashPassword('right-pw'));
  const a = new Hono<AuthEnv>();
  a.use('/api/*', basicAuth(kv, 'cento', () => {}));
  a.get('/api/whoami', (c) => c.json({ user: c.get('user') }));
  const from = async (addr: string, pw: string) => {
    const res = await a.request('http://h/api/whoami', { headers: { Authorization: `Basic ${Buffer.from(`ops:${pw}`).toString('base64')}` } }, { incoming: { socket: { remoteAddress: addr } } });
    return [res.status, ((await res.json()) as { error?: string }).error ?? 'ok'];
  };
  afterAll(() => store.clear());

  it('five wrong passwords from an address: the right one is refused there, not from loopback', async () => {
    for (let i = 0; i < 5; i++) expect(await from('192.0.2.7', 'wrong')).toEqual([401, 'invalid credentials']);
    const r = await from('192.0.2.7', 'right-pw');
    expect(r[0]).toBe(401);
    expect(r[1]).toMatch(/too many failed logins/);
    expect(await from('127.0.0.1', 'right-pw')).toEqual([200, 'ok']);
    expect(await from('192.0.2.8', 'right-pw')).toEqual([200, 'ok']);
  });
});
