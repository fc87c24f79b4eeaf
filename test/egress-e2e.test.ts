// End to end: a policy set through the egress REST API reaches the engine,
// and the capture file at the aggregated output shows it (tshark), with the
// API's counters equal to what tshark counts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { hashPassword, passwordKey } from '../ts/egress/credentials.js';
import { startEgressApi, startMonitoringApi, type EgressApi, type MonitoringApi } from '../ts/cli/serve.js';
import { lmdbKv } from '../ts/services/kv.js';
import { Interfaces } from '../ts/services/interfaces.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const CAPTURE = join(NDPI_PCAPS, 'netflix.pcap');
const dir = mkdtempSync(join(tmpdir(), 'flowgate-egress-e2e-'));
const OUT = join(dir, 'agg0.pcap');
let ifaces: Interfaces;
let api: MonitoringApi;
let egress: EgressApi;

const auth = { authorization: `Basic ${Buffer.from('ops:pw-e2e').toString('base64')}` };
const get = async (path: string) => {
  const r = await fetch(egress.url + path, { headers: auth });
  return { status: r.status, body: await r.json() };
};
const tsharkCount = (file: string, filter?: string) =>
  execFileSync('tshark', ['-r', file, ...(filter ? ['-Y', filter] : []), '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean).length;

beforeAll(async () => {
  ifaces = new Interfaces([{ source: CAPTURE, egress: { aggregated: [{ pcap: OUT }] } }]);
  api = await startMonitoringApi(ifaces, { port: 0, bind: '127.0.0.1', dataDir: join(dir, 'data'), adminPassword: 'x', print: () => {} });
  await lmdbKv(api.store.root).set(passwordKey('cento', 'ops'), hashPassword('pw-e2e'));
  egress = await startEgressApi({
    port: 0, bind: '127.0.0.1', store: api.store, dataDir: join(dir, 'data'), product: 'cento',
    layout: { aggregated: 1, balanced: 0, bridge: false }, engine: ifaces.get(0)!.engine, print: () => {},
  });
  // The policy is in force before the first packet.
  expect((await get('/egress/aggregated/protocol/DNS?action=discard')).status).toBe(200);
  expect((await get('/egress/aggregated/ip?subnet=192.168.1.0/24&action=slice-l4')).status).toBe(200);
  ifaces.start();
  await ifaces.get(0)!.engine.waitDone();
});
afterAll(async () => {
  await egress?.close();
  await api?.close();
  ifaces?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('DNS set to discard through the API: no DNS at the output, everything else there', () => {
  const input = tsharkCount(CAPTURE);
  const dns = tsharkCount(CAPTURE, 'dns');
  expect(dns).toBeGreaterThan(0);
  expect(tsharkCount(OUT, 'dns')).toBe(0);
  expect(tsharkCount(OUT)).toBe(input - dns);
});

it('the subnet rule slices the other packets of 192.168.1.0/24 after their L4 header', () => {
  const rows = execFileSync('tshark', ['-r', OUT, '-Y', 'tcp && ip.addr == 192.168.1.0/24', '-T', 'fields', '-e', 'frame.cap_len', '-e', 'frame.len', '-e', 'eth.len', '-e', 'ip.hdr_len', '-e', 'tcp.hdr_len'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.split('\t').map((x) => Number(x.split(',')[0])));
  expect(rows.length).toBeGreaterThan(100);
  for (const [cap, len, , ip, tcp] of rows) {
    expect(cap).toBe(Math.min(len, 14 + ip + tcp));
  }
});

it("the API's counters equal what tshark counts", async () => {
  const dns = await get('/egress/aggregated/protocol/DNS');
  expect(dns.body.action).toBe('discard');
  expect(dns.body.counters.rule.packets).toBe(tsharkCount(CAPTURE, 'dns'));
  const t = dns.body.counters.target;
  expect(t.packets).toBe(tsharkCount(CAPTURE));
  expect(t.forwarded).toBe(tsharkCount(OUT));
  expect(t.packets).toBe(t.forwarded + t.discarded + t.shunted);
});
