// Device/MAC Address Tracking (ntopng Pro's device exclusions): the policy
// on MAC tables written here (a denied device alerted each time it
// connects, an allowed one with the disconnection alert when it goes away,
// a forgotten one new again), kept across restarts; then the four pro
// endpoints over a replayed capture whose local MACs tshark lists.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ChecksConfig } from '../ts/services/checks/config.js';
import { DeviceChecks } from '../ts/services/checks/device-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { RecordingSink } from './fixtures/alert-sink.js';
import { addUser, startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, eth, ipv4, mac, udp } from './fixtures/frames.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';
import { T0 } from './fixtures/ts-capture.js';

const A = '02:00:00:00:00:0a', B = '02:00:00:00:00:0b';
const num = (m: string) => parseInt(m.replace(/:/g, ''), 16);
const ip = (s: string) => s.split('.').reduce((a, x) => a * 256 + Number(x), 0);
/** Engine.localMacs(): (IPv4 or -1, VLAN, MAC) per local host */
const table = (...hosts: [string, string][]) => ({ localMacs: () => new Float64Array(hosts.flatMap(([a, m]) => [ip(a), 0, num(m)])) });

describe('device tracking policy', () => {
  let dir: string, store: ConfigStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-devtrack-'));
    store = new ConfigStore(dir);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects, goes away and comes back by status and disconnection flag', async () => {
    const sink = new RecordingSink();
    const d = new DeviceChecks(store, ChecksConfig.open(store), sink);
    const events = () => sink.take().map((c) => (c.op === 'emit' ? `${c.alert.subtype} ${c.alert.json.event} @${c.alert.tstamp - T0}` : c.op));
    d.tick(0, 'eth0', T0 + 60, table(['10.0.0.1', A], ['10.0.0.2', B]));
    // both new: learned allowed, without the disconnection alert
    expect(events()).toEqual([`${A} connected @60`, `${B} connected @60`]);
    expect(d.list(0).map((r) => [r.mac, r.status, r.trigger_alert, r.first_seen - T0, r.last_seen - T0, r.last_ip])).toEqual([
      [A, 'allowed', false, 60, 60, '10.0.0.1'],
      [B, 'allowed', false, 60, 60, '10.0.0.2'],
    ]);
    expect(await d.edit(0, A, { status: 'denied', alias: 'laptop' })).toBe(true);
    expect(await d.edit(0, B, { trigger_alert: true })).toBe(true);
    expect(await d.edit(0, '02:00:00:00:00:99', { status: 'denied' })).toBe(false);
    d.tick(0, 'eth0', T0 + 120, table(['10.0.0.1', A], ['10.0.0.2', B]));
    expect(events()).toEqual([]); // nothing changed
    d.tick(0, 'eth0', T0 + 180, table(['10.0.0.2', B]));
    expect(events()).toEqual([]); // A (denied) went away: no alert for that
    d.tick(0, 'eth0', T0 + 240, table(['10.0.0.1', A], ['10.0.0.2', B]));
    expect(events()).toEqual([`${A} connected @240`]); // denied: alerted each time it connects
    d.tick(0, 'eth0', T0 + 300, table(['10.0.0.9', A]));
    expect(events()).toEqual([`${B} disconnected @300`]); // allowed with the disconnection alert
    expect(d.list(0).map((r) => [r.mac, r.alias, r.last_seen - T0, r.last_ip])).toEqual([
      [A, 'laptop', 300, '10.0.0.9'],
      [B, '', 240, '10.0.0.2'], // its last sighting
    ]);
    // forgotten: new again
    expect(await d.forget(0, A)).toBe(true);
    d.tick(0, 'eth0', T0 + 360, table(['10.0.0.9', A]));
    expect(events()).toEqual([`${A} connected @360`]);
    expect(d.list(0).find((r) => r.mac === A)).toMatchObject({ status: 'allowed', alias: '', first_seen: T0 + 360 });
    // every device at once
    expect(await d.edit(0, null, { status: 'denied' })).toBe(true);
    expect(d.list(0).map((r) => r.status)).toEqual(['denied', 'denied']);
    await d.add(0, [B], false, T0);
    expect(d.list(0).map((r) => [r.mac, r.status, r.trigger_alert, r.first_seen - T0])).toEqual([
      [A, 'denied', false, 360],
      [B, 'allowed', false, 60], // added again: allowed, its first sighting kept
    ]);
    // kept: another instance on the same store reads them (and a first-seen time alone, as older stores kept it)
    await store.db<number>('devices').put(`0|${'02:00:00:00:00:0c'}`, T0 + 5);
    const again = new DeviceChecks(store, ChecksConfig.open(store), new RecordingSink());
    expect(again.list(0).map((r) => [r.mac, r.status, r.trigger_alert, r.first_seen - T0])).toEqual([
      [A, 'denied', false, 360],
      [B, 'allowed', false, 60],
      ['02:00:00:00:00:0c', 'allowed', false, 5],
    ]);
    expect(await again.forget(0, null)).toBe(true);
    expect(again.list(0)).toEqual([]);
  });
});

describe('device exclusion endpoints', () => {
  const tmp = tempDir('flowgate-devapi-');
  let s: ApiService;
  let file: string;
  beforeAll(async () => {
    const at = (sec: number) => BigInt(T0 + sec) * 1_000_000_000n;
    const q = (sec: number, m: string, src: string) => ({ tsNs: at(sec), data: eth(mac('02:00:00:00:00:fe'), mac(m), ETH.IPV4, ipv4({ src, dst: '198.51.100.53', proto: IPPROTO.UDP }, udp({ sport: 5000, dport: 53 }, Buffer.from('q')))) });
    file = tmp.file('devices.pcap', pcap([q(5, A, '192.168.1.10'), q(6, B, '192.168.1.11'), q(65, A, '192.168.1.10')]));
    s = await startApi({ files: [file] });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });
  const call = (path: string, query: Record<string, string | number | boolean>) => s.call(v2(path).replace('/lua/rest/', '/lua/pro/rest/'), { method: 'POST', form: { ifid: 0, ...query } });

  it('lists the devices of the capture (tshark: the local hosts’ MACs), then adds, edits and deletes', async () => {
    const macs = new Set((await tsharkFields(file, ['eth.src', 'ip.src'], 'ip.src == 192.168.0.0/16')).map((l) => `${l[0]} ${l[1]}`));
    expect([...macs].sort()).toEqual([`${A} 192.168.1.10`, `${B} 192.168.1.11`]);
    const list = async () => {
      const r = await call('get/device/exclusion', {});
      expect(r.body.rc, r.text).toBe(0);
      return r.body.rsp as any[];
    };
    const rows = await list();
    expect(rows.map((r) => [r.mac_address.mac, r.last_ip, r.status, r.trigger_alert, r.first_seen.timestamp - T0, r.first_seen.data])).toEqual([
      [A, '192.168.1.10', 'allowed', false, 60, new Date((T0 + 60) * 1000).toISOString().replace('T', ' ').slice(0, 19)],
      [B, '192.168.1.11', 'allowed', false, 60, new Date((T0 + 60) * 1000).toISOString().replace('T', ' ').slice(0, 19)],
    ]);
    expect((await call('add/device/exclusion', { mac_list: '02:00:00:00:00:C1, 02:00:00:00:00:c2', trigger_alerts: true })).body.rc).toBe(0);
    expect((await list()).slice(2).map((r) => [r.mac_address.mac, r.status, r.trigger_alert, r.last_seen.timestamp])).toEqual([
      ['02:00:00:00:00:c1', 'allowed', true, 0],
      ['02:00:00:00:00:c2', 'allowed', true, 0],
    ]);
    expect((await call('edit/device/exclusion', { mac: A, mac_status: 'denied', mac_alias: 'printer', trigger_alerts: false })).body.rc).toBe(0);
    expect((await list())[0]).toMatchObject({ mac_address: { mac: A, alias: 'printer' }, status: 'denied', trigger_alert: false });
    // bad input: -5, nothing changed
    for (const [path, q] of [
      ['add/device/exclusion', { mac_list: `${A},not-a-mac` }],
      ['add/device/exclusion', { mac_list: ' , ' }],
      ['edit/device/exclusion', { mac: A, mac_status: 'maybe' }],
      ['edit/device/exclusion', { mac: '02:00:00:00:00:99', mac_status: 'denied' }],
      ['edit/device/exclusion', { mac: A, mac_alias: 'two words' }],
      ['delete/device/exclusion', { device: 'nope' }],
      ['delete/device/exclusion', { device: '02:00:00:00:00:99' }],
    ] as const) {
      const r = await call(path, q);
      expect([r.status, r.body.rc], `${path} ${JSON.stringify(q)}`).toEqual([400, -5]);
    }
    expect((await list()).length).toBe(4);
    expect((await s.call(v2('get/device/exclusion').replace('/lua/rest/', '/lua/pro/rest/'), { query: { ifid: 7 } })).body.rc).toBe(-2);
    expect((await call('delete/device/exclusion', { device: '02:00:00:00:00:c1' })).body.rc).toBe(0);
    expect((await list()).map((r) => r.mac_address.mac)).toEqual([A, B, '02:00:00:00:00:c2']);
    // administrators only
    await addUser(s, { username: 'viewer', password: 'Viewer-pass-1' });
    const denied = await s.call(v2('delete/device/exclusion').replace('/lua/rest/', '/lua/pro/rest/'), { user: 'viewer', pw: 'Viewer-pass-1', form: { ifid: 0, device: 'all' } });
    expect(denied.body.rc).toBe(-3);
    expect((await call('delete/device/exclusion', { device: 'all' })).body.rc).toBe(0);
    expect(await list()).toEqual([]);
  });
});
