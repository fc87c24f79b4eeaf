// Retention: whole days dropped, oldest first, by age (counted from the
// newest stored day, capped at today) and by size; never the newest day for
// size. Checked against a real DuckDB store with days written by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Backend, TableDef } from '../ts/services/store/backend.js';
import { openStore } from '../ts/services/store/index.js';
import { Retention } from '../ts/services/store/retention.js';

const T: TableDef = {
  name: 'events',
  columns: [
    { name: 'T', type: 'datetime' },
    { name: 'PAYLOAD', type: 'str' },
  ],
  orderBy: ['T'],
  partitionBy: 'T',
};

const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 12) / 1000;

/** rows per day: `n` rows of ~1 kB each at noon of that day */
async function fill(b: Backend, days: [number, number, number][], n = 200) {
  const t: number[] = [];
  const p: string[] = [];
  for (const [y, m, d] of days) for (let i = 0; i < n; i++) (t.push(day(y, m, d) + i), p.push(`${y}${m}${d}-${i}-`.padEnd(1000, String.fromCharCode(97 + (i % 26)))));
  await b.append(T, { rows: t.length, columns: [t, p] });
}

describe('retention', () => {
  let dir: string;
  let b: Backend;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-ret-'));
    b = await openStore({ dataDir: dir });
    await b.ensureTable(T);
  });
  afterEach(async () => {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const days = async () => (await b.partitions(T)).map((p) => p.day);

  it('keeps the last N days counted from the newest stored day (an old replay keeps its days)', async () => {
    await fill(b, [[2016, 1, 1], [2016, 1, 2], [2016, 1, 3], [2016, 1, 4]], 3);
    const log: string[] = [];
    const r = new Retention(b, { days: 2, log: (l) => log.push(l) }).track(T);
    expect(await r.run(new Date(Date.UTC(2026, 0, 1)))).toEqual(['events/20160101', 'events/20160102']);
    expect(await days()).toEqual(['20160103', '20160104']);
    expect(log).toEqual(['flowgate: historical store: retention dropped 2 day partition(s): events/20160101, events/20160102']);
    // nothing more to drop
    expect(await r.run(new Date(Date.UTC(2026, 0, 1)))).toEqual([]);
  });

  it('counts age from today when a stray timestamp lies in the future', async () => {
    await fill(b, [[2024, 5, 1], [2024, 5, 9], [2024, 5, 10], [2031, 1, 1]], 3);
    const r = new Retention(b, { days: 3 }).track(T);
    // today is 2024-05-10: 05-08..05-10 are kept, the future day is kept too (not older)
    expect(await r.run(new Date(Date.UTC(2024, 4, 10, 18)))).toEqual(['events/20240501']);
    expect(await days()).toEqual(['20240509', '20240510', '20310101']);
  });

  it('drops the oldest days while the store is over its size, never the newest', async () => {
    await fill(b, [[2024, 1, 1], [2024, 1, 2], [2024, 1, 3]], 2000);
    const parts = await b.partitions(T);
    const total = parts.reduce((a, p) => a + p.bytes, 0);
    expect(parts.every((p) => p.bytes > 100_000)).toBe(true);
    // room for a bit more than two days: the oldest goes
    const r = new Retention(b, { days: 0, maxBytes: total - parts[0]!.bytes + 1 }).track(T);
    expect(await r.run(new Date(Date.UTC(2024, 0, 3)))).toEqual(['events/20240101']);
    // room for less than one day: all but the newest go
    const r2 = new Retention(b, { days: 0, maxBytes: 1 }).track(T);
    expect(await r2.run(new Date(Date.UTC(2024, 0, 3)))).toEqual(['events/20240102']);
    expect(await days()).toEqual(['20240103']);
    expect(await b.query({ sql: 'SELECT count(*) AS n FROM events', params: [] })).toEqual([{ n: 2000 }]);
  });
});
