// Expired flows reach TS through the ring's doorbell: no polling, and every
// expired flow is drained exactly once.
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';

const SAMPLE = join(import.meta.dirname, '..', 'assets', 'sample.pcap');

describe('expired-flow doorbell', () => {
  it('rings while a looped replay expires flows; drained = expired, nothing dropped', async () => {
    const e = new Engine({ files: [SAMPLE], loop: true, flowIdleSec: 5 });
    let rings = 0, drained = 0;
    const serials = new Set<number>();
    e.onExpired(() => {
      rings++;
      for (const f of e.drainExpired()) {
        drained++;
        serials.add(f.serial);
      }
    });
    e.start();
    // until the doorbell has rung for expired flows (the loop's packet clock passes the idle
    // timeout after a few rounds; how long that takes in wall time depends on the machine's load)
    const deadline = Date.now() + 60_000;
    while ((rings === 0 || e.stats().flows_expired === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    e.stop();
    for (const f of e.drainExpired()) drained++, serials.add(f.serial);
    const s = e.stats();
    e.close();
    expect(rings).toBeGreaterThan(0);
    expect(s.flows_expired).toBeGreaterThan(0);
    expect(drained).toBe(s.flows_expired);
    expect(serials.size).toBe(drained);
    expect(s.expired_ring_drops).toBe(0);
  });
});
