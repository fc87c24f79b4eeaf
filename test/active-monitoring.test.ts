// Active monitoring against real targets started here: HTTP (a server that
// is stopped, then started again on the same port; a slow path), HTTPS with
// a self-signed certificate, a TCP listener, ICMP to 127.0.0.1 and ::1 with
// the system ping, and a host inside a network namespace whose link is set
// down. Rounds are run by hand (runRound); values above a threshold come from
// a server delaying its answer far beyond it, never from timing assertions.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttp, type Server as HttpServer } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { createServer as createTcp, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ActiveMonitoring, AM_THRESHOLD_CROSS, type ActiveMonitoringOptions } from '../ts/services/active-monitoring/index.js';
import { alertKeyText, type AlertInput, type AlertKey, type AlertSink, type EngagedAlert } from '../ts/services/alerts/types.js';
import { ConfigStore } from '../ts/services/config-store.js';
import type { Point } from '../ts/services/timeseries/store.js';
import { waitFor } from './fixtures/receivers.js';
import { runClosers } from './fixtures/util.js';

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterAll(async () => {
  await runClosers(closers, 'active-monitoring');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An AlertSink keeping engaged alerts and every release. */
class Sink implements AlertSink {
  readonly live = new Map<string, EngagedAlert>();
  readonly released: { key: AlertKey; tstamp: number }[] = [];
  engage(a: AlertInput) {
    const k = alertKeyText(a);
    const cur = this.live.get(k);
    this.live.set(k, { ...a, firstSeen: cur?.firstSeen ?? a.tstamp, count: (cur?.count ?? 0) + 1 });
  }
  release(key: AlertKey, tstamp: number) {
    if (this.live.delete(alertKeyText(key))) this.released.push({ key, tstamp });
  }
  engaged(family: string, ifid: number) {
    return [...this.live.values()].filter((a) => a.family === family && a.ifid === ifid);
  }
  emit() {}
  of(entityVal: string) {
    return this.engaged('am_host', -1).find((a) => a.entityVal === entityVal);
  }
}

async function open(o: Partial<ActiveMonitoringOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-am-'));
  dirs.push(dir);
  const store = new ConfigStore(dir);
  const sink = new Sink();
  const points: Point[] = [];
  const am = ActiveMonitoring.open(store, { sink, log: () => {}, timeoutMs: 3000, ...o });
  am.setTimeseries({ write: (p) => void points.push(...p) });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await am.stop();
    await store.close();
  };
  closers.push(close);
  return { am, sink, points, close, dir };
}

/** An HTTP server on 127.0.0.1: '/slow' answers after `delayMs`. */
async function httpServer(port = 0, delayMs = 600) {
  const srv: HttpServer = createHttp((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('late'), delayMs);
    else res.end('hello');
  });
  await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r));
  return { srv, port: (srv.address() as AddressInfo).port, close: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))) };
}

const hasPing = spawnSync('ping', ['-V']).status === 0;

describe('http', () => {
  it('measures, alerts above the threshold, alerts while unreachable, releases when answered again', async () => {
    let web = await httpServer();
    const port = web.port;
    const { am, sink, points } = await open({ now: () => 1_700_000_000_000 });
    const url = `http://127.0.0.1:${port}/`;
    const slow = `http://127.0.0.1:${port}/slow`;
    expect(await am.add({ host: url, measurement: 'http', threshold: 50 })).toBe(`http@${url}`);
    expect(await am.add({ host: slow, measurement: 'http', threshold: '50' })).toBe(`http@${slow}`);

    await am.runRound('min');
    const fast = am.lastUpdate(url, 'http')!;
    expect(fast.ip).toBe('127.0.0.1');
    expect(fast.when).toBe(1_700_000_000);
    expect(fast.value).toBeGreaterThan(0);
    expect(sink.of(`http@${url}`)).toBeUndefined();
    // the slow path: 600 ms against a 50 ms threshold
    const late = am.lastUpdate(slow, 'http')!;
    expect(late.value).toBeGreaterThan(50);
    const a = sink.of(`http@${slow}`)!;
    expect(a).toMatchObject({ family: 'am_host', ifid: -1, alertId: AM_THRESHOLD_CROSS, subtype: '', score: 50, severity: 4, tstamp: 1_700_000_000 });
    expect(a.json).toEqual({
      value: late.value,
      threshold: 50,
      ip: '127.0.0.1',
      host: { label: slow, is_infrastructure: false, measurement: 'http', host: slow },
      operator: 'gt',
      unit: 'active_monitoring_stats.msec',
    });
    expect(a.fields).toEqual({ resolved_ip: '127.0.0.1', resolved_name: slow, measurement: 'http', measure_threshold: 50, measure_value: late.value });
    // points: the value and the http breakdown, on the minute, for ifid -1 (stored 65535)
    const mine = points.filter((p) => p.tags === `host=${url},metric=http`);
    expect(mine.map((p) => [p.ifid, p.schema, p.metric, p.tstamp]).sort()).toEqual(
      [
        [65535, 'am_host:http_stats_min', 'lookup_ms', 1_699_999_980],
        [65535, 'am_host:http_stats_min', 'other_ms', 1_699_999_980],
        [65535, 'am_host:val_min', 'value', 1_699_999_980],
      ].sort(),
    );
    expect(mine.find((p) => p.metric === 'value')!.value).toBe(fast.value);
    // a literal address is not looked up: all of the time is "other"
    expect(mine.find((p) => p.metric === 'lookup_ms')!.value).toBe(0);

    // the server stops: both unreachable (value 0, threshold 0 as ntopng)
    await web.close();
    points.length = 0;
    await am.runRound('min');
    for (const h of [url, slow]) {
      const u = sink.of(`http@${h}`)!;
      expect(u.json).toMatchObject({ value: 0, threshold: 0, ip: h });
      expect(u.fields).toMatchObject({ measure_value: 0, measure_threshold: 0 });
    }
    expect(points.filter((p) => p.schema === 'am_host:val_min').map((p) => p.value)).toEqual([0, 0]);
    expect(points.some((p) => p.schema.startsWith('am_host:http_stats'))).toBe(false);
    // the last update stays the last answer
    expect(am.lastUpdate(url, 'http')!.value).toBe(fast.value);

    // started again on the same port: the fast one is released, the slow one stays (over threshold)
    web = await httpServer(port);
    closers.push(() => web.close());
    await am.runRound('min');
    expect(sink.of(`http@${url}`)).toBeUndefined();
    expect(sink.released.map((r) => r.key.entityVal)).toEqual([`http@${url}`]);
    expect(sink.of(`http@${slow}`)!.json).toMatchObject({ threshold: 50 });
    expect(sink.of(`http@${slow}`)!.count).toBe(3);

    // hour stats of the fast one: ok, unreachable, ok in the same hour
    const hs = am.hourStatsOf(url, 'http')!;
    const hour = String(new Date(1_700_000_000_000).getHours());
    expect(hs[hour]).toEqual({ num_ok: 2, num_exceeded: 0, num_unreachable: 1 });
    const view = am.list().find((h) => h.key === `http@${url}`)!;
    expect(view.availability!.pct).toBeCloseTo(200 / 3, 10);
    expect(view.availability!.hours[Number(hour)]).toBe(3);
    expect(view.availability!.hours.filter((c) => c === 0).length).toBe(23);
    expect(am.list().find((h) => h.key === `http@${slow}`)!.alerted).toBe(true);
  });

  it('a threshold edit releases the alert and drops the hour stats; deleting releases too', async () => {
    const web = await httpServer(0, 600);
    closers.push(() => web.close());
    const { am, sink } = await open();
    const slow = `http://127.0.0.1:${web.port}/slow`;
    await am.add({ host: slow, measurement: 'http', threshold: 50 });
    await am.runRound('min');
    expect(sink.of(`http@${slow}`)).toBeDefined();
    await am.edit({ host: slow, measurement: 'http' }, { host: slow, measurement: 'http', threshold: 5000 });
    expect(sink.of(`http@${slow}`)).toBeUndefined();
    expect(am.hourStatsOf(slow, 'http')).toBeNull();
    await am.runRound('min');
    expect(sink.of(`http@${slow}`)).toBeUndefined();
    expect(am.get(slow, 'http')!.threshold).toBe(5000);
    await am.edit({ host: slow, measurement: 'http' }, { host: slow, measurement: 'http', threshold: 50 });
    await am.runRound('min');
    expect(sink.of(`http@${slow}`)).toBeDefined();
    await am.delete(slow, 'http');
    expect(sink.of(`http@${slow}`)).toBeUndefined();
    expect(am.keys()).toEqual([]);
    expect(am.lastUpdate(slow, 'http')).toBeNull();
  });
});

describe('https with a self-signed certificate', () => {
  let port = 0;
  beforeAll(async () => {
    const d = mkdtempSync(join(tmpdir(), 'flowgate-am-tls-'));
    dirs.push(d);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', join(d, 'k'), '-out', join(d, 'c')], { stdio: 'ignore' });
    const srv = createHttps({ key: readFileSync(join(d, 'k')), cert: readFileSync(join(d, 'c')) }, (_req, res) => res.end('tls'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    port = (srv.address() as AddressInfo).port;
    closers.push(() => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))));
  });

  it('is unreachable when certificates are verified (ntopng without --insecure)', async () => {
    const { am, sink } = await open();
    const url = `https://localhost:${port}/`;
    await am.add({ host: url, measurement: 'http', threshold: 1000 });
    await am.runRound('min');
    expect(am.lastUpdate(url, 'http')).toBeNull();
    expect(sink.of(`http@${url}`)!.json).toMatchObject({ value: 0, threshold: 0 });
  });

  it('is measured with insecureTls: https writes lookup, connect (TLS) and other; http of an https URL lookup and other', async () => {
    const { am, sink, points } = await open({ insecureTls: true });
    const url = `https://localhost:${port}/`;
    await am.add({ host: url, measurement: 'https', threshold: 5000 });
    // the http measurement given a bare host name is http://; here a full https URL
    await am.add({ host: url, measurement: 'http', threshold: 5000, granularity: '5mins' });
    await am.runRound('min');
    await am.runRound('5mins');
    for (const m of ['https', 'http']) {
      const u = am.lastUpdate(url, m)!;
      expect(u.value).toBeGreaterThan(0);
      expect(['127.0.0.1', '::1']).toContain(u.ip);
      expect(sink.of(`${m}@${url}`)).toBeUndefined();
    }
    const https = points.filter((p) => p.tags === `host=${url},metric=https`);
    expect(https.map((p) => `${p.schema}/${p.metric}`).sort()).toEqual(['am_host:https_stats_min/connect_ms', 'am_host:https_stats_min/lookup_ms', 'am_host:https_stats_min/other_ms', 'am_host:val_min/value']);
    // the TLS handshake took some time, the name was looked up (localhost)
    expect(https.find((p) => p.metric === 'connect_ms')!.value).toBeGreaterThan(0);
    expect(https.find((p) => p.metric === 'lookup_ms')!.value).toBeGreaterThan(0);
    const http = points.filter((p) => p.tags === `host=${url},metric=http`);
    expect(http.map((p) => `${p.schema}/${p.metric}`).sort()).toEqual(['am_host:http_stats_5mins/lookup_ms', 'am_host:http_stats_5mins/other_ms', 'am_host:val_5mins/value']);
    for (const p of http) expect(p.tstamp % 300).toBe(0);
  });
});

describe('tcp', () => {
  it('measures the connect time, unreachable when nothing listens', async () => {
    const srv: Server = createTcp((s) => s.end());
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    const { am, sink } = await open();
    await am.add({ host: `127.0.0.1:${port}`, measurement: 'tcp', threshold: 1000 });
    await am.runRound('min');
    expect(am.lastUpdate(`127.0.0.1:${port}`, 'tcp')!.value).toBeGreaterThanOrEqual(0);
    expect(am.lastUpdate(`127.0.0.1:${port}`, 'tcp')!.ip).toBe('127.0.0.1');
    expect(sink.of(`tcp@127.0.0.1:${port}`)).toBeUndefined();
    await new Promise<void>((r) => srv.close(() => r()));
    await am.runRound('min');
    expect(sink.of(`tcp@127.0.0.1:${port}`)!.json).toMatchObject({ value: 0, threshold: 0, ip: '127.0.0.1' });
    // host forms
    await expect(am.add({ host: '127.0.0.1', measurement: 'tcp' })).rejects.toThrow(/host:port/);
    await expect(am.add({ host: '[::1]:99999', measurement: 'tcp' })).rejects.toThrow(/host:port/);
    expect(await am.add({ host: '[::1]:22', measurement: 'tcp' })).toBe('tcp@[::1]:22');
  });
});

describe.skipIf(!hasPing)('icmp (system ping)', () => {
  it('pings 127.0.0.1 and ::1; icmp6 only over IPv6', async () => {
    const { am, sink, points } = await open();
    await am.add({ host: '127.0.0.1', measurement: 'icmp', threshold: 1000 });
    await am.add({ host: '::1', measurement: 'icmp', threshold: 1000 });
    await am.add({ host: '::1', measurement: 'icmp6', threshold: 1000 });
    // a threshold of 0: any answer is beyond it
    await am.add({ host: 'localhost', measurement: 'icmp', threshold: 0 });
    await am.runRound('min');
    expect(am.lastUpdate('127.0.0.1', 'icmp')).toMatchObject({ ip: '127.0.0.1' });
    expect(am.lastUpdate('::1', 'icmp')).toMatchObject({ ip: '::1' });
    expect(am.lastUpdate('::1', 'icmp6')).toMatchObject({ ip: '::1' });
    expect(am.lastUpdate('localhost', 'icmp')).toMatchObject({ ip: '127.0.0.1' });
    expect(sink.engaged('am_host', -1).map((a) => a.entityVal)).toEqual(['icmp@localhost']);
    const v = am.lastUpdate('localhost', 'icmp')!.value;
    expect(sink.of('icmp@localhost')!.json).toMatchObject({ value: v, threshold: 0, ip: '127.0.0.1' });
    expect(points.filter((p) => p.schema === 'am_host:val_min').length).toBe(4);
  });

  it('an icmp6 host given an IPv4 address is refused', async () => {
    const { am } = await open();
    await am.add({ host: '127.0.0.1', measurement: 'icmp6' }).then(
      () => expect.unreachable('added'),
      (e) => expect(String(e)).toMatch(/Invalid host/),
    );
  });
});

const netnsReady = (() => {
  if (process.getuid?.() !== 0) return 'not root';
  if (!hasPing) return 'no ping';
  const r = spawnSync('ip', ['netns', 'list']);
  return r.status === 0 ? '' : 'ip netns does not work here';
})();
if (netnsReady) console.warn(`active-monitoring: skipping the network namespace test (${netnsReady})`);

describe.skipIf(!!netnsReady)('a host in a network namespace', () => {
  const ns = `fgam${process.pid % 100000}`;
  const veth = `fgam${process.pid % 100000}a`;
  const peer = `fgam${process.pid % 100000}b`;
  const ip = (...a: string[]) => execFileSync('ip', a, { stdio: 'pipe' });
  // a /30 of its own (10.213.<n>.0/30): a namespace left by an interrupted run does not answer for it
  const net = `10.213.${process.pid % 250}`;
  const there = `${net}.2`;
  let listener: ReturnType<typeof import('node:child_process').spawn> | null = null;

  beforeAll(async () => {
    ip('netns', 'add', ns);
    closers.push(() => spawnSync('ip', ['netns', 'del', ns]));
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', peer);
    closers.push(() => spawnSync('ip', ['link', 'del', veth]));
    ip('link', 'set', peer, 'netns', ns);
    ip('addr', 'add', `${net}.1/30`, 'dev', veth);
    ip('link', 'set', veth, 'up');
    ip('-n', ns, 'addr', 'add', `${net}.2/30`, 'dev', peer);
    ip('-n', ns, 'link', 'set', peer, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    // a TCP listener inside the namespace
    const { spawn } = await import('node:child_process');
    listener = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', `require('net').createServer((s)=>s.end()).listen(7777,'${there}',()=>console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    closers.push(() => listener?.kill('SIGKILL'));
    await new Promise<void>((r) => listener!.stdout!.once('data', () => r()));
  });

  it('is reachable, unreachable once its link is down, released when it is up again', async () => {
    const { am, sink } = await open({ timeoutMs: 1500 });
    await am.add({ host: there, measurement: 'icmp', threshold: 1000 });
    await am.add({ host: `${there}:7777`, measurement: 'tcp', threshold: 1000 });
    await am.runRound('min');
    expect(am.lastUpdate(there, 'icmp')).toMatchObject({ ip: there });
    expect(am.lastUpdate(`${there}:7777`, 'tcp')).toMatchObject({ ip: there });
    expect(sink.engaged('am_host', -1)).toEqual([]);

    ip('-n', ns, 'link', 'set', peer, 'down');
    await am.runRound('min');
    expect(sink.engaged('am_host', -1).map((a) => [a.entityVal, (a.json as { value: number }).value]).sort()).toEqual([
      [`icmp@${there}`, 0],
      [`tcp@${there}:7777`, 0],
    ]);

    ip('-n', ns, 'link', 'set', peer, 'up');
    // the veth pair needs its carrier back before answering (a guard, not a timing)
    await waitFor(() => spawnSync('ping', ['-c', '1', '-W', '1', there]).status === 0, 'the namespace to answer again');
    await am.runRound('min');
    expect(sink.engaged('am_host', -1)).toEqual([]);
    expect(sink.released.map((r) => r.key.entityVal).sort()).toEqual([`icmp@${there}`, `tcp@${there}:7777`]);
  });
});

describe('scheduling and configuration', () => {
  it('runs rounds on its timer; a host that never answers delays no other', async () => {
    // accepts and never answers
    const held: import('node:net').Socket[] = [];
    const hang = createTcp((s) => void held.push(s));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const hangPort = (hang.address() as AddressInfo).port;
    closers.push(() => new Promise<void>((r) => (held.forEach((s) => s.destroy()), hang.close(() => r()))));
    const web = await httpServer();
    closers.push(() => web.close());
    const { am } = await open({ timeoutMs: 8000 });
    const stuck = `http://127.0.0.1:${hangPort}/`;
    const ok = `http://127.0.0.1:${web.port}/`;
    await am.add({ host: stuck, measurement: 'http' });
    await am.add({ host: ok, measurement: 'http' });
    am.start(300);
    await waitFor(() => am.lastUpdate(ok, 'http') !== null, 'a round of the timer');
    // the stuck host's probe has not ended (8 s deadline), the other's result is in
    expect(am.lastUpdate(stuck, 'http')).toBeNull();
    am.pause();
  });

  it('keeps its configuration across a restart, validates what it is given', async () => {
    const { am, close, dir } = await open();
    await am.add({ host: 'localhost', measurement: 'icmp', threshold: 120, granularity: 'hour', ifname: 'lo' });
    await am.add({ host: 'http://localhost:8080/x?a=b', measurement: 'http' });
    await expect(am.add({ host: 'localhost', measurement: 'icmp' })).rejects.toThrow(/already defined/);
    await expect(am.add({ host: 'localhost', measurement: 'dns' })).rejects.toThrow(/unknown measurement/);
    await expect(am.add({ host: 'localhost', measurement: 'tcp', threshold: 'x' })).rejects.toThrow(/host:port/);
    await expect(am.add({ host: 'localhost:1', measurement: 'tcp', threshold: 'x' })).rejects.toThrow(/threshold/);
    await expect(am.add({ host: 'localhost:1', measurement: 'tcp', granularity: 'day' })).rejects.toThrow(/granularity/);
    await expect(am.add({ host: 'localhost:1', measurement: 'tcp', ifname: '-c' })).rejects.toThrow(/interface name/);
    await expect(am.add({ host: 'no-such-host.invalid', measurement: 'icmp' })).rejects.toThrow(/Invalid host/);
    await expect(am.add({ host: 'ftp://localhost/', measurement: 'http' })).rejects.toThrow(/http/);
    await expect(am.edit({ host: 'nope', measurement: 'icmp' }, { host: 'x', measurement: 'icmp' })).rejects.toThrow(/not found/);
    const exported = am.exportConfig();
    expect(exported).toEqual({
      'http@http://localhost:8080/x?a=b': { show_iface: false, ifname: '', threshold: 500, granularity: 'min', save_result: false, readonly: false },
      'icmp@localhost': { show_iface: false, ifname: 'lo', threshold: 120, granularity: 'hour', save_result: false, readonly: false },
    });
    await close();
    const store2 = new ConfigStore(dir);
    const again = ActiveMonitoring.open(store2, { sink: new Sink(), log: () => {} });
    closers.push(() => store2.close());
    expect(again.exportConfig()).toEqual(exported);
    expect(again.keys().sort()).toEqual(['http@http://localhost:8080/x?a=b', 'icmp@localhost']);
  });

  it('holds at most maxHosts hosts', async () => {
    const { am } = await open({ maxHosts: 2 });
    await am.add({ host: '127.0.0.1:1', measurement: 'tcp' });
    await am.add({ host: '127.0.0.1:2', measurement: 'tcp' });
    await expect(am.add({ host: '127.0.0.1:3', measurement: 'tcp' })).rejects.toThrow(/at most 2/);
  });
});
