// Alert storms from traffic. Flows: FLOWS DNS queries for consonant-only
// names (nDPI's DGA heuristic flags each), every one its own flow, replayed
// with a tiny flow writer queue: every flow is either written or counted
// as dropped (db.flow_export_count + flow_export_drops = FLOWS), each written
// one is an alert, and the service keeps answering. Hosts: SCANNERS hosts
// each sending 3 SYNs to one target in the same minute (syn_scan threshold
// set to 2), with maxEngaged small: exactly maxEngaged alerts engaged, the
// rest refused and counted in dropped_alerts; released at once into a small
// write queue, what does not fit is counted and the rest stored.
import type { ChecksConfig } from '../ts/services/checks/config.js';
import { afterAll, describe, expect, it } from 'vitest';

import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { txt, u16 } from './fixtures/bytes.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;

const FLOWS = 20_000;
const CONS = 'bcdfghjklmnpqrstvwxz';
/** the i-th consonant-only label (10 letters, distinct per i) */
const dgaName = (i: number) => {
  let s = '', n = i + 1_000_003;
  for (let k = 0; k < 10; k++) {
    s += CONS[n % CONS.length];
    n = Math.floor(n / CONS.length) + k * 7;
  }
  return `${s}.com`;
};
function dnsQuery(name: string): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)]));
  return Buffer.concat([u16(0x4242), u16(0x0100), u16(1), u16(0), u16(0), u16(0), ...labels, Buffer.from([0]), u16(1), u16(1)]);
}
const client = (i: number) => `10.${60 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;

describe('alert storm from flows', () => {
  it('every flow is written as an alert or counted as dropped; the service answers', async () => {
    const file = tmp.file(
      'dga-storm.pcap',
      pcap(
        Array.from({ length: FLOWS }, (_, i): Packet => ({
          tsNs: at(1 + i / 10_000),
          data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: client(i), dst: '10.59.0.53', proto: IPPROTO.UDP }, udp({ sport: 30000 + (i % 20000), dport: 53 }, dnsQuery(dgaName(i))))),
        })),
      ),
    );
    const rss0 = process.memoryUsage().rss;
    const s = await startApi({
      files: [file],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: { retentionDays: 100_000, writer: { batchRows: 128, maxQueued: 1 } },
    });
    services.push(s);
    const data = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(data.body.rc).toBe(0);
    const db = data.body.rsp.db as { flow_export_count: number; flow_export_drops: number };
    expect(db.flow_export_count + db.flow_export_drops).toBe(FLOWS);
    expect(db.flow_export_count).toBeGreaterThan(0);
    const list = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600, length: 10 } });
    expect(list.body.rc).toBe(0);
    // each written flow is an alert (all are DGA queries)
    expect(list.body.recordsTotal).toBe(db.flow_export_count);
    console.log(`flow storm: ${db.flow_export_count} written, ${db.flow_export_drops} dropped, rss +${Math.round((process.memoryUsage().rss - rss0) / 1e6)} MB`);
  }, 180_000);
});

// the host check alone: the local network's own scan/flood victim checks would add their alerts to the counts
const hostScanOnly = async (c: ChecksConfig) => {
  await c.update('host', 'syn_scan', { min: { enabled: true, script_conf: { threshold: 2, operator: 'gt' } } });
  for (const k of ['syn_scan_victim', 'flow_flood_victim']) await c.setEnabled('network', k, false);
  await c.setEnabled('host', 'score_threshold', false);
};

describe('alert storm from host checks', () => {
  const SCANNERS = 3000, MAX_ENGAGED = 500, TARGET = '10.70.0.1';
  const scanner = (i: number) => `10.71.${i >> 8}.${i & 255}`;
  it(`${SCANNERS} scanners at once: ${MAX_ENGAGED} engaged, the rest refused and counted`, async () => {
    const syn = (t: number, src: string, sport: number, dport: number): Packet => ({
      tsNs: at(t),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst: TARGET, proto: IPPROTO.TCP }, tcp({ sport, dport, flags: TCPF.SYN }))),
    });
    const pkts: Packet[] = [];
    // a packet in minute 0, the scans in minute 1: the capture's last tick (closing minute 1) raises them, nothing releases them
    pkts.push(syn(5, '10.72.0.1', 40000, 80));
    for (let k = 0; k < 3; k++) for (let i = 0; i < SCANNERS; i++) pkts.push(syn(61 + k * 10 + i / 1000, scanner(i), 40000, 1 + k));
    const file = tmp.file('scan-storm.pcap', pcap(pkts));
    const s = await startApi({
      files: [file],
      history: { retentionDays: 100_000 },
      alertOptions: { maxEngaged: MAX_ENGAGED },
      configure: hostScanOnly,
    });
    services.push(s);
    // candidates: every scanner (3 SYNs, none answered: 3 > 2) and the target as victim (3 × SCANNERS received)
    const candidates = SCANNERS + 1;
    const data = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(data.body.rsp.engaged_alerts).toBe(MAX_ENGAGED);
    // + 1: the interface's dropped_alerts check raises its own alert at the same tick, refused too (the table is full)
    expect(data.body.rsp.dropped_alerts).toBe(candidates - MAX_ENGAGED + 1);
    expect(s.api.alerts.counters(0).refused).toBe(candidates - MAX_ENGAGED + 1);
    const engaged = await s.call(v2('get/host/alert/list'), { query: { ifid: 0, status: 'engaged', epoch_begin: T0 - 60, epoch_end: T0 + 3600, length: 10 } });
    expect([engaged.body.rc, engaged.body.recordsTotal]).toEqual([0, MAX_ENGAGED]);
  }, 180_000);

  it(`${SCANNERS} scanners released at once into a small write queue: what does not fit is counted, the rest stored`, async () => {
    const syn = (t: number, src: string, sport: number, dport: number): Packet => ({
      tsNs: at(t),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst: TARGET, proto: IPPROTO.TCP }, tcp({ sport, dport, flags: TCPF.SYN }))),
    });
    // the scans in minute 0 (raised at T0+60), quiet minute 1: the last tick (T0+120) releases every engaged alert at once
    const pkts: Packet[] = [];
    for (let k = 0; k < 3; k++) for (let i = 0; i < SCANNERS; i++) pkts.push(syn(1 + k * 10 + i / 1000, scanner(i), 40000, 1 + k));
    pkts.push(syn(65, '10.72.0.1', 40000, 80));
    const QUEUE = 100;
    // every alert offered to the service, whatever the queue did with it
    const offered = new RecordingSink();
    const s = await startApi({
      files: [tmp.file('scan-storm-released.pcap', pcap(pkts))],
      history: { retentionDays: 100_000 },
      alertOptions: { maxEngaged: MAX_ENGAGED, maxQueued: QUEUE },
      alerts: offered,
      configure: hostScanOnly,
    });
    services.push(s);
    await s.api.alerts.flush();
    const c = s.api.alerts.counters(0);
    // still engaged: only the interface's own dropped_alerts alert (alerts were dropped in the last minute)
    expect(s.api.alerts.allEngaged(0).map((a) => [a.family, a.alertId])).toEqual([['interface', 4096 + 3]]);
    expect(c.refused).toBe(SCANNERS + 1 - MAX_ENGAGED);
    // besides the 500 released scans, the one-shot alerts of the new devices went to the same queue
    const emits = offered.emitted().length;
    const list = (family: string) => s.call(v2(`get/${family}/alert/list`), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 3600, length: 10 } });
    const hosts = (await list('host')).body.recordsTotal as number;
    const others = (await list('interface')).body.recordsTotal as number;
    expect(hosts).toBeLessThanOrEqual(QUEUE);
    expect(hosts + others).toBe(c.written);
    expect(c.written).toBeGreaterThanOrEqual(QUEUE);
    expect(c.dropped).toBe(c.refused + (MAX_ENGAGED - hosts) + (emits - others));
    const data = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(data.body.rsp.dropped_alerts).toBe(c.dropped);
  }, 180_000);
});
