// Pools through the REST API (v1 and v2) on a capture built here: host pool
// membership by CIDR@VLAN, single address and MAC reaches every host record
// (host data, the host list's pool filter) within the next answer, the
// longest network wins and a MAC wins over networks (ntopng's
// HostPools::getPool); the other kinds' members are checked against what
// exists (interfaces, local networks); every code of the spec; the store
// keeps pools across a restart; flows stored carry their hosts' pools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, addUser, startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, eth, ipv4, ipv6, mac, udp, vlanTag } from './fixtures/frames.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const subdir = (name: string) => {
  const d = join(tmp.dir, name);
  mkdirSync(d);
  return d;
};
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});

const MAC1 = mac('02:00:00:00:01:01'), MAC2 = mac('02:00:00:00:01:02'), MAC3 = mac('02:00:00:00:01:03'), GW = mac('02:00:00:00:01:fe');
const H1 = '192.168.10.1', H2 = '192.168.10.2', H3 = '192.168.20.3', R = '8.8.8.8', V9 = '192.168.10.9';
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
const u = (t: number, src: Buffer, dst: Buffer, s: string, d: string, sport: number, dport: number): Packet => ({
  tsNs: at(t),
  data: eth(dst, src, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.from('hello')))),
});
const tagged = (t: number, vid: number, s: string, d: string): Packet => ({
  tsNs: at(t),
  data: eth(MAC2, MAC1, ETH.VLAN, vlanTag(vid, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, udp({ sport: 4000, dport: 4001 }, Buffer.from('v'))))),
});
const six = (t: number): Packet => ({
  tsNs: at(t),
  data: eth(MAC2, MAC1, ETH.IPV6, ipv6({ src: 'fd00::1', dst: 'fd00::2', next: IPPROTO.UDP }, udp({ sport: 5000, dport: 5001 }, Buffer.from('six')))),
});
const packets = [
  u(1, MAC1, GW, H1, R, 40001, 53),
  u(1.1, GW, MAC1, R, H1, 53, 40001),
  u(2, MAC2, GW, H2, R, 40002, 53),
  u(3, MAC3, MAC1, H3, H1, 40003, 9999),
  tagged(4, 7, H1, V9),
  six(5),
];
const file = tmp.file('pools.pcap', pcap(packets));

const ok = (r: { status: number; body: any }) => {
  expect(r.body?.rc, JSON.stringify(r.body)).toBe(0);
  return r.body.rsp;
};
const poolOf = async (s: ApiService, host: string, vlan = 0) => {
  const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host, vlan } });
  return ok(r).host_pool_id as number;
};
const listPool = async (s: ApiService, pool: number) => {
  const r = await s.call(v2('get/host/active'), { query: { ifid: 0, pool, perPage: 100 } });
  return (ok(r).data as { ip: string; vlan: number }[]).map((h) => `${h.ip}@${h.vlan}`).sort();
};

describe('host pools', () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [file], dataDir: subdir('pools-data') });
    services.push(s);
  });

  it('starts with the default pool and the jail, every host in pool 0', async () => {
    const pools = ok(await s.call(v2('get/host/pools')));
    expect(pools.map((p: any) => [p.pool_id, p.name, p.members])).toEqual([
      [0, 'Default', []],
      [1, 'Jailed Hosts', []],
    ]);
    for (const h of [H1, H2, H3, R]) expect(await poolOf(s, h)).toBe(0);
  });

  it('adds a pool by network and MAC: the hosts carry it in the next answer', async () => {
    const added = await s.call(v2('add/host/pool'), { form: { pool_name: 'Office', pool_members: '192.168.10.0/24@0,02:00:00:00:01:03' } });
    const r = ok(added);
    expect(r).toEqual({ pool_id: 2 });
    // ntopng's own success code for it (rest_utils.consts.success.pool_added)
    expect([added.body.rc_str, added.body.rc_str_hr]).toEqual(['POOL_ADDED_SUCCESSFULLY', 'Pool added successfully']);
    expect(await poolOf(s, H1)).toBe(2);
    expect(await poolOf(s, H2)).toBe(2);
    // outside the /24, but its MAC is a member
    expect(await poolOf(s, H3)).toBe(2);
    // the same address on VLAN 7 is another host, not in 192.168.10.0/24@0
    expect(await poolOf(s, H1, 7)).toBe(0);
    expect(await poolOf(s, R)).toBe(0);
    expect(await listPool(s, 2)).toEqual([`${H1}@0`, `${H2}@0`, `${H3}@0`]);
  });

  it('the longest network wins (a single address in a second pool)', async () => {
    // relaxed form: an address alone is address/32@0
    expect(ok(await s.call(v2('add/host/pool'), { form: { pool_name: 'Servers', pool_members: H2 } }))).toEqual({ pool_id: 3 });
    expect(await poolOf(s, H2)).toBe(3);
    expect(await poolOf(s, H1)).toBe(2);
    expect(await listPool(s, 3)).toEqual([`${H2}@0`]);
    const members = ok(await s.call(v2('get/host/pool/members'), { query: { pool: 3 } }));
    expect(members).toEqual([{ name: H2, vlan: 0, member: `${H2}/32@0`, type: 'ip', hostkey: H2 }]);
  });

  it('refuses what ntopng refuses, with its codes', async () => {
    const add = (form: Record<string, string>, user?: string) => s.call(v2('add/host/pool'), { form, ...(user ? { user, pw: 'Us3r-secret!' } : {}) });
    expect((await add({ pool_name: 'Office', pool_members: '' })).body.rc).toBe(-13); // duplicate name
    expect((await add({ pool_name: 'Bad', pool_members: '300.1.1.1' })).body.rc).toBe(-13);
    expect((await add({ pool_name: 'Bad', pool_members: '10.0.0.0/33@0' })).body.rc).toBe(-13);
    expect((await add({ pool_name: 'Bad', pool_members: '10.0.0.1@4096' })).body.rc).toBe(-13);
    // already a member of Office
    expect((await add({ pool_name: 'Bad', pool_members: '192.168.10.0/24@0' })).body.rc).toBe(-13);
    // the same network spelt with host bits is the same member
    expect((await add({ pool_name: 'Bad', pool_members: '192.168.10.77/24' })).body.rc).toBe(-13);
    expect((await add({ pool_name: 'Bad', pool_members: '', recipients: '63' })).body.rc).toBe(-13);
    expect((await add({ pool_members: '' } as Record<string, string>)).body.rc).toBe(-5);
    await addUser(s, { username: 'viewer', password: 'Us3r-secret!' });
    const denied = await add({ pool_name: 'Mine', pool_members: '' }, 'viewer');
    expect(denied.body.rc).toBe(-3);
    // nothing was added by the refused calls
    expect(ok(await s.call(v2('get/host/pools'))).map((p: any) => p.name)).toEqual(['Default', 'Jailed Hosts', 'Office', 'Servers']);
    // reading is for every user
    expect((await s.call(v2('get/host/pools'), { user: 'viewer', pw: 'Us3r-secret!' })).body.rc).toBe(0);
    void ADMIN_PASSWORD;
  });

  it('binds, moves and unbinds members', async () => {
    // H1 on VLAN 7 joins Servers
    ok(await s.call(v2('bind/host/pool/member'), { form: { pool: 3, member: `${H1}@7` } }));
    expect(await poolOf(s, H1, 7)).toBe(3);
    // a member of another pool is not taken over
    const taken = await s.call(v2('bind/host/pool/member'), { form: { pool: 2, member: `${H2}/32@0` } });
    expect(taken.body.rc).toBe(-17);
    expect(await poolOf(s, H2)).toBe(3);
    // to the default pool: it leaves Servers, and the /24 of Office takes it again
    ok(await s.call(v2('bind/host/pool/member'), { form: { pool: 0, member: H2 } }));
    expect(await poolOf(s, H2)).toBe(2);
    // action=edit replaces a member
    ok(await s.call(v2('bind/host/pool/member'), { form: { pool: 3, member: 'fd00::2', action: 'edit', old_member: `${H1}@7` } }));
    expect(await poolOf(s, H1, 7)).toBe(0);
    expect(await poolOf(s, 'fd00::2')).toBe(3);
    expect(await poolOf(s, 'fd00::1')).toBe(0);
    expect((await s.call(v2('bind/host/pool/member'), { form: { pool: 42, member: '10.1.1.1' } })).body.rc).toBe(-17);
    expect((await s.call(v2('bind/host/pool/member'), { form: { pool: 3, member: 'not-a-member' } })).body.rc).toBe(-17);
    expect((await s.call(v2('bind/host/pool/member'), { form: { pool: 3 } })).body.rc).toBe(-5);
    const by = ok(await s.call(v2('get/host/pool_by_member'), { query: { member: 'fd00::2/128@0' } }));
    expect([by.pool_id, by.name, by.members]).toEqual([3, 'Servers', ['fd00::2/128@0']]);
    expect(ok(await s.call(v2('get/host/pool_by_member'), { query: { member: 'fd00::2', pool_name_only: 'true' } }))).toEqual({ pool_id: 3, name: 'Servers' });
    expect(ok(await s.call(v2('get/host/pool_by_member'), { query: { member: '10.9.9.9' } }))).toEqual([]);
    expect((await s.call(v2('get/host/pool_by_member'))).body.rc).toBe(-5);
  });

  it('edits and deletes, with -14 and -16', async () => {
    ok(await s.call(v2('edit/host/pool'), { form: { pool: 2, pool_name: 'Office LAN', pool_members: '02:00:00:00:01:01' } }));
    // H1 now by its MAC; H2 and H3 are in no pool
    expect([await poolOf(s, H1), await poolOf(s, H2), await poolOf(s, H3)]).toEqual([2, 0, 0]);
    expect((await s.call(v2('edit/host/pool'), { form: { pool: 9, pool_name: 'x', pool_members: '' } })).body.rc).toBe(-14);
    expect((await s.call(v2('edit/host/pool'), { form: { pool: 3, pool_name: 'Office LAN', pool_members: '' } })).body.rc).toBe(-14);
    // the default pool keeps its name and has no members
    ok(await s.call(v2('edit/host/pool'), { form: { pool: 0, pool_name: 'Renamed', pool_members: '10.0.0.0/8@0' } }));
    const one = ok(await s.call(v2('get/host/pools'), { query: { pool: 0 } }));
    expect([one['0'].name, one['0'].members]).toEqual(['Default', []]);
    // a pool id 1-10 comes as ntopng's JSON encoder writes a one-key table: an array
    const two = ok(await s.call(v2('get/host/pools'), { query: { pool: 2 } }));
    expect([two.length, two[0], two[1].name]).toEqual([2, null, 'Office LAN']);
    ok(await s.call(v2('delete/host/pool'), { form: { pool: 2 } }));
    expect(await poolOf(s, H1)).toBe(0);
    expect((await s.call(v2('delete/host/pool'), { form: { pool: 2 } })).body.rc).toBe(-16);
    expect((await s.call(v2('get/host/pools'), { query: { pool: 2 } })).body.rc).toBe(-16);
    expect((await s.call(v2('get/host/pool/members'), { query: { pool: 2 } })).body.rc).toBe(-16);
    // the freed id is taken again by the next host pool (ntopng reuses the lowest)
    expect(ok(await s.call(v1('add/host/pool'), { form: { pool_name: 'Again', pool_members: '', confset_id: 0 } }))).toEqual({ pool_id: 2 });
    expect((await s.call(v1('add/host/pool'), { form: { pool_name: 'Other set', pool_members: '', confset_id: 4 } })).body.rc).toBe(-13);
  });

  it('a host table rebuilt at twice its size keeps the hosts pools', async () => {
    ok(await s.call(v2('bind/host/pool/member'), { form: { pool: 2, member: H3 } }));
    const before = [await poolOf(s, H1), await poolOf(s, H3), await poolOf(s, 'fd00::2')];
    expect(before).toEqual([0, 2, 3]);
    ok(await s.call(v2('edit/monitor/incr_hosts'), { method: 'POST' }));
    expect([await poolOf(s, H1), await poolOf(s, H3), await poolOf(s, 'fd00::2')]).toEqual(before);
  });

  it('keeps pools across a restart, applied from the first packet', async () => {
    const dataDir = subdir('pools-restart');
    const a = await startApi({ files: [file], dataDir });
    ok(await a.call(v2('add/host/pool'), { form: { pool_name: 'Kept', pool_members: '192.168.20.0/24' } }));
    await a.close();
    const b = await startApi({ files: [file], dataDir });
    services.push(b);
    const pools = ok(await b.call(v2('get/host/pools')));
    expect(pools.map((p: any) => [p.pool_id, p.name, p.members])).toEqual([
      [0, 'Default', []],
      [1, 'Jailed Hosts', []],
      [2, 'Kept', ['192.168.20.0/24@0']],
    ]);
    expect(await poolOf(b, H3)).toBe(2);
  });
});

describe('pools of the other kinds', () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [file] });
    services.push(s);
  });

  it('interface and network pools take only what exists', async () => {
    expect(ok(await s.call(v2('add/interface/pool'), { form: { pool_name: 'Uplinks', pool_members: '0' } }))).toEqual({ pool_id: 2 });
    expect((await s.call(v2('add/interface/pool'), { form: { pool_name: 'Ghost', pool_members: '5' } })).body.rc).toBe(-13);
    expect(ok(await s.call(v2('add/network/pool'), { form: { pool_name: 'Private', pool_members: '192.168.0.0/16' } }))).toEqual({ pool_id: 2 });
    expect((await s.call(v2('add/network/pool'), { form: { pool_name: 'Public', pool_members: '8.8.8.0/24' } })).body.rc).toBe(-13);
    const iface = ok(await s.call(v2('get/interface/pools')));
    expect(iface[1].member_details).toEqual({ '0': { name: expect.stringContaining('pools.pcap') } });
    // other kinds count ids up: a deleted id is not reused
    ok(await s.call(v2('delete/interface/pool'), { form: { pool: 2 } }));
    expect(ok(await s.call(v2('add/interface/pool'), { form: { pool_name: 'Uplinks', pool_members: '0' } }))).toEqual({ pool_id: 3 });
    // no SNMP device nor active monitoring host is configured: an empty pool only
    expect(ok(await s.call('/lua/pro/rest/v2/add/snmp/device/pool.lua', { form: { pool_name: 'Routers', pool_members: '' } }))).toEqual({ pool_id: 2 });
    expect((await s.call('/lua/pro/rest/v2/add/snmp/device/pool.lua', { form: { pool_name: 'R2', pool_members: '10.0.0.1' } })).body.rc).toBe(-13);
    expect(ok(await s.call(v2('get/active_monitoring/pool'))).map((p: any) => p.name)).toEqual(['Default']);
  });

  it('flow, mac, host_pool and system have their default pool only', async () => {
    expect((await s.call(v2('add/flow/pool'), { form: { pool_name: 'x', pool_members: '' } })).status).toBe(404);
    ok(await s.call(v2('edit/system/pool'), { form: { pool: 0, pool_name: 'Default', pool_members: '' } }));
    expect((await s.call(v2('edit/mac/pool'), { form: { pool: 2, pool_name: 'x', pool_members: '' } })).body.rc).toBe(-14);
    for (const k of ['flow', 'mac', 'host_pool', 'system']) expect(ok(await s.call(v2(`get/${k}/pools`))).map((p: any) => p.pool_id)).toEqual([0]);
  });

  it('get/pools lists every kind with its key; delete/pools leaves the builtin pools', async () => {
    const all = ok(await s.call(v2('get/pools')));
    const keys = [...new Set(all.map((p: any) => p.key))].sort();
    expect(keys).toEqual(['active_monitoring', 'flow', 'host', 'host_pool', 'interface', 'local_network', 'mac', 'snmp_device', 'system']);
    expect(all.filter((p: any) => p.key === 'interface').map((p: any) => p.name)).toEqual(['Default', 'Uplinks']);
    ok(await s.call(v2('delete/pools'), { method: 'POST' }));
    const after = ok(await s.call(v1('get/pools')));
    expect(after.filter((p: any) => p.pool_id !== 0).map((p: any) => [p.key, p.pool_id, p.name])).toEqual([['host', 1, 'Jailed Hosts']]);
    expect(after.length).toBe(10);
    // the id counters start again
    expect(ok(await s.call(v2('add/interface/pool'), { form: { pool_name: 'Uplinks', pool_members: '0' } }))).toEqual({ pool_id: 2 });
  });
});

describe('stored flows carry their hosts pools', () => {
  it('SRC/DST_HOST_POOL_ID of the flows table', async () => {
    const s = await startApi({
      files: [file],
      history: true,
      engine: { flushAtEnd: true },
      configure: async (_c, checking) => {
        await checking.pools.add('host', 'Office', ['192.168.10.0/24'], []);
      },
    });
    services.push(s);
    const rows = await s.history!.backend.query({ sql: 'SELECT IPV4_SRC_ADDR, IPV4_DST_ADDR, SRC_HOST_POOL_ID, DST_HOST_POOL_ID FROM flows WHERE IP_PROTOCOL_VERSION = 4 AND VLAN_ID = 0 ORDER BY FIRST_SEEN', params: [] });
    const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    expect(rows.map((r: any) => [ip(Number(r.IPV4_SRC_ADDR)), ip(Number(r.IPV4_DST_ADDR)), Number(r.SRC_HOST_POOL_ID), Number(r.DST_HOST_POOL_ID)])).toEqual([
      [H1, R, 2, 0],
      [H2, R, 2, 0],
      [H3, H1, 0, 2],
    ]);
  });
});

describe('every pool path, in v1 and v2', () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [file] });
    services.push(s);
    await addUser(s, { username: 'viewer', password: 'Us3r-secret!' });
  });

  it('answers on each of its URLs: required parameters -5, administrators only -3, then rc 0 or the kind\'s code', async () => {
    const { poolRoutes } = await import('../ts/api/monitoring/pools.routes.js');
    const { routeUrls } = await import('../ts/api/route.js');
    const urls = poolRoutes.flatMap((r) => routeUrls(r).map((u) => ({ r, url: u.url })));
    // 5 add + 5 delete + 9 edit + 11 get per kind, get/pools, delete/pools, 2 recipient/pools, members, bind, pool_by_member: 37 paths, twice
    expect(urls.length).toBe(74);
    expect(new Set(urls.map((u) => u.url.replace(/\/v[12]\//, '/v/'))).size).toBe(37);
    for (const { r, url } of urls) {
      const required = Object.entries(r.params).filter(([, z]) => !(z as unknown as { isOptional(): boolean }).isOptional()).map(([k]) => k);
      if (required.length) {
        const missing = await s.call(url, { form: { unrelated: 1 } });
        expect([url, missing.body?.rc]).toEqual([url, -5]);
      }
      if (r.perm === 'admin') {
        const denied = await s.call(url, { user: 'viewer', pw: 'Us3r-secret!', form: { pool: 0, pool_name: 'x', pool_members: '', member: '10.0.0.1' } });
        expect([url, denied.body?.rc]).toEqual([url, -3]);
      }
      // a well-formed call on pool 0 / recipient 0: success, or the code the kind gives for it
      const good = await s.call(url, { form: { pool: 0, pool_name: 'Default', pool_members: '', recipient_id: 0, member: '10.0.0.1' } });
      expect(good.status, url).not.toBe(404);
      const rc = good.body?.rc;
      if (url.includes('/add/')) expect([url, rc]).toEqual([url, -13]); // 'Default' exists in every kind
      else if (url.includes('/delete/') && !url.endsWith('/delete/pools.lua')) expect([url, rc]).toEqual([url, 0]); // the default pool comes back at once
      else expect([url, rc]).toEqual([url, 0]);
    }
  });
});
