// Infrastructure instances: two flowgate instances on loopback, one polling
// the other with an API token the other issued. What the poller collects
// equals the remote's own interface data; a wrong token and a dead URL are
// reported per instance; every code of add/edit/delete as ntopng's
// rest_utils gives them.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, type ApiService } from './fixtures/api.js';
import { freePort, spawnFlowgate, type Flowgate } from './fixtures/egress.js';
import { tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';


const pro = (p: string) => `/lua/pro/rest/v2/${p}.lua`;

describe('infrastructure instances: one flowgate polling another', () => {
  const tmp = tempDir('flowgate-infra-');
  let local: ApiService, remote: ApiService;
  let token = '';

  beforeAll(async () => {
    // the remote sees two captures (two interfaces), the local one its own
    remote = await startApi({ files: [join(NDPI_PCAPS, 'netflix.pcap'), join(NDPI_PCAPS, '1kxun.pcap')] });
    local = await startApi({ files: [join(NDPI_PCAPS, 'dns-tunnel-iodine.pcap')], dataDir: join(tmp.dir, 'local') });
    const t = await remote.call('/lua/rest/v2/create/ntopng/api_token.lua', { form: { username: 'admin' } });
    expect(t.body.rc, t.text).toBe(0);
    token = t.body.rsp.api_token;
  }, 60_000);
  afterAll(async () => {
    await local?.close();
    await remote?.close();
    tmp.cleanup();
  });

  const add = (f: Record<string, string | number>) => local.call(pro('add/infrastructure/instance'), { form: f });

  it('adds the remote and collects its data with the token: its interfaces summed, as it answers them itself', async () => {
    const r = await add({ url: remote.url, alias: 'remote-1', token, rtt_threshold: 500, bandwidth_threshold: 1_000_000_000 });
    expect(r.body.rc, r.text).toBe(0);
    const id = r.body.rsp.instance_id;
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const d = await local.call(pro('get/infrastructure/data'));
    expect(d.body.rc, d.text).toBe(0);
    const row = d.body.rsp.find((x: { instance_id: string }) => x.instance_id === id);
    // the remote's own answers, read back over its API with its admin's password (replays are over: nothing moves)
    let hosts = 0, flows = 0, alertedFlows = 0;
    for (const ifid of [0, 1]) {
      const x = (await remote.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid } })).body.rsp;
      hosts += x.num_hosts;
      flows += x.num_flows;
      alertedFlows += x.alerted_flows;
    }
    expect(row).toMatchObject({ alias: 'remote-1', url: remote.url, reachable: true, error: '', hosts, flows, flow_alerts: alertedFlows, rtt_threshold: 500, bandwidth_threshold: 1_000_000_000 });
    expect(hosts).toBeGreaterThan(0);
    expect(row.rtt).toBeGreaterThan(0);
    expect(row.last_update).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(row.rtt_exceeded).toBe(row.rtt > 500);
    // as ntopng's infrastructure_utils: the instance is an active monitoring host too (its URL over
    // HTTP each minute, read only), whose RTT threshold raises the am_host threshold alert
    const am = (await local.call('/lua/get_active_monitoring_hosts.lua')).body as { host: string; measurement_key: string; threshold: number; readonly: boolean; granularity: string }[];
    expect(am.find((h) => h.host === remote.url)).toMatchObject({ measurement_key: 'http', threshold: 500, readonly: true, granularity: 'min' });
    // the configuration as stored
    const one = await local.call(pro('get/infrastructure/instance'), { query: { instance_id: id } });
    expect(one.body.rsp).toEqual({ instance_id: id, alias: 'remote-1', url: remote.url, token, rtt_threshold: 500, bandwidth_threshold: 1_000_000_000 });
  });

  it('reports a wrong token and a dead URL per instance, and keeps polling the good one', async () => {
    expect((await add({ url: `${remote.url}/`, alias: 'bad-token', token: 'not-a-token', rtt_threshold: 1, bandwidth_threshold: 1 })).body.rc).toBe(-40); // the same URL, a trailing slash aside
    const r1 = await add({ url: remote.url.replace('127.0.0.1', 'localhost'), alias: 'bad-token', token: 'not-a-token', rtt_threshold: 1, bandwidth_threshold: 1 });
    expect(r1.body.rc, r1.text).toBe(0);
    const r2 = await add({ url: 'http://127.0.0.1:9', alias: 'dead', token: 'another', rtt_threshold: 1, bandwidth_threshold: 1 });
    expect(r2.body.rc, r2.text).toBe(0);
    await local.api.infrastructure.pollAll();
    const rows = (await local.call(pro('get/infrastructure/data'))).body.rsp as { alias: string; reachable: boolean; error: string }[];
    const by = Object.fromEntries(rows.map((x) => [x.alias, x]));
    expect(by['bad-token']).toMatchObject({ reachable: false, error: 'authorization failed: invalid token' });
    expect(by.dead.reachable).toBe(false);
    expect(by.dead.error).toMatch(/^unreachable/);
    expect(by['remote-1'].reachable).toBe(true);
  });

  it('answers every code of add, edit and delete', async () => {
    const base = { url: 'http://192.0.2.10:3000', alias: 'spare', token: 'tok-spare', rtt_threshold: 10, bandwidth_threshold: 10 };
    const cases: [Record<string, string | number>, number][] = [
      [{ ...base, alias: '' }, -34],
      [{ ...base, url: '' }, -35],
      [{ ...base, token: ' ' }, -36],
      [{ ...base, rtt_threshold: '' }, -37],
      [{ ...base, bandwidth_threshold: '' }, -47],
      [{ ...base, alias: 'remote-1' }, -39],
      [{ ...base, url: remote.url }, -40],
      [{ ...base, token }, -41],
      [{ ...base, url: 'ftp://192.0.2.10/' }, -5],
      [{ ...base, rtt_threshold: 'fast' }, -5],
    ];
    for (const [f, rc] of cases) {
      const r = await add(f);
      expect([r.body.rc, r.status], JSON.stringify(f)).toEqual([rc, rc === -5 ? 400 : 409]);
    }
    const ok = await add(base);
    expect(ok.body.rc).toBe(0);
    const id = ok.body.rsp.instance_id;
    expect((await add(base)).body.rc).toBe(-42);
    const edit = (f: Record<string, string | number>) => local.call(pro('edit/infrastructure/instance'), { form: f });
    expect((await edit({ ...base, alias: 'spare-2' })).body.rc).toBe(-33);
    expect((await edit({ ...base, instance_id: 'ffffffffffffffff' })).body).toMatchObject({ rc: -32, rc_str: 'INFRASTRUCTURE_INSTANCE_NOT_FOUND' });
    expect((await edit({ ...base, instance_id: id, alias: 'remote-1' })).body.rc).toBe(-39);
    const e = await edit({ ...base, instance_id: id, alias: 'spare-2', rtt_threshold: 20 });
    expect(e.body.rc, e.text).toBe(0);
    expect((await local.call(pro('get/infrastructure/instance'), { query: { instance_id: id } })).body.rsp).toMatchObject({ alias: 'spare-2', rtt_threshold: 20 });
    const del = (instance_id?: string) => local.call(pro('delete/infrastructure/instance'), { form: instance_id === undefined ? {} : { instance_id } });
    expect((await del()).body.rc).toBe(-33);
    const amHosts = async () => ((await local.call('/lua/get_active_monitoring_hosts.lua')).body as { host: string }[]).map((h) => h.host);
    expect(await amHosts()).toContain('http://192.0.2.10:3000');
    expect((await del(id)).body.rc).toBe(0);
    expect(await amHosts()).not.toContain('http://192.0.2.10:3000');
    expect((await del(id)).body.rc).toBe(-32);
    expect((await local.call(pro('get/infrastructure/instance'))).body.rsp.map((x: { alias: string }) => x.alias).sort()).toEqual(['bad-token', 'dead', 'remote-1']);
  });

  it('exports, resets and imports the instances with the configuration (ntopng\'s infrastructure module)', async () => {
    const before = (await local.call(pro('get/infrastructure/instance'))).body.rsp;
    const exp = await local.call('/lua/rest/v2/export/infrastructure/config.lua');
    expect(exp.body.rc, exp.text).toBe(0);
    expect(exp.body.rsp.modules.infrastructure).toEqual(before);
    expect((await local.call('/lua/rest/v2/reset/infrastructure/config.lua', { method: 'POST' })).body.rc).toBe(0);
    expect((await local.call(pro('get/infrastructure/instance'))).body.rsp).toEqual([]);
    const imp = await local.call('/lua/rest/v2/import/infrastructure/config.lua', { json: exp.body.rsp });
    expect(imp.body.rc, imp.text).toBe(0);
    expect((await local.call(pro('get/infrastructure/instance'))).body.rsp).toEqual(before);
  });

  it('keeps the instances across a restart (LMDB)', async () => {
    const before = (await local.call(pro('get/infrastructure/instance'))).body.rsp;
    const dataDir = local.dataDir;
    await local.close();
    local = await startApi({ files: [join(NDPI_PCAPS, 'dns-tunnel-iodine.pcap')], dataDir });
    expect((await local.call(pro('get/infrastructure/instance'))).body.rsp).toEqual(before);
  });
});

// The bandwidth threshold against an instance with traffic now: `flowgate`
// as an operator starts it first (no interface: the bundled capture replayed
// in a loop at its own pace), its throughput read from its own API.
describe('infrastructure bandwidth threshold', () => {
  const tmp = tempDir('flowgate-infra-bw-');
  const sink = new RecordingSink();
  let local: ApiService;
  let remote: Flowgate;
  let remoteUrl = '';
  const PW = 'Remote-admin-1';

  beforeAll(async () => {
    // a free port (0 turns the API off)
    const port = await freePort();
    remote = spawnFlowgate(['--http-port', String(port), '--bind', '127.0.0.1', '--egress-port', '0', '--data-dir', join(tmp.dir, 'remote'), '--admin-password', PW]);
    remoteUrl = (await remote.waitFor(/monitoring API on (http:\/\/[^/\s]+)\//, 30_000))[1]!;
    local = await startApi({ files: [join(NDPI_PCAPS, 'dns-tunnel-iodine.pcap')], dataDir: join(tmp.dir, 'local'), alerts: sink });
  }, 60_000);
  afterAll(async () => {
    await local?.close();
    await remote?.stop();
    tmp.cleanup();
  });

  it('engages the am_host threshold alert (measurement bandwidth) while the throughput is over it; an edit releases it', async () => {
    const basic = `Basic ${Buffer.from(`admin:${PW}`).toString('base64')}`;
    const t = await (await fetch(`${remoteUrl}/lua/rest/v2/create/ntopng/api_token.lua`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=admin' })).json();
    const r = await local.call(pro('add/infrastructure/instance'), { form: { url: remoteUrl, alias: 'busy', token: t.rsp.api_token, rtt_threshold: 5000, bandwidth_threshold: 1 } });
    expect(r.body.rc, r.text).toBe(0);
    const id = r.body.rsp.instance_id;
    const engaged = () => sink.calls.filter((c) => c.op === 'engage' && c.alert.entityVal === `bandwidth@${remoteUrl}`);
    // the replay is paced: poll until a second with traffic has been measured (the remote's own figure is the truth)
    let row: Record<string, any> = {};
    for (let i = 0; i < 30 && !engaged().length; i++) {
      await local.api.infrastructure.pollAll();
      row = (await local.call(pro('get/infrastructure/data'))).body.rsp.find((x: { instance_id: string }) => x.instance_id === id);
      if (!engaged().length) await new Promise((res) => setTimeout(res, 500));
    }
    const [first] = engaged();
    expect(first, JSON.stringify(row)).toBeDefined();
    if (first?.op !== 'engage') throw new Error('no engage');
    expect(first.alert).toMatchObject({ family: 'am_host', alertId: 4119, fields: { resolved_ip: '127.0.0.1', resolved_name: 'busy', measurement: 'bandwidth', measure_threshold: 1 } });
    expect(first.alert.json).toMatchObject({ threshold: 1, operator: 'gt', host: { label: 'busy', is_infrastructure: true, measurement: 'bandwidth', host: remoteUrl } });
    expect(first.alert.json.value as number).toBeGreaterThan(1);
    // the figure is the remote's own throughput_bps, as the data endpoint reported it after that poll
    // (the poller's own minute may have polled again in between: then the row is a later one)
    if (row.last_update === first.alert.tstamp) expect(row).toMatchObject({ reachable: true, bandwidth_exceeded: true, throughput: first.alert.json.value });
    const forKey = () => sink.calls.filter((c) => (c.op === 'engage' ? c.alert.entityVal : c.op === 'release' ? c.key.entityVal : '') === `bandwidth@${remoteUrl}`);
    expect(forKey().at(-1)?.op).toBe('engage');
    const releasesBefore = sink.calls.filter((c) => c.op === 'release' && c.key.entityVal === `bandwidth@${remoteUrl}`).length;
    const e = await local.call(pro('edit/infrastructure/instance'), { form: { instance_id: id, url: remoteUrl, alias: 'busy', token: t.rsp.api_token, rtt_threshold: 5000, bandwidth_threshold: 2 ** 31 - 1 } });
    expect(e.body.rc, e.text).toBe(0);
    const rel = sink.calls.filter((c) => c.op === 'release' && c.key.entityVal === `bandwidth@${remoteUrl}`).length;
    expect(rel - releasesBefore).toBe(1);
    const n = engaged().length;
    await local.api.infrastructure.pollAll();
    expect(engaged().length).toBe(n);
  }, 60_000);
});
