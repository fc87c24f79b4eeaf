// The system endpoints over HTTP: get/system/stats (v0/v1/v2) and pro
// get/system/data compared with independent readings of the same machine
// (/proc/meminfo, /proc/loadavg, statfs and df of the data directory, du, the
// process's own RSS, the stored rows), connect/test and self_test, their
// codes, and delete/system/all_data: recorded at once, carried out at the
// next start on the same data directory, on DuckDB and on ClickHouse.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statfsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_PASSWORD, addUser, startApi, v0, v1, v2, type ApiService, type CallResult } from './fixtures/api.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { T0, perMinuteCapture } from './fixtures/ts-capture.js';
import { PURGE_FILE } from '../ts/services/purge.js';

const tmp = tempDir('flowgate-system-');
afterAll(() => tmp.cleanup());
const subdir = (name: string) => {
  const d = join(tmp.dir, name);
  mkdirSync(d, { recursive: true });
  return d;
};

// A: five active minutes from T0 (flows, series, alerts written); B: one packet an hour later
// (within the raw series' day of retention)
const capA = tmp.file('a.pcap', pcap(perMinuteCapture([0, 1, 2, 3, 4]).packets));
const T1 = T0 + 3600;
const capB = tmp.file(
  'b.pcap',
  pcap([{ tsNs: sec(T1), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1000, dport: 2000 }, Buffer.from('x')))) }]),
);

const pro = (p: string) => `/lua/pro/rest/v2/${p}.lua`;

function ok(r: CallResult): any {
  expect(r.body?.rc, r.text).toBe(0);
  return r.body.rsp;
}
function rc(r: CallResult, want: number): void {
  expect(r.body?.rc, r.text).toBe(want);
}

function meminfo(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync('/proc/meminfo', 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
/** `free`'s used (ntopng's Utils::luaMeminfo formula), kB */
const usedKb = (m: Record<string, number>) => m.MemTotal - m.MemFree - (m.Buffers + m.Cached + m.SReclaimable - m.Shmem);

async function count(s: ApiService, sql: string, params: (string | number)[] = []): Promise<number> {
  const rows = await s.history!.backend.query({ sql, params });
  return Number(rows[0]?.n ?? 0);
}

describe('system figures', () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [capA, capA], dataDir: subdir('figures'), history: true, timeseries: true, engine: { flushAtEnd: true } });
    await addUser(s, { username: 'viewer', password: 'Viewer-pw-1' });
    await addUser(s, { username: 'boxed', password: 'Boxed-pw-1', allowed_interface: '0' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('v1 get/system/stats has ntopng\'s fields (systemHostStats + epoch + storage) with their types', async () => {
    const r = ok(await s.call(v1('get/system/stats')));
    for (const k of ['cpu_load', 'mem_total', 'mem_used', 'mem_free', 'mem_buffers', 'mem_cached', 'mem_shmem', 'mem_sreclaimable', 'mem_ntopng_resident', 'mem_ntopng_virtual', 'dropped_alerts', 'written_alerts', 'alerts_queries', 'epoch', 'pid']) {
      expect(typeof r[k], k).toBe('number');
    }
    expect(Object.keys(r.cpu_states).sort()).toEqual(['guest', 'guest_nice', 'idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user']);
    expect(r.alerts_stats).toEqual({ alert_queues: { internal_alerts_queue: { pct_not_enqueued: expect.any(Number) } } });
    expect(Object.keys(r.storage).sort()).toEqual(
      ['data_dir', 'interfaces', 'other', 'pcap_total', 'total', 'volume_avail', 'volume_dev', 'volume_mount', 'volume_size', 'volume_used'].sort(),
    );
    expect(Math.abs(r.epoch - Date.now() / 1000)).toBeLessThan(5);
    expect(r.pid).toBe(process.pid);
  });

  it('memory agrees with /proc/meminfo read around the call (kB)', async () => {
    const before = meminfo();
    const r = ok(await s.call(v1('get/system/stats')));
    const after = meminfo();
    expect(r.mem_total).toBe(before.MemTotal);
    // the service caches its reading for a second: allow what moved meanwhile plus 2 % of the memory
    const slack = before.MemTotal * 0.02;
    const within = (v: number, a: number, b: number) => {
      expect(v).toBeGreaterThanOrEqual(Math.min(a, b) - slack);
      expect(v).toBeLessThanOrEqual(Math.max(a, b) + slack);
    };
    within(r.mem_free, before.MemFree, after.MemFree);
    within(r.mem_cached, before.Cached, after.Cached);
    within(r.mem_used, usedKb(before), usedKb(after));
    expect(r.mem_used).toBe(r.mem_total - r.mem_free - (r.mem_buffers + r.mem_cached + r.mem_sreclaimable - r.mem_shmem));
  });

  it("the process's memory is this process's (the service runs in the test's process): RSS within 30 %, kB", async () => {
    const r = ok(await s.call(v1('get/system/stats')));
    const rssKb = process.memoryUsage().rss / 1024;
    expect(r.mem_ntopng_resident).toBeGreaterThan(rssKb * 0.7);
    expect(r.mem_ntopng_resident).toBeLessThan(rssKb * 1.3);
    // kB, not bytes nor MB: tens of MB to a few GB
    expect(r.mem_ntopng_resident).toBeGreaterThan(20 * 1024);
    expect(r.mem_ntopng_resident).toBeLessThan(8 * 1024 * 1024);
    expect(r.mem_ntopng_virtual).toBeGreaterThanOrEqual(r.mem_ntopng_resident);
  });

  it('CPU: the load is /proc/loadavg\'s first figure; the states are percentages of one sampled delta', async () => {
    const a = ok(await s.call(v1('get/system/stats')));
    expect(Math.abs(a.cpu_load - loadavg()[0])).toBeLessThan(0.5);
    expect(Math.abs(a.cpu_load - Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]))).toBeLessThan(0.5);
    const total = Object.values(a.cpu_states as Record<string, number>).reduce((x, y) => x + y, 0);
    expect(total).toBeGreaterThan(99.9);
    expect(total).toBeLessThan(100.1);
    for (const v of Object.values(a.cpu_states as Record<string, number>)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(100);
    }
  });

  it('storage: the data directory\'s volume as statfs and df see it, its files as du counts them (bytes)', async () => {
    const fs0 = statfsSync(s.dataDir);
    const r = ok(await s.call(v1('get/system/stats'))).storage;
    const fs1 = statfsSync(s.dataDir);
    expect(r.volume_size).toBe(fs0.blocks * fs0.bsize);
    const used0 = (fs0.blocks - fs0.bfree) * fs0.bsize, used1 = (fs1.blocks - fs1.bfree) * fs1.bsize;
    expect(r.volume_used).toBeGreaterThanOrEqual(Math.min(used0, used1) - 64 * 2 ** 20);
    expect(r.volume_used).toBeLessThanOrEqual(Math.max(used0, used1) + 64 * 2 ** 20);
    expect(r.volume_avail).toBeLessThanOrEqual(fs0.bavail * fs0.bsize + 64 * 2 ** 20);
    const df = spawnSync('df', ['--output=source,target', s.dataDir], { encoding: 'utf8' }).stdout.trim().split('\n')[1].trim().split(/\s+/);
    expect(r.volume_dev).toBe(df[0]);
    expect(r.volume_mount).toBe(df[1]);
    // du counts the two directories' own blocks too
    const du = Number(spawnSync('du', ['-s', '--block-size=1', s.dataDir], { encoding: 'utf8' }).stdout.split('\t')[0]);
    expect(r.total).toBeGreaterThan(0);
    expect(Math.abs(r.total - du)).toBeLessThan(2 ** 20);
    expect(r.other).toBe(Math.max(0, r.volume_used - r.total));
    expect(r.data_dir).toBe(s.dataDir);
    expect(r.pcap_total).toBe(0);
  });

  it('queues: the flows written are the rows stored, the series points written the raw rows, the alert counters the alert service\'s', async () => {
    const r = ok(await s.call(v1('get/system/stats')));
    const flows = await count(s, 'SELECT count(*) AS n FROM flows');
    expect(flows).toBeGreaterThan(0);
    expect(r.queues.flow_export.flow_export_count).toBe(flows);
    const perIf = await Promise.all([0, 1].map(async (ifid) => ok(await s.call(v2('get/interface/data'), { query: { ifid } })).db.flow_export_count));
    expect(r.queues.flow_export.flow_export_count).toBe(perIf[0] + perIf[1]);
    expect(r.queues.timeseries.written).toBe(await count(s, 'SELECT count(*) AS n FROM ts_raw'));
    expect(r.queues.timeseries.written).toBeGreaterThan(0);
    expect(r.queues.timeseries.stored).toBe(true);
    // the alert service writes on its own schedule: compare an answer given while its counters stood still
    let a = r, sc = s.checking.alerts.systemCounters();
    for (let i = 0; i < 50; i++) {
      await s.checking.alerts.flush();
      const before = s.checking.alerts.systemCounters();
      a = ok(await s.call(v1('get/system/stats')));
      sc = s.checking.alerts.systemCounters();
      if (JSON.stringify(before) === JSON.stringify(sc)) break;
    }
    expect(a.queues.alerts).toMatchObject({ written: sc.written_alerts, dropped: sc.dropped_alerts, stored: true });
    expect(a.dropped_alerts).toBe(sc.dropped_alerts);
    expect(r.queues.notifications.dropped).toBe(s.checking.notifications.dropped);
  });

  it('v0 (bare) and v2 answer the same figures', async () => {
    const a = await s.call(v0('get/system/stats'));
    expect(a.status).toBe(200);
    expect(a.body.mem_total).toBe(meminfo().MemTotal);
    expect(a.body.rc).toBeUndefined();
    expect(ok(await s.call(v2('get/system/stats'))).mem_total).toBe(a.body.mem_total);
  });

  it('pro get/system/data: the stats, the service, the interfaces summed', async () => {
    const r = ok(await s.call(pro('get/system/data')));
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(r).toMatchObject({ product: 'flowgate', version: pkg.version, pid: process.pid, num_interfaces: 2, purge_pending: null });
    expect(r.mem_total).toBe(meminfo().MemTotal);
    expect(r.uptime).toBeGreaterThanOrEqual(0);
    expect(Math.abs(r.starttime + r.uptime - Date.now() / 1000)).toBeLessThan(3);
    const ifs = await Promise.all([0, 1].map(async (ifid) => ok(await s.call(v2('get/interface/data'), { query: { ifid } }))));
    expect(r.num_flows).toBe(ifs[0].num_flows + ifs[1].num_flows);
    expect(r.num_hosts).toBe(ifs[0].num_hosts + ifs[1].num_hosts);
    expect(r.num_hosts).toBeGreaterThan(0);
    expect(r.interfaces.map((i: any) => [i.ifid, i.ifname, i.num_flows, i.flow_export_count])).toEqual(ifs.map((i, ifid) => [ifid, i.ifname, i.num_flows, i.db.flow_export_count]));
    expect(r.interfaces[0].flow_export_count).toBeGreaterThan(0);
  });

  it('connect/test (the Python client\'s first call) and /lua/self_test.lua answer JSON', async () => {
    const r = await s.call(v2('connect/test'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ rc: 0, rc_str: 'OK', rsp: [] });
    const t = await s.call('/lua/self_test.lua');
    expect(t.body).toEqual({ response: 'OK' });
    // a non-administrator too (any user may test the connection)
    expect((await s.call(v2('connect/test'), { user: 'viewer', pw: 'Viewer-pw-1' })).body.rc).toBe(0);
    // a wrong password is not a working connection
    rc(await s.call(v2('connect/test'), { user: 'admin', pw: 'wrong' }), -3);
  });

  it('codes: no login -3; an unrestricted user reads the figures; a user bound to an interface -3 (isAllowedSystemInterface)', async () => {
    rc(await s.call(v1('get/system/stats'), { user: null }), -3);
    expect(ok(await s.call(v1('get/system/stats'), { user: 'viewer', pw: 'Viewer-pw-1' })).mem_total).toBeGreaterThan(0);
    rc(await s.call(v1('get/system/stats'), { user: 'boxed', pw: 'Boxed-pw-1' }), -3);
    rc(await s.call(pro('get/system/data'), { user: 'boxed', pw: 'Boxed-pw-1' }), -3);
  });

  it('delete/system/all_data: -3 for non-administrators, -5 with nothing (or nonsense) to purge; nothing recorded', async () => {
    const file = join(s.dataDir, PURGE_FILE);
    rc(await s.call(v2('delete/system/all_data'), { form: { datadir: 'true' }, user: 'viewer', pw: 'Viewer-pw-1' }), -3);
    rc(await s.call(v2('delete/system/all_data'), { form: {}, method: 'POST' }), -5);
    rc(await s.call(v2('delete/system/all_data'), { form: { clickhouse: 'false', datadir: 'false' } }), -5);
    rc(await s.call(v2('delete/system/all_data'), { form: { clickhouse: 'maybe' } }), -5);
    rc(await s.call(v2('delete/system/all_data'), { json: { datadir: 'everything' } }), -5);
    expect(existsSync(file)).toBe(false);
    expect(ok(await s.call(pro('get/system/data'))).purge_pending).toBeNull();
  });
});

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('delete/system/all_data on %s: carried out at the next start', (store, skip) => {
  let ch: ClickHouseServer | undefined;
  const services: ApiService[] = [];
  beforeAll(async () => {
    if (!skip) ch = store === 'clickhouse' ? await startClickHouse() : undefined;
  }, 60_000);
  afterAll(async () => {
    for (const s of services) await s.close();
    await ch?.stop();
  });

  // each case its own data directory (and ClickHouse database)
  let n = 0;
  async function pair(request: Record<string, string> | null) {
    const name = `${store}-${++n}`;
    const dataDir = subdir(name);
    // no age limit: the user alerts are stamped with today's time, the capture's flows with 2023's
    const history = { retentionDays: 0, ...(store === 'clickhouse' ? { clickhouse: { url: ch!.url(`purge_${n}`) } } : {}) };
    const a = await startApi({ files: [capA], dataDir, history, timeseries: true, engine: { flushAtEnd: true } });
    services.push(a);
    await addUser(a, { username: 'keeper', password: 'Keeper-pw-1' });
    const token = ok(await a.call(v2('create/monitor/api_token'), { form: { username: 'keeper' } })).api_token as string;
    ok(await a.call(v2('set/host/alias'), { form: { host: '192.168.1.10', custom_name: 'kept-alias' } }));
    const before = {
      flows: await count(a, 'SELECT count(*) AS n FROM flows'),
      series: await count(a, 'SELECT count(*) AS n FROM ts_raw'),
    };
    expect(before.flows, a.printed.join('\n')).toBeGreaterThan(0);
    expect(before.series).toBeGreaterThan(0);
    let recorded: any = null;
    if (request) {
      recorded = ok(await a.call(v2('delete/system/all_data'), { form: request }));
      // recorded at once, carried out later: everything is still there
      expect(existsSync(join(dataDir, PURGE_FILE))).toBe(true);
      expect(JSON.parse(readFileSync(join(dataDir, PURGE_FILE), 'utf8'))).toMatchObject({ requested_by: 'admin' });
      expect(await count(a, 'SELECT count(*) AS n FROM flows')).toBe(before.flows);
      expect(ok(await a.call(pro('get/system/data'))).purge_pending).toMatchObject({ clickhouse: recorded.clickhouse, datadir: recorded.datadir });
    }
    await a.close();
    const b = await startApi({ files: [capB], dataDir, history, timeseries: true, engine: { flushAtEnd: true } });
    services.push(b);
    // what A stored (before T1) is what is left of it
    const after = {
      flows: await count(b, 'SELECT count(*) AS n FROM flows WHERE FIRST_SEEN < ?', [T1]),
      series: await count(b, 'SELECT count(*) AS n FROM ts_raw WHERE tstamp < ?', [T1]),
      aliasAlerts: await count(b, "SELECT count(*) AS n FROM user_alerts WHERE json LIKE '%set_host_alias%'"),
    };
    // users, tokens and settings are kept whatever was purged
    expect(ok(await b.call(v1('get/system/stats'), { user: 'keeper', pw: 'Keeper-pw-1' })).mem_total).toBeGreaterThan(0);
    expect((await b.call(v2('connect/test'), { token })).body.rc).toBe(0);
    expect(ok(await b.call(v2('connect/test'), { user: 'admin', pw: ADMIN_PASSWORD }))).toEqual([]);
    expect([...b.api.store.db<string>('host_aliases').getRange()].map((e) => e.value)).toEqual(['kept-alias']);
    expect(existsSync(join(dataDir, PURGE_FILE))).toBe(false);
    expect(ok(await b.call(pro('get/system/data'))).purge_pending).toBeNull();
    return { before, after, b, dataDir, recorded };
  }

  it.skipIf(!!skip)('datadir: flows, alerts and series are gone; users, tokens, settings remain', async () => {
    const { after, b, dataDir, recorded } = await pair({ datadir: 'true' });
    expect(recorded).toMatchObject({ datadir: true, clickhouse: false, effective: 'next start' });
    expect(after).toEqual({ flows: 0, series: 0, aliasAlerts: 0 });
    expect(b.printed.join('\n')).toMatch(/purged all the historical data \(flows, alerts, timeseries\) as requested by admin/);
    if (store === 'duckdb') expect(b.printed.join('\n')).toContain(`deleted ${join(dataDir, 'history.duckdb')}`);
    // the service writes again into the purged store (B's own flow)
    expect(await count(b, 'SELECT count(*) AS n FROM flows WHERE FIRST_SEEN >= ?', [T1])).toBeGreaterThan(0);
  }, 120_000);

  it.skipIf(!!skip)('clickhouse (the flows database): flows and alerts are gone, the series stay', async () => {
    const { before, after, b } = await pair({ clickhouse: '1' });
    expect(after.flows).toBe(0);
    expect(after.aliasAlerts).toBe(0);
    expect(after.series).toBe(before.series);
    expect(b.printed.join('\n')).toMatch(/purged the flows database \(flows and stored alerts\)/);
  }, 120_000);

  it.skipIf(!!skip)('without a request nothing is removed', async () => {
    const { before, after, b } = await pair(null);
    expect(after.flows).toBe(before.flows);
    expect(after.series).toBe(before.series);
    expect(after.aliasAlerts).toBe(1);
    expect(b.printed.join('\n')).not.toMatch(/flowgate: purge/);
  }, 120_000);
});
