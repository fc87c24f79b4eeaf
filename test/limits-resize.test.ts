// engine.setLimits({ maxFlows, maxHosts }): the flow and host tables are
// rebuilt between two batches with new maximums, every entry kept
// (Pipeline::resize in native/src/engine/pipeline.cpp). Then the expired-flow
// ring: drainExpired(max) hands out at most `max` records per call.
import { afterAll, describe, expect, it } from 'vitest';

import { Engine, type EngineOptionsInput } from '../ts/bindings/engine.js';
import { FlowgateError } from '../ts/bindings/errors.js';
import type { EngineStats, FlowRecord, HostRecord } from '../ts/bindings/native.js';
import { httpGet } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';

const T0 = 1_700_000_000;
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const U = (t: number, src: string, sport: number, dst: string, dport: number, n = 20): Packet => ({
  tsNs: sec(T0 + t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, Buffer.alloc(n, 0x61)))),
});
const T = (t: number, src: string, sport: number, dst: string, dport: number, flags: number, seq: number, payload: Buffer = Buffer.alloc(0)): Packet => ({
  tsNs: sec(T0 + t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack: 1 }, payload))),
});

/** An HTTP exchange: handshake, a GET naming the server, a response; packets `dt` apart from t. */
function http(t: number, cli: string, cport: number, srv: string, host: string, dt = 0.01): Packet[] {
  const get = httpGet(host);
  return [
    T(t, cli, cport, srv, 80, TCPF.SYN, 999),
    T(t + dt, srv, 80, cli, cport, TCPF.SYN | TCPF.ACK, 4999),
    T(t + 2 * dt, cli, cport, srv, 80, TCPF.ACK, 1000),
    T(t + 3 * dt, cli, cport, srv, 80, TCPF.PSH | TCPF.ACK, 1000, get),
    T(t + 4 * dt, srv, 80, cli, cport, TCPF.PSH | TCPF.ACK, 5000, Buffer.alloc(300, 0x62)),
  ];
}

let fileNo = 0;
const write = (packets: Packet[]) => tmp.file(`l${fileNo++}.pcap`, pcap(packets));

async function replay(file: string, opts: Partial<EngineOptionsInput> = {}): Promise<Engine> {
  const e = new Engine({ files: [file], flowIdleSec: 1e10, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10, ...opts });
  e.start();
  expect(await e.waitDone()).toMatchObject({ state: 'done', error: null });
  return e;
}

const flowsBySerial = (e: Engine) => e.flows({ sort: 'serial', order: 'asc', limit: 1e6 }).rows;
const hostsByIp = (e: Engine) => e.hosts({ sort: 'ip', limit: 1e6, detail: true }).rows;
function snapshot(e: Engine): { flows: FlowRecord[]; hosts: HostRecord[]; stats: Partial<EngineStats>; counters: unknown } {
  const s = e.stats();
  // Everything but the table maximums and the memory they take.
  const { max_flows, max_hosts, memory_bytes, flow_memory_bytes, host_memory_bytes, flow_reserved_bytes, host_reserved_bytes, host_l7_entries_max, ...rest } = s;
  void max_flows, void max_hosts, void memory_bytes, void flow_memory_bytes, void host_memory_bytes, void flow_reserved_bytes, void host_reserved_bytes, void host_l7_entries_max;
  return { flows: flowsBySerial(e), hosts: hostsByIp(e), stats: rest, counters: e.flowCounters() };
}

function errCode(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    return err instanceof FlowgateError ? err.code : `not a FlowgateError: ${String(err)}`;
  }
  return 'did not throw';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// ---- a finished replay with small tables ---------------------------------------------------------

// 20 HTTP flows (clients 10.0.0.1-20 to 5 named servers) and 20 UDP flows between the
// clients: 40 flows, 25 hosts. With 16 flows and 12 hosts most of it overflows.
const MANY: Packet[] = [];
for (let i = 1; i <= 20; i++) {
  MANY.push(...http(i * 0.1, `10.0.0.${i}`, 40000 + i, `198.51.100.${1 + (i % 5)}`, `srv${1 + (i % 5)}.example`));
  MANY.push(U(i * 0.1 + 0.05, `10.0.0.${i}`, 5000, `10.0.0.${(i % 20) + 1}`, 5000));
}

describe('setLimits on a finished replay', () => {
  it('growing keeps every flow and host (deep-equal) and changes max_flows/max_hosts', async () => {
    const e = await replay(write(MANY), { maxFlows: 16, maxHosts: 12 });
    try {
      const s0 = e.stats();
      expect([s0.num_flows, s0.max_flows, s0.num_hosts, s0.max_hosts]).toEqual([16, 16, 12, 12]);
      expect(s0.flow_table_full).toBeGreaterThan(0);
      expect(s0.host_table_full).toBeGreaterThan(0);
      const before = snapshot(e);
      // Some flows lost a host to the full host table: their entries refer to no host.
      expect(before.flows.some((f) => e.host(f.client.ip) === null || e.host(f.server.ip) === null)).toBe(true);
      expect(before.hosts.filter((h) => h.name).length).toBeGreaterThan(0);

      e.setLimits({ maxFlows: 64, maxHosts: 48 });
      const s1 = e.stats();
      expect([s1.max_flows, s1.max_hosts]).toEqual([64, 48]);
      expect(snapshot(e)).toEqual(before);
      for (const h of before.hosts) expect(e.host(h.ip, h.vlan)).toEqual(h);

      // One table at a time: the other keeps its size.
      e.setLimits({ maxFlows: 128 });
      expect([e.stats().max_flows, e.stats().max_hosts]).toEqual([128, 48]);
      e.setLimits({ maxHosts: 4096 });
      expect([e.stats().max_flows, e.stats().max_hosts]).toEqual([128, 4096]);
      expect(snapshot(e)).toEqual(before);
    } finally {
      e.close();
    }
  });

  it("shrinking below the current count throws E_LIMIT and changes nothing; down to the count is allowed", async () => {
    const e = await replay(write(MANY), { maxFlows: 16, maxHosts: 12 });
    try {
      e.setLimits({ maxFlows: 100, maxHosts: 100 });
      const before = snapshot(e);
      expect(errCode(() => e.setLimits({ maxFlows: 15 }))).toBe('E_LIMIT');
      expect(errCode(() => e.setLimits({ maxHosts: 11 }))).toBe('E_LIMIT');
      expect(errCode(() => e.setLimits({ maxFlows: 15, maxHosts: 1000 }))).toBe('E_LIMIT');
      expect(errCode(() => e.setLimits({ maxFlows: 1000, maxHosts: 11 }))).toBe('E_LIMIT');
      expect(errCode(() => e.setLimits({ maxFlows: 2, maxHosts: 2 }))).toBe('E_LIMIT');
      // Nothing changed, not even the half that would have fit.
      expect([e.stats().max_flows, e.stats().max_hosts]).toEqual([100, 100]);
      expect(snapshot(e)).toEqual(before);

      // Exactly the current counts: allowed, every entry kept, the tables are then full.
      e.setLimits({ maxFlows: 16, maxHosts: 12 });
      expect([e.stats().max_flows, e.stats().max_hosts]).toEqual([16, 12]);
      expect(snapshot(e)).toEqual(before);
      // And back up again.
      e.setLimits({ maxFlows: 1 << 20, maxHosts: 1 << 20 });
      expect(snapshot(e)).toEqual(before);
    } finally {
      e.close();
    }
  });

  it("invalid maximums are E_INVALID (checked before the engine is asked)", async () => {
    const e = await replay(write(MANY.slice(0, 10)));
    try {
      const before = snapshot(e);
      for (const bad of [{ maxFlows: 1 }, { maxHosts: 0 }, { maxFlows: 1.5 }, { maxHosts: 2 ** 26 + 1 }, { maxFlows: -4 }, { maxFlows: Number.NaN }]) {
        expect(errCode(() => e.setLimits(bad)), JSON.stringify(bad)).toBe('E_INVALID');
      }
      expect(snapshot(e)).toEqual(before);
      expect(e.stats().max_flows).toBe(131072);
    } finally {
      e.close();
    }
  });
});

// ---- a running (looping) engine ------------------------------------------------------------------

// One pass: 30 HTTP flows from 10 clients to 15 servers, 0.3 s of capture; the loop
// starts each pass 1 s after the previous one ended, so with flowIdleSec 0.5 every flow
// of a pass is new (the previous pass's flows expire idle).
const PASS: Packet[] = [];
for (let i = 0; i < 30; i++) PASS.push(...http(i * 0.01, `10.1.0.${1 + (i % 10)}`, 41000 + i, `198.51.100.${101 + (i % 15)}`, `s${101 + (i % 15)}.example`, 0.001));
PASS.sort((a, b) => Number(a.tsNs - b.tsNs));

/**
 * exact: every flow has both its hosts (the tables had room when it was created), so
 * each host's active-flow counts equal the flows it is in; otherwise they are at most that.
 */
function checkInvariants(e: Engine, drained: number, exact: boolean) {
  const s = e.stats();
  // No flow or host lost or counted twice.
  expect(s.flows_created - s.flows_expired).toBe(s.num_flows);
  expect(s.hosts_created - s.hosts_expired).toBe(s.num_hosts);
  // Every expired flow was either drained or counted as a ring drop.
  expect(drained + s.expired_ring_drops).toBe(s.flows_expired);
  expect(s.num_flows).toBeLessThanOrEqual(s.max_flows);
  expect(s.num_hosts).toBeLessThanOrEqual(s.max_hosts);
  const flows = e.flows({ limit: 1e6, sort: 'serial', order: 'asc' });
  const hosts = e.hosts({ limit: 1e6 });
  expect(flows.total).toBe(s.num_flows);
  expect(hosts.total).toBe(s.num_hosts);
  expect(new Set(flows.rows.map((f) => f.hash_id)).size).toBe(flows.total);
  // Active-flow counts stayed with their hosts through the rebuilds: each host counts
  // exactly the flows it is in (a mis-mapped host would be off, or wrap below zero).
  const asCli = new Map<string, number>(), asSrv = new Map<string, number>();
  for (const f of flows.rows) {
    asCli.set(f.client.ip, (asCli.get(f.client.ip) ?? 0) + 1);
    asSrv.set(f.server.ip, (asSrv.get(f.server.ip) ?? 0) + 1);
  }
  for (const h of hosts.rows) {
    if (exact) expect([h.ip, h.active_flows_as_client, h.active_flows_as_server]).toEqual([h.ip, asCli.get(h.ip) ?? 0, asSrv.get(h.ip) ?? 0]);
    expect(h.active_flows_as_client, h.ip).toBeLessThanOrEqual(asCli.get(h.ip) ?? 0);
    expect(h.active_flows_as_server, h.ip).toBeLessThanOrEqual(asSrv.get(h.ip) ?? 0);
  }
  return { s, flows: flows.rows, hosts: hosts.rows };
}

describe('setLimits while a looping replay runs', () => {
  it('grow twice mid-run, then stop: no flow lost, nothing counted twice, no crash', async () => {
    const file = write(PASS);
    const e = new Engine({ files: [file], loop: true, maxFlows: 8, maxHosts: 8, flowIdleSec: 0.5, localHostIdleSec: 2, remoteHostIdleSec: 2 });
    try {
      e.start();
      const passes = (n: number) => () => e.stats().packets >= n * PASS.length;
      await until(passes(5), '5 passes');
      const s0 = e.stats();
      expect(s0.flow_table_full).toBeGreaterThan(0);
      expect(s0.host_table_full).toBeGreaterThan(0);
      expect(s0.flows_expired).toBeGreaterThan(0);

      e.setLimits({ maxFlows: 20, maxHosts: 16 });
      expect([e.stats().max_flows, e.stats().max_hosts]).toEqual([20, 16]);
      const p1 = e.stats().packets;
      await until(() => passes(0)() && e.stats().packets >= p1 + 5 * PASS.length, '5 more passes');

      e.setLimits({ maxFlows: 256, maxHosts: 256 });
      // Shrinking below what the running engine holds is refused, also mid-run.
      expect(errCode(() => e.setLimits({ maxFlows: 2 }))).toBe('E_LIMIT');
      const p2 = e.stats().packets;
      await until(() => passes(0)() && e.stats().packets >= p2 + 5 * PASS.length, '5 passes in the grown tables');
      const fullBefore = e.stats().flow_table_full, hostFullBefore = e.stats().host_table_full;
      const p3 = e.stats().packets;
      await until(() => passes(0)() && e.stats().packets >= p3 + 3 * PASS.length, '3 more passes');
      // The grown tables hold a whole pass: nothing is refused any more.
      expect(e.stats().flow_table_full).toBe(fullBefore);
      expect(e.stats().host_table_full).toBe(hostFullBefore);
      e.stop();
      expect(e.state().state).toBe('stopped');
      // Drained once, at the end: the ring kept the first records, the rest were counted as drops.
      const { s } = checkInvariants(e, e.drainExpired(1e9).length, true);
      expect([s.max_flows, s.max_hosts]).toEqual([256, 256]);
      expect(s.flows_created).toBeGreaterThan(20 * 30);
    } finally {
      e.close();
    }
  });

  it('many resizes racing the worker: the counts add up after each one and at the end', async () => {
    const file = write(PASS);
    const e = new Engine({ files: [file], loop: true, maxFlows: 4, maxHosts: 4, flowIdleSec: 0.5, localHostIdleSec: 2, remoteHostIdleSec: 2 });
    try {
      e.start();
      await until(() => e.stats().packets > 2 * PASS.length, '2 passes');
      for (let k = 0; k < 60; k++) {
        const s = e.stats();
        // Alternate between growing and shrinking towards the current counts.
        const want = k % 2 ? { maxFlows: s.num_flows + 64, maxHosts: s.num_hosts + 64 } : { maxFlows: Math.max(2, s.num_flows + 1), maxHosts: Math.max(2, s.num_hosts + 1) };
        const code = errCode(() => e.setLimits(want));
        // The worker may have added entries since stats(): then the shrink is refused.
        expect(['did not throw', 'E_LIMIT']).toContain(code);
        // stats() is one consistent view (taken between two batches).
        const after = e.stats();
        expect(after.flows_created - after.flows_expired).toBe(after.num_flows);
        expect(after.hosts_created - after.hosts_expired).toBe(after.num_hosts);
        if (code === 'did not throw') expect([after.max_flows, after.max_hosts]).toEqual([want.maxFlows, want.maxHosts]);
        await sleep(2);
      }
      e.stop();
      checkInvariants(e, e.drainExpired(1e9).length, false);
      expect(e.state()).toMatchObject({ state: 'stopped', error: null });
    } finally {
      e.close();
    }
  });

  it('control: a looping replay with big tables from the start names every server', async () => {
    const e = new Engine({ files: [write(PASS)], loop: true, maxFlows: 256, maxHosts: 256, flowIdleSec: 0.5, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10 });
    try {
      e.start();
      await until(() => e.stats().packets >= 4 * PASS.length, '4 passes');
      e.stop();
      const named = e.hosts({ limit: 1000 }).rows.filter((h) => h.name).map((h) => `${h.ip}=${h.name}`).sort();
      expect(named).toEqual(Array.from({ length: 15 }, (_, k) => `198.51.100.${101 + k}=s${101 + k}.example`).sort());
    } finally {
      e.close();
    }
  });

  it('hosts created after growing maxHosts are named like in a table that was big from the start', async () => {
    const e = new Engine({ files: [write(PASS)], loop: true, maxFlows: 256, maxHosts: 4, flowIdleSec: 0.5, localHostIdleSec: 1e10, remoteHostIdleSec: 1e10 });
    try {
      e.start();
      await until(() => e.stats().packets >= 3 * PASS.length, '3 passes');
      e.setLimits({ maxHosts: 256 });
      const p = e.stats().packets;
      await until(() => e.stats().packets >= p + 4 * PASS.length, '4 passes in the grown table');
      e.stop();
      expect(e.stats().num_hosts).toBe(25);
      const named = e.hosts({ limit: 1000 }).rows.filter((h) => h.name).map((h) => `${h.ip}=${h.name}`).sort();
      expect(named).toEqual(Array.from({ length: 15 }, (_, k) => `198.51.100.${101 + k}=s${101 + k}.example`).sort());
    } finally {
      e.close();
    }
  });
});

// ---- the expired-flow ring -----------------------------------------------------------------------

describe('drainExpired(max)', () => {
  it('returns at most max records, the rest on the next calls (flushAtEnd expires all)', async () => {
    const e = await replay(write(MANY), { flushAtEnd: true });
    try {
      const s = e.stats();
      expect([s.flows_created, s.flows_expired, s.num_flows, s.expired_ring_drops]).toEqual([40, 40, 0, 0]);
      expect(e.flows().total).toBe(0);
      expect(e.drainExpired(0)).toEqual([]);
      const calls = [e.drainExpired(15), e.drainExpired(15), e.drainExpired(15), e.drainExpired(15)];
      expect(calls.map((c) => c.length)).toEqual([15, 15, 10, 0]);
      const all = calls.flat();
      // Each flow once, every one flushed, serials 1..40.
      expect(all.map((x) => x.serial).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, k) => k + 1));
      expect(new Set(all.map((x) => x.reason))).toEqual(new Set(['flushed']));
      expect(all.reduce((n, x) => n + x.cli2srv_pkts + x.srv2cli_pkts, 0)).toBe(MANY.length);
      const http1 = all.find((x) => x.cli_ip === '10.0.0.1' && x.proto === 6)!;
      expect(http1).toMatchObject({ srv_ip: '198.51.100.2', cli_port: 40001, srv_port: 80, cli2srv_pkts: 3, srv2cli_pkts: 2, vlan: 0, ip_version: 4 });
      expect(e.drainExpired()).toEqual([]);
    } finally {
      e.close();
    }
  });

  it('more records than one native call copies (4096): max is still honoured across calls', async () => {
    const pk: Packet[] = [];
    for (let i = 0; i < 6000; i++) pk.push(U(i * 0.001, `10.${2 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, 1000 + (i % 50000), '10.9.9.9', 9000));
    const e = await replay(write(pk), { flushAtEnd: true });
    try {
      expect(e.stats().flows_expired).toBe(6000);
      const a = e.drainExpired(5000);
      const b = e.drainExpired(5000);
      expect([a.length, b.length]).toEqual([5000, 1000]);
      expect(new Set([...a, ...b].map((x) => x.serial)).size).toBe(6000);
      // In expiry order: the flush walks the table, each record once.
      expect(e.drainExpired()).toEqual([]);
    } finally {
      e.close();
    }
  });
});
