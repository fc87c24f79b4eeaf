// Interface, network, device and system checks end to end. A capture built
// here is replayed through the service (engine ticks → checks → alert
// service → store → REST); the expected alerts are derived by hand:
//
// minute 0: a remote scanner R sends SCAN SYNs to local host T, one port each
//   (SCAN flows with T as server), T answers each with RST|ACK; D sends one
//   UDP packet to a remote server with MAC_D; 203.0.113.5 ARPs 203.0.113.9
//   three times (a broadcast domain 203.0.113.0/28 that is no local network);
//   10.1.2.3 ARPs 10.200.0.9 once (no common /16: a broadcast domain too large).
// minute 1: a new local host N (MAC_N) sends one UDP packet; D again with MAC_D.
// minute 2: D's address is now behind MAC_E.
//
// So, with syn_scan_victim at threshold 30, flow_flood_victim at 18 and
// ip_reassignment on: the network 192.168.0.0/16 has SCAN SYNs received − 0
// SYN|ACKs sent in minute 0, and its flows-as-server peak (ntopng's
// AlertCounter: windows of two seconds, the event opening a window not
// counted, except the first after a minute's reset) is 19: the scan opens a
// flow every 100 ms from second 10, so each window [10,11], [12,13], [14,15]
// holds 20 flows, the first not counted (no reset before, the counter starts
// at 0). Both alerts are raised at the tick T0+60 and released at T0+120.
// Devices T and D are new at T0+60, N at T0+120, MAC_E at T0+180, and D's
// reassignment (MAC_D → MAC_E, a new flow from D) at T0+180.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { DEFAULT_LOCAL_NETWORKS, Engine } from '../ts/bindings/engine.js';
import { AlertService } from '../ts/services/alerts/alert-service.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { InterfaceChecks, type CheckedInterface } from '../ts/services/checks/interface-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, TCPF, arp, eth, ipv4, mac, tcp, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const services: ApiService[] = [];
const stores: ConfigStore[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  tmp.cleanup();
});

const SCAN = 60;
const R = '198.51.100.7', DNS = '198.51.100.99';
const T = '192.168.7.10', D = '192.168.7.30', N = '192.168.7.20';
const MAC_R = '02:00:00:00:00:fe', MAC_T = '02:00:00:00:00:10', MAC_D = '02:00:00:00:00:30', MAC_E = '02:00:00:00:00:31', MAC_N = '02:00:00:00:00:20';
const MAC_G = '02:00:00:00:00:66', BCAST = 'ff:ff:ff:ff:ff:ff';
const GHOST = '203.0.113.0/28';
const NET = '192.168.0.0/16';
/** other_alert_keys.lua: 4096 + n */
const ID = { too_large: 4164, syn_scan_victim: 4157, flow_flood_victim: 4153, mac_ip_change: 4112, device: 4147, ghost: 4102, no_activity: 4146, drops: 4137, dropped: 4099, threshold: 4136 };
const { SYN, ACK, RST } = TCPF;

const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
const frame = (t: number, dst: string, src: string, type: number, payload: Buffer): Packet => ({ tsNs: at(t), data: eth(mac(dst), mac(src), type, payload) });
const seg = (t: number, srcMac: string, dstMac: string, src: string, sport: number, dst: string, dport: number, flags: number) =>
  frame(t, dstMac, srcMac, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags })));
const dns = (t: number, srcMac: string, src: string, sport = 5353) => frame(t, MAC_R, srcMac, ETH.IPV4, ipv4({ src, dst: DNS, proto: IPPROTO.UDP }, udp({ sport, dport: 53 }, Buffer.from('q'))));
const arpReq = (t: number, spa: string, tpa: string, sha: string) => frame(t, BCAST, sha, ETH.ARP, arp(1, mac(sha), spa, mac('00:00:00:00:00:00'), tpa));
const scan = (from: number) =>
  Array.from({ length: SCAN }, (_, i) => [seg(from + i / 10, MAC_R, MAC_T, R, 40000, T, 1 + i, SYN), seg(from + i / 10 + 0.01, MAC_T, MAC_R, T, 1 + i, R, 40000, RST | ACK)]).flat();

const fileA = tmp.file('if-net-mac.pcap', pcap([
  arpReq(2, '203.0.113.5', '203.0.113.9', MAC_G), arpReq(3, '203.0.113.5', '203.0.113.9', MAC_G), arpReq(4, '203.0.113.5', '203.0.113.9', MAC_G),
  dns(5, MAC_D, D),
  arpReq(6, '10.1.2.3', '10.200.0.9', MAC_G),
  ...scan(10),
  dns(70, MAC_N, N),
  dns(75, MAC_D, D),
  dns(130, MAC_E, D, 5354),
]));
// the scan in the last minute: its network alerts are still engaged when the
// replay ends; the minute was reset at T0+60, so the first flow of the window
// [61,62] counts: flow flood peak 20
const fileB = tmp.file('scan-last-minute.pcap', pcap([dns(5, MAC_D, D), ...scan(61)]));

type Cfg = { setEnabled(s: string, k: string, on: boolean): Promise<void>; update(s: string, k: string, h: unknown): Promise<void> };
const threshold = (c: Cfg, k: string, t: number) => c.update('network', k, { min: { enabled: true, script_conf: { operator: 'gt', threshold: t } } });
const configure = async (c: Cfg) => {
  await threshold(c, 'syn_scan_victim', 30);
  await threshold(c, 'flow_flood_victim', 18);
  await c.setEnabled('network', 'ip_reassignment', true);
};

const rows = async (s: ApiService, family: string, select: string, where: string) => {
  const r = await s.call(v2('get/alert/list/alerts'), {
    query: { ifid: 0, alert_family: family, epoch_begin: T0 - 3600, epoch_end: T0 + 3600, select_clause: select, where_clause: where, maxhits_clause: 100 },
  });
  expect(r.body.rc).toBe(0);
  return r.body.rsp as Record<string, string | number>[];
};

describe('network and device checks over REST', () => {
  it('tshark sees the frames the test built (SYNs to T, ARP of the ghost domain, MACs of D)', async () => {
    const syn = await tsharkFields(fileA, ['ip.dst'], 'tcp.flags.syn==1 && tcp.flags.ack==0');
    expect(syn.filter((r) => r[0] === T)).toHaveLength(SCAN);
    const arps = await tsharkFields(fileA, ['arp.src.proto_ipv4', 'arp.dst.proto_ipv4'], 'arp');
    expect(arps).toEqual([...Array(3).fill(['203.0.113.5', '203.0.113.9']), ['10.1.2.3', '10.200.0.9']]);
    const d = await tsharkFields(fileA, ['eth.src'], `ip.src==${D}`);
    expect(d.map((r) => r[0])).toEqual([MAC_D, MAC_D, MAC_E]);
  });

  it('SYN scan and flow flood victims of a local network: raised at the tick after the scan minute, released at the next', async () => {
    const s = await startApi({ files: [fileA], history: true, configure });
    services.push(s);
    await s.api.alerts.flush();
    const engaged = await s.call(v2('get/network/alert/list'), { query: { ifid: 0, status: 'engaged', epoch_begin: T0 - 3600, epoch_end: T0 + 3600 } });
    expect(engaged.body.rc).toBe(0);
    expect(engaged.body.recordsTotal).toBe(0);
    const got = await rows(s, 'network', 'alert_id,name,local_network_id,tstamp,tstamp_end,json', `alert_id=${ID.syn_scan_victim} OR alert_id=${ID.flow_flood_victim}`);
    expect(got).toHaveLength(2);
    for (const r of got) {
      expect(r.name).toBe(NET);
      expect(Number(r.local_network_id)).toBe(DEFAULT_LOCAL_NETWORKS.indexOf(NET));
      expect(Number(r.tstamp)).toBe(T0 + 60);
      expect(Number(r.tstamp_end)).toBe(T0 + 120);
      const syn = Number(r.alert_id) === ID.syn_scan_victim;
      // alerts_api.checkThresholdAlert's json: the metric, the minute's value, the configured crossing
      expect(JSON.parse(String(r.json))).toEqual({
        alert_generation: { script_key: syn ? 'syn_scan_victim' : 'flow_flood_victim', subdir: 'network' },
        metric: syn ? 'syn_scan_victim' : 'flow_flood_victim', value: syn ? SCAN : 19, operator: 'gt', threshold: syn ? 30 : 18, victim: NET,
      });
    }
    expect(new Set(got.map((r) => Number(r.alert_id)))).toEqual(new Set([ID.syn_scan_victim, ID.flow_flood_victim]));
  });

  it('a device first seen is alerted once at the tick closing its minute; an IP behind a new MAC is a reassignment', async () => {
    const s = services[0]!;
    const dev = await rows(s, 'interface', 'subtype,tstamp,json', `alert_id=${ID.device}`);
    const when = Object.fromEntries(dev.map((r) => [r.subtype, Number(r.tstamp)]));
    expect(when).toEqual({ [MAC_T]: T0 + 60, [MAC_D]: T0 + 60, [MAC_N]: T0 + 120, [MAC_E]: T0 + 180 });
    for (const r of dev) expect(JSON.parse(String(r.json))).toMatchObject({ device: r.subtype, event: 'connected' });
    const re = await rows(s, 'mac', 'address,tstamp,json', `alert_id=${ID.mac_ip_change}`);
    expect(re).toHaveLength(1);
    expect(re[0]!.address).toBe(MAC_E);
    expect(Number(re[0]!.tstamp)).toBe(T0 + 180);
    expect(JSON.parse(String(re[0]!.json))).toMatchObject({ ip: D, old_mac: MAC_D, new_mac: MAC_E });
    // the ARP between two /16s: broadcast_domain_too_large on the sender's MAC, at the tick closing its minute
    const big = await rows(s, 'mac', 'address,tstamp,score,json', `alert_id=${ID.too_large}`);
    expect(big).toHaveLength(1);
    expect([big[0]!.address, Number(big[0]!.tstamp), Number(big[0]!.score)]).toEqual([MAC_G, T0 + 60, 50]);
    expect(JSON.parse(String(big[0]!.json))).toMatchObject({ src_mac: MAC_G, dst_mac: BCAST, spa: '10.1.2.3', tpa: '10.200.0.9', vlan_id: 0 });
    // the mac alert list shows both
    const l = await s.call(v2('get/mac/alert/list'), { query: { ifid: 0, status: 'historical', epoch_begin: T0 - 3600, epoch_end: T0 + 3600 } });
    expect(l.body.rsp.records).toHaveLength(2);
  });

  it('delete/host/new_devices forgets the known devices: each is new again at the next tick', async () => {
    const s = services[0]!;
    const devices = s.checking.devices;
    expect([...devices.knownDevices(0).keys()].sort()).toEqual([MAC_D, MAC_E, MAC_N, MAC_T].sort());
    const r = await s.call(v2('delete/host/new_devices'));
    expect(r.body.rc).toBe(0);
    expect(devices.knownDevices(0).size).toBe(0);
    const sink = new RecordingSink();
    const unsub = s.checking.alerts.subscribe(sink);
    devices.tick(0, 'x', T0 + 240, s.ifaces.list[0]!.engine);
    unsub();
    // the hosts' MACs as the engine holds them now: T, D (now MAC_E), N
    expect(sink.emitted().map((a) => a.subtype).sort()).toEqual([MAC_E, MAC_N, MAC_T].sort());
    expect((await s.call(v2('delete/host/new_devices'), { user: null })).status).toBe(401);
  });

  it('ip_reassignment off (its default), broadcast_domain_too_large disabled: no mac alert', async () => {
    const s = await startApi({
      files: [fileA],
      history: true,
      configure: async (c) => {
        await threshold(c, 'syn_scan_victim', 30);
        await c.setEnabled('network', 'broadcast_domain_too_large', false);
      },
    });
    services.push(s);
    await s.api.alerts.flush();
    expect(await rows(s, 'mac', 'address', `alert_id=${ID.mac_ip_change} OR alert_id=${ID.too_large}`)).toHaveLength(0);
    // flow_flood_victim stayed off (its default): only the SYN scan alert
    const net = await rows(s, 'network', 'alert_id', `alert_id=${ID.syn_scan_victim} OR alert_id=${ID.flow_flood_victim}`);
    expect(net.map((r) => Number(r.alert_id))).toEqual([ID.syn_scan_victim]);
  });

  it('still engaged at the end; disabling the check releases its alert at the next run, the other stays', async () => {
    const s = await startApi({ files: [fileB], history: true, configure });
    services.push(s);
    const list = async () =>
      (await s.call(v2('get/network/alert/list'), { query: { ifid: 0, status: 'engaged', epoch_begin: T0 - 3600, epoch_end: T0 + 3600 } })).body;
    const e = await list();
    expect(e.rc).toBe(0);
    expect(e.recordsTotal).toBe(2);
    const off = await s.call(v2('disable/check'), { form: { check_subdir: 'network', script_key: 'syn_scan_victim' } });
    expect(off.body.rc).toBe(0);
    const engine = s.ifaces.list[0]!.engine;
    // the next run (what the next tick does): the last minute's hits are still those of the scan
    s.checking.networkChecks.tick(0, T0 + 180, engine.localNetworks, engine.networkCheckHits());
    const after = s.checking.alerts.engaged('network', 0);
    expect(after.map((a) => a.alertId)).toEqual([ID.flow_flood_victim]);
    expect(after[0]!.json).toMatchObject({ value: 20, threshold: 18 });
    await s.api.alerts.flush();
    const past = await rows(s, 'network', 'alert_id,tstamp,tstamp_end', `alert_id=${ID.syn_scan_victim}`);
    expect(past.map((r) => [Number(r.tstamp), Number(r.tstamp_end)])).toEqual([[T0 + 120, T0 + 180]]);
  });
});

/** The replayed engine of fileA, its stats as the interface checks read them, as a live interface would be. */
async function replayed() {
  const engine = new Engine({ files: [fileA], flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10 }).start();
  await engine.waitDone();
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-ifchk-'));
  dirs.push(dir);
  const store = new ConfigStore(dir);
  stores.push(store);
  return { engine, cfg: ChecksConfig.open(store) };
}

describe('interface checks on the engine counters', () => {
  it('ghost network: a domain in no local network, alerted while its hits grow, never on a capture file', async () => {
    const { engine, cfg } = await replayed();
    expect(engine.stats().bcast_domains).toEqual([{ network: GHOST, hits: 3 }]);
    const sink = new RecordingSink();
    const checks = new InterfaceChecks(cfg, sink);
    const iface = (isFile: boolean): CheckedInterface => ({ ifid: 0, ifname: 'veth0', isFile, localNetworks: engine.localNetworks, stats: () => engine.stats(), droppedAlerts: () => 0 });
    checks.tick(iface(true), T0 + 60);
    expect(sink.engaged('interface', 0).filter((a) => a.alertId === ID.ghost)).toHaveLength(0);
    checks.tick(iface(false), T0 + 120);
    const g = sink.engaged('interface', 0).filter((a) => a.alertId === ID.ghost);
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ entityVal: '0', subtype: GHOST, score: 50, json: { network: GHOST }, fields: { ifid: 0, name: 'veth0' } });
    // no new ARP: released
    checks.tick(iface(false), T0 + 180);
    expect(sink.engaged('interface', 0).filter((a) => a.alertId === ID.ghost)).toHaveLength(0);
    // a local network covering it: not a ghost any more
    expect((await import('../ts/services/checks/interface-checks.js')).isGhostNetwork(GHOST, [...engine.localNetworks, '203.0.113.0/24'], false)).toBe(false);
    engine.close();
  });

  it('no activity: a live interface whose packets and flows did not grow in the minute; off: released', async () => {
    const { engine, cfg } = await replayed();
    const sink = new RecordingSink();
    const checks = new InterfaceChecks(cfg, sink);
    const iface: CheckedInterface = { ifid: 0, ifname: 'veth0', isFile: false, localNetworks: engine.localNetworks, stats: () => engine.stats(), droppedAlerts: () => 0 };
    checks.activity(iface, T0 + 60); // the first minute saw every packet of the capture
    expect(sink.engaged('interface', 0).filter((a) => a.alertId === ID.no_activity)).toHaveLength(0);
    checks.activity(iface, T0 + 120); // nothing since
    const a = sink.engaged('interface', 0).filter((x) => x.alertId === ID.no_activity);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ subtype: 'veth0', json: { ifname_no_activity: 'veth0' }, score: 250 });
    await cfg.setEnabled('interface', 'no_if_activity', false);
    checks.activity(iface, T0 + 180);
    expect(sink.engaged('interface', 0).filter((x) => x.alertId === ID.no_activity)).toHaveLength(0);
    engine.close();
  });

  it('too many drops: drops × 100 / (drops + packets + 1) since startup above the threshold (5 %), released below', async () => {
    const { engine, cfg } = await replayed();
    const packets = engine.stats().packets;
    expect(packets).toBe(4 + 1 + 2 * SCAN + 3);
    // a file replay drops nothing: the drop count a live capture would report is given here
    let drops = 20;
    const sink = new RecordingSink();
    const checks = new InterfaceChecks(cfg, sink);
    const iface: CheckedInterface = { ifid: 0, ifname: 'veth0', isFile: true, localNetworks: engine.localNetworks, stats: () => ({ ...engine.stats(), drops }), droppedAlerts: () => 0 };
    checks.tick(iface, T0 + 60);
    const a = sink.engaged('interface', 0).filter((x) => x.alertId === ID.drops);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ subtype: 'veth0', score: 100, json: { drops: 20, drop_perc: (20 * 100) / (20 + packets + 1), edge: 5 } });
    drops = 3; // 3 × 100 / 131 ≈ 2.3 %
    checks.tick(iface, T0 + 120);
    expect(sink.engaged('interface', 0).filter((x) => x.alertId === ID.drops)).toHaveLength(0);
    engine.close();
  });

  it("dropped alerts: the alert service's drops in the minute (the first run only counts)", async () => {
    const { engine, cfg } = await replayed();
    for (const k of ['too_many_drops', 'no_if_activity', 'ghost_networks']) await cfg.setEnabled('interface', k, false);
    // without a store every alert written is dropped (counted)
    const alerts = await AlertService.open(null, { log: () => {} });
    const checks = new InterfaceChecks(cfg, alerts);
    const iface: CheckedInterface = { ifid: 0, ifname: 'veth0', isFile: true, localNetworks: engine.localNetworks, stats: () => engine.stats(), droppedAlerts: () => alerts.counters(0).dropped };
    const one = (i: number) => ({ family: 'interface' as const, ifid: 0, entityVal: '0', alertId: ID.device, subtype: `m${i}`, tstamp: T0, score: 10, severity: 3, fields: {}, json: {} });
    alerts.emit(one(0));
    await alerts.flush();
    checks.tick(iface, T0 + 60);
    expect(alerts.engaged('interface', 0)).toHaveLength(0);
    for (let i = 1; i <= 3; i++) alerts.emit(one(i));
    await alerts.flush();
    checks.tick(iface, T0 + 120);
    const a = alerts.engaged('interface', 0);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ alertId: ID.dropped, subtype: 'veth0', json: { ifid: 0, num_dropped: 3 } });
    checks.tick(iface, T0 + 180);
    expect(alerts.engaged('interface', 0)).toHaveLength(0);
    await alerts.close();
    engine.close();
  });
});

describe('system checks', () => {
  it("memory and disk thresholds crossed by this process's real figures; raised high: released", async () => {
    const s = await startApi({
      files: [fileB],
      history: true,
      configure: async (c) => {
        await c.update('system', 'memory_usage', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 1 } } });
        await c.update('system', 'disk_space', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 0 } } });
      },
    });
    services.push(s);
    const before = process.memoryUsage().rss / 2 ** 20;
    s.checking.systemChecks.run(T0 + 1000);
    const after = process.memoryUsage().rss / 2 ** 20;
    // stat(1): the data directory's filesystem blocks and free blocks
    const [blocks, free] = execFileSync('stat', ['-f', '-c', '%b %f', s.dataDir], { encoding: 'utf8' }).trim().split(' ').map(Number);
    const disk = ((blocks! - free!) * 100) / blocks!;
    const eng = s.checking.alerts.engaged('system', -1).filter((a) => a.alertId === ID.threshold);
    const by = Object.fromEntries(eng.map((a) => [a.subtype, a.json as { metric: string; value: number; operator: string; threshold: number }]));
    expect(Object.keys(by).sort()).toEqual(['disk_space', 'memory_usage']);
    expect(by.memory_usage).toMatchObject({ metric: 'memory_usage', operator: 'gt', threshold: 1 });
    expect(by.memory_usage!.value).toBeGreaterThanOrEqual(Math.min(before, after) * 0.8);
    expect(by.memory_usage!.value).toBeLessThanOrEqual(Math.max(before, after) * 1.2);
    expect(by.disk_space).toMatchObject({ metric: 'disk_space', operator: 'gt', threshold: 0 });
    expect(by.disk_space!.value).toBeCloseTo(disk, 0);
    const list = await s.call(v2('get/system/alert/list'), { query: { ifid: 0, status: 'engaged', epoch_begin: T0 - 3600, epoch_end: T0 + 3600 } });
    expect(list.body.rc).toBe(0);
    expect(list.body.recordsTotal).toBe(2);
    // a threshold no process reaches: released, stored with its span
    const high = await s.call('/lua/edit_check_config.lua', {
      form: { check_subdir: 'system', script_key: 'memory_usage', JSON: JSON.stringify({ min: { enabled: true, script_conf: { operator: 'gt', threshold: 1e9 } } }) },
    });
    expect(high.body).toMatchObject({ success: true });
    await s.call(v2('disable/check'), { form: { check_subdir: 'system', script_key: 'disk_space' } });
    s.checking.systemChecks.run(T0 + 1060);
    expect(s.checking.alerts.engaged('system', -1).filter((a) => a.alertId === ID.threshold)).toHaveLength(0);
    await s.api.alerts.flush();
    const past = await s.call(v2('get/alert/list/alerts'), {
      query: { ifid: 0, alert_family: 'system', epoch_begin: T0 - 3600, epoch_end: T0 + 3600, select_clause: 'alert_id,name,tstamp,tstamp_end', where_clause: `alert_id=${ID.threshold}`, maxhits_clause: 10 },
    });
    expect(past.body.rc).toBe(0);
    expect(past.body.rsp).toHaveLength(2);
    for (const r of past.body.rsp) expect([r.name, Number(r.tstamp), Number(r.tstamp_end)]).toEqual(['system', T0 + 1000, T0 + 1060]);
  });

  it('checks listed as running in the configuration; memory and disk are off by default', async () => {
    const s = services[0]!;
    const r = await s.call(v2('get/checks/config'));
    const sys = r.body.rsp['0'].config.system;
    expect(sys.memory_usage.min.enabled).toBe(false);
    expect(sys.disk_space.min.enabled).toBe(false);
  });
});
