// The flow writer's byte columns, read back from both backends. The writer
// builds text as UTF-8 bytes (TextColumn) and u64 columns as 32-bit halves;
// what a store hands back must be exactly the strings and numbers they stand
// for: short and long strings (DuckDB keeps up to 12 bytes inline, longer
// ones go over in one piece per chunk), multi-byte and invalid UTF-8, batch
// after batch, rows over two days and more than one DuckDB chunk.
// Then hand-built expired-flow records through the flow sink: INFO, labels,
// IPv6 text (RFC 5952), Community ID (the spec's own example, and SHA-1 by
// node:crypto over the spec's layout), MACs, counters past 2^32 and the
// instance name must read as written here.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expiredLayout } from '../ts/bindings/engine.js';
import type { Backend, Batch, TableDef } from '../ts/services/store/backend.js';
import { useRecordLayout } from '../ts/services/store/flow-batch.js';
import { FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowSink } from '../ts/services/store/flow-sink.js';
import { openStoreInThread } from '../ts/services/store/index.js';
import { TextColumn } from '../ts/services/store/text-column.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';

const T: TableDef = {
  name: 'texts',
  columns: [
    { name: 'T', type: 'datetime' },
    { name: 'ID', type: 'u64' },
    { name: 'S', type: 'str' },
    { name: 'C', type: 'str' },
  ],
  orderBy: ['T', 'ID'],
  partitionBy: 'T',
};

const D1 = Date.UTC(2024, 2, 1, 12) / 1000;
const D2 = Date.UTC(2024, 2, 2, 12) / 1000;

const SAMPLES = [
  '',
  'a',
  '123456789012', // 12 bytes: DuckDB's inline limit
  '1234567890123', // 13: the first that is not inline
  '日本語テ', // 12 bytes in 4 characters
  'héllo ✓ 日本 🦆',
  'nul\u0000inside, and long enough',
  'tab\tnew\nline\r\u0001\u007f and more',
  'x'.repeat(51),
];
const CONSTANT = 'a constant longer than twelve bytes';

interface Row {
  T: number;
  ID: bigint;
  S: string;
}

/** A batch of rows as the writer makes them: ID as u64 halves (BigUint64Array), S and C as TextColumns. */
function batchOf(rows: Row[]): Batch {
  const n = rows.length;
  const t = new Uint32Array(n), id = new BigUint64Array(n), s = new TextColumn(n, 4);
  rows.forEach((r, i) => {
    t[i] = r.T;
    id[i] = r.ID;
    s.set(i, r.S);
  });
  return { rows: n, columns: [t, id, s, TextColumn.constant(n, CONSTANT)] };
}

function rowsOf(first: number, n: number, twoDays: boolean): Row[] {
  return Array.from({ length: n }, (_, k) => {
    const i = first + k;
    const s = i % 3 === 0 ? SAMPLES[i % SAMPLES.length] : `row ${i} ${'é'.repeat(i % 9)}${'z'.repeat(i % 17)}`;
    return { T: twoDays && i % 2 ? D2 : D1, ID: i % 5 === 0 ? 2n ** 63n + BigInt(i) : BigInt(i), S: s };
  });
}

// --------------------------------------------------------------- records

const F = (k: string) => expiredLayout.fields[k]!.off;
const v4 = (a: number[]) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...a];
const v6 = (groups: number[]) => groups.flatMap((g) => [g >> 8, g & 0xff]);

interface Spec {
  serial: number;
  cli: number[];
  srv: number[];
  proto: number;
  sport: number;
  dport: number;
  icmp?: [number, number];
  info: number[];
  cliName?: string;
  srvName?: string;
  cliMac: number[];
  srvMac: number[];
  bytes: bigint;
}

function record(s: Spec): Uint8Array {
  const b = new Uint8Array(expiredLayout.size);
  const v = new DataView(b.buffer);
  b.set(s.cli, F('cli_ip'));
  b.set(s.srv, F('srv_ip'));
  v.setUint16(F('cli_port'), s.sport, true);
  v.setUint16(F('srv_port'), s.dport, true);
  v.setUint8(F('proto'), s.proto);
  v.setUint8(F('ip_version'), s.cli[10] === 0xff ? 4 : 6);
  if (s.icmp) (b[F('icmp_type')] = s.icmp[0]), (b[F('icmp_code')] = s.icmp[1]);
  v.setBigUint64(F('first_ns'), BigInt(D1) * 1_000_000_000n, true);
  v.setBigUint64(F('last_ns'), BigInt(D1 + 1) * 1_000_000_000n, true);
  v.setUint32(F('cli2srv_pkts'), 3, true);
  v.setBigUint64(F('cli2srv_bytes'), s.bytes, true);
  v.setUint32(F('serial'), s.serial, true);
  b.set(s.info, F('info'));
  const enc = new TextEncoder();
  b.set(enc.encode(s.cliName ?? ''), F('cli_name'));
  b.set(enc.encode(s.srvName ?? ''), F('srv_name'));
  b.set(s.cliMac, F('cli_mac'));
  b.set(s.srvMac, F('srv_mac'));
  return b;
}

/** Community ID v1 by the spec with node:crypto: seed, smaller endpoint first, protocol, pad, ports. */
function communityIdTruth(s: Spec): string {
  const four = s.cli[10] === 0xff;
  let a = four ? s.cli.slice(12) : s.cli, z = four ? s.srv.slice(12) : s.srv;
  let p = s.icmp ? s.icmp[0] : s.sport, q = s.icmp ? ({ 8: 0, 0: 8, 128: 129, 129: 128 } as Record<number, number>)[s.icmp[0]]! : s.dport;
  const cmp = Buffer.compare(Buffer.from(a), Buffer.from(z));
  if (cmp > 0 || (cmp === 0 && p > q)) ([a, z] = [z, a]), ([p, q] = [q, p]);
  const m = Buffer.from([0, 0, ...a, ...z, s.proto, 0, p >> 8, p & 0xff, q >> 8, q & 0xff]);
  return `1:${createHash('sha1').update(m).digest('base64')}`;
}

const utf8 = (t: string) => [...new TextEncoder().encode(t)];
const RECS: Spec[] = [
  // the Community ID spec's example flow
  { serial: 1, cli: v4([128, 232, 110, 120]), srv: v4([66, 35, 250, 204]), proto: 6, sport: 34855, dport: 80, info: utf8('www.ntop.org'), srvName: 'a-server-name-longer-than-12', cliMac: [0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xcc], srvMac: [0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54], bytes: 5_000_000_123n },
  // two equal zero runs: the first becomes '::'
  { serial: 2, cli: v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]), srv: v6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 2]), proto: 17, sport: 5353, dport: 53, info: utf8('bücher.example'), cliName: 'ünïcode-host', cliMac: [0, 0, 0, 0, 0, 1], srvMac: [0, 0, 0, 0, 0, 0], bytes: 1n },
  // not UTF-8: U+FFFD, as the engine's own decoder reads it
  { serial: 3, cli: v4([10, 0, 0, 2]), srv: v4([10, 0, 0, 1]), proto: 1, sport: 0, dport: 0, icmp: [8, 0], info: [0x66, 0xff, 0x6f], cliMac: [1, 2, 3, 4, 5, 6], srvMac: [6, 5, 4, 3, 2, 1], bytes: 2n ** 40n },
  // INFO filling its 50 bytes (no NUL); ICMPv6 echo reply
  { serial: 4, cli: v6([0xfe80, 0, 0, 0, 0, 0, 0, 0x10]), srv: v6([0xfe80, 0, 0, 0, 0, 0, 0, 0x20]), proto: 58, sport: 0, dport: 0, icmp: [129, 0], info: utf8('y'.repeat(50)), cliMac: [0, 0, 0, 0, 0, 0], srvMac: [0, 0, 0, 0, 0, 0], bytes: 0n },
];
const WANT = [
  { IPV4_SRC_ADDR: 0x80e86e78, IPV6_SRC_ADDR: '::', IPV6_DST_ADDR: '::', INFO: 'www.ntop.org', SRC_LABEL: '', DST_LABEL: 'a-server-name-longer-than-12', SRC_MAC: 0x001b21aabbcc, DST_MAC: 0xfedcba987654, SRC2DST_BYTES: 5_000_000_123 },
  { IPV4_SRC_ADDR: 0, IPV6_SRC_ADDR: '2001:db8::1', IPV6_DST_ADDR: '2001:db8::1:0:0:2', INFO: 'bücher.example', SRC_LABEL: 'ünïcode-host', DST_LABEL: '', SRC_MAC: 1, DST_MAC: 0, SRC2DST_BYTES: 1 },
  { IPV4_SRC_ADDR: 0x0a000002, IPV6_SRC_ADDR: '::', IPV6_DST_ADDR: '::', INFO: 'f\ufffdo', SRC_LABEL: '', DST_LABEL: '', SRC_MAC: 0x010203040506, DST_MAC: 0x060504030201, SRC2DST_BYTES: 2 ** 40 },
  { IPV4_SRC_ADDR: 0, IPV6_SRC_ADDR: 'fe80::10', IPV6_DST_ADDR: 'fe80::20', INFO: 'y'.repeat(50), SRC_LABEL: '', DST_LABEL: '', SRC_MAC: 0, DST_MAC: 0, SRC2DST_BYTES: 0 },
];
const INSTANCE = 'flowgate-instance-name-01';

interface Harness {
  open(): Promise<Backend>;
  cleanup(): Promise<void>;
}

function suite(name: string, skip: string | null, make: () => Promise<Harness>) {
  describe.skipIf(skip !== null)(`byte columns: ${name}`, () => {
    let h: Harness;
    let b: Backend;
    beforeAll(async () => {
      h = await make();
      b = await h.open();
    });
    afterAll(async () => {
      await b?.close();
      await h?.cleanup();
    });

    it('stores text and u64 halves exactly, batch after batch, over two days and many chunks', async () => {
      await b.ensureTable(T);
      const rows = [rowsOf(0, 5000, true), rowsOf(5000, 7, false), rowsOf(5007, 2600, false)];
      for (const r of rows) await b.append(T, batchOf(r));
      await b.append(T, batchOf(rowsOf(7607, 3, true)));
      const all = [...rows.flat(), ...rowsOf(7607, 3, true)];
      const got = await b.query({ sql: 'SELECT T, ID, S, C FROM texts ORDER BY ID', params: [] });
      const want = [...all]
        .sort((x, y) => (x.ID < y.ID ? -1 : 1))
        .map((r) => ({ T: r.T, ID: r.ID <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r.ID) : r.ID, S: r.S, C: CONSTANT }));
      expect(got.length).toBe(want.length);
      expect(got).toEqual(want);
      expect((await b.partitions(T)).map((p) => [p.day, p.rows])).toEqual([
        ['20240301', all.filter((r) => r.T === D1).length],
        ['20240302', all.filter((r) => r.T === D2).length],
      ]);
    });

    it("stores a record's text, addresses, Community ID, MACs and counters as written by hand", async () => {
      await b.ensureTable(FLOWS_TABLE);
      useRecordLayout(expiredLayout);
      const sink = new FlowSink(b, { batchRows: 3, flushMs: 1000, maxQueued: 8, instanceName: INSTANCE }, { counts: () => undefined, log: () => undefined });
      sink.attach(0, 5, 1e9);
      const bytes = new Uint8Array(RECS.length * expiredLayout.size);
      RECS.forEach((s, i) => bytes.set(record(s), i * expiredLayout.size));
      sink.push(0, bytes, RECS.length);
      await sink.flush();
      sink.close();
      const got = await b.query({
        sql: `SELECT FLOW_ID, IPV4_SRC_ADDR, IPV6_SRC_ADDR, IPV6_DST_ADDR, INFO, SRC_LABEL, DST_LABEL, SRC_MAC, DST_MAC, SRC2DST_BYTES, TOTAL_BYTES, COMMUNITY_ID, NTOPNG_INSTANCE_NAME FROM flows ORDER BY FLOW_ID`,
        params: [],
      });
      expect(got).toEqual(
        RECS.map((s, i) => ({
          FLOW_ID: 5 * 2 ** 32 + s.serial,
          ...WANT[i],
          TOTAL_BYTES: WANT[i]!.SRC2DST_BYTES,
          COMMUNITY_ID: communityIdTruth(s),
          NTOPNG_INSTANCE_NAME: INSTANCE,
        })),
      );
      expect(got[0]!.COMMUNITY_ID).toBe('1:LQU9qZlK+B5F3KDmev6m5PMibrg=');
    });
  });
}

suite('duckdb', null, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowgate-text-'));
  return {
    open: () => openStoreInThread({ dataDir: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

suite('clickhouse', clickhouseSkip, async () => {
  const srv: ClickHouseServer = await startClickHouse();
  return {
    open: () => openStoreInThread({ dataDir: '', clickhouse: { url: srv.url('flowgate_text'), user: srv.user, password: srv.password } }),
    cleanup: () => srv.stop(),
  };
});
