// The monitoring API's envelope, per-version shapes, parameter sources and
// path spellings, interface totals against capinfos/tshark, every return
// code the interface/host/flow/user endpoints list (with its HTTP status),
// and the OpenAPI document against the route table.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { routeUrls } from '../ts/api/route.js';
import { routes } from '../ts/api/routes.js';
import { measured } from '../ts/services/periodic.js';
import { ADMIN_PASSWORD, addUser, startApi, v0, v1, v2, type ApiService, type CallResult } from './fixtures/api.js';
import { tsharkView, type TsharkView } from './fixtures/tshark.js';
import { NDPI_PCAPS, tool } from './fixtures/util.js';

// 1kxun: Ethernet, IPv4 + IPv6, TCP + UDP; whois: 802.1Q (VLANs 1603, 1908
// and untagged). Both agree exactly with tshark (truth-tshark.test.ts).
const KXUN = join(NDPI_PCAPS, '1kxun.pcap');
const WHOIS = join(NDPI_PCAPS, 'whois.pcapng');

let s: ApiService;
let view: TsharkView;
beforeAll(async () => {
  [s, view] = await Promise.all([startApi({ files: [KXUN, WHOIS] }), tsharkView(KXUN)]);
});
afterAll(async () => {
  await s?.close();
});

/** rc, rc_str and the HTTP status rc.ts gives that rc (ntopng's rest_utils). */
const HTTP: Record<number, number> = { 0: 200, [-1]: 404, [-2]: 400, [-3]: 401, [-4]: 400, [-5]: 400, [-6]: 500, [-7]: 400, [-19]: 400, [-20]: 409, [-21]: 409, [-23]: 409, [-24]: 400 };
const RC_STR: Record<number, string> = {
  0: 'OK', [-1]: 'NOT_FOUND', [-2]: 'INVALID_INTERFACE', [-3]: 'NOT_GRANTED', [-4]: 'INVALID_HOST', [-5]: 'INVALID_ARGUMENTS',
  [-6]: 'INTERNAL_ERROR', [-7]: 'BAD_FORMAT', [-19]: 'PASSWORD_MISMATCH', [-20]: 'ADD_USER_FAILED', [-21]: 'DELETE_USER_FAILED',
  [-23]: 'USER_ALREADY_EXISTING', [-24]: 'EDIT_USER_FAILED',
};

/**
 * rc_str_hr: ntopng's fixed text of the rc_str (rest_utils.rc reads its English locale's
 * rest_consts, "Unknown" for a name it has no text for); details go to rc_str_detail.
 */
const HR: Record<string, string> = {
  OK: 'Success', NOT_FOUND: 'Not found', INVALID_INTERFACE: 'Invalid interface', NOT_GRANTED: 'Not authorized', INVALID_HOST: 'Invalid host',
  INVALID_ARGUMENTS: 'Invalid arguments', INTERNAL_ERROR: 'Internal error', BAD_FORMAT: 'Bad format',
};

function expectRc(r: CallResult, rc: number, rcStr = RC_STR[rc]) {
  expect({ status: r.status, rc: r.body?.rc, rc_str: r.body?.rc_str }, r.text.slice(0, 300)).toEqual({ status: HTTP[rc], rc, rc_str: rcStr });
  expect(r.body.rc_str_hr).toBe(HR[rcStr!] ?? 'Unknown');
  expect(r.body).toHaveProperty('rsp');
}

/** After a bad request, the service still answers a good one. */
async function stillServing() {
  const r = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
  expect(r.status).toBe(200);
  expect(r.body.rc).toBe(0);
}

const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

describe('envelope and interface data shapes', () => {
  it('v1 and v2 wrap the answer in {rc, rc_str, rc_str_hr, rsp}', async () => {
    for (const mk of [v1, v2]) {
      const r = await s.call(mk('get/interface/data'), { query: { ifid: 0 } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(Object.keys(r.body).sort()).toEqual(['rc', 'rc_str', 'rc_str_hr', 'rsp']);
      expect(r.body).toMatchObject({ rc: 0, rc_str: 'OK' });
      expect(typeof r.body.rsp).toBe('object');
    }
  });

  it('v1/v2 interface data has the spec fields with their types', async () => {
    const r = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    const d = r.body.rsp;
    expect(d.ifid).toBe('0');
    expect(d.ifname).toBe(KXUN);
    for (const k of ['uptime', 'localtime']) expect(typeof d[k], k).toBe('string');
    for (const k of ['num_local_hosts', 'bytes', 'bytes_upload', 'bytes_download', 'packets', 'packets_upload', 'packets_download',
      'num_flows', 'drops', 'alerted_flows', 'remote2local', 'local2remote', 'num_live_captures', 'periodic_stats_update_frequency_secs',
      'dropped_alerts', 'epoch', 'speed', 'num_hosts', 'num_devices', 'engaged_alerts']) {
      expect(isInt(d[k]), `${k} = ${JSON.stringify(d[k])}`).toBe(true);
    }
    for (const k of ['remote_bps', 'remote_pps', 'throughput_bps', 'throughput_pps', 'hosts_pctg', 'macs_pctg', 'flows_pctg']) {
      expect(isNum(d[k]), k).toBe(true);
    }
    for (const k of ['has_alerts', 'is_view']) expect(typeof d[k], k).toBe('boolean');
    expect(Array.isArray(d.ts_alerts)).toBe(true);
    expect(typeof d.profiles === 'object' && !Array.isArray(d.profiles)).toBe(true);
    for (const dir of ['download', 'upload']) for (const k of ['pps', 'bps']) expect(isNum(d.throughput[dir][k]), `${dir}.${k}`).toBe(true);
    // ntopng's v2 fields of a packet interface without probes, discovery or recording
    expect(d).toMatchObject({ tot_nprobe_pkts: 0, tot_pkt_drops: 0, active_discovery_active: false });
    for (const dir of ['download', 'upload']) expect(d.download_upload_chart[dir].length, dir).toBe(30);
    for (const k of ['traffic_recording', 'traffic_extraction', 'traffic_extraction_num_tasks']) expect(d, k).not.toHaveProperty(k);
    for (const k of ['retransmissions', 'lost', 'out_of_order']) expect(isInt(d.tcpPacketStats[k]), k).toBe(true);
    const sys = d.system_host_stats;
    for (const k of ['mem_total', 'mem_used', 'mem_free', 'mem_cached', 'mem_buffers', 'mem_shmem', 'mem_sreclaimable',
      'mem_ntopng_resident', 'mem_ntopng_virtual', 'dropped_alerts', 'alerts_queries', 'written_alerts']) {
      expect(isInt(sys[k]), `system_host_stats.${k}`).toBe(true);
    }
    expect(isNum(sys.cpu_load)).toBe(true);
    expect(Object.keys(sys.cpu_states).sort()).toEqual(['guest', 'guest_nice', 'idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user']);
    expect(sys.mem_ntopng_resident).toBeGreaterThan(0);
    // epoch is the current time in seconds (not ms)
    expect(Math.abs(d.epoch - Date.now() / 1000)).toBeLessThan(3600);
  });

  it("ntopng's units and rounding: throughputs in bytes per second (its pages multiply by 8), table fill floor(1 + n·100/max)", async () => {
    const e = s.ifaces.get(0)!.engine;
    const st = e.stats();
    const d = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    // the engine's throughput is bits per second
    expect(d.throughput_bps * 8).toBeCloseTo(st.throughput_bps, 6);
    expect(d.hosts_pctg).toBe(Math.floor(1 + (st.num_hosts * 100) / st.max_hosts));
    expect(d.flows_pctg).toBe(Math.floor(1 + (st.num_flows * 100) / st.max_flows));
    expect(d.macs_pctg).toBe(Math.floor(1 + (st.num_devices * 100) / st.max_hosts));
    for (const k of ['hosts_pctg', 'flows_pctg', 'macs_pctg']) expect(isInt(d[k]) && d[k] >= 1, k).toBe(true);
    // a host's data the same (the host list's thpt.bps stays bits, as ntopng's list converts it)
    const list = (await s.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } })).body.rsp.data as { ip: string; thpt: { bps: number } }[];
    const rows = e.hosts({ limit: 1000 }).rows;
    for (const h of list.slice(0, 5)) {
      const hd = (await s.call(v2('get/host/data'), { query: { ifid: 0, host: h.ip } })).body.rsp;
      const row = rows.find((r) => r.ip === h.ip)!;
      expect([hd.throughput_bps * 8, h.thpt.bps]).toEqual([row.throughput_bps, row.throughput_bps]);
    }
  });

  it("iffilter (v1, v2) in place of ifid, all: every interface by its id; v2 type=summary: the brief record ntopng's footer polls", async () => {
    const strip = (d: any) => ({ ...d, epoch: 0, localtime: '', uptime: '', system_host_stats: {} });
    for (const mk of [v1, v2]) {
      const byId = (await s.call(mk('get/interface/data'), { query: { ifid: 1 } })).body.rsp;
      const one = await s.call(mk('get/interface/data'), { query: { iffilter: 1 } });
      expect(one.body.rc, one.text.slice(0, 200)).toBe(0);
      expect(strip(one.body.rsp)).toEqual(strip(byId));
      const all = (await s.call(mk('get/interface/data'), { query: { iffilter: 'all' } })).body.rsp;
      expect(Object.keys(all).sort()).toEqual(['0', '1']);
      expect(strip(all['1'])).toEqual(strip(byId));
    }
    // neither: -2, as without ifid
    expect((await s.call(v2('get/interface/data'), { query: {} })).body.rc).toBe(-2);
    const full = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    const sum = await s.call(v2('get/interface/data'), { query: { ifid: 0, type: 'summary' } });
    expect(sum.body.rc, sum.text.slice(0, 200)).toBe(0);
    const b = sum.body.rsp;
    // throughput each way a plain number (footer.lua: rsp.throughput.upload * 8)
    expect(b.throughput).toEqual({ download: full.throughput.download.bps, upload: full.throughput.upload.bps });
    for (const k of ['num_flows', 'num_hosts', 'num_local_hosts', 'num_devices', 'hosts_pctg', 'flows_pctg', 'macs_pctg', 'drops', 'alerted_flows', 'engaged_alerts']) expect(b[k], k).toBe(full[k]);
    expect(b).toMatchObject({ ifid: '0', ifname: KXUN, is_loading: false });
    for (const k of ['bytes', 'packets', 'tcpPacketStats', 'download_upload_chart', 'system_host_stats']) expect(b, k).not.toHaveProperty(k);
  });

  it("degraded_performance (v1, v2): present while a periodic activity's last run overran its period, as ntopng's flag", async () => {
    const flag = async (mk: typeof v1) => (await s.call(mk('get/interface/data'), { query: { ifid: 0 } })).body.rsp.degraded_performance;
    expect(await flag(v2)).toBeUndefined();
    // an activity due every 10 ms whose run takes 30 ms
    await measured('test overrun', 0.01, () => new Promise((r) => setTimeout(r, 30)));
    expect(await flag(v2)).toBe(true);
    expect(await flag(v1)).toBe(true);
    // its next run keeps within the period: the flag goes
    await measured('test overrun', 0.01, () => undefined);
    expect(await flag(v2)).toBeUndefined();
  });

  it('v2 groups the export counters in db, v1 has them at top level', async () => {
    const [a, b] = await Promise.all([
      s.call(v1('get/interface/data'), { query: { ifid: 0 } }),
      s.call(v2('get/interface/data'), { query: { ifid: 0 } }),
    ]);
    const keys = ['flow_export_count', 'flow_export_drops', 'flow_export_rate'];
    for (const k of keys) {
      expect(isNum(a.body.rsp[k]), `v1 ${k}`).toBe(true);
      expect(b.body.rsp, `v2 ${k} at top level`).not.toHaveProperty(k);
      expect(isNum(b.body.rsp.db?.[k]), `v2 db.${k}`).toBe(true);
    }
    expect(a.body.rsp).not.toHaveProperty('db');
    expect(Object.keys(b.body.rsp.db).sort()).toEqual(keys);
  });

  it('v0 interface data is a bare object with the spec field list', async () => {
    const r = await s.call(v0('get/interface/data'), { query: { ifid: 0 } });
    expect(r.status).toBe(200);
    const d = r.body;
    expect(d).not.toHaveProperty('rc');
    expect(d).not.toHaveProperty('rsp');
    for (const k of ['num_flows', 'num_hosts', 'uptime', 'alerts_stored', 'num_live_captures', 'num_local_hosts', 'flows_pctg', 'tcpPacketStats',
      'ifname', 'bytes_download', 'bytes_upload', 'bytes', 'packets', 'remote_pps', 'remote_bps', 'epoch', 'drops', 'remote2local',
      'local2remote', 'engaged_alerts', 'system_host_stats', 'is_view', 'hosts_pctg', 'num_devices', 'localtime', 'profiles', 'speed']) {
      expect(d, k).toHaveProperty(k);
    }
    expect(typeof d.alerts_stored).toBe('boolean');
    expect(Array.isArray(d.profiles)).toBe(true);
    expect(isNum(d.system_host_stats.cpu_idle)).toBe(true);
    expect(isNum(d.system_host_stats.cpu_load)).toBe(true);
    expect(isInt(d.system_host_stats.mem_total)).toBe(true);
    expect(d.ifname).toBe(KXUN);
  });

  it('interface totals agree with capinfos and tshark', async () => {
    const [c, r0, r1] = await Promise.all([
      Promise.resolve(tool('capinfos', ['-T', '-r', '-M', '-c', '-d', KXUN]).trim().split('\t')),
      s.call(v2('get/interface/data'), { query: { ifid: 0 } }),
      s.call(v0('get/interface/data'), { query: { ifid: 0 } }),
    ]);
    const d = r0.body.rsp;
    expect(d.packets).toBe(Number(c[1]));
    expect(d.bytes).toBe(Number(c[2]));
    expect(d.packets).toBe(view.frames.length);
    expect(d.bytes).toBe(view.frames.reduce((a, f) => a + f.len, 0));
    expect([r1.body.packets, r1.body.bytes]).toEqual([d.packets, d.bytes]);
    // hosts: tshark's IPv4 + IPv6 endpoints; flows: its TCP + UDP conversations (1kxun has no other IP protocol)
    expect(d.num_hosts).toBe(view.endpoints.length);
    expect(d.num_flows).toBe(view.conv.tcp.length + view.conv.udp.length);
    expect(d.packets_upload + d.packets_download).toBeLessThanOrEqual(d.packets);
    expect(d.bytes_upload).toBe(d.local2remote);
    expect(d.bytes_download).toBe(d.remote2local);
  });

  it('the second interface (802.1Q capture) has its own totals', async () => {
    const c = tool('capinfos', ['-T', '-r', '-M', '-c', '-d', WHOIS]).trim().split('\t');
    const r = await s.call(v2('get/interface/data'), { query: { ifid: 1 } });
    expect(r.body.rsp).toMatchObject({ ifid: '1', ifname: WHOIS, packets: Number(c[1]), bytes: Number(c[2]) });
  });
});

describe('parameters and path spellings', () => {
  /** An answer without the parts that change between two requests. */
  const stable = (b: any) => {
    const { epoch: _e, localtime: _l, uptime: _u, system_host_stats: _s, throughput: _t, throughput_bps: _b, throughput_pps: _p, ...rest } = b.rsp;
    return { ...b, rsp: rest };
  };

  it('query string, form body and JSON body give the same answer', async () => {
    const p = { ifid: 0, perPage: 7, currentPage: 2, sortColumn: 'traffic', sortOrder: 'desc' };
    const [q, f, j, jn] = await Promise.all([
      s.call(v2('get/host/active'), { query: p }),
      s.call(v2('get/host/active'), { form: p }),
      s.call(v2('get/host/active'), { json: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])) }),
      // JSON numbers, as ntopng's own examples send ifid
      s.call(v2('get/host/active'), { json: p }),
    ]);
    expect(q.body.rc).toBe(0);
    expect(q.body.rsp.data).toHaveLength(7);
    expect(q.body.rsp.currentPage).toBe(2);
    expect(f.body).toEqual(q.body);
    expect(j.body).toEqual(q.body);
    expect(jn.body).toEqual(q.body);
  });

  it('interface data by query, form and JSON agree', async () => {
    const [q, f, j] = await Promise.all([
      s.call(v2('get/interface/data'), { query: { ifid: 1 } }),
      s.call(v2('get/interface/data'), { form: { ifid: 1 } }),
      s.call(v2('get/interface/data'), { json: { ifid: '1' } }),
    ]);
    expect(stable(f.body)).toEqual(stable(q.body));
    expect(stable(j.body)).toEqual(stable(q.body));
    expect(q.body.rsp.ifid).toBe('1');
  });

  it('get/monitor/interfaces and get/ntopng/interfaces both answer, alike', async () => {
    // name: ntopng's shortenCollapse at 24 characters (the first and last 10 around '...'), by hand
    const short = (n: string) => (n.length > 24 ? `${n.slice(0, 10)}...${n.slice(-10)}` : n);
    const want = [{ ifid: 0, ifname: KXUN, name: short(KXUN) }, { ifid: 1, ifname: WHOIS, name: short(WHOIS) }];
    expect(KXUN.length).toBeGreaterThan(24);
    for (const v of ['v1', 'v2']) {
      for (const word of ['monitor', 'ntopng']) {
        const r = await s.call(`/lua/rest/${v}/get/${word}/interfaces.lua`);
        expect(r.status, `${v} ${word}`).toBe(200);
        expect(r.body).toMatchObject({ rc: 0, rc_str: 'OK' });
        expect(r.body.rsp).toEqual(want);
      }
    }
  });

  it('the ntopng spelling of the user and session endpoints answers too', async () => {
    const add = await s.call('/lua/rest/v2/add/ntopng/user.lua', {
      form: { username: 'spelled', full_name: 'S', password: 'pw-spelled', confirm_password: 'pw-spelled', user_role: 'unprivileged' },
    });
    expectRc(add, 0);
    const sess = await s.call('/lua/rest/v2/create/ntopng/session.lua', { form: { username: 'spelled' } });
    expectRc(sess, 0);
    expect(typeof sess.body.rsp.session).toBe('string');
    const tok = await s.call('/lua/rest/v2/create/ntopng/api_token.lua', { form: { username: 'spelled' } });
    expectRc(tok, 0);
    const edit = await s.call('/lua/rest/v2/edit/ntopng/user.lua', { form: { username: 'spelled', full_name: 'Spelled' } });
    expectRc(edit, 0);
    const del = await s.call('/lua/rest/v2/delete/ntopng/user.lua', { form: { username: 'spelled' } });
    expectRc(del, 0);
  });

  it('GET and POST are both accepted on every endpoint', async () => {
    const [g, p] = await Promise.all([
      s.call(v2('get/flow/l4/counters'), { query: { ifid: 0 } }),
      s.call(v2('get/flow/l4/counters'), { method: 'POST', query: { ifid: 0 } }),
    ]);
    expect(g.body.rc).toBe(0);
    expect(p.body).toEqual(g.body);
  });
});

describe('return codes and their HTTP status', () => {
  it('ifid: missing, unknown and non-numeric are -2 (INVALID_INTERFACE)', async () => {
    for (const path of ['get/interface/data', 'get/host/active', 'get/flow/active', 'get/host/data', 'get/flow/l4/counters']) {
      for (const query of [{}, { ifid: 99 }, { ifid: 'abc' }, { ifid: '-1' }, { ifid: '0x1' }]) {
        const r = await s.call(v2(path), { query: { ...query, host: '192.168.2.126' } });
        expect(r.body?.rc, `${path} ${JSON.stringify(query)}`).toBe(-2);
        expectRc(r, -2);
      }
    }
    await stillServing();
  });

  it('v0 answers a bad ifid with HTTP 400', async () => {
    const r = await s.call(v0('get/interface/data'), { query: { ifid: 99 } });
    expect(r.status).toBe(400);
    await stillServing();
  });

  it('host data: missing host -5, malformed host -4, unknown host -1', async () => {
    expectRc(await s.call(v2('get/host/data'), { query: { ifid: 0 } }), -5);
    await stillServing();
    for (const host of ['not-an-ip', '192.168.2.300', '192.168.2.126@99999', '1.2.3.4/24', 'fe80:::1']) {
      const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host } });
      expect(r.body?.rc, host).toBe(-4);
      expectRc(r, -4);
    }
    await stillServing();
    for (const host of ['203.0.113.77', '2001:db8::1', '192.168.2.126@7']) {
      const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host } });
      expect(r.body?.rc, host).toBe(-1);
      expectRc(r, -1);
    }
    await stillServing();
  });

  it('host list and flow list: bad sortOrder, sortColumn, perPage=0 are -5', async () => {
    for (const path of ['get/host/active', 'get/flow/active']) {
      for (const q of [{ sortOrder: 'up' }, { sortColumn: 'bogus' }, { perPage: 0 }, { perPage: 'ten' }, { currentPage: 0 }]) {
        const r = await s.call(v2(path), { query: { ifid: 0, ...q } });
        expect(r.body?.rc, `${path} ${JSON.stringify(q)}`).toBe(-5);
        expectRc(r, -5);
        await stillServing();
      }
    }
  });

  it('no credentials or a wrong password: HTTP 401 with rc -3', async () => {
    for (const o of [{ user: null }, { user: 'admin', pw: 'wrong' }, { user: 'nobody', pw: 'x' }] as const) {
      const r = await s.call(v2('get/interface/data'), { ...o, query: { ifid: 0 } });
      expectRc(r, -3);
      await stillServing();
    }
    const v1r = await s.call(v1('get/monitor/interfaces'), { user: null });
    expectRc(v1r, -3);
    // v0 (cookie auth) without credentials: refused too
    const v0r = await s.call(v0('get/interface/data'), { user: null, query: { ifid: 0 } });
    expect(v0r.status).toBe(401);
    await stillServing();
  });

  it('a malformed JSON body is -7 (BAD_FORMAT)', async () => {
    for (const json of ['{"ifid": 0,', '{ifid: 0}', '[1,2', '"just a string"', '[1, 2]']) {
      const r = await s.call(v2('get/host/active'), { json });
      expect(r.body?.rc, json).toBe(-7);
      expectRc(r, -7);
      await stillServing();
    }
  });

  it('a body over 1 MiB is -5', async () => {
    const big = JSON.stringify({ ifid: 0, pad: 'x'.repeat((1 << 20) + 16) });
    const r = await s.call(v2('get/interface/data'), { json: big });
    expectRc(r, -5);
    await stillServing();
    const form = await s.call(v2('get/interface/data'), { form: { ifid: 0, pad: 'y'.repeat((1 << 20) + 16) } });
    expectRc(form, -5);
    await stillServing();
    // just under the limit is fine
    const ok = await s.call(v2('get/interface/data'), { json: JSON.stringify({ ifid: 0, pad: 'x'.repeat((1 << 20) - 100) }) });
    expectRc(ok, 0);
  });

  /** POSTs `chunks` as a chunked body (no Content-Length); `hold` keeps the body open after them until it resolves. */
  async function postChunked(path: string, chunks: Uint8Array[], hold?: Promise<unknown>) {
    const auth = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i < chunks.length) c.enqueue(chunks[i++]);
        else {
          await hold;
          c.close();
        }
      },
    });
    const res = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: JSON.parse(await res.text()) };
  }

  it('a chunked body over 1 MiB (no Content-Length) is -5, counted in bytes not characters', async () => {
    const enc = new TextEncoder();
    const ascii = enc.encode(JSON.stringify({ ifid: 0, pad: 'x'.repeat(1_500_000) }));
    const a = await postChunked(v2('get/interface/data'), [ascii.slice(0, 700_000), ascii.slice(700_000)]);
    expect([a.status, a.body.rc]).toEqual([400, -5]);
    await stillServing();
    // 600 000 × '€' = 1.8 MB of UTF-8 but fewer than 1 Mi characters
    const euro = enc.encode(JSON.stringify({ ifid: 0, pad: '€'.repeat(600_000) }));
    expect(euro.length).toBeGreaterThan(1 << 20);
    const chunks: Uint8Array[] = [];
    for (let o = 0; o < euro.length; o += 65536) chunks.push(euro.slice(o, o + 65536));
    const b = await postChunked(v2('get/interface/data'), chunks);
    expect([b.status, b.body.rc]).toEqual([400, -5]);
    await stillServing();
  });

  it('an oversized chunked body is refused without waiting for its end (not buffered whole)', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x20);
    chunk[0] = 0x7b; // '{'
    // After 2 MiB the body stays open until the answer arrives; only if no
    // answer comes does a fallback close it (so the test ends either way).
    let bodyClosedByFallback = false;
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
      setTimeout(() => {
        bodyClosedByFallback = true;
        r();
      }, 20_000).unref();
    });
    let answeredWhileOpen: boolean | undefined;
    const r = await postChunked(v2('get/interface/data'), Array.from({ length: 8 }, () => chunk), hold).finally(() => {
      answeredWhileOpen = !bodyClosedByFallback;
      release();
    });
    expect([r.status, r.body.rc]).toEqual([400, -5]);
    expect(answeredWhileOpen).toBe(true);
    await stillServing();
  });

  it('user add: -19 mismatch, -23 existing, -5 missing username / bad role / bad networks', async () => {
    const base = { username: 'carol', full_name: 'Carol', password: 'pw-carol-1', confirm_password: 'pw-carol-1', user_role: 'unprivileged' };
    expectRc(await s.call(v2('add/monitor/user'), { form: { ...base, confirm_password: 'other' } }), -19);
    await stillServing();
    expectRc(await s.call(v2('add/monitor/user'), { form: base }), 0);
    expectRc(await s.call(v2('add/monitor/user'), { form: base }), -23, 'USER_ALREADY_EXISTING');
    expectRc(await s.call(v2('add/monitor/user'), { form: { ...base, username: 'admin' } }), -23, 'USER_ALREADY_EXISTING');
    await stillServing();
    const { username: _u, ...noName } = base;
    expectRc(await s.call(v2('add/monitor/user'), { form: noName }), -5);
    expectRc(await s.call(v2('add/monitor/user'), { form: { ...base, username: '' } }), -5);
    expectRc(await s.call(v2('add/monitor/user'), { form: { ...base, username: 'dave', user_role: 'root' } }), -5);
    for (const nets of ['10.0.0.0/33', 'banana', '10.0.0.0/8,foo', '1.2.3.4/8/9']) {
      const r = await s.call(v2('add/monitor/user'), { form: { ...base, username: 'dave', allowed_networks: nets } });
      expect(r.body?.rc, nets).toBe(-5);
      expectRc(r, -5);
    }
    await stillServing();
    // none of the failed attempts created dave
    expectRc(await s.call(v2('edit/monitor/user'), { form: { username: 'dave', full_name: 'D' } }), -23, 'USER_DOES_NOT_EXIST');
  });

  it('user edit of an unknown user: -23 USER_DOES_NOT_EXIST; delete of an unknown user: -21', async () => {
    expectRc(await s.call(v2('edit/monitor/user'), { form: { username: 'ghost', full_name: 'Ghost' } }), -23, 'USER_DOES_NOT_EXIST');
    await stillServing();
    expectRc(await s.call(v2('delete/monitor/user'), { form: { username: 'ghost' } }), -21);
    await stillServing();
    expectRc(await s.call(v2('delete/monitor/user'), { form: {} }), -5);
    await stillServing();
  });

  it('an unknown endpoint under v1/v2 is -1 with HTTP 404', async () => {
    const r = await s.call(v2('get/nothing/here'));
    expectRc(r, -1);
    await stillServing();
  });
});

describe('OpenAPI document', () => {
  it('lists every URL of the route table, and nothing else', async () => {
    const r = await s.call('/lua/rest/v2/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    const want = routes.flatMap((rt) => routeUrls(rt).map((u) => u.url)).sort();
    expect(Object.keys(r.body.paths).sort()).toEqual([...new Set(want)].sort());
    // the ntopng spelling is among them
    expect(r.body.paths).toHaveProperty(['/lua/rest/v2/get/ntopng/interfaces.lua']);
    // every URL listed actually answers (not the 404 of an unknown endpoint)
    for (const url of want) {
      const a = await s.call(url, { query: { ifid: 0 } });
      expect(a.body, url).toBeDefined();
      expect(String(a.body?.rc_str_hr ?? a.body?.message ?? ''), url).not.toMatch(/^no endpoint/);
      expect(a.body?.error, url).not.toBe('not found');
    }
  });

  it('documents ifid as required on the routes that take one', async () => {
    const r = await s.call('/lua/rest/v2/openapi.json');
    const op = r.body.paths['/lua/rest/v2/get/host/active.lua'].get;
    expect(op.parameters.find((p: any) => p.name === 'ifid')).toMatchObject({ required: true });
    expect(op.parameters.find((p: any) => p.name === 'perPage')).toMatchObject({ required: false });
  });
});

describe('after all the bad requests', () => {
  it('admin still authenticates with the given password', async () => {
    const r = await s.call(v2('get/monitor/interfaces'), { user: 'admin', pw: ADMIN_PASSWORD });
    expectRc(r, 0);
  });

  it('addUser fixture works (sanity of the helper)', async () => {
    await addUser(s, { username: 'helper-check', password: 'pw-helper' });
    const r = await s.call(v2('get/monitor/interfaces'), { user: 'helper-check', pw: 'pw-helper' });
    expectRc(r, 0);
  });
});
