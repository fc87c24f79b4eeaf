// Host checks end to end: a SYN scan built frame by frame (fixtures/syn-scan.ts) is replayed through the
// service (engine → per-minute hits → host checks → alert service → store →
// REST). The scanner sends SCAN_PORTS SYNs in one minute and the target
// answers each with RST|ACK, so (ntopng's SYNScan) the scanner's attacker hits
// are SYNs sent − SYN|ACKs received = SCAN_PORTS and the target's victim hits
// SYNs received − SYN|ACKs sent = SCAN_PORTS; both above the default
// threshold 256. The SYN count is also taken from tshark.
import { afterAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { S, SCAN_PORTS, SYN_SCAN, T, conn, scan, scanThenQuiet } from './fixtures/syn-scan.js';
import { tsharkFields } from './fixtures/tshark.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});

const THRESHOLD = 256; // syn_scan.lua default_value.threshold

// A: the scan in minute 0, ordinary traffic in minutes 1 and 2: the alerts are
// raised at the tick closing minute 0 (T0+60) and released at the next one (T0+120).
const fileA = tmp.file('scan-then-quiet.pcap', pcap(scanThenQuiet()));
// B: ordinary traffic in minute 0, the scan in minute 1, the capture ends:
// raised at the last tick (T0+120) and still engaged.
const fileB = tmp.file('scan-at-end.pcap', pcap([...conn(5, 50003), ...scan(61)]));

const enableSynScan = { configure: (c: { setEnabled(s: string, k: string, on: boolean): Promise<void> }) => c.setEnabled('host', 'syn_scan', true) };
async function start(file: string, enable: boolean) {
  const s = await startApi({ files: [file], history: true, ...(enable ? enableSynScan : {}) });
  services.push(s);
  return s;
}
const list = (s: ApiService, status: string) =>
  s.call(v2('get/host/alert/list'), { query: { ifid: 0, status, epoch_begin: T0 - 3600, epoch_end: T0 + 3600, alert_id: `${SYN_SCAN};eq`, length: 100 } });

describe('SYN scan → host alerts', () => {
  it("tshark counts the scanner's SYNs the test built", async () => {
    const rows = await tsharkFields(fileA, ['ip.src'], 'tcp.flags.syn==1 && tcp.flags.ack==0');
    expect(rows.filter((r) => r[0] === S)).toHaveLength(SCAN_PORTS);
  });

  it('raises the attacker and the victim alert at the tick closing the scan minute, released at the next and stored', async () => {
    const s = await start(fileA, true);
    const engaged = await list(s, 'engaged');
    expect(engaged.body.rc).toBe(0);
    expect(engaged.body.recordsTotal).toBe(0);
    await s.api.alerts.flush();
    const past = await list(s, 'historical');
    expect(past.body.rc).toBe(0);
    const recs = past.body.rsp.records as Record<string, any>[];
    expect(recs).toHaveLength(2);
    const byIp = new Map(recs.map((r) => [r.ip?.value ?? r.ip, r]));
    const att = byIp.get(S)!, vic = byIp.get(T)!;
    expect(att).toBeDefined();
    expect(vic).toBeDefined();
    for (const r of [att, vic]) {
      expect(r.alert_id.value).toBe(String(SYN_SCAN));
      expect(r.tstamp.value).toBe(T0 + 60);
      expect(r.duration).toBe(60);
    }
    // ntopng's no_html record: the flags as the strings 'true'/'false'
    expect(att.is_attacker).toBe('true');
    expect(vic.is_victim).toBe('true');
    expect(vic.is_attacker).toBe('false');
    // what the check measured, in the stored alert JSON (ntopng's FlowHitsAlert::getAlertJSON: value = hits, threshold)
    const q = await s.call(v2('get/alert/list/alerts'), {
      query: { ifid: 0, alert_family: 'host', epoch_begin: T0 - 3600, epoch_end: T0 + 3600, select_clause: 'ip,json', where_clause: `alert_id=${SYN_SCAN}`, maxhits_clause: 10 },
    });
    expect(q.body.rc).toBe(0);
    const rows = q.body.rsp as { ip: string; json: string }[];
    expect(rows.map((r) => r.ip).sort()).toEqual([S, T].sort());
    for (const r of rows) expect(JSON.parse(r.json)).toMatchObject({ value: SCAN_PORTS, threshold: THRESHOLD });
  });

  it('a scan in the last minute stays engaged, with the counters of interface and host data', async () => {
    const s = await start(fileB, true);
    const engaged = await list(s, 'engaged');
    expect(engaged.body.recordsTotal).toBe(2);
    for (const r of engaged.body.rsp.records) expect(r.tstamp.value).toBe(T0 + 120);
    const iface = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(iface.body.rsp.engaged_alerts).toBe(2);
    const host = await s.call(v2('get/host/data'), { query: { ifid: 0, host: S } });
    expect(host.body.rsp.num_alerts).toBe(1);
  });

  it('raises nothing while the check is off (its default)', async () => {
    const s = await start(fileB, false);
    expect((await list(s, 'engaged')).body.recordsTotal).toBe(0);
    expect((await list(s, 'historical')).body.recordsTotal).toBe(0);
  });
});
