// nDPI's guess by address: a flow that inspection could not classify and
// whose port says nothing gets the application whose IP prefix list (see
// native/src/dpi/data/ip-ranges.tsv) holds its server, as "Match by IP".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { DNS_RESPONSE, DNS_TYPE, dns, dnsName, ipRdata, tlsClientHello } from './fixtures/apps.js';
import { replayFrames } from './fixtures/dissect.js';

// One TCP flow from 10.0.0.1 (2001:db8::1 for IPv6) to `server`:40123 with a payload no dissector knows.
async function classify(server: string): Promise<{ name: string; confidence: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-ip-'));
  try {
    const v6 = server.includes(':');
    const client = v6 ? '2001:db8::1' : '10.0.0.1';
    const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, data: Uint8Array = new Uint8Array()) => {
      const l4 = tcp({ sport, dport, flags, seq, ack: 1 }, data);
      return v6
        ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.TCP }, l4))
        : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, l4));
    };
    const junk = new Uint8Array(48).map((_, i) => (i * 37 + 11) & 0xff);
    const frames = [
      seg(client, server, 50000, 40123, TCPF.SYN, 999),
      seg(server, client, 40123, 50000, TCPF.SYN | TCPF.ACK, 4999),
      seg(client, server, 50000, 40123, TCPF.PSH | TCPF.ACK, 1000, junk),
      seg(server, client, 40123, 50000, TCPF.PSH | TCPF.ACK, 5000, junk),
    ];
    const file = join(dir, 'ip.pcap');
    // Flushed at the end of the capture: the flow ends and inspection gives up.
    return replayFrames(file, frames, (e) => {
      const [f] = e.drainExpired(16);
      return { name: l7Name(f.l7_master, f.l7_app), confidence: f.confidence };
    }, { flushAtEnd: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('IP prefix lists (nDPI "Match by IP")', () => {
  it('names a flow whose server lies inside a listed prefix, not one just outside', async () => {
    // Webex 62.109.192.0/18 (62.109.192.0 – 62.109.255.255).
    expect(await classify('62.109.192.1')).toEqual({ name: 'Webex', confidence: 'Match by IP' });
    expect(await classify('62.109.255.254')).toEqual({ name: 'Webex', confidence: 'Match by IP' });
    expect((await classify('62.109.191.255')).name).toBe('Unknown');
    expect((await classify('62.110.0.1')).name).toBe('Unknown');
  });

  it('keeps /31 entries exact; the longest prefix wins where lists nest', async () => {
    // WhatsApp 157.240.20.52/31 inside Facebook's 157.240.0.0/17 (its ASN list).
    expect((await classify('157.240.20.53')).name).toBe('WhatsApp');
    expect((await classify('157.240.20.54')).name).toBe('Facebook');
    expect((await classify('157.239.255.255')).name).toBe('Unknown');
  });

  it('has every protocol list nDPI loads (cloud, messenger, VPN, CDN lists)', async () => {
    // one prefix of a few of them, from nDPI's lists (data/README.md names the commit)
    expect(await classify('3.127.176.74')).toEqual({ name: 'AmazonAWS', confidence: 'Match by IP' }); // 3.120.0.0/13
    expect((await classify('17.1.2.3')).name).toBe('Apple'); // 17.0.0.0/8
    expect((await classify('20.0.0.1')).name).toBe('Azure');
  });

  it('matches IPv6 prefixes too', async () => {
    // Telegram 2001:b28:f23c::/47 (2001:b28:f23c:: – 2001:b28:f23d:ffff:…).
    expect(await classify('2001:b28:f23d::5')).toEqual({ name: 'Telegram', confidence: 'Match by IP' });
    expect((await classify('2001:b28:f23e::5')).name).toBe('Unknown');
  });
});

// nDPI 4.11 names no flow from another flow's DNS answer: its DNS cache
// (dns.c, lru.fpc_dns) feeds only the "first packet classification" it
// reports beside the protocol, and its address cache is off by default
// (dpi.address_cache_size 0). A flow nothing classified stays Unknown,
// whatever a DNS answer or another flow's SNI said about its server.
describe('names from DNS answers or SNI do not classify other flows', () => {
  it('a DNS answer for www.youtube.com leaves a later unclassified flow to that address Unknown; an SNI too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-dnscache-'));
    try {
      const junk = new Uint8Array(48).map((_, i) => (i * 37 + 11) & 0xff);
      const tcpSeg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, data: Uint8Array = new Uint8Array()) =>
        eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack: 1 }, data)));
      const unknownFlow = (server: string, sport: number) => [
        tcpSeg('10.0.0.1', server, sport, 40123, TCPF.SYN, 999),
        tcpSeg(server, '10.0.0.1', 40123, sport, TCPF.SYN | TCPF.ACK, 4999),
        tcpSeg('10.0.0.1', server, sport, 40123, TCPF.PSH | TCPF.ACK, 1000, junk),
        tcpSeg(server, '10.0.0.1', 40123, sport, TCPF.PSH | TCPF.ACK, 5000, junk),
      ];
      const name = dnsName('www.youtube.com');
      const answer = dns({ flags: DNS_RESPONSE, questions: [{ name, type: DNS_TYPE.A }], answers: [{ name, type: DNS_TYPE.A, rdata: ipRdata('198.51.100.7') }] });
      const frames = [
        eth(MAC_A, MAC_B, ETH.IPV4, ipv4({ src: '10.0.0.53', dst: '10.0.0.1', proto: IPPROTO.UDP }, udp({ sport: 53, dport: 33333 }, answer))),
        ...unknownFlow('198.51.100.7', 50001),
        // the SNI of a TLS flow to 198.51.100.8 says www.youtube.com too
        tcpSeg('10.0.0.1', '198.51.100.8', 50002, 443, TCPF.SYN, 999),
        tcpSeg('198.51.100.8', '10.0.0.1', 443, 50002, TCPF.SYN | TCPF.ACK, 4999),
        tcpSeg('10.0.0.1', '198.51.100.8', 50002, 443, TCPF.PSH | TCPF.ACK, 1000, tlsClientHello('www.youtube.com')),
        ...unknownFlow('198.51.100.8', 50003),
      ];
      const got = await replayFrames(join(dir, 'c.pcap'), frames, (e) =>
        Object.fromEntries(e.drainExpired(64).filter((f) => f.srv_port === 40123).map((f) => [f.srv_ip, `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`])), { flushAtEnd: true });
      expect(got['198.51.100.7']).toBe('Unknown (Unknown)');
      expect(got['198.51.100.8']).toBe('Unknown (Unknown)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
