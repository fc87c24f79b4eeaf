// Alert exclusions end to end. Flow side: three DNS queries for names nDPI
// calls DGA-like, built here, replayed once without exclusions (each flow
// carries the DGA alert) and once with client 10.9.0.1 excluded for that
// alert and the second name excluded as a domain: only the third flow keeps
// it. Host side: a SYN scan (as alerts-host-checks.test.ts) with the
// scanner excluded raises only the victim's alert; delete_alerts removes the
// stored alerts of the subject, others intact; the host checks obey a change
// at their next tick. Hostile input answers -5 and changes nothing;
// exclusions survive a restart on the same data directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { addon } from '../ts/bindings/native.js';
import { AlertService } from '../ts/services/alerts/alert-service.js';
import { BY_RISK } from '../ts/services/alerts/catalogue.js';
import { AlertExclusions } from '../ts/services/alerts/exclusions.js';
import type { HostCheckHits } from '../ts/services/alerts/types.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { HOST_CHECK_ALERT_IDS, HostChecks } from '../ts/services/checks/host-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { addUser, startApi, v2, type ApiService } from './fixtures/api.js';
import { txt, u16 } from './fixtures/bytes.js';
import { clickhouseSkip, storeServer, type ClickHouseServer } from './fixtures/clickhouse.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});

const pro2 = (p: string) => `/lua/pro/rest/v2/${p}.lua`;
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
const ALL = { epoch_begin: 0, epoch_end: 0xffffffff, length: 1000 };

// ── flows ─────────────────────────────────────────────────────────────────
const DGA_RISK = (addon.info().dpi.risks as string[]).indexOf('Susp DGA Domain name');
const DGA_ALERT = BY_RISK[DGA_RISK]!.alertId;
const DNS = '10.9.0.53';
const NAMES = ['xjwqkzpvbn.com', 'bbcbedxhgjmdobdprmen.com', 'qzxwvkjhgt.org'];
const CLIENTS = ['10.9.0.1', '10.9.0.2', '10.9.0.3'];
function dnsQuery(name: string): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)]));
  return Buffer.concat([u16(0x4242), u16(0x0100), u16(1), u16(0), u16(0), u16(0), ...labels, Buffer.from([0]), u16(1), u16(1)]);
}
const dnsFile = tmp.file(
  'dga.pcap',
  pcap(
    NAMES.map((n, i): Packet => ({
      tsNs: at(1 + i),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: CLIENTS[i], dst: DNS, proto: IPPROTO.UDP }, udp({ sport: 41000 + i, dport: 53 }, dnsQuery(n)))),
    })),
  ),
);
/** the alert ids set in an ALERTS_MAP hex string */
const mapIds = (hex: string) => {
  const n = BigInt(`0x${hex || '0'}`);
  return Array.from({ length: 128 }, (_, i) => i).filter((i) => (n >> BigInt(i)) & 1n);
};

// ── host checks ───────────────────────────────────────────────────────────
const SYN_SCAN = HOST_CHECK_ALERT_IDS.syn_scan;
const S = '192.168.7.66', T = '192.168.7.10';
const seg = (t: number, src: string, sport: number, dst: string, dport: number, flags: number): Packet => ({
  tsNs: at(t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags }))),
});
/** 300 SYNs answered by RST|ACK in minute 0, a quiet packet in minute 1 (the alerts are released and stored at T0+120) */
const scanFile = tmp.file(
  'scan.pcap',
  pcap([
    ...Array.from({ length: 300 }, (_, i) => [seg(1 + i / 10, S, 40000, T, 1 + i, TCPF.SYN), seg(1.01 + i / 10, T, 1 + i, S, 40000, TCPF.RST | TCPF.ACK)]).flat(),
    seg(65, '192.168.7.20', 50000, T, 80, TCPF.SYN),
    seg(125, '192.168.7.20', 50001, T, 80, TCPF.SYN),
  ]),
);
const enableSyn = (c: ChecksConfig) => c.setEnabled('host', 'syn_scan', true);
const hostAlerts = async (s: ApiService, status = 'historical') => {
  const r = await s.call(v2('get/host/alert/list'), { query: { ifid: 0, status, ...ALL, alert_id: `${SYN_SCAN};eq` } });
  expect(r.body.rc, r.text).toBe(0);
  return (r.body.rsp.records as any[]).map((x) => x.ip?.value ?? x.ip).sort();
};

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('flow alert exclusions on %s', (store, skip) => {
  let ch: ClickHouseServer | undefined;
  const history = () => (store === 'clickhouse' ? { clickhouse: { url: ch!.url(`fg_excl_${Math.random().toString(36).slice(2, 8)}`) } } : true);
  beforeAll(async () => {
    const up = await storeServer(store, skip);
    if (!up) return;
    ch = up.ch;
  }, 120_000);
  afterAll(async () => ch?.stop());

  const flows = async (s: ApiService) => {
    const r = await s.call(pro2('get/db/flows'), {
      query: { ifid: 0, begin_time_clause: 0, end_time_clause: 0xffffffff, select_clause: 'IPV4_SRC_ADDR,INFO,ALERTS_MAP,STATUS', maxhits_clause: 100 },
    });
    expect(r.body.rc, r.text).toBe(0);
    return new Map((r.body.rsp as any[]).map((x) => [String(x.IPV4_SRC_ADDR), { info: String(x.INFO), ids: mapIds(String(x.ALERTS_MAP)), status: Number(x.STATUS) }]));
  };

  it.skipIf(!!skip)('a host and a domain exclusion clear that alert from their flows only', async () => {
    const base = await startApi({ files: [dnsFile], engine: { flushAtEnd: true, periodicDumpSec: 0 }, history: history() });
    services.push(base);
    const before = await flows(base);
    // every query raised the DGA alert (the baseline the exclusions act on)
    for (const [i, c] of CLIENTS.entries()) {
      expect(before.get(c)?.info).toBe(NAMES[i]);
      expect(before.get(c)?.ids).toContain(DGA_ALERT);
    }
    const s = await startApi({
      files: [dnsFile],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: history(),
      configure: async (_c, checking) => {
        await checking.exclusions.add({ type: 'host', key: CLIENTS[0] }, 'flow', DGA_ALERT);
        await checking.exclusions.add({ type: 'domain', key: NAMES[1] }, 'flow', DGA_ALERT);
        // excluded for another subject or key: changes nothing
        await checking.exclusions.add({ type: 'host', key: '10.9.0.3@7' }, 'flow', DGA_ALERT);
        await checking.exclusions.add({ type: 'host', key: CLIENTS[2] }, 'host', SYN_SCAN);
      },
    });
    services.push(s);
    const after = await flows(s);
    expect(after.get(CLIENTS[0])!.ids).not.toContain(DGA_ALERT);
    expect(after.get(CLIENTS[1])!.ids).not.toContain(DGA_ALERT);
    expect(after.get(CLIENTS[2])!.ids).toEqual(before.get(CLIENTS[2])!.ids);
    // the other alerts of the excluded flows stay (ALERTS_MAP less the one id)
    for (const c of CLIENTS.slice(0, 2)) expect(after.get(c)!.ids).toEqual(before.get(c)!.ids.filter((id) => id !== DGA_ALERT));
    // the alert list has only the flows still alerted
    const list = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, ...ALL, alert_id: `${DGA_ALERT};eq` } });
    expect(list.body.rsp.records.map((r: any) => r.cli_ip.ip)).toEqual([CLIENTS[2]]);
  });
});

describe('host alert exclusions', () => {
  it('an excluded scanner raises nothing, its victim does', async () => {
    const s = await startApi({
      files: [scanFile],
      history: true,
      configure: async (c, checking) => {
        await enableSyn(c);
        await checking.exclusions.add({ type: 'host', key: S }, 'host', SYN_SCAN);
      },
    });
    services.push(s);
    await s.api.alerts.flush();
    expect(await hostAlerts(s)).toEqual([T]);
  });

  it('REST: add, list, per-host list, delete_alerts removes the stored alerts of the subject only, delete, delete all', async () => {
    const s = await startApi({ files: [scanFile], history: true, configure: (c) => enableSyn(c) });
    services.push(s);
    await s.api.alerts.flush();
    expect(await hostAlerts(s)).toEqual([T, S].sort());

    const add = await s.call(pro2('add/alert/exclusion'), { query: { type: 'host', alert_addr: T, subdir: 'host', host_alert_key: SYN_SCAN, delete_alerts: 'true' } });
    expect(add.body.rc, add.text).toBe(0);
    expect(await hostAlerts(s)).toEqual([S]);
    // a network with a VLAN, a domain and a flow exclusion
    for (const q of [
      { type: 'host', alert_addr: '10.1.2.3/16@12', subdir: 'flow', flow_alert_key: DGA_ALERT },
      { type: 'domain', alert_domain: 'Example.COM', flow_alert_key: DGA_ALERT },
      { type: 'certificate', alert_certificate: 'CN=evil', flow_alert_key: 0 },
    ]) expect((await s.call(pro2('add/alert/exclusion'), { query: q })).body.rc).toBe(0);

    const hosts = await s.call(pro2('get/alert/exclusion'), { query: { type: 'host' } });
    expect(hosts.body.rsp).toEqual([
      { type: 'host', alert_addr: '10.1.0.0/16@12', subdir: 'flow', alert_key: DGA_ALERT, alert_name: BY_RISK[DGA_RISK]!.key },
      { type: 'host', alert_addr: T, subdir: 'host', alert_key: SYN_SCAN, alert_name: 'host_alert_syn_scan' },
    ]);
    expect((await s.call(pro2('get/host/alert/exclusions'), { query: { host: T } })).body.rsp).toEqual([{ alert_key: SYN_SCAN, alert_name: 'host_alert_syn_scan' }]);
    expect((await s.call(pro2('get/flow/alert/exclusions'), { query: { host: T } })).body.rsp).toEqual([]);
    expect((await s.call(pro2('get/domain/alert/exclusions'))).body.rsp).toEqual([
      { alert_domain: 'example.com', flow_alerts: [{ alert_key: DGA_ALERT, alert_name: BY_RISK[DGA_RISK]!.key }] },
    ]);
    expect((await s.call(pro2('get/alert/exclusion'), { query: { type: 'certificate' } })).body.rsp).toEqual([
      { type: 'certificate', alert_certificate: 'CN=evil', subdir: 'flow', alert_key: 0, alert_name: 'all' },
    ]);
    // the checks export carries them (checks_import_export's alert_exclusions)
    const conf = await s.call(v2('get/checks/config'));
    expect(conf.body.rsp.alert_exclusions[T]).toEqual({ type: 'host', flow_alerts: [], host_alerts: [SYN_SCAN] });

    // delete one (a second time: -5, there is none), then all flow exclusions of host subjects
    expect((await s.call(pro2('delete/host/alert/exclusions'), { query: { alert_addr: T, alert_key: SYN_SCAN } })).body.rc).toBe(0);
    expect((await s.call(pro2('delete/host/alert/exclusions'), { query: { alert_addr: T, alert_key: SYN_SCAN } })).body.rc).toBe(-5);
    const all = await s.call(pro2('delete/all/alert/exclusions'), { query: { type: 'flow' } });
    expect(all.body.rsp).toEqual({ deleted: 1 });
    expect((await s.call(pro2('get/alert/exclusion'), { query: { type: 'host' } })).body.rsp).toEqual([]);
    expect((await s.call(pro2('delete/alert/exclusion'), { query: { type: 'domain', alert_domain: 'example.com', flow_alert_key: DGA_ALERT } })).body.rc).toBe(0);
    expect((await s.call(pro2('get/domain/alert/exclusions'))).body.rsp).toEqual([]);
    // the stored alert of the other host was never touched
    expect(await hostAlerts(s)).toEqual([S]);
  });

  it('hostile input: -5, nothing stored, alerts intact; non-admins -3', async () => {
    const s = await startApi({ files: [scanFile], history: true, configure: (c) => enableSyn(c) });
    services.push(s);
    await s.api.alerts.flush();
    await addUser(s, { username: 'viewer', password: 'pw-viewer-123', allow_alerts: '1' });
    const bad = [
      { type: 'host', alert_addr: 'x', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'host', alert_addr: "1.2.3.4' OR 1=1 --", subdir: 'host', host_alert_key: SYN_SCAN, delete_alerts: 'true' },
      { type: 'host', alert_addr: '1.2.3.4/33', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'host', alert_addr: '010.1.2.3', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'host', alert_addr: '1.2.3.4@4096', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'host', alert_addr: T, subdir: 'host', host_alert_key: 9999 },
      { type: 'host', alert_addr: T, subdir: 'host', host_alert_key: '5;DROP' },
      { type: 'host', alert_addr: T, subdir: 'flow', flow_alert_key: 250 },
      { type: 'host', alert_addr: T, subdir: 'mac', host_alert_key: SYN_SCAN },
      { type: 'host', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'domain', alert_domain: 'a b.com', flow_alert_key: DGA_ALERT },
      { type: 'domain', alert_domain: 'x.com', subdir: 'host', host_alert_key: SYN_SCAN },
      { type: 'nope', alert_addr: T },
    ];
    for (const q of bad) {
      const r = await s.call(pro2('add/alert/exclusion'), { query: q });
      expect([JSON.stringify(q), r.status < 500, r.body.rc]).toEqual([JSON.stringify(q), true, -5]);
    }
    for (const [p, q] of [
      ['delete/all/alert/exclusions', { type: 'x' }],
      ['delete/all/alert/exclusions', { type: 'host', host: 'nope' }],
      ['get/host/alert/exclusions', { host: '1.2.3' }],
      ['get/alert/exclusion', { type: 'mac' }],
      ['delete/flow/alert/exclusions', { alert_addr: T, alert_key: 'a' }],
    ] as const) expect([p, (await s.call(pro2(p), { query: q })).body.rc]).toEqual([p, -5]);
    const denied = await s.call(pro2('add/alert/exclusion'), { query: { type: 'host', alert_addr: T, subdir: 'host', host_alert_key: SYN_SCAN }, user: 'viewer', pw: 'pw-viewer-123' });
    expect(denied.body.rc).toBe(-3);
    expect((await s.call(pro2('get/alert/exclusion'), { query: { type: 'host' }, user: 'viewer', pw: 'pw-viewer-123' })).body.rc).toBe(-3);
    for (const t of ['host', 'domain', 'certificate']) expect((await s.call(pro2('get/alert/exclusion'), { query: { type: t } })).body.rsp).toEqual([]);
    expect(await hostAlerts(s)).toEqual([T, S].sort());
  });

  it('survives a restart on the same data directory and applies from the first packet', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fg-excl-'));
    // the capture is from 2023: retention must not drop the first run's alerts at the restart
    const history = { retentionDays: 100_000 };
    const a = await startApi({ files: [scanFile], dataDir, history, configure: (c) => enableSyn(c) });
    expect((await a.call(pro2('add/alert/exclusion'), { query: { type: 'host', alert_addr: S, subdir: 'host', host_alert_key: SYN_SCAN } })).body.rc).toBe(0);
    await a.close();
    const b = await startApi({ files: [scanFile], dataDir, history, configure: (c) => enableSyn(c) });
    services.push(b);
    expect((await b.call(pro2('get/host/alert/exclusions'), { query: { host: S } })).body.rsp).toEqual([{ alert_key: SYN_SCAN, alert_name: 'host_alert_syn_scan' }]);
    await b.api.alerts.flush();
    // the first run stored both (before the exclusion), the second only the victim's
    const r = await b.call(v2('get/host/alert/list'), { query: { ifid: 0, ...ALL, alert_id: `${SYN_SCAN};eq` } });
    const ips = (r.body.rsp.records as any[]).map((x) => x.ip?.value ?? x.ip).sort();
    expect(ips).toEqual([T, T, S].sort());
  });

  it('the host checks obey a change at their next tick: the engaged alert is released, not raised again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-excl-unit-'));
    const store = new ConfigStore(dir);
    try {
      const checks = ChecksConfig.open(store);
      await checks.setEnabled('host', 'syn_scan', true);
      const x = AlertExclusions.open(store);
      const alerts = await AlertService.open(null);
      const hc = new HostChecks(checks, alerts, (ip, vlan, id) => x.hostAlertExcluded(ip, vlan, id));
      const hits: HostCheckHits[] = [
        { ip: S, vlan: 3, local: true, name: '', hits: { syn_scan: { attacker: 400, victim: 0 } } },
        { ip: T, vlan: 3, local: true, name: '', hits: { syn_scan: { attacker: 0, victim: 400 } } },
      ];
      hc.tick(0, 60, () => hits);
      expect(alerts.engaged('host', 0).map((a) => a.entityVal).sort()).toEqual([`${S}@3`, `${T}@3`].sort());
      // the scanner's /24 on VLAN 3 (VLAN 4 would not match)
      await x.add({ type: 'host', key: '192.168.7.0/24@4' }, 'host', 0);
      hc.tick(0, 120, () => hits);
      expect(alerts.engaged('host', 0)).toHaveLength(2);
      await x.add({ type: 'host', key: '192.168.7.64/30@3' }, 'host', 0);
      hc.tick(0, 180, () => hits);
      expect(alerts.engaged('host', 0).map((a) => a.entityVal)).toEqual([`${T}@3`]);
      // counted as stored-and-dropped (no store here): the release happened
      expect(alerts.counters(0).dropped).toBe(1);
      await alerts.close();
    } finally {
      await store.close();
    }
  });
});
