// Active monitoring through the API of the real service: the page scripts
// edit_active_monitoring_host.lua (every answer and error) and
// get_active_monitoring_hosts.lua (the list's fields), the v1/v2 export /
// reset / import of its configuration (round trip, -5, -27, -28), a host of
// an active_monitoring pool whose alert reaches the pool's webhook, the
// points read back with get/timeseries/ts.lua on ifid -1, and a restart
// keeping the configuration. Rounds are run by hand (runRound).
import { mkdirSync } from 'node:fs';
import { createServer as createHttp, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { runClosers } from './fixtures/util.js';
import { httpReceiver } from './fixtures/receivers.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const closers: (() => unknown)[] = [];
afterAll(async () => {
  await runClosers(closers, 'active-monitoring-api');
  tmp.cleanup();
});

const page = (p: string) => `/lua/${p}.lua`;
const AM_THRESHOLD_CROSS = 4119;

/** An HTTP server on 127.0.0.1: '/slow' answers after 600 ms. */
async function httpServer(port = 0) {
  const srv: HttpServer = createHttp((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('late'), 600);
    else res.end('hello');
  });
  await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r));
  return { port: (srv.address() as AddressInfo).port, close: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))) };
}

let s: ApiService;
let web: Awaited<ReturnType<typeof httpServer>>;
let hook: Awaited<ReturnType<typeof httpReceiver>>;
let poolId = -1;
let dataDir = '';
const file = tmp.file('one.pcap', pcap([{ tsNs: BigInt(T0) * 1_000_000_000n, data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1000, dport: 2000 }, Buffer.from('x')))) }]));

beforeAll(async () => {
  web = await httpServer();
  closers.push(() => web.close());
  hook = await httpReceiver();
  closers.push(() => hook.close());
  dataDir = join(tmp.dir, 'data');
  mkdirSync(dataDir);
  s = await startApi({
    files: [file],
    timeseries: true,
    dataDir,
    configure: async (_checks, checking) => {
      // rounds run by hand only
      checking.activeMonitoring.pause();
      const n = checking.notifications;
      const e = await n.addEndpoint('webhook', 'am-hook', { webhook_url: hook.url });
      const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'am-hook-r', categories: '', minimumSeverity: '3', bindToAllPools: false, given: {} });
      poolId = await checking.pools.add('active_monitoring', 'Probes', [], [r.recipient_id as number]);
    },
  });
  closers.push(() => s.close());
});

const edit = (form: Record<string, string | number | undefined>, user?: string | null) => s.call(page('edit_active_monitoring_host'), { form, user });
const list = async () => (await s.call(page('get_active_monitoring_hosts'))).body as any[];

describe('edit_active_monitoring_host.lua', () => {
  it('answers each error as ntopng ({error, success: false}), adds, edits, deletes', async () => {
    const url = `http://127.0.0.1:${web.port}/`;
    expect((await edit({ am_host: url, measurement: 'http' })).body).toEqual({ error: 'Something went wrong (empty action). Reload the page and try again.', success: false });
    expect((await edit({ action: 'add', measurement: 'http' })).body).toEqual({ error: 'Missing "am_host" parameter', success: false });
    expect((await edit({ action: 'add', am_host: url })).body).toEqual({ error: 'Missing "measurement" parameter', success: false });
    expect((await edit({ action: 'move', am_host: url, measurement: 'http' })).body).toEqual({ error: 'Bad "action" paramater', success: false });
    expect((await edit({ action: 'add', am_host: 'no-such-host.invalid', measurement: 'icmp' })).body).toEqual({ error: 'Invalid host specified', success: false });
    expect((await edit({ action: 'add', am_host: url, measurement: 'dns' })).body.error).toMatch(/^unknown measurement 'dns'/);
    expect((await edit({ action: 'add', am_host: url, measurement: 'http', granularity: 'day' })).body.error).toMatch(/^invalid granularity 'day'/);
    expect((await edit({ action: 'add', am_host: url, measurement: 'http', threshold: 'fast' })).body.error).toBe("invalid threshold 'fast'");
    expect((await edit({ action: 'add', am_host: url, measurement: 'http', pool: 77 })).body.error).toBe('active monitoring pool 77 does not exist');
    // administrators only
    const anon = await edit({ action: 'add', am_host: url, measurement: 'http' }, null);
    expect(anon.status).not.toBe(200);

    expect((await edit({ action: 'add', am_host: url, measurement: 'http', threshold: 400, granularity: 'min' })).body).toEqual({ message: `Host ${url} was successfully added!`, success: true });
    expect((await edit({ action: 'add', am_host: url, measurement: 'http' })).body).toEqual({ error: `Measurement HTTP(S) already defined for ${url}`, success: false });
    expect((await edit({ action: 'add', am_host: '127.0.0.1', measurement: 'icmp', threshold: 100 })).body.success).toBe(true);

    const ed = { action: 'edit', am_host: url, measurement: 'http', threshold: 300, granularity: '5mins' };
    expect((await edit(ed)).body).toEqual({ error: 'Missing "old_am_host" parameter', success: false });
    expect((await edit({ ...ed, old_am_host: url })).body).toEqual({ error: 'Missing "old_measurement" parameter', success: false });
    expect((await edit({ ...ed, old_am_host: url, old_measurement: 'http' })).body).toEqual({ error: 'Missing "old_granularity" parameter', success: false });
    expect((await edit({ ...ed, old_am_host: 'http://nowhere/', old_measurement: 'http', old_granularity: 'min' })).body).toEqual({ error: 'Host "http://nowhere/" not found', success: false });
    // renamed onto an existing host
    expect((await edit({ action: 'edit', am_host: '127.0.0.1', measurement: 'icmp', old_am_host: url, old_measurement: 'http', old_granularity: 'min' })).body).toEqual({
      error: 'Measurement ICMP already defined for 127.0.0.1',
      success: false,
    });
    expect((await edit({ ...ed, old_am_host: url, old_measurement: 'http', old_granularity: 'min' })).body).toEqual({ message: `Host ${url} was successfully edited!`, success: true });
    // the key changes: the old host goes, the new one comes
    expect((await edit({ action: 'edit', am_host: '127.0.0.2', measurement: 'icmp', threshold: 90, old_am_host: '127.0.0.1', old_measurement: 'icmp', old_granularity: 'min' })).body.success).toBe(true);
    expect((await list()).map((h) => [h.key, h.threshold, h.granularity]).sort()).toEqual([
      [`http@${url}`, 300, '5mins'],
      ['icmp@127.0.0.2', 90, 'min'],
    ]);

    expect((await edit({ action: 'delete', am_host: '127.0.0.9', measurement: 'icmp' })).body).toEqual({ error: 'Host "127.0.0.9" not found', success: false });
    expect((await edit({ action: 'delete', am_host: '127.0.0.2', measurement: 'icmp' })).body).toEqual({ message: 'Host 127.0.0.2 was successfully deleted!', success: true });
    expect((await edit({ action: 'delete', am_host: url, measurement: 'http' })).body.success).toBe(true);
    expect(await list()).toEqual([]);
  });
});

describe('a host of an active_monitoring pool', () => {
  it('is listed with its pool and results; its alert reaches the pool\'s webhook; its points are read back on ifid -1', async () => {
    const url = `http://127.0.0.1:${web.port}/`;
    const slow = `http://127.0.0.1:${web.port}/slow`;
    expect((await edit({ action: 'add', am_host: url, measurement: 'http', threshold: 50, pool: poolId })).body.success).toBe(true);
    // not in the pool: its alerts never reach the webhook
    expect((await edit({ action: 'add', am_host: slow, measurement: 'http', threshold: 50 })).body.success).toBe(true);
    const p = await s.call(v2('get/active_monitoring/pools'));
    expect(p.body.rsp.find((x: any) => x.pool_id === poolId).members).toEqual([`http@${url}`]);

    const before = await list();
    expect(before.find((h) => h.host === url)).toEqual({
      key: `http@${url}`, label: url, html_label: url, host: url, alerted: 0, measurement: 'HTTP(S)', measurement_key: 'http', chart: '', threshold: 50,
      last_measure: '', value_js_formatter: 'NtopUtils.fmillis', last_mesurement_time: '', last_ip: '', ifname: '', granularity: 'min',
      availability: '', hours: [], unit: 'ms', jitter: '', pool: poolId, readonly: false,
    });

    const am = s.checking.activeMonitoring;
    await am.runRound('min');
    const last = am.lastUpdate(url, 'http')!;
    const after = (await list()).find((h) => h.host === url);
    expect(after).toMatchObject({
      alerted: 0, last_measure: last.value, last_mesurement_time: last.when, last_ip: '127.0.0.1', availability: 100,
      chart: `/lua/monitor/active_monitoring_monitor.lua?am_host=${url}&measurement=http&page=historical`,
    });
    expect(after.hours.filter((c: number) => c === 1).length).toBe(1);
    expect((await list()).find((h) => h.host === slow)).toMatchObject({ alerted: 1, pool: 0, availability: 0 });

    // the value written, read back (ifid -1)
    const now = Math.floor(Date.now() / 1000);
    const ts = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'am_host:val_min', ts_query: `ifid:-1,host:${url},metric:http`, epoch_begin: now - 600, epoch_end: now + 60 } });
    expect(ts.body.rc).toBe(0);
    const values = (ts.body.rsp.series[0].data as (number | null)[]).filter((v) => v !== null);
    expect(values).toEqual([last.value]);
    expect(ts.body.rsp.metadata.query).toEqual({ ifid: '-1', host: url, metric: 'http' });
    const stats = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'am_host:http_stats_min', ts_query: `ifid:-1,host:${url},metric:http`, epoch_begin: now - 600, epoch_end: now + 60 } });
    expect(stats.body.rsp.series.map((x: any) => x.id).sort()).toEqual(['lookup_ms', 'other_ms']);
    // a system schema lives on -1 only
    const bad = await s.call(v2('get/timeseries/ts'), { query: { ts_schema: 'am_host:val_min', ts_query: `ifid:0,host:${url},metric:http`, epoch_begin: now - 600, epoch_end: now + 60 } });
    expect(bad.body.rc).toBe(-2);

    // the server stops: unreachable, the pool's webhook is told; back: released
    await web.close();
    await am.runRound('min');
    const port = web.port;
    web = await httpServer(port);
    await am.runRound('min');
    await s.checking.notifications.idle();
    const told = hook.hits.flatMap((h) => h.body.alerts) as any[];
    expect(told.map((a) => [a.action, a.entity_val])).toEqual([
      ['engage', `http@${url}`],
      ['release', `http@${url}`],
    ]);
    for (const a of told) expect(a).toMatchObject({ alert_id: AM_THRESHOLD_CROSS, entity_id: 8, severity: 4, pool_id: poolId });

    // stored as ntopng's active_monitoring_alerts row
    await s.checking.alerts.flush();
    const r = await s.call(v2('get/am_host/alert/list'), { query: { ifid: 0, status: 'historical', epoch_begin: now - 600, epoch_end: now + 600, length: 100 } });
    expect(r.body.rc).toBe(0);
    const rec = (r.body.rsp.records ?? r.body.rsp.data ?? r.body.rsp) as any[];
    // unreachable over http: no address was resolved, the host stands for it (as ntopng)
    expect(rec.map((x) => [x.family, x.alert_id.value, x.resolved_ip, x.measurement, x.measure_threshold, x.measure_value, x.severity.value, x.score.value])).toEqual([
      ['am', String(AM_THRESHOLD_CROSS), url, 'http', '0', 0, 4, 50],
    ]);
  });
});

describe('export, reset, import', () => {
  it('round-trips every host exactly; answers -5, -27 and -28', async () => {
    const url = `http://127.0.0.1:${web.port}/`;
    await edit({ action: 'add', am_host: '127.0.0.1', measurement: 'icmp', threshold: 25, granularity: 'hour' });
    await edit({ action: 'add', am_host: `127.0.0.1:${web.port}`, measurement: 'tcp', threshold: 10, granularity: '5mins' });
    const ex = await s.call(v2('export/active_monitoring/config'));
    expect(ex.body.rc).toBe(0);
    const env = ex.body.rsp;
    expect(env).toEqual({
      version: '1.0',
      modules: {
        // am_import_export: the hosts (res) and the hosts to scan (vs_config)
        active_monitoring: {
          res: {
            [`http@${url}`]: { show_iface: false, ifname: '', threshold: 50, granularity: 'min', save_result: false, readonly: false },
            [`http@${url}slow`]: { show_iface: false, ifname: '', threshold: 50, granularity: 'min', save_result: false, readonly: false },
            'icmp@127.0.0.1': { show_iface: false, ifname: '', threshold: 25, granularity: 'hour', save_result: false, readonly: false },
            [`tcp@127.0.0.1:${web.port}`]: { show_iface: false, ifname: '', threshold: 10, granularity: '5mins', save_result: false, readonly: false },
          },
          vs_config: [],
        },
      },
    });
    // the file itself (v1 POST)
    const dl = await s.call(v1('export/active_monitoring/config'), { form: { download: 'true' } });
    expect(dl.headers.get('content-disposition')).toBe('attachment; filename="configuration.json"');
    expect(dl.body).toEqual(env);

    expect((await s.call(v1('reset/active_monitoring/config'), { form: {} })).body.rc).toBe(0);
    expect(await list()).toEqual([]);
    // the pool lost its member with the host
    expect((await s.call(v2('get/active_monitoring/pools'))).body.rsp.find((x: any) => x.pool_id === poolId).members).toEqual([]);

    expect((await s.call(v2('import/active_monitoring/config'), { form: { JSON: JSON.stringify(env) } })).body.rc).toBe(0);
    expect((await s.call(v2('export/active_monitoring/config'))).body.rsp).toEqual(env);
    // again, as the JSON body (v1): the same hosts, edited in place
    expect((await s.call(v1('import/active_monitoring/config'), { json: env })).body.rc).toBe(0);
    expect((await s.call(v2('export/active_monitoring/config'))).body.rsp).toEqual(env);

    expect((await s.call(v2('import/active_monitoring/config'), { form: { JSON: JSON.stringify({ version: '2.0', modules: {} }) } })).body.rc).toBe(-5);
    expect((await s.call(v2('import/active_monitoring/config'), { form: { JSON: '{not json' } })).body.rc).toBe(-5);
    expect((await s.call(v2('import/active_monitoring/config'), { form: { JSON: JSON.stringify({ version: '1.0', modules: { scripts: {} } }) } })).body.rc).toBe(-27);
    const partial = await s.call(v2('import/active_monitoring/config'), {
      form: {
        JSON: JSON.stringify({
          version: '1.0',
          modules: { active_monitoring: { 'icmp@127.0.0.3': { threshold: 7, granularity: 'min' }, 'dns@127.0.0.1': { threshold: 1 }, 'tcp@127.0.0.1': { threshold: 1 }, 'icmp@127.0.0.4': { granularity: 'weekly' } } },
        }),
      },
    });
    expect(partial.body.rc).toBe(-28);
    expect(partial.body.rc_str).toBe('PARTIAL_IMPORT');
    const keys = (await list()).map((h) => h.key);
    expect(keys).toContain('icmp@127.0.0.3');
    expect(keys).not.toContain('icmp@127.0.0.4');
    expect((await list()).find((h) => h.key === 'icmp@127.0.0.3')).toMatchObject({ threshold: 7, granularity: 'min' });
  });
});

describe('a restart', () => {
  it('keeps the configuration and the pool binding', async () => {
    const url = `http://127.0.0.1:${web.port}/`;
    expect((await edit({ action: 'edit', am_host: url, measurement: 'http', threshold: 50, granularity: 'min', pool: poolId, old_am_host: url, old_measurement: 'http', old_granularity: 'min' })).body.success).toBe(true);
    const conf = (await s.call(v2('export/active_monitoring/config'))).body.rsp;
    const listed = (await list()).map((h) => [h.key, h.pool]);
    await s.close();
    s = await startApi({ files: [file], dataDir, configure: async (_c, checking) => checking.activeMonitoring.pause() });
    expect((await s.call(v2('export/active_monitoring/config'))).body.rsp).toEqual(conf);
    expect((await list()).map((h) => [h.key, h.pool])).toEqual(listed);
    expect(listed.find(([k]) => k === `http@${url}`)![1]).toBe(poolId);
  });
});
