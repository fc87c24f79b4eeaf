// ntopng's RX-only views (get/host/no_tx_peers.lua, NetworkInterface::
// getRxOnlyHostsList) on a capture built here: one-way TCP and UDP flows
// (probes nobody answers) that end, one answered exchange, answered
// keep-alives, and at the end an active flow to a
// server that has never sent a packet. The counts expected are the distinct
// (peer, server port) pairs written into the capture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { addUser, startApi, type ApiService } from './fixtures/api.js';
import { tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, tempDir, type Packet } from './fixtures/pcap.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
let s: ApiService;
let frames: Packet[] = [];
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const SCANNER = '192.168.6.10', SERVER = '192.168.6.20', OTHER = '192.168.6.21', WEB_CLIENT = '192.168.6.11';
const LATE = '192.168.6.12', SILENT = '192.168.6.30', ECHO = '192.168.6.31', KEEPER = '192.168.6.99';
const R_CLIENT = '198.51.100.7', R_SERVER = '203.0.113.5';
// one-way flows that end: [client, server, port, L4]
const ONE_WAY: [string, string, number, 'tcp' | 'udp'][] = [
  [SCANNER, SERVER, 22, 'tcp'], [SCANNER, SERVER, 23, 'tcp'], [SCANNER, OTHER, 22, 'tcp'], [SCANNER, SERVER, 161, 'udp'],
  [SCANNER, R_SERVER, 80, 'tcp'], [R_CLIENT, SERVER, 445, 'tcp'], [LATE, ECHO, 7, 'tcp'],
  // the same (server, port) again from another client port: one pair
  [SCANNER, SERVER, 22, 'tcp'],
];

beforeAll(async () => {
  const p: Packet[] = [];
  const at = (s: number) => BigInt(T0) * 1_000_000_000n + BigInt(Math.round(s * 1000)) * 1_000_000n;
  const frame = (src: string, dst: string, l4: Buffer, proto: number) => eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4));
  ONE_WAY.forEach(([c, sv, port, l4], i) =>
    p.push({
      tsNs: at(1 + i * 0.1),
      data: l4 === 'tcp' ? frame(c, sv, tcp({ sport: 50000 + i, dport: port, flags: TCPF.SYN, seq: 1 }), IPPROTO.TCP) : frame(c, sv, udp({ sport: 50000 + i, dport: port }, Buffer.from('probe')), IPPROTO.UDP),
    }),
  );
  // answered: the server has sent, the flow is two-way
  tcpSession(WEB_CLIENT, SERVER, 51000, 80, [[true, Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n')], [false, Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')]])
    .forEach((data, i) => p.push({ tsNs: at(2 + i * 0.001), data }));
  // keep-alives both ways every 0.5 s: time moves on in many batches of packets, so the
  // engine's sweep runs and the probes idle out
  for (let t = 0; t <= 150; t += 0.5) {
    p.push({ tsNs: at(t), data: frame(R_CLIENT, KEEPER, udp({ sport: 5000, dport: 5000 }, Buffer.from('ka')), IPPROTO.UDP) });
    p.push({ tsNs: at(t + 0.01), data: frame(KEEPER, R_CLIENT, udp({ sport: 5000, dport: 5000 }, Buffer.from('ka')), IPPROTO.UDP) });
    p.push({ tsNs: at(t + 0.02), data: frame(KEEPER, R_SERVER, udp({ sport: 5001, dport: 5001 }, Buffer.from('ka')), IPPROTO.UDP) });
    p.push({ tsNs: at(t + 0.03), data: frame(R_SERVER, KEEPER, udp({ sport: 5001, dport: 5001 }, Buffer.from('ka')), IPPROTO.UDP) });
  }
  // still active at the end: SYNs to a server that never answers
  for (const t of [140, 145, 150]) p.push({ tsNs: at(t + 0.5), data: frame(LATE, SILENT, tcp({ sport: 52000, dport: 9999, flags: TCPF.SYN, seq: 1 }), IPPROTO.TCP) });
  p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
  frames = p;
  // flows idle out after 60 s as in ntopng (the fixture keeps them by default); hosts stay
  s = await startApi({ files: [tmp.file('notx.pcap', pcap(p))], engine: { flowIdleSec: 60 } });
});

/** the expected counts of a host, from ONE_WAY */
function counts(ip: string) {
  const out = new Set<string>(), inn = new Set<string>(), ports = new Set<number>();
  for (const [c, sv, port] of ONE_WAY) {
    if (c === ip) out.add(`${sv}:${port}`);
    if (sv === ip) inn.add(`${c}:${port}`), ports.add(port);
  }
  return { tcp_num_contacted_peers_as_client: out.size, tcp_num_peers_contacts_rcvd_as_server: inn.size, tcp_num_ports_contacted_as_client: ports.size };
}
const hostsOf = (local: boolean) => [...new Set(ONE_WAY.flatMap(([c, sv]) => [c, sv]))].filter((ip) => ip.startsWith('192.168.') === local).sort();

describe('no_tx_peers', () => {
  for (const path of ['/lua/rest/v2/get/host/no_tx_peers.lua', '/lua/pro/rest/v2/get/host/no_tx_peers.lua']) {
    it(`${path}: the hosts with one-way flows ended, and the clients of a silent server`, async () => {
      const r = await s.call(path, { query: { ifid: 0 } });
      expect(r.body.rc, r.text).toBe(0);
      const { local_hosts, remote_hosts } = r.body.rsp.rx_only;
      for (const [side, local] of [[local_hosts, true], [remote_hosts, false]] as const) {
        expect(Object.keys(side.hosts_with_ports_count).sort(), `local ${local}`).toEqual(hostsOf(local));
        for (const ip of hostsOf(local)) expect(side.hosts_with_ports_count[ip], ip).toEqual(counts(ip));
      }
      // the answering server has sent: its clients are not listed; the silent one's client is
      expect(local_hosts.host_peers).toEqual({ [LATE]: counts(LATE) });
      expect(remote_hosts.host_peers).toEqual([]);
    });
  }

  it('host data: the no-TX estimates, the one-way flows ended each way, RX-only, and the sent/received ratios (Host::lua)', async () => {
    const data = async (ip: string) => {
      const r = await s.call('/lua/rest/v2/get/host/data.lua', { query: { ifid: 0, host: ip } });
      expect(r.body.rc, r.text).toBe(0);
      return r.body.rsp;
    };
    for (const ip of [SCANNER, SERVER, R_CLIENT, LATE, ECHO]) {
      const c = counts(ip), d = await data(ip);
      expect(d.num_contacted_peers_with_tcp_udp_flows_no_response, ip).toBe(c.tcp_num_contacted_peers_as_client);
      expect(d.num_incoming_peers_that_sent_tcp_udp_flows_no_response, ip).toBe(c.tcp_num_peers_contacts_rcvd_as_server);
      // every one-way flow counts here, the repeated (server, port) too
      expect(d.num_unidirectional_tcp_flows, ip).toEqual({
        num_ingress: ONE_WAY.filter(([, sv]) => sv === ip).length,
        num_egress: ONE_WAY.filter(([c]) => c === ip).length,
      });
    }
    // the silent server has only received; the answering one has sent
    expect((await data(SILENT)).is_rx_only).toBe(true);
    expect((await data(SERVER)).is_rx_only).toBe(false);
    // ratios from the frames written: (sent − received) / (sent + received)
    const src = (f: Packet) => `${f.data[26]}.${f.data[27]}.${f.data[28]}.${f.data[29]}`, dst = (f: Packet) => `${f.data[30]}.${f.data[31]}.${f.data[32]}.${f.data[33]}`;
    for (const ip of [WEB_CLIENT, SERVER, SILENT, SCANNER]) {
      const sent = frames.filter((f) => src(f) === ip), rcvd = frames.filter((f) => dst(f) === ip);
      const bytes = (l: Packet[]) => l.reduce((n, f) => n + f.data.length, 0);
      const d = await data(ip);
      expect(d.pkts_ratio, ip).toBeCloseTo((sent.length - rcvd.length) / (sent.length + rcvd.length), 9);
      expect(d.bytes_ratio, ip).toBeCloseTo((bytes(sent) - bytes(rcvd)) / (bytes(sent) + bytes(rcvd)), 9);
    }
  });

  it('interface data counts the unicast hosts that have only received, all and local; since-reset counters are the totals', async () => {
    const r = await s.call('/lua/rest/v2/get/interface/data.lua', { query: { ifid: 0 } });
    expect(r.body.rc).toBe(0);
    const d = r.body.rsp;
    const ip = (f: Packet, at: number) => `${f.data[at]}.${f.data[at + 1]}.${f.data[at + 2]}.${f.data[at + 3]}`;
    const senders = new Set(frames.map((f) => ip(f, 26)));
    const rxOnly = [...new Set(frames.map((f) => ip(f, 30)))].filter((a) => !senders.has(a));
    expect(rxOnly.sort()).toEqual([OTHER, SILENT, ECHO].sort());
    expect(d.num_rcvd_only_hosts).toBe(rxOnly.length);
    expect(d.num_local_rcvd_only_hosts).toBe(rxOnly.filter((a) => a.startsWith('192.168.')).length);
    expect(d).toMatchObject({
      bytes_upload_since_reset: d.bytes_upload, bytes_download_since_reset: d.bytes_download,
      packets_upload_since_reset: d.packets_upload, packets_download_since_reset: d.packets_download,
    });
    for (const dir of ['upload', 'download']) for (const k of ['bps_trend', 'pps_trend']) expect([1, 2, 3]).toContain(d.throughput[dir][k]);
    expect(d.engaged_alerts_notice + d.engaged_alerts_warning + d.engaged_alerts_error).toBeLessThanOrEqual(d.engaged_alerts);
    expect(d.host_dropped_alerts + d.flow_dropped_alerts + d.other_dropped_alerts).toBe(d.dropped_alerts);
    // v1 is ntopng's older script: none of these
    const v1 = (await s.call('/lua/rest/v1/get/interface/data.lua', { query: { ifid: 0 } })).body.rsp;
    expect(v1).not.toHaveProperty('num_rcvd_only_hosts');
    expect(v1).not.toHaveProperty('bytes_upload_since_reset');
  });

  it('-2 without an interface, -3 for a user who is not an administrator', async () => {
    expect((await s.call('/lua/rest/v2/get/host/no_tx_peers.lua')).body.rc).toBe(-2);
    await addUser(s, { username: 'viewer', password: 'Viewer-pw-123' });
    const r = await s.call('/lua/rest/v2/get/host/no_tx_peers.lua', { query: { ifid: 0 }, user: 'viewer', pw: 'Viewer-pw-123' });
    expect(r.body.rc).toBe(-3);
  });
});
