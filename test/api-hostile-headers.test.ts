// Oversized credentials (hardening): an API token, a basic-auth user name or
// password, a session or v0 cookie far longer than any real one is a failed
// authentication, 401, before any store is asked (LMDB refuses keys over
// ~2 KB: it used to answer 500); the administrator still gets in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, startOnOnePacket, v2 } from './fixtures/api.js';

describe('oversized credentials', () => {
  let s: Awaited<ReturnType<typeof startOnOnePacket>>;
  beforeAll(async () => {
    s = await startOnOnePacket();
  }, 60_000);
  afterAll(async () => {
    await s?.cleanup();
  });

  const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
  it('answers 401 for each, 5-10 KB long', async () => {
    const big = (n: number) => 'A'.repeat(n);
    const cases: [string, Record<string, string>][] = [
      ['token 5 KB', { authorization: `Token ${big(5000)}` }],
      ['token 10 KB', { authorization: `Token ${big(10000)}` }],
      ['basic user 6 KB', { authorization: basic(big(6000), 'x') }],
      ['basic password 6 KB', { authorization: basic('admin', big(6000)) }],
      ['session cookie 8 KB', { cookie: `session=${big(8000)}` }],
      ['v0 cookie user 5 KB', { cookie: `user=${big(5000)}; password=x` }],
      ['v0 cookie password 5 KB', { cookie: `user=admin; password=${big(5000)}` }],
    ];
    for (const [what, headers] of cases) {
      const r = await s.call(v2('get/interface/data'), { user: null, headers, query: { ifid: 0 } });
      expect(r.status, what).toBe(401);
    }
    const ok = await s.call(v2('get/interface/data'), { user: null, headers: { authorization: basic('admin', ADMIN_PASSWORD) }, query: { ifid: 0 } });
    expect([ok.status, ok.body.rc]).toEqual([200, 0]);
  });
});
