// GET /metrics: the engines' counters in Prometheus' text format. The
// packet and byte counters equal what tshark reads from the capture; with a
// flow table of 4 entries, the refused flows show in flowgate_refused_total
// as in interface data's refused.flows; credentials as the API's; a user
// bound to one interface sees that interface only.
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import { metricsText } from '../ts/api/metrics.js';
import type { MonitoredInterface } from '../ts/services/interfaces.js';
import { addUser, startApi, v2, type ApiService } from './fixtures/api.js';
import { tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS, tool } from './fixtures/util.js';

const KXUN = join(NDPI_PCAPS, '1kxun.pcap');
const WHOIS = join(NDPI_PCAPS, 'whois.pcapng');
let s: ApiService;

beforeAll(async () => {
  s = await startApi({ files: [KXUN, WHOIS], engine: { maxFlows: 4 } });
  await addUser(s, { username: 'if1', password: 'pw-if1', allowed_interface: '1' });
}, 60_000);
afterAll(async () => s?.close());

/** Samples of the text format: `name{labels}` → value; comment lines checked for HELP/TYPE pairs. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const c = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (c) {
      if (c[1] === 'TYPE') {
        expect(['counter', 'gauge']).toContain(c[3]);
        typed.add(c[2]);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.e+]+)$/.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    expect(typed.has(m![1]), `${m![1]} has no TYPE line before it`).toBe(true);
    out.set(m![1] + (m![2] ?? ''), Number(m![3]));
  }
  return out;
}

const get = (user: string, pw: string) =>
  fetch(`${s.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` } });

describe('GET /metrics', () => {
  it('packets and bytes as tshark counts them; refused flows as interface data says', async () => {
    const r = await get('admin', 'Adm1n-secret!');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parse(await r.text());
    const frames = tool('tshark', ['-r', KXUN, '-T', 'fields', '-e', 'frame.len']).trim().split('\n').map(Number);
    const l = `{ifid="0",ifname="${KXUN}"}`;
    expect(m.get(`flowgate_packets_total${l}`)).toBe(frames.length);
    expect(m.get(`flowgate_bytes_total${l}`)).toBe(frames.reduce((a, b) => a + b, 0));
    expect(m.get(`flowgate_flows_max${l}`)).toBe(4);
    const ifd = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    const refused = m.get(`flowgate_refused_total{ifid="0",ifname="${KXUN}",table="flows"}`)!;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBe(ifd.refused.flows);
    expect(m.get(`flowgate_flows${l}`)).toBe(ifd.num_flows);
    // both interfaces
    expect([...m.keys()].some((k) => k.startsWith('flowgate_packets_total{ifid="1"'))).toBe(true);
    expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('per application: the bytes l7/stats gives each (whose sum api-l7 ties to the IP bytes); alerted flows and engaged alerts as interface data counts them', async () => {
    const m = parse(await (await get('admin', 'Adm1n-secret!')).text());
    const pre = `flowgate_application_bytes_total{ifid="0",ifname="${KXUN}",application="`;
    const apps = new Map([...m].filter(([k]) => k.startsWith(pre)).map(([k, v]) => [k.slice(pre.length, -2), v]));
    expect(apps.size).toBeGreaterThan(1);
    const l7 = (await s.call(v2('get/interface/l7/stats'), { query: { ifid: 0, ndpistats_mode: 'sinceStartup', collapse_stats: false } })).body.rsp as { label: string; value: number }[];
    for (const x of l7) expect(apps.get(x.label), x.label).toBe(x.value);
    expect(apps.size).toBe(l7.filter((x) => x.value > 0).length);
    const ifd = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    for (const sev of ['notice', 'warning', 'error']) {
      expect(m.get(`flowgate_alerted_flows{ifid="0",ifname="${KXUN}",severity="${sev}"}`), sev).toBe(ifd[`alerted_flows_${sev}`]);
      expect(m.get(`flowgate_engaged_alerts{ifid="0",ifname="${KXUN}",severity="${sev}"}`), sev).toBe(ifd[`engaged_alerts_${sev}`]);
    }
    expect(m.get(`flowgate_alerts_dropped_total{ifid="0",ifname="${KXUN}",family="host"}`)).toBe(ifd.host_dropped_alerts);
  });

  it('no credentials or a wrong password: 401; a user bound to interface 1 sees interface 1 only', async () => {
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    expect((await get('admin', 'wrong')).status).toBe(401);
    const r = await get('if1', 'pw-if1');
    expect(r.status).toBe(200);
    const keys = [...parse(await r.text()).keys()].filter((k) => k.startsWith('flowgate_packets_total'));
    expect(keys).toEqual([`flowgate_packets_total{ifid="1",ifname="${WHOIS}"}`]);
  });
});

describe('egress counters', () => {
  it("per target: offered packets and bytes, by action, as the output file's frames say (tshark)", async () => {
    const tmp = tempDir('flowgate-metrics-egress-');
    const out = tmp.file('agg0.pcap');
    const e = new Engine({ files: [KXUN], egress: { aggregated: [{ pcap: out }] } });
    let m: Map<string, number>;
    try {
      e.start();
      await e.waitDone();
      m = parse(metricsText([{ ifid: 0, ifname: 'kx', engine: e } as unknown as MonitoredInterface]));
    } finally {
      e.close(); // the output file is complete once the engine is closed
    }
    try {
      const l = 'ifid="0",ifname="kx",target="aggregated",queue="0"';
      const written = tool('tshark', ['-r', out, '-T', 'fields', '-e', 'frame.len']).trim().split('\n').map(Number);
      const input = tool('tshark', ['-r', KXUN, '-T', 'fields', '-e', 'frame.len']).trim().split('\n').map(Number);
      // everything forwarded by default: the output is the input
      expect(m.get(`flowgate_egress_packets_total{${l}}`)).toBe(input.length);
      expect(m.get(`flowgate_egress_action_packets_total{${l},action="forward"}`)).toBe(written.length);
      expect(written.length).toBe(input.length);
      expect(m.get(`flowgate_egress_action_packets_total{${l},action="discard"}`)).toBe(0);
      expect(m.get(`flowgate_egress_forwarded_bytes_total{${l}}`)).toBe(written.reduce((a, b) => a + b, 0));
      expect(m.get(`flowgate_egress_output_drops_total{${l}}`)).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('--metrics-open-loopback', () => {
  let o: ApiService;
  beforeAll(async () => {
    o = await startApi({ files: [WHOIS], bind: '0.0.0.0', metricsOpenLoopback: true });
  }, 60_000);
  afterAll(async () => o?.close());

  it('a loopback client reads /metrics without credentials; a client on another address of this machine still needs them', async () => {
    const port = new URL(o.url).port;
    const open = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(open.status).toBe(200);
    expect([...parse(await open.text()).keys()].some((k) => k.startsWith('flowgate_packets_total{ifid="0"'))).toBe(true);
    // wrong credentials sent from loopback are still refused
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` } })).status).toBe(401);
    const other = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
    expect(other, 'this machine has a non-loopback IPv4 address').toBeDefined();
    expect((await fetch(`http://${other!.address}:${port}/metrics`)).status).toBe(401);
    const auth = { authorization: `Basic ${Buffer.from('admin:Adm1n-secret!').toString('base64')}` };
    expect((await fetch(`http://${other!.address}:${port}/metrics`, { headers: auth })).status).toBe(200);
  });
});
