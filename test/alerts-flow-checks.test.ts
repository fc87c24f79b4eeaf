// ntopng's own flow checks end to end: frames built here (a Telnet session from the
// Internet to a local server, a connection refused with a reset, ICMP and UDP to the
// limited broadcast), replayed through the engine with the historical store; the
// flow alert list must hold exactly the alerts those flows raise by ntopng's rules
// (see services/checks/flow-record-checks.ts), with ntopng's ids, English titles and scores: tshark
// confirms what each flow is (handshake, reset, protocol, destination).
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { addon } from '../ts/bindings/native.js';
import { defaultGeo } from '../ts/services/geo/index.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { dns, dnsName } from './fixtures/apps.js';
import { eth, ETH, icmp, IPPROTO, ipv4, mac, MAC_A, MAC_B, tcp, TCPF, udp, vlanTag } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';
import { NDPI_PCAPS, normIp } from './fixtures/util.js';

const BCAST = mac('ff:ff:ff:ff:ff:ff');
const TELNET = addon.info().dpi.protocols.find((p) => p.name === 'Telnet')!.id;
const T0 = 1_700_000_000;

function frames(): Buffer {
  const pk: { tsNs: bigint; data: Buffer }[] = [];
  let t = T0;
  const at = () => sec((t += 0.01));
  const tcpf = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, ack: number, data = Buffer.alloc(0), from = MAC_A, to = MAC_B) =>
    pk.push({ tsNs: at(), data: eth(to, from, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack }, data))) });

  // 1. Telnet, remote client → local server: handshake, option negotiation (IAC DO / WILL), close
  const [c, s] = ['198.51.100.7', '10.0.0.9'];
  tcpf(c, s, 40001, 23, TCPF.SYN, 100, 0);
  tcpf(s, c, 23, 40001, TCPF.SYN | TCPF.ACK, 500, 101, undefined, MAC_B, MAC_A);
  tcpf(c, s, 40001, 23, TCPF.ACK, 101, 501);
  const doOpts = Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20, 0xff, 0xfd, 0x23, 0xff, 0xfd, 0x27]);
  const willOpts = Buffer.from([0xff, 0xfb, 0x18, 0xff, 0xfb, 0x20, 0xff, 0xfb, 0x23, 0xff, 0xfb, 0x27]);
  tcpf(s, c, 23, 40001, TCPF.PSH | TCPF.ACK, 501, 101, doOpts, MAC_B, MAC_A);
  tcpf(c, s, 40001, 23, TCPF.PSH | TCPF.ACK, 101, 513, willOpts);
  tcpf(s, c, 23, 40001, TCPF.PSH | TCPF.ACK, 513, 113, Buffer.from([0xff, 0xfa, 0x18, 0x01, 0xff, 0xf0]), MAC_B, MAC_A);
  tcpf(c, s, 40001, 23, TCPF.FIN | TCPF.ACK, 113, 519);
  tcpf(s, c, 23, 40001, TCPF.FIN | TCPF.ACK, 519, 114, undefined, MAC_B, MAC_A);
  tcpf(c, s, 40001, 23, TCPF.ACK, 114, 520);

  // 2. local → local, the server refuses: SYN, RST+ACK
  tcpf('10.0.0.2', '10.0.0.3', 40002, 8080, TCPF.SYN, 1000, 0);
  tcpf('10.0.0.3', '10.0.0.2', 8080, 40002, TCPF.RST | TCPF.ACK, 0, 1001, undefined, MAC_B, MAC_A);

  // 3. ICMP echo to the limited broadcast; 4. UDP (DHCP discover-like) to it
  pk.push({ tsNs: at(), data: eth(BCAST, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.4', dst: '255.255.255.255', proto: IPPROTO.ICMP }, icmp(8, 0, Buffer.from([0, 1, 0, 1])))) });
  pk.push({ tsNs: at(), data: eth(BCAST, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.4', dst: '255.255.255.255', proto: IPPROTO.UDP }, udp({ sport: 68, dport: 67 }, Buffer.alloc(240)))) });

  // 5. on VLAN 10 (listed), local client → remote server, data both ways; 6. the same on VLAN 11 (not listed)
  for (const [vid, sport] of [[10, 40005], [11, 40006]] as const) {
    const seg = (src: string, dst: string, sp: number, dp: number, flags: number, seq: number, ack: number, data = Buffer.alloc(0), from = MAC_A, to = MAC_B) =>
      pk.push({ tsNs: at(), data: eth(to, from, ETH.VLAN, vlanTag(vid, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport: sp, dport: dp, flags, seq, ack }, data)))) });
    seg('10.0.0.8', '203.0.113.80', sport, 443, TCPF.SYN, 100, 0);
    seg('203.0.113.80', '10.0.0.8', 443, sport, TCPF.SYN | TCPF.ACK, 900, 101, undefined, MAC_B, MAC_A);
    seg('10.0.0.8', '203.0.113.80', sport, 443, TCPF.PSH | TCPF.ACK, 101, 901, Buffer.alloc(100, 1));
    seg('203.0.113.80', '10.0.0.8', 443, sport, TCPF.PSH | TCPF.ACK, 901, 201, Buffer.alloc(100, 2), MAC_B, MAC_A);
  }

  // 7. local → remote, the client's one data segment sent three times (two retransmissions of 7 packets: 28 %)
  const [a, z] = ['10.0.0.10', '203.0.113.90'];
  const GET = Buffer.from('GET / HTTP/1.1\r\nHost: example.org\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n');
  tcpf(a, z, 40007, 80, TCPF.SYN, 7000, 0);
  tcpf(z, a, 80, 40007, TCPF.SYN | TCPF.ACK, 9000, 7001, undefined, MAC_B, MAC_A);
  tcpf(a, z, 40007, 80, TCPF.ACK, 7001, 9001);
  for (let i = 0; i < 3; i++) tcpf(a, z, 40007, 80, TCPF.PSH | TCPF.ACK, 7001, 9001, GET);
  tcpf(z, a, 80, 40007, TCPF.ACK, 9001, 7001 + GET.length, undefined, MAC_B, MAC_A);

  // 8. local → remote, data, then the server advertises a zero window; it closes with FIN (window 0 there does not count)
  const [y, w] = ['10.0.0.11', '203.0.113.91'];
  const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, ack: number, win: number, data = Buffer.alloc(0)) =>
    pk.push({ tsNs: at(), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack, win }, data))) });
  seg(y, w, 40008, 80, TCPF.SYN, 100, 0, 64240);
  seg(w, y, 80, 40008, TCPF.SYN | TCPF.ACK, 500, 101, 64240);
  seg(y, w, 40008, 80, TCPF.PSH | TCPF.ACK, 101, 501, 64240, GET);
  seg(w, y, 80, 40008, TCPF.ACK, 501, 101 + GET.length, 0);
  seg(w, y, 80, 40008, TCPF.FIN | TCPF.ACK, 501, 101 + GET.length, 0);
  return pcap(pk);
}

describe('own flow checks from packets', () => {
  const tmp = tempDir('flowgate-fchk-');
  let s: ApiService;
  let file: string;
  beforeAll(async () => {
    file = tmp.file('checks.pcap', frames());
    s = await startApi({
      files: [file],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: true,
      // tcp_flow_reset and vlan_bidirectional_traffic are off by default in ntopng
      configure: async (c) => {
        await c.setEnabled('flow', 'tcp_flow_reset', true);
        await c.update('flow', 'vlan_bidirectional_traffic', { all: { enabled: true, script_conf: { items: ['10'] } } });
        await c.update('flow', 'tcp_packets_issues', { all: { enabled: true, script_conf: { retransmissions: { threshold: 10, enabled: 1 } } } });
      },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('the frames are what the test says (tshark)', async () => {
    const lines = await tsharkFields(file, ['ip.dst', 'tcp.flags.reset', 'telnet.cmd'], 'tcp.flags.reset == 1 || telnet || ip.dst == 255.255.255.255');
    expect(lines.filter((l) => l[1] === '1').map((l) => l[0])).toEqual(['10.0.0.2']);
    expect(lines.filter((l) => l[2]).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l[0] === '255.255.255.255').length).toBe(2);
    const zw = await tsharkFields(file, ['ip.src'], 'tcp.window_size_value == 0 && !(tcp.flags.fin == 1) && !(tcp.flags.reset == 1) && !(tcp.flags.syn == 1 && tcp.flags.ack == 0)');
    // the zero window of flow 8 (the refused connection's RST+ACK carries window 65535 here: not one)
    expect(zw).toEqual([['203.0.113.91']]);
    const retr = await tsharkFields(file, ['ip.dst'], 'tcp.analysis.retransmission');
    expect(retr).toEqual([['203.0.113.90'], ['203.0.113.90']]);
    // flows 7 and 8's bytes and TCP payload bytes (the low goodput ratios below)
    for (const [host, bytes, payload] of [['203.0.113.90', 600, 222], ['203.0.113.91', 344, 74]] as const) {
      const rows = await tsharkFields(file, ['frame.len', 'tcp.len'], `ip.addr == ${host}`);
      expect([rows.reduce((a, r) => a + Number(r[0]), 0), rows.reduce((a, r) => a + Number(r[1]), 0)]).toEqual([bytes, payload]);
    }
    const vlans = await tsharkFields(file, ['vlan.id', 'ip.dst'], 'vlan && tcp.len > 0');
    expect(vlans.map((l) => l.join(' '))).toEqual(['10 203.0.113.80', '10 10.0.0.8', '11 203.0.113.80', '11 10.0.0.8']);
  });

  it('lists the alerts the flows raise, with ntopng ids and scores, and nothing for the UDP broadcast', async () => {
    const r = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 100 } });
    expect(r.body.rc, r.text).toBe(0);
    // format=txt: the same records as CSV, a header line first
    const csv = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 100, format: 'txt' } });
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(csv.text.trim().split('\n')).toHaveLength(r.body.rsp.records.length + 1);
    const got = (r.body.rsp.records as any[])
      .map((x) => ({ srv: x.srv_ip.value, alert: Number(x.alert_id.value), label: x.alert_id.label, score: Number(x.score.value), risks: BigInt(x.flow_risk_bitmap || '0') }))
      .sort((a, b) => a.srv.localeCompare(b.srv) || a.alert - b.alert);
    // low goodput (notice, 10): a TCP flow with its handshake, more than 3 packets and at most 60 %
    // of its bytes payload (header bytes counted by hand: 58 per VLAN frame, 54 untagged) —
    // flows 5 and 6 (200 of 432 bytes: 46 %), 7 (3 × 74 of 600: 36 %), 8 (74 of 344: 21 %, tshark's sums above); Telnet is exempt
    expect(got).toEqual([
      // TCP flow reset (notice, 10) and, no payload either way, TCP no data exchanged (notice, 10); the SYN answered
      // by a RST is also nDPI's TCP Connection Issues risk (ndpi_check_tcp_flags, refused by the server: medium, 50),
      // the predominant one
      { srv: '10.0.0.3', alert: 90, label: 'TCP Connection Issues', score: 70, risks: 1n << 50n },
      // Telnet: remote to local insecure (Unsafe breed) 100 + remote access 10 + nDPI's unsafe
      // protocol risk (22, low: 10); the predominant alert is the highest, 38
      { srv: '10.0.0.9', alert: 38, label: 'Remote to Local Insecure Flow', score: 120, risks: 1n << 22n },
      { srv: '203.0.113.80', alert: 12, label: 'Low Goodput Ratio', score: 10, risks: 0n }, // VLAN 11: low goodput only
      { srv: '203.0.113.80', alert: 91, label: 'VLAN Bidirectional Traffic', score: 110, risks: 0n }, // VLAN bidirectional: VLAN 10 only (+ low goodput)
      { srv: '203.0.113.90', alert: 19, label: 'TCP Packets Issues', score: 110, risks: 0n }, // TCP packets issues: 2 of 7 retransmitted > 10 % (+ low goodput)
      { srv: '203.0.113.91', alert: 36, label: 'TCP Zero Window', score: 20, risks: 0n }, // the server's window fell to 0 (not on FIN/RST) (+ low goodput)
      { srv: '255.255.255.255', alert: 67, label: 'Broadcast Non-UDP Traffic', score: 100, risks: 0n }, // broadcast non-UDP (ICMP)
    ]);
  });

  it('the Telnet row carries both alerts in its bitmap and is Telnet', async () => {
    const r = await s.call('/lua/pro/rest/v2/get/db/flows.lua', { query: { ifid: 0, select_clause: 'L7_PROTO,ALERTS_MAP', where_clause: 'IP_DST_PORT = 23', begin_time_clause: 0, end_time_clause: 0xffffffff } });
    expect(r.body.rc, r.text).toBe(0);
    const [row] = r.body.rsp as any[];
    expect(Number(row.L7_PROTO)).toBe(TELNET);
    // alert ids 57 (remote access), 52 (unsafe protocol risk), 38 (remote to local insecure)
    expect(row.ALERTS_MAP).toBe('0210004000000000');
  });
});

// The two TCP state checks on real captures, against tshark: the TCP conversations without a
// payload byte must be exactly those alerted as TCP no data exchanged (56), the ones with a zero
// window outside FIN/RST exactly those alerted as TCP zero window (36).
describe('TCP no data and zero window on nDPI captures, against tshark', () => {
  const CAPTURES = ['1kxun.pcap', 'edonkey.pcap', 'ipp.pcap', 'pop3.pcap', 'WebattackSQLinj.pcap'];
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: CAPTURES.map((c) => join(NDPI_PCAPS, c)), engine: { flushAtEnd: true, periodicDumpSec: 0 }, history: true });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  /** endpoints in a fixed order, so both sides name a conversation alike */
  const convKey = (a: string, pa: string | number, b: string, pb: string | number) => {
    const x = `${normIp(a)}|${pa}`, y = `${normIp(b)}|${pb}`;
    return x < y ? `${x}|${y}` : `${y}|${x}`;
  };

  it('agrees with tshark on every capture', async () => {
    let noData = 0, zeroWin = 0;
    for (let ifid = 0; ifid < CAPTURES.length; ifid++) {
      const rows = await tsharkFields(
        join(NDPI_PCAPS, CAPTURES[ifid]!),
        ['tcp.stream', 'ip.src', 'ipv6.src', 'tcp.srcport', 'ip.dst', 'ipv6.dst', 'tcp.dstport', 'tcp.len', 'tcp.window_size_value', 'tcp.flags.fin', 'tcp.flags.reset'],
        'tcp',
      );
      const streams = new Map<string, { key: string; payload: number; zero: boolean }>();
      for (const [st, s4, s6, sp, d4, d6, dp, len, win, fin, rst] of rows) {
        const e = streams.get(st!) ?? { key: convKey(s4 || s6!, sp!, d4 || d6!, dp!), payload: 0, zero: false };
        e.payload += Number(len || 0);
        if (win === '0' && fin !== '1' && fin !== 'True' && rst !== '1' && rst !== 'True') e.zero = true;
        streams.set(st!, e);
      }
      const wantNoData = new Set([...streams.values()].filter((e) => e.payload === 0).map((e) => e.key));
      const wantZero = new Set([...streams.values()].filter((e) => e.zero).map((e) => e.key));

      const r = await s.call(v2('get/flow/alert/list'), { query: { ifid, epoch_begin: 0, epoch_end: 0xffffffff, length: 10000 } });
      expect(r.body.rc, r.text).toBe(0);
      const gotNoData = new Set<string>(), gotZero = new Set<string>();
      for (const x of r.body.rsp.records as any[]) {
        if (Number(x.proto.value) !== 6) continue;
        const ids = BigInt(`0x${x.alerts_map || '0'}`);
        const k = convKey(x.cli_ip.value, x.cli_port.value, x.srv_ip.value, x.srv_port.value);
        if ((ids >> 56n) & 1n) gotNoData.add(k);
        if ((ids >> 36n) & 1n) gotZero.add(k);
      }
      expect([...gotNoData].sort(), CAPTURES[ifid]).toEqual([...wantNoData].sort());
      expect([...gotZero].sort(), CAPTURES[ifid]).toEqual([...wantZero].sort());
      noData += wantNoData.size;
      zeroWin += wantZero.size;
    }
    // the captures hold both cases
    expect(noData).toBeGreaterThan(0);
    expect(zeroWin).toBeGreaterThan(0);
  });
});

const dnsQuery = (i: number) => dns({ id: 0x100 + i, flags: 0x0100, questions: [{ name: dnsName(`host${i}.example.org`), type: 1 }] });

describe('country check (blacklisted_country) from packets, countries from the shipped geolocation', () => {
  const tmp = tempDir('flowgate-ccheck-');
  let s: ApiService;
  // DNS questions from a local client to public servers, and one remote client reaching a local web server
  const SERVERS = ['8.8.8.8', '1.1.1.1', '193.0.14.129', '77.88.8.8', '202.12.27.33'];
  beforeAll(async () => {
    const geo = await defaultGeo();
    const pkts = SERVERS.map((srv, i) => ({
      tsNs: sec(1_700_000_000 + i),
      data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.5', dst: srv, proto: IPPROTO.UDP }, udp({ sport: 40000 + i, dport: 53 }, dnsQuery(i)))),
    }));
    pkts.push({ tsNs: sec(1_700_000_010), data: eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: '5.255.255.5', dst: '10.0.0.7', proto: IPPROTO.TCP }, tcp({ sport: 51000, dport: 80, flags: TCPF.SYN, seq: 1 }))) });
    // the listed countries: those the databases give 8.8.8.8 and 5.255.255.5 (US and RU in DB-IP Lite)
    listed = [geo.lookup('8.8.8.8').country, geo.lookup('5.255.255.5').country];
    countryOf = (ip: string) => geo.lookup(ip).country;
    const file = tmp.file('countries.pcap', pcap(pkts));
    s = await startApi({
      files: [file],
      engine: { flushAtEnd: true, periodicDumpSec: 0 },
      history: true,
      configure: async (c) => c.update('flow', 'country_check', { all: { enabled: true, script_conf: { items: listed.map((x) => x.toLowerCase()) } } }),
    });
  }, 60_000);
  let listed: string[] = [];
  let countryOf: (ip: string) => string = () => '';
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('alerts the flows with an end in a listed country, with ntopng id, score and roles', async () => {
    expect(listed.every((c) => /^[A-Z]{2}$/.test(c))).toBe(true);
    const r = await s.call('/lua/pro/rest/v2/get/db/flows.lua', {
      query: { ifid: 0, select_clause: 'IPV4_SRC_ADDR,IPV4_DST_ADDR,STATUS,SCORE,IS_CLI_ATTACKER,IS_CLI_VICTIM,IS_SRV_ATTACKER,IS_SRV_VICTIM', begin_time_clause: 0, end_time_clause: 0xffffffff, maxhits_clause: 100 },
    });
    expect(r.body.rc, r.text).toBe(0);
    const rows = (r.body.rsp as any[]).map((x) => ({ cli: normIp(x.IPV4_SRC_ADDR), srv: normIp(x.IPV4_DST_ADDR), status: Number(x.STATUS), score: Number(x.SCORE), roles: [x.IS_CLI_ATTACKER, x.IS_CLI_VICTIM, x.IS_SRV_ATTACKER, x.IS_SRV_VICTIM].map(Number) }));
    expect(rows.length).toBe(SERVERS.length + 1);
    for (const row of rows) {
      const hit = listed.includes(countryOf(row.cli)) || listed.includes(countryOf(row.srv));
      if (!hit) {
        expect(row.status, `${row.cli} → ${row.srv}`).not.toBe(2);
        continue;
      }
      expect(row.status, `${row.cli} → ${row.srv}`).toBe(2);
      expect(row.score).toBeGreaterThanOrEqual(100);
      // a listed client alone: attacker, the server its victim; a listed server: both attackers
      expect(row.roles).toEqual(listed.includes(countryOf(row.cli)) && !listed.includes(countryOf(row.srv)) ? [1, 0, 0, 1] : [1, 0, 1, 0]);
    }
    expect(rows.filter((x) => x.status === 2).map((x) => x.srv).sort()).toEqual(['10.0.0.7', '77.88.8.8', '8.8.8.8']);
  });
});
