// The flow writer against tshark: real captures replayed (flows flushed at
// the end, periodic snapshots every 10 s of a flow's life), the flows table
// summed per conversation equals tshark's conversation tables (packets and
// bytes per direction), per Community ID equals tshark's communityid
// post-dissector, VLANs and DNS INFO as tshark reads them; the same against
// a real ClickHouse; restart keeps everything; drops are counted when the
// store is slow or down, and shown in interface data.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Interfaces } from '../ts/services/interfaces.js';
import type { Backend, Batch, Query, TableDef } from '../ts/services/store/backend.js';
import { FLOW_COLUMNS, FLOWS_TABLE } from '../ts/services/store/flow-columns.js';
import { FlowWriter } from '../ts/services/store/flow-writer.js';
import { startHistory } from '../ts/services/store/history.js';
import { openStore } from '../ts/services/store/index.js';
import { startApi, v2 } from './fixtures/api.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';
import { buildDist } from './fixtures/egress.js';
import { addConv, convKey, type ConvDir, type TsharkView, tsharkView } from './fixtures/tshark.js';
import { NDPI_PCAPS, normIp, tool } from './fixtures/util.js';

// Chosen as in truth-tshark.test.ts (every IP packet a plain TCP/UDP/ICMP one):
//   1kxun.pcap                IPv4 + IPv6, TCP + UDP, 197 flows, DNS
//   whois.pcapng              802.1Q: one address pair in VLANs 1603, 1908 and untagged
//   KakaoTalk_talk.pcap       Linux cooked, 76 s of long-lived flows (snapshots)
//   googledns_android10.pcap  ICMP echo, DNS, 255 s
const CAPTURES = ['1kxun.pcap', 'whois.pcapng', 'KakaoTalk_talk.pcap', 'googledns_android10.pcap'];
const files = CAPTURES.map((c) => join(NDPI_PCAPS, c));
const ENGINE = { flushAtEnd: true, periodicDumpSec: 10 };

interface Frame {
  len: number;
  cid: string;
  vlan: string;
  dnsQuery: string;
}

/** Per frame: length, Community ID (tshark's post-dissector), VLAN ids, first DNS query name. */
function tsharkFrames(file: string): Frame[] {
  const out = tool('tshark', [
    '-n', '-r', file, '--enable-protocol', 'communityid', '-T', 'fields', '-E', 'occurrence=a', '-E', 'aggregator=,', '-E', 'separator=\t',
    '-e', 'frame.len', '-e', 'communityid', '-e', 'vlan.id', '-e', 'dns.qry.name',
  ]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [len, cid, vlan, q] = l.split('\t');
      return { len: Number(len), cid: cid ?? '', vlan: vlan ?? '', dnsQuery: (q ?? '').split(',')[0] };
    });
}

/** tshark's TCP/UDP conversations, bytes exact from the frames */
function theirConversations(view: TsharkView): Map<string, ConvDir> {
  const m = new Map<string, ConvDir>();
  for (const proto of ['tcp', 'udp'] as const) {
    for (const row of view.conv[proto]) {
      const { key, ab } = convKey(proto, row.a, row.pa, row.b, row.pb);
      addConv(m, key, ab, row.framesAB, 0, row.framesBA, 0);
    }
  }
  for (const f of view.frames) {
    if (!f.l4 || !f.src || !f.dst) continue;
    const { key, ab } = convKey(f.l4, f.src, f.sport, f.dst, f.dport);
    const d = m.get(key)!;
    if (ab) d.bytesAB += f.len;
    else d.bytesBA += f.len;
  }
  return m;
}

const ip4 = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
const addr = (r: Row, side: 'SRC' | 'DST') => normIp(r.IP_PROTOCOL_VERSION === 4 ? ip4(Number(r[`IPV4_${side}_ADDR`])) : String(r[`IPV6_${side}_ADDR`]));

type Row = Record<string, unknown>;

/** our rows summed per TCP/UDP conversation (VLANs merged, as tshark's tables) */
function ourConversations(rows: Row[]): Map<string, ConvDir> {
  const m = new Map<string, ConvDir>();
  for (const r of rows) {
    const p = Number(r.PROTOCOL);
    if (p !== 6 && p !== 17) continue;
    const { key, ab } = convKey(p === 6 ? 'tcp' : 'udp', addr(r, 'SRC'), Number(r.IP_SRC_PORT), addr(r, 'DST'), Number(r.IP_DST_PORT));
    addConv(m, key, ab, Number(r.SRC2DST_PACKETS), Number(r.SRC2DST_BYTES), Number(r.DST2SRC_PACKETS), Number(r.DST2SRC_BYTES));
  }
  return m;
}

const COLS = 'FLOW_ID, INTERFACE_ID, IP_PROTOCOL_VERSION, FIRST_SEEN, LAST_SEEN, VLAN_ID, PROTOCOL, IPV4_SRC_ADDR, IPV6_SRC_ADDR, IP_SRC_PORT, IPV4_DST_ADDR, IPV6_DST_ADDR, IP_DST_PORT, SRC2DST_PACKETS, DST2SRC_PACKETS, SRC2DST_BYTES, DST2SRC_BYTES, PACKETS, TOTAL_BYTES, COMMUNITY_ID, INFO, L7_PROTO, L7_PROTO_MASTER';

interface Replay {
  /** flows the engines created, per ifid */
  flows: number[];
  written: number[];
  drops: number[];
}

/** Replays every capture (one interface each) into the store through a writer. */
async function replayInto(backend: Backend, opts: { batchRows?: number; maxQueued?: number } = {}): Promise<Replay> {
  const ifaces = new Interfaces(files.map((source) => ({ source })), ENGINE);
  const writer = await FlowWriter.open(backend, { batchRows: opts.batchRows ?? 64, maxQueued: opts.maxQueued, log: () => {} });
  try {
    ifaces.start(writer);
    for (const i of ifaces.list) expect((await i.engine.waitDone()).state).toBe('done');
    await writer.flush();
    const c = ifaces.list.map((i) => writer.counters(i.ifid));
    return {
      flows: ifaces.list.map((i) => i.engine.stats().flows_created),
      written: c.map((x) => x.flow_export_count),
      drops: c.map((x) => x.flow_export_drops),
    };
  } finally {
    await writer.close();
    ifaces.close();
  }
}

const views = new Map<string, TsharkView>();
const frames = new Map<string, Frame[]>();
beforeAll(async () => {
  const all = await Promise.all(files.map((f) => tsharkView(f)));
  CAPTURES.forEach((c, i) => {
    views.set(c, all[i]!);
    frames.set(c, tsharkFrames(files[i]!));
  });
});

function checkAgainstTshark(rows: Row[], replay: Replay) {
  CAPTURES.forEach((name, ifid) => {
    const mine = rows.filter((r) => r.INTERFACE_ID === ifid);
    // every flow the engine made has its rows; nothing was dropped
    expect(new Set(mine.map((r) => r.FLOW_ID)).size, name).toBe(replay.flows[ifid]);
    expect(replay.drops[ifid], name).toBe(0);
    expect(replay.written[ifid], name).toBe(mine.length);
    // conversations: packets and bytes per direction
    const theirs = theirConversations(views.get(name)!);
    const ours = ourConversations(mine);
    expect([...ours.keys()].sort(), name).toEqual([...theirs.keys()].sort());
    for (const [k, d] of theirs) expect(ours.get(k), `${name} ${k}`).toEqual(d);
    // every row: totals are the sums of the directions
    for (const r of mine) {
      expect(r.PACKETS).toBe(Number(r.SRC2DST_PACKETS) + Number(r.DST2SRC_PACKETS));
      expect(r.TOTAL_BYTES).toBe(Number(r.SRC2DST_BYTES) + Number(r.DST2SRC_BYTES));
    }
    // Community IDs (TCP, UDP and ICMP alike): frames and bytes per id as tshark computes them
    const byCid = new Map<string, [number, number]>();
    for (const f of frames.get(name)!) {
      if (!f.cid) continue;
      const v = byCid.get(f.cid) ?? [0, 0];
      (v[0] += 1), (v[1] += f.len);
      byCid.set(f.cid, v);
    }
    const oursCid = new Map<string, [number, number]>();
    for (const r of mine) {
      const v = oursCid.get(String(r.COMMUNITY_ID)) ?? [0, 0];
      (v[0] += Number(r.PACKETS)), (v[1] += Number(r.TOTAL_BYTES));
      oursCid.set(String(r.COMMUNITY_ID), v);
    }
    expect(oursCid, name).toEqual(byCid);
    // VLANs: the ids tshark reads per Community ID
    const vlans = new Map<string, Set<number>>();
    for (const f of frames.get(name)!) if (f.cid) (vlans.get(f.cid) ?? vlans.set(f.cid, new Set()).get(f.cid)!).add(f.vlan ? Number(f.vlan.split(',').pop()) : 0);
    for (const r of mine) expect(vlans.get(String(r.COMMUNITY_ID))!.has(Number(r.VLAN_ID)), `${name} vlan ${r.VLAN_ID}`).toBe(true);
    // DNS: INFO is the query tshark reads in the flow's frames (the classifier keeps 39 characters)
    for (const r of mine.filter((x) => (x.L7_PROTO === 5 || x.L7_PROTO_MASTER === 5) && x.INFO)) {
      const queries = frames.get(name)!.filter((f) => f.cid === r.COMMUNITY_ID && f.dnsQuery).map((f) => f.dnsQuery.slice(0, 39));
      expect(queries, `${name} ${r.INFO}`).toContain(r.INFO);
    }
  });
  expect(rows.some((r) => r.VLAN_ID === 1603) && rows.some((r) => r.VLAN_ID === 1908)).toBe(true);
  expect(rows.some((r) => r.IP_PROTOCOL_VERSION === 6) && rows.some((r) => r.PROTOCOL === 1)).toBe(true);
  expect(rows.filter((r) => (r.L7_PROTO === 5 || r.L7_PROTO_MASTER === 5) && r.INFO).length).toBeGreaterThanOrEqual(5);
}

/** Snapshot rows: a long flow has several rows whose windows follow one another. */
function checkSnapshots(rows: Row[]) {
  const byFlow = new Map<unknown, Row[]>();
  for (const r of rows) (byFlow.get(r.FLOW_ID) ?? byFlow.set(r.FLOW_ID, []).get(r.FLOW_ID)!).push(r);
  const multi = [...byFlow.values()].filter((l) => l.length > 1);
  expect(multi.length).toBeGreaterThan(0);
  for (const l of multi) {
    // rows of one flow in time order: a snapshot and the flow's end can share their LAST_SEEN second,
    // and a server (ClickHouse) returns rows in no particular order, so the first second breaks the tie
    l.sort((a, b) => Number(a.LAST_SEEN) - Number(b.LAST_SEEN) || Number(a.FIRST_SEEN) - Number(b.FIRST_SEEN));
    for (let i = 1; i < l.length; i++) expect(l[i].FIRST_SEEN).toBe(l[i - 1].LAST_SEEN);
    for (const r of l) expect(Number(r.PACKETS)).toBeGreaterThan(0);
  }
}

describe('flow writer → DuckDB', () => {
  let dir: string;
  let backend: Backend;
  let replay: Replay;
  let rows: Row[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-hist-'));
    backend = await openStore({ dataDir: dir });
    replay = await replayInto(backend);
    rows = await backend.query({ sql: `SELECT ${COLS} FROM flows`, params: [] });
  });
  afterAll(async () => {
    await backend?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores every flow with tshark's packets and bytes per direction", () => checkAgainstTshark(rows, replay));

  it('writes long flows as snapshot rows whose sums are the totals', () => checkSnapshots(rows));

  it('has a column for every name of flow-columns.ts, as ntopng names them', async () => {
    const one = await backend.query({ sql: 'SELECT * FROM flows LIMIT 1', params: [] });
    expect(Object.keys(one[0]!)).toEqual(FLOW_COLUMNS.map((c) => c.name));
    // IPv4 rows hold '::' as IPv6, IPv6 rows 0 as IPv4
    expect(await backend.query({ sql: "SELECT count(*) AS n FROM flows WHERE (IP_PROTOCOL_VERSION = 4 AND IPV6_SRC_ADDR <> '::') OR (IP_PROTOCOL_VERSION = 6 AND IPV4_SRC_ADDR <> 0)", params: [] })).toEqual([{ n: 0 }]);
  });

  it('keeps everything across close and reopen, and new FLOW_IDs never collide', async () => {
    await backend.close();
    backend = await openStore({ dataDir: dir });
    await backend.ensureTable(FLOWS_TABLE);
    const again = await backend.query({ sql: `SELECT ${COLS} FROM flows`, params: [] });
    const key = (r: Row) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(again.map(key).sort()).toEqual(rows.map(key).sort());
    const before = new Set(rows.map((r) => r.FLOW_ID));
    await replayInto(backend);
    const after = await backend.query({ sql: 'SELECT FLOW_ID FROM flows', params: [] });
    const fresh = after.filter((r) => !before.has(r.FLOW_ID));
    expect(after.length).toBe(rows.length * 2);
    expect(fresh.length).toBe(rows.length);
  });
});

describe.skipIf(clickhouseSkip !== null)('flow writer → ClickHouse', () => {
  let srv: ClickHouseServer;
  let backend: Backend;

  beforeAll(async () => {
    srv = await startClickHouse();
    backend = await openStore({ dataDir: '', clickhouse: { url: srv.url('flows_test') } });
  });
  afterAll(async () => {
    await backend?.close();
    await srv?.stop();
  });

  it("stores every flow with tshark's counts, snapshots included; a restart keeps them", async () => {
    const replay = await replayInto(backend);
    const rows = await backend.query({ sql: `SELECT ${COLS} FROM flows`, params: [] });
    checkAgainstTshark(rows, replay);
    checkSnapshots(rows);
    await backend.close();
    await srv.kill();
    await srv.restart();
    backend = await openStore({ dataDir: '', clickhouse: { url: srv.url('flows_test') } });
    const again = await backend.query({ sql: `SELECT ${COLS} FROM flows`, params: [] });
    expect(again.length).toBe(rows.length);
    expect(ourConversations(again)).toEqual(ourConversations(rows));
  });

  it('counts what it cannot write while the server is down, and writes again once it is back', async () => {
    const log: string[] = [];
    const h = (await startHistory({ dataDir: '', clickhouse: { url: srv.url('flows_down'), timeoutMs: 5000 }, print: () => {}, log: (l) => log.push(l) }))!;
    expect(h).not.toBeNull();
    await srv.kill();
    const ifaces = new Interfaces([{ source: files[0]! }], { ...ENGINE, periodicDumpSec: 0 });
    ifaces.start(h.writer);
    await ifaces.list[0]!.engine.waitDone();
    await h.writer.flush();
    const c = h.writer.counters(0);
    expect(c.flow_export_count).toBe(0);
    expect(c.flow_export_drops).toBe(ifaces.list[0]!.engine.stats().flows_created);
    expect(log.some((l) => /write failed, flows dropped .*cannot reach the server/.test(l))).toBe(true);
    ifaces.close();
    await srv.restart();
    const again = new Interfaces([{ source: files[1]! }], { ...ENGINE, periodicDumpSec: 0 });
    h.writer.attach(again.list[0]!);
    again.list[0]!.engine.start();
    await again.list[0]!.engine.waitDone();
    await h.writer.flush();
    expect(h.writer.counters(0).flow_export_count).toBe(again.list[0]!.engine.stats().flows_created);
    expect(log.some((l) => /writing again/.test(l))).toBe(true);
    again.close();
    await h.close();
  });
});

/** A real backend whose appends wait until released: the store "falls behind". */
class SlowBackend implements Backend {
  readonly dialect = 'duckdb' as const;
  readonly description = 'slow';
  private gate: Promise<void>;
  release!: () => void;
  constructor(private readonly inner: Backend) {
    this.gate = new Promise((r) => (this.release = r));
  }
  ensureTable(t: TableDef) {
    return this.inner.ensureTable(t);
  }
  async append(t: TableDef, b: Batch) {
    await this.gate;
    return this.inner.append(t, b);
  }
  query(q: Query) {
    return this.inner.query(q);
  }
  partitions(t: TableDef) {
    return this.inner.partitions(t);
  }
  dropPartition(t: TableDef, day: string) {
    return this.inner.dropPartition(t, day);
  }
  deleteWhere(t: TableDef, where: Query) {
    return this.inner.deleteWhere(t, where);
  }
  updateWhere(t: TableDef, set: { column: string; value: string | number }[], where: Query) {
    return this.inner.updateWhere(t, set, where);
  }
  close() {
    return this.inner.close();
  }
}

describe('flow writer falling behind', () => {
  it('drops whole batches beyond its queue and counts them; what it kept is stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowgate-slow-'));
    const inner = await openStore({ dataDir: dir });
    const slow = new SlowBackend(inner);
    const ifaces = new Interfaces([{ source: files[0]! }], { flushAtEnd: true, periodicDumpSec: 0 });
    const writer = await FlowWriter.open(slow, { batchRows: 8, maxQueued: 2, log: () => {} });
    ifaces.start(writer);
    await ifaces.list[0]!.engine.waitDone();
    const flushed = writer.flush();
    slow.release();
    await flushed;
    const c = writer.counters(0);
    const flows = ifaces.list[0]!.engine.stats().flows_created;
    // 197 flows in batches of 8: one in flight, two queued, the rest dropped
    expect(c.flow_export_drops).toBeGreaterThan(0);
    expect(c.flow_export_count).toBe(3 * 8);
    expect(c.flow_export_count + c.flow_export_drops).toBe(flows);
    expect(await inner.query({ sql: 'SELECT count(*) AS n FROM flows', params: [] })).toEqual([{ n: c.flow_export_count }]);
    await writer.close();
    ifaces.close();
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the service with its historical store', () => {
  it('shows the export counters in interface data and prints the store line', async () => {
    const s = await startApi({ files: [files[0]!], engine: { flushAtEnd: true }, history: true });
    try {
      expect(s.printed.some((l) => l.startsWith(`flowgate: historical store: duckdb ${join(s.dataDir, 'history.duckdb')}`))).toBe(true);
      const n = Number((await s.history!.backend.query({ sql: 'SELECT count(*) AS n FROM flows', params: [] }))[0]!.n);
      expect(n).toBe(197);
      const r = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
      expect(r.body.rsp.db).toMatchObject({ flow_export_count: n, flow_export_drops: 0 });
      expect(r.body.rsp.db.flow_export_rate).toBeGreaterThanOrEqual(0);
      const v1 = await s.call('/lua/rest/v1/get/interface/data.lua', { query: { ifid: 0 } });
      expect(v1.body.rsp.flow_export_count).toBe(n);
    } finally {
      await s.close();
    }
  });

  it('stores every flow of a replayed capture when the command exits, active ones included', async () => {
    buildDist();
    const dir = mkdtempSync(join(tmpdir(), 'flowgate-cli-'));
    const out = execFileSync(
      process.execPath,
      ['bin/flowgate.js', '-i', files[0]!, '--exit-when-done', '--http-port', '0', '--egress-port', '0', '-q', '--data-dir', dir],
      { encoding: 'utf8' },
    );
    expect(out).toContain(`flowgate: historical store: duckdb ${join(dir, 'history.duckdb')} (flows kept 30 days)`);
    const b = await openStore({ dataDir: dir });
    await b.ensureTable(FLOWS_TABLE);
    const rows = await b.query({ sql: `SELECT ${COLS} FROM flows`, params: [] });
    await b.close();
    rmSync(dir, { recursive: true, force: true });
    // 1kxun.pcap: 197 flows, of which the idle timeout ends 168 during the replay
    expect(new Set(rows.map((r) => r.FLOW_ID)).size).toBe(197);
    const theirs = theirConversations(views.get(CAPTURES[0]!)!);
    const ours = ourConversations(rows);
    for (const [k, d] of theirs) expect(ours.get(k), k).toEqual(d);
  });

  it('runs without history when ClickHouse cannot be reached (one line, exit 0)', () => {
    buildDist();
    const dir = mkdtempSync(join(tmpdir(), 'flowgate-cli-'));
    const out = execFileSync(
      process.execPath,
      ['bin/flowgate.js', '-i', files[1]!, '--exit-when-done', '--http-port', '0', '--egress-port', '0', '-q', '--data-dir', dir, '--clickhouse', 'http://127.0.0.1:9/flows'],
      { encoding: 'utf8' },
    );
    expect(out).toMatch(/flowgate: historical store: unavailable, flows are not stored \(.*cannot reach the server/);
    rmSync(dir, { recursive: true, force: true });
  });
});
