// FLOW_RISK keeps all 64 bits of the engine's risk mask: nDPI's risk ids go
// past 53 (a double would round the low bits away), so a mask with risk 56
// and risk 1 must come back exactly, with the alert columns derived from it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { expiredLayout } from '../ts/bindings/engine.js';
import type { Backend } from '../ts/services/store/backend.js';
import { useRecordLayout } from '../ts/services/store/flow-batch.js';
import { FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowSink } from '../ts/services/store/flow-sink.js';
import { openStoreInThread } from '../ts/services/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'flowgate-risk-'));
let backend: Backend | undefined;
afterAll(async () => {
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One expired-flow record: 10.0.0.1:1234 → 10.0.0.2:80 TCP, 1 s long, the given risk mask. */
function record(risks: bigint): Uint8Array {
  const b = new Uint8Array(expiredLayout.size);
  const v = new DataView(b.buffer);
  const f = (k: string) => expiredLayout.fields[k]!.off;
  const ip4 = (at: number, last: number) => b.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, last], at);
  ip4(f('cli_ip'), 1);
  ip4(f('srv_ip'), 2);
  v.setUint16(f('cli_port'), 1234, true);
  v.setUint16(f('srv_port'), 80, true);
  v.setUint8(f('proto'), 6);
  v.setUint8(f('ip_version'), 4);
  v.setBigUint64(f('first_ns'), 1_700_000_000_000_000_000n, true);
  v.setBigUint64(f('last_ns'), 1_700_000_001_000_000_000n, true);
  v.setUint32(f('cli2srv_pkts'), 1, true);
  v.setBigUint64(f('cli2srv_bytes'), 60n, true);
  v.setUint32(f('serial'), 1, true);
  v.setBigUint64(f('risks'), risks, true);
  return b;
}

describe('FLOW_RISK', () => {
  it('stores a mask with bits above 2^53 exactly', async () => {
    backend = await openStoreInThread({ dataDir: dir });
    await backend.ensureTable(FLOWS_TABLE);
    useRecordLayout(expiredLayout);
    const sink = new FlowSink(backend, { batchRows: 16, flushMs: 1000, maxQueued: 8, instanceName: 't' }, { counts: () => undefined, log: () => undefined });
    sink.attach(0, 1, 1e9);
    const mask = (1n << 56n) | (1n << 1n);
    sink.push(0, record(mask), 1);
    await sink.flush();
    sink.close();
    const rows = await backend.query({ sql: 'SELECT FLOW_RISK AS r FROM flows', params: [] });
    expect(rows).toHaveLength(1);
    expect(BigInt(rows[0]!.r as bigint | number)).toBe(mask);
  });
});
