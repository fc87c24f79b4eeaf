// The engine's timeseries ticks on packet time (Engine::tick): one per
// minute boundary crossed, before the first packet past it is counted; one
// at the last boundary before a packet that jumps several minutes; a final
// one after the last packet of a playlist. At each tick the counters hold
// exactly the traffic before the boundary (summed here from the frames), at
// full speed and at original timing alike, and the worker waits for the
// listener (a file replay).
import { afterAll, describe, expect, it, vi } from 'vitest';

import { Engine, type EngineOptionsInput } from '../ts/bindings/engine.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { HOST_A, T0, before, perMinuteCapture } from './fixtures/ts-capture.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// minutes 3-5 and 8 are empty: 2 → 6 jumps three steps, 7 → 9 one
const ACTIVE = [0, 1, 2, 6, 7, 9];
const cap = perMinuteCapture(ACTIVE, { vlan: 7 });
const file = tmp.file('per-minute.pcap', pcap(cap.packets));

interface Seen {
  boundary: number;
  prev: number;
  bytes: number;
  packets: number;
  appBytes: number;
  vlanSent: number;
  hostSent: number;
}

async function replay(opts: Partial<EngineOptionsInput>, listen = true): Promise<{ seen: Seen[]; e: Engine }> {
  const e = new Engine({ files: [file], ...opts });
  const seen: Seen[] = [];
  if (listen) {
    e.onTick((boundary, prev) => {
      const s = e.stats();
      const v = e.trafficBy().vlans.find((x) => x.vlan === 7);
      seen.push({
        boundary,
        prev,
        bytes: s.bytes,
        packets: s.packets,
        appBytes: e.l7Stats().apps.reduce((a, x) => a + x.bytes, 0),
        vlanSent: v?.bytes_sent ?? 0,
        hostSent: e.host(HOST_A, 7)?.bytes_sent ?? 0,
      });
    });
  }
  e.start();
  expect((await e.waitDone()).state).toBe('done');
  return { seen, e };
}

const expected = () => {
  // boundaries: each active minute's first packet closes the previous step(s); the end closes the last
  const b = [1, 2, 6, 7, 9, 10].map((k) => T0 + 60 * k);
  const p = [0, 1, 2, 6, 7, 9].map((k) => T0 + 60 * k);
  return b.map((boundary, i) => ({
    boundary,
    prev: p[i],
    bytes: before(cap, boundary, (m) => m.bytes),
    packets: before(cap, boundary, (m) => m.packets),
    // every packet is IP and in a flow: the per-application sums are credited up to the boundary
    appBytes: before(cap, boundary, (m) => m.bytes),
    // the flow's client is A (first packet): A → B is "sent" on the VLAN
    vlanSent: before(cap, boundary, (m) => m.aToB),
    hostSent: before(cap, boundary, (m) => m.aToB),
  }));
};

describe('timeseries ticks on packet time', () => {
  it('ticks at each boundary with the traffic before it, full speed', async () => {
    const { seen, e } = await replay({});
    expect(seen).toEqual(expected());
    expect(e.stats().ticks).toBe(6);
    expect(e.stats().ticks_late).toBe(0);
    e.close();
  });

  it('gives the same ticks at original timing (600x)', async () => {
    const { seen, e } = await replay({ replaySpeed: 600 });
    expect(seen).toEqual(expected());
    e.close();
  });

  it('the traffic between two ticks lies in the step starting at the earlier one', async () => {
    const { seen, e } = await replay({});
    for (let i = 0; i < seen.length; i++) {
      const carried = seen[i].bytes - (i ? seen[i - 1].bytes : 0);
      const minute = cap.minutes.find((m) => T0 + 60 * m.k === seen[i].prev);
      expect(carried).toBe(minute?.bytes);
    }
    e.close();
  });

  it('waits for the listener before counting on (file replay)', async () => {
    const e = new Engine({ files: [file] });
    const waited: boolean[] = [];
    e.onTick(async () => {
      const a = e.stats().packets;
      await new Promise((r) => setTimeout(r, 30));
      waited.push(e.stats().packets === a);
    });
    e.start();
    await e.waitDone();
    expect(waited).toEqual([true, true, true, true, true, true]);
    e.close();
  });

  it('ticks without a listener too, without waiting', async () => {
    const { seen, e } = await replay({}, false);
    expect(seen).toEqual([]);
    expect(e.stats().ticks).toBe(6);
    expect(e.stats().bytes).toBe(cap.minutes.reduce((a, m) => a + m.bytes, 0));
    e.close();
  });

  it('credits flows at the boundary: per-application bytes equal the interface bytes at each tick', async () => {
    // flows live long (idle 1e6 s): only the tick's accounting step credits them
    const { seen, e } = await replay({ flowIdleSec: 1e6 });
    expect(seen.map((s) => s.appBytes)).toEqual(expected().map((x) => x.bytes));
    e.close();
  });
  it('a listener that throws is reported; the others see every tick and the replay ends', async () => {
    // the listener runs from the worker's thread-safe function: an exception
    // reaching native code there ended the whole process (std::terminate)
    const e = new Engine({ files: [file] });
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const seen: number[] = [];
    e.addTickListener((boundary) => {
      if (boundary === T0 + 120) throw new Error('listener broke');
    });
    e.addTickListener((boundary) => void seen.push(boundary));
    e.start();
    try {
      expect((await e.waitDone()).state).toBe('done');
      expect(seen).toEqual(expected().map((x) => x.boundary));
      const lines = err.mock.calls.map((c) => String(c[0]));
      expect(lines.filter((l) => l.includes('listener broke'))).toHaveLength(1);
      expect(lines.find((l) => l.includes('listener broke'))).toContain(`tick listener at ${T0 + 120}`);
    } finally {
      err.mockRestore();
      e.close();
    }
  });
});
