// The system interface's series (active monitoring's am_host:*, ifid -1
// stored as 65535) are written on the wall clock: their hours are rolled up
// like an interface's, without moving the packet-time clock that retention
// and the interfaces' series go by.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, expect, it } from 'vitest';

import type { Backend } from '../ts/services/store/backend.js';
import { openStore } from '../ts/services/store/index.js';
import { SYSTEM_TS_IFID } from '../ts/services/timeseries/schemas.js';
import { TABLES, TsStore } from '../ts/services/timeseries/store.js';

const dir = mkdtempSync(join(tmpdir(), 'flowgate-ts-system-'));
let backend: Backend | undefined;
afterAll(async () => {
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('rolls a wall-clock hour of am_host points up (gauge mean) and leaves the packet clock alone', async () => {
  backend = await openStore({ dataDir: dir });
  const ts = new TsStore(undefined, () => {});
  await ts.connect(backend);
  const H = 1_700_000_000 - (1_700_000_000 % 3600);
  // 60 one-minute RTTs in the first hour (1 … 60 ms), then the first minute of the next hour
  const value = (k: number) => k + 1;
  for (let k = 0; k <= 60; k++) {
    const tstamp = H + 60 * k;
    ts.write([{ ifid: SYSTEM_TS_IFID, schema: 'am_host:val_min', tags: 'host=10.0.0.1,metric=icmp', metric: 'value', tstamp, value: value(k) }]);
    ts.stepClosed(SYSTEM_TS_IFID, tstamp, false);
  }
  await ts.flush();
  const rows = await backend.query({ sql: `SELECT tstamp, value, n FROM ${TABLES.hour.name} WHERE ifid = ? ORDER BY tstamp`, params: [SYSTEM_TS_IFID] });
  // only the hour that ended is rolled up: the mean of 1 … 60 over its 60 points
  expect(rows.map((r) => [Number(r.tstamp), Number(r.value), Number(r.n)])).toEqual([[H, 30.5, 60]]);
  expect(ts.clock).toBe(0);
});
