// Egress API credentials: the Cento-compatible `sha256:<salt>:<hash>` format,
// basic-auth parsing, the Hono middleware and `flowgate passwd`, over both
// stores (LMDB in a temp dir, a real redis-server started here). Independent
// truth: values are checked with / written by openssl and redis-cli.
import { execFileSync } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';

import { Hono } from 'hono';
import { open as openLmdb } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { passwdMain, type PasswdIo } from '../ts/cli/passwd.js';
import { basicAuth, hashPassword, parseBasicAuth, passwordKey, verifyPassword, type AuthEnv } from '../ts/egress/credentials.js';
import { lmdbKv, openKv, type Kv } from '../ts/services/kv.js';
import { freePort, startRedis, type Redis } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('flowgate-cred-');

// ---- helpers -------------------------------------------------------------------------------------

function sh(script: string, env: Record<string, string> = {}): string {
  return execFileSync('bash', ['-c', script], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
}

/** SHA-256 of salt‖password as computed by openssl, not by us. */
function opensslHash(salt: string, pw: string): string {
  return sh(`printf '%s%s' "$SALT" "$PW" | openssl dgst -sha256 | awk '{print $NF}'`, { SALT: salt, PW: pw });
}

function io(stdinText: string | Readable): PasswdIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const stdin = typeof stdinText === 'string' ? Readable.from([Buffer.from(stdinText)]) : stdinText;
  return { stdin, stdout, stderr, out: () => out, err: () => err };
}

function basic(user: string, pw: string): string {
  return 'Basic ' + Buffer.from(`${user}:${pw}`, 'utf8').toString('base64');
}

function app(kv: Kv, product?: string, log?: (m: string) => void) {
  const a = new Hono<AuthEnv>();
  a.use('/api/*', basicAuth(kv, product, log ?? (() => {})));
  a.get('/api/whoami', (c) => c.json({ user: c.get('user') }));
  return a;
}

async function call(a: Hono<AuthEnv>, auth?: string) {
  const res = await a.request('http://localhost/api/whoami', { headers: auth === undefined ? {} : { Authorization: auth } });
  return { status: res.status, body: (await res.json()) as Record<string, string>, challenge: res.headers.get('WWW-Authenticate') };
}

async function expect401(a: Hono<AuthEnv>, auth?: string) {
  const r = await call(a, auth);
  expect(r.status).toBe(401);
  expect(r.challenge).toBe('Basic realm="flowgate egress"');
  expect(typeof r.body.error).toBe('string');
  expect(r.body.error.length).toBeGreaterThan(0);
  expect(r.body.user).toBeUndefined();
}

/** Checks a stored value with openssl. */
function checkWithOpenssl(value: string, pw: string): void {
  const m = /^sha256:([0-9a-f]{32}):([0-9a-f]{64})$/.exec(value);
  expect(m, value).not.toBeNull();
  expect(m![2]).toBe(opensslHash(m![1]!, pw));
}

// ---- redis-server ---------------------------------------------------------------------------------

let redis: Redis;
let redisPort = 0;
let redisUrl = '';
const redisCli = (...args: string[]) => redis.cli(...args);

beforeAll(async () => {
  // No skip: CI installs redis-server (.ci/run); a missing binary is a failure.
  redis = await startRedis(tmp.dir);
  redisPort = redis.port;
  redisUrl = redis.url;
});

afterAll(async () => {
  await redis?.stop();
  tmp.cleanup();
});

// ---- format ---------------------------------------------------------------------------------------

describe('password format', () => {
  it('hashPassword matches openssl and uses a fresh 16-byte salt', () => {
    for (const pw of ['secret', 'p:a:s:s', 'ünïcødé pässwörd', ' leading and trailing ', "quote'\"$`\\"]) {
      const v = hashPassword(pw);
      checkWithOpenssl(v, pw);
      expect(verifyPassword(v, pw)).toBe(true);
      expect(verifyPassword(v, pw + 'x')).toBe(false);
    }
    expect(hashPassword('x')).not.toBe(hashPassword('x'));
    const salt = '00112233445566778899aabbccddeeff';
    expect(hashPassword('pw', salt)).toBe(`sha256:${salt}:${opensslHash(salt, 'pw')}`);
    expect(() => hashPassword('pw', 'short')).toThrow();
    expect(() => hashPassword('pw', salt.toUpperCase())).toThrow();
  });

  it('verifyPassword rejects malformed stored values without throwing', () => {
    const good = hashPassword('pw', 'a'.repeat(32));
    const [, salt, hash] = good.split(':');
    for (const bad of [
      '', 'pw', 'sha256::', `sha256:${salt}`, `sha256:${salt}:`, `sha1:${salt}:${hash}`, `SHA256:${salt}:${hash}`,
      `sha256:${salt}:${hash}\n`, ` ${good}`, `sha256:${salt!.slice(1)}:${hash}`, `sha256:${salt}:${hash!.slice(1)}`,
      `sha256:${salt}:${hash!.toUpperCase()}`, `sha256:${salt}:${hash}:extra`, `sha256:${'g'.repeat(32)}:${hash}`,
    ]) {
      expect(verifyPassword(bad, 'pw'), JSON.stringify(bad)).toBe(false);
    }
    expect(verifyPassword(good, 'pw')).toBe(true);
  });

  it('passwordKey', () => {
    expect(passwordKey('cento', 'bob')).toBe('cento.user.bob.password');
    expect(passwordKey('ntopng', 'a.b')).toBe('ntopng.user.a.b.password');
    expect(() => passwordKey('', 'bob')).toThrow();
    expect(() => passwordKey('a.b', 'bob')).toThrow();
  });

  it('parseBasicAuth', () => {
    const b = (s: string) => Buffer.from(s).toString('base64');
    expect(parseBasicAuth(`Basic ${b('bob:pw')}`)).toEqual({ user: 'bob', password: 'pw' });
    expect(parseBasicAuth(`basic ${b('bob:pw')}`)).toEqual({ user: 'bob', password: 'pw' });
    expect(parseBasicAuth(`Basic ${b('bob:p:w:')}`)).toEqual({ user: 'bob', password: 'p:w:' });
    expect(parseBasicAuth(`Basic ${b('bob:')}`)).toEqual({ user: 'bob', password: '' });
    expect(parseBasicAuth(`Basic ${b('jürgen:pässwort')}`)).toEqual({ user: 'jürgen', password: 'pässwort' });
    for (const bad of [
      undefined, '', 'Basic', 'Basic ', 'Bearer x', `Bearer ${b('bob:pw')}`, `Digest ${b('bob:pw')}`, `Basic ${b('bobpw')}`,
      `Basic ${b(':pw')}`, 'Basic !!!!', 'Basic Ym9i*OnB3', 'Basic Ym9iOnB3=', 'Basic Y', `Basic ${b('bob:pw')} extra`,
      `Basic ${Buffer.from([0x62, 0x3a, 0xff, 0xfe]).toString('base64')}`, `Basic${b('bob:pw')}`,
    ]) {
      expect(parseBasicAuth(bad), String(bad)).toBeNull();
    }
  });
});

// ---- passwd + middleware, both stores --------------------------------------------------------------

const PW = 'correct horse: battery staple';

describe.each([
  { store: 'lmdb', args: () => ['--data-dir', `${tmp.dir}/data`], url: () => undefined as string | undefined },
  { store: 'redis (--kv)', args: () => ['--kv', redisUrl], url: () => redisUrl },
  { store: 'redis (--redis-host/--redis-port)', args: () => ['--redis-host', '127.0.0.1', '--redis-port', String(redisPort)], url: () => redisUrl },
])('passwd → middleware over $store', ({ store, args, url }) => {
  const user = `alice-${store.replace(/\W+/g, '')}`;
  let kv: Kv;
  beforeAll(async () => {
    const t = io(`${PW}\nsecond line ignored\n`);
    const rc = await passwdMain([user, ...args()], t);
    expect(t.err()).toBe('');
    expect(rc).toBe(0);
    const desc = store === 'lmdb' ? `lmdb ${tmp.dir}/data/config` : `redis://127.0.0.1:${redisPort}/0`;
    expect(t.out()).toBe(`password set for ${user} (${desc})\n`);
    kv = await openKv(url(), `${tmp.dir}/data`);
  });
  afterAll(() => kv?.close());

  it('stores a value openssl verifies', async () => {
    const v = store === 'lmdb' ? await kv.get(`cento.user.${user}.password`) : redisCli('GET', `cento.user.${user}.password`);
    checkWithOpenssl(v!, PW);
  });

  it('authenticates with the password and rejects everything else', async () => {
    const a = app(kv);
    expect(await call(a, basic(user, PW))).toMatchObject({ status: 200, body: { user } });
    await expect401(a, basic(user, PW + ' '));
    await expect401(a, basic(user, ''));
    await expect401(a, basic(user.toUpperCase(), PW));
    await expect401(a, basic('nobody', PW));
    await expect401(a);
    await expect401(a, 'Bearer x');
    await expect401(a, 'Basic %%%');
    await expect401(a, 'Basic ' + Buffer.from(user + PW.replaceAll(':', '')).toString('base64'));
    // Still answering after the failures.
    expect(await call(a, basic(user, PW))).toMatchObject({ status: 200, body: { user } });
  });
});

describe('values written by other tools', () => {
  let kv: Kv;
  beforeAll(async () => {
    kv = await openKv(redisUrl, tmp.dir);
  });
  afterAll(() => kv?.close());

  it('a value set with redis-cli and openssl authenticates', async () => {
    const pw = 'b0b:pa$$ word';
    sh(
      `SALT=$(openssl rand -hex 16)
       redis-cli -p "$PORT" SET cento.user.bob.password "sha256:$SALT:$(printf '%s%s' "$SALT" "$PW" | openssl dgst -sha256 | awk '{print $2}')" >/dev/null`,
      { PORT: String(redisPort), PW: pw },
    );
    const a = app(kv);
    expect(await call(a, basic('bob', pw))).toMatchObject({ status: 200, body: { user: 'bob' } });
    await expect401(a, basic('bob', 'wrong'));
  });

  it('a user with a key but no usable password, and malformed values, get 401 and are logged once', async () => {
    const logs: string[] = [];
    const a = app(kv, 'cento', (m) => logs.push(m));
    const salt = 'c'.repeat(32);
    const malformed: Record<string, string> = {
      plain: 'secret',
      empty: '',
      upper: `sha256:${salt}:${opensslHash(salt, 'secret').toUpperCase()}`,
      newline: `sha256:${salt}:${opensslHash(salt, 'secret')}\n`,
      short: `sha256:${salt.slice(2)}:${opensslHash(salt.slice(2), 'secret')}`,
      md5: `md5:${salt}:${opensslHash(salt, 'secret')}`,
    };
    for (const [u, v] of Object.entries(malformed)) redisCli('SET', `cento.user.${u}.password`, v);
    // A user known elsewhere (other keys) but without a password key.
    redisCli('SET', 'cento.user.carol.role', 'admin');
    for (let round = 0; round < 2; round++) {
      for (const u of Object.keys(malformed)) await expect401(a, basic(u, 'secret'));
      await expect401(a, basic('carol', ''));
      await expect401(a, basic('carol', 'admin'));
    }
    expect(logs).toHaveLength(Object.keys(malformed).length);
    for (const l of logs) expect(l).toMatch(/malformed/);
    // A non-string Redis value (a list: WRONGTYPE) is a store error, not a crash.
    redisCli('RPUSH', 'cento.user.listy.password', 'x');
    const r = await call(a, basic('listy', 'x'));
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: 'credential store unavailable' });
    // Bob still gets in.
    expect((await call(a, basic('bob', 'b0b:pa$$ word'))).status).toBe(200);
  });

  it('a store failure answers 503, not 401, and the next request works', async () => {
    let broken = true;
    const flaky: Kv = {
      description: 'flaky',
      get: async (k) => {
        if (broken) throw new Error('connection lost');
        return kv.get(k);
      },
      set: async () => {},
      del: async () => {},
      close: async () => {},
    };
    const logs: string[] = [];
    const a = app(flaky, 'cento', (m) => logs.push(m));
    const r = await call(a, basic('bob', 'b0b:pa$$ word'));
    expect(r.status).toBe(503);
    expect(r.body.error).toBeTruthy();
    expect(logs.join()).toMatch(/connection lost/);
    broken = false;
    expect((await call(a, basic('bob', 'b0b:pa$$ word'))).status).toBe(200);
  });

  it('an 8 KB user name or password is 401 without asking the store (no outage reported)', async () => {
    let asked = 0;
    const counting: Kv = { description: 'counting', get: async (k) => (asked++, kv.get(k)), set: async () => {}, del: async () => {}, close: async () => {} };
    const logs: string[] = [];
    const a = app(counting, 'cento', (m) => logs.push(m));
    await expect401(a, basic('u'.repeat(8192), 'x'));
    await expect401(a, basic('bob', 'p'.repeat(8192)));
    expect([asked, logs]).toEqual([0, []]);
    // the real one at the limit's edge still works
    expect((await call(a, basic('bob', 'b0b:pa$$ word'))).status).toBe(200);
    expect(asked).toBe(1);
  });
});

describe('product word', () => {
  it('another product sees only its own keys', async () => {
    const t = io('ntop-pw\n');
    expect(await passwdMain(['dave', '--kv', redisUrl, '--product', 'ntopng'], t)).toBe(0);
    expect(redisCli('EXISTS', 'ntopng.user.dave.password')).toBe('1');
    expect(redisCli('EXISTS', 'cento.user.dave.password')).toBe('0');
    checkWithOpenssl(redisCli('GET', 'ntopng.user.dave.password'), 'ntop-pw');

    const kv = await openKv(redisUrl, tmp.dir);
    try {
      const ntop = app(kv, 'ntopng');
      const cento = app(kv, 'cento');
      expect(await call(ntop, basic('dave', 'ntop-pw'))).toMatchObject({ status: 200, body: { user: 'dave' } });
      await expect401(cento, basic('dave', 'ntop-pw'));
      // bob is a cento user (set above with redis-cli): unknown to ntopng.
      await expect401(ntop, basic('bob', 'b0b:pa$$ word'));
      expect((await call(cento, basic('bob', 'b0b:pa$$ word'))).status).toBe(200);
    } finally {
      await kv.close();
    }
  });

  it('also over LMDB', async () => {
    const dir = `${tmp.dir}/data-products`;
    expect(await passwdMain(['erin', '--data-dir', dir, '--product', 'acme_1'], io('e-pw\n'))).toBe(0);
    expect(await passwdMain(['erin', '--data-dir', dir], io('cento-pw'))).toBe(0);
    const kv = await openKv('lmdb', dir);
    try {
      expect(await call(app(kv, 'acme_1'), basic('erin', 'e-pw'))).toMatchObject({ status: 200 });
      await expect401(app(kv, 'acme_1'), basic('erin', 'cento-pw'));
      expect(await call(app(kv), basic('erin', 'cento-pw'))).toMatchObject({ status: 200 });
      await expect401(app(kv), basic('erin', 'e-pw'));
    } finally {
      await kv.close();
    }
    // 'lmdb:<path>' names the same environment.
    const kv2 = await openKv(`lmdb:${dir}/config`, '/nonexistent');
    try {
      checkWithOpenssl((await kv2.get('acme_1.user.erin.password'))!, 'e-pw');
    } finally {
      await kv2.close();
    }
  });
});

describe('kv', () => {
  it('lmdbKv on an environment opened elsewhere (the configuration store) reads what passwd wrote', async () => {
    const dir = `${tmp.dir}/data-shared`;
    expect(await passwdMain(['ivan', '--data-dir', dir], io('shared-pw\n'))).toBe(0);
    const root = openLmdb({ path: `${dir}/config`, maxDbs: 32, compression: false });
    const other = root.openDB({ name: 'users', encoding: 'msgpack' });
    await other.put('ivan', { role: 'administrator' });
    const kv = lmdbKv(root);
    expect(await call(app(kv), basic('ivan', 'shared-pw'))).toMatchObject({ status: 200, body: { user: 'ivan' } });
    await kv.set('k', 'v');
    expect(await kv.get('k')).toBe('v');
    await kv.del('k');
    expect(await kv.get('k')).toBeUndefined();
    await kv.close();
    // Not ours to close: the environment stays usable.
    expect(other.get('ivan')).toEqual({ role: 'administrator' });
    await root.close();
  });

  it('redis set/get/del', async () => {
    const kv = await openKv(redisUrl.replace(/\/0$/, '/5'), tmp.dir);
    try {
      await kv.set('k', 'v');
      expect(redisCli('-n', '5', 'GET', 'k')).toBe('v');
      expect(redisCli('GET', 'k')).toBe('');
      expect(await kv.get('k')).toBe('v');
      await kv.del('k');
      expect(await kv.get('k')).toBeUndefined();
    } finally {
      await kv.close();
    }
  });
});

// ---- passwd edge cases -------------------------------------------------------------------------------

describe('flowgate passwd', () => {
  it('replaces an existing password; CRLF and a missing final newline are handled', async () => {
    expect(await passwdMain(['frank', '--kv', redisUrl], io('old\r\n'))).toBe(0);
    checkWithOpenssl(redisCli('GET', 'cento.user.frank.password'), 'old');
    expect(await passwdMain(['frank', '--kv', redisUrl], io('new pw'))).toBe(0);
    checkWithOpenssl(redisCli('GET', 'cento.user.frank.password'), 'new pw');
  });

  it('prompts twice without echo on a terminal', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const t = io(stdin);
    let err = '';
    (t.stderr as PassThrough).on('data', (d) => {
      err += d;
      if (/Password for gina: $/.test(err)) stdin.write('tty secret\n');
      else if (/Retype password: $/.test(err)) stdin.write('tty secret\n');
    });
    expect(await passwdMain(['gina', '--kv', redisUrl], t)).toBe(0);
    expect(t.err()).not.toContain('tty secret');
    checkWithOpenssl(redisCli('GET', 'cento.user.gina.password'), 'tty secret');

    const stdin2 = Object.assign(new PassThrough(), { isTTY: true });
    const t2 = io(stdin2);
    let err2 = '';
    (t2.stderr as PassThrough).on('data', (d) => {
      err2 += d;
      if (/Password for gina: $/.test(err2)) stdin2.write('one\n');
      else if (/Retype password: $/.test(err2)) stdin2.write('two\n');
    });
    expect(await passwdMain(['gina', '--kv', redisUrl], t2)).toBe(1);
    expect(t2.err()).toMatch(/do not match/);
    checkWithOpenssl(redisCli('GET', 'cento.user.gina.password'), 'tty secret');
  });

  it('fails with exit 1 and a reason', async () => {
    const cases: [string[], string, RegExp][] = [
      [['henry', '--kv', redisUrl], '', /empty password/],
      [['henry', '--kv', redisUrl], '\nignored\n', /empty password/],
      [[], 'pw\n', /exactly one user/],
      [['a', 'b'], 'pw\n', /exactly one user/],
      [['hen:ry', '--kv', redisUrl], 'pw\n', /':'/],
      [['henry', '--kv', 'memcached://x'], 'pw\n', /lmdb.*redis:\/\/host:port/],
      [['henry', '--kv', 'redis://127.0.0.1:6379/x'], 'pw\n', /database/],
      [['henry', '--kv', redisUrl, '--redis-port', '1'], 'pw\n', /either/],
      [['henry', '--redis-port', 'abc'], 'pw\n', /redis-port/],
      [['henry', '--product', 'a.b', '--kv', redisUrl], 'pw\n', /product/],
      [['henry', '--bogus'], 'pw\n', /bogus/],
    ];
    for (const [argv, stdin, why] of cases) {
      const t = io(stdin);
      expect(await passwdMain(argv, t), argv.join(' ')).toBe(1);
      expect(t.err(), argv.join(' ')).toMatch(why);
      expect(t.out()).toBe('');
    }
    expect(redisCli('EXISTS', 'cento.user.henry.password')).toBe('0');
  });

  it('a Redis URL nobody listens on fails fast, naming the URL', async () => {
    const port = await freePort();
    const t = io('pw\n');
    const started = Date.now();
    expect(await passwdMain(['henry', '--kv', `redis://127.0.0.1:${port}`], t)).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(t.err()).toContain(`redis://127.0.0.1:${port}/0`);
    await expect(openKv(`redis://127.0.0.1:${port}/2`, tmp.dir)).rejects.toThrow(`redis://127.0.0.1:${port}/2`);
  });

  it('openKv rejects unknown forms, naming the accepted ones', async () => {
    await expect(openKv('etcd://x', tmp.dir)).rejects.toThrow(/'lmdb', 'lmdb:<path>' or 'redis:\/\/host:port\[\/db\]'/);
    await expect(openKv('lmdb:', tmp.dir)).rejects.toThrow(/path/);
  });

  it('--help', async () => {
    const t = io('');
    expect(await passwdMain(['--help'], t)).toBe(0);
    expect(t.out()).toMatch(/Usage: flowgate passwd <user>/);
  });
});
