// Audit 6: the applications nDPI 4.11 names inside STUN and QUIC that we did
// not: a STUN REALM of Viber or of the stripcdn.com CDN (stun.c), DNS over
// QUIC from the ALPN a QUIC Initial offers first (quic.c, RFC 9250 §4.1.1).
// Each with a near miss. The QUIC Initial is built and protected in the test
// (fixtures/apps.ts quicInitial) and read back by tshark as the independent
// check that it is a real Initial.
import { execFileSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { quicInitial, tlsClientHello } from './fixtures/apps.js';
import { classifier, flowRunner } from './fixtures/dissect.js';
import { u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-6-');
const run = flowRunner('fg-dissectors-audit-6r-');

/** A STUN Binding Request (RFC 5389 §6; or `type`) with one REALM attribute (§15.7, padded to 4 bytes). */
function stunRealm(realm: string, type = 0x0001): Buffer {
  const v = Buffer.from(realm, 'latin1');
  const attr = Buffer.concat([u16(0x0014), u16(v.length), v, Buffer.alloc((4 - (v.length % 4)) % 4)]);
  return Buffer.concat([u16(type), u16(attr.length), u32(0x2112a442), Buffer.alloc(12, 0x5c), attr]);
}

/** The request and its success answer (0x0101), both with the realm. */
const exchange = (realm: string) => [stunRealm(realm), stunRealm(realm, 0x0101)];

describe('audit 6: STUN realms', () => {
  it('a realm of Viber or stripcdn.com names ViberVoip / AdultContent, as the other realms name theirs', async () => {
    expect(await classify('udp', 50700, 3478, [stunRealm('turn.viber.com')], [true])).toBe('STUN.ViberVoip (DPI)');
    expect(await classify('udp', 50701, 3478, [stunRealm('edge.stripcdn.com')], [true])).toBe('STUN.AdultContent (DPI)');
    expect(await classify('udp', 50702, 3478, [stunRealm('telegram.org')], [true])).toBe('STUN.TelegramVoip (DPI)');
    expect(await classify('udp', 50703, 3478, [stunRealm('turn.viber.com')], [true], { v6: true })).toBe('STUN.ViberVoip (DPI)');
    // near miss: a realm naming no one leaves plain STUN (named on the answer)
    expect(await classify('udp', 50704, 3478, exchange('turn.example.net'), [true, false])).toBe('STUN (DPI)');
  });

  it('a realm holding a "?" is junk to nDPI: it names nothing from it', async () => {
    expect(await classify('udp', 50705, 3478, exchange('viber?x'), [true, false])).toBe('STUN (DPI)');
    expect(await classify('udp', 50706, 3478, exchange('google.com?'), [true, false])).toBe('STUN (DPI)');
  });
});

describe('audit 6: DNS over QUIC', () => {
  const hello = (sni: string, alpn?: string[]) => tlsClientHello(sni, alpn).subarray(5); // the handshake message

  it('the fixture is a real QUIC Initial: tshark decrypts it and reads the SNI and ALPN', async () => {
    const { file } = await run('udp', 50710, 853, [quicInitial(hello('dns.example.net', ['doq']))], [true]);
    const out = execFileSync('tshark', ['-n', '-r', file, '-d', 'udp.port==853,quic', '-T', 'fields', '-e', 'quic.long.packet_type', '-e', 'tls.handshake.extensions_server_name', '-e', 'tls.handshake.extensions_alpn_str'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    expect(out.split('\t')).toEqual(['0', 'dns.example.net', 'doq']);
  });

  it('ALPN "doq" (or a draft "doq-i…") offered first names QUIC.DoH_DoT, over what the name says', async () => {
    expect(await classify('udp', 50711, 853, [quicInitial(hello('dns.example.net', ['doq']))], [true])).toBe('QUIC.DoH_DoT (DPI)');
    expect(await classify('udp', 50712, 8853, [quicInitial(hello('dns.example.net', ['doq-i11', 'doq']))], [true])).toBe('QUIC.DoH_DoT (DPI)');
    // a name nDPI knows (YouTube's) does not win over the ALPN
    expect(await classify('udp', 50713, 853, [quicInitial(hello('www.youtube.com', ['doq']))], [true])).toBe('QUIC.DoH_DoT (DPI)');
    expect(await classify('udp', 50714, 853, [quicInitial(hello('dns.example.net', ['doq']))], [true], { v6: true })).toBe('QUIC.DoH_DoT (DPI)');
  });

  it('near misses: "doq" offered second, another ALPN, or none is plain QUIC (or what the name says)', async () => {
    expect(await classify('udp', 50715, 443, [quicInitial(hello('dns.example.net', ['h3', 'doq']))], [true])).toBe('QUIC (DPI)');
    expect(await classify('udp', 50716, 443, [quicInitial(hello('dns.example.net', ['do']))], [true])).toBe('QUIC (DPI)');
    expect(await classify('udp', 50717, 443, [quicInitial(hello('www.youtube.com', ['h3']))], [true])).toBe('QUIC.YouTube (DPI)');
    expect(await classify('udp', 50718, 443, [quicInitial(hello('dns.example.net'))], [true])).toBe('QUIC (DPI)');
  });
});
