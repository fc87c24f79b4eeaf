// The flows-database endpoints (ntopng's /lua/pro/rest/…/get/db/*) on the
// real service: captures replayed with the historical store (flows flushed at
// the end), then where / group / order / topk / top_conversations answers
// checked against totals computed here from tshark's reading of the same
// captures; every injection-corpus clause answered -5 over HTTP; -3 without
// the historical permission; an unprivileged user sees only his networks;
// unknown ifid -2, no store -6. The same suite against a real ClickHouse.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bytesToSize } from '../ts/services/store/query/format.js';
import { addUser, startApi, type ApiService } from './fixtures/api.js';
import { clickhouseSkip, startClickHouse, type ClickHouseServer } from './fixtures/clickhouse.js';
import { BOUND, INJECTION } from './fixtures/query-corpus.js';
import { NDPI_PCAPS, normIp, tool } from './fixtures/util.js';

// 1kxun.pcap: IPv4 + IPv6, TCP + UDP (every IP packet a plain TCP/UDP/ICMP one)
// googledns_android10.pcap: ICMP echo and DNS over 255 s (no periodic snapshot)
const CAPTURES = ['1kxun.pcap', 'googledns_android10.pcap'];
const files = CAPTURES.map((c) => join(NDPI_PCAPS, c));

const pro = (v: 'v0' | 'v1' | 'v2', p: string) => `/lua/pro/rest/${v === 'v0' ? '' : `${v}/`}${p}.lua`;
const ALL = { begin_time_clause: 0, end_time_clause: 0xffffffff };

interface Frame {
  len: number;
  t: number;
  v: 4 | 6;
  src: string;
  dst: string;
  proto: number;
  sport: number;
  dport: number;
}

/** Per IP frame (outer header): length, time, addresses, L4 protocol and ports, as tshark reads them. */
function frames(file: string): Frame[] {
  const out = tool('tshark', [
    '-n', '-r', file, '-T', 'fields', '-E', 'occurrence=f', '-E', 'separator=\t',
    '-e', 'frame.len', '-e', 'frame.time_epoch', '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst',
    '-e', 'ip.proto', '-e', 'ipv6.nxt', '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'udp.srcport', '-e', 'udp.dstport',
  ]);
  const res: Frame[] = [];
  for (const l of out.split('\n')) {
    if (!l) continue;
    const [len, t, s4, d4, s6, d6, p4, p6, ts, td, us, ud] = l.split('\t');
    if (!s4 && !s6) continue;
    const proto = Number(s4 ? p4 : p6);
    res.push({
      len: Number(len),
      t: Number(t),
      v: s4 ? 4 : 6,
      src: normIp(s4 || s6),
      dst: normIp(d4 || d6),
      proto,
      sport: Number(proto === 6 ? ts : proto === 17 ? us : 0) || 0,
      dport: Number(proto === 6 ? td : proto === 17 ? ud : 0) || 0,
    });
  }
  return res;
}

const sum = (fs: Frame[]) => ({ bytes: fs.reduce((a, f) => a + f.len, 0), packets: fs.length });
const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

describe.each([
  ['duckdb', null],
  ['clickhouse', clickhouseSkip],
] as const)('flows database on %s', (store, skip) => {
  let s: ApiService;
  let ch: ClickHouseServer | undefined;
  let kx: Frame[];
  let gd: Frame[];

  beforeAll(async () => {
    if (skip) return;
    kx = frames(files[0]);
    gd = frames(files[1]);
    if (store === 'clickhouse') ch = await startClickHouse();
    s = await startApi({
      files,
      // one row per flow (no periodic snapshots): the window truth below is per flow
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: store === 'clickhouse' ? { clickhouse: { url: ch!.url('flowgate') } } : true,
    });
    expect(s.history, s.printed.join('\n')).not.toBeNull();
    await addUser(s, { username: 'nohist', password: 'pw-nohist-1', allow_historical_flows: '0' });
    await addUser(s, { username: 'net', password: 'pw-net-12345', allowed_networks: '192.168.5.16/32', allow_historical_flows: '1' });
  });
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  const flows = async (q: Record<string, string | number | undefined>, o: { v?: 'v0' | 'v1' | 'v2'; user?: string; pw?: string; ifid?: number } = {}) => {
    const r = await s.call(pro(o.v ?? 'v2', 'get/db/flows'), { query: { ifid: o.ifid ?? 0, ...ALL, ...q }, user: o.user, pw: o.pw });
    return r;
  };
  const rsp = async (q: Record<string, string | number | undefined>, o?: Parameters<typeof flows>[1]) => {
    const r = await flows(q, o);
    expect(r.body?.rc, r.text).toBe(0);
    return r.body.rsp as Record<string, string>[];
  };

  it.skipIf(!!skip)("where: one host's TCP flows (ntopng's python-client form) add up to tshark's frames", async () => {
    const host = '192.168.115.8';
    const truth = sum(kx.filter((f) => f.proto === 6 && (f.src === host || f.dst === host)));
    expect(truth.packets).toBeGreaterThan(100);
    const r = await rsp({
      select_clause: 'SUM(TOTAL_BYTES) AS bytes, SUM(PACKETS) AS pkts, COUNT(*) n',
      where_clause: `(IP_PROTOCOL_VERSION=4) AND (IPV4_SRC_ADDR=("${host}") OR IPV4_DST_ADDR=("${host}")) AND (PROTOCOL=6)`,
    });
    expect(r).toHaveLength(1);
    expect(r[0].bytes).toBe(String(truth.bytes));
    expect(r[0].pkts).toBe(String(truth.packets));
    // every value a string, IPv4 dotted: the flows themselves
    const rows = await rsp({ select_clause: 'IPV4_SRC_ADDR,IPV4_DST_ADDR,PROTOCOL,IP_SRC_PORT,IP_DST_PORT,L7_PROTO,FIRST_SEEN', where_clause: `IPV4_SRC_ADDR = ("${host}") AND PROTOCOL = 6`, maxhits_clause: 10000 });
    expect(rows.length).toBeGreaterThan(0);
    for (const x of rows) {
      expect(x.IPV4_SRC_ADDR).toBe(host);
      expect(x.PROTOCOL).toBe('6');
      expect(Object.values(x).every((v) => typeof v === 'string')).toBe(true);
      // the flow's first packet as tshark timed it
      const first = kx.filter((f) => f.proto === 6 && f.src === host && f.dst === x.IPV4_DST_ADDR && f.sport === Number(x.IP_SRC_PORT) && f.dport === Number(x.IP_DST_PORT));
      expect(first.length, JSON.stringify(x)).toBeGreaterThan(0);
      expect(Number(x.FIRST_SEEN)).toBe(Math.floor(Math.min(...first.map((f) => f.t))));
    }
  });

  it.skipIf(!!skip)('group by and order by: bytes and packets per L4 protocol, largest first', async () => {
    const r = await rsp({
      select_clause: 'PROTOCOL, SUM(TOTAL_BYTES) AS bytes, SUM(PACKETS) AS pkts',
      where_clause: 'PROTOCOL IN (6, 17)',
      group_by_clause: 'PROTOCOL',
      order_by_clause: 'bytes DESC',
    });
    const want = [6, 17]
      .map((p) => ({ PROTOCOL: String(p), ...sum(kx.filter((f) => f.proto === p)) }))
      .sort((a, b) => b.bytes - a.bytes)
      .map((x) => ({ PROTOCOL: x.PROTOCOL, bytes: String(x.bytes), pkts: String(x.packets) }));
    expect(r).toEqual(want);
  });

  it.skipIf(!!skip)("group by client and server (ntopng's IPV4_DST_ADDR_FORMATTED spelling): each IPv4 pair's bytes", async () => {
    const r = await rsp({
      select_clause: 'IPV4_SRC_ADDR, IPV4_DST_ADDR, SUM(TOTAL_BYTES) TOT',
      where_clause: 'IP_PROTOCOL_VERSION = 4',
      group_by_clause: 'IPV4_SRC_ADDR_FORMATTED, IPV4_DST_ADDR_FORMATTED',
      order_by_clause: 'TOT DESC',
      maxhits_clause: 10000,
    });
    for (let i = 1; i < r.length; i++) expect(Number(r[i - 1].TOT)).toBeGreaterThanOrEqual(Number(r[i].TOT));
    const got = new Map<string, number>();
    for (const x of r) got.set(pairKey(x.IPV4_SRC_ADDR, x.IPV4_DST_ADDR), (got.get(pairKey(x.IPV4_SRC_ADDR, x.IPV4_DST_ADDR)) ?? 0) + Number(x.TOT));
    const want = new Map<string, number>();
    for (const f of kx) if (f.v === 4) want.set(pairKey(f.src, f.dst), (want.get(pairKey(f.src, f.dst)) ?? 0) + f.len);
    expect(Object.fromEntries([...got].sort())).toEqual(Object.fromEntries([...want].sort()));
  });

  it.skipIf(!!skip)('topk_flows: by protocol and by IP version, every version; defaults answer the three default keys', async () => {
    for (const v of ['v0', 'v1', 'v2'] as const) {
      const r = await s.call(pro(v, 'get/db/topk_flows'), { query: { ifid: 0, ...ALL, select_keys_clause: 'PROTOCOL', select_values_clause: 'PACKETS', topk_clause: 'SUM', maxhits_clause: 2, where_clause: 'PROTOCOL IN (6, 17)' } });
      expect(r.status, r.text).toBe(200);
      const body = v === 'v0' ? r.body : r.body.rsp;
      const want = [6, 17].map((p) => ({ PROTOCOL: String(p), PACKETS: String(sum(kx.filter((f) => f.proto === p)).packets) })).sort((a, b) => Number(b.PACKETS) - Number(a.PACKETS));
      expect(body).toEqual(want);
    }
    const byVersion = await s.call(pro('v2', 'get/db/topk_flows'), { query: { ifid: 0, ...ALL, select_keys_clause: 'IP_PROTOCOL_VERSION', approx_search: 'false' } });
    const vbytes = (v: 4 | 6) => String(sum(kx.filter((f) => f.v === v)).bytes);
    expect(byVersion.body.rsp).toEqual([{ IP_PROTOCOL_VERSION: '4', BYTES: vbytes(4) }, { IP_PROTOCOL_VERSION: '6', BYTES: vbytes(6) }].sort((a, b) => Number(b.BYTES) - Number(a.BYTES)));
    const dflt = await s.call(pro('v2', 'get/db/topk_flows'), { query: { ifid: 0, ...ALL } });
    expect(dflt.body.rsp).toHaveLength(10);
    expect(Object.keys(dflt.body.rsp[0])).toEqual(['IPV4_SRC_ADDR', 'IPV4_DST_ADDR', 'L7_PROTO', 'BYTES']);
    const bad = await s.call(pro('v2', 'get/db/topk_flows'), { query: { ifid: 0, ...ALL, topk_clause: 'SLEEP' } });
    expect([bad.status, bad.body.rc]).toEqual([400, -5]);
  });

  it.skipIf(!!skip)('v0 bare array, v1 envelope; the python client POSTs JSON with epoch_begin/epoch_end', async () => {
    const q = { select_clause: 'COUNT(*) n', where_clause: 'PROTOCOL = 17' };
    const v0 = await flows(q, { v: 'v0' });
    expect(v0.status).toBe(200);
    const v1 = await flows(q, { v: 'v1' });
    expect(v1.body).toMatchObject({ rc: 0, rc_str: 'OK', rsp: v0.body });
    const py = await s.call(pro('v2', 'get/db/flows'), {
      json: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, select_clause: 'COUNT(*) n', where_clause: 'PROTOCOL = 17', maxhits_clause: 10, group_by_clause: '', order_by_clause: '' },
    });
    expect(py.body.rsp).toEqual(v0.body);
    // v0/v1 have no group_by_clause: it is not taken
    expect((await flows({ ...q, group_by_clause: 'PROTOCOL' }, { v: 'v1' })).body.rc).toBe(0);
    const missing = await s.call(pro('v2', 'get/db/flows'), { query: { ifid: 0 } });
    expect([missing.status, missing.body.rc]).toEqual([400, -5]);
    expect(missing.body.rc_str_detail).toMatch(/begin_time_clause and end_time_clause/);
  });

  it.skipIf(!!skip)('the interface is ifid; the window keeps flows wholly inside it (FIRST_SEEN >= begin AND LAST_SEEN <= end)', async () => {
    const all = await rsp({ select_clause: 'SUM(TOTAL_BYTES) b' }, { ifid: 1 });
    expect(all[0].b).toBe(String(sum(gd).bytes));
    // per flow (unordered 5-tuple) its first and last second; a window in the
    // middle of 1kxun's first burst (2016-08-02 02:19 … 02:21)
    const span = new Map<string, { a: number; z: number; bytes: number }>();
    for (const f of kx) {
      const k = `${f.proto}|${pairKey(`${f.src}#${f.sport}`, `${f.dst}#${f.dport}`)}`;
      const e = span.get(k) ?? { a: Infinity, z: -Infinity, bytes: 0 };
      e.a = Math.min(e.a, Math.floor(f.t));
      e.z = Math.max(e.z, Math.floor(f.t));
      e.bytes += f.len;
      span.set(k, e);
    }
    const t0 = Math.floor(Math.min(...kx.map((f) => f.t)));
    const [b, e] = [t0 + 20, t0 + 90];
    const inside = [...span.values()].filter((x) => x.a >= b && x.z <= e);
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.length).toBeLessThan(span.size);
    const r = await rsp({ select_clause: 'SUM(TOTAL_BYTES) b, COUNT(*) n', begin_time_clause: b, end_time_clause: e });
    expect(r[0]).toEqual({ b: String(inside.reduce((a, x) => a + x.bytes, 0)), n: String(inside.length) });
    const bad = await flows({ begin_time_clause: e, end_time_clause: b }, { ifid: 1 });
    expect([bad.status, bad.body.rc]).toEqual([400, -5]);
    const unknown = await flows({}, { ifid: 7 });
    expect([unknown.status, unknown.body.rc]).toEqual([400, -2]);
  });

  it.skipIf(!!skip)('historical_db_search top_conversations as the python client asks for it', async () => {
    const host = '192.168.5.16';
    const r = await s.call(pro('v2', 'get/db/historical_db_search'), {
      query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, query_preset: 'top_conversations', order: 'DESC', start: 0, length: 10, sort: 'bytes', visible_columns: 'cli_ip,srv_ip,bytes', ip: `${host};eq` },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rc).toBe(0);
    const recs = r.body.rsp.records as { cli_ip: { ip: string }; srv_ip: { ip: string }; cli_name: string; srv_name: string; bytes: string; count: string }[];
    // tshark: bytes per peer of the host
    const peers = new Map<string, number>();
    for (const f of kx) if (f.src === host || f.dst === host) peers.set(f.src === host ? f.dst : f.src, (peers.get(f.src === host ? f.dst : f.src) ?? 0) + f.len);
    // each conversation of this host has one orientation here: one record per peer
    expect(r.body.recordsTotal).toBe(peers.size);
    expect(r.body.recordsFiltered).toBe(peers.size);
    const top = [...peers].sort((a, b) => b[1] - a[1]).slice(0, 10);
    expect(recs.map((x) => [x.cli_ip.ip === host ? x.srv_ip.ip : x.cli_ip.ip, x.bytes])).toEqual(top.map(([p, b]) => [p, bytesToSize(b)]));
    for (const x of recs) expect(typeof x.cli_name).toBe('string');
    expect(r.body.rsp.stats.num_records_processed).toMatch(/^Processed [\d,]+ records \[[\d,]+ records\/sec\]$/);
    expect(typeof r.body.rsp.stats.query_duration_msec).toBe('number');
    const bad = await s.call(pro('v2', 'get/db/historical_db_search'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 1, query_preset: 'top_conversations', ip: "x' OR 1=1;eq" } });
    expect([bad.status, bad.body.rc]).toEqual([400, -5]);
  });

  it.skipIf(!!skip)('columns_info lists every column with ntopng tags', async () => {
    const r = await s.call(pro('v2', 'get/db/columns_info'));
    expect(r.body.rc).toBe(0);
    const cols = r.body.rsp as { column_name: string; tag?: string; db_type: string }[];
    expect(cols.find((c) => c.column_name === 'IPV4_SRC_ADDR')).toMatchObject({ tag: 'cli_ip', db_type: 'Number', db_raw_type: 'Uint32' });
    expect(cols.find((c) => c.column_name === 'IPV6_DST_ADDR')).toMatchObject({ tag: 'srv_ip', db_type: 'IPv6' });
    expect(cols.find((c) => c.column_name === 'FIRST_SEEN')).toMatchObject({ tag: 'first_seen', db_type: 'DateTime' });
    // the spec's spelling of the instance column is ntopng's NTOPNG_INSTANCE_NAME
    const inst = await rsp({ select_clause: 'NTOPNG_INSTANCE_NAME, MONITOR_INSTANCE_NAME', maxhits_clause: 1 });
    expect(inst[0].MONITOR_INSTANCE_NAME).toBe(inst[0].NTOPNG_INSTANCE_NAME);
    expect(inst[0].NTOPNG_INSTANCE_NAME.length).toBeGreaterThan(0);
    // every listed column can be selected
    const names = cols.map((c) => c.column_name);
    const row = await rsp({ select_clause: names.join(','), maxhits_clause: 1 });
    expect(Object.keys(row[0])).toEqual(names);
  });

  it.skipIf(!!skip)('every injection-corpus clause is -5 over HTTP; hostile literals match nothing', async () => {
    for (const [name, c] of INJECTION) {
      // POSTed (as ntopng's python client does): a 100 KB clause does not fit in a URL
      const r = await s.call(pro('v2', 'get/db/flows'), {
        json: { ifid: 0, ...ALL, select_clause: c.select, where_clause: c.where, group_by_clause: c.groupBy, order_by_clause: c.orderBy, maxhits_clause: c.maxhits },
      });
      expect([r.status, r.body?.rc, name]).toEqual([400, -5, name]);
      expect(r.body.rc_str_detail).toMatch(/_clause/);
    }
    for (const where of BOUND) expect(await rsp({ select_clause: 'COUNT(*) n', where_clause: where }), where).toEqual([{ n: '0' }]);
    // the store is intact
    expect((await rsp({ select_clause: 'SUM(TOTAL_BYTES) b', where_clause: 'PROTOCOL IN (6, 17)' }))[0].b).toBe(String(sum(kx.filter((f) => f.proto === 6 || f.proto === 17)).bytes));
  });

  it.skipIf(!!skip)('-3 without the historical permission; an unprivileged user sees only his networks', async () => {
    for (const p of ['get/db/flows', 'get/db/topk_flows', 'get/db/columns_info', 'get/db/historical_db_search']) {
      const r = await s.call(pro('v2', p), { query: { ifid: 0, ...ALL, epoch_begin: 0, epoch_end: 1, query_preset: 'top_conversations' }, user: 'nohist', pw: 'pw-nohist-1' });
      expect([p, r.status, r.body.rc]).toEqual([p, 401, -3]);
    }
    const host = '192.168.5.16';
    const truth = sum(kx.filter((f) => f.src === host || f.dst === host));
    const mine = await rsp({ select_clause: 'SUM(TOTAL_BYTES) b, SUM(PACKETS) p' }, { user: 'net', pw: 'pw-net-12345' });
    expect(mine).toEqual([{ b: String(truth.bytes), p: String(truth.packets) }]);
    // asking for someone else's flows finds nothing
    const other = await rsp({ select_clause: 'COUNT(*) n', where_clause: 'IPV4_SRC_ADDR = ("192.168.115.8")' }, { user: 'net', pw: 'pw-net-12345' });
    expect(other).toEqual([{ n: '0' }]);
    const top = await s.call(pro('v2', 'get/db/topk_flows'), { query: { ifid: 0, ...ALL, select_keys_clause: 'IP_PROTOCOL_VERSION' }, user: 'net', pw: 'pw-net-12345' });
    expect(top.body.rsp).toEqual([{ IP_PROTOCOL_VERSION: '4', BYTES: String(truth.bytes) }]);
  });

  it.skipIf(!!skip || store !== 'clickhouse')('a store that went away is -6 with the reason, and the live API still answers', async () => {
    await ch!.kill();
    const r = await flows({ select_clause: 'COUNT(*) n' });
    expect([r.status, r.body.rc]).toEqual([500, -6]);
    expect(r.body.rc_str_detail).toMatch(/^historical flows store unavailable: /);
    expect((await s.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } })).body.rc).toBe(0);
  });
});

describe('without a store', () => {
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [files[1]] });
  });
  afterAll(async () => {
    await s?.close();
  });
  it('answers -6 with the reason', async () => {
    const r = await s.call(pro('v2', 'get/db/flows'), { query: { ifid: 0, ...ALL } });
    expect([r.status, r.body.rc]).toEqual([500, -6]);
    expect(r.body.rc_str_detail).toMatch(/historical flows store is not available/);
  });
});
