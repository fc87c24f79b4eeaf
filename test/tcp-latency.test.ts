// ntopng's TCP latencies of a flow (Flow::updateTcpFlags and its payload
// update; Flow::lua_get_tcp_info, get/flow/active verbose `tcp`), on TCP
// flows built here with known packet times. Expected values by hand:
// network latency = half of SYN → SYN|ACK (server) and half of SYN|ACK → the
// handshake's ACK (client), whole µs as ntopng's timevals, 0 when the half is
// 6 s or more; application latency = first server payload − the last client
// payload before it.
import { afterAll, describe, expect, it } from 'vitest';

import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp } from './fixtures/frames.js';
import { type Packet, pcap, tempDir } from './fixtures/pcap.js';
import { startApi, v2 } from './fixtures/api.js';
import { runEngine } from './fixtures/util.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const T0 = 1_700_000_000n * 1_000_000_000n;
const C = '10.8.0.1', S = '10.8.0.2';
const ECE = 0x40, CWR = 0x80;

/** a segment `ms` milliseconds (and `us` µs) into the capture; `c2s` from the client */
function seg(ms: number, c2s: boolean, sport: number, flags: number, data = 0, us = 0): Packet {
  const [src, dst, sp, dp] = c2s ? [C, S, sport, 80] : [S, C, 80, sport];
  const payload = Buffer.alloc(data, 0x61);
  return { tsNs: T0 + BigInt(ms) * 1_000_000n + BigInt(us) * 1000n, data: eth(c2s ? MAC_B : MAC_A, c2s ? MAC_A : MAC_B, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP, df: true }, tcp({ sport: sp, dport: dp, flags, seq: 1, ack: 1 }, payload))) };
}

async function latencies(packets: Packet[]) {
  const r = await runEngine([tmp.file(`l${Math.random().toString(36).slice(2)}.pcap`, pcap(packets))]);
  return Object.fromEntries(r.flows.map((f) => [f.client.port, f.tcp]));
}

describe('TCP latencies', () => {
  it('the handshake halves and the application gap, per flow', async () => {
    const p = [
      // 1001: SYN 0, SYN|ACK 30 ms, ACK 50 ms (+7 µs), client data at 60 and 70 ms, server data at 100 ms
      seg(0, true, 1001, TCPF.SYN), seg(30, false, 1001, TCPF.SYN | TCPF.ACK), seg(50, true, 1001, TCPF.ACK, 0, 7),
      seg(60, true, 1001, TCPF.PSH | TCPF.ACK, 10), seg(70, true, 1001, TCPF.PSH | TCPF.ACK, 10), seg(100, false, 1001, TCPF.PSH | TCPF.ACK, 20),
      // more client and server data later change nothing
      seg(200, true, 1001, TCPF.PSH | TCPF.ACK, 10), seg(900, false, 1001, TCPF.PSH | TCPF.ACK, 10),
      // 1002: an ECN SYN (ECE|CWR) still starts it; the handshake's ACK carries data (TCP Fast Open style, PSH)
      seg(0, true, 1002, TCPF.SYN | ECE | CWR), seg(9, false, 1002, TCPF.SYN | TCPF.ACK | ECE), seg(12, true, 1002, TCPF.PSH | TCPF.ACK, 5),
      seg(20, false, 1002, TCPF.PSH | TCPF.ACK, 5),
      // 1003: SYN|ACK 13 s after the SYN: its half is over 5 s, dropped; the client's is measured
      seg(0, true, 1003, TCPF.SYN), seg(13_000, false, 1003, TCPF.SYN | TCPF.ACK), seg(13_004, true, 1003, TCPF.ACK),
      // 1004: first seen mid-stream: no handshake, only the application gap
      seg(0, true, 1004, TCPF.PSH | TCPF.ACK, 10), seg(3, false, 1004, TCPF.PSH | TCPF.ACK, 10),
      // 1005: a second SYN does not move the first's time; a RST before the ACK ends the handshake unmeasured
      seg(0, true, 1005, TCPF.SYN), seg(10, true, 1005, TCPF.SYN), seg(20, false, 1005, TCPF.SYN | TCPF.ACK), seg(25, true, 1005, TCPF.RST), seg(30, true, 1005, TCPF.ACK),
    ].sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
    const t = await latencies(p);
    expect(t[1001]).toMatchObject({ nw_latency: { srv: 15, cli: 10.003 }, appl_latency: 30 });
    expect(t[1002]).toMatchObject({ nw_latency: { srv: 4.5, cli: 1.5 }, appl_latency: 8 });
    expect(t[1003]).toMatchObject({ nw_latency: { srv: 0, cli: 2 }, appl_latency: 0 });
    expect(t[1004]).toMatchObject({ nw_latency: { srv: 0, cli: 0 }, appl_latency: 3 });
    expect(t[1005]).toMatchObject({ nw_latency: { srv: 10, cli: 0 }, appl_latency: 0 });
  });

  it("the historical flows carry them as ntopng's CLIENT/SERVER_NW_LATENCY_US (µs)", async () => {
    const f = tmp.file('hist.pcap', pcap([
      seg(0, true, 3001, TCPF.SYN), seg(8, false, 3001, TCPF.SYN | TCPF.ACK, 0, 2), seg(12, true, 3001, TCPF.ACK, 0, 9),
      seg(13, true, 3001, TCPF.PSH | TCPF.ACK, 4), seg(19, false, 3001, TCPF.PSH | TCPF.ACK, 4),
      // mid-stream: nothing measured, 0 as ntopng stores it
      seg(20, true, 3002, TCPF.PSH | TCPF.ACK, 4), seg(21, false, 3002, TCPF.PSH | TCPF.ACK, 4),
    ]));
    const s = await startApi({ files: [f], engine: { flushAtEnd: true, periodicDumpSec: 0 }, history: true });
    try {
      const r = await s.call('/lua/pro/rest/v2/get/db/flows.lua', {
        query: { ifid: 0, begin_time_clause: 0, end_time_clause: 0xffffffff, select_clause: 'IP_SRC_PORT,CLIENT_NW_LATENCY_US,SERVER_NW_LATENCY_US' },
      });
      expect(r.body.rc, r.text).toBe(0);
      const rows = Object.fromEntries((r.body.rsp as Record<string, unknown>[]).map((x) => [Number(x.IP_SRC_PORT), x]));
      // SYN 0, SYN|ACK 8.002 ms, ACK 12.009 ms: server half 4001 µs, client half (12009 − 8002) / 2 = 2003 µs (whole µs)
      expect(Number(rows[3001]!.SERVER_NW_LATENCY_US)).toBe(4001);
      expect(Number(rows[3001]!.CLIENT_NW_LATENCY_US)).toBe(2003);
      expect(Number(rows[3002]!.SERVER_NW_LATENCY_US)).toBe(0);
      expect(Number(rows[3002]!.CLIENT_NW_LATENCY_US)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('get/flow/active verbose sends them as ntopng does (tcp.appl_latency, tcp.nw_latency.{cli,srv})', async () => {
    const f = tmp.file('api.pcap', pcap([seg(0, true, 2001, TCPF.SYN), seg(8, false, 2001, TCPF.SYN | TCPF.ACK), seg(12, true, 2001, TCPF.ACK), seg(13, true, 2001, TCPF.PSH | TCPF.ACK, 4), seg(19, false, 2001, TCPF.PSH | TCPF.ACK, 4)]));
    const s = await startApi({ files: [f] });
    try {
      const r = (await s.call(v2('get/flow/active'), { query: { ifid: 0, verbose: 'true' } })).body.rsp.data[0];
      expect(r.tcp).toMatchObject({ appl_latency: 6, nw_latency: { cli: 2, srv: 4 } });
    } finally {
      await s.close();
    }
  });
});
