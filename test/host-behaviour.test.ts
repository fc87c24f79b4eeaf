// ntopng's behavioural counters of a local host (HostStats' DES counters:
// score_behaviour, active_flows_behaviour; MonitoredCounter's anomaly
// indexes: bytes.sent.anomaly_index …, per L4 family too) on a capture built here with a known
// traffic per minute over 30 minutes: one new flow a minute, then 50 a minute
// for five minutes, then one again; 10 to 25 packets a minute; another host
// looks up one or two names a minute. The engine
// observes at each minute boundary of packet time (its host-check tick):
// the expected values are computed here from those per-minute figures with
// nDPI's double exponential smoothing and ntopng's RSI-like index, written
// from their published definitions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { DNS_RESPONSE, dns, dnsName, ipRdata } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir();
let s: ApiService;
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const A = '192.168.44.1', R = '198.51.100.44', OTHER = '198.51.100.45';
// B looks names up (answered): 1 a minute, 2 a minute in minutes 21-23
const B = '192.168.44.2', RESOLVER = '198.51.100.53';
const namesIn = (m: number) => (m >= 21 && m <= 23 ? 2 : 1);
const T0 = 1_700_000_040; // a minute boundary
const MINUTES = 30;
const flowsIn = (m: number) => (m >= 21 && m <= 25 ? 50 : 1);
const pktsIn = (m: number) => 10 + (m % 4) * 5;
const FRAME = 14 + 20 + 8 + 100;

beforeAll(async () => {
  const p: Packet[] = [];
  let port = 20000;
  for (let m = 0; m < MINUTES; m++) {
    const at = (ms: number) => BigInt(T0 + 60 * m) * 1_000_000_000n + BigInt(ms) * 1_000_000n;
    const ports = Array.from({ length: flowsIn(m) }, () => port++);
    // the minute's packets spread over its new flows, in its first 50 s
    for (let k = 0; k < pktsIn(m) || k < ports.length; k++) {
      const sport = ports[k % ports.length];
      if (k < pktsIn(m)) p.push({ tsNs: at(k * 100), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: A, dst: R, proto: IPPROTO.UDP }, udp({ sport, dport: 7000 }, Buffer.alloc(100, 1)))) });
    }
    // flows past the packets of the minute: one packet each (counted too)
    for (let j = 0; j < namesIn(m); j++) {
      const q = { name: dnsName(`h${m}-${j}.example.com`), type: 1 };
      const sport = 50000 + m * 10 + j;
      p.push({ tsNs: at(20000 + j * 100), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: B, dst: RESOLVER, proto: IPPROTO.UDP }, udp({ sport, dport: 53 }, dns({ id: sport, flags: 0x0100, questions: [q] })))) });
      p.push({ tsNs: at(20010 + j * 100), data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: RESOLVER, dst: B, proto: IPPROTO.UDP }, udp({ sport: 53, dport: sport }, dns({ id: sport, flags: DNS_RESPONSE, questions: [q], answers: [{ name: q.name, type: 1, rdata: ipRdata('192.0.2.9') }] })))) });
    }
    for (let k = pktsIn(m); k < ports.length; k++)
      p.push({ tsNs: at(5000 + k * 10), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: A, dst: OTHER, proto: IPPROTO.UDP }, udp({ sport: ports[k], dport: 7000 }, Buffer.alloc(100, 1)))) });
  }
  p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
  s = await startApi({ files: [tmp.file('behaviour.pcap', pcap(p))] });
});

/** what A had sent by the end of minute m − 1 (the tick at T0 + 60 m): packets, flows */
function sentBefore(k: number) {
  let pkts = 0, flows = 0;
  for (let m = 0; m < k; m++) pkts += Math.max(pktsIn(m), flowsIn(m)), flows += flowsIn(m);
  return { pkts, bytes: pkts * FRAME, flows };
}

/** nDPI's DES (ndpi_des_add_value) with ntopng's DESCounter parameters and bounds */
function des(values: number[]) {
  const alpha = 0.9, beta = 0.035, roll = 64;
  const t = Math.sqrt(-2 * Math.log(1 - (1 - Math.fround(0.05) / 2)));
  const ro = t - ((0.010328 * t + 0.802853) * t + 2.515517) / (((0.001308 * t + 0.189269) * t + 1.432788) * t + 1);
  let n = 0, sse = 0, prev = 0, rollup = 0, forecast = 0, trend = 0, anomaly = false, tot = 0, lower = 0, upper = 0;
  for (const v of values) {
    let f: number;
    if (n === 0) (f = v), (trend = 0);
    else {
      f = alpha * v + (1 - alpha) * (forecast + trend);
      trend = beta * (f - forecast) + (1 - beta) * trend;
    }
    const e = v - f;
    sse += e * e;
    prev += e * e;
    const band = n > 0 ? ro * Math.sqrt(sse / (n < roll ? n + 1 : (n % roll) + roll + 1)) : 0;
    const ready = n > 0;
    n++;
    forecast = f;
    if (++rollup === roll) (sse = prev), (rollup = 0), (prev = 0);
    lower = Math.floor(Math.max(0, f - band));
    upper = Math.round(f + band + 0.5);
    if (ready) {
      anomaly = v < lower || v > upper;
      tot += anomaly ? 1 : 0;
    }
  }
  return { value: values[values.length - 1], lower_bound: lower, upper_bound: upper, anomaly, tot };
}

/** ntopng's MonitoredCounter anomaly index (integer EWMAs at 50 %), one update per value */
function rsi(values: number[]) {
  const ewma = (x: number, a: number) => Math.floor((50 * x + 50 * a) / 100);
  let last = 0, lastDiff = 0, gains = 0, losses = 0, index = 0;
  values.forEach((v, i) => {
    const diff = v - last, delta = diff - lastDiff;
    if (delta > 0) (gains = ewma(delta, gains)), (losses = ewma(0, losses));
    else (gains = ewma(0, gains)), (losses = ewma(-delta, losses));
    index = 0;
    if (delta !== 0 && i > 0 && (gains || losses)) {
      const ratio = losses ? Math.fround(Math.fround(gains) / Math.fround(losses) + 1) : 1;
      index = Math.trunc(Math.fround(100 - Math.fround(100 / ratio)));
    }
    (last = v), (lastDiff = diff);
  });
  return index;
}

describe('host behaviour', () => {
  let d: any;
  beforeAll(async () => {
    const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host: A } });
    expect(r.body.rc, r.text).toBe(0);
    d = r.body.rsp;
  });

  it('active_flows_behaviour: DES over the active client flows every 5 minutes from the first tick; the burst is an anomaly', () => {
    // ticks at T0 + 60 k, k = 1 … 30 (the last when the replay ends); DES at k = 1, 6, 11, 16, 21, 26
    const obs = [1, 6, 11, 16, 21, 26].map((k) => sentBefore(k).flows);
    expect(obs).toEqual([1, 6, 11, 16, 21, 271]);
    const want = des(obs);
    expect(d.active_flows_behaviour.as_client).toEqual({ anomaly: want.anomaly, value: want.value, lower_bound: want.lower_bound, upper_bound: want.upper_bound });
    expect(want.anomaly).toBe(true);
    expect(d.active_flows_behaviour.as_server).toEqual({ anomaly: false, value: 0, lower_bound: 0, upper_bound: 1 });
    expect(d.active_flows_behaviour.tot_num_anomalies).toBe(want.tot);
  });

  it('score_behaviour: the same counters over the score, as ntopng shapes them', () => {
    for (const side of ['as_client', 'as_server']) {
      const x = d.score_behaviour[side];
      expect(Object.keys(x)).toEqual(['anomaly', 'value', 'lower_bound', 'upper_bound']);
      expect(x.lower_bound).toBeLessThanOrEqual(x.upper_bound);
    }
    expect(typeof d.score_behaviour.tot_num_anomalies).toBe('number');
  });

  it('anomaly indexes: the RSI of the bytes and packets sent, updated at every tick the counters moved', () => {
    const ks = Array.from({ length: MINUTES }, (_, i) => i + 1);
    expect(d['bytes.sent.anomaly_index']).toBe(rsi(ks.map((k) => sentBefore(k).bytes)));
    expect(d['packets.sent.anomaly_index']).toBe(rsi(ks.map((k) => sentBefore(k).pkts)));
    // the per-minute pattern goes up and down: a real index, not a constant
    expect(d['packets.sent.anomaly_index']).toBeGreaterThan(0);
    expect(d['bytes.rcvd.anomaly_index']).toBe(0);
    expect(d['packets.rcvd.anomaly_index']).toBe(0);
    // per L4 family (L4Stats): all of it is UDP, so UDP's index is the total's; the others never moved
    expect(d['udp.bytes.sent.anomaly_index']).toBe(d['bytes.sent.anomaly_index']);
    for (const f of ['tcp', 'icmp', 'other_ip']) for (const dir of ['sent', 'rcvd']) expect(d[`${f}.bytes.${dir}.anomaly_index`], `${f} ${dir}`).toBe(0);
  });

  it('contacted_hosts_behaviour: DES over the names visited per 5-minute window; value: the current window so far', async () => {
    const b = (await s.call(v2('get/host/data'), { query: { ifid: 0, host: B } })).body.rsp;
    // windows closed at the ticks k = 1, 6, …, 26: the names of minutes [previous k, k)
    const ks = [1, 6, 11, 16, 21, 26];
    const obs = ks.map((k, i) => {
      let n = 0;
      for (let m = i ? ks[i - 1] : 0; m < k; m++) n += namesIn(m);
      return n;
    });
    expect(obs).toEqual([1, 5, 5, 5, 5, 8]);
    const want = des(obs);
    let now = 0;
    for (let m = 26; m < MINUTES; m++) now += namesIn(m);
    expect(b.contacted_hosts_behaviour).toEqual({ value: now, anomaly: want.anomaly, lower_bound: want.lower_bound, upper_bound: want.upper_bound });
    // A looked nothing up
    expect(d.contacted_hosts_behaviour).toEqual({ value: 0, anomaly: false, lower_bound: 0, upper_bound: 1 });
  });

  it('a remote host has them too (HostStats is every host’s), without the local hosts’ names visited', async () => {
    const r = (await s.call(v2('get/host/data'), { query: { ifid: 0, host: R } })).body.rsp;
    // R serves the flows that carry A's first packets of each minute: min(packets, flows) new ones a minute
    const cum = (k: number) => {
      let n = 0;
      for (let m = 0; m < k; m++) n += Math.min(pktsIn(m), flowsIn(m));
      return n;
    };
    const obs = [1, 6, 11, 16, 21, 26].map(cum);
    expect(obs).toEqual([1, 6, 11, 16, 21, 106]);
    const want = des(obs);
    expect(r.active_flows_behaviour.as_server).toEqual({ anomaly: want.anomaly, value: want.value, lower_bound: want.lower_bound, upper_bound: want.upper_bound });
    expect(r.active_flows_behaviour.as_client).toEqual({ anomaly: false, value: 0, lower_bound: 0, upper_bound: 1 });
    expect(r.active_flows_behaviour.tot_num_anomalies).toBe(want.tot);
    // its received bytes, every tick they moved (every minute)
    const rcvd = (k: number) => {
      let n = 0;
      for (let m = 0; m < k; m++) n += pktsIn(m) * FRAME;
      return n;
    };
    expect(r['bytes.rcvd.anomaly_index']).toBe(rsi(Array.from({ length: MINUTES }, (_, i) => rcvd(i + 1))));
    expect(r['bytes.sent.anomaly_index']).toBe(0);
    expect(r).not.toHaveProperty('contacted_hosts_behaviour');
  });

  it('interface data: the anomalies the local and the remote hosts found (v2 num_local_hosts_anomalies / num_remote_hosts_anomalies)', async () => {
    const hosts = (await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } })).body.rsp.data as { ip: string; is_localhost?: boolean }[];
    let local = 0, remote = 0;
    for (const h of hosts) {
      const d = (await s.call(v2('get/host/data'), { query: { ifid: 0, host: h.ip } })).body.rsp;
      const n = (d.score_behaviour?.tot_num_anomalies ?? 0) + (d.active_flows_behaviour?.tot_num_anomalies ?? 0);
      if (d.localhost) local += n;
      else remote += n;
    }
    const i = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    // no host expired in the capture: the interface's counts are its hosts' totals
    expect(i.num_local_hosts_anomalies).toBe(local);
    expect(i.num_remote_hosts_anomalies).toBe(remote);
    expect(local).toBeGreaterThanOrEqual(des([1, 6, 11, 16, 21, 271]).tot); // A's burst
    expect(remote).toBeGreaterThanOrEqual(des([1, 6, 11, 16, 21, 106]).tot); // R's
    expect(local).toBeGreaterThan(0);
    expect(remote).toBeGreaterThan(0);
    // v1 has neither (ntopng's v1 script)
    const v1 = (await s.call('/lua/rest/v1/get/interface/data.lua', { query: { ifid: 0 } })).body.rsp;
    expect(v1).not.toHaveProperty('num_local_hosts_anomalies');
  });
});
