// One suite, both historical-store backends: the embedded DuckDB file and a
// real ClickHouse server started for the test. What goes in must come back
// exactly (64-bit counters, hostile strings as bound values), partitions are
// UTC days, dropping one removes exactly that day, and data survives reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { StoreError, type Backend, type TableDef } from '../ts/services/store/backend.js';
import { renderSql, sqlLiteral } from '../ts/services/store/clickhouse.js';
import { openStore } from '../ts/services/store/index.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';

const T: TableDef = {
  name: 'events',
  columns: [
    { name: 'T', type: 'datetime' },
    { name: 'ID', type: 'u64' },
    { name: 'SMALL', type: 'u8' },
    { name: 'PORT', type: 'u16' },
    { name: 'ADDR', type: 'u32' },
    { name: 'DELTA', type: 'i64' },
    { name: 'RATIO', type: 'f64' },
    { name: 'TEXT', type: 'str' },
    // not known yet: not stored, read as 0 / '' whatever a batch carries
    { name: 'LATER_N', type: 'u16', absent: true },
    { name: 'LATER_S', type: 'str', absent: true },
  ],
  orderBy: ['T', 'ID'],
  partitionBy: 'T',
};

const HOSTILE = [
  "' OR 1=1 --",
  "'; DROP TABLE events; --",
  'back\\slash \\\' \\\\',
  '"double" `back` ?',
  'héllo ✓ 日本 🦆',
  'nul\u0000inside',
  'tab\tnew\nline\r\u0001\u007f',
  '',
];

// 2024-03-01 23:59:59, 2024-03-02 00:00:00 / 12:00, 2024-03-04 08:00 (UTC)
const D1 = Date.UTC(2024, 2, 1, 23, 59, 59) / 1000;
const D2 = Date.UTC(2024, 2, 2, 0, 0, 0) / 1000;
const D2b = Date.UTC(2024, 2, 2, 12, 0, 0) / 1000;
const D4 = Date.UTC(2024, 2, 4, 8, 0, 0) / 1000;

interface Rec {
  T: number;
  ID: number | bigint;
  SMALL: number;
  PORT: number;
  ADDR: number;
  DELTA: number | bigint;
  RATIO: number;
  TEXT: string;
}

// Rows spread over three days; IDs are unique so rows can be matched back.
const ROWS: Rec[] = HOSTILE.map((s, i) => ({
  T: [D1, D2, D2b, D4][i % 4],
  ID: i + 1,
  SMALL: 255 - i,
  PORT: 65535 - i,
  ADDR: 0xffffffff - i,
  DELTA: 0 - 1000 * i, // not -0: stored integers have no sign of zero
  RATIO: i / 3,
  TEXT: s,
}));
ROWS.push({ T: D2b, ID: 2n ** 63n + 7n, SMALL: 0, PORT: 0, ADDR: 0, DELTA: -(2n ** 62n), RATIO: -1.5e300, TEXT: 'big' });
ROWS.push({ T: D4, ID: 2 ** 53, SMALL: 1, PORT: 80, ADDR: 0x0a000001, DELTA: 2 ** 40, RATIO: 0, TEXT: 'edge' });

const NAMES = T.columns.filter((c) => !c.absent).map((c) => c.name) as (keyof Rec)[];
const batchOf = (rows: Rec[]) => ({ rows: rows.length, columns: [...NAMES.map((n) => rows.map((r) => r[n])), rows.map(() => 7), rows.map(() => 'ignored')] });
const dayOfRec = (r: Rec) => new Date(r.T * 1000).toISOString().slice(0, 10).replace(/-/g, '');

/** what a backend must hand back for a stored record: 64-bit values as number when exact */
const expected = (r: Rec) => {
  const o: Record<string, unknown> = { ...r };
  for (const k of ['ID', 'DELTA'] as const) {
    const v = r[k];
    if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)) o[k] = Number(v);
  }
  return o;
};

interface Harness {
  open(): Promise<Backend>;
  /** restarts what holds the data (the DuckDB file is simply reopened; ClickHouse's server is restarted) */
  restartServer?(): Promise<void>;
  cleanup(): Promise<void>;
}

function suite(name: string, skip: string | null, make: () => Promise<Harness>) {
  describe.skipIf(skip !== null)(`store backend: ${name}`, () => {
    let h: Harness;
    let b: Backend;
    const sel = 'SELECT T, ID, SMALL, PORT, ADDR, DELTA, RATIO, TEXT FROM events';

    beforeAll(async () => {
      h = await make();
      b = await h.open();
      await b.ensureTable(T);
      await b.ensureTable(T); // idempotent
    });
    afterAll(async () => {
      await b?.close();
      await h?.cleanup();
    });

    it('appends a batch and returns exactly what was stored', async () => {
      await b.append(T, batchOf(ROWS));
      const got = await b.query({ sql: `${sel} ORDER BY ID`, params: [] });
      const want = [...ROWS].sort((x, y) => (BigInt(x.ID) < BigInt(y.ID) ? -1 : 1)).map(expected);
      expect(got).toEqual(want);
      // ID 2^63+7 cannot be a number; 2^53 can
      expect(typeof got.find((r) => r.TEXT === 'big')!.ID).toBe('bigint');
      expect(got.find((r) => r.TEXT === 'edge')!.ID).toBe(2 ** 53);
      const later = await b.query({ sql: 'SELECT DISTINCT LATER_N, LATER_S FROM events', params: [] });
      expect(later).toEqual([{ LATER_N: 0, LATER_S: '' }]);
    });

    it('binds hostile strings as values, never as SQL', async () => {
      for (const s of HOSTILE) {
        const got = await b.query({ sql: `${sel} WHERE TEXT = ? ORDER BY ID`, params: [s] });
        expect(got.map((r) => r.TEXT)).toEqual([s]);
        const echo = await b.query({ sql: 'SELECT ? AS v', params: [s] });
        expect(echo).toEqual([{ v: s }]);
      }
      // the table is still there with all its rows
      const n = await b.query({ sql: 'SELECT count(*) AS n FROM events', params: [] });
      expect(n).toEqual([{ n: ROWS.length }]);
    });

    it('binds numbers, bigints and several values in order; ? in quotes is text', async () => {
      const got = await b.query({
        sql: `SELECT TEXT, '?' AS q FROM events WHERE ID = ? OR (DELTA = ? AND PORT > ?) OR ID = ? ORDER BY ID`,
        params: [2n ** 63n + 7n, -2000, 100, 1],
      });
      expect(got).toEqual([
        { TEXT: HOSTILE[0], q: '?' },
        { TEXT: HOSTILE[2], q: '?' },
        { TEXT: 'big', q: '?' },
      ]);
      const sums = await b.query({ sql: 'SELECT sum(PORT) AS s, max(ADDR) AS m FROM events WHERE T >= ? AND T < ?', params: [D2, D4] });
      const inRange = ROWS.filter((r) => r.T >= D2 && r.T < D4);
      expect(sums).toEqual([{ s: inRange.reduce((a, r) => a + r.PORT, 0), m: Math.max(...inRange.map((r) => r.ADDR)) }]);
      await expect(b.query({ sql: 'SELECT ? AS a, ? AS b', params: [1] })).rejects.toThrow();
      await expect(b.query({ sql: 'SELECT nosuchcolumn FROM events', params: [] })).rejects.toBeInstanceOf(StoreError);
    });

    it('lists partitions by UTC day with their rows and bytes', async () => {
      const parts = await b.partitions(T);
      const byDay = new Map<string, number>();
      for (const r of ROWS) byDay.set(dayOfRec(r), (byDay.get(dayOfRec(r)) ?? 0) + 1);
      expect(parts.map((p) => [p.day, p.rows])).toEqual([...byDay].sort());
      expect(parts.map((p) => p.day)).toEqual(['20240301', '20240302', '20240304']);
      for (const p of parts) expect(p.bytes).toBeGreaterThan(0);
    });

    it('drops exactly one day', async () => {
      await b.dropPartition(T, '20240302');
      const left = await b.query({ sql: 'SELECT ID FROM events ORDER BY ID', params: [] });
      const want = ROWS.filter((r) => dayOfRec(r) !== '20240302').map((r) => expected(r).ID);
      expect(left.map((r) => r.ID).sort()).toEqual(want.sort());
      expect((await b.partitions(T)).map((p) => p.day)).toEqual(['20240301', '20240304']);
      await expect(b.dropPartition(T, "1; DROP TABLE events")).rejects.toBeInstanceOf(StoreError);
      // appending to the dropped day recreates it
      await b.append(T, batchOf([{ ...ROWS[1], ID: 1000 }]));
      expect((await b.partitions(T)).map((p) => [p.day, p.rows])).toEqual([
        ['20240301', 2],
        ['20240302', 1],
        ['20240304', 3],
      ]);
    });

    it('keeps everything across close and reopen', async () => {
      const before = await b.query({ sql: `${sel} ORDER BY ID`, params: [] });
      await b.close();
      await h.restartServer?.();
      b = await h.open();
      await b.ensureTable(T);
      expect(await b.query({ sql: `${sel} ORDER BY ID`, params: [] })).toEqual(before);
      expect((await b.partitions(T)).map((p) => p.day)).toEqual(['20240301', '20240302', '20240304']);
    });

    it('adds columns a newer table definition has (and stores one no longer absent); old rows read 0 and empty', async () => {
      const T2: TableDef = {
        ...T,
        columns: [...T.columns.map((c) => (c.name === 'LATER_N' ? { name: c.name, type: c.type } : c)), { name: 'EXTRA_N', type: 'u32' }, { name: 'EXTRA_S', type: 'str' }],
      };
      await b.ensureTable(T2);
      await b.append(T2, { rows: 1, columns: [...batchOf([{ ...ROWS[0], ID: 2000 }]).columns, [42], ['x']] });
      const got = await b.query({ sql: 'SELECT ID, EXTRA_N, EXTRA_S, LATER_N, LATER_S FROM events WHERE ID IN (?, ?) ORDER BY ID', params: [1, 2000] });
      expect(got).toEqual([
        { ID: 1, EXTRA_N: 0, EXTRA_S: '', LATER_N: 0, LATER_S: '' },
        { ID: 2000, EXTRA_N: 42, EXTRA_S: 'x', LATER_N: 7, LATER_S: '' },
      ]);
    });
  });
}

suite('duckdb', null, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-store-'));
  return {
    open: () => openStore({ dataDir: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

suite('clickhouse', clickhouseSkip, async () => {
  const srv: ClickHouseServer = await startClickHouse({ password: "p@ss'w\\rd" });
  return {
    open: () => openStore({ dataDir: '/nonexistent', clickhouse: { url: srv.url('flowgate_test'), user: srv.user, password: srv.password } }),
    restartServer: async () => {
      await srv.kill();
      await srv.restart();
    },
    cleanup: () => srv.stop(),
  };
});

describe.skipIf(clickhouseSkip !== null)('clickhouse failures', () => {
  it('reports an unreachable server and a wrong password as unavailable', async () => {
    // a port nothing listens on: a server started then stopped
    const srv = await startClickHouse({ password: 'right' });
    const url = srv.url('x');
    const wrong = await openStore({ dataDir: '', clickhouse: { url, user: 'default', password: 'wrong' } }).catch((e) => e);
    expect(wrong).toBeInstanceOf(StoreError);
    expect(wrong.kind).toBe('unavailable');
    await srv.stop();
    const down = await openStore({ dataDir: '', clickhouse: { url, password: 'right' } }).catch((e) => e);
    expect(down).toBeInstanceOf(StoreError);
    expect(down.kind).toBe('unavailable');
    expect(down.message).toMatch(/cannot reach the server \(ECONNREFUSED\)/);
  });
});

describe('clickhouse literals', () => {
  it('renders each value type once, escaping quotes, backslashes and control bytes', () => {
    expect(sqlLiteral("a'b\\c\u0000\n")).toBe("'a\\'b\\\\c\\x00\\x0a'");
    expect(sqlLiteral(-1)).toBe('(-1)');
    expect(sqlLiteral(-5n)).toBe('(-5)');
    expect(sqlLiteral(2n ** 64n - 1n)).toBe('18446744073709551615');
    expect(sqlLiteral(true)).toBe('1');
    expect(sqlLiteral(null)).toBe('NULL');
    expect(() => sqlLiteral(NaN)).toThrow(StoreError);
    expect(() => sqlLiteral(Infinity)).toThrow(StoreError);
    expect(() => sqlLiteral({} as never)).toThrow(StoreError);
  });
  it('skips ? in strings, identifiers and comments', () => {
    expect(renderSql("SELECT '?', \"a?\", `b?` -- ?\n, /* ? */ ? - ?", ['x', -2])).toBe(
      "SELECT '?', \"a?\", `b?` -- ?\n, /* ? */ 'x' - (-2)",
    );
    expect(renderSql("SELECT 'it\\'s ?' , ?", [1])).toBe("SELECT 'it\\'s ?' , 1");
    expect(() => renderSql('SELECT ?', [])).toThrow(StoreError);
    expect(() => renderSql("SELECT '?", [])).toThrow(StoreError);
  });
});
