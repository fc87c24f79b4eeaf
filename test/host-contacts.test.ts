// ntopng's one-figure host checks measured by the engine and raised by the
// checks runner: dns/ntp/smtp_contacts (distinct servers a local host used as
// client, unless it is such a server itself), domain_names_contacts (distinct
// names its flows named, per minute), scan_detection (its flows that ended
// unanswered in the minute) and remote_connection (its live remote-access
// flows to or from outside). The capture is built here; every figure is
// counted by hand from its frames (comments), and the DNS, NTP and SMTP
// client → server pairs are also taken from tshark.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { HostCheckHits } from '../ts/bindings/engine.js';
import type { AlertInput, ValueCheckName } from '../ts/services/alerts/types.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { runHostChecks } from './fixtures/host-check-run.js';
import { DNS_RESPONSE, dns, dnsName, ipRdata, tlsClientHello } from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { type Packet, pcap, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';
import { T0 } from './fixtures/ts-capture.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const at = (ms: number) => BigInt(T0) * 1_000_000_000n + BigInt(ms) * 1_000_000n;
const v4 = (ms: number, src: string, dst: string, proto: number, l4: Buffer): Packet => ({ tsNs: at(ms), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4)) });
const udpPkt = (ms: number, src: string, sport: number, dst: string, dport: number, payload: Buffer) => v4(ms, src, dst, IPPROTO.UDP, udp({ sport, dport }, payload));
const tcpPkt = (ms: number, src: string, sport: number, dst: string, dport: number, flags: number, payload?: Buffer, seq = 1, ack = 1) =>
  v4(ms, src, dst, IPPROTO.TCP, tcp({ sport, dport, flags, seq, ack }, payload));
const { SYN, ACK, PSH } = TCPF;

/** A DNS query for `name` and its answer 5 ms later. */
function dnsPair(ms: number, cli: string, sport: number, srv: string, name: string): Packet[] {
  const q = { name: dnsName(name), type: 1 };
  return [
    udpPkt(ms, cli, sport, srv, 53, dns({ id: sport, flags: 0x0100, questions: [q] })),
    udpPkt(ms + 5, srv, 53, cli, sport, dns({ id: sport, flags: DNS_RESPONSE, questions: [q], answers: [{ name: dnsName(name), type: 1, rdata: ipRdata('192.0.2.99') }] })),
  ];
}
/** An NTPv4 client request (mode 3) and the server's answer (mode 4). */
function ntpPair(ms: number, cli: string, sport: number, srv: string): Packet[] {
  const req = Buffer.alloc(48), rsp = Buffer.alloc(48);
  req[0] = (4 << 3) | 3;
  rsp[0] = (4 << 3) | 4;
  return [udpPkt(ms, cli, sport, srv, 123, req), udpPkt(ms + 5, srv, 123, cli, sport, rsp)];
}
/** A TCP connection: handshake, then `talk` ([from client?, payload]) 10 ms apart. */
function conn(ms: number, cli: string, sport: number, srv: string, dport: number, talk: [boolean, string | Buffer][]): Packet[] {
  const p = [tcpPkt(ms, cli, sport, srv, dport, SYN, undefined, 0, 0), tcpPkt(ms + 1, srv, dport, cli, sport, SYN | ACK, undefined, 0, 1), tcpPkt(ms + 2, cli, sport, srv, dport, ACK)];
  const seq = [1, 1];
  talk.forEach(([c, d], k) => {
    const b = typeof d === 'string' ? Buffer.from(d, 'latin1') : d;
    p.push(c ? tcpPkt(ms + 10 * (k + 1), cli, sport, srv, dport, PSH | ACK, b, seq[0], seq[1]) : tcpPkt(ms + 10 * (k + 1), srv, dport, cli, sport, PSH | ACK, b, seq[1], seq[0]));
    seq[c ? 0 : 1] += b.length;
  });
  return p;
}

// Hosts (10.0.0.0/8 is local by default; the others are remote).
const L = '10.20.0.5'; //   client of 7 DNS, 6 NTP, 6 SMTP servers; SSH out (and to a local host)
const M = '10.20.0.9'; //   a DNS server itself, also client of 7 DNS servers
const Q = '10.20.0.77'; //  asks M
const R = '198.18.0.1'; //  remote: client of 7 DNS servers
const R2 = '198.51.100.77'; // remote: SSH into a local server
const D = '10.20.0.30'; //  names: 6 distinct DNS names (9 queries) and two TLS SNIs (one a DNS name) in minute 0, 3 in minute 1
const H9 = '10.20.0.41', H300 = '10.20.0.42'; // clients of 9 and 300 DNS servers (beyond the exact count)
const S = '10.20.0.50'; //  scanner: 40 unanswered SYNs, 5 unanswered UDP probes, 1 broadcast
// filler: a packet every 5 ms, both ways: the engine sweeps its tables after each batch of
// 256 packets, so packet time must move in small steps for flows to expire on time
const F1 = '10.99.0.1', F2 = '10.99.0.2';

function capture(): Packet[] {
  const p: Packet[] = [];
  for (let i = 0; i < 7; i++) p.push(...dnsPair(1000 + 20 * i, L, 30000 + i, `198.51.100.${1 + i}`, `q${i}.example`));
  p.push(...dnsPair(2000, Q, 40000, M, 'local.example'));
  for (let i = 0; i < 7; i++) p.push(...dnsPair(2100 + 20 * i, M, 31000 + i, `198.51.100.${11 + i}`, `m${i}.example`));
  for (let i = 0; i < 7; i++) p.push(...dnsPair(3000 + 20 * i, R, 32000 + i, `198.51.100.${21 + i}`, `r${i}.example`));
  for (let i = 0; i < 9; i++) p.push(...dnsPair(9000 + 20 * i, H9, 37000 + i, `198.51.101.${1 + i}`, 'same.example'));
  for (let i = 0; i < 300; i++) p.push(...dnsPair(10000 + 20 * i, H300, 20000 + i, `172.${16 + (i >> 8)}.${i & 255}.53`, 'same.example'));
  for (let i = 0; i < 6; i++) p.push(...ntpPair(4000 + 20 * i, L, 33000 + i, `192.0.2.${1 + i}`));
  for (let i = 0; i < 6; i++) p.push(...conn(5000 + 100 * i, L, 34000 + i, `203.0.113.${1 + i}`, 25, [[false, '220 mx.example ESMTP\r\n'], [true, 'EHLO client\r\n'], [false, '250 mx.example\r\n']]));
  ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n1', 'n2', 'n3'].forEach((n, k) => p.push(...dnsPair(6000 + 20 * k, D, 35000 + k, '198.51.100.1', `${n}.example`)));
  p.push(...conn(6500, D, 35100, '203.0.113.50', 443, [[true, tlsClientHello('shop.example')]]));
  // a name D's DNS flows named, now named by a TLS flow: the classifier is done with a DNS flow
  // when it is counted (its name kept interned) and still reads a TLS one — one name, counted once
  p.push(...conn(6600, D, 35101, '203.0.113.51', 443, [[true, tlsClientHello('n2.example')]]));
  // SSH out from L (remote access, kept alive every 10 s until 65 s, then silent), and to a local host
  p.push(...conn(7000, L, 36000, '198.51.100.200', 22, [[false, 'SSH-2.0-OpenSSH_9.2\r\n'], [true, 'SSH-2.0-OpenSSH_9.6\r\n']]));
  for (let t = 17000; t <= 65000; t += 10000) p.push(tcpPkt(t, L, 36000, '198.51.100.200', 22, PSH | ACK, Buffer.alloc(36, 7), 100, 100));
  p.push(...conn(7500, L, 36001, '10.20.0.8', 22, [[false, 'SSH-2.0-OpenSSH_9.2\r\n'], [true, 'SSH-2.0-OpenSSH_9.6\r\n']]));
  // a remote client's SSH into a local server: its remote access (until it goes silent at 47.7 s)
  p.push(...conn(7700, R2, 36002, '10.20.0.8', 22, [[false, 'SSH-2.0-OpenSSH_9.2\r\n'], [true, 'SSH-2.0-OpenSSH_9.6\r\n']]));
  for (let t = 17700; t <= 47700; t += 10000) p.push(tcpPkt(t, R2, 36002, '10.20.0.8', 22, PSH | ACK, Buffer.alloc(36, 7), 100, 100));
  for (let t = 17500; t <= 57500; t += 10000) p.push(tcpPkt(t, L, 36001, '10.20.0.8', 22, PSH | ACK, Buffer.alloc(36, 7), 100, 100));
  // scanner: flows idle 20 s expire in minute 0
  for (let i = 0; i < 40; i++) p.push(tcpPkt(8000 + 10 * i, S, 44000, '10.20.0.60', 1000 + i, SYN, undefined, 0, 0));
  for (let i = 0; i < 5; i++) p.push(udpPkt(8500 + 10 * i, S, 45000, '10.20.0.61', 2000 + i, Buffer.alloc(8)));
  p.push(udpPkt(8600, S, 45000, '255.255.255.255', 9999, Buffer.alloc(8)));
  // minute 1: D names three new names
  ['k1', 'k2', 'k3', 'k1'].forEach((n, k) => p.push(...dnsPair(70000 + 20 * k, D, 36100 + k, '198.51.100.1', `${n}.example`)));
  for (let k = 0; k <= 25_000; k++) p.push(udpPkt(k * 5 + 3, k % 2 ? F1 : F2, 7000, k % 2 ? F2 : F1, 7000, Buffer.alloc(4)));
  return p.sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0));
}

const file = tmp.file('host-contacts.pcap', pcap(capture()));

const ALL0: Partial<Record<ValueCheckName, number>> = { scan_detection: 0, dns_contacts: 0, ntp_contacts: 0, smtp_contacts: 0, domain_names_contacts: 0, remote_connection: 0 };
/** ip → check → figure, of the checks with a figure above 0 */
function figures(rows: HostCheckHits[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows) for (const [c, v] of Object.entries(r.hits)) if (v && v.attacker) (out[r.ip] ??= {})[c] = v.attacker;
  return out;
}

describe('contact, scan-detection and remote-connection host checks', () => {
  let dir: string, store: ConfigStore;
  const ticks: { boundary: number; figures: Record<string, Record<string, number>> }[] = [];
  const engagedAt: Record<number, AlertInput[]> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-contacts-'));
    store = new ConfigStore(dir);
    const cfg = ChecksConfig.open(store);
    for (const k of ['dns_contacts', 'ntp_contacts', 'smtp_contacts', 'scan_detection', 'remote_connection']) await cfg.setEnabled('host', k, true);
    await cfg.update('host', 'domain_names_contacts', { min: { enabled: true, script_conf: { operator: 'gt', threshold: 5 } } });
    // the runner first: the engine's figures are those of the minute just closed either way
    const r = await runHostChecks(file, cfg, (hits) => figures(hits(ALL0)), { flowIdleSec: 20 });
    for (const t of r.ticks) {
      engagedAt[t.boundary] = t.engaged;
      ticks.push({ boundary: t.boundary, figures: t.figures });
    }
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tshark sees the client → server pairs the figures count', async () => {
    const pairs = async (filter: string) => {
      const m = new Map<string, Set<string>>();
      for (const [src, dst] of await tsharkFields(file, ['ip.src', 'ip.dst'], filter)) (m.get(src) ?? m.set(src, new Set()).get(src)!).add(dst);
      return Object.fromEntries([...m].map(([k, v]) => [k, v.size]));
    };
    expect(await pairs('dns.flags.response == 0')).toEqual({ [L]: 7, [Q]: 1, [M]: 7, [R]: 7, [D]: 1, [H9]: 9, [H300]: 300 });
    expect(await pairs('ntp.flags.mode == 3')).toEqual({ [L]: 6 });
    expect(await pairs('smtp.req.command == "EHLO"')).toEqual({ [L]: 6 });
  });

  it('minute 0: servers, names, unanswered flows and live remote access per host', () => {
    const t0 = ticks.find((t) => t.boundary === T0 + 60)!;
    expect(t0).toBeDefined();
    // L: 7 DNS, 6 NTP, 6 SMTP servers; one live SSH flow out (the one to 10.20.0.8 is local to
    // local); its 7 query names (the NTP, SMTP and SSH flows name nothing).
    expect(t0.figures[L]).toEqual({ dns_contacts: 7, ntp_contacts: 6, smtp_contacts: 6, remote_connection: 1, domain_names_contacts: 7 });
    // M answered Q's query on port 53: a DNS server, so its 7 upstream servers are not counted.
    expect(t0.figures[M]).toEqual({ domain_names_contacts: 7 });
    expect(t0.figures[Q]).toMatchObject({ dns_contacts: 1, domain_names_contacts: 1 });
    // R is remote: no contact figures. R2's SSH in is a remote access of its own (any client).
    expect(t0.figures[R]).toBeUndefined();
    expect(t0.figures[R2]).toEqual({ remote_connection: 1 });
    // D: n1…n6 (the repeats add nothing, n2's SNI neither) and the SNI shop.example: 7 names; one DNS server.
    expect(t0.figures[D]).toEqual({ dns_contacts: 1, domain_names_contacts: 7 });
    // Up to 8 servers the count is exact; beyond, a 32-register HyperLogLog estimates (standard
    // error 1.04 / sqrt(32) = 18 %; its hash is fixed, so these figures are too).
    expect(t0.figures[H9]).toMatchObject({ domain_names_contacts: 1 });
    expect(Math.abs(t0.figures[H9]!.dns_contacts! - 9)).toBeLessThanOrEqual(2);
    expect(Math.abs(t0.figures[H300]!.dns_contacts! - 300)).toBeLessThanOrEqual(300 * 0.54);
    // S: 40 flows that only sent a SYN, 5 UDP probes never answered; the broadcast probe does not count.
    expect(t0.figures[S]).toEqual({ scan_detection: 45 });
  });

  it('minute 1: names start again, server contacts stay, remote access ends with its flow', () => {
    const t1 = ticks.find((t) => t.boundary === T0 + 120)!;
    expect(t1).toBeDefined();
    // k1, k2, k3 (k1 twice)
    expect(t1.figures[D]).toEqual({ dns_contacts: 1, domain_names_contacts: 3 });
    // the SSH flow went silent at 65 s and expired (idle 20 s) before 120 s
    expect(t1.figures[L]).toEqual({ dns_contacts: 7, ntp_contacts: 6, smtp_contacts: 6 });
    expect(t1.figures[S]).toBeUndefined();
    // silent since 47.7 s, expired (idle 20 s) in minute 1
    expect(t1.figures[R2]).toBeUndefined();
  });

  it('raises ntopng’s alerts above the thresholds and releases them when the figure falls', () => {
    const t0 = (ip: string) => ticks.find((t) => t.boundary === T0 + 60)!.figures[ip]!.dns_contacts;
    const at0 = engagedAt[T0 + 60]!.map((a) => [a.entityVal, a.alertId, a.score, a.fields.alert_category, a.json]);
    const strip = ({ alert_generation: _, ...j }: Record<string, unknown>) => j;
    const rows = at0.map(([e, id, score, cat, json]) => [e, id, score, cat, strip(json as Record<string, unknown>)]).sort();
    expect(rows).toEqual(
      [
        // dns_contacts (2), ntp_contacts (3), smtp_contacts (1): > 5, SCORE_LEVEL_NOTICE, security
        [L, 2, 10, 1, { value: 7, threshold: 5 }],
        [L, 3, 10, 1, { value: 6, threshold: 5 }],
        [L, 1, 10, 1, { value: 6, threshold: 5 }],
        // remote_connection (12): NOTICE, network
        [L, 12, 10, 3, { num_flows: 1 }],
        [R2, 12, 10, 3, { num_flows: 1 }],
        // domain_names_contacts (7) with threshold 5: NOTICE, network
        [D, 7, 10, 3, { num_domain_names: 7, threshold: 5 }],
        [L, 7, 10, 3, { num_domain_names: 7, threshold: 5 }],
        [M, 7, 10, 3, { num_domain_names: 7, threshold: 5 }],
        // scan_detection (20): > 32, SCORE_LEVEL_ERROR, security
        [S, 20, 100, 1, { value: 45, threshold: 32, is_rx_only: false }],
        [H9, 2, 10, 1, { value: t0(H9), threshold: 5 }],
        [H300, 2, 10, 1, { value: t0(H300), threshold: 5 }],
      ].sort(),
    );
    // the client share: full (100 %) for contacts and scans → is_client; fair (50 %) → neither
    const byId = new Map(engagedAt[T0 + 60]!.map((a) => [`${a.entityVal}|${a.alertId}`, a]));
    expect(byId.get(`${L}|2`)!.fields).toMatchObject({ is_client: 1, is_server: 0 });
    expect(byId.get(`${L}|12`)!.fields).toMatchObject({ is_client: 0, is_server: 0 });
    const at1 = engagedAt[T0 + 120]!.map((a) => `${a.entityVal}|${a.alertId}`).sort();
    // still above: L's three server-contact alerts; gone: remote access, the names (D: 3 ≤ 5; L, M: none), the scan
    expect(at1).toEqual([`${H300}|2`, `${H9}|2`, `${L}|1`, `${L}|2`, `${L}|3`].sort());
  });
});
