// Host naming on hand-built captures: DNS (UDP and TCP, compression, pointer
// loops), mDNS, LLMNR, DHCP, NetBIOS, TLS SNI and HTTP Host, the name cache
// (names learned before their host exists), the priority between sources and
// the plausibility/length rules. Rules from native/src/dpi/ and learn_name /
// name_host / host_for in native/src/engine/pipeline.cpp. tshark checks at the
// end that every well-formed payload dissects as the protocol it claims to be.
import { execFile } from 'node:child_process';
import { isIPv4 } from 'node:net';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import type { HostRecord } from '../ts/bindings/native.js';
import {
  DHCP_MSG, DNS_RESPONSE, DNS_TYPE,
  dhcp, dhcpOpt, dns, dnsLabels, dnsName, dnsPtr, dnsTcp, httpGet, ipRdata, nbName, nbnsQueryResponse, nbnsRegistration, tlsClientHello,
} from './fixtures/apps.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, mac, tcp, udp, vlanTag } from './fixtures/frames.js';
import { type Packet, pcap, sec, tempDir } from './fixtures/pcap.js';
import { type RunResult, normIp, runEngine } from './fixtures/util.js';

const execFileP = promisify(execFile);
const T0 = 1_700_000_000;
const tmp = tempDir();
afterAll(() => tmp.cleanup());

// ---- frames --------------------------------------------------------------------------------------

function l2(ip: Buffer, v6: boolean, vlan: number): Buffer {
  const type = v6 ? ETH.IPV6 : ETH.IPV4;
  return vlan ? eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(vlan, type, ip)) : eth(MAC_B, MAC_A, type, ip);
}

function ipPkt(src: string, dst: string, proto: number, l4: Buffer, vlan: number): Buffer {
  const v6 = !isIPv4(src);
  const ip = v6 ? ipv6({ src, dst, next: proto }, l4) : ipv4({ src, dst, proto }, l4);
  return l2(ip, v6, vlan);
}

function U(src: string, sport: number, dst: string, dport: number, payload: Buffer, vlan = 0): Buffer {
  return ipPkt(src, dst, IPPROTO.UDP, udp({ sport, dport }, payload), vlan);
}

function T(src: string, sport: number, dst: string, dport: number, flags: number, payload: Buffer = Buffer.alloc(0), seq = 1000, vlan = 0): Buffer {
  return ipPkt(src, dst, IPPROTO.TCP, tcp({ sport, dport, flags, seq, ack: 5000 }, payload), vlan);
}

/** A client's TCP session to a server: handshake, then one data segment from the client. */
function tcpSession(cli: string, cport: number, srv: string, sport: number, data: Buffer, vlan = 0): Buffer[] {
  return [
    T(cli, cport, srv, sport, TCPF.SYN, undefined, 999, vlan),
    T(srv, sport, cli, cport, TCPF.SYN | TCPF.ACK, undefined, 4999, vlan),
    T(cli, cport, srv, sport, TCPF.ACK, undefined, 1000, vlan),
    T(cli, cport, srv, sport, TCPF.PSH | TCPF.ACK, data, 1000, vlan),
  ];
}

/** A packet that makes `ip` a host (a UDP datagram from a client to it, port 9 discard). */
const touch = (ip: string, vlan = 0, from = isIPv4(ip) ? '192.168.1.200' : 'fd00::200') => U(from, 40999, ip, 9, Buffer.from('x'), vlan);

// ---- tshark checks -------------------------------------------------------------------------------

interface TsharkCheck {
  what: string;
  frame: Buffer;
  protocols: RegExp;
  fields?: Record<string, string>;
}
const tsharkChecks: TsharkCheck[] = [];
/** Registers a well-formed frame for the tshark pass at the end; returns it. */
function wf(what: string, frame: Buffer, protocols: RegExp, fields?: Record<string, string>): Buffer {
  tsharkChecks.push({ what, frame, protocols, fields });
  return frame;
}

// ---- running -------------------------------------------------------------------------------------

let fileNo = 0;
async function run(frames: Buffer[]): Promise<RunResult> {
  const packets: Packet[] = frames.map((data, i) => ({ tsNs: sec(T0 + i * 0.01), data }));
  const r = await runEngine([tmp.file(`n${fileNo++}.pcap`, pcap(packets))]);
  expect(r.st).toMatchObject({ state: 'done', error: null });
  return r;
}

function host(r: RunResult, ip: string, vlan = 0): HostRecord {
  const h = r.hosts.find((x) => normIp(x.ip) === normIp(ip) && x.vlan === vlan);
  if (!h) throw new Error(`no host ${ip}@${vlan} (hosts: ${r.hosts.map((x) => `${x.ip}@${x.vlan}`).join(' ')})`);
  return h;
}
const nameOf = (r: RunResult, ip: string, vlan = 0) => {
  const h = host(r, ip, vlan);
  return { name: h.name, name_source: h.name_source };
};
const UNNAMED = { name: null, name_source: '' };
/** Every named host as "ip@vlan=name/source", sorted. */
const namedHosts = (r: RunResult) =>
  r.hosts.filter((h) => h.name !== null).map((h) => `${h.ip}@${h.vlan}=${h.name}/${h.name_source}`).sort();

// ---- DNS -----------------------------------------------------------------------------------------

const CLIENT = '192.168.1.10', CLIENT6 = 'fd00::10', RESOLVER = '192.168.1.1';
const WWW_V4 = '93.184.216.34', WWW_V6 = '2606:2800:220:1:248:1893:25c8:1946';

/**
 * www.example.org → CNAME edge.example.org (label + pointer into the question)
 * → A WWW_V4, AAAA WWW_V6 (owner names: pointers to the CNAME's rdata).
 * Offsets: question name at 12 ("example.org" at 16), 17 bytes + 4; the CNAME
 * RR starts at 33 and its rdata at 33 + 2 + 10 = 45.
 */
function wwwAnswer(a = WWW_V4, aaaa = WWW_V6, qname = 'www.example.org'): Buffer {
  const q = dnsName(qname);
  const rdataAt = 12 + q.length + 4 + 2 + 10;
  const exampleOrg = 12 + 1 + qname.split('.')[0]!.length;
  return dns({
    flags: DNS_RESPONSE,
    questions: [{ name: q, type: DNS_TYPE.A }],
    answers: [
      { name: dnsPtr(12), type: DNS_TYPE.CNAME, rdata: dnsLabels(['edge'], exampleOrg) },
      { name: dnsPtr(rdataAt), type: DNS_TYPE.A, rdata: ipRdata(a) },
      { name: dnsPtr(rdataAt), type: DNS_TYPE.AAAA, rdata: ipRdata(aaaa) },
    ],
  });
}
const wwwQuery = () => dns({ flags: 0x0100, questions: [{ name: dnsName('www.example.org'), type: DNS_TYPE.A }] });

const dnsFields = (qname: string, a: string, aaaa?: string) => ({
  'dns.qry.name': qname,
  'dns.a': a,
  ...(aaaa ? { 'dns.aaaa': aaaa } : {}),
});

describe('DNS answers name the addresses with the question name', () => {
  it('A and AAAA answers (via a compressed CNAME chain) name hosts that already exist', async () => {
    const r = await run([
      T(CLIENT, 50000, WWW_V4, 443, TCPF.SYN),
      T(CLIENT6, 50001, WWW_V6, 443, TCPF.SYN),
      wf('dns query', U(CLIENT, 40000, RESOLVER, 53, wwwQuery()), /:ip:udp:dns$/, { 'dns.qry.name': 'www.example.org' }),
      wf('dns answer', U(RESOLVER, 53, CLIENT, 40000, wwwAnswer()), /:ip:udp:dns$/, {
        ...dnsFields('www.example.org', WWW_V4, WWW_V6),
        'dns.cname': 'edge.example.org',
        'dns.resp.name': 'www.example.org,edge.example.org,edge.example.org',
      }),
    ]);
    expect(nameOf(r, WWW_V4)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    expect(nameOf(r, WWW_V6)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    // Nothing else: not the resolver, not the client, not the CNAME target.
    expect(namedHosts(r)).toEqual([`${WWW_V4}@0=www.example.org/dns`, `2606:2800:220:1:248:1893:25c8:1946@0=www.example.org/dns`].sort());
    // Flows report their endpoints' names too.
    const f = r.flows.find((x) => x.server.ip === WWW_V4)!;
    expect([f.client.name, f.server.name]).toEqual(['', 'www.example.org']);
  });

  it('a host that appears only after the answer takes the name from the name cache', async () => {
    const r = await run([
      U(CLIENT, 40000, RESOLVER, 53, wwwQuery()),
      U(RESOLVER, 53, CLIENT, 40000, wwwAnswer()),
      T(CLIENT, 50000, WWW_V4, 443, TCPF.SYN),
      T(CLIENT6, 50001, WWW_V6, 443, TCPF.SYN),
    ]);
    expect(nameOf(r, WWW_V4)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    expect(nameOf(r, WWW_V6)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    expect(namedHosts(r).length).toBe(2);
  });

  it('DNS over TCP (2-byte length prefix) names the answer addresses', async () => {
    const msg = wwwAnswer('203.0.113.80', '2001:db8:80::1', 'tcp.example.net');
    const r = await run([
      T(CLIENT, 40001, RESOLVER, 53, TCPF.SYN, undefined, 699),
      T(RESOLVER, 53, CLIENT, 40001, TCPF.SYN | TCPF.ACK, undefined, 4999),
      T(CLIENT, 40001, RESOLVER, 53, TCPF.ACK, undefined, 700),
      wf('dns/tcp answer', T(RESOLVER, 53, CLIENT, 40001, TCPF.PSH | TCPF.ACK, dnsTcp(msg), 5000), /:ip:tcp:dns$/,
        dnsFields('tcp.example.net', '203.0.113.80', '2001:db8:80::1')),
      touch('203.0.113.80'),
      touch('2001:db8:80::1'),
    ]);
    expect(nameOf(r, '203.0.113.80')).toEqual({ name: 'tcp.example.net', name_source: 'dns' });
    expect(nameOf(r, '2001:db8:80::1')).toEqual({ name: 'tcp.example.net', name_source: 'dns' });
  });

  it('DNS over TCP: answers on a long-lived connection are all read, not only the first packets', async () => {
    const frames = [
      T(CLIENT, 40002, RESOLVER, 53, TCPF.SYN, undefined, 699),
      T(RESOLVER, 53, CLIENT, 40002, TCPF.SYN | TCPF.ACK, undefined, 4999),
      T(CLIENT, 40002, RESOLVER, 53, TCPF.ACK, undefined, 700),
    ];
    let cseq = 700, sseq = 5000;
    for (let i = 1; i <= 10; i++) {
      const q = dnsTcp(dns({ id: i, flags: 0x0100, questions: [{ name: dnsName(`q${i}.example`), type: 1 }] }));
      const a = dnsTcp(dns({ id: i, flags: DNS_RESPONSE, questions: [{ name: dnsName(`q${i}.example`), type: 1 }], answers: [{ name: dnsPtr(12), type: 1, rdata: ipRdata(`203.0.113.${100 + i}`) }] }));
      frames.push(T(CLIENT, 40002, RESOLVER, 53, TCPF.PSH | TCPF.ACK, q, cseq), T(RESOLVER, 53, CLIENT, 40002, TCPF.PSH | TCPF.ACK, a, sseq));
      cseq += q.length, sseq += a.length;
    }
    for (let i = 1; i <= 10; i++) frames.push(touch(`203.0.113.${100 + i}`));
    const r = await run(frames);
    const got = Array.from({ length: 10 }, (_, k) => host(r, `203.0.113.${101 + k}`).name);
    expect(got).toEqual(Array.from({ length: 10 }, (_, k) => `q${k + 1}.example`));
  });

  it('names are per VLAN: an answer on VLAN 10 does not name the address on VLAN 20', async () => {
    const r = await run([
      T(CLIENT, 50000, WWW_V4, 443, TCPF.SYN, undefined, 1000, 10),
      T(CLIENT, 50000, WWW_V4, 443, TCPF.SYN, undefined, 1000, 20),
      wf('dns answer vlan', U(RESOLVER, 53, CLIENT, 40000, wwwAnswer(), 10), /:vlan:ethertype:ip:udp:dns$/),
      T(CLIENT6, 50001, WWW_V6, 443, TCPF.SYN, undefined, 1000, 20),
      T(CLIENT6, 50001, WWW_V6, 443, TCPF.SYN, undefined, 1000, 10),
    ]);
    expect(nameOf(r, WWW_V4, 10)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    expect(nameOf(r, WWW_V6, 10)).toEqual({ name: 'www.example.org', name_source: 'dns' });
    expect(nameOf(r, WWW_V4, 20)).toEqual(UNNAMED);
    expect(nameOf(r, WWW_V6, 20)).toEqual(UNNAMED);
  });

  it('queries, error responses and non-address records name nothing', async () => {
    const q = dnsName('quiet.example');
    const a = (ip: string) => ({ name: dnsPtr(12), type: DNS_TYPE.A, rdata: ipRdata(ip) });
    const r = await run([
      // A query (QR clear) that carries an answer section.
      wf('dns query with answer', U(CLIENT, 40002, RESOLVER, 53, dns({ flags: 0x0100, questions: [{ name: q, type: 1 }], answers: [a('198.51.100.1')] })), /:udp:dns$/),
      // NXDOMAIN (rcode 3) and SERVFAIL (rcode 2) with an A record.
      wf('dns nxdomain', U(RESOLVER, 53, CLIENT, 40003, dns({ flags: 0x8183, questions: [{ name: q, type: 1 }], answers: [a('198.51.100.2')] })), /:udp:dns$/),
      wf('dns servfail', U(RESOLVER, 53, CLIENT, 40004, dns({ flags: 0x8182, questions: [{ name: q, type: 1 }], answers: [a('198.51.100.3')] })), /:udp:dns$/),
      // PTR and TXT answers: no address to name.
      wf('dns ptr', U(RESOLVER, 53, CLIENT, 40005, dns({
        flags: DNS_RESPONSE,
        questions: [{ name: dnsName('4.100.51.198.in-addr.arpa'), type: DNS_TYPE.PTR }],
        answers: [{ name: dnsPtr(12), type: DNS_TYPE.PTR, rdata: dnsName('ptr.example') }],
      })), /:udp:dns$/),
      wf('dns txt', U(RESOLVER, 53, CLIENT, 40006, dns({
        flags: DNS_RESPONSE,
        questions: [{ name: q, type: DNS_TYPE.TXT }],
        answers: [{ name: dnsPtr(12), type: DNS_TYPE.TXT, rdata: Buffer.from('\x0c198.51.100.5', 'latin1') }],
      })), /:udp:dns$/),
      ...['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5'].map((ip) => touch(ip)),
    ]);
    expect(namedHosts(r)).toEqual([]);
  });

  it('a compression pointer loop neither hangs nor crashes, names nothing, and later answers still work', async () => {
    const A = (ip: string, name: Buffer) => ({ name, type: DNS_TYPE.A, rdata: ipRdata(ip) });
    const qOk = dnsName('loop.example'); // 14 bytes at 12: the first answer starts at 30
    const loops = [
      // The question name is a pointer to itself.
      dns({ flags: DNS_RESPONSE, questions: [{ name: dnsPtr(12), type: 1 }], answers: [A('198.51.100.11', dnsPtr(12))] }),
      // An answer's owner name points to itself.
      dns({ flags: DNS_RESPONSE, questions: [{ name: qOk, type: 1 }], answers: [A('198.51.100.12', dnsPtr(30))] }),
      // A label, then a pointer back to that label: the name grows without end.
      dns({ flags: DNS_RESPONSE, questions: [{ name: dnsLabels(['a'], 12), type: 1 }], answers: [A('198.51.100.13', dnsPtr(12))] }),
      // Two pointers pointing at each other (the question is ptr→14, then ptr→12).
      dns({ flags: DNS_RESPONSE, questions: [{ name: Buffer.concat([dnsPtr(14), dnsPtr(12)]), type: 1 }], answers: [A('198.51.100.14', dnsPtr(12))] }),
      // A pointer past the end of the message.
      dns({ flags: DNS_RESPONSE, questions: [{ name: qOk, type: 1 }], answers: [A('198.51.100.15', dnsPtr(0x3fff))] }),
    ];
    for (const [i, m] of loops.entries()) tsharkChecks.push({ what: `dns loop ${i}`, frame: U(RESOLVER, 53, CLIENT, 41000 + i, m), protocols: /:udp:dns$/, fields: { __malformed_ok: '' } });
    const frames = [
      ...loops.map((m, i) => U(RESOLVER, 53, CLIENT, 41000 + i, m)),
      // The same flows go on: a good answer after the bad ones is still read.
      U(RESOLVER, 53, CLIENT, 41000, wwwAnswer('198.51.100.17', '2001:db8:17::1', 'after.example')),
      ...['198.51.100.11', '198.51.100.12', '198.51.100.13', '198.51.100.14', '198.51.100.15', '198.51.100.17'].map((ip) => touch(ip)),
    ];
    // The whole replay must end promptly (a loop would spin in the worker forever).
    const r = await Promise.race([
      run(frames),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('replay did not finish: DNS pointer loop hangs the worker')), 20_000)),
    ]);
    expect(r.stats.packets).toBe(frames.length);
    expect(namedHosts(r)).toEqual(['198.51.100.17@0=after.example/dns']);
  });
});

// ---- mDNS and LLMNR ------------------------------------------------------------------------------

describe('mDNS and LLMNR', () => {
  it('an mDNS announcement without a question names the address with the record name, ".local" stripped', async () => {
    const ann = dns({
      id: 0,
      flags: 0x8400, // response, authoritative
      answers: [
        { name: dnsName('myprinter.local'), type: DNS_TYPE.A, cls: 0x8001, ttl: 120, rdata: ipRdata('192.168.1.50') },
        { name: dnsPtr(12), type: DNS_TYPE.AAAA, cls: 0x8001, ttl: 120, rdata: ipRdata('fe80::50') },
        // A host name that does not end in .local is kept whole.
        { name: dnsName('scanner.home.arpa'), type: DNS_TYPE.A, cls: 0x8001, ttl: 120, rdata: ipRdata('192.168.1.51') },
      ],
    });
    const r = await run([
      wf('mdns announcement', U('192.168.1.50', 5353, '224.0.0.251', 5353, ann), /:ip:udp:mdns$/, {
        'dns.resp.name': 'myprinter.local,myprinter.local,scanner.home.arpa',
        'dns.a': '192.168.1.50,192.168.1.51',
      }),
      touch('fe80::50', 0, 'fe80::1'),
      touch('192.168.1.51'),
    ]);
    expect(nameOf(r, '192.168.1.50')).toEqual({ name: 'myprinter', name_source: 'mdns' });
    expect(nameOf(r, 'fe80::50')).toEqual({ name: 'myprinter', name_source: 'mdns' });
    expect(nameOf(r, '192.168.1.51')).toEqual({ name: 'scanner.home.arpa', name_source: 'mdns' });
    expect(nameOf(r, '224.0.0.251')).toEqual(UNNAMED);
  });

  it('an mDNS response to a question names the address with the question name', async () => {
    const resp = dns({
      id: 0,
      flags: 0x8400,
      questions: [{ name: dnsName('nas.local'), type: DNS_TYPE.A }],
      answers: [{ name: dnsPtr(12), type: DNS_TYPE.A, cls: 0x8001, ttl: 120, rdata: ipRdata('192.168.1.52') }],
    });
    const r = await run([wf('mdns response', U('192.168.1.52', 5353, '192.168.1.10', 5353, resp), /:ip:udp:mdns$/, { 'dns.a': '192.168.1.52' })]);
    expect(nameOf(r, '192.168.1.52')).toEqual({ name: 'nas', name_source: 'mdns' });
  });

  it('an LLMNR response (UDP 5355) names the responder (as a DNS answer)', async () => {
    const q = dnsName('fileserver');
    const resp = dns({ id: 0x4242, flags: 0x8000, questions: [{ name: q, type: DNS_TYPE.A }], answers: [{ name: dnsPtr(12), type: DNS_TYPE.A, ttl: 30, rdata: ipRdata('192.168.1.60') }] });
    const query = dns({ id: 0x4242, flags: 0x0000, questions: [{ name: q, type: DNS_TYPE.A }] });
    const r = await run([
      wf('llmnr query', U(CLIENT, 51000, '224.0.0.252', 5355, query), /:ip:udp:llmnr$/, { 'dns.qry.name': 'fileserver' }),
      wf('llmnr response', U('192.168.1.60', 5355, CLIENT, 51000, resp), /:ip:udp:llmnr$/, { 'dns.a': '192.168.1.60' }),
    ]);
    // LLMNR has no source of its own (NameSource): dispatch.cpp files it under DNS.
    expect(nameOf(r, '192.168.1.60')).toEqual({ name: 'fileserver', name_source: 'dns' });
    expect(namedHosts(r).length).toBe(1);
  });
});

// ---- DHCP ----------------------------------------------------------------------------------------

const CHADDR = mac('02:00:00:00:00:77');

describe('DHCP names the address the client holds or asks for', () => {
  it('REQUEST with a host name (option 12) and a requested IP (option 50): named when the address shows up', async () => {
    const req = dhcp({ op: 1, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp('192.168.1.77'), dhcpOpt.serverId(RESOLVER), dhcpOpt.hostname('laptop-anna')] });
    const r = await run([
      wf('dhcp request', U('0.0.0.0', 68, '255.255.255.255', 67, req), /:ip:udp:dhcp$/, {
        'dhcp.option.hostname': 'laptop-anna', 'dhcp.option.requested_ip_address': '192.168.1.77', 'dhcp.option.dhcp': '3',
      }),
      touch('192.168.1.77'),
    ]);
    expect(nameOf(r, '192.168.1.77')).toEqual({ name: 'laptop-anna', name_source: 'dhcp' });
    expect(nameOf(r, '0.0.0.0')).toEqual(UNNAMED);
    expect(nameOf(r, '255.255.255.255')).toEqual(UNNAMED);
  });

  it('ACK names the assigned address (yiaddr), here an existing host', async () => {
    const ack = dhcp({
      op: 2, yiaddr: '192.168.1.78', siaddr: RESOLVER, chaddr: CHADDR,
      options: [dhcpOpt.msgType(DHCP_MSG.ACK), dhcpOpt.serverId(RESOLVER), dhcpOpt.leaseTime(3600), dhcpOpt.subnetMask('255.255.255.0'), dhcpOpt.hostname('phone-bob')],
    });
    const r = await run([
      touch('192.168.1.78'),
      wf('dhcp ack', U(RESOLVER, 67, '192.168.1.78', 68, ack), /:ip:udp:dhcp$/, { 'dhcp.ip.your': '192.168.1.78', 'dhcp.option.hostname': 'phone-bob', 'dhcp.option.dhcp': '5' }),
    ]);
    expect(nameOf(r, '192.168.1.78')).toEqual({ name: 'phone-bob', name_source: 'dhcp' });
  });

  it('a renewing REQUEST names its ciaddr', async () => {
    const req = dhcp({ op: 1, ciaddr: '192.168.1.80', chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.hostname('tv-room')] });
    const r = await run([wf('dhcp renew', U('192.168.1.80', 68, RESOLVER, 67, req), /:ip:udp:dhcp$/, { 'dhcp.ip.client': '192.168.1.80' })]);
    expect(nameOf(r, '192.168.1.80')).toEqual({ name: 'tv-room', name_source: 'dhcp' });
  });

  it('the client FQDN (option 81) names the address when there is no option 12; option 12 wins when both are there', async () => {
    const only81 = dhcp({ op: 1, xid: 1, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp('192.168.1.79'), dhcpOpt.fqdn('desk-carl.corp.example')] });
    const both = dhcp({ op: 1, xid: 2, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp('192.168.1.81'), dhcpOpt.fqdn('fqdn-name.corp.example'), dhcpOpt.hostname('short-name')] });
    // E flag set (0x04): the name is in DNS wire format, which the engine does not read.
    const wire = dhcp({ op: 1, xid: 3, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp('192.168.1.82'), [81, Buffer.concat([Buffer.from([0x05, 0, 0]), dnsName('wire.corp.example')])]] });
    const r = await run([
      wf('dhcp fqdn', U('0.0.0.0', 68, '255.255.255.255', 67, only81), /:ip:udp:dhcp$/, { 'dhcp.fqdn.name': 'desk-carl.corp.example' }),
      wf('dhcp fqdn+hostname', U('0.0.0.0', 68, '255.255.255.255', 67, both), /:ip:udp:dhcp$/, { 'dhcp.option.hostname': 'short-name' }),
      wf('dhcp fqdn wire', U('0.0.0.0', 68, '255.255.255.255', 67, wire), /:ip:udp:dhcp$/),
      touch('192.168.1.79'),
      touch('192.168.1.81'),
      touch('192.168.1.82'),
    ]);
    expect(nameOf(r, '192.168.1.79')).toEqual({ name: 'desk-carl.corp.example', name_source: 'dhcp' });
    expect(nameOf(r, '192.168.1.81')).toEqual({ name: 'short-name', name_source: 'dhcp' });
    expect(nameOf(r, '192.168.1.82')).toEqual(UNNAMED);
  });

  it('a host name padded with NUL bytes is named without them', async () => {
    const req = dhcp({ op: 1, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp('192.168.1.83'), dhcpOpt.hostname(Buffer.from('printer\0\0', 'latin1'))] });
    const r = await run([wf('dhcp nul', U('0.0.0.0', 68, '255.255.255.255', 67, req), /:ip:udp:dhcp$/), touch('192.168.1.83')]);
    expect(nameOf(r, '192.168.1.83')).toEqual({ name: 'printer', name_source: 'dhcp' });
  });
});

// ---- NetBIOS -------------------------------------------------------------------------------------

describe('NetBIOS name service', () => {
  it('a registration (opcode 5) names the NB record address, trailing spaces stripped', async () => {
    const r = await run([
      wf('nbns registration', U('192.168.1.90', 137, '192.168.1.255', 137, nbnsRegistration('WORKPC', '192.168.1.90')), /:ip:udp:nbns$/, {
        // The question's name and the additional record's (the pointer), as tshark prints them.
        'nbns.name': 'WORKPC<00>,WORKPC<00> (Workstation/Redirector)', 'nbns.addr': '192.168.1.90',
      }),
      // The NB address need not be the sender's (a WINS proxy / relay): that address is named.
      wf('nbns registration other', U('192.168.1.91', 137, '192.168.1.255', 137, nbnsRegistration('FILES 01', '192.168.1.92', 0x8002)), /:ip:udp:nbns$/, { 'nbns.addr': '192.168.1.92' }),
      touch('192.168.1.92'),
    ]);
    expect(nameOf(r, '192.168.1.90')).toEqual({ name: 'WORKPC', name_source: 'netbios' });
    // An inner space is not trailing: "FILES 01" is not a plausible name (spaces) and is ignored.
    expect(nameOf(r, '192.168.1.92')).toEqual(UNNAMED);
    expect(nameOf(r, '192.168.1.91')).toEqual(UNNAMED);
  });

  it('a positive name query response names the answer address; a query names nothing', async () => {
    // A broadcast name query: opcode 0, RD + B, one question (NASBOX<00>, NB, IN).
    const query = Buffer.concat([Buffer.from([0x90, 0x01, 0x01, 0x10, 0, 1, 0, 0, 0, 0, 0, 0]), nbName('NASBOX'), Buffer.from([0, 0x20, 0, 1])]);
    const r = await run([
      wf('nbns query', U(CLIENT, 137, '192.168.1.255', 137, query), /:ip:udp:nbns$/),
      wf('nbns positive response', U('192.168.1.93', 137, CLIENT, 137, nbnsQueryResponse('NASBOX', '192.168.1.93')), /:ip:udp:nbns$/, { 'nbns.addr': '192.168.1.93' }),
    ]);
    expect(namedHosts(r)).toEqual(['192.168.1.93@0=NASBOX/netbios']);
  });
});

// ---- TLS and HTTP --------------------------------------------------------------------------------

describe('TLS SNI and HTTP Host name the server', () => {
  it('a ClientHello with SNI on TCP 443 names the server', async () => {
    const r = await run(tcpSession(CLIENT, 50100, '151.101.1.69', 443, tlsClientHello('secure.example.net')).map((f, i) =>
      i === 3 ? wf('tls client hello', f, /:ip:tcp:tls$/, { 'tls.handshake.extensions_server_name': 'secure.example.net' }) : f));
    expect(nameOf(r, '151.101.1.69')).toEqual({ name: 'secure.example.net', name_source: 'tls' });
    expect(nameOf(r, CLIENT)).toEqual(UNNAMED);
  });

  it('an HTTP request with Host "example.com:8080" names the server "example.com"', async () => {
    const r = await run(tcpSession(CLIENT, 50101, WWW_V4, 8080, httpGet('example.com:8080')).map((f, i) =>
      i === 3 ? wf('http get', f, /:ip:tcp:http$/, { 'http.host': 'example.com:8080' }) : f));
    expect(nameOf(r, WWW_V4)).toEqual({ name: 'example.com', name_source: 'http' });
    expect(nameOf(r, CLIENT)).toEqual(UNNAMED);
  });

  it('the Host header is found case-insensitively, among other headers, with tabs before the value', async () => {
    const req = Buffer.from('POST /submit HTTP/1.1\r\nUser-Agent: t\r\nX-Forwarded-Host: wrong.example\r\nhOsT:\tright.example\r\nContent-Length: 0\r\n\r\n', 'latin1');
    const r = await run(tcpSession(CLIENT, 50107, '198.51.100.24', 80, req).map((f, i) => (i === 3 ? wf('http post', f, /:ip:tcp:http$/, { 'http.host': 'right.example' }) : f)));
    expect(nameOf(r, '198.51.100.24')).toEqual({ name: 'right.example', name_source: 'http' });
  });

  it('a Host header with trailing whitespace still names the server', async () => {
    const r = await run(tcpSession(CLIENT, 50108, '198.51.100.25', 80, httpGet('', '/', 'Host: ows.example ')).map((f, i) => (i === 3 ? wf('http host ows', f, /:ip:tcp:http$/) : f)));
    expect(nameOf(r, '198.51.100.25')).toEqual({ name: 'ows.example', name_source: 'http' });
  });

  it('a Host header that is an address literal names nothing', async () => {
    const r = await run([
      ...tcpSession(CLIENT, 50102, '198.51.100.20', 80, httpGet('198.51.100.20')).map((f, i) => (i === 3 ? wf('http ip host', f, /:ip:tcp:http$/, { 'http.host': '198.51.100.20' }) : f)),
      ...tcpSession(CLIENT, 50103, '198.51.100.21', 80, httpGet('198.51.100.21:8080')).map((f, i) => (i === 3 ? wf('http ip:port host', f, /:ip:tcp:http$/) : f)),
      ...tcpSession(CLIENT6, 50104, '2001:db8::21', 80, httpGet('[2001:db8::21]:8080')).map((f, i) => (i === 3 ? wf('http v6 host', f, /:ipv6:tcp:http$/) : f)),
      ...tcpSession(CLIENT6, 50105, '2001:db8::22', 80, httpGet('[2001:db8::22]')).map((f, i) => (i === 3 ? wf('http v6 host no port', f, /:ipv6:tcp:http$/) : f)),
    ]);
    expect(namedHosts(r)).toEqual([]);
  });

  it('a request sent by the server side names nothing (TLS/HTTP are read from the client only)', async () => {
    // A "request" from the server side (port 80 → client) is not a client's request.
    const r = await run([
      T(CLIENT, 50106, '198.51.100.23', 80, TCPF.SYN, undefined, 999),
      T('198.51.100.23', 80, CLIENT, 50106, TCPF.SYN | TCPF.ACK, undefined, 4999),
      T('198.51.100.23', 80, CLIENT, 50106, TCPF.PSH | TCPF.ACK, httpGet('backwards.example'), 5000),
    ]);
    expect(namedHosts(r)).toEqual([]);
  });
});

// ---- priority ------------------------------------------------------------------------------------

type Source = 'dhcp' | 'mdns' | 'netbios' | 'dns' | 'tls' | 'http';
const PRIORITY: Record<Source, number> = { dhcp: 6, mdns: 5, netbios: 4, dns: 3, tls: 2, http: 1 };
const SOURCES = Object.keys(PRIORITY) as Source[];

/** Frames by which `src` names `ip` (a TCP session for tls/http, one datagram otherwise); the name it gives. */
function namer(src: Source, ip: string, tag: string, port: number): { frames: Buffer[]; name: string } {
  switch (src) {
    case 'dhcp': {
      const m = dhcp({ op: 1, xid: port, chaddr: CHADDR, options: [dhcpOpt.msgType(DHCP_MSG.REQUEST), dhcpOpt.requestedIp(ip), dhcpOpt.hostname(`dhcp-${tag}`)] });
      return { frames: [U('0.0.0.0', 68, '255.255.255.255', 67, m)], name: `dhcp-${tag}` };
    }
    case 'mdns': {
      const m = dns({ id: 0, flags: 0x8400, answers: [{ name: dnsName(`mdns-${tag}.local`), type: DNS_TYPE.A, cls: 0x8001, rdata: ipRdata(ip) }] });
      return { frames: [U('192.168.1.250', 5353, '224.0.0.251', 5353, m)], name: `mdns-${tag}` };
    }
    case 'netbios': {
      const name = `NB-${tag}`.toUpperCase().slice(0, 15);
      return { frames: [U('192.168.1.251', 137, '192.168.1.255', 137, nbnsRegistration(name, ip, port))], name };
    }
    case 'dns': {
      const m = dns({ flags: DNS_RESPONSE, questions: [{ name: dnsName(`dns-${tag}.example`), type: 1 }], answers: [{ name: dnsPtr(12), type: 1, rdata: ipRdata(ip) }] });
      return { frames: [U(RESOLVER, 53, CLIENT, port, m)], name: `dns-${tag}.example` };
    }
    case 'tls':
      return { frames: tcpSession(CLIENT, port, ip, 443, tlsClientHello(`tls-${tag}.example`)), name: `tls-${tag}.example` };
    case 'http':
      return { frames: tcpSession(CLIENT, port, ip, 80, httpGet(`http-${tag}.example`)), name: `http-${tag}.example` };
  }
}

describe('priority: DHCP > mDNS > NetBIOS > DNS > TLS/QUIC > HTTP', () => {
  it('a host first named by TLS then by DNS ends with the DNS name', async () => {
    const tlsN = namer('tls', '203.0.113.30', 'a', 52000), dnsN = namer('dns', '203.0.113.30', 'a', 42000);
    const r = await run([...tlsN.frames, ...dnsN.frames]);
    expect(nameOf(r, '203.0.113.30')).toEqual({ name: 'dns-a.example', name_source: 'dns' });
  });

  it('a host named by DHCP keeps its DHCP name when DNS names it later', async () => {
    const dhcpN = namer('dhcp', '192.168.1.31', 'b', 52001), dnsN = namer('dns', '192.168.1.31', 'b', 42001);
    const r = await run([touch('192.168.1.31'), ...dhcpN.frames, ...dnsN.frames]);
    expect(nameOf(r, '192.168.1.31')).toEqual({ name: 'dhcp-b', name_source: 'dhcp' });
  });

  // Every ordered pair of sources on its own address: the higher priority wins, whatever the order.
  const pairs = SOURCES.flatMap((a) => SOURCES.filter((b) => b !== a).map((b) => [a, b] as const));

  it(`every ordered pair of sources on an existing host (${pairs.length} pairs)`, async () => {
    const frames: Buffer[] = [];
    const want: Record<string, string> = {};
    pairs.forEach(([a, b], i) => {
      const ip = `10.77.${i}.1`;
      const first = namer(a, ip, `${i}a`, 30000 + 2 * i), second = namer(b, ip, `${i}b`, 30001 + 2 * i);
      frames.push(touch(ip), ...first.frames, ...second.frames);
      want[ip] = PRIORITY[b] > PRIORITY[a] ? `${second.name}/${b}` : `${first.name}/${a}`;
    });
    const r = await run(frames);
    const got = Object.fromEntries(Object.keys(want).map((ip) => [ip, `${host(r, ip).name}/${host(r, ip).name_source}`]));
    expect(got).toEqual(want);
  });

  it('the same priority holds for names learned before the host exists (name cache)', async () => {
    const cacheable: Source[] = ['dhcp', 'mdns', 'netbios', 'dns'];
    const frames: Buffer[] = [];
    const want: Record<string, string> = {};
    let i = 0;
    for (const a of cacheable) {
      for (const b of cacheable) {
        if (a === b) continue;
        const ip = `10.78.${i}.1`;
        const first = namer(a, ip, `${i}a`, 31000 + 2 * i), second = namer(b, ip, `${i}b`, 31001 + 2 * i);
        frames.push(...first.frames, ...second.frames);
        want[ip] = PRIORITY[b] > PRIORITY[a] ? `${second.name}/${b}` : `${first.name}/${a}`;
        i++;
      }
    }
    // Then the hosts appear; then a TLS/HTTP name for each is lower than any cached one.
    for (const [k, ip] of Object.keys(want).entries()) frames.push(touch(ip), ...namer(k % 2 ? 'tls' : 'http', ip, `late${k}`, 33000 + k).frames);
    const r = await run(frames);
    const got = Object.fromEntries(Object.keys(want).map((ip) => [ip, `${host(r, ip).name}/${host(r, ip).name_source}`]));
    expect(got).toEqual(want);
  });
});

// ---- plausibility and length -----------------------------------------------------------------------

describe('names that do not look like names', () => {
  it('names with spaces, quotes or control characters are ignored', async () => {
    const dnsWith = (label: Buffer | string, ip: string, port: number) =>
      U(RESOLVER, 53, CLIENT, port, dns({ flags: DNS_RESPONSE, questions: [{ name: dnsName([label, 'example']), type: 1 }], answers: [{ name: dnsPtr(12), type: 1, rdata: ipRdata(ip) }] }));
    const frames = [
      wf('dhcp space', U('0.0.0.0', 68, '255.255.255.255', 67, dhcp({ op: 1, chaddr: CHADDR, options: [dhcpOpt.msgType(3), dhcpOpt.requestedIp('192.168.1.101'), dhcpOpt.hostname('bad name')] })), /:udp:dhcp$/),
      wf('dns quote', dnsWith('we"ird', '198.51.100.102', 42100), /:udp:dns$/),
      wf('dns bell', dnsWith(Buffer.from('ring\x07bell', 'latin1'), '198.51.100.103', 42101), /:udp:dns$/),
      wf('dns space', dnsWith('two words', '198.51.100.104', 42102), /:udp:dns$/),
      wf('dns apostrophe', dnsWith("o'hara", '198.51.100.105', 42103), /:udp:dns$/),
      wf('dns del', dnsWith(Buffer.from('del\x7f', 'latin1'), '198.51.100.106', 42104), /:udp:dns$/),
      wf('dns high byte', dnsWith(Buffer.from('caf\xe9', 'latin1'), '198.51.100.107', 42105), /:udp:dns$/),
      wf('mdns space', U('192.168.1.108', 5353, '224.0.0.251', 5353, dns({ id: 0, flags: 0x8400, answers: [{ name: dnsName(['my printer', 'local']), type: 1, cls: 0x8001, rdata: ipRdata('192.168.1.108') }] })), /:udp:mdns$/),
      wf('nbns quote', U('192.168.1.109', 137, '192.168.1.255', 137, nbnsRegistration('PC"X', '192.168.1.109')), /:udp:nbns$/),
      ...tcpSession(CLIENT, 50110, '198.51.100.110', 80, httpGet('evil"host.example')),
      ...tcpSession(CLIENT, 50111, '198.51.100.111', 443, tlsClientHello('sni with space.example')),
      ...tcpSession(CLIENT, 50112, '198.51.100.112', 443, tlsClientHello(Buffer.from('ctl\x01.example', 'latin1'))),
      ...tcpSession(CLIENT, 50113, '198.51.100.113', 80, httpGet('<script>.example')),
      ...['192.168.1.101', '198.51.100.102', '198.51.100.103', '198.51.100.104', '198.51.100.105', '198.51.100.106', '198.51.100.107'].map((ip) => touch(ip)),
    ];
    const r = await run(frames);
    expect(namedHosts(r)).toEqual([]);
  });

  it('names longer than 63 characters are truncated to 63; 63 is kept whole', async () => {
    const long90 = `${'a'.repeat(40)}.${'b'.repeat(40)}.example`; // 90 characters
    const exact63 = `${'c'.repeat(55)}.example`; // 63
    const just64 = `${'d'.repeat(56)}.example`; // 64
    const host100 = `${'h'.repeat(60)}.${'i'.repeat(30)}.example.com`; // 103
    const dhcp80 = 'x'.repeat(80);
    const dnsLong = (qname: string, ip: string, port: number) =>
      U(RESOLVER, 53, CLIENT, port, dns({ flags: DNS_RESPONSE, questions: [{ name: dnsName(qname), type: 1 }], answers: [{ name: dnsPtr(12), type: 1, rdata: ipRdata(ip) }] }));
    const r = await run([
      wf('dns 90', dnsLong(long90, '198.51.100.120', 42200), /:udp:dns$/, { 'dns.qry.name': long90 }),
      wf('dns 63', dnsLong(exact63, '198.51.100.121', 42201), /:udp:dns$/),
      wf('dns 64', dnsLong(just64, '198.51.100.122', 42202), /:udp:dns$/),
      ...tcpSession(CLIENT, 50120, '198.51.100.123', 80, httpGet(host100)).map((f, i) => (i === 3 ? wf('http 103', f, /:tcp:http$/, { 'http.host': host100 }) : f)),
      ...tcpSession(CLIENT, 50121, '198.51.100.124', 443, tlsClientHello(long90)),
      wf('dhcp 80', U('0.0.0.0', 68, '255.255.255.255', 67, dhcp({ op: 1, chaddr: CHADDR, options: [dhcpOpt.msgType(3), dhcpOpt.requestedIp('192.168.1.125'), dhcpOpt.hostname(dhcp80)] })), /:udp:dhcp$/),
      touch('198.51.100.120'), touch('198.51.100.121'), touch('198.51.100.122'), touch('192.168.1.125'),
    ]);
    expect(nameOf(r, '198.51.100.120')).toEqual({ name: long90.slice(0, 63), name_source: 'dns' });
    expect(nameOf(r, '198.51.100.121')).toEqual({ name: exact63, name_source: 'dns' });
    expect(nameOf(r, '198.51.100.122')).toEqual({ name: just64.slice(0, 63), name_source: 'dns' });
    expect(nameOf(r, '198.51.100.123')).toEqual({ name: host100.slice(0, 63), name_source: 'http' });
    expect(nameOf(r, '198.51.100.124')).toEqual({ name: long90.slice(0, 63), name_source: 'tls' });
    expect(nameOf(r, '192.168.1.125')).toEqual({ name: dhcp80.slice(0, 63), name_source: 'dhcp' });
    for (const h of r.hosts) if (h.name) expect(h.name.length).toBeLessThanOrEqual(63);
  });
});

// ---- tshark --------------------------------------------------------------------------------------

describe('tshark agrees the crafted payloads are what they claim', () => {
  it('dissects every frame as its protocol with the expected fields, none malformed', async () => {
    expect(tsharkChecks.length).toBeGreaterThan(30);
    const fields = [...new Set(tsharkChecks.flatMap((c) => Object.keys(c.fields ?? {}).filter((f) => !f.startsWith('__'))))];
    const file = tmp.file('tshark.pcap', pcap(tsharkChecks.map((c, i) => ({ tsNs: sec(T0 + i), data: c.frame }))));
    const args = ['-n', '-r', file, '-T', 'fields', '-E', 'separator=|', '-E', 'occurrence=a', '-E', 'aggregator=,', '-e', 'frame.protocols', '-e', '_ws.malformed', '-e', '_ws.expert.severity'];
    for (const f of fields) args.push('-e', f);
    const { stdout } = await execFileP('tshark', args, { maxBuffer: 1 << 26 });
    const rows = stdout.split('\n').filter((l) => l.length);
    expect(rows.length).toBe(tsharkChecks.length);
    const bad: string[] = [];
    rows.forEach((row, i) => {
      const [protocols, malformed, severity, ...vals] = row.split('|');
      const c = tsharkChecks[i]!;
      const malformedOk = c.fields && '__malformed_ok' in c.fields;
      // Expert severities: 8388608 = error (4194304 warning, 2097152 note, 1048576 chat).
      if (!c.protocols.test(malformedOk ? protocols!.replace(/:_ws\.malformed$/, '') : protocols!)) bad.push(`${c.what}: protocols ${protocols}`);
      if (!malformedOk && (malformed || (severity ?? '').split(',').includes('8388608'))) bad.push(`${c.what}: malformed/error ${row}`);
      for (const [k, want] of Object.entries(c.fields ?? {})) {
        if (k.startsWith('__')) continue;
        const got = vals[fields.indexOf(k)] ?? '';
        if (got !== want) bad.push(`${c.what}: ${k} = '${got}', want '${want}'`);
      }
    });
    expect(bad).toEqual([]);
  });
});
