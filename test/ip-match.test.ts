// nDPI's guess by address: a flow that inspection could not classify and
// whose port says nothing gets the application whose IP prefix list (see
// native/src/dpi/data/ip-ranges.tsv) holds its server, as "Match by IP".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp } from './fixtures/frames.js';
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
