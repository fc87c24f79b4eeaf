// Live capture never waits for a stalled tick listener: on the loopback
// interface the worker ticks at the next wall-clock minute, waits at most
// 250 ms for a listener that never answers, counts the tick late and keeps
// capturing. Needs root (AF_PACKET on lo); up to a minute of wall time.
import { createSocket } from 'node:dgram';

import { describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('test/timeseries-live.test.ts skipped: live capture needs root');

describe.skipIf(!isRoot)('timeseries ticks on a live interface', () => {
  it('a listener that never answers: the tick is late, capture goes on', async () => {
    const port = 40000 + Math.floor(Math.random() * 20000);
    const e = new Engine({ iface: 'lo', bpf: `udp and dst port ${port}` });
    const ticks: { boundary: number; prev: number; at: number }[] = [];
    e.onTick((boundary, prev) => {
      ticks.push({ boundary, prev, at: Date.now() / 1000 });
      return new Promise<void>(() => {}); // never acknowledged
    });
    e.start();
    const sock = createSocket('udp4');
    const send = setInterval(() => sock.send(Buffer.alloc(32), port, '127.0.0.1'), 50);
    try {
      const deadline = Date.now() + 75_000;
      while (e.stats().ticks < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const atTick = e.stats().packets;
      await new Promise((r) => setTimeout(r, 1500));
      const s = e.stats();
      expect(s.ticks).toBe(1);
      expect(s.ticks_late).toBe(1);
      // at 20 packets a second, 1.5 s after a tick nobody acknowledged: still counting
      expect(s.packets - atTick).toBeGreaterThan(10);
      expect(ticks).toHaveLength(1);
      expect(ticks[0].boundary % 60).toBe(0);
      expect(ticks[0].boundary - ticks[0].prev).toBe(60);
      expect(Math.abs(ticks[0].at - ticks[0].boundary)).toBeLessThan(5);
    } finally {
      clearInterval(send);
      sock.close();
      e.close();
    }
  }, 90_000);
});
