// Per-application (L7), per-category and per-DSCP counters of hosts and of the
// interface (Pipeline::account_flow, flow/host_l7.h). Flows are credited by
// accounting steps — each sweep visit (every 5 s of packet time), the flow's
// end, and each 1 GiB a direction carries — under the flow's application,
// category and DSCP marks at that step.
//
// Host bytes_sent/rcvd count exactly the packets of the host's flows, so once
// every flow has ended (flushAtEnd) a host's per-application sums equal them;
// the interface's per-application sums equal its IP bytes when no packet was
// left out of the flow table (flow_table_full = 0, checked).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, type EngineOptionsInput, type HostDetail } from '../ts/bindings/engine.js';
import { httpGet } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS, NDPI_TRUTH, normIp, tool } from './fixtures/util.js';

const T0 = 1_700_000_000;
const tmp = tempDir();
afterAll(() => tmp.cleanup());
let fileNo = 0;
const write = (packets: Packet[]) => tmp.file(`l7-${fileNo++}.pcap`, pcap(packets));

async function replay(files: string[], opts: Partial<EngineOptionsInput> = {}): Promise<Engine> {
  const e = new Engine({ files, flushAtEnd: true, flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10, ...opts });
  e.start();
  expect((await e.waitDone()).state).toBe('done');
  return e;
}

const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);

/** Frame of a UDP packet with `n` payload bytes: 14 + 20 + 8 + n on the wire. */
const U = (t: number, src: string, sport: number, dst: string, dport: number, n: number, dscp = 0, wirelen?: number): Packet => ({
  tsNs: sec(T0 + t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP, tos: dscp << 2 }, udp({ sport, dport }, Buffer.alloc(n, 0x61)))),
  wirelen,
});
const T = (t: number, src: string, sport: number, dst: string, dport: number, flags: number, seq: number, payload: Buffer = Buffer.alloc(0)): Packet => ({
  tsNs: sec(T0 + t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack: 1 }, payload))),
});
/** `n` packets of an unrelated UDP flow from t on, `dt` apart: batches of 256 packets move packet time on, so sweeps run between phases. */
const filler = (t: number, n: number, dt = 0.05): Packet[] => Array.from({ length: n }, (_, i) => U(t + i * dt, '10.9.9.1', 40000, '10.9.9.2', 40001, 10));

function checkIdentities(e: Engine, what: string) {
  const s = e.stats();
  expect(s.flow_table_full, what).toBe(0);
  expect(s.host_l7_pool_full, what).toBe(0);
  const l7 = e.l7Stats();
  expect(sum(l7.apps, (a) => a.bytes), `${what}: interface apps`).toBe(s.ip_bytes);
  expect(sum(l7.apps, (a) => a.packets), `${what}: interface apps`).toBe(s.ip_packets);
  expect(sum(l7.categories, (a) => a.bytes), `${what}: interface categories`).toBe(s.ip_bytes);
  // Each flow is counted at least once (more when its application changed after a step).
  expect(sum(l7.apps, (a) => a.num_flows), `${what}: flows`).toBeGreaterThanOrEqual(s.flows_created);
  const hosts = e.hosts({ limit: 1e7, detail: true }).rows;
  expect(hosts.length).toBe(s.num_hosts);
  for (const h of hosts) {
    const id = `${what} ${h.ip}@${h.vlan}`;
    expect(h.l7_pool_full, id).toBe(false);
    for (const [list, name] of [[h.ndpi, 'ndpi'], [h.dscp, 'dscp']] as const) {
      const l = list as { bytes_sent: number; bytes_rcvd: number; packets_sent: number; packets_rcvd: number }[];
      expect([sum(l, (x) => x.bytes_sent), sum(l, (x) => x.bytes_rcvd), sum(l, (x) => x.packets_sent), sum(l, (x) => x.packets_rcvd)], `${id} ${name}`).toEqual([
        h.bytes_sent, h.bytes_rcvd, h.packets_sent, h.packets_rcvd,
      ]);
    }
    expect([sum(h.ndpi_categories, (x) => x.bytes_sent), sum(h.ndpi_categories, (x) => x.bytes_rcvd)], `${id} categories`).toEqual([h.bytes_sent, h.bytes_rcvd]);
    for (const a of h.ndpi) {
      expect(a.num_flows, `${id} app ${a.id}`).toBeGreaterThanOrEqual(1);
      expect(a.duration % 5, `${id} app ${a.id}`).toBe(0);
      expect(a.duration, `${id} app ${a.id}`).toBeGreaterThanOrEqual(5);
    }
  }
}

describe('real captures: per-application sums equal the host and interface totals', () => {
  const all = readdirSync(NDPI_PCAPS).sort();
  it(`every capture of nDPI's test suite (${all.length})`, async () => {
    let withApps = 0;
    for (const f of all) {
      const e = await replay([join(NDPI_PCAPS, f)]).catch(() => null);
      if (!e) continue;  // the fuzzed capture that ends with an error is checked below
      try {
        checkIdentities(e, f);
        if (e.l7Stats().apps.some((a) => a.id !== 0)) withApps++;
      } finally {
        e.close();
      }
    }
    expect(withApps).toBeGreaterThan(all.length * 0.8);
  }, 120_000);

  it('the whole set as one playlist, and after a table rebuild (setLimits) the counters are kept', async () => {
    const files = all.map((f) => join(NDPI_PCAPS, f));
    const e = new Engine({ files, flushAtEnd: true, maxFlows: 1 << 17, maxHosts: 1 << 15, flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10 });
    try {
      e.start();
      await e.waitDone();
      checkIdentities(e, 'playlist');
      const before = e.hosts({ limit: 1e7, detail: true }).rows;
      const l7 = e.l7Stats();
      e.setLimits({ maxHosts: 1 << 16 });
      expect(e.stats().host_l7_entries_max).toBe(5 << 16);
      expect(e.hosts({ limit: 1e7, detail: true }).rows).toEqual(before);
      expect(e.l7Stats()).toEqual(l7);
    } finally {
      e.close();
    }
  }, 60_000);
});

describe('per-application bytes of a host against tshark, for the flows nDPI names', () => {
  // netflix.pcap: 192.168.1.7 talks HTTP (7) and HTTP.NetFlix / TLS.NetFlix (133) among others.
  const file = join(NDPI_PCAPS, 'netflix.pcap');
  const H = '192.168.1.7';
  const truth = readFileSync(join(NDPI_TRUTH, 'netflix.pcap.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

  for (const [app, name] of [[133, 'NetFlix'], [7, 'HTTP']] as const) {
    it(`${H}: ${name} (${app})`, async () => {
      const flows = truth.filter((r) => (r.app_id || r.master_id) === app && (r.src === H || r.dst === H));
      expect(flows.length).toBeGreaterThan(5);
      const filter = flows
        .map((r) => `(ip.addr==${r.src} && ip.addr==${r.dst} && ${r.l4.toLowerCase()}.port==${r.sport} && ${r.l4.toLowerCase()}.port==${r.dport})`)
        .join(' || ');
      const out = tool('tshark', ['-r', file, '-Y', filter, '-T', 'fields', '-e', 'ip.src', '-e', 'frame.len']);
      let sent = 0, rcvd = 0, ps = 0, pr = 0;
      for (const line of out.trim().split('\n')) {
        const [src, len] = line.split('\t');
        if (normIp(src!) === H) sent += Number(len), ps++;
        else rcvd += Number(len), pr++;
      }
      const e = await replay([file]);
      try {
        const h = e.host(H)!;
        const a = h.ndpi.find((x) => x.id === app);
        expect(a).toMatchObject({ bytes_sent: sent, bytes_rcvd: rcvd, packets_sent: ps, packets_rcvd: pr, num_flows: flows.length });
        // The capture lasts 90 s: sweeps every 5 s, so a long-lived application gains several periods.
        expect(a!.duration).toBeGreaterThanOrEqual(10);
        const iface = e.l7Stats().apps.find((x) => x.id === app)!;
        expect(iface.bytes).toBeGreaterThanOrEqual(sent + rcvd);
      } finally {
        e.close();
      }
    });
  }
});

describe('DSCP per host and direction, counted by hand', () => {
  const C = '10.0.0.1', S = '10.0.0.2', S2 = '10.0.0.3';
  it('each direction under the DSCP its packets carry', async () => {
    // C→S marked EF (46), S→C unmarked; C→S2 both ways AF41 (34).
    const packets: Packet[] = [
      U(0.0, C, 5000, S, 5060, 100, 46),   // 142 B
      U(0.1, S, 5060, C, 5000, 200, 0),    // 242 B
      U(0.2, C, 5000, S, 5060, 100, 46),   // 142 B
      U(0.3, C, 5001, S2, 7000, 58, 34),   // 100 B
      U(0.4, S2, 7000, C, 5001, 158, 34),  // 200 B
    ];
    const e = await replay([write(packets)]);
    try {
      const dscp = (ip: string) => e.host(ip)!.dscp;
      expect(dscp(C)).toEqual([
        { dscp: 0, bytes_sent: 0, bytes_rcvd: 242, packets_sent: 0, packets_rcvd: 1 },
        { dscp: 34, bytes_sent: 100, bytes_rcvd: 200, packets_sent: 1, packets_rcvd: 1 },
        { dscp: 46, bytes_sent: 284, bytes_rcvd: 0, packets_sent: 2, packets_rcvd: 0 },
      ]);
      expect(dscp(S)).toEqual([
        { dscp: 0, bytes_sent: 242, bytes_rcvd: 0, packets_sent: 1, packets_rcvd: 0 },
        { dscp: 46, bytes_sent: 0, bytes_rcvd: 284, packets_sent: 0, packets_rcvd: 2 },
      ]);
      expect(dscp(S2)).toEqual([{ dscp: 34, bytes_sent: 200, bytes_rcvd: 100, packets_sent: 1, packets_rcvd: 1 }]);
    } finally {
      e.close();
    }
  });

  it('a flow whose marking changes: each step goes under the marking current then', async () => {
    // Phase 1: C→S marked AF41; sweeps run during the filler; phase 2: C→S unmarked.
    const packets = [U(0, C, 6000, S, 6001, 58, 34), U(0.1, C, 6000, S, 6001, 58, 34), ...filler(1, 1000), U(60, C, 6000, S, 6001, 158, 0)];
    const e = await replay([write(packets)]);
    try {
      expect(e.host(C)!.dscp).toEqual([
        { dscp: 0, bytes_sent: 200, bytes_rcvd: 0, packets_sent: 1, packets_rcvd: 0 },
        { dscp: 34, bytes_sent: 200, bytes_rcvd: 0, packets_sent: 2, packets_rcvd: 0 },
      ]);
      // The interface keeps counting per packet.
      expect(e.stats().dscp.find((d) => d.dscp === 34)).toMatchObject({ packets: 2, bytes: 200 });
    } finally {
      e.close();
    }
  });
});

describe('applications, categories and flows counted by hand', () => {
  const C = '10.0.0.1', S = '10.0.0.2';
  const registry = Engine.info().dpi;
  const HTTP = registry.protocols.find((p) => p.name === 'HTTP')!;

  it('bytes accounted before classification stay Unknown; the flow is counted under both', async () => {
    const get = httpGet('example.com');
    const packets = [
      T(0, C, 1234, S, 80, TCPF.SYN, 999),                   // 54 B
      T(0.01, S, 80, C, 1234, TCPF.SYN | TCPF.ACK, 4999),    // 54 B
      T(0.02, C, 1234, S, 80, TCPF.ACK, 1000),               // 54 B
      ...filler(1, 1000),
      T(60, C, 1234, S, 80, TCPF.PSH | TCPF.ACK, 1000, get),                    // 54 + get
      T(60.01, S, 80, C, 1234, TCPF.PSH | TCPF.ACK, 5000, Buffer.alloc(300, 0x62)), // 354 B
    ];
    const e = await replay([write(packets)]);
    try {
      const flow = e.flows({ host: C, limit: 10 }).rows;
      expect(flow).toEqual([]);  // flushed
      const h: HostDetail = e.host(C)!;
      expect(h.ndpi).toEqual([
        { id: 0, bytes_sent: 108, bytes_rcvd: 54, packets_sent: 2, packets_rcvd: 1, num_flows: 1, duration: 5 },
        { id: HTTP.id, bytes_sent: 54 + get.length, bytes_rcvd: 354, packets_sent: 1, packets_rcvd: 1, num_flows: 1, duration: 5 },
      ]);
      const srv = e.host(S)!;
      expect(srv.ndpi.map((a) => [a.id, a.bytes_sent, a.bytes_rcvd])).toEqual([[0, 54, 108], [HTTP.id, 354, 54 + get.length]]);
      expect(h.ndpi_categories).toContainEqual({ id: HTTP.category, bytes_sent: 54 + get.length, bytes_rcvd: 354, duration: 5 });
      const apps = e.l7Stats().apps;
      expect(apps.find((a) => a.id === HTTP.id)).toEqual({ id: HTTP.id, bytes: 54 + get.length + 354, packets: 2, num_flows: 1 });
      // Unknown: the handshake, plus the filler flow (no dissector names it) unless a port guess did.
      expect(apps.find((a) => a.id === 0)!.bytes).toBeGreaterThanOrEqual(162);
    } finally {
      e.close();
    }
  });

  it('duration grows by 5 s per sweep pass (5 s of packet time) with traffic, once however many flows', async () => {
    // 50 s of traffic, 100 packets a second: batches of 256 packets are 2.56 s
    // apart, so the sweep runs steadily (from the second batch on).
    const one = Array.from({ length: 5001 }, (_, i) => U(i * 0.01, '10.9.9.1', 40000, '10.9.9.2', 40001, 10));
    const two = one.map((p, i) => (i % 2 ? U(i * 0.01, '10.9.9.1', 40002, '10.9.9.2', 40001, 10) : p));
    for (const [packets, flows] of [[one, 1], [two, 2]] as const) {
      const e = await replay([write(packets)]);
      try {
        const h = e.host('10.9.9.1')!;
        expect(h.ndpi).toHaveLength(1);
        expect(h.ndpi[0]).toMatchObject({ packets_sent: 5001, num_flows: flows, duration: 50 });
        expect(h.ndpi_categories[0]!.duration).toBe(50);
      } finally {
        e.close();
      }
    }
  });

  it('a direction carrying more than 4 GiB between two sweeps is credited exactly', async () => {
    // Truncated frames: each claims 1.5e9 bytes on the wire; 6 of them in one batch.
    const big = Array.from({ length: 6 }, (_, i) => U(i * 0.001, C, 7000, S, 7001, 10, 0, 1_500_000_000));
    const e = await replay([write(big)]);
    try {
      const h = e.host(C)!;
      expect(h.bytes_sent).toBe(9e9);
      expect(h.ndpi.map((a) => a.bytes_sent)).toEqual([9e9]);
      expect(h.dscp.map((a) => a.bytes_sent)).toEqual([9e9]);
      expect(sum(e.l7Stats().apps, (a) => a.bytes)).toBe(9e9);
    } finally {
      e.close();
    }
  });
});

describe('the per-host table is bounded', () => {
  it('a full table stops the hosts it cannot serve, counts them, and keeps the others exact', async () => {
    const file = join(NDPI_PCAPS, 'netflix.pcap');
    // 32 host slots, 1 entry each: fewer than the capture's hosts need.
    const e = await replay([file], { maxHosts: 32, l7EntriesPerHost: 1 });
    try {
      const s = e.stats();
      expect(s.host_l7_entries_max).toBe(32);
      expect(s.host_l7_entries).toBeLessThanOrEqual(32);
      const hosts = e.hosts({ limit: 1e6, detail: true }).rows;
      const full = hosts.filter((h) => h.l7_pool_full);
      expect(full.length).toBeGreaterThan(0);
      expect(s.host_l7_pool_full).toBe(full.length);
      for (const h of hosts) {
        const sent = sum(h.ndpi, (a) => a.bytes_sent), rcvd = sum(h.ndpi, (a) => a.bytes_rcvd);
        if (h.l7_pool_full) expect(sent + rcvd).toBeLessThan(h.bytes_sent + h.bytes_rcvd);
        else expect([sent, rcvd]).toEqual([h.bytes_sent, h.bytes_rcvd]);
      }
      // The interface does not depend on the pool.
      expect(sum(e.l7Stats().apps, (a) => a.bytes)).toBe(s.ip_bytes);
    } finally {
      e.close();
    }
  });

  it('a table rebuild keeps every entry, even when the hosts left need more than their share', async () => {
    const e = await replay([join(NDPI_PCAPS, 'netflix.pcap')], { l7EntriesPerHost: 1 });
    try {
      const s = e.stats();
      const before = e.hosts({ limit: 1e6, detail: true }).rows;
      // The smallest host table the names still fit in (one name slot per two hosts).
      const maxHosts = Math.max(s.num_hosts, 2 * before.filter((h) => h.name).length);
      expect(s.host_l7_entries).toBeGreaterThan(maxHosts);
      e.setLimits({ maxHosts });
      expect(e.stats()).toMatchObject({ max_hosts: maxHosts, host_l7_entries: s.host_l7_entries, host_l7_entries_max: s.host_l7_entries });
      expect(e.hosts({ limit: 1e6, detail: true }).rows).toEqual(before);
    } finally {
      e.close();
    }
  });

  it('an expired host leaves its entries to be reclaimed, and its slot\'s next host starts from zero', async () => {
    // 10.1.0.1/2 talk under three DSCP marks, then go idle and expire; 10.2.0.1/2
    // take their host slots (few slots: the freed ones) and talk until the end.
    const old = [0, 10, 46].flatMap((d, k) => [U(0.1 * k, '10.1.0.1', 5000 + k, '10.1.0.2', 53, 30, d), U(0.1 * k + 0.05, '10.1.0.2', 53, '10.1.0.1', 5000 + k, 60, d)]);
    const next = Array.from({ length: 40 }, (_, i) => U(12 + i * 0.5, '10.2.0.1', 6000, '10.2.0.2', 6001, 20 + i, 34));
    const packets = [...old, ...filler(1, 640), ...next].sort((a, b) => Number(a.tsNs - b.tsNs));
    const e = await replay([write(packets)], { maxHosts: 6, flowIdleSec: 2, localHostIdleSec: 3, remoteHostIdleSec: 3 });
    try {
      const s = e.stats();
      expect(s.hosts_expired).toBeGreaterThanOrEqual(2);
      expect(e.host('10.1.0.1')).toBeNull();
      const hosts = e.hosts({ limit: 100, detail: true }).rows;
      expect(hosts.map((h) => h.ip).sort()).toEqual(['10.2.0.1', '10.2.0.2', '10.9.9.1', '10.9.9.2']);
      for (const h of hosts) {
        expect(h.dscp.map((d) => d.dscp), h.ip).toEqual([h.ip.startsWith('10.2') ? 34 : 0]);
        expect([sum(h.ndpi, (a) => a.bytes_sent), sum(h.ndpi, (a) => a.bytes_rcvd)], h.ip).toEqual([h.bytes_sent, h.bytes_rcvd]);
        expect([sum(h.dscp, (a) => a.packets_sent), sum(h.dscp, (a) => a.packets_rcvd)], h.ip).toEqual([h.packets_sent, h.packets_rcvd]);
      }
      // The old hosts' entries were reclaimed by the sweep: only the live hosts' are left,
      // their counters, the no-TX sketches of those with one-way flows ended (one per count),
      // their one-way flow counters (one entry for both ways), and the local hosts' contact
      // sketches (one per non-zero count)
      const noTx = e.noTxPeers();
      const nonZero = (o: object | undefined) => Object.values(o ?? {}).filter((v) => v > 0).length;
      const sketches =
        [noTx.local, noTx.remote].flatMap((x) => Object.values(x.hosts_with_ports_count)).reduce((n, c) => n + nonZero(c), 0) +
        hosts.filter((h) => h.oneway_flows_as_server || h.oneway_flows_as_client).length +
        sum(hosts, (h) => nonZero(h.cardinality) + nonZero(h.server_contacts));
      expect(s.host_l7_entries).toBe(sum(hosts, (h) => h.ndpi.length + h.ndpi_categories.length + h.dscp.length) + sketches);
    } finally {
      e.close();
    }
  });

  it('hosts() leaves the counters out unless detail is asked for', async () => {
    const e = await replay([join(NDPI_PCAPS, 'netflix.pcap')]);
    try {
      const [h] = e.hosts({ limit: 1 }).rows;
      expect(h).not.toHaveProperty('ndpi');
      const [d] = e.hosts({ limit: 1, detail: true }).rows;
      expect(d!.ndpi.length).toBeGreaterThan(0);
      expect(e.host(d!.ip, d!.vlan)).toEqual(d);
    } finally {
      e.close();
    }
  });
});
