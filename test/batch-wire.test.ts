// A Batch moved between threads (batch-wire.ts) through a real MessageChannel:
// what arrives reads the same values (text columns included), the sender's
// own arrays are moved (detached: no copy), the columns it shares with other
// batches are copied and stay usable.
import { MessageChannel } from 'node:worker_threads';

import { describe, expect, it } from 'vitest';

import type { Batch } from '../ts/services/store/backend.js';
import { packBatch, unpackBatch, type WireBatch } from '../ts/services/store/batch-wire.js';
import { TextColumn } from '../ts/services/store/text-column.js';

function send(w: WireBatch, transfer: ArrayBuffer[]): Promise<WireBatch> {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    port2.once('message', (m: WireBatch) => {
      port1.close();
      port2.close();
      resolve(m);
    });
    port1.postMessage(w, transfer);
  });
}

describe('batch between threads', () => {
  it('arrives with the same values; own arrays moved, shared ones copied', async () => {
    const n = 5;
    const ids = new BigUint64Array([1n, 2n ** 40n, 3n, 2n ** 63n + 7n, 0n]);
    const ports = new Uint16Array([53, 443, 80, 65535, 0]);
    const text = new TextColumn(n, 4);
    ['', 'dns.google', '日本語', 'x'.repeat(40), '::1'].forEach((s, r) => text.set(r, s));
    const konst = TextColumn.constant(n, 'instance-name');
    const zero = new Uint8Array(n);
    const plain = ['a', 'b', '', 'd', 'e'];
    const b: Batch = { rows: 4, columns: [ids, ports, text, konst, zero, plain], shared: new Set([konst, zero]) };

    const { wire, transfer } = packBatch(b);
    // the BigUint64Array, the Uint16Array and the text column's three arrays
    expect(transfer).toHaveLength(5);
    const got = unpackBatch(await send(wire, transfer));

    expect(got.rows).toBe(4);
    expect([...(got.columns[0] as BigUint64Array)]).toEqual([1n, 2n ** 40n, 3n, 2n ** 63n + 7n, 0n]);
    expect([...(got.columns[1] as Uint16Array)]).toEqual([53, 443, 80, 65535, 0]);
    const t = got.columns[2] as TextColumn;
    expect(t).toBeInstanceOf(TextColumn);
    expect(t.strings(n)).toEqual(['', 'dns.google', '日本語', 'x'.repeat(40), '::1']);
    expect((got.columns[3] as TextColumn).strings(n)).toEqual(Array(n).fill('instance-name'));
    expect(got.columns[5]).toEqual(plain);

    // moved: the sender's arrays are empty now; shared: still whole on this side
    expect(ids.byteLength).toBe(0);
    expect(ports.byteLength).toBe(0);
    expect(text.bytes.byteLength).toBe(0);
    expect(konst.strings(n)).toEqual(Array(n).fill('instance-name'));
    expect(zero.byteLength).toBe(n);
  });

  it('a buffer two columns view is moved once', async () => {
    const halves = new Uint32Array([5, 0, 7, 1]);
    const b: Batch = { rows: 2, columns: [halves, new BigUint64Array(halves.buffer)] };
    const { wire, transfer } = packBatch(b);
    expect(transfer).toHaveLength(1);
    const got = unpackBatch(await send(wire, transfer));
    expect([...(got.columns[1] as BigUint64Array)]).toEqual([5n, 2n ** 32n + 7n]);
  });
});
