// Policy tables swapped while traffic flows: a capture replayed in a loop at
// full speed while JS alternates two tables as fast as it can. Tables are
// swapped between batches, so every packet is handled by one whole table:
// queue 0 and queue 1 take turns (A: 0 forwards, 1 discards; B: the reverse)
// and together hold exactly what queue 2 (always forward) holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, type EgressPoliciesInput } from '../ts/bindings/engine.js';
import { pcapRecords, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const tmp = tempDir('flowgate-egress-swap-');
afterAll(() => tmp.cleanup());

function stamps(file: string): string[] {
  return pcapRecords(readFileSync(file)).records.map((r) => `${r.sec}.${r.frac}`);
}

const T = (queue: number, d: 'forward' | 'discard') => ({ target: 'aggregated' as const, queue, default: d, subnets: [], protocols: [] });
const A: EgressPoliciesInput = {
  shunt: { default: 3, l4: {}, apps: {} },
  targets: [T(0, 'forward'), T(1, 'discard'), { target: 'balanced', default: 'shunt', subnets: [{ cidr: '192.168.1.1/32', action: 'discard' }], protocols: [] }],
};
const B: EgressPoliciesInput = {
  shunt: { default: 5, l4: { 6: 2 }, apps: {} },
  targets: [T(0, 'discard'), T(1, 'forward'), { target: 'balanced', default: 'slice-l4', subnets: [], protocols: [{ id: 91, action: 'shunt' }] }],
};

describe('egress policy swaps under traffic', () => {
  // two workers: the table is swapped for both between batches (each keeps its own rule counters)
  it.each([1, 2])('every packet is handled by one whole table; counters and outputs agree (%i workers)', async (workers) => {
    const q = [0, 1, 2].map((i) => tmp.file(`w${workers}-q${i}.pcap`));
    const bal = [0, 1].map((i) => tmp.file(`w${workers}-b${i}.pcap`));
    const e = new Engine({
      files: [join(NDPI_PCAPS, 'netflix.pcap')],
      loop: true,
      workers,
      egress: { aggregated: q.map((pcap) => ({ pcap })), balanced: bal.map((pcap) => ({ pcap })) },
    });
    try {
      e.setEgressPolicies(A);
      e.start();
      let swaps = 0;
      // Until enough swaps happened over enough traffic (bounded by a time limit, not asserted).
      const end = Date.now() + 20_000;
      while ((swaps < 400 || e.stats().packets < 200_000) && Date.now() < end) {
        e.setEgressPolicies(swaps % 2 ? A : B);
        swaps++;
        await new Promise((r) => setImmediate(r));
      }
      e.stop();
      expect(e.state().state).toBe('stopped');
      const packets = e.stats().packets;
      expect(swaps).toBeGreaterThanOrEqual(400);
      const t = e.egressStats().targets;
      expect(t.map((x) => x.target)).toEqual(['aggregated', 'aggregated', 'aggregated', 'balanced']);
      for (const x of t) {
        expect(x.packets).toBe(packets); // no packet skipped a target
        expect(x.packets).toBe(x.forwarded + x.discarded + x.shunted);
        expect(x.output_drops).toBe(0);
        expect(x.outputs.reduce((a, o) => a + o.written, 0)).toBe(x.forwarded);
      }
      const s = q.map(stamps);
      const b = bal.map(stamps);
      expect(s[2]!.length).toBe(packets);
      expect(s[0]!.length).toBe(t[0]!.forwarded);
      expect(s[1]!.length).toBe(t[1]!.forwarded);
      expect(b[0]!.length + b[1]!.length).toBe(t[3]!.forwarded);
      // Queues 0 and 1 partition queue 2, in order (each packet saw A or B, never both or neither);
      // with two workers the outputs interleave the workers' chunks: the same packets, each once
      expect(s[0]!.length + s[1]!.length).toBe(packets);
      if (workers > 1) {
        expect([...s[0]!, ...s[1]!].sort()).toEqual([...s[2]!].sort());
        expect(new Set(s[2]!).size).toBe(packets);
        expect(t[0]!.forwarded).toBeGreaterThan(0);
        expect(t[1]!.forwarded).toBeGreaterThan(0);
        expect(t[3]!.shunted + t[3]!.sliced + t[3]!.discarded).toBeGreaterThan(0);
        return;
      }
      let i0 = 0, i1 = 0, turns = 0, last = -1;
      for (const k of s[2]!) {
        let who: number;
        if (s[0]![i0] === k) (who = 0), i0++;
        else if (s[1]![i1] === k) (who = 1), i1++;
        else throw new Error(`packet ${k} in neither queue`);
        if (who !== last) turns++, (last = who);
      }
      expect(i0 + i1).toBe(packets);
      expect(turns).toBeGreaterThan(20); // the tables really alternated during the run
      // Shunt and slice both ran on the balanced target.
      expect(t[3]!.shunted).toBeGreaterThan(0);
      expect(t[3]!.sliced).toBeGreaterThan(0);
      expect(t[3]!.discarded).toBeGreaterThan(0);
    } finally {
      e.close();
    }
  });
});
