// The egress policy REST API (nProbe Cento's paths) over HTTP: every path form
// for the three targets, set then read back, the rule in force (longest
// prefix, master protocols), 400/404/401, counters from the engine, the table
// pushed to the engine, persistence across restarts, rules file + API order,
// SIGHUP reload through the real `flowgate` program, and Redis credentials.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { hashPassword, passwordKey } from '../ts/egress/credentials.js';
import type { EgressStats } from '../ts/bindings/engine.js';
import { openLmdbKv, lmdbEnvPath } from '../ts/services/kv.js';
import {
  buildDist, canon, FakeEngine, freePort, get, registryId, spawnFlowgate, startApi, startRedis, USER, type Flowgate,
  type Redis, type Running,
} from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';

const TLS = registryId('TLS');
const DNS = registryId('DNS');
const YOUTUBE = registryId('YouTube');
const HTTP = registryId('HTTP');

const tmp = tempDir('flowgate-egress-api-');
let n = 0;
const freshDir = () => join(tmp.dir, `d${++n}`);

afterAll(() => tmp.cleanup());

/** Counters chosen by the test: every value distinct so a wrong pick shows. */
function stats(): EgressStats {
  const t = (target: 'aggregated' | 'balanced' | 'bridge', queue: number | undefined, base: number, output: string) => ({
    target,
    ...(queue !== undefined ? { queue } : {}),
    output,
    packets: base + 1,
    bytes: base + 2,
    forwarded: base + 3,
    discarded: base + 4,
    shunted: base + 5,
    sliced: base + 6,
    output_drops: base + 7,
    forwarded_bytes: base + 8,
    actions: { forward: base + 3, discard: base + 4, shunt: base + 5, 'slice-l4': 0, 'slice-l3': 0 },
    outputs: [],
    policies: [
      { scope: 'default' as const, action: 'forward' as const, packets: base + 10, bytes: base + 11 },
      { scope: 'subnet' as const, match: '10.0.0.0/8', action: 'discard' as const, packets: base + 20, bytes: base + 21 },
      { scope: 'subnet' as const, match: '10.1.0.0/16', action: 'forward' as const, packets: base + 30, bytes: base + 31 },
      // the engine names protocol rules by nDPI id (TLS = 91)
      { scope: 'protocol' as const, match: '91', action: 'discard' as const, packets: base + 40, bytes: base + 41 },
    ],
  });
  return {
    targets: [t('aggregated', 0, 1000, 'agg0'), t('aggregated', 1, 2000, 'agg1'), t('balanced', undefined, 3000, 'bal'), t('bridge', undefined, 4000, 'br0')],
  };
}

function targetCounters(base: number) {
  return {
    packets: base + 1, bytes: base + 2, forwarded: base + 3, discarded: base + 4, shunted: base + 5, sliced: base + 6, output_drops: base + 7,
  };
}

// ---- one service for the path / status / error tests ---------------------------------------------

describe('egress API over HTTP', () => {
  let s: Running;
  beforeAll(async () => {
    const engine = new FakeEngine();
    engine.stats = stats();
    s = await startApi({ dataDir: freshDir(), engine });
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('authentication', () => {
    it('no credentials: 401 with a Basic challenge, on known and unknown paths', async () => {
      for (const p of ['/egress/aggregated/default', '/egress/bridge/ip?subnet=10.0.0.0/8&action=discard', '/egress/nowhere', '/']) {
        const r = await s.call(p, null);
        expect(r.status, p).toBe(401);
        expect(r.headers.get('www-authenticate'), p).toMatch(/^Basic /);
      }
    });

    it('wrong password, unknown user, malformed header: 401', async () => {
      expect((await s.call('/egress/aggregated/default', [USER[0], 'wrong'])).status).toBe(401);
      expect((await s.call('/egress/aggregated/default', ['mallory', USER[1]])).status).toBe(401);
      expect((await s.call('/egress/aggregated/default', 'Basic !!!')).status).toBe(401);
      expect((await s.call('/egress/aggregated/default', 'Bearer abc')).status).toBe(401);
    });

    it('a 401 never changes a policy', async () => {
      const before = s.engine.tables.length;
      const r = await s.call('/egress/bridge/protocol/DNS?action=discard', [USER[0], 'wrong']);
      expect(r.status).toBe(401);
      expect(s.engine.tables.length).toBe(before);
      expect((await s.call('/egress/bridge/protocol/DNS')).body.action).toBe('forward');
    });

    it('the right password: 200', async () => {
      expect((await s.call('/egress/aggregated/default')).status).toBe(200);
    });
  });

  describe('every path form reads the status (no action)', () => {
    // [path, expected fields]
    const reads: [string, Record<string, unknown>][] = [
      ['/egress/aggregated/default', { target: 'aggregated', queue: 0, scope: 'default' }],
      ['/egress/aggregated/0/default', { target: 'aggregated', queue: 0, scope: 'default' }],
      ['/egress/aggregated/1/default', { target: 'aggregated', queue: 1, scope: 'default' }],
      ['/egress/aggregated/ip?subnet=192.0.2.0/24', { target: 'aggregated', queue: 0, scope: 'subnet', subnet: '192.0.2.0/24' }],
      ['/egress/aggregated/1/ip?subnet=192.0.2.0/24', { target: 'aggregated', queue: 1, scope: 'subnet', subnet: '192.0.2.0/24' }],
      ['/egress/aggregated/protocol/HTTP', { target: 'aggregated', queue: 0, scope: 'protocol', protocol: 'HTTP' }],
      ['/egress/aggregated/1/protocol/HTTP', { target: 'aggregated', queue: 1, scope: 'protocol', protocol: 'HTTP' }],
      ['/egress/balanced/default', { target: 'balanced', scope: 'default' }],
      ['/egress/balanced/ip?subnet=2001:db8:ff::/48', { target: 'balanced', scope: 'subnet', subnet: '2001:db8:ff::/48' }],
      ['/egress/balanced/protocol/HTTP', { target: 'balanced', scope: 'protocol', protocol: 'HTTP' }],
      ['/egress/bridge/default', { target: 'bridge', scope: 'default' }],
      ['/egress/bridge/ip?subnet=198.51.100.0/24', { target: 'bridge', scope: 'subnet', subnet: '198.51.100.0/24' }],
      ['/egress/bridge/protocol/HTTP', { target: 'bridge', scope: 'protocol', protocol: 'HTTP' }],
    ];
    for (const [p, want] of reads) {
      it(p, async () => {
        const before = s.engine.tables.length;
        const r = await s.call(p);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/application\/json/);
        expect(r.body).toMatchObject({ ...want, action: 'forward' });
        if (want.target !== 'aggregated') expect('queue' in r.body).toBe(false);
        expect(s.engine.tables.length, 'a read pushes no table').toBe(before);
      });
    }
    it('a trailing slash is the same path', async () => {
      const r = await s.call('/egress/bridge/default/');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ target: 'bridge', scope: 'default' });
    });
  });

  describe('set then read back', () => {
    // [set path (with action), read path, field checks, native target, what the native target must hold]
    const sets: [string, string, Record<string, unknown>, { target: string; queue?: number }, (t: any) => void][] = [
      [
        '/egress/aggregated/1/default?action=discard',
        '/egress/aggregated/1/default',
        { target: 'aggregated', queue: 1, scope: 'default', action: 'discard' },
        { target: 'aggregated', queue: 1 },
        (t) => expect(t.default).toBe('discard'),
      ],
      [
        '/egress/aggregated/1/ip?subnet=172.16.5.9/12&action=slice-l4',
        '/egress/aggregated/1/ip?subnet=172.16.0.0/12',
        { target: 'aggregated', queue: 1, scope: 'subnet', subnet: '172.16.0.0/12', action: 'slice-l4' },
        { target: 'aggregated', queue: 1 },
        (t) => expect(t.subnets).toContainEqual({ cidr: '172.16.0.0/12', action: 'slice-l4' }),
      ],
      [
        '/egress/aggregated/1/protocol/dns?action=shunt',
        '/egress/aggregated/1/protocol/DNS',
        { target: 'aggregated', queue: 1, scope: 'protocol', protocol: 'DNS', action: 'shunt' },
        { target: 'aggregated', queue: 1 },
        (t) => expect(t.protocols).toContainEqual({ id: DNS, action: 'shunt' }),
      ],
      [
        '/egress/balanced/default?action=slice-l3',
        '/egress/balanced/default',
        { target: 'balanced', scope: 'default', action: 'slice-l3' },
        { target: 'balanced' },
        (t) => expect(t.default).toBe('slice-l3'),
      ],
      [
        '/egress/balanced/ip?subnet=2001:db8:aa::5/48&action=discard',
        '/egress/balanced/ip?subnet=2001:db8:aa::/48',
        { target: 'balanced', scope: 'subnet', subnet: '2001:db8:aa::/48', action: 'discard' },
        { target: 'balanced' },
        (t) => expect(t.subnets).toContainEqual({ cidr: '2001:db8:aa::/48', action: 'discard' }),
      ],
      [
        '/egress/balanced/protocol/YouTube?action=slice-l4',
        '/egress/balanced/protocol/youtube',
        { target: 'balanced', scope: 'protocol', protocol: 'YouTube', action: 'slice-l4' },
        { target: 'balanced' },
        (t) => expect(t.protocols).toContainEqual({ id: YOUTUBE, action: 'slice-l4' }),
      ],
      [
        '/egress/bridge/default?action=shunt',
        '/egress/bridge/default',
        { target: 'bridge', scope: 'default', action: 'shunt' },
        { target: 'bridge' },
        (t) => expect(t.default).toBe('shunt'),
      ],
      [
        '/egress/bridge/ip?subnet=203.0.113.0/24&action=forward',
        '/egress/bridge/ip?subnet=203.0.113.0/24',
        { target: 'bridge', scope: 'subnet', subnet: '203.0.113.0/24', action: 'forward' },
        { target: 'bridge' },
        (t) => expect(t.subnets).toContainEqual({ cidr: '203.0.113.0/24', action: 'forward' }),
      ],
      [
        '/egress/bridge/protocol/http?action=discard',
        '/egress/bridge/protocol/HTTP',
        { target: 'bridge', scope: 'protocol', protocol: 'HTTP', action: 'discard' },
        { target: 'bridge' },
        (t) => expect(t.protocols).toContainEqual({ id: HTTP, action: 'discard' }),
      ],
    ];
    for (const [setPath, readPath, want, nt, check] of sets) {
      it(setPath, async () => {
        const before = s.engine.tables.length;
        const r = await s.call(setPath);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body).toMatchObject(want);
        const back = await s.call(readPath);
        expect(back.status).toBe(200);
        expect(back.body).toMatchObject(want);
        // the engine got a new table holding the rule
        expect(s.engine.tables.length).toBeGreaterThan(before);
        const t = s.engine.last.targets.find((x) => x.target === nt.target && (nt.queue === undefined || x.queue === nt.queue));
        expect(t, JSON.stringify(s.engine.last)).toBeDefined();
        check(t);
      });
    }

    it('queue 1 changes leave queue 0 alone', async () => {
      await s.call('/egress/aggregated/1/default?action=discard');
      expect((await s.call('/egress/aggregated/0/default')).body.action).toBe('forward');
      expect((await s.call('/egress/aggregated/default')).body.action).toBe('forward');
      const q0 = s.engine.last.targets.find((x) => x.target === 'aggregated' && x.queue === 0);
      if (q0) expect(q0.default).toBe('forward');
    });

    it('no queue segment is queue 0', async () => {
      await s.call('/egress/aggregated/protocol/HTTP?action=slice-l3');
      expect((await s.call('/egress/aggregated/0/protocol/HTTP')).body).toMatchObject({ queue: 0, action: 'slice-l3' });
      expect((await s.call('/egress/aggregated/1/protocol/HTTP')).body.action).not.toBe('slice-l3');
      const q0 = s.engine.last.targets.find((x) => x.target === 'aggregated' && x.queue === 0);
      expect(q0?.protocols).toContainEqual({ id: HTTP, action: 'slice-l3' });
    });

    it('the later change wins', async () => {
      await s.call('/egress/bridge/ip?subnet=100.64.0.0/10&action=discard');
      await s.call('/egress/bridge/ip?subnet=100.64.0.0/10&action=slice-l3');
      expect((await s.call('/egress/bridge/ip?subnet=100.64.0.0/10')).body.action).toBe('slice-l3');
      const br = s.engine.last.targets.find((x) => x.target === 'bridge')!;
      expect(br.subnets.filter((x) => x.cidr === '100.64.0.0/10')).toEqual([{ cidr: '100.64.0.0/10', action: 'slice-l3' }]);
    });

    it('changes made at the same moment are numbered apart (a total order)', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.call(`/egress/bridge/ip?subnet=198.18.${i}.0/24&action=discard`)));
      const seqs = [...s.store.db<{ seq: number }>('egress_policies').getRange()].map((e) => e.value.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
    });

    it('action is case-insensitive on input and reported in lower case', async () => {
      const r = await s.call('/egress/aggregated/1/ip?subnet=192.0.2.128/25&action=DISCARD');
      expect(r.status).toBe(200);
      expect(r.body.action).toBe('discard');
    });
  });

  describe('the rule in force', () => {
    it('a /16 query under a /8 discard rule reports the /8 rule, its action and its counters', async () => {
      expect((await s.call('/egress/aggregated/ip?subnet=10.0.0.0/8&action=discard')).status).toBe(200);
      const r = await s.call('/egress/aggregated/ip?subnet=10.2.0.0/16');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        target: 'aggregated',
        queue: 0,
        scope: 'subnet',
        subnet: '10.2.0.0/16',
        action: 'discard',
        rule: { scope: 'subnet', match: '10.0.0.0/8' },
        output: 'agg0',
        counters: { rule: { packets: 1020, bytes: 1021 }, target: targetCounters(1000) },
      });
    });

    it('a longer prefix inside wins over the /8', async () => {
      await s.call('/egress/aggregated/ip?subnet=10.1.0.0/16&action=forward');
      const r = await s.call('/egress/aggregated/ip?subnet=10.1.2.0/24');
      expect(r.body).toMatchObject({ action: 'forward', rule: { scope: 'subnet', match: '10.1.0.0/16' }, counters: { rule: { packets: 1030 } } });
      // and outside the /16 the /8 still decides
      expect((await s.call('/egress/aggregated/ip?subnet=10.200.0.0/16')).body).toMatchObject({ action: 'discard', rule: { match: '10.0.0.0/8' } });
    });

    it('IPv6: a /48 query under a /32 rule', async () => {
      await s.call('/egress/bridge/ip?subnet=2001:db8::/32&action=shunt');
      const r = await s.call('/egress/bridge/ip?subnet=2001:db8:1234::/48');
      expect(r.body).toMatchObject({ action: 'shunt', rule: { scope: 'subnet', match: '2001:db8::/32' } });
    });

    it('a query wider than every rule reports the default', async () => {
      const r = await s.call('/egress/aggregated/ip?subnet=8.0.0.0/6');
      expect(r.body).toMatchObject({ action: 'forward', rule: { scope: 'default' }, counters: { rule: { packets: 1010, bytes: 1011 } } });
    });

    it('a protocol without a rule reports the default of its target', async () => {
      await s.call('/egress/balanced/default?action=discard');
      const r = await s.call('/egress/balanced/protocol/QUIC');
      expect(r.body).toMatchObject({ protocol: 'QUIC', action: 'discard', rule: { scope: 'default' } });
    });

    it('a rule on a master protocol (TLS) covers TLS.YouTube until YouTube has its own rule', async () => {
      expect((await s.call('/egress/aggregated/1/protocol/TLS?action=discard')).status).toBe(200);
      const covered = await s.call('/egress/aggregated/1/protocol/TLS.YouTube');
      expect(covered.status).toBe(200);
      expect(covered.body).toMatchObject({ action: 'discard', rule: { scope: 'protocol', match: 'TLS' } });
      expect((await s.call('/egress/aggregated/1/protocol/YouTube?action=forward')).status).toBe(200);
      const own = await s.call('/egress/aggregated/1/protocol/TLS.YouTube');
      expect(own.body).toMatchObject({ action: 'forward', rule: { scope: 'protocol', match: 'YouTube' } });
    });

    it('protocol counters come from the rule in force on the right queue', async () => {
      await s.call('/egress/aggregated/1/protocol/TLS?action=discard');
      const r = await s.call('/egress/aggregated/1/protocol/TLS');
      expect(r.body).toMatchObject({
        queue: 1,
        action: 'discard',
        rule: { scope: 'protocol', match: 'TLS' },
        output: 'agg1',
        counters: { rule: { packets: 2040, bytes: 2041 }, target: targetCounters(2000) },
      });
    });

    it('balanced and bridge counters', async () => {
      expect((await s.call('/egress/balanced/default')).body).toMatchObject({ output: 'bal', counters: { rule: { packets: 3010 }, target: targetCounters(3000) } });
      expect((await s.call('/egress/bridge/default')).body).toMatchObject({ output: 'br0', counters: { rule: { packets: 4010 }, target: targetCounters(4000) } });
    });

    it('the engine table carries the protocol ids of the registry', async () => {
      await s.call('/egress/bridge/protocol/TLS?action=slice-l4');
      const br = s.engine.last.targets.find((x) => x.target === 'bridge')!;
      expect(br.protocols).toContainEqual({ id: TLS, action: 'slice-l4' });
      expect('queue' in br).toBe(false);
    });
  });

  describe('400 with a body saying what is wrong', () => {
    const bad: [string, RegExp][] = [
      ['/egress/aggregated/default?action=drop', /drop/],
      ['/egress/aggregated/default?action=', /action/i],
      ['/egress/balanced/ip?subnet=10.0.0.0/8&action=accept', /accept/],
      ['/egress/bridge/protocol/TLS?action=slice', /slice/],
      ['/egress/aggregated/ip?subnet=10.0.0.0/33&action=discard', /10\.0\.0\.0\/33/],
      ['/egress/balanced/ip?subnet=2001:db8::/129', /2001:db8::\/129/],
      ['/egress/bridge/ip?subnet=not-a-net&action=discard', /not-a-net/],
      ['/egress/bridge/ip?action=discard', /subnet/i],
      ['/egress/bridge/ip', /subnet/i],
      ['/egress/aggregated/protocol/NoSuchProto?action=discard', /NoSuchProto/],
      ['/egress/balanced/protocol/NoSuchProto', /NoSuchProto/],
      ['/egress/aggregated/2/default?action=discard', /queue/i],
      ['/egress/aggregated/2/default', /queue/i],
      ['/egress/aggregated/7/ip?subnet=10.0.0.0/8', /queue/i],
      ['/egress/aggregated/99999999999999999999/protocol/TLS', /queue/i],
    ];
    for (const [p, mention] of bad) {
      it(p, async () => {
        const before = s.engine.tables.length;
        const r = await s.call(p);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(typeof r.body.error).toBe('string');
        expect(r.body.error).toMatch(mention);
        expect(s.engine.tables.length, 'a rejected call pushes no table').toBe(before);
      });
    }

    it('a rejected set leaves the policy as it was', async () => {
      await s.call('/egress/balanced/ip?subnet=192.0.2.0/24&action=shunt');
      expect((await s.call('/egress/balanced/ip?subnet=192.0.2.0/24&action=drop')).status).toBe(400);
      expect((await s.call('/egress/balanced/ip?subnet=192.0.2.0/24')).body.action).toBe('shunt');
    });

    it('leading-zero subnet: 400, not a rule on another network', async () => {
      const r = await s.call('/egress/bridge/ip?subnet=010.0.0.0/8&action=discard');
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect((await s.call('/egress/bridge/ip?subnet=8.0.0.0/8')).body.rule).toEqual({ scope: 'default' });
    });

    it('unknown master in master.app protocol name: 400', async () => {
      const r = await s.call('/egress/bridge/protocol/NoSuchMaster.YouTube?action=discard');
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toMatch(/NoSuchMaster/);
    });

    it('a protocol name that is not valid percent-encoding: 400, not 500', async () => {
      for (const p of ['/egress/bridge/protocol/%25?action=discard', '/egress/bridge/protocol/%?action=discard', '/egress/bridge/protocol/%E0%A4%A']) {
        const r = await s.call(p);
        expect(r.status, `${p} ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error).toMatch(/protocol/i);
      }
    });
  });

  describe('404 for unknown paths', () => {
    const unknown = [
      '/egress/balanced/0/default',
      '/egress/balanced/1/ip?subnet=10.0.0.0/8',
      '/egress/balanced/2/protocol/TLS?action=discard',
      '/egress/bridge/0/default?action=discard',
      '/egress/bridge/1/protocol/TLS',
      '/egress/nowhere/default',
      '/egress/aggregated/0/1/default',
      '/egress/aggregated/defaults',
      '/egress/aggregated/protocol',
      '/egress/aggregated/protocol/',
      '/egress/aggregated/protocol/TLS/extra',
      '/egress/aggregated/ip/10.0.0.0',
      '/egress/aggregated',
      '/egress',
      '/',
      '/lua/rest/v2/get/ntopng/interfaces.lua',
    ];
    for (const p of unknown) {
      it(p, async () => {
        const before = s.engine.tables.length;
        const r = await s.call(p);
        expect(r.status, JSON.stringify(r.body)).toBe(404);
        expect(s.engine.tables.length).toBe(before);
      });
    }
  });
});

describe('a KV store without users', () => {
  it('answers 401 to everything', async () => {
    const s = await startApi({ dataDir: freshDir(), users: {} });
    try {
      for (const auth of [null, ['admin', 'admin'], ['cento', ''], ['root', 'root'], USER] as const) {
        for (const p of ['/egress/aggregated/default', '/egress/bridge/default?action=discard', '/egress/nowhere']) {
          const r = await s.call(p, auth as [string, string] | null);
          expect(r.status, `${p} ${JSON.stringify(auth)}`).toBe(401);
        }
      }
      expect(s.engine.tables.every((t) => t.targets.length === 0)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

// ---- persistence, rules file ---------------------------------------------------------------------

describe('persistence', () => {
  it('API policies come back after a restart and the engine receives them at start', async () => {
    const dir = freshDir();
    const a = await startApi({ dataDir: dir });
    let expected;
    try {
      for (const p of [
        '/egress/aggregated/1/default?action=discard',
        '/egress/aggregated/ip?subnet=10.9.8.7/8&action=shunt',
        '/egress/aggregated/ip?subnet=10.9.8.7/8&action=slice-l4', // later wins
        '/egress/balanced/protocol/tls?action=slice-l3',
        '/egress/bridge/ip?subnet=2001:db8::1/32&action=discard',
        '/egress/bridge/protocol/DNS?action=shunt',
      ]) {
        expect((await a.call(p)).status, p).toBe(200);
      }
      expected = canon(a.engine.last);
    } finally {
      await a.close();
    }
    expect(canon(expected)).toMatchObject({
      targets: expect.arrayContaining([
        expect.objectContaining({ target: 'aggregated', queue: 1, default: 'discard' }),
        expect.objectContaining({ target: 'aggregated', queue: 0, subnets: [{ cidr: '10.0.0.0/8', action: 'slice-l4' }] }),
        expect.objectContaining({ target: 'balanced', protocols: [{ id: TLS, action: 'slice-l3' }] }),
        expect.objectContaining({ target: 'bridge', subnets: [{ cidr: '2001:db8::/32', action: 'discard' }], protocols: [{ id: DNS, action: 'shunt' }] }),
      ]),
    });

    const engine = new FakeEngine();
    const b = await startApi({ dataDir: dir, engine, users: {} }); // the user stays in the KV too
    try {
      expect(engine.tables.length, 'table pushed at start').toBeGreaterThanOrEqual(1);
      expect(canon(engine.tables[0]!)).toEqual(expected);
      expect((await b.call('/egress/aggregated/1/default')).body.action).toBe('discard');
      expect((await b.call('/egress/aggregated/ip?subnet=10.0.0.0/8')).body.action).toBe('slice-l4');
      expect((await b.call('/egress/balanced/protocol/TLS')).body.action).toBe('slice-l3');
      expect((await b.call('/egress/bridge/ip?subnet=2001:db8:5::/48')).body).toMatchObject({ action: 'discard', rule: { match: '2001:db8::/32' } });
      expect((await b.call('/egress/bridge/protocol/DNS')).body.action).toBe('shunt');
      expect((await b.call('/egress/aggregated/0/default')).body.action).toBe('forward');
    } finally {
      await b.close();
    }
  });
});

const RULES = `# test rules
[egress.aggregated]
default = discard
[egress.aggregated.subnet]
10.0.0.0/8 = discard
192.168.0.0/16 = slice-l4
[egress.aggregated.1.protocol]
DNS = shunt
[bridge.protocol]
TLS = shunt
[shunt]
tcp = 4
`;

describe('rules file and API changes', () => {
  it('the file is in force at start; API changes go on top and survive a restart with the same file', async () => {
    const dir = freshDir();
    const rules = join(dir + '-rules.ini');
    writeFileSync(rules, RULES);
    const a = await startApi({ dataDir: dir, rulesFile: rules });
    try {
      expect(a.engine.tables.length).toBeGreaterThanOrEqual(1);
      expect(canon(a.engine.tables[0]!)).toEqual({
        shunt: { default: 10, l4: { 6: 4 }, apps: {} },
        targets: [
          {
            target: 'aggregated',
            queue: 0,
            default: 'discard',
            subnets: [
              { cidr: '10.0.0.0/8', action: 'discard' },
              { cidr: '192.168.0.0/16', action: 'slice-l4' },
            ],
            protocols: [],
          },
          { target: 'aggregated', queue: 1, default: 'forward', subnets: [], protocols: [{ id: DNS, action: 'shunt' }] },
          { target: 'bridge', default: 'forward', subnets: [], protocols: [{ id: TLS, action: 'shunt' }] },
        ],
      });
      expect((await a.call('/egress/aggregated/default')).body.action).toBe('discard');
      expect((await a.call('/egress/aggregated/ip?subnet=10.3.0.0/16')).body).toMatchObject({ action: 'discard', rule: { match: '10.0.0.0/8' } });
      expect((await a.call('/egress/aggregated/1/protocol/DNS')).body.action).toBe('shunt');
      // API over the file
      expect((await a.call('/egress/aggregated/ip?subnet=10.0.0.0/8&action=forward')).status).toBe(200);
      expect((await a.call('/egress/bridge/protocol/TLS?action=discard')).status).toBe(200);
      expect((await a.call('/egress/aggregated/ip?subnet=10.3.0.0/16')).body.action).toBe('forward');
      expect((await a.call('/egress/bridge/protocol/TLS')).body.action).toBe('discard');
      const agg0 = a.engine.last.targets.find((x) => x.target === 'aggregated' && x.queue === 0)!;
      expect(agg0.subnets).toContainEqual({ cidr: '10.0.0.0/8', action: 'forward' });
      expect(agg0.subnets).toContainEqual({ cidr: '192.168.0.0/16', action: 'slice-l4' });
    } finally {
      await a.close();
    }
    const b = await startApi({ dataDir: dir, rulesFile: rules, users: {} });
    try {
      const agg0 = b.engine.tables[0]!.targets.find((x) => x.target === 'aggregated' && x.queue === 0)!;
      expect(agg0.default).toBe('discard'); // from the file
      expect(agg0.subnets).toContainEqual({ cidr: '10.0.0.0/8', action: 'forward' }); // the API change
      expect((await b.call('/egress/aggregated/ip?subnet=10.3.0.0/16')).body.action).toBe('forward');
      expect((await b.call('/egress/bridge/protocol/TLS')).body.action).toBe('discard');
      expect((await b.call('/egress/aggregated/ip?subnet=192.168.1.0/24')).body.action).toBe('slice-l4');
    } finally {
      await b.close();
    }
  });

  it('reload(): new file rules apply, API changes stay on top, a broken file keeps the current rules', async () => {
    const dir = freshDir();
    const rules = join(dir + '-rules.ini');
    writeFileSync(rules, RULES);
    const a = await startApi({ dataDir: dir, rulesFile: rules });
    try {
      await a.call('/egress/bridge/protocol/TLS?action=discard');
      writeFileSync(rules, RULES.replace('default = discard', 'default = slice-l3').replace('192.168.0.0/16 = slice-l4', '192.168.0.0/16 = shunt'));
      const before = a.engine.tables.length;
      a.api.service.reload();
      expect(a.engine.tables.length).toBe(before + 1);
      expect((await a.call('/egress/aggregated/default')).body.action).toBe('slice-l3');
      expect((await a.call('/egress/aggregated/ip?subnet=192.168.7.0/24')).body.action).toBe('shunt');
      expect((await a.call('/egress/bridge/protocol/TLS')).body.action).toBe('discard');

      writeFileSync(rules, '[egress.aggregated]\ndefault = forward\n[bridge.protocol]\nNoSuchProto = discard\n');
      const n = a.engine.tables.length;
      expect(() => a.api.service.reload()).toThrow(/:4\b.*NoSuchProto/);
      expect(a.engine.tables.length).toBe(n);
      expect((await a.call('/egress/aggregated/default')).body.action).toBe('slice-l3');
      expect((await a.call('/egress/aggregated/ip?subnet=192.168.7.0/24')).body.action).toBe('shunt');
    } finally {
      await a.close();
    }
  });

  it('a broken rules file at start is an error naming file:line', async () => {
    const dir = freshDir();
    const rules = join(dir + '-rules.ini');
    writeFileSync(rules, '[egress.aggregated]\ndefault = nope\n');
    await expect(startApi({ dataDir: dir, rulesFile: rules })).rejects.toThrow(/rules\.ini:2\b.*nope/);
  });
});

// ---- the real program: SIGHUP, Redis -------------------------------------------------------------

const PCAP = '/work/shared/pcaps/ndpi/among_us.pcap';

describe('flowgate program', () => {
  const procs: Flowgate[] = [];
  let redis: Redis | undefined;
  beforeAll(() => {
    buildDist();
  });
  afterAll(async () => {
    for (const p of procs) await p.stop();
    await redis?.stop();
  });

  async function launch(dataDir: string, extra: string[]): Promise<{ fg: Flowgate; url: string }> {
    const [httpPort, egressPort] = [await freePort(), await freePort()];
    const fg = spawnFlowgate(
      ['-i', PCAP, '-q', '--bind', '127.0.0.1', '--http-port', String(httpPort), '--egress-port', String(egressPort), '--data-dir', dataDir, ...extra],
      { FLOWGATE_ADMIN_PASSWORD: 'admin-pw-for-tests' },
    );
    procs.push(fg);
    const m = await fg.waitFor(/egress API on (https?:\/\/\S+?)\/egress\//, 60_000);
    return { fg, url: m[1]! };
  }

  it('SIGHUP re-reads the rules file; a broken file keeps the old rules and the service runs on', async () => {
    const dir = freshDir();
    const rules = join(dir + '-rules.ini');
    writeFileSync(rules, RULES);
    // the user goes into the LMDB KV of the data directory before the program opens it
    const kv = openLmdbKv(lmdbEnvPath(dir));
    await kv.set(passwordKey('cento', USER[0]), hashPassword(USER[1]));
    await kv.close();

    const { fg, url } = await launch(dir, ['--egress-rules', rules]);
    const q = (p: string) => get(url, p, USER);
    expect((await q('/egress/aggregated/default')).body).toMatchObject({ action: 'discard' });
    expect((await q('/egress/bridge/protocol/TLS')).body).toMatchObject({ action: 'shunt' });
    expect((await q('/egress/aggregated/default')).status).toBe(200);
    expect((await q('/egress/aggregated/default')).body).toMatchObject({ target: 'aggregated', queue: 0 });
    // an API change, which a re-read of the file must not undo
    expect((await q('/egress/bridge/protocol/DNS?action=slice-l4')).status).toBe(200);
    expect((await get(url, '/egress/aggregated/default', null)).status).toBe(401);

    writeFileSync(rules, RULES.replace('default = discard', 'default = slice-l3').replace('TLS = shunt', 'TLS = forward\nHTTP = discard'));
    fg.proc.kill('SIGHUP');
    await fg.waitFor(/re-read/, 30_000, 1);
    expect((await q('/egress/aggregated/default')).body.action).toBe('slice-l3');
    expect((await q('/egress/bridge/protocol/TLS')).body.action).toBe('forward');
    expect((await q('/egress/bridge/protocol/HTTP')).body.action).toBe('discard');
    expect((await q('/egress/bridge/protocol/DNS')).body.action).toBe('slice-l4');

    writeFileSync(rules, '[egress.aggregated]\ndefault = forward\n[bridge.subnet]\n10.0.0.0/99 = discard\n');
    fg.proc.kill('SIGHUP');
    const m = await fg.waitFor(/egress: (.*)\(rules unchanged\)/, 30_000, 1);
    expect(m[1]).toMatch(/rules\.ini:4\b/);
    expect(fg.proc.exitCode).toBeNull();
    expect(fg.proc.signalCode).toBeNull();
    expect((await q('/egress/aggregated/default')).body.action).toBe('slice-l3');
    expect((await q('/egress/bridge/protocol/HTTP')).body.action).toBe('discard');

    // and a fixed file is picked up again by the next SIGHUP
    writeFileSync(rules, '[egress.aggregated]\ndefault = shunt\n');
    fg.proc.kill('SIGHUP');
    await fg.waitFor(/re-read/, 30_000, 2);
    expect((await q('/egress/aggregated/default')).body.action).toBe('shunt');
    expect((await q('/egress/bridge/protocol/HTTP')).body.action).toBe('forward');
  });

  it('API changes persist across a restart of the program', async () => {
    const dir = freshDir();
    const kv = openLmdbKv(lmdbEnvPath(dir));
    await kv.set(passwordKey('cento', USER[0]), hashPassword(USER[1]));
    await kv.close();
    const first = await launch(dir, []);
    expect((await get(first.url, '/egress/bridge/ip?subnet=10.0.0.0/8&action=discard', USER)).status).toBe(200);
    expect((await get(first.url, '/egress/aggregated/protocol/DNS?action=shunt', USER)).status).toBe(200);
    expect(await first.fg.stop()).toBe(0);
    const second = await launch(dir, []);
    expect((await get(second.url, '/egress/bridge/ip?subnet=10.20.0.0/16', USER)).body).toMatchObject({ action: 'discard', rule: { match: '10.0.0.0/8' } });
    expect((await get(second.url, '/egress/aggregated/protocol/DNS', USER)).body.action).toBe('shunt');
  });

  it('--kv redis://: a password written with redis-cli SET authenticates', async () => {
    const dir = freshDir();
    // a user in the data directory's LMDB KV: must not count when --kv names Redis
    const kv = openLmdbKv(lmdbEnvPath(dir));
    await kv.set(passwordKey('cento', USER[0]), hashPassword(USER[1]));
    await kv.close();
    redis = await startRedis(tmp.dir);
    expect(redis.cli('SET', passwordKey('cento', 'bob'), hashPassword('bob-pw'))).toBe('OK');
    const { url } = await launch(dir, ['--kv', redis.url]);
    expect((await get(url, '/egress/bridge/default', ['bob', 'bob-pw'])).status).toBe(200);
    expect((await get(url, '/egress/bridge/default', ['bob', 'nope'])).status).toBe(401);
    expect((await get(url, '/egress/bridge/default', null)).status).toBe(401);
    // the LMDB KV is not consulted when Redis is named
    expect((await get(url, '/egress/bridge/default', USER)).status).toBe(401);
    // a password changed in Redis applies at once, without a restart
    expect(redis.cli('SET', passwordKey('cento', 'bob'), hashPassword('new-pw'))).toBe('OK');
    expect((await get(url, '/egress/bridge/default', ['bob', 'new-pw'])).status).toBe(200);
    expect((await get(url, '/egress/bridge/default', ['bob', 'bob-pw'])).status).toBe(401);
    // a different product word
    const other = await launch(freshDir(), ['--kv', redis.url, '--kv-product', 'svc']);
    expect((await get(other.url, '/egress/bridge/default', ['bob', 'new-pw'])).status).toBe(401);
    expect(redis.cli('SET', passwordKey('svc', 'carol'), hashPassword('carol-pw'))).toBe('OK');
    expect((await get(other.url, '/egress/bridge/default', ['carol', 'carol-pw'])).status).toBe(200);
  });
});
