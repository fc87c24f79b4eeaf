// Users, permissions and authentication of the monitoring API: allowed
// networks and interfaces of unprivileged users, administrator-only
// endpoints, basic auth, sessions (with expiry), API tokens, v0 cookies,
// deleting users, and the first administrator.
import { readFileSync, statSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { BlockList, isIPv4 } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, addUser, startApi, v0, v1, v2, type ApiService, type CallOptions } from './fixtures/api.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const KXUN = join(NDPI_PCAPS, '1kxun.pcap');
const WHOIS = join(NDPI_PCAPS, 'whois.pcapng');

let s: ApiService;
let adminHosts: any[];
let adminFlows: any[];

const net = (cidrs: string[]) => {
  const b = new BlockList();
  for (const c of cidrs) {
    const [a, p] = c.split('/');
    b.addSubnet(a, Number(p), isIPv4(a) ? 'ipv4' : 'ipv6');
  }
  return (ip: string) => b.check(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
};

const as = (user: string, pw: string, o: CallOptions = {}): CallOptions => ({ ...o, user, pw });

beforeAll(async () => {
  s = await startApi({ files: [KXUN, WHOIS] });
  adminHosts = (await s.call(v2('get/host/active'), { query: { ifid: 0, all: true } })).body.rsp.data;
  adminFlows = (await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 100000 } })).body.rsp.data;
  await addUser(s, { username: 'lan', password: 'pw-lan', allowed_networks: '192.168.2.0/24' });
  await addUser(s, { username: 'one', password: 'pw-one', allowed_networks: '192.168.115.8/32' });
  await addUser(s, { username: 'if1', password: 'pw-if1', allowed_interface: '1' });
  await addUser(s, { username: 'boss', password: 'pw-boss', user_role: 'administrator' });
});
afterAll(async () => {
  await s?.close();
});

describe('allowed networks', () => {
  for (const [user, pw, cidr] of [['lan', 'pw-lan', '192.168.2.0/24'], ['one', 'pw-one', '192.168.115.8/32']] as const) {
    const inside = net([cidr]);

    it(`${user} (${cidr}) sees only its hosts in get/host/active`, async () => {
      const r = await s.call(v2('get/host/active'), as(user, pw, { query: { ifid: 0, all: true } }));
      expect(r.body.rc).toBe(0);
      const want = adminHosts.filter((h) => inside(h.ip)).map((h) => h.ip).sort();
      expect(want.length).toBeGreaterThan(0);
      expect(r.body.rsp.data.map((h: any) => h.ip).sort()).toEqual(want);
      expect(r.body.rsp.totalRows).toBe(want.length);
      // paged too
      const p = await s.call(v2('get/host/active'), as(user, pw, { query: { ifid: 0, perPage: 1, currentPage: 1 } }));
      expect(p.body.rsp.totalRows).toBe(want.length);
      expect(p.body.rsp.data).toHaveLength(1);
    });

    it(`${user} (${cidr}) sees only flows with an end inside in get/flow/active`, async () => {
      const r = await s.call(v2('get/flow/active'), as(user, pw, { query: { ifid: 0, perPage: 100000 } }));
      expect(r.body.rc).toBe(0);
      const key = (f: any) => `${f.client.ip}#${f.client.port}|${f.server.ip}#${f.server.port}|${f.protocol.l4}`;
      const want = adminFlows.filter((f) => inside(f.client.ip) || inside(f.server.ip)).map(key).sort();
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(adminFlows.length);
      expect(r.body.rsp.data.map(key).sort()).toEqual(want);
      expect(r.body.rsp.totalRows).toBe(want.length);
    });

    it(`${user} (${cidr}): host data inside is served, outside is -3`, async () => {
      const insideHost = adminHosts.find((h) => inside(h.ip)).ip;
      const ok = await s.call(v2('get/host/data'), as(user, pw, { query: { ifid: 0, host: insideHost } }));
      expect(ok.body.rc).toBe(0);
      for (const host of ['8.8.8.8', '192.168.5.16', 'fe80::9bd:81dd:2fdc:5750']) {
        const r = await s.call(v2('get/host/data'), as(user, pw, { query: { ifid: 0, host } }));
        expect([r.status, r.body.rc, r.body.rc_str], host).toEqual([401, -3, 'NOT_GRANTED']);
        const c = await s.call(v2('get/host/custom_data'), as(user, pw, { query: { ifid: 0, host, field_alias: 'bytes.sent' } }));
        expect(c.body.rc, `custom_data ${host}`).toBe(-3);
      }
      // custom data of all hosts: only the allowed ones
      const all = await s.call(v2('get/host/custom_data'), as(user, pw, { query: { ifid: 0, field_alias: 'ip' } }));
      expect(all.body.rsp.map((x: any) => x.ip).sort()).toEqual(adminHosts.filter((h) => inside(h.ip)).map((h) => h.ip).sort());
    });
  }

  it('flow counters count only the visible flows', async () => {
    const inside = net(['192.168.2.0/24']);
    const r = await s.call(v2('get/flow/l4/counters'), as('lan', 'pw-lan', { query: { ifid: 0 } }));
    expect(r.body.rc).toBe(0);
    const total = r.body.rsp.reduce((a: number, x: any) => a + x.count, 0);
    expect(total).toBe(adminFlows.filter((f) => inside(f.client.ip) || inside(f.server.ip)).length);
  });
});

describe('administrator-only endpoints', () => {
  it('are -3 (HTTP 401) for an unprivileged user, and change nothing', async () => {
    const calls: [string, Record<string, string>][] = [
      ['add/monitor/user', { username: 'sneaky', password: 'x', confirm_password: 'x', user_role: 'administrator' }],
      ['edit/monitor/user', { username: 'lan', user_role: 'administrator' }],
      ['edit/monitor/user', { username: 'admin', password: 'owned', confirm_password: 'owned' }],
      ['delete/monitor/user', { username: 'one' }],
      ['set/host/alias', { host: '192.168.2.126', custom_name: 'pwned' }],
    ];
    for (const [path, form] of calls) {
      for (const mk of path === 'set/host/alias' ? [v1, v2] : [v2]) {
        const r = await s.call(mk(path), as('lan', 'pw-lan', { form }));
        expect([r.status, r.body.rc, r.body.rc_str], path).toEqual([401, -3, 'NOT_GRANTED']);
      }
    }
    // nothing changed
    expect((await s.call(v2('get/monitor/interfaces'), { user: 'sneaky', pw: 'x' })).status).toBe(401);
    expect((await s.call(v2('get/monitor/interfaces'))).body.rc).toBe(0);
    expect((await s.call(v2('get/monitor/interfaces'), as('one', 'pw-one'))).body.rc).toBe(0);
    const lanRows = await s.call(v2('get/host/active'), as('lan', 'pw-lan', { query: { ifid: 0, all: true } }));
    expect(lanRows.body.rsp.data.every((h: any) => h.ip.startsWith('192.168.2.'))).toBe(true);
    const d = await s.call(v2('get/host/data'), { query: { ifid: 0, host: '192.168.2.126' } });
    expect(d.body.rsp.name).not.toBe('pwned');
  });

  it('an administrator other than admin may use them', async () => {
    const r = await s.call(v2('add/monitor/user'), as('boss', 'pw-boss', { form: { username: 'made-by-boss', password: 'p1', confirm_password: 'p1' } }));
    expect(r.body.rc).toBe(0);
    const d = await s.call(v2('delete/monitor/user'), as('boss', 'pw-boss', { form: { username: 'made-by-boss' } }));
    expect(d.body.rc).toBe(0);
  });
});

describe("ntopng's user rules", () => {
  it('user names are lower-cased by add, edit, delete; a flag not given is off (alerts: -3); an edit with nothing to change is -5', async () => {
    await addUser(s, { username: 'Mixed.Case', password: 'pw-mixed-1234' });
    // stored as mixed.case: the lower-case name logs in, and an edit or delete in any case finds it
    const counters = await s.call(v2('get/alert/type/counters'), as('mixed.case', 'pw-mixed-1234', { query: { ifid: 0 } }));
    expect([counters.status, counters.body.rc]).toEqual([401, -3]);
    const edit = await s.call(v2('edit/monitor/user'), { form: { username: 'MIXED.case', allow_alerts: '1' } });
    expect(edit.body.rc, edit.text).toBe(0);
    // now allowed (this service keeps no alert store: -6, not -3)
    expect((await s.call(v2('get/alert/type/counters'), as('mixed.case', 'pw-mixed-1234', { query: { ifid: 0 } }))).body.rc).not.toBe(-3);
    expect((await s.call(v2('edit/monitor/user'), { form: { username: 'mixed.case' } })).body.rc).toBe(-5);
    const del = await s.call(v2('delete/monitor/user'), { form: { username: 'MIXED.CASE' } });
    expect(del.body.rc, del.text).toBe(0);
    expect((await s.call(v2('get/alert/type/counters'), as('mixed.case', 'pw-mixed-1234', { query: { ifid: 0 } }))).status).toBe(401);
  });
});

describe('allowed interface', () => {
  it('get/monitor/interfaces lists only the allowed one', async () => {
    for (const word of ['monitor', 'ntopng']) {
      const r = await s.call(`/lua/rest/v2/get/${word}/interfaces.lua`, as('if1', 'pw-if1'));
      // name: ntopng's shortenCollapse at 24 characters
      expect(r.body.rsp).toEqual([{ ifid: 1, ifname: WHOIS, name: WHOIS.length > 24 ? `${WHOIS.slice(0, 10)}...${WHOIS.slice(-10)}` : WHOIS }]);
    }
    const all = await s.call(v2('get/monitor/interfaces'));
    expect(all.body.rsp.map((i: any) => i.ifid)).toEqual([0, 1]);
  });

  it('another ifid is -3, the allowed one answers', async () => {
    for (const path of ['get/interface/data', 'get/host/active', 'get/flow/active', 'get/flow/l4/counters']) {
      const bad = await s.call(v2(path), as('if1', 'pw-if1', { query: { ifid: 0 } }));
      expect([bad.status, bad.body.rc], path).toEqual([401, -3]);
      const ok = await s.call(v2(path), as('if1', 'pw-if1', { query: { ifid: 1 } }));
      expect(ok.body.rc, path).toBe(0);
    }
    const h = await s.call(v2('get/host/data'), as('if1', 'pw-if1', { query: { ifid: 0, host: '192.168.2.126' } }));
    expect(h.body.rc).toBe(-3);
    // unknown ifid stays -2
    expect((await s.call(v2('get/interface/data'), as('if1', 'pw-if1', { query: { ifid: 9 } }))).body.rc).toBe(-2);
  });

  it('get/host/interfaces omits interfaces the user may not see', async () => {
    const r = await s.call(v2('get/host/interfaces'), as('if1', 'pw-if1', { query: { host: '192.168.2.126' } }));
    expect(r.body.rsp).toEqual({ '192.168.2.126': [] });
    const a = await s.call(v2('get/host/interfaces'), { query: { host: '192.168.2.126' } });
    expect(a.body.rsp).toEqual({ '192.168.2.126': [{ ifid: 0 }] });
  });

  it('an unknown allowed_interface is refused with -5', async () => {
    const r = await s.call(v2('add/monitor/user'), { form: { username: 'noif', password: 'p', confirm_password: 'p', allowed_interface: 'eth99' } });
    expect([r.status, r.body.rc]).toEqual([400, -5]);
  });
});

describe('authentication methods', () => {
  it('basic auth: right password in, wrong out (401, rc -3, WWW-Authenticate)', async () => {
    expect((await s.call(v2('get/monitor/interfaces'), as('lan', 'pw-lan'))).body.rc).toBe(0);
    const r = await s.call(v2('get/monitor/interfaces'), as('lan', 'pw-one'));
    expect([r.status, r.body.rc]).toEqual([401, -3]);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/i);
  });

  it('session from create/monitor/session works as cookie session=<id>', async () => {
    const c = await s.call(v2('create/monitor/session'), { form: { username: 'lan' } });
    expect(c.body.rc).toBe(0);
    const id = c.body.rsp.session;
    expect(typeof id).toBe('string');
    expect(id.length).toBeGreaterThan(8);
    const r = await s.call(v2('get/host/active'), { cookie: `session=${id}`, query: { ifid: 0, all: true } });
    expect(r.body.rc).toBe(0);
    // it is lan's session: lan's view
    expect(r.body.rsp.data.every((h: any) => h.ip.startsWith('192.168.2.'))).toBe(true);
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=${id}; user=lan` })).body.rc).toBe(0);
    // with another user's name, or an unknown id: refused
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=${id}; user=admin` })).status).toBe(401);
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=0123456789abcdef` })).body.rc).toBe(-3);
    // v1 creates sessions too, and a user creates its own
    const own = await s.call(v1('create/monitor/session'), as('one', 'pw-one', { json: { username: 'one' } }));
    expect(own.body.rc).toBe(0);
    expect((await s.call(v1('get/monitor/interfaces'), { cookie: `session=${own.body.rsp.session}` })).body.rc).toBe(0);
  });

  it('an unprivileged user cannot create a session for someone else (-3)', async () => {
    const r = await s.call(v2('create/monitor/session'), as('lan', 'pw-lan', { form: { username: 'admin' } }));
    expect([r.status, r.body.rc]).toEqual([401, -3]);
  });

  it('a session with auth_session_duration=1 expires', async () => {
    const c = await s.call(v2('create/monitor/session'), { form: { username: 'one', auth_session_duration: 1 } });
    const id = c.body.rsp.session;
    const first = await s.call(v2('get/monitor/interfaces'), { cookie: `session=${id}` });
    expect(first.body.rc).toBe(0);
    await new Promise((r) => setTimeout(r, 2500));
    const later = await s.call(v2('get/monitor/interfaces'), { cookie: `session=${id}` });
    expect([later.status, later.body.rc]).toEqual([401, -3]);
    // a session without duration does not expire meanwhile
    const c0 = await s.call(v2('create/monitor/session'), { form: { username: 'one', auth_session_duration: 0 } });
    await new Promise((r) => setTimeout(r, 1200));
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=${c0.body.rsp.session}` })).body.rc).toBe(0);
  });

  it('sessions are bounded: at most 32 live per user (a new one ends the oldest)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 33; i++) ids.push((await s.call(v2('create/monitor/session'), { form: { username: 'one' } })).body.rsp.session);
    const ok = async (id: string) => (await s.call(v2('get/monitor/interfaces'), { cookie: `session=${id}` })).body.rc;
    expect(await ok(ids[0]!)).toBe(-3); // the oldest ended
    expect(await ok(ids[1]!)).toBe(0);
    expect(await ok(ids[32]!)).toBe(0);
  });

  it('API token: Authorization: Token <t>; a new token replaces the old one', async () => {
    const a = await s.call(v2('create/monitor/api_token'), { form: { username: 'lan' } });
    expect(a.body.rc).toBe(0);
    const t1 = a.body.rsp.api_token;
    expect(typeof t1).toBe('string');
    const r = await s.call(v2('get/host/active'), { token: t1, query: { ifid: 0, all: true } });
    expect(r.body.rc).toBe(0);
    expect(r.body.rsp.data.every((h: any) => h.ip.startsWith('192.168.2.'))).toBe(true);
    // a user asks for its own token
    const b = await s.call(v2('create/monitor/api_token'), as('lan', 'pw-lan', { form: { username: 'lan' } }));
    expect(b.body.rc).toBe(0);
    const t2 = b.body.rsp.api_token;
    expect(t2).not.toBe(t1);
    expect((await s.call(v2('get/monitor/interfaces'), { token: t2 })).body.rc).toBe(0);
    const old = await s.call(v2('get/monitor/interfaces'), { token: t1 });
    expect([old.status, old.body.rc]).toEqual([401, -3]);
    const bogus = await s.call(v2('get/monitor/interfaces'), { token: 'f'.repeat(32) });
    expect([bogus.status, bogus.body.rc]).toEqual([401, -3]);
    // the token works as the ntopng spelling of the endpoint returns it too
    const c = await s.call('/lua/rest/v2/create/ntopng/api_token.lua', { token: t2, form: { username: 'lan' } });
    expect(c.body.rc).toBe(0);
  });

  it('api_token for an unknown user, or by an unprivileged user for another user, is -5 (spec Err list: -5; ntopng invalid_args)', async () => {
    const u = await s.call(v2('create/monitor/api_token'), { form: { username: 'nobody-here' } });
    expect([u.status, u.body.rc]).toEqual([400, -5]);
    const o = await s.call(v2('create/monitor/api_token'), as('lan', 'pw-lan', { form: { username: 'admin' } }));
    expect([o.status, o.body.rc]).toEqual([400, -5]);
  });

  it('v0: cookie user=…; password=… on a v0 path', async () => {
    const ok = await s.call(v0('get/interface/data'), { cookie: `user=admin; password=${encodeURIComponent(ADMIN_PASSWORD)}`, query: { ifid: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ifname: WHOIS });
    expect(ok.body).not.toHaveProperty('rc');
    const h = await s.call(v0('get/host/data'), { cookie: 'user=lan; password=pw-lan', query: { ifid: 0, host: '192.168.2.126' } });
    expect(h.status).toBe(200);
    expect(h.body.ip.ip).toBe('192.168.2.126');
    const bad = await s.call(v0('get/interface/data'), { cookie: 'user=admin; password=nope', query: { ifid: 0 } });
    expect(bad.status).toBe(401);
    const outside = await s.call(v0('get/host/data'), { cookie: 'user=lan; password=pw-lan', query: { ifid: 0, host: '8.8.8.8' } });
    expect(outside.status).toBe(401);
  });

  it('editing a password: the old one stops working at once, the new one works', async () => {
    await addUser(s, { username: 'pwchange', password: 'old-pw' });
    expect((await s.call(v2('get/monitor/interfaces'), as('pwchange', 'old-pw'))).body.rc).toBe(0);
    const e = await s.call(v2('edit/monitor/user'), { form: { username: 'pwchange', password: 'new-pw', confirm_password: 'new-pw' } });
    expect(e.body.rc).toBe(0);
    expect((await s.call(v2('get/monitor/interfaces'), as('pwchange', 'old-pw'))).status).toBe(401);
    expect((await s.call(v2('get/monitor/interfaces'), as('pwchange', 'new-pw'))).body.rc).toBe(0);
  });

  it('editing allowed_networks takes effect for the user', async () => {
    await addUser(s, { username: 'movable', password: 'pw-m', allowed_networks: '192.168.2.0/24' });
    const e = await s.call(v2('edit/monitor/user'), { json: { username: 'movable', allowed_networks: '192.168.5.0/24' } });
    expect(e.body.rc).toBe(0);
    const r = await s.call(v2('get/host/active'), as('movable', 'pw-m', { query: { ifid: 0, all: true } }));
    const ips = r.body.rsp.data.map((h: any) => h.ip);
    expect(ips.length).toBeGreaterThan(3);
    expect(ips.every((ip: string) => ip.startsWith('192.168.5.'))).toBe(true);
  });

  it('deleting a user invalidates its password, sessions and token', async () => {
    await addUser(s, { username: 'temp', password: 'pw-temp' });
    const sess = (await s.call(v2('create/monitor/session'), { form: { username: 'temp' } })).body.rsp.session;
    const tok = (await s.call(v2('create/monitor/api_token'), { form: { username: 'temp' } })).body.rsp.api_token;
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=${sess}` })).body.rc).toBe(0);
    expect((await s.call(v2('get/monitor/interfaces'), { token: tok })).body.rc).toBe(0);
    expect((await s.call(v2('get/monitor/interfaces'), as('temp', 'pw-temp'))).body.rc).toBe(0);
    const d = await s.call(v2('delete/monitor/user'), { form: { username: 'temp' } });
    expect(d.body.rc).toBe(0);
    for (const o of [{ cookie: `session=${sess}` }, { token: tok }, as('temp', 'pw-temp')]) {
      const r = await s.call(v2('get/monitor/interfaces'), o);
      expect([r.status, r.body.rc], JSON.stringify(o)).toEqual([401, -3]);
    }
    // a user of the same name added again does not inherit them
    await addUser(s, { username: 'temp', password: 'pw-temp2' });
    expect((await s.call(v2('get/monitor/interfaces'), { cookie: `session=${sess}` })).status).toBe(401);
    expect((await s.call(v2('get/monitor/interfaces'), { token: tok })).status).toBe(401);
  });

  it('the last administrator cannot be deleted, nor delete itself', async () => {
    const self = await s.call(v2('delete/monitor/user'), { form: { username: 'admin' } });
    expect(self.body.rc).toBe(-21);
    expect((await s.call(v2('get/monitor/interfaces'))).body.rc).toBe(0);
  });
});

describe('first-start administrator', () => {
  it('with a given password: that password works and no password file is written', async () => {
    expect((await s.call(v2('get/monitor/interfaces'), { user: 'admin', pw: ADMIN_PASSWORD })).body.rc).toBe(0);
    expect(existsSync(join(s.dataDir, 'admin-password'))).toBe(false);
    expect(s.printed.join('\n')).not.toContain(ADMIN_PASSWORD);
  });

  it('without one: a generated password is printed, kept in <dataDir>/admin-password (0600), and works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowgate-api-first-'));
    try {
      const f = await startApi({ files: [WHOIS], adminPassword: null, dataDir: dir });
      let pw: string;
      try {
        const file = join(dir, 'admin-password');
        expect(existsSync(file)).toBe(true);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        pw = readFileSync(file, 'utf8').trim();
        expect(pw.length).toBeGreaterThanOrEqual(12);
        expect(f.printed.some((l) => l.includes(pw))).toBe(true);
        expect((await f.call(v2('get/monitor/interfaces'), { user: 'admin', pw })).body.rc).toBe(0);
        expect((await f.call(v2('get/monitor/interfaces'), { user: 'admin', pw: ADMIN_PASSWORD })).status).toBe(401);
      } finally {
        await f.close();
      }
      // a restart on the same data directory keeps the admin and its password (none generated again)
      const g = await startApi({ files: [WHOIS], adminPassword: null, dataDir: dir });
      try {
        expect(g.printed.some((l) => /created user admin/.test(l))).toBe(false);
        expect((await g.call(v2('get/monitor/interfaces'), { user: 'admin', pw: pw! })).body.rc).toBe(0);
        expect(readFileSync(join(dir, 'admin-password'), 'utf8').trim()).toBe(pw!);
      } finally {
        await g.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
