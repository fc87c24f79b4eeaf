// Packet recorder and PCAP extraction (issue 17), end to end through the
// API: what get/pcap/live_extraction streams equals, packet for packet
// (timestamps, lengths, bytes), what `tcpdump -r <capture> -w - <filter>`
// writes, cut to the same window by this test; both from a recording
// (--record) and from a replayed file (the file itself is the recording).
// Also the quota (oldest files deleted, the newest packets kept), errors
// for hostile filters and windows, a client that goes away, the slot limit,
// and get/db/filter/bpf (filters worked out by hand, compiled by tcpdump).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import type { AlertInput, AlertSink } from '../ts/services/alerts/types.js';
import { Extractions, MAX_EXTRACTIONS } from '../ts/services/recording/index.js';
import type { MonitoredInterface } from '../ts/services/interfaces.js';
import { ADMIN_PASSWORD, startApi, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, pcapRecords, tempDir, type Packet } from './fixtures/pcap.js';

const NDPI = join(__dirname, '..', '..', 'shared', 'pcaps', 'ndpi');
const CAPTURES = ['netflix.pcap', 'alexa-app.pcapng', 'reddit.pcap', 'rdp2.pcap'].map((f) => join(NDPI, f));
const tmp = tempDir('flowgate-pcap-');
const AUTH = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;

interface Rec {
  sec: number;
  usec: number;
  caplen: number;
  wirelen: number;
  data: string;
}

/** A classic pcap's records, timestamps at microsecond precision (as tcpdump -w writes them). */
function records(buf: Buffer): { linktype: number; recs: Rec[] } {
  const r = pcapRecords(buf);
  return {
    linktype: r.linktype,
    recs: r.records.map((x) => ({
      sec: x.sec,
      usec: r.nsec ? Math.floor(x.frac / 1000) : x.frac,
      caplen: x.caplen,
      wirelen: x.wirelen,
      data: buf.subarray(x.offset + 16, x.end).toString('hex'),
    })),
  };
}

let seq = 0;
/** tcpdump's output for the filter, cut to the seconds [begin, end]. */
function truth(file: string, filter: string, begin: number, end: number): Rec[] {
  const out = join(tmp.dir, `truth-${seq++}.pcap`);
  execFileSync('tcpdump', ['-r', file, '-w', out, ...(filter ? [filter] : [])], { stdio: 'ignore' });
  return records(readFileSync(out)).recs.filter((r) => r.sec >= begin && r.sec <= end);
}

/** The seconds a capture spans (from tcpdump's reading of it). */
function span(file: string): [number, number] {
  const all = truth(file, '', 0, 2 ** 32);
  return [all[0].sec, Math.max(...all.map((r) => r.sec))];
}

async function download(s: ApiService, q: Record<string, string | number>, o: { auth?: string; version?: 'v0' | 'v1' | 'v2' } = {}) {
  const path = o.version === 'v0' ? '/lua/rest/get/pcap/live_extraction.lua' : `/lua/rest/${o.version ?? 'v2'}/get/pcap/live_extraction.lua`;
  const res = await fetch(`${s.url}${path}?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`, { headers: { authorization: o.auth ?? AUTH } });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), body };
}

const json = (b: Buffer) => JSON.parse(b.toString('utf8'));

afterAll(() => tmp.cleanup());

describe('live extraction equals tcpdump', () => {
  let recorded: ApiService, replayed: ApiService;
  const activity: AlertInput[] = [];
  const sink = { engage: () => {}, release: () => {}, emit: (a: AlertInput) => void activity.push(a), engaged: () => [] } as unknown as AlertSink;

  beforeAll(async () => {
    recorded = await startApi({ files: CAPTURES, engine: { record: { dir: join(tmp.dir, 'rec'), maxBytes: 64 << 20 } }, alerts: sink });
    replayed = await startApi({ files: CAPTURES });
  }, 120_000);
  afterAll(async () => {
    await recorded?.close();
    await replayed?.close();
  });

  const FILTERS = ['', 'tcp port 443', 'udp', 'ip6', 'tcp[tcpflags] & tcp-syn != 0', 'greater 1000', 'vlan', 'not arp and not ip'];

  it('every capture, filter and window, from the recording and from the replayed file', async () => {
    let compared = 0, nonEmpty = 0;
    for (const [ifid, file] of CAPTURES.entries()) {
      const [first, last] = span(file);
      const third = Math.max(1, Math.floor((last - first) / 3));
      const windows: [number, number][] = [[first, last], [first + third, first + 2 * third], [last + 10, last + 20]];
      for (const filter of FILTERS) {
        for (const [b, e] of windows) {
          const want = truth(file, filter, b, e);
          for (const s of [recorded, replayed]) {
            const r = await download(s, { ifid, epoch_begin: b, epoch_end: e, bpf_filter: filter });
            expect(r.status, r.body.toString('utf8', 0, 200)).toBe(200);
            const got = records(r.body);
            expect(got.recs.length, `${file} '${filter}' [${b}, ${e}]`).toBe(want.length);
            expect(got.recs).toEqual(want);
            compared++;
            if (want.length) nonEmpty++;
          }
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(compared / 3);
  }, 120_000);

  it('answers a pcap file with ntopng headers on v0, v1 and v2; the recorder shows in interface data', async () => {
    const [first, last] = span(CAPTURES[0]);
    const bodies = [];
    for (const version of ['v0', 'v1', 'v2'] as const) {
      const r = await download(recorded, { ifid: 0, epoch_begin: first, epoch_end: last, bpf_filter: 'udp port 53' }, { version });
      expect(r.status).toBe(200);
      expect(r.type).toBe('application/vnd.tcpdump.pcap');
      expect(r.disposition).toBe(`attachment; filename="${first}-${last}.pcap"`);
      expect(r.body.readUInt32LE(0)).toBe(0xa1b2c3d4);  // microsecond pcap, as ntopng writes it
      expect(r.body.readUInt32LE(20)).toBe(1);  // Ethernet
      bodies.push(r.body.toString('hex'));
    }
    expect(new Set(bodies).size).toBe(1);
    const d = await recorded.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } });
    const all = truth(CAPTURES[0], '', 0, 2 ** 32);
    expect(d.body.rsp.recording).toMatchObject({ enabled: true, packets: all.length, drops: 0, write_errors: 0, files: 1, extractions_running: 0 });
    expect(d.body.rsp.recording.bytes).toBe(all.reduce((a, r) => a + r.caplen, 0));
    // ntopng's recording_utils fields: recording on, no extraction task now
    expect(d.body.rsp).toMatchObject({ traffic_recording: 'recording', traffic_extraction_num_tasks: 0 });
    expect(d.body.rsp).not.toHaveProperty('traffic_extraction');
    // the files on disk: one data file and its index
    const dir = join(tmp.dir, 'rec', '0');
    const onDisk = readdirSync(dir).reduce((a, f) => a + statSync(join(dir, f)).size, 0);
    expect(d.body.rsp.recording.disk_bytes).toBe(onDisk);
    const r2 = await replayed.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } });
    expect(r2.body.rsp.recording).toMatchObject({ enabled: false, packets: 0 });
    // /metrics carries the same figures
    const prom = await fetch(`${recorded.url}/metrics`, { headers: { authorization: AUTH } }).then((r) => r.text());
    const sample = (name: string) => Number(new RegExp(`^${name}\\{ifid="0"[^}]*\\} (\\d+)$`, 'm').exec(prom)?.[1]);
    expect(sample('flowgate_recorder_packets_total')).toBe(all.length);
    expect(sample('flowgate_recorder_drops_total')).toBe(0);
    expect(sample('flowgate_recorder_disk_bytes')).toBe(onDisk);
    // system storage: pcap_total sums the recordings' files, as ntopng sums its interfaces' pcap folders
    let files = 0;
    for (const sub of readdirSync(join(tmp.dir, 'rec'))) for (const f of readdirSync(join(tmp.dir, 'rec', sub))) files += statSync(join(tmp.dir, 'rec', sub, f)).size;
    const sys = await recorded.call('/lua/rest/v1/get/system/stats.lua');
    expect(sys.body.rsp.storage.pcap_total).toBe(files);
    expect((await replayed.call('/lua/rest/v1/get/system/stats.lua')).body.rsp.storage.pcap_total).toBe(0);
  });

  it('logs the extraction as user activity (runLiveExtraction with its arguments)', async () => {
    activity.length = 0;
    await download(recorded, { ifid: 1, epoch_begin: 10, epoch_end: 20, bpf_filter: 'tcp' });
    const a = activity.find((x) => (x.json as { name?: string }).name === 'runLiveExtraction');
    expect(a?.json).toMatchObject({ scope: 'function', name: 'runLiveExtraction', params: [1, 10, 20, 'tcp'] });
    expect(a?.entityVal).toBe('admin');
  });

  it('a user without allow_pcap_download gets -3; one with allowed networks only their packets', async () => {
    const add = (username: string, extra: Record<string, string>) =>
      recorded.call('/lua/rest/v2/add/ntopng/user.lua', {
        form: { username, full_name: username, password: 'pw-' + username, confirm_password: 'pw-' + username, user_role: 'unprivileged', ...extra },
      });
    expect((await add('nopcap', {})).body.rc).toBe(0);
    expect((await add('lan', { allow_pcap_download: '1', allowed_networks: '192.168.1.1/32' })).body.rc).toBe(0);
    const [first, last] = span(CAPTURES[0]);
    const basic = (u: string) => `Basic ${Buffer.from(`${u}:pw-${u}`).toString('base64')}`;
    const no = await download(recorded, { ifid: 0, epoch_begin: first, epoch_end: last }, { auth: basic('nopcap') });
    expect(json(no.body)).toMatchObject({ rc: -3, rc_str: 'NOT_GRANTED' });
    // ntopng's preparePcapDownloadFilter: (net <allowed>) and (<filter>)
    for (const filter of ['', 'udp']) {
      const r = await download(recorded, { ifid: 0, epoch_begin: first, epoch_end: last, bpf_filter: filter }, { auth: basic('lan') });
      const want = truth(CAPTURES[0], filter ? `(net 192.168.1.1/32) and (${filter})` : 'net 192.168.1.1/32', first, last);
      expect(want.length).toBeGreaterThan(0);
      expect(records(r.body).recs).toEqual(want);
    }
  });

  it('hostile filters and windows answer errors; the service keeps serving', async () => {
    const [first, last] = span(CAPTURES[0]);
    const q = { ifid: 0, epoch_begin: first, epoch_end: last };
    const cases: [Record<string, string | number>, number, RegExp?][] = [
      [{ ...q, bpf_filter: '(tcp port 80' }, -7, /syntax error/],
      [{ ...q, bpf_filter: 'select * from flows; drop table flows' }, -7, /bpf_filter/],
      [{ ...q, bpf_filter: 'host not.an.address.invalid' }, -7, /bpf_filter/],
      [{ ...q, bpf_filter: 'tcp and '.repeat(600) + 'tcp' }, -5],
      [{ ...q, epoch_end: first - 1 }, -5, /before/],
      [{ ifid: 0, epoch_begin: first }, -5],
      [{ ...q, epoch_begin: 'yesterday' }, -5],
      [{ ...q, epoch_end: -4 }, -5],
      [{ ...q, ifid: 17 }, -2],
      [{ epoch_begin: first, epoch_end: last }, -2],
    ];
    for (const [params, rc, detail] of cases) {
      const r = await download(recorded, params);
      expect(r.status, JSON.stringify(params).slice(0, 80)).toBeLessThan(500);
      const b = json(r.body);
      expect(b.rc, JSON.stringify(params).slice(0, 80)).toBe(rc);
      if (detail) expect(b.rc_str_detail).toMatch(detail);
    }
    const d = await recorded.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } });
    expect(d.body.rc).toBe(0);
    expect(d.body.rsp.recording.extractions_running).toBe(0);
  });

  it('an interface that keeps no packets answers -3 (ntopng: extraction not available)', () => {
    const live = { ifid: 0, ifname: 'eth9', isFile: false, engine: null, addresses: [], expired: 0 } as unknown as MonitoredInterface;
    expect(() => new Extractions().open(live, { begin: 0, end: 1, filter: '' })).toThrow(expect.objectContaining({ code: 'E_NOT_RECORDED' }));
  });

  it('get/db/filter/bpf turns tags into BPF as tag_utils.build_bpf, listing what packets cannot express', async () => {
    const bpf = async (q: Record<string, string>) => recorded.call('/lua/pro/rest/v2/get/db/filter/bpf.lua', { query: { ifid: 0, epoch_begin: 1, epoch_end: 2, ...q } });
    const cases: [Record<string, string>, string, string[]][] = [
      [{ cli_ip: '192.168.1.7;eq' }, '(host 192.168.1.7)', []],
      [{ srv_port: '443;eq,80;eq', l4proto: 'TCP;eq' }, '((ip proto 6 or ip6 proto 6)) and (port 443 or port 80)', []],
      [{ ip: '2001:db8::1;eq,10.0.0.0/8;neq', l7proto: '7;eq', score: '100;gt' }, '(not net 10.0.0.0/8) and (host 2001:db8::1)', ['l7proto', 'score']],
      [{ vlan_id: '10;eq', mac: '02:00:00:00:00:0A;neq', ip_version: '4;eq' }, 'vlan 10 and (ip) and (not ether host 02:00:00:00:00:0a)', []],
      [{ vlan_id: '10;lt', network: '1;eq', cli_port: '53;eq' }, '(net 172.16.0.0/12) and (port 53)', ['vlan_id']],
      [{ l4proto: '17;neq,1;neq' }, '(not (ip proto 17 or ip6 proto 17) and not (ip proto 1 or ip6 proto 1))', []],
      [{ country: 'IT;eq', info: 'netflix;in' }, '', ['country', 'info']],
    ];
    for (const [q, want, unsupported] of cases) {
      const r = await bpf(q);
      expect(r.body.rc, JSON.stringify(q)).toBe(0);
      expect(r.body.rsp).toEqual({ bpf: want, unsupported });
      // libpcap compiles it (the independent check that it is a filter at all)
      if (want) execFileSync('tcpdump', ['-d', '-y', 'EN10MB', want], { stdio: 'ignore' });
    }
    for (const q of [{ cli_ip: '1.2.3.4 or 1=1;eq' }, { srv_port: '99999;eq' }, { mac: 'zz:00:00:00:00:00;eq' }, { network: '99;eq' }, { l4proto: 'tcp) or (udp;eq' }] as Record<string, string>[]) {
      const r = await bpf(q);
      expect(r.body.rc, JSON.stringify(q)).toBe(-5);
    }
    expect((await recorded.call('/lua/pro/rest/v2/get/db/filter/bpf.lua', { query: { cli_ip: '1.2.3.4;eq' } })).body.rc).toBe(-2);
    // the filter it gives extracts what tcpdump extracts with it
    const r = await bpf({ cli_ip: '192.168.1.7;eq', l4proto: 'udp;eq' });
    const [first, last] = span(CAPTURES[0]);
    const x = await download(recorded, { ifid: 0, epoch_begin: first, epoch_end: last, bpf_filter: r.body.rsp.bpf });
    const want = truth(CAPTURES[0], r.body.rsp.bpf, first, last);
    expect(want.length).toBeGreaterThan(0);
    expect(records(x.body).recs).toEqual(want);
  });
});

describe('a looped replay is its own recording, pass after pass', () => {
  it('maps the window onto the file as the engine shifted each pass (time + k × period)', async () => {
    const file = CAPTURES[0];
    const e = new Engine({ files: [file], loop: true, flowIdleSec: 1e10 });
    e.start();
    while (e.replayInfo().passes < 4) await new Promise((r) => setTimeout(r, 20));
    e.close();
    const { passes, periodNs, firstNs } = e.replayInfo();
    const all = truth(file, 'tcp', 0, 2 ** 32);
    // the engine's shift: the pass's last (greatest) time − its first packet's, plus a second
    const ns = (r: Rec) => BigInt(r.sec) * 1_000_000_000n + BigInt(r.usec) * 1000n;
    const every = truth(file, '', 0, 2 ** 32);
    const max = every.reduce((a, r) => (ns(r) > a ? ns(r) : a), 0n);
    expect(firstNs).toBe(ns(every[0]));
    expect(periodNs).toBe(max - ns(every[0]) + 1_000_000_000n);
    // a window across the end of pass 1 and the start of pass 2
    const b = Number((firstNs + 2n * periodNs) / 1_000_000_000n) - 30, end = b + 60;
    const want: Rec[] = [];
    for (let k = 0; k < passes; k++) {
      for (const r of all) {
        const t = ns(r) + BigInt(k) * periodNs;
        const sec = Number(t / 1_000_000_000n);
        if (sec >= b && sec <= end) want.push({ ...r, sec, usec: Number((t % 1_000_000_000n) / 1000n) });
      }
    }
    expect(new Set(want.map((r) => Math.floor(Number(BigInt(r.sec) * 1_000_000_000n - firstNs) / Number(periodNs)))).size).toBe(2);
    const iface = { ifid: 0, ifname: file, isFile: true, engine: e, addresses: [], expired: 0 } as unknown as MonitoredInterface;
    const stream = new Extractions().open(iface, { begin: b, end, filter: 'tcp' });
    const chunks: Uint8Array[] = [];
    for await (const c of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
    expect(records(Buffer.concat(chunks)).recs).toEqual(want);
  });
});

/** `n` UDP frames of `size` bytes, one per millisecond from t0, each with its index in the payload. */
function bulk(n: number, size: number, t0 = 1_700_000_000): Packet[] {
  const out: Packet[] = [];
  for (let i = 0; i < n; i++) {
    const payload = Buffer.alloc(size);
    payload.writeUInt32BE(i, 0);
    const frame = eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.1.0.1', dst: `10.2.${(i >> 8) & 255}.${i & 255}`, proto: IPPROTO.UDP }, udp({ sport: 40000 + (i % 1000), dport: 9000 }, payload)));
    out.push({ tsNs: BigInt(t0) * 1_000_000_000n + BigInt(i) * 1_000_000n, data: frame });
  }
  return out;
}

describe('recording quota', () => {
  let s: ApiService;
  const N = 12_000, SIZE = 1400;  // about 17 MB into an 8 MiB quota
  const file = tmp.file('bulk.pcap', pcap(bulk(N, SIZE)));
  const dir = join(tmp.dir, 'quota');

  beforeAll(async () => {
    s = await startApi({ files: [file], engine: { record: { dir, maxBytes: 8 << 20 } } });
  }, 60_000);
  afterAll(async () => s?.close());

  it('deletes the oldest files first and keeps the newest packets, never above the quota', async () => {
    const st = s.ifaces.get(0)!.engine.recorderStats()!;
    expect(st.packets).toBe(N);
    expect(st.drops).toBe(0);
    expect(st.filesDeleted).toBeGreaterThan(0);
    const files = readdirSync(join(dir, '0'));
    const onDisk = files.reduce((a, f) => a + statSync(join(dir, '0', f)).size, 0);
    expect(onDisk).toBeLessThanOrEqual(8 << 20);
    expect(st.diskBytes).toBe(onDisk);
    // what is left is a suffix of the input: the newest packets, whole
    const r = await download(s, { ifid: 0, epoch_begin: 1_700_000_000, epoch_end: 1_700_000_000 + 60 });
    const got = records(r.body).recs;
    const want = truth(file, '', 0, 2 ** 32);
    expect(got.length).toBeGreaterThan(1000);
    expect(got.length).toBeLessThan(N);
    expect(got).toEqual(want.slice(N - got.length));
    // a window inside what was deleted is empty, not an error
    const early = await download(s, { ifid: 0, epoch_begin: 1_700_000_000, epoch_end: 1_700_000_000 });
    expect(early.status).toBe(200);
    expect(records(early.body).recs).toEqual([]);
  });
});

describe('the recorder ring wrapping many times', () => {
  it('a 1 MiB ring carrying 17 MB: the recording holds every packet, byte for byte (tcpdump reads it whole)', async () => {
    const file = tmp.file('wrap.pcap', pcap(bulk(12_000, 1400, 1_700_100_000)));
    const dir = join(tmp.dir, 'wrap-rec');
    const e = new Engine({ files: [file], record: { dir, maxBytes: 256 << 20, ringBytes: 1 << 20 } });
    e.start();
    await e.waitDone();
    const st = e.recorderStats()!;
    e.close();
    expect(st).toMatchObject({ packets: 12_000, drops: 0, writeErrors: 0 });
    // the files as tcpdump reads them, one after the other, equal the input
    const recorded = readdirSync(dir).filter((f) => f.endsWith('.pcap')).sort().flatMap((f) => truth(join(dir, f), '', 0, 2 ** 32));
    expect(recorded).toEqual(truth(file, '', 0, 2 ** 32));
  });
});

describe('clients that go away, and the slot limit', () => {
  let s: ApiService;
  // 60 MB: more than the loopback socket buffers hold, so a client that does not read stalls its extraction
  const file = tmp.file('big.pcap', pcap(bulk(40_000, 1450)));

  beforeAll(async () => {
    s = await startApi({ files: [file] });
  }, 60_000);
  afterAll(async () => s?.close());

  const running = async () => (await s.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } })).body.rsp.recording.extractions_running as number;

  /** a download whose client reads nothing; resolves once the answer has started */
  const stalled = () =>
    new Promise<{ destroy: () => void }>((resolve, reject) => {
      const u = new URL(`${s.url}/lua/rest/v2/get/pcap/live_extraction.lua?ifid=0&epoch_begin=1700000000&epoch_end=1700000100`);
      const req = request(u, { headers: { authorization: AUTH } }, (res) => {
        res.pause();
        resolve({ destroy: () => req.destroy() });
      });
      req.on('error', () => {});
      req.end();
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });

  it('stops an extraction whose client went away; the slots come back', async () => {
    const clients = [];
    for (let i = 0; i < MAX_EXTRACTIONS; i++) clients.push(await stalled());
    expect(await running()).toBe(MAX_EXTRACTIONS);
    // every slot taken: -6 with the reason, not a hang
    const busy = await download(s, { ifid: 0, epoch_begin: 1_700_000_000, epoch_end: 1_700_000_100 });
    expect(json(busy.body)).toMatchObject({ rc: -6 });
    expect(json(busy.body).rc_str_detail).toMatch(/extractions are running/);
    for (const c of clients) c.destroy();
    for (let i = 0; i < 100 && (await running()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await running()).toBe(0);
    expect(s.api).toBeTruthy();
    const ok = await download(s, { ifid: 0, epoch_begin: 1_700_000_000, epoch_end: 1_700_000_000, bpf_filter: 'udp dst port 9000' });
    expect(records(ok.body).recs.length).toBe(1000);
  }, 60_000);
});
