// Flow and host scores end to end: flows with known nDPI risks between known
// hosts are built here and replayed through the service; the hosts' scores
// as client / as server, the alerted-flow counters and the score_threshold
// host check are read back over REST and compared with sums made by hand
// from the catalogue (ntopng: each alert is worth its nDPI score, the client
// getting score × client% / 100 and the server the rest).
//
// - A: HTTP C → S:80 with `Host: <S's address>` and `Authorization: Basic`:
//   ndpi_numeric_ip_host (10, client 50 %: 5 / 5) and
//   ndpi_clear_text_credentials (100, client 90 %: 90 / 10); predominant
//   alert score 100 → severity error.
// - B: Telnet C2 → S:23 (option negotiation both ways): ndpi_unsafe_protocol
//   (Telnet's breed is Unsafe; 10, 50 %: 5 / 5) → severity notice.
// Both flows answer, so neither is one-way.
import { afterAll, describe, expect, it } from 'vitest';

import { BY_RISK } from '../ts/services/alerts/catalogue.js';
import type { ChecksConfig } from '../ts/services/checks/config.js';
import { schemaByName, tagsText } from '../ts/services/timeseries/index.js';
import { startApi, v1, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, icmp, icmpv6, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
const services: ApiService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  tmp.cleanup();
});

const C = '192.168.9.20', C2 = '192.168.9.21', S = '192.168.9.10', D = '192.168.9.30', E = '192.168.9.31';
const { SYN, ACK, PSH } = TCPF;
const at = (s: number) => BigInt(Math.round((T0 + s) * 1e6)) * 1000n;
// each sender's segments numbered in sequence (a repeated number would be a retransmission, which nDPI does not inspect)
const nextSeq = new Map<string, number>();
const seg = (t: number, src: string, sport: number, dst: string, dport: number, flags: number, payload?: Buffer): Packet => {
  const k = `${src}:${sport}>${dst}:${dport}`;
  const seq = nextSeq.get(k) ?? 1000;
  nextSeq.set(k, seq + (payload?.length ?? 0) + (flags & TCPF.SYN ? 1 : 0));
  return { tsNs: at(t), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq }, payload))) };
};
const dgram = (t: number, src: string, sport: number, dst: string, dport: number, payload: Buffer): Packet => ({
  tsNs: at(t),
  data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, payload))),
});

const httpFlow = (t: number) => [
  seg(t, C, 50001, S, 80, SYN),
  seg(t + 0.01, S, 80, C, 50001, SYN | ACK),
  seg(t + 0.02, C, 50001, S, 80, ACK),
  seg(t + 0.03, C, 50001, S, 80, PSH | ACK, Buffer.from(`GET /index.html HTTP/1.1\r\nHost: ${S}\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAuthorization: Basic dXNlcjpwYXNz\r\n\r\n`)),
  seg(t + 0.04, S, 80, C, 50001, PSH | ACK, Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nok')),
];
const IAC = 0xff, DO = 0xfd, WILL = 0xfb;
const telnetFlow = (t: number) => [
  seg(t, C2, 50002, S, 23, SYN),
  seg(t + 0.01, S, 23, C2, 50002, SYN | ACK),
  seg(t + 0.02, C2, 50002, S, 23, ACK),
  seg(t + 0.03, S, 23, C2, 50002, PSH | ACK, Buffer.from([IAC, DO, 24, IAC, DO, 32, IAC, DO, 35])),
  seg(t + 0.04, C2, 50002, S, 23, PSH | ACK, Buffer.from([IAC, WILL, 24, IAC, WILL, 32])),
  // nDPI's telnet.c names the flow on its third IAC packet (a subnegotiation here)
  seg(t + 0.05, S, 23, C2, 50002, PSH | ACK, Buffer.from([IAC, 0xfa, 24, 1, IAC, 0xf0])),
];
/** unrelated traffic D ↔ E from second `from` to `to` (n datagrams each way): lets packet time pass so idle flows expire */
const filler = (from: number, to: number, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const t = from + ((to - from) * i) / n;
    return [dgram(t, D, 40000, E, 40001, Buffer.from('zz-filler-zz')), dgram(t + 0.001, E, 40001, D, 40000, Buffer.from('zz-filler-zz'))];
  }).flat();

// the catalogue's shares (nDPI risk ids)
const share = (risk: number) => {
  const a = BY_RISK[risk]!;
  return { cli: a.cliScore, srv: a.score - a.cliScore, score: a.score };
};
const NUMERIC_IP = share(12), UNSAFE = share(22), CLEAR_TEXT = share(36);

// 1: the two flows, still active when the capture ends
const fileActive = tmp.file('scored-flows.pcap', pcap([...httpFlow(1), ...telnetFlow(2)]));
// 2: the same, then other traffic for four minutes: both flows end idle (60 s)
const fileEnding = tmp.file('scored-flows-ending.pcap', pcap([...httpFlow(1), ...telnetFlow(2), ...filler(3, 236, 600)]));

// 3: a one-way UDP flow C → S2 (nothing answers), with other traffic after it
// so the sweep steps over it; 4: the same, answered at the end
const C3 = '192.168.9.22', S2 = '192.168.9.11';
const oneWay = [dgram(1, C3, 50003, S2, 9999, Buffer.from('hello?')), dgram(1.5, C3, 50003, S2, 9999, Buffer.from('hello?'))];
const fileOneWay = tmp.file('one-way.pcap', pcap([...oneWay, ...filler(2, 30, 600)]));
const fileAnswered = tmp.file('one-way-answered.pcap', pcap([...oneWay, ...filler(2, 30, 600), dgram(31, S2, 9999, C3, 50003, Buffer.from('yes'))]));
const UNIDIRECTIONAL = share(46);

const SCORE_THRESHOLD = 17; // host_alert_keys.lua host_alert_score_threshold
const lowThreshold = (thr: number) => (c: ChecksConfig) => c.update('host', 'score_threshold', { min: { enabled: true, script_conf: { operator: 'gt', threshold: thr } } });

async function start(file: string, configure?: (c: ChecksConfig) => Promise<void>) {
  // flows end after 60 s idle (ntopng's default); hosts stay
  const s = await startApi({ files: [file], history: true, engine: { flowIdleSec: 60 }, ...(configure ? { configure } : {}) });
  services.push(s);
  return s;
}
const host = async (s: ApiService, ip: string) => {
  const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host: ip } });
  expect(r.body.rc).toBe(0);
  return r.body.rsp as Record<string, any>;
};
const ifData = async (s: ApiService, v = v2) => {
  const r = await s.call(v('get/interface/data'), { query: { ifid: 0 } });
  expect(r.body.rc).toBe(0);
  return r.body.rsp as Record<string, any>;
};
const scoreAlerts = (s: ApiService, status: string) =>
  s.call(v2('get/host/alert/list'), { query: { ifid: 0, status, epoch_begin: T0 - 3600, epoch_end: T0 + 3600, alert_id: `${SCORE_THRESHOLD};eq`, length: 100 } });

describe('score timeseries (ntopng ts_minute iface:score, iface:alerted_flows; ts_5min host:score)', () => {
  const series = async (s: ApiService, schema: string, tags: Record<string, string>, steps: number) => {
    const st = schemaByName(schema)!;
    const r = await s.timeseries!.series({ schema: st, ifid: 0, tags: tagsText(schema, tags), begin: T0, end: T0 + steps * st.step, limit: 1000 });
    return Object.fromEntries(r.metrics.map((m) => [m.metric, m.data]));
  };

  it('iface:score each minute: the active hosts’ scores summed, 0 once the flows ended; alerted flows as their signed change', async () => {
    // the two flows live from second 1 to 2 and end idle (60 s) in the second minute; the capture ends at 236 s
    const s = await startApi({ files: [fileEnding], history: true, timeseries: true, engine: { flowIdleSec: 60 } });
    services.push(s);
    const cli = NUMERIC_IP.cli + CLEAR_TEXT.cli + UNSAFE.cli, srv = NUMERIC_IP.srv + CLEAR_TEXT.srv + UNSAFE.srv;
    expect([cli, srv]).toEqual([100, 20]);
    expect(await series(s, 'iface:score', {}, 4)).toEqual({ cli_score: [cli, 0, 0, 0], srv_score: [srv, 0, 0, 0] });
    // two alerted flows appear in the first minute and go in the second: per second of the step, signed
    expect(await series(s, 'iface:alerted_flows', {}, 4)).toEqual({ num_flows: [2 / 60, -2 / 60, 0, 0] });
    // the flow writer's and alert service's counters, as get/interface/data shows them: the flows
    // exported by the last minute sampled (the writer's pace decides which minute) are among those it reports now
    const d = (await s.call(v2('get/interface/data'), { query: { ifid: 0 } })).body.rsp;
    const dumped = await series(s, 'iface:dumped_flows', {}, 4);
    expect(dumped.dropped_flows).toEqual([0, 0, 0, 0]);
    const exported = dumped.dumped_flows.reduce((a: number, x: number | null) => a + x! * 60, 0);
    expect(Number.isInteger(Math.round(exported * 1e9) / 1e9)).toBe(true);
    expect(exported).toBeLessThanOrEqual(d.db.flow_export_count);
    const engaged = await series(s, 'iface:engaged_alerts', {}, 4);
    expect(engaged.engaged_alerts.every((x: number | null) => Number.isInteger(x) && x! >= 0)).toBe(true);
  });

  it("iface:l4protos as ntopng's L4Stats keeps it (tcp, udp, icmp, other_ip: ICMPv6 and an unlisted protocol are other_ip); flows name L4 as l4proto2name", async () => {
    const v6 = (t: number, proto: number, body: Buffer): Packet => ({ tsNs: at(t), data: eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: 'fd00::1', dst: 'fd00::2', next: proto }, body)) });
    const v4 = (t: number, proto: number, body: Buffer): Packet => ({ tsNs: at(t), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: C, dst: S, proto }, body)) });
    const pkts = [
      v4(1, IPPROTO.TCP, tcp({ sport: 1000, dport: 2000, flags: SYN, seq: 1 })),
      v4(2, IPPROTO.ICMP, icmp(8, 0)),
      v6(3, IPPROTO.ICMPV6, icmpv6(128, 0)),
      v4(4, 132, Buffer.alloc(12)), // SCTP: not in l4proto2name's list
    ];
    const file = tmp.file('l4.pcap', pcap(pkts));
    const s = await startApi({ files: [file], history: true, timeseries: true });
    services.push(s);
    const st = schemaByName('iface:l4protos')!;
    const totals = await s.timeseries!.seriesTotals(st, 0, '', T0, T0 + 60);
    const wire = (i: number) => pkts[i].data.length;
    expect(Object.fromEntries(totals.map((t) => [t.tags.l4proto, t.total]))).toEqual({ tcp: wire(0), icmp: wire(1), other_ip: wire(2) + wire(3) });
    const flows = (await s.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 10 } })).body.rsp.data as { protocol: { l4: string } }[];
    expect(flows.map((f) => f.protocol.l4).sort()).toEqual(['132', 'ICMP', 'IPv6-ICMP', 'TCP']);
  });

  it('host:score every 5 minutes: each local host’s shares as client and as server', async () => {
    const s = await startApi({ files: [fileActive], history: true, timeseries: true, engine: { flowIdleSec: 60 } });
    services.push(s);
    expect(await series(s, 'host:score', { host: C }, 1)).toEqual({ score_as_cli: [NUMERIC_IP.cli + CLEAR_TEXT.cli], score_as_srv: [0] });
    expect(await series(s, 'host:score', { host: C2 }, 1)).toEqual({ score_as_cli: [UNSAFE.cli], score_as_srv: [0] });
    expect(await series(s, 'host:score', { host: S }, 1)).toEqual({ score_as_cli: [0], score_as_srv: [NUMERIC_IP.srv + CLEAR_TEXT.srv + UNSAFE.srv] });
    // the same figures the interface's minute point carries
    expect(await series(s, 'iface:score', {}, 1)).toEqual({ cli_score: [100], srv_score: [20] });
  });
});

describe('flow scores credited to hosts', () => {
  it("get/flow/active sortColumn=score orders by each flow's score (Flow::getScore), as its records show it", async () => {
    const s = await start(fileActive);
    const page = async (sortOrder: string) =>
      ((await s.call(v2('get/flow/active'), { query: { ifid: 0, sortColumn: 'score', sortOrder, perPage: 10 } })).body.rsp.data as { score: string }[]).map((f) => Number(f.score));
    // A: numeric IP host + clear-text credentials, B: unsafe protocol
    const a = NUMERIC_IP.score + CLEAR_TEXT.score, b = UNSAFE.score;
    expect(await page('desc')).toEqual([a, b]);
    expect(await page('asc')).toEqual([b, a]);
  });

  it('each host carries the shares of its active flows’ alerts, as client and as server', async () => {
    const s = await start(fileActive);
    const c = await host(s, C), c2 = await host(s, C2), srv = await host(s, S);
    expect(c['score.as_client']).toBe(NUMERIC_IP.cli + CLEAR_TEXT.cli); // 5 + 90
    expect(c['score.as_server']).toBe(0);
    expect(c.score).toBe(NUMERIC_IP.cli + CLEAR_TEXT.cli);
    expect(c2['score.as_client']).toBe(UNSAFE.cli);
    expect(srv['score.as_server']).toBe(NUMERIC_IP.srv + CLEAR_TEXT.srv + UNSAFE.srv); // 5 + 10 + 5
    expect(srv['score.as_client']).toBe(0);
    expect(srv.score).toBe(20);
    // alerted flows: S serves both, C and C2 are clients of one each
    expect(srv.active_alerted_flows).toBe(2);
    expect(c.active_alerted_flows).toBe(1);
    expect(c2.active_alerted_flows).toBe(1);
    expect(srv['alerted_flows.as_server']).toBe(2);
    expect(c['alerted_flows.as_client']).toBe(1);
    // Score::lua_get_score_breakdown: the share of each score category (0 network, 1 security);
    // these risks are all security ones (as the score_threshold alert below reports them)
    expect(c.score_pct).toEqual({ score_breakdown_client: { 0: 0, 1: 100 }, score_breakdown_server: { 0: 0, 1: 0 } });
    expect(srv.score_pct).toEqual({ score_breakdown_client: { 0: 0, 1: 0 }, score_breakdown_server: { 0: 0, 1: 100 } });
    // the interface: A's predominant alert (100) is an error, B's (10) a notice
    const d = await ifData(s);
    expect(d.alerted_flows).toBe(2);
    expect(d.alerted_flows_error).toBe(1);
    expect(d.alerted_flows_notice).toBe(1);
    expect(d.alerted_flows_warning).toBe(0);
    const d1 = await ifData(s, v1);
    expect(d1.alerted_flows).toBe(2);
    expect(d1.alerted_flows_error).toBeUndefined();
    // the host list: v2's score object, sorted by score
    const list = await s.call(v2('get/host/active'), { query: { ifid: 0, sortColumn: 'score', sortOrder: 'desc', perPage: 3 } });
    expect(list.body.rc).toBe(0);
    const rows = list.body.rsp.data as { ip: string; score: { total: number; as_client: number; as_server: number } }[];
    expect(rows.map((r) => r.ip)).toEqual([C, S, C2]);
    expect(rows[0].score).toEqual({ total: 95, as_client: 95, as_server: 0 });
    const bad = await s.call(v2('get/host/active'), { query: { ifid: 0, sortColumn: 'nonsense' } });
    expect(bad.body.rc).toBe(-5);
  });

  it('disabling a check takes its share off the active flows’ hosts at once; enabling it puts it back', async () => {
    const s = await start(fileActive);
    const checks = s.api.checks;
    await checks.setEnabled('flow', 'ndpi_clear_text_credentials', false);
    expect((await host(s, C))['score.as_client']).toBe(NUMERIC_IP.cli);
    expect((await host(s, S))['score.as_server']).toBe(NUMERIC_IP.srv + UNSAFE.srv);
    let d = await ifData(s);
    // A is now predominantly numeric_ip_host (10): a notice
    expect([d.alerted_flows, d.alerted_flows_notice, d.alerted_flows_error]).toEqual([2, 2, 0]);
    await checks.setEnabled('flow', 'ndpi_unsafe_protocol', false);
    expect((await host(s, C2)).score).toBe(0);
    expect((await host(s, C2)).active_alerted_flows).toBe(0);
    d = await ifData(s);
    expect([d.alerted_flows, d.alerted_flows_notice]).toEqual([1, 1]);
    await checks.setEnabled('flow', 'ndpi_clear_text_credentials', true);
    expect((await host(s, C))['score.as_client']).toBe(NUMERIC_IP.cli + CLEAR_TEXT.cli);
    expect((await ifData(s)).alerted_flows_error).toBe(1);
  });

  it('tables rebuilt with new maximums keep every flow’s score and host’s sums', async () => {
    const s = await start(fileActive);
    const engine = s.ifaces.list[0].engine;
    engine.setLimits({ maxFlows: 1024, maxHosts: 512 }); // every entry moves to a new slot
    expect((await host(s, C))['score.as_client']).toBe(95);
    expect((await host(s, S))['score.as_server']).toBe(20);
    // the flows still carry theirs: disabling a check after the rebuild takes exactly their share
    await s.api.checks.setEnabled('flow', 'ndpi_numeric_ip_host', false);
    expect((await host(s, C))['score.as_client']).toBe(CLEAR_TEXT.cli);
    expect((await host(s, S))['score.as_server']).toBe(CLEAR_TEXT.srv + UNSAFE.srv);
    expect(engine.hostScoresAbove(89).map((h) => [h.ip, h.score_as_client, h.score_breakdown.as_client])).toEqual([[C, 90, [0, 90]]]);
  });

  it('rejects a bad score table or threshold with a clear error', async () => {
    const s = await start(fileActive);
    const engine = s.ifaces.list[0].engine;
    const zeros = new Array(64).fill(0);
    expect(() => engine.hostScoresAbove(-1)).toThrow(/threshold/);
    expect(() => engine.hostScoresAbove(Number.NaN)).toThrow(/threshold/);
    expect(() => engine.setRiskScores({ cli: [1], srv: zeros, category: zeros, level: zeros, alerting: [0, 0] })).toThrow(/64 entries/);
    expect(() => engine.setRiskScores({ cli: zeros, srv: zeros, category: new Array(64).fill(2), level: zeros, alerting: [0, 0] })).toThrow(/64 entries/);
    expect(() => engine.setRiskScores({ cli: zeros, srv: zeros, category: zeros, level: zeros, alerting: [-1, 0] })).toThrow(/alerting/);
    // nothing changed
    expect((await host(s, C))['score.as_client']).toBe(95);
  });

  it('a one-way flow is scored at the sweep’s first step over it, and unscored by its first answer', async () => {
    let s = await start(fileOneWay);
    let c3 = await host(s, C3), s2 = await host(s, S2);
    expect(c3['score.as_client']).toBe(UNIDIRECTIONAL.cli);
    expect(s2['score.as_server']).toBe(UNIDIRECTIONAL.srv);
    expect(s2.active_alerted_flows).toBe(1);
    // ndpi_unidirectional_traffic is a network alert (score category 0), a notice
    expect(s.ifaces.list[0].engine.hostScoresAbove(0).find((h) => h.ip === C3)?.score_breakdown).toEqual({ as_client: [UNIDIRECTIONAL.cli, 0], as_server: [0, 0] });
    expect((await ifData(s)).alerted_flows_notice).toBe(1);
    s = await start(fileAnswered);
    c3 = await host(s, C3);
    s2 = await host(s, S2);
    expect([c3.score, s2.score, s2.active_alerted_flows, c3['alerted_flows.as_client']]).toEqual([0, 0, 0, 1]);
    expect((await ifData(s)).alerted_flows).toBe(0);
  });

  it('past the score pool (a fifth of the flow table + 16 entries) alerted flows are refused and counted, not mis-scored', async () => {
    // 120 flow slots: room for 120 / 5 + 16 = 40 scored flows; 50 one-way flows C3 → S2 on distinct ports
    const N = 50, ROOM = 120 / 5 + 16;
    const many = Array.from({ length: N }, (_, i) => dgram(1 + i * 0.01, C3, 51000 + i, S2, 9999, Buffer.from('hello?')));
    const file = tmp.file('one-way-many.pcap', pcap([...many, ...filler(2, 30, 600)]));
    const s = await startApi({ files: [file], history: true, engine: { flowIdleSec: 60, maxFlows: 120 } });
    services.push(s);
    const c3 = await host(s, C3), s2 = await host(s, S2);
    expect(c3['score.as_client']).toBe(ROOM * UNIDIRECTIONAL.cli);
    expect(s2['score.as_server']).toBe(ROOM * UNIDIRECTIONAL.srv);
    expect(s2.active_alerted_flows).toBe(ROOM);
    const d = await ifData(s);
    expect(d.alerted_flows).toBe(ROOM);
    expect(d.refused.flow_score).toBe(N - ROOM);
  });

  it('scores and alerted flows leave the hosts when the flows end', async () => {
    const s = await start(fileEnding);
    const c = await host(s, C), srv = await host(s, S);
    expect([c.score, c['score.as_client'], srv.score, srv['score.as_server']]).toEqual([0, 0, 0, 0]);
    expect([c.active_alerted_flows, srv.active_alerted_flows]).toEqual([0, 0]);
    // what was alerted stays counted
    expect(srv['alerted_flows.as_server']).toBe(2);
    const d = await ifData(s);
    expect([d.alerted_flows, d.alerted_flows_notice, d.alerted_flows_error]).toEqual([0, 0, 0]);
  });
});

describe('score_threshold host check', () => {
  it('raises the client alert on a host above the threshold, as ntopng serializes it', async () => {
    const s = await start(fileActive, lowThreshold(50));
    const engaged = await scoreAlerts(s, 'engaged');
    expect(engaged.body.rc).toBe(0);
    const recs = engaged.body.rsp.records as Record<string, any>[];
    // only C: 95 as client > 50; S has 20, C2 5
    expect(recs).toHaveLength(1);
    expect(recs[0].ip?.value ?? recs[0].ip).toBe(C);
    expect(recs[0].score.value).toBe(150);
    expect(recs[0].severity.value).toBe(5); // error
  });

  it('with the server side above it, the server alert; released once the flows end', async () => {
    const s = await start(fileEnding, lowThreshold(15));
    await s.api.alerts.flush();
    const past = await scoreAlerts(s, 'historical');
    expect(past.body.rc).toBe(0);
    const recs = past.body.rsp.records as Record<string, any>[];
    // C (95 as client) and S (20 as server) were above 15 while the flows lived
    expect(recs.map((r) => r.ip?.value ?? r.ip).sort()).toEqual([C, S].sort());
    expect((await scoreAlerts(s, 'engaged')).body.recordsTotal).toBe(0);
    // ScoreThresholdAlert's JSON: the side's score breakdown (all security here), is_client_alert, value, threshold
    const q = await s.call(v2('get/alert/list/alerts'), {
      query: { ifid: 0, alert_family: 'host', epoch_begin: T0 - 3600, epoch_end: T0 + 3600, select_clause: 'ip,json', where_clause: `alert_id=${SCORE_THRESHOLD}`, maxhits_clause: 10 },
    });
    expect(q.body.rc).toBe(0);
    const byIp = new Map((q.body.rsp as { ip: string; json: string }[]).map((r) => [r.ip, JSON.parse(r.json)]));
    expect(byIp.get(C)).toMatchObject({ is_client_alert: true, value: 95, threshold: 15, score_breakdown_client_0: 0, score_breakdown_client_1: 100 });
    expect(byIp.get(S)).toMatchObject({ is_client_alert: false, value: 20, threshold: 15, score_breakdown_server_0: 0, score_breakdown_server_1: 100 });
  });

  it('raises nothing at the default threshold (5000)', async () => {
    const s = await start(fileActive);
    expect((await scoreAlerts(s, 'engaged')).body.recordsTotal).toBe(0);
  });
});
