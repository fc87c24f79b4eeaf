// Every decoder on hand-built frames, one small capture each: the flow must be
// the innermost 5-tuple (tunnels named in `tunnel`), counted with the whole
// frame length. Then every length check: a frame one byte short is counted
// under its decode.* reason, a frame exactly long enough is not. tshark checks
// at the end that the well-formed frames are what they claim to be.
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine } from '../ts/bindings/engine.js';
import type { FlowRecord } from '../ts/bindings/native.js';
import {
  ETH, IPPROTO, MAC_A, MAC_B, TCPF,
  echo, erspan2, erspan3, eth, gre, gtpu, tzsp, icmp, icmpv6, ipv4, ipv6, ipv6Frag, ipv6Options, mpls, nullHdr, pppoeSession, sll, sll2, tcp, udp, vlanTag, vxlan,
} from './fixtures/frames.js';
import { LINKTYPE, type Packet, pcap, pcapng, sec, tempDir } from './fixtures/pcap.js';
import { type RunResult, runEngine, NDPI_PCAPS } from './fixtures/util.js';

const execFileP = promisify(execFile);
const T0 = 1_700_000_000;
const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Frames that must dissect cleanly in tshark, with the protocol chain expected. */
const tsharkChecks: { what: string; linktype: number; frame: Buffer; protocols: string | RegExp }[] = [];

let fileNo = 0;
async function capture(frames: Buffer[], linktype: number = LINKTYPE.ETHERNET): Promise<RunResult> {
  const packets: Packet[] = frames.map((data, i) => ({ tsNs: sec(T0 + i * 0.001), data }));
  const r = await runEngine([tmp.file(`d${fileNo++}.pcap`, pcap(packets, { linktype }))]);
  expect(r.st).toMatchObject({ state: 'done', error: null });
  return r;
}

/** decode.* reasons (not the informational counters) that are non-zero. */
function errors(r: RunResult): Record<string, number> {
  const info = new Set(['decode.non_ip', 'decode.ip.fragments', 'decode.tunnel.packets']);
  return Object.fromEntries(Object.entries(r.stats.decode).filter(([k, v]) => !info.has(k) && v !== 0));
}

// The inner conversation most cases carry: TCP 192.0.2.1:40001 -> 198.51.100.7:50001, a SYN (54 B on Ethernet).
const CLI = '192.0.2.1', SRV = '198.51.100.7';
const syn4 = () => ipv4({ src: CLI, dst: SRV, proto: IPPROTO.TCP }, tcp({ sport: 40001, dport: 50001, flags: TCPF.SYN, seq: 7 }));
const CLI6 = '2001:db8:a::1', SRV6 = '2001:db8:b::7';
const syn6 = () => ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.TCP }, tcp({ sport: 40001, dport: 50001, flags: TCPF.SYN, seq: 7 }));
const ethIp = (ip: Buffer, type: number = ETH.IPV4) => eth(MAC_B, MAC_A, type, ip);

/** Asserts a single flow: the given 5-tuple, one packet per frame client -> server. */
type Endpoint = { ip: string; port: number };
type FlowWant = Omit<Partial<FlowRecord>, 'client' | 'server'> & { client: Endpoint; server: Endpoint };
function expectOneFlow(r: RunResult, want: FlowWant, frames: Buffer[]) {
  expect(errors(r)).toEqual({});
  expect(r.flows.length).toBe(1);
  const f = r.flows[0]!;
  expect(f).toMatchObject({ tunnel: '', vlan: 0, ...want, client: want.client, server: want.server });
  expect([f.cli2srv_packets, f.cli2srv_bytes]).toEqual([frames.length, frames.reduce((s, b) => s + b.length, 0)]);
  expect(f.srv2cli_packets).toBe(0);
}
const inner: FlowWant = { proto: 6, client: { ip: CLI, port: 40001 }, server: { ip: SRV, port: 50001 } };
const inner6: FlowWant = { proto: 6, ip_version: 6, client: { ip: CLI6, port: 40001 }, server: { ip: SRV6, port: 50001 } };

describe('link layers and encapsulations', () => {
  it('Ethernet II', async () => {
    const fr = [ethIp(syn4())];
    tsharkChecks.push({ what: 'ethernet', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ip:tcp' });
    expectOneFlow(await capture(fr), { ...inner, ip_version: 4 }, fr);
  });

  it('802.1Q: the flow carries the VLAN id', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(100, ETH.IPV4, syn4(), 5))];
    tsharkChecks.push({ what: '802.1Q', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:vlan:ethertype:ip:tcp' });
    const r = await capture(fr);
    expectOneFlow(r, { ...inner, vlan: 100 }, fr);
    expect(r.hosts.map((h) => h.vlan)).toEqual([100, 100]);
  });

  it('QinQ (802.1ad outer, 802.1Q inner): the flow VLAN is the inner tag', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.QINQ, vlanTag(200, ETH.VLAN, vlanTag(300, ETH.IPV4, syn4())))];
    tsharkChecks.push({ what: 'QinQ', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ieee8021ad:ethertype:vlan:ethertype:ip:tcp' });
    expectOneFlow(await capture(fr), { ...inner, vlan: 300 }, fr);
  });

  it('MPLS with two labels', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.MPLS, mpls([1000, 2000], syn4())), eth(MAC_B, MAC_A, ETH.MPLS, mpls([1000, 2000], syn6()))];
    tsharkChecks.push({ what: 'MPLS', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:mpls:ip:tcp' });
    tsharkChecks.push({ what: 'MPLS v6', linktype: 1, frame: fr[1]!, protocols: 'eth:ethertype:mpls:ipv6:tcp' });
    const r = await capture(fr);
    expect(errors(r)).toEqual({});
    expect(r.flows.map((f) => [f.proto, f.client.ip, f.client.port, f.server.ip, f.server.port, f.cli2srv_bytes]).sort()).toEqual([
      [6, CLI, 40001, SRV, 50001, fr[0]!.length],
      [6, CLI6, 40001, SRV6, 50001, fr[1]!.length],
    ]);
  });

  it('MPLS pseudowire with a control word, then Ethernet', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.MPLS, mpls([1000, 2000], Buffer.concat([Buffer.alloc(4), ethIp(syn4())])))];
    expectOneFlow(await capture(fr), inner, fr);
  });

  it('PPPoE session', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.PPPOE, pppoeSession(0x1234, 0x0021, syn4())), eth(MAC_B, MAC_A, ETH.PPPOE, pppoeSession(0x1234, 0x0021, syn4()))];
    tsharkChecks.push({ what: 'PPPoE', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:pppoes:ppp:ip:tcp' });
    expectOneFlow(await capture(fr), inner, fr);
  });

  it('PPPoE session carrying IPv6', async () => {
    const fr = [eth(MAC_B, MAC_A, ETH.PPPOE, pppoeSession(7, 0x0057, syn6()))];
    tsharkChecks.push({ what: 'PPPoE v6', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:pppoes:ppp:ipv6:tcp' });
    expectOneFlow(await capture(fr), inner6, fr);
  });

  it('Linux cooked capture (SLL, link type 113)', async () => {
    const fr = [sll(ETH.IPV4, syn4()), sll(ETH.IPV6, syn6())];
    tsharkChecks.push({ what: 'SLL', linktype: LINKTYPE.SLL, frame: fr[0]!, protocols: 'sll:ethertype:ip:tcp' });
    const r = await capture(fr, LINKTYPE.SLL);
    expect(errors(r)).toEqual({});
    expect(r.flows.map((f) => [f.client.ip, f.server.ip, f.cli2srv_bytes]).sort()).toEqual([[CLI, SRV, fr[0]!.length], [CLI6, SRV6, fr[1]!.length]]);
  });

  it('Linux cooked capture v2 (SLL2, link type 276)', async () => {
    const fr = [sll2(ETH.IPV4, syn4())];
    tsharkChecks.push({ what: 'SLL2', linktype: LINKTYPE.SLL2, frame: fr[0]!, protocols: 'sll:ethertype:ip:tcp' });
    expectOneFlow(await capture(fr, LINKTYPE.SLL2), inner, fr);
  });

  it('BSD null/loopback (link type 0): AF_INET and the AF_INET6 values of each BSD', async () => {
    const fr = [nullHdr(2, syn4()), ...[24, 28, 30].map((af) => nullHdr(af, syn6()))];
    tsharkChecks.push({ what: 'null v4', linktype: LINKTYPE.NULL, frame: fr[0]!, protocols: 'null:ip:tcp' });
    tsharkChecks.push({ what: 'null v6', linktype: LINKTYPE.NULL, frame: fr[3]!, protocols: 'null:ipv6:tcp' });
    const r = await capture(fr, LINKTYPE.NULL);
    expect(errors(r)).toEqual({});
    expect(r.flows.map((f) => [f.client.ip, f.cli2srv_packets]).sort()).toEqual([[CLI, 1], [CLI6, 3]]);
  });

  it('OpenBSD loopback (link type 108, network byte order)', async () => {
    const fr = [nullHdr(2, syn4(), true)];
    tsharkChecks.push({ what: 'loop', linktype: LINKTYPE.LOOP, frame: fr[0]!, protocols: 'null:ip:tcp' });
    expectOneFlow(await capture(fr, LINKTYPE.LOOP), inner, fr);
  });

  it.each([[LINKTYPE.RAW], [LINKTYPE.IPV4]])('raw IP (link type %i)', async (lt) => {
    const fr = [syn4()];
    tsharkChecks.push({ what: `raw ${lt}`, linktype: lt, frame: fr[0]!, protocols: /^(raw:)?ip:tcp$/ });
    expectOneFlow(await capture(fr, lt), inner, fr);
  });

  it.each([[LINKTYPE.RAW], [LINKTYPE.IPV6]])('raw IPv6 (link type %i)', async (lt) => {
    const fr = [syn6()];
    tsharkChecks.push({ what: `raw6 ${lt}`, linktype: lt, frame: fr[0]!, protocols: /^(raw:)?ipv6:tcp$/ });
    expectOneFlow(await capture(fr, lt), inner6, fr);
  });

  it('Cisco HDLC (link type 104)', async () => {
    const fr = [Buffer.concat([Buffer.from([0x0f, 0x00, 0x08, 0x00]), syn4()])];
    tsharkChecks.push({ what: 'chdlc', linktype: 104, frame: fr[0]!, protocols: 'chdlc:ip:tcp' });
    expectOneFlow(await capture(fr, 104), inner, fr);
  });
});

describe('IP', () => {
  it('IPv4 with options (router alert, 24-byte header)', async () => {
    const ip = ipv4({ src: CLI, dst: SRV, proto: IPPROTO.TCP, options: Buffer.from([0x94, 0x04, 0x00, 0x00]) }, tcp({ sport: 40001, dport: 50001, flags: TCPF.SYN }));
    const fr = [ethIp(ip)];
    tsharkChecks.push({ what: 'ipv4 options', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ip:tcp' });
    expectOneFlow(await capture(fr), inner, fr);
  });

  // A 3000-byte UDP datagram (3008 with its header) in three fragments of 1480, 1480 and 48 bytes.
  // (Built inside an unfragmented IP packet first, for its UDP checksum.)
  const datagram = ipv4({ src: CLI, dst: SRV, proto: IPPROTO.UDP }, udp({ sport: 40002, dport: 50002 }, Buffer.alloc(3000, 0x5a))).subarray(20);
  const frag = (id: number, off: number, more: boolean) =>
    ethIp(ipv4({ src: CLI, dst: SRV, proto: IPPROTO.UDP, id, mf: more, fragOffset: off }, datagram.subarray(off, Math.min(off + 1480, datagram.length))));

  it('IPv4 fragments: the first and two later fragments make one flow of 3 packets', async () => {
    const fr = [frag(0x4242, 0, true), frag(0x4242, 1480, true), frag(0x4242, 2960, false)];
    for (const f of fr) tsharkChecks.push({ what: 'ipv4 fragment', linktype: 1, frame: f, protocols: /^eth:ethertype:ip(:udp)?:data$/ });
    const r = await capture(fr);
    expectOneFlow(r, { proto: 17, client: { ip: CLI, port: 40002 }, server: { ip: SRV, port: 50002 } }, fr);
    expect(fr.map((f) => f.length)).toEqual([14 + 20 + 1480, 14 + 20 + 1480, 14 + 20 + 48]);
    expect(r.stats.decode['decode.ip.fragments']).toBe(3);
    expect(r.stats.orphan_fragments).toBe(0);
  });

  it('a later fragment whose first was never seen is an orphan (flow without ports)', async () => {
    const fr = [frag(0x4242, 0, true), frag(0x4242, 1480, true), frag(0x9999, 1480, true)];
    const r = await capture(fr);
    expect(r.stats.orphan_fragments).toBe(1);
    expect(r.stats.decode['decode.ip.fragments']).toBe(3);
    expect(r.flows.map((f) => [f.proto, f.client.port, f.server.port, f.cli2srv_packets]).sort()).toEqual([
      [17, 0, 0, 1],
      [17, 40002, 50002, 2],
    ]);
  });

  it('IPv6 with hop-by-hop and destination options headers', async () => {
    const ip = ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.HOPOPTS }, ipv6Options(IPPROTO.DSTOPTS, ipv6Options(IPPROTO.TCP, tcp({ sport: 40001, dport: 50001, flags: TCPF.SYN }), 1)));
    const fr = [ethIp(ip, ETH.IPV6)];
    tsharkChecks.push({ what: 'ipv6 ext', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ipv6:ipv6.hopopts:ipv6.dstopts:tcp' });
    expectOneFlow(await capture(fr), inner6, fr);
  });

  it('IPv6 fragment header: first and last fragment make one flow', async () => {
    const dg = ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.UDP }, udp({ sport: 40003, dport: 50003 }, Buffer.alloc(2000, 0x33))).subarray(40);
    const f6 = (off: number, more: boolean, len: number) =>
      ethIp(ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.FRAGMENT }, ipv6Frag(IPPROTO.UDP, off, more, 0xabcdef01, dg.subarray(off, off + len))), ETH.IPV6);
    const fr = [f6(0, true, 1232), f6(1232, false, dg.length - 1232)];
    for (const f of fr) tsharkChecks.push({ what: 'ipv6 fragment', linktype: 1, frame: f, protocols: /^eth:ethertype:ipv6:ipv6.fraghdr(:udp)?:data$/ });
    const r = await capture(fr);
    expectOneFlow(r, { proto: 17, ip_version: 6, client: { ip: CLI6, port: 40003 }, server: { ip: SRV6, port: 50003 } }, fr);
    expect(r.stats.decode['decode.ip.fragments']).toBe(2);
  });

  it('ICMP echo: proto 1, no ports, request and reply in one flow', async () => {
    const fr = [
      ethIp(ipv4({ src: CLI, dst: SRV, proto: IPPROTO.ICMP }, icmp(8, 0, echo(0x77, 1)))),
      ethIp(ipv4({ src: SRV, dst: CLI, proto: IPPROTO.ICMP }, icmp(0, 0, echo(0x77, 1)))),
    ];
    tsharkChecks.push({ what: 'icmp', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ip:icmp:data' });
    const r = await capture(fr);
    expect(errors(r)).toEqual({});
    expect(r.flows.length).toBe(1);
    expect(r.flows[0]).toMatchObject({ proto: 1, client: { ip: CLI, port: 0 }, server: { ip: SRV, port: 0 }, cli2srv_packets: 1, srv2cli_packets: 1, icmp_type: 8, icmp_code: 0, cli2srv_bytes: fr[0]!.length });
  });

  it('ICMPv6 echo: proto 58', async () => {
    const fr = [ethIp(ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.ICMPV6 }, icmpv6(128, 0, echo(5, 1))), ETH.IPV6)];
    tsharkChecks.push({ what: 'icmpv6', linktype: 1, frame: fr[0]!, protocols: 'eth:ethertype:ipv6:icmpv6:data' });
    const r = await capture(fr);
    expect(errors(r)).toEqual({});
    expect(r.flows[0]).toMatchObject({ proto: 58, ip_version: 6, client: { ip: CLI6, port: 0 }, server: { ip: SRV6, port: 0 }, icmp_type: 128 });
  });
});

describe('tunnels: the flow is the inner 5-tuple', () => {
  const O1 = '203.0.113.1', O2 = '203.0.113.2';
  const outer4 = (proto: number, payload: Buffer) => ethIp(ipv4({ src: O1, dst: O2, proto }, payload));
  const outerUdp = (sport: number, dport: number, payload: Buffer) => outer4(IPPROTO.UDP, udp({ sport, dport }, payload));

  async function tunnel(name: string, frames: Buffer[], kind: FlowRecord['tunnel'], protocols: string | RegExp, want = inner) {
    tsharkChecks.push({ what: name, linktype: 1, frame: frames[0]!, protocols });
    const r = await capture(frames);
    expectOneFlow(r, { ...want, tunnel: kind }, frames);
    expect(r.stats.decode['decode.tunnel.packets']).toBe(frames.length);
    // The outer endpoints are no hosts of ours.
    expect(r.hosts.map((h) => h.ip).sort()).toEqual([want.client.ip, want.server.ip].sort());
    return r;
  }

  it('GRE (plain)', () => tunnel('gre', [outer4(IPPROTO.GRE, gre({ proto: ETH.IPV4 }, syn4()))], 'GRE', 'eth:ethertype:ip:gre:ip:tcp'));
  it('GRE with key and sequence number', () =>
    tunnel('gre key seq', [outer4(IPPROTO.GRE, gre({ proto: ETH.IPV4, key: 0xdeadbeef, seq: 42 }, syn4()))], 'GRE', 'eth:ethertype:ip:gre:ip:tcp'));
  it('GRE with checksum, key and sequence number', () =>
    tunnel('gre csum', [outer4(IPPROTO.GRE, gre({ proto: ETH.IPV4, checksum: true, key: 1, seq: 2 }, syn4()))], 'GRE', 'eth:ethertype:ip:gre:ip:tcp'));
  it('GRE transparent Ethernet bridging', () =>
    tunnel('gre teb', [outer4(IPPROTO.GRE, gre({ proto: 0x6558 }, ethIp(syn4())))], 'GRE', 'eth:ethertype:ip:gre:eth:ethertype:ip:tcp'));
  it('GRE carrying IPv6', () => tunnel('gre v6', [outer4(IPPROTO.GRE, gre({ proto: ETH.IPV6 }, syn6()))], 'GRE', 'eth:ethertype:ip:gre:ipv6:tcp', inner6));
  it('ERSPAN type II', () =>
    tunnel('erspan2', [outer4(IPPROTO.GRE, gre({ proto: 0x88be, seq: 1 }, erspan2(7, ethIp(syn4()))))], 'ERSPAN', 'eth:ethertype:ip:gre:erspan:eth:ethertype:ip:tcp'));
  it('ERSPAN type III', () =>
    tunnel('erspan3', [outer4(IPPROTO.GRE, gre({ proto: 0x22eb, seq: 1 }, erspan3(7, ethIp(syn4()))))], 'ERSPAN', 'eth:ethertype:ip:gre:erspan:eth:ethertype:ip:tcp'));
  it('ERSPAN type III with the platform sub-header', () =>
    tunnel('erspan3 platform', [outer4(IPPROTO.GRE, gre({ proto: 0x22eb, seq: 1 }, erspan3(7, ethIp(syn4()), true)))], 'ERSPAN', 'eth:ethertype:ip:gre:erspan:eth:ethertype:ip:tcp'));
  it('VXLAN (UDP 4789)', () => tunnel('vxlan', [outerUdp(49152, 4789, vxlan(5001, ethIp(syn4())))], 'VXLAN', 'eth:ethertype:ip:udp:vxlan:eth:ethertype:ip:tcp'));
  it('VXLAN with an inner 802.1Q tag: the flow VLAN is the inner tag', () =>
    tunnel('vxlan vlan', [outerUdp(49152, 4789, vxlan(5001, eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(33, ETH.IPV4, syn4()))))], 'VXLAN', 'eth:ethertype:ip:udp:vxlan:eth:ethertype:vlan:ethertype:ip:tcp', { ...inner, vlan: 33 }));
  it('GTP-U (UDP 2152) without the optional header', () => tunnel('gtp', [outerUdp(2152, 2152, gtpu(0x1234, syn4()))], 'GTP-U', 'eth:ethertype:ip:udp:gtp:ip:tcp'));
  it('GTP-U with the optional header (sequence number)', () => tunnel('gtp seq', [outerUdp(2152, 2152, gtpu(0x1234, syn4(), 77))], 'GTP-U', 'eth:ethertype:ip:udp:gtp:ip:tcp'));
  it('GTP-U carrying IPv6', () => tunnel('gtp v6', [outerUdp(2152, 2152, gtpu(0x1234, syn6()))], 'GTP-U', 'eth:ethertype:ip:udp:gtp:ipv6:tcp', inner6));
  it('TZSP (UDP 37008) carrying Ethernet', () => tunnel('tzsp', [outerUdp(37008, 37008, tzsp(ethIp(syn4())))], 'TZSP', 'eth:ethertype:ip:udp:tzsp:eth:ethertype:ip:tcp'));
  it('TZSP with padding and a tag (RSSI) before END, to the sniffer port', () =>
    tunnel('tzsp tags', [outerUdp(40001, 37008, tzsp(ethIp(syn4()), { tags: [0, 10, 1, 0xc4] }))], 'TZSP', 'eth:ethertype:ip:udp:tzsp:eth:ethertype:ip:tcp'));
  it('TZSP carrying an 802.11 data frame, IPv6 inside', () =>
    tunnel('tzsp wlan', [outerUdp(37008, 37008, tzsp(wifiData(syn6(), 0x86dd), { encap: 18 }))], 'TZSP', /^eth:ethertype:ip:udp:tzsp:wlan:(wlan\.mgt:)?llc:ipv6:tcp$/, inner6));
  it('TZSP keepalive (type 4) and an unknown encapsulation stay UDP flows of the sniffer', async () => {
    const r = await capture([outerUdp(40002, 37008, Buffer.from([1, 4, 0, 1, 1])), outerUdp(40003, 37008, tzsp(ethIp(syn4()), { encap: 119 }))]);
    expect(errors(r)).toEqual({});
    expect(r.flows.map((f) => [f.proto, f.tunnel, f.server.port]).sort()).toEqual([[17, '', 37008], [17, '', 37008]]);
  });
  it('IP-in-IP 4in4', () => tunnel('4in4', [outer4(IPPROTO.IPIP, syn4())], 'IP-in-IP', 'eth:ethertype:ip:ip:tcp'));
  it('IP-in-IP 6in4', () => tunnel('6in4', [outer4(IPPROTO.IPV6, syn6())], 'IP-in-IP', 'eth:ethertype:ip:ipv6:tcp', inner6));
  it('IP-in-IP 4in6', () =>
    tunnel('4in6', [ethIp(ipv6({ src: '2001:db8:ffff::1', dst: '2001:db8:ffff::2', next: IPPROTO.IPIP }, syn4()), ETH.IPV6)], 'IP-in-IP', 'eth:ethertype:ipv6:ip:tcp'));
  it('VXLAN under an outer 802.1Q tag, carrying an inner 802.1Q frame (two tags in all)', async () => {
    const f = eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(10, ETH.IPV4, ipv4({ src: O1, dst: O2, proto: IPPROTO.UDP }, udp({ sport: 49152, dport: 4789 }, vxlan(1, eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(33, ETH.IPV4, syn4())))))));
    tsharkChecks.push({ what: 'vlan+vxlan+vlan', linktype: 1, frame: f, protocols: 'eth:ethertype:vlan:ethertype:ip:udp:vxlan:eth:ethertype:vlan:ethertype:ip:tcp' });
    expectOneFlow(await capture([f]), { ...inner, tunnel: 'VXLAN', vlan: 33 }, [f]);
  });

  it('VXLAN under outer QinQ, carrying an inner 802.1Q frame: the inner flow, no decode error', async () => {
    const f = eth(MAC_B, MAC_A, ETH.QINQ, vlanTag(10, ETH.VLAN, vlanTag(20, ETH.IPV4, ipv4({ src: O1, dst: O2, proto: IPPROTO.UDP }, udp({ sport: 49152, dport: 4789 }, vxlan(1, eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(33, ETH.IPV4, syn4()))))))));
    const r = await capture([f]);
    expect(errors(r)).toEqual({});
    expect(r.flows.map((x) => [x.proto, x.tunnel, x.client.ip, x.server.ip])).toEqual([[6, 'VXLAN', CLI, SRV]]);
  });

  it('three nested tunnels (GRE in VXLAN in IP-in-IP) are followed to the innermost packet', async () => {
    const f = outer4(IPPROTO.IPIP, ipv4({ src: '10.9.0.1', dst: '10.9.0.2', proto: IPPROTO.UDP }, udp({ sport: 1234, dport: 4789 }, vxlan(9, ethIp(ipv4({ src: '10.8.0.1', dst: '10.8.0.2', proto: IPPROTO.GRE }, gre({ proto: ETH.IPV4 }, syn4())))))));
    const r = await capture([f]);
    expectOneFlow(r, { ...inner, tunnel: 'GRE' }, [f]);
  });
});

// ---- malformed input: one byte short vs exactly long enough ----------------------------------

const ipHdr = (proto: number, body: Buffer, extra: Partial<Parameters<typeof ipv4>[0]> = {}) => ipv4({ src: CLI, dst: SRV, proto, ...extra }, body);
const ip6Hdr = (next: number, body: Buffer) => ipv6({ src: CLI6, dst: SRV6, next }, body);
const udpTo = (dport: number, body: Buffer, sport = 40000) => ethIp(ipHdr(IPPROTO.UDP, udp({ sport, dport }, body)));
const overGre = (g: Buffer) => ethIp(ipHdr(IPPROTO.GRE, g));
const greHdr = (flags: number, proto: number) => Buffer.from([flags >> 8, flags & 255, proto >> 8, proto & 255]);
const dstOpts = (n: number, last: number, body: Buffer = Buffer.alloc(0)): Buffer => (n === 0 ? body : ipv6Options(n === 1 ? last : IPPROTO.DSTOPTS, dstOpts(n - 1, last, body)));
const ipip = (depth: number): Buffer => (depth === 0 ? syn4() : ipHdr(IPPROTO.IPIP, ipip(depth - 1)));
// an 802.11 data frame to the AP (ToDS) with an RFC 1042 SNAP header
const wifiData = (body: Buffer, type = 0x0800) => Buffer.concat([Buffer.from([0x08, 0x01, 0, 0]), Buffer.alloc(18, 2), Buffer.from([0x10, 0]), Buffer.from([0xaa, 0xaa, 0x03, 0, 0, 0, type >> 8, type & 0xff]), body]);
const capwapHdr = Buffer.from([0x00, 0x10, 0x00, 0x00, 0, 0, 0, 0]); // preamble 0, HLEN 2 words, 802.3 payload
const gtpFlags = (flags: number, rest: number[]) => Buffer.from([flags, 0xff, 0, 0, 0, 0, 0, 1, ...rest]);

interface MalformedCase {
  reason: string; // the decode.* counter
  what: string;
  linktype?: number;
  short: Buffer; // counted under `reason`
  ok: Buffer; // not counted
  okIs: 'ip' | 'non-ip';
}

const CASES: MalformedCase[] = [
  { reason: 'decode.ethernet.too_short', what: '13 of 14 header bytes', short: Buffer.alloc(13), ok: eth(MAC_B, MAC_A, ETH.ARP), okIs: 'non-ip' },
  { reason: 'decode.vlan.too_short', what: '3 of 4 tag bytes', short: eth(MAC_B, MAC_A, ETH.VLAN, Buffer.alloc(3)), ok: eth(MAC_B, MAC_A, ETH.VLAN, vlanTag(5, ETH.ARP)), okIs: 'non-ip' },
  { reason: 'decode.vlan.too_deep', what: '3 tags (2 allowed)', short: eth(MAC_B, MAC_A, ETH.QINQ, vlanTag(1, ETH.VLAN, vlanTag(2, ETH.VLAN, vlanTag(3, ETH.IPV4, syn4())))), ok: eth(MAC_B, MAC_A, ETH.QINQ, vlanTag(1, ETH.VLAN, vlanTag(2, ETH.IPV4, syn4()))), okIs: 'ip' },
  { reason: 'decode.mpls.too_short', what: '3 of 4 label bytes', short: eth(MAC_B, MAC_A, ETH.MPLS, Buffer.alloc(3)), ok: eth(MAC_B, MAC_A, ETH.MPLS, mpls([16], syn4())), okIs: 'ip' },
  { reason: 'decode.mpls.too_short', what: 'nothing after the bottom label', short: eth(MAC_B, MAC_A, ETH.MPLS, mpls([16], Buffer.alloc(0))), ok: eth(MAC_B, MAC_A, ETH.MPLS, mpls([16], Buffer.from([0x50]))), okIs: 'non-ip' },
  { reason: 'decode.mpls.too_deep', what: '9 labels (8 allowed)', short: eth(MAC_B, MAC_A, ETH.MPLS, mpls([1, 2, 3, 4, 5, 6, 7, 8, 9], syn4())), ok: eth(MAC_B, MAC_A, ETH.MPLS, mpls([1, 2, 3, 4, 5, 6, 7, 8], syn4())), okIs: 'ip' },
  { reason: 'decode.pppoe.too_short', what: '5 of 6 header bytes', short: eth(MAC_B, MAC_A, ETH.PPPOE, Buffer.from([0x11, 0, 0, 1, 0])), ok: eth(MAC_B, MAC_A, ETH.PPPOE, pppoeSession(1, 0xc021, Buffer.alloc(4))), okIs: 'non-ip' },
  { reason: 'decode.ppp.too_short', what: '1 of 2 protocol bytes', short: eth(MAC_B, MAC_A, ETH.PPPOE, Buffer.from([0x11, 0, 0, 1, 0, 1, 0x00])), ok: eth(MAC_B, MAC_A, ETH.PPPOE, Buffer.from([0x11, 0, 0, 1, 0, 2, 0xc0, 0x21])), okIs: 'non-ip' },
  { reason: 'decode.sll.too_short', what: '15 of 16 header bytes', linktype: LINKTYPE.SLL, short: sll(ETH.ARP, Buffer.alloc(0)).subarray(0, 15), ok: sll(ETH.ARP, Buffer.alloc(0)), okIs: 'non-ip' },
  { reason: 'decode.sll2.too_short', what: '19 of 20 header bytes', linktype: LINKTYPE.SLL2, short: sll2(ETH.ARP, Buffer.alloc(0)).subarray(0, 19), ok: sll2(ETH.ARP, Buffer.alloc(0)), okIs: 'non-ip' },
  { reason: 'decode.null.too_short', what: '3 of 4 header bytes', linktype: LINKTYPE.NULL, short: Buffer.from([2, 0, 0]), ok: nullHdr(2, syn4()), okIs: 'ip' },
  { reason: 'decode.hdlc.too_short', what: '3 of 4 header bytes', linktype: 104, short: Buffer.from([0x0f, 0, 0x08]), ok: Buffer.concat([Buffer.from([0x0f, 0, 0x08, 0x00]), syn4()]), okIs: 'ip' },
  { reason: 'decode.wifi.too_short', what: '23 of 24 802.11 header bytes', linktype: 105, short: wifiData(syn4()).subarray(0, 23), ok: wifiData(syn4()), okIs: 'ip' },
  { reason: 'decode.wifi.too_short', what: 'LLC/SNAP 7 of 8 bytes', linktype: 105, short: wifiData(Buffer.alloc(0)).subarray(0, 31), ok: wifiData(Buffer.alloc(0), 0x0806), okIs: 'non-ip' },
  { reason: 'decode.radiotap.too_short', what: '7 of 8 header bytes', linktype: 127, short: Buffer.from([0, 0, 8, 0, 0, 0, 0]), ok: Buffer.concat([Buffer.from([0, 0, 8, 0, 0, 0, 0, 0]), wifiData(syn4())]), okIs: 'ip' },
  { reason: 'decode.radiotap.too_short', what: 'Flags field past the header length', linktype: 127, short: Buffer.concat([Buffer.from([0, 0, 8, 0, 2, 0, 0, 0]), wifiData(syn4())]), ok: Buffer.concat([Buffer.from([0, 0, 9, 0, 2, 0, 0, 0, 0]), wifiData(syn4())]), okIs: 'ip' },
  { reason: 'decode.ppi.too_short', what: '7 of 8 header bytes', linktype: 192, short: Buffer.from([0, 0, 8, 0, 1, 0, 0]), ok: Buffer.concat([Buffer.from([0, 0, 8, 0, 1, 0, 0, 0]), ethIp(syn4())]), okIs: 'ip' },
  { reason: 'decode.ipv4.too_short', what: '19 of 20 header bytes', short: ethIp(syn4().subarray(0, 19)), ok: ethIp(ipHdr(253, Buffer.alloc(0))), okIs: 'ip' },
  { reason: 'decode.ipv4.bad_version', what: 'version 5 on raw IP', linktype: LINKTYPE.RAW, short: ipHdr(253, Buffer.alloc(0), { version: 5 }), ok: ipHdr(253, Buffer.alloc(0)), okIs: 'ip' },
  { reason: 'decode.ipv4.bad_version', what: 'version 6 under ethertype IPv4', short: ethIp(ipHdr(253, Buffer.alloc(0), { version: 6 })), ok: ethIp(ipHdr(253, Buffer.alloc(0))), okIs: 'ip' },
  { reason: 'decode.ipv4.bad_header_len', what: 'IHL 4 (16 bytes)', short: ethIp(ipHdr(253, Buffer.alloc(4), { ihl: 4 })), ok: ethIp(ipHdr(253, Buffer.alloc(4), { ihl: 5 })), okIs: 'ip' },
  { reason: 'decode.ipv4.bad_header_len', what: 'IHL 6 with 23 bytes captured', short: ethIp(ipHdr(253, Buffer.alloc(0), { options: Buffer.alloc(4) }).subarray(0, 23)), ok: ethIp(ipHdr(253, Buffer.alloc(0), { options: Buffer.alloc(4) })), okIs: 'ip' },
  { reason: 'decode.ipv4.bad_total_len', what: 'total length 19 < header 20', short: ethIp(ipHdr(253, Buffer.alloc(0), { totalLength: 19 })), ok: ethIp(ipHdr(253, Buffer.alloc(0), { totalLength: 20 })), okIs: 'ip' },
  { reason: 'decode.ipv6.too_short', what: '39 of 40 header bytes', short: ethIp(ip6Hdr(IPPROTO.NONE, Buffer.alloc(0)).subarray(0, 39), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.NONE, Buffer.alloc(0)), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.ipv6.bad_version', what: 'version 4 under ethertype IPv6', short: ethIp(ipv6({ src: CLI6, dst: SRV6, next: IPPROTO.NONE, version: 4 }), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.NONE, Buffer.alloc(0)), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.ipv6.ext_too_short', what: 'hop-by-hop header of 7 bytes', short: ethIp(ip6Hdr(IPPROTO.HOPOPTS, ipv6Options(IPPROTO.NONE, Buffer.alloc(0)).subarray(0, 7)), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.HOPOPTS, ipv6Options(IPPROTO.NONE, Buffer.alloc(0))), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.ipv6.ext_too_short', what: 'options header claiming 16 bytes, 15 present', short: ethIp(ip6Hdr(IPPROTO.DSTOPTS, ipv6Options(IPPROTO.NONE, Buffer.alloc(0), 1).subarray(0, 15)), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.DSTOPTS, ipv6Options(IPPROTO.NONE, Buffer.alloc(0), 1)), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.ipv6.ext_too_short', what: 'fragment header of 7 bytes', short: ethIp(ip6Hdr(IPPROTO.FRAGMENT, ipv6Frag(IPPROTO.NONE, 0, false, 1, Buffer.alloc(0)).subarray(0, 7)), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.FRAGMENT, ipv6Frag(IPPROTO.NONE, 0, false, 1, Buffer.alloc(0))), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.ipv6.too_many_ext', what: '9 extension headers (8 allowed)', short: ethIp(ip6Hdr(IPPROTO.DSTOPTS, dstOpts(9, IPPROTO.NONE)), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.DSTOPTS, dstOpts(8, IPPROTO.NONE)), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.tcp.too_short', what: '19 of 20 header bytes', short: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2 }).subarray(0, 19))), ok: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2 }))), okIs: 'ip' },
  { reason: 'decode.tcp.too_short', what: 'data offset 6 with 23 bytes', short: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2, options: Buffer.from([1, 1, 1, 1]) }).subarray(0, 23))), ok: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2, options: Buffer.from([1, 1, 1, 1]) }))), okIs: 'ip' },
  { reason: 'decode.tcp.bad_header_len', what: 'data offset 4', short: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2, dataOffset: 4 }))), ok: ethIp(ipHdr(IPPROTO.TCP, tcp({ sport: 1, dport: 2, dataOffset: 5 }))), okIs: 'ip' },
  { reason: 'decode.udp.too_short', what: '7 of 8 header bytes', short: ethIp(ipHdr(IPPROTO.UDP, udp({ sport: 1, dport: 2 }).subarray(0, 7))), ok: ethIp(ipHdr(IPPROTO.UDP, udp({ sport: 1, dport: 2 }))), okIs: 'ip' },
  { reason: 'decode.udp.bad_len', what: 'length field 7', short: ethIp(ipHdr(IPPROTO.UDP, udp({ sport: 1, dport: 2, length: 7 }))), ok: ethIp(ipHdr(IPPROTO.UDP, udp({ sport: 1, dport: 2, length: 8 }))), okIs: 'ip' },
  { reason: 'decode.icmp.too_short', what: '3 of 4 bytes', short: ethIp(ipHdr(IPPROTO.ICMP, Buffer.from([8, 0, 0]))), ok: ethIp(ipHdr(IPPROTO.ICMP, icmp(8, 0, Buffer.alloc(0)))), okIs: 'ip' },
  { reason: 'decode.icmpv6.too_short', what: '3 of 4 bytes', short: ethIp(ip6Hdr(IPPROTO.ICMPV6, Buffer.from([128, 0, 0])), ETH.IPV6), ok: ethIp(ip6Hdr(IPPROTO.ICMPV6, icmpv6(128, 0, Buffer.alloc(0))), ETH.IPV6), okIs: 'ip' },
  { reason: 'decode.gre.too_short', what: '3 of 4 header bytes', short: overGre(Buffer.from([0, 0, 0x08])), ok: overGre(gre({ proto: ETH.IPV4 }, syn4())), okIs: 'ip' },
  { reason: 'decode.gre.too_short', what: 'key flag, 7 of 8 bytes', short: overGre(Buffer.concat([greHdr(0x2000, ETH.IPV4), Buffer.alloc(3)])), ok: overGre(gre({ proto: ETH.IPV4, key: 5 }, syn4())), okIs: 'ip' },
  { reason: 'decode.gre.bad_version', what: 'version 2', short: overGre(Buffer.concat([greHdr(0x0002, ETH.IPV4), syn4()])), ok: overGre(Buffer.concat([greHdr(0x0000, ETH.IPV4), syn4()])), okIs: 'ip' },
  { reason: 'decode.erspan.too_short', what: 'type II header 7 of 8 bytes', short: overGre(gre({ proto: 0x88be, seq: 1 }, Buffer.alloc(7))), ok: overGre(gre({ proto: 0x88be, seq: 1 }, erspan2(1, ethIp(syn4())))), okIs: 'ip' },
  { reason: 'decode.erspan.too_short', what: 'type III header 11 of 12 bytes', short: overGre(gre({ proto: 0x22eb, seq: 1 }, Buffer.alloc(11))), ok: overGre(gre({ proto: 0x22eb, seq: 1 }, erspan3(1, ethIp(syn4())))), okIs: 'ip' },
  { reason: 'decode.erspan.too_short', what: 'type III with sub-header 19 of 20 bytes', short: overGre(gre({ proto: 0x22eb, seq: 1 }, erspan3(1, Buffer.alloc(0), true).subarray(0, 19))), ok: overGre(gre({ proto: 0x22eb, seq: 1 }, erspan3(1, ethIp(syn4()), true))), okIs: 'ip' },
  { reason: 'decode.vxlan.too_short', what: '7 of 8 header bytes', short: udpTo(4789, Buffer.from([0x08, 0, 0, 0, 0, 0, 1])), ok: udpTo(4789, vxlan(1, ethIp(syn4()))), okIs: 'ip' },
  { reason: 'decode.gtp.too_short', what: '7 of 8 header bytes', short: udpTo(2152, gtpu(1, Buffer.alloc(0)).subarray(0, 7)), ok: udpTo(2152, gtpu(1, syn4())), okIs: 'ip' },
  { reason: 'decode.gtp.too_short', what: 'S flag, 11 of 12 header bytes', short: udpTo(2152, gtpFlags(0x32, [0, 1, 0])), ok: udpTo(2152, gtpu(1, syn4(), 1)), okIs: 'ip' },
  { reason: 'decode.gtp.too_short', what: 'G-PDU without a payload', short: udpTo(2152, gtpu(1, Buffer.alloc(0))), ok: udpTo(2152, gtpu(1, syn4())), okIs: 'ip' },
  { reason: 'decode.gtp.bad_header', what: 'extension header of length 0', short: udpTo(2152, gtpFlags(0x34, [0, 0, 0, 0x85, 0, 0, 0, 0])), ok: udpTo(2152, Buffer.concat([gtpFlags(0x34, [0, 0, 0, 0x85, 1, 0, 0, 0]), syn4()])), okIs: 'ip' },
  { reason: 'decode.capwap.too_short', what: '7 of 8 header bytes', short: udpTo(5247, capwapHdr.subarray(0, 7)), ok: udpTo(5247, Buffer.concat([capwapHdr, ethIp(syn4())])), okIs: 'ip' },
  { reason: 'decode.tzsp.too_short', what: '3 of 4 header bytes', short: udpTo(37008, Buffer.from([1, 0, 0])), ok: udpTo(37008, tzsp(ethIp(syn4()))), okIs: 'ip' },
  { reason: 'decode.tzsp.too_short', what: 'tags without END', short: udpTo(37008, Buffer.from([1, 0, 0, 1, 0, 0])), ok: udpTo(37008, tzsp(ethIp(syn4()), { tags: [0, 0] })), okIs: 'ip' },
  { reason: 'decode.tzsp.too_short', what: 'a tag whose length runs past the packet', short: udpTo(37008, Buffer.from([1, 0, 0, 1, 10, 4, 0xc4])), ok: udpTo(37008, tzsp(ethIp(syn4()), { tags: [10, 1, 0xc4] })), okIs: 'ip' },
  { reason: 'decode.tunnel.too_deep', what: '4 nested IP-in-IP (3 allowed)', short: ethIp(ipip(4)), ok: ethIp(ipip(3)), okIs: 'ip' },
  { reason: 'decode.link.unknown_type', what: 'link type 147 (USER0)', linktype: 147, short: ethIp(syn4()), ok: ethIp(syn4()), okIs: 'ip' },
];

describe('malformed input: one byte short is counted, exactly long enough is not', () => {
  it.each(CASES.map((c) => [`${c.reason}: ${c.what}`, c] as const))('%s', async (_name, c) => {
    const lt = c.linktype ?? LINKTYPE.ETHERNET;
    const short = await capture([c.short], lt);
    expect(errors(short)).toEqual({ [c.reason]: 1 });
    expect(short.stats.malformed).toBe(1);
    if (c.reason === 'decode.link.unknown_type') return; // nothing is long enough for an unknown link type
    const ok = await capture([c.ok], lt);
    expect(errors(ok)).toEqual({});
    expect(ok.stats.malformed).toBe(0);
    expect(ok.stats.ip_packets).toBe(c.okIs === 'ip' ? 1 : 0);
    expect(ok.stats.decode['decode.non_ip']).toBe(c.okIs === 'ip' ? 0 : 1);
    if (c.okIs === 'ip') expect(ok.flows.length).toBe(1);
  });

  it('every decode.* reason the engine knows has a case above', () => {
    const known = Engine.info().decodeErrors;
    expect(known.length).toBeGreaterThan(20);
    expect(known.filter((k) => !CASES.some((c) => c.reason === k))).toEqual([]);
  });

  it('a malformed tunnel payload keeps the packet as a flow of the outer protocol', async () => {
    const r = await capture([udpTo(4789, Buffer.from([0x08, 0, 0, 0, 0, 0, 1]), 40000)]);
    expect(errors(r)).toEqual({ 'decode.vxlan.too_short': 1 });
    expect(r.flows.map((f) => [f.proto, f.tunnel, f.client.ip, f.server.port])).toEqual([[17, '', CLI, 4789]]);
  });

  it('a clean capture has every decode.* reason at 0', async () => {
    const r = await runEngine([join(NDPI_PCAPS, '1kxun.pcap')]);
    expect(Object.keys(r.stats.decode).length).toBeGreaterThan(20);
    expect(errors(r)).toEqual({});
    expect(r.stats.malformed).toBe(0);
  });
});

describe('tshark agrees the crafted frames are what they claim', () => {
  it('dissects every well-formed frame as intended, none malformed', async () => {
    expect(tsharkChecks.length).toBeGreaterThan(30);
    // One pcapng, one interface per link type.
    const lts = [...new Set(tsharkChecks.map((c) => c.linktype))];
    const file = tmp.file('tshark.pcapng', pcapng(lts.map((linktype) => ({ linktype })), tsharkChecks.map((c, i) => ({ tsNs: sec(T0 + i), data: c.frame, ifid: lts.indexOf(c.linktype) }))));
    const { stdout } = await execFileP('tshark', ['-n', '-r', file, '-T', 'fields', '-E', 'separator=|', '-e', 'frame.protocols', '-e', '_ws.malformed', '-e', '_ws.expert.severity']);
    const rows = stdout.split('\n').filter((l) => l.length);
    expect(rows.length).toBe(tsharkChecks.length);
    const bad: string[] = [];
    rows.forEach((row, i) => {
      const [protocols, malformed, severity] = row.split('|');
      const c = tsharkChecks[i]!;
      const ok = typeof c.protocols === 'string' ? protocols === c.protocols : c.protocols.test(protocols!);
      // Expert severities: 8388608 = error (4194304 warning, 2097152 note, 1048576 chat).
      if (!ok || malformed || (severity ?? '').split(',').includes('8388608')) bad.push(`${c.what}: ${row}`);
    });
    expect(bad).toEqual([]);
  });
});
