// Audit 10: TLS over TCP and DTLS (tls.cpp, tls_parse.cpp) checked against
// nDPI 4.11's tls.c; for each difference fixed, a hand-built case nDPI
// accepts and a near miss it rejects (RFC 5246 / 8446 records and hellos,
// RFC 6066 server_name, RFC 7301 ALPN, RFC 6347 / 9147 DTLS records,
// certificates made with the openssl CLI).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { txt, u16, u24, vec16, vec8 } from './fixtures/bytes.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit10-');
const run = flowRunner('fg-dissectors-audit10-run-');
const v6 = { v6: true };

// ── TLS building blocks (RFC 5246 §6.2, §7.4; RFC 8446 §4) ─────────────────
const record = (type: number, body: Buffer, version = 0x0303) => Buffer.concat([Buffer.from([type]), u16(version), vec16(body)]);
const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const ext = (type: number, body: Buffer) => Buffer.concat([u16(type), vec16(body)]);
const sniExt = (name: string) => ext(0x0000, vec16(Buffer.concat([Buffer.from([0]), vec16(txt(name))])));
const alpnExt = (list: string[]) => ext(0x0010, vec16(Buffer.concat(list.map((a) => vec8(txt(a))))));
const versionsExt = (vs: number[]) => ext(0x002b, vec8(Buffer.concat(vs.map(u16))));
// ClientHello: legacy_version, random, session id, one suite, null compression, extensions.
const clientHello = (legacy: number, exts: Buffer[]) =>
  record(22, handshake(1, Buffer.concat([u16(legacy), Buffer.alloc(32, 7), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(Buffer.concat(exts))])));
const serverHelloMsg = (exts: Buffer[] = []) =>
  handshake(2, Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02f), Buffer.from([0]), ...(exts.length ? [vec16(Buffer.concat(exts))] : [])]));
const ccs = record(20, Buffer.from([1]));
const appData = (n: number) => record(23, Buffer.alloc(n, 0xa5));

let nextPort = 43000;
const risksOf = async (payloads: Buffer[], opts = {}, dirs?: boolean[], tsSec?: number) => (await run('tcp', nextPort++, 443, payloads, dirs, tsSec, opts)).flow.risks;

describe('TLS over TCP: the records that name a flow before any hello (ndpi_search_tls_tcp)', () => {
  it('a ChangeCipherSpec record (1-byte body) after a NewSessionTicket names TLS; a 2-byte one does not', async () => {
    const ticket = record(22, handshake(4, Buffer.alloc(8, 1)));
    expect(await classify('tcp', 41001, 5555, [Buffer.concat([ticket, ccs])])).toBe('TLS (DPI)');
    expect(await classify('tcp', 41002, 5555, [Buffer.concat([ticket, ccs])], undefined, v6)).toBe('TLS (DPI)');
    expect(await classify('tcp', 41003, 5555, [Buffer.concat([ticket, record(20, Buffer.from([1, 1]))])])).not.toBe('TLS (DPI)');
  });

  it('an Alert record ending the segment names TLS (fatal: the risk); one followed by more bytes does not', async () => {
    const alert = record(21, Buffer.from([2, 40]));
    const { flow } = await run('tcp', 41011, 5555, [alert]);
    expect(`${flow.l7_confidence}`).toBe('DPI');
    expect(flow.risks).toContain('TLS Fatal Alert');
    expect(await classify('tcp', 41012, 5555, [alert], undefined, v6)).toBe('TLS (DPI)');
    expect(await classify('tcp', 41013, 5555, [Buffer.concat([alert, Buffer.from([0x17, 0x03])])])).not.toBe('TLS (DPI)');
  });

  it('a handshake message framed wrong (length high byte set) rules TLS out, even for later whole records', async () => {
    const good = record(22, handshake(4, Buffer.alloc(8, 1)));
    const bad = Buffer.from(good);
    bad[6] = 1;  // the message length's high byte
    expect(await classify('tcp', 41021, 5555, [good, appData(32)], [true, true])).toBe('TLS (DPI)');
    expect(await classify('tcp', 41022, 5555, [bad, appData(32)], [true, true])).not.toBe('TLS (DPI)');
  });

  it('Application Data split over segments names TLS when its record ends a segment', async () => {
    const rec = appData(100);
    expect(await classify('tcp', 41031, 5555, [rec.subarray(0, 55), rec.subarray(55)], [true, true])).toBe('TLS (DPI)');
    expect(await classify('tcp', 41032, 5555, [rec.subarray(0, 55), rec.subarray(55)], [true, true], v6)).toBe('TLS (DPI)');
    // one byte more: the record no longer ends the data
    expect(await classify('tcp', 41033, 5555, [rec.subarray(0, 55), Buffer.concat([rec.subarray(55), Buffer.from([0x17])])], [true, true])).not.toBe('TLS (DPI)');
  });
});

describe('ClientHello risks as processClientServerHello judges them', () => {
  it('the obsolete version is the hello\'s own version field, not supported_versions', async () => {
    expect(await risksOf([clientHello(0x0301, [sniExt('a.example'), alpnExt(['h2']), versionsExt([0x0304])])])).toContain('Obsolete TLS (v1.1 or older)');
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), alpnExt(['h2']), versionsExt([0x0301])])], v6)).not.toContain('Obsolete TLS (v1.1 or older)');
  });

  it('Missing SNI from TLS 1.1 on (an empty name counts as none), not for TLS 1.0', async () => {
    expect(await risksOf([clientHello(0x0302, [alpnExt(['h2'])])])).toContain('Missing SNI TLS Extn');
    expect(await risksOf([clientHello(0x0303, [sniExt(''), alpnExt(['h2'])])], v6)).toContain('Missing SNI TLS Extn');
    expect(await risksOf([clientHello(0x0301, [alpnExt(['h2'])])])).not.toContain('Missing SNI TLS Extn');
  });

  it('ALPN/SNI mismatch needs an offered protocol starting with "h"', async () => {
    expect(await risksOf([clientHello(0x0303, [alpnExt(['spdy/3', 'h2'])])])).toContain('ALPN/SNI Mismatch');
    expect(await risksOf([clientHello(0x0303, [alpnExt(['spdy/3'])])], v6)).not.toContain('ALPN/SNI Mismatch');
  });

  it('an ALPN value off nDPI\'s common list is an uncommon ALPN', async () => {
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), alpnExt(['h2', 'foo/1'])])])).toContain('Uncommon TLS ALPN');
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), alpnExt(['h2', 'foo/1'])])], v6)).toContain('Uncommon TLS ALPN');
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), alpnExt(['h2', 'http/1.1'])])])).not.toContain('Uncommon TLS ALPN');
  });

  it('the server\'s ALPN is judged when the client offered none', async () => {
    const sh = (alpn: string) => record(22, serverHelloMsg([alpnExt([alpn])]));
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example')]), sh('foo/1')])).toContain('Uncommon TLS ALPN');
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example')]), sh('h2')])).not.toContain('Uncommon TLS ALPN');
  });

  it('an encrypted_server_name nDPI can read (reaching its extension\'s end) spares the Missing SNI risk', async () => {
    // ESNI draft: cipher suite, key share (group, key), record digest, encrypted SNI
    const esni = (delta: number) => {
      const enc = Buffer.alloc(40, 0x33);
      return ext(0xffce, Buffer.concat([u16(0x1301), u16(0x001d), vec16(Buffer.alloc(32, 1)), vec16(Buffer.alloc(32, 2)), u16(enc.length + delta), enc]));
    };
    expect(await risksOf([clientHello(0x0303, [esni(0), alpnExt(['h2'])])])).not.toContain('Missing SNI TLS Extn');
    expect(await risksOf([clientHello(0x0303, [esni(0), alpnExt(['h2'])])], v6)).not.toContain('Missing SNI TLS Extn');
    // its length one short of the extension's end: not read, the SNI is missing
    expect(await risksOf([clientHello(0x0303, [esni(-1), alpnExt(['h2'])])])).toContain('Missing SNI TLS Extn');
  });

  it('an ALPN list whose length overruns the hello reads as an empty value: uncommon', async () => {
    const broken = ext(0x0010, Buffer.concat([u16(0xb889), Buffer.from([0xa5, 1, 2, 3, 4, 5, 6, 7, 8])]));
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), broken])])).toContain('Uncommon TLS ALPN');
    expect(await risksOf([clientHello(0x0303, [sniExt('a.example'), alpnExt(['h2'])])], v6)).not.toContain('Uncommon TLS ALPN');
  });

  it('a numeric SNI is an address inet_pton takes (IPv4 or IPv6), not any digits and dots', async () => {
    const numeric = 'HTTP/TLS/QUIC Numeric Hostname/SNI';
    expect(await risksOf([clientHello(0x0303, [sniExt('192.0.2.7'), alpnExt(['h2'])])])).toContain(numeric);
    expect(await risksOf([clientHello(0x0303, [sniExt('2001:db8::7'), alpnExt(['h2'])])], v6)).toContain(numeric);
    expect(await risksOf([clientHello(0x0303, [sniExt('1.2.3'), alpnExt(['h2'])])])).not.toContain(numeric);
    expect(await risksOf([clientHello(0x0303, [sniExt('999.0.2.7'), alpnExt(['h2'])])])).not.toContain(numeric);
  });
});

describe('the server certificate (processCertificateElements)', () => {
  const tmp = tempDir('fg-audit10-cert-');
  afterAll(() => tmp.cleanup());
  const cert = (san: string, days: number) => {
    const key = join(tmp.dir, 'k.pem'), pem = join(tmp.dir, 'c.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', String(days), '-subj', '/O=Test/CN=server.test', '-addext', `subjectAltName=${san}`], { stdio: 'ignore' });
    return execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
  };
  const server = (der: Buffer) => Buffer.concat([record(22, serverHelloMsg()), record(22, handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der])))]);
  const now = Math.floor(Date.now() / 1000);
  const flowRisks = async (sni: string, der: Buffer, opts = {}) =>
    risksOf([clientHello(0x0303, [sniExt(sni), alpnExt(['h2'])]), server(der)], opts, undefined, now + 60);

  it('validity too long only with two UTCTimes (a notAfter from 2050 on is a GeneralizedTime nDPI does not read)', async () => {
    expect(await flowRisks('server.test', cert('DNS:server.test', 500))).toContain('TLS Cert Validity Too Long');
    expect(await flowRisks('server.test', cert('DNS:server.test', 500), v6)).toContain('TLS Cert Validity Too Long');
    expect(await flowRisks('server.test', cert('DNS:server.test', 36500))).not.toContain('TLS Cert Validity Too Long');
  });

  it('a wildcard covers the SNI as nDPI tests it (the rest found after the first dot)', async () => {
    expect(await flowRisks('a.b.example.test', cert('DNS:*.example.test', 90))).not.toContain('TLS Cert Mismatch');
    expect(await flowRisks('a.b.example.test', cert('DNS:*.example.test', 90), v6)).not.toContain('TLS Cert Mismatch');
    expect(await flowRisks('example.test', cert('DNS:*.example.test', 90))).toContain('TLS Cert Mismatch');
  });

  it('a numeric SNI is the flow\'s host: an iPAddress entry covers it, other names do not', async () => {
    expect(await flowRisks('192.0.2.9', cert('IP:192.0.2.9', 90))).not.toContain('TLS Cert Mismatch');
    expect(await flowRisks('192.0.2.9', cert('IP:192.0.2.9', 90), v6)).not.toContain('TLS Cert Mismatch');
    expect(await flowRisks('192.0.2.9', cert('DNS:other.test', 90))).toContain('TLS Cert Mismatch');
  });

  it('without a UTCTime validity nDPI has no issuer name, so no self-signed verdict', async () => {
    expect(await flowRisks('server.test', cert('DNS:server.test', 90))).toContain('Self-signed Cert');
    expect(await flowRisks('server.test', cert('DNS:server.test', 36500))).not.toContain('Self-signed Cert');
    expect(await flowRisks('server.test', cert('DNS:server.test', 36500), v6)).not.toContain('Self-signed Cert');
  });

  it('the subjectAltName walk stops at a kind nDPI does not read (a URI): names after it are not seen', async () => {
    expect(await flowRisks('server.test', cert('DNS:server.test,URI:http://server.test/', 90))).not.toContain('TLS Cert Mismatch');
    expect(await flowRisks('server.test', cert('URI:http://server.test/,DNS:server.test', 90))).toContain('TLS Cert Mismatch');
    expect(await flowRisks('server.test', cert('URI:http://server.test/,DNS:server.test', 90), v6)).toContain('TLS Cert Mismatch');
  });
});

describe('DTLS as ndpi_search_tls_udp walks a datagram', () => {
  // Record: type, version, epoch, 48-bit sequence, length (RFC 6347 §4.1).
  const drec = (type: number, body: Buffer, version = 0xfefd, lenDelta = 0) =>
    Buffer.concat([Buffer.from([type]), u16(version), u16(0), Buffer.alloc(6, 0), u16(body.length + lenDelta), body]);
  // Handshake: type, length, message_seq, fragment_offset, fragment_length (§4.2.2).
  const dhs = (type: number, body: Buffer, lenDelta = 0) =>
    Buffer.concat([Buffer.from([type]), u24(body.length + lenDelta), u16(0), u24(0), u24(body.length), body]);
  const chBody = Buffer.concat([u16(0xfefd), Buffer.alloc(32, 3), vec8(Buffer.alloc(0)), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(sniExt('d.example'))]);

  it('a whole ClientHello names DTLS; a record longer than the datagram does not', async () => {
    expect(await classify('udp', 42001, 4433, [drec(22, dhs(1, chBody))])).toBe('DTLS (DPI)');
    expect(await classify('udp', 42002, 4433, [drec(22, dhs(1, chBody))], undefined, v6)).toBe('DTLS (DPI)');
    expect(await classify('udp', 42003, 4433, [drec(22, dhs(1, chBody), 0xfefd, 1)])).not.toBe('DTLS (DPI)');
    // message length + 12 short of the record: malformed
    expect(await classify('udp', 42004, 4433, [drec(22, dhs(1, chBody, -1))])).not.toBe('DTLS (DPI)');
  });

  it('Application Data first names DTLS (mid-session); a ChangeCipherSpec first does not', async () => {
    expect(await classify('udp', 42011, 4433, [drec(23, Buffer.alloc(40, 0x5a))])).toBe('DTLS (DPI)');
    expect(await classify('udp', 42012, 4433, [drec(23, Buffer.alloc(40, 0x5a))], undefined, v6)).toBe('DTLS (DPI)');
    expect(await classify('udp', 42013, 4433, [drec(20, Buffer.from([1]))])).not.toBe('DTLS (DPI)');
  });

  it('a fatal Alert in clear after the match is the fatal-alert risk; a warning is not', async () => {
    const risks = async (level: number, opts = {}) =>
      (await run('udp', 42031 + level, 4433, [drec(22, dhs(1, chBody)), drec(21, Buffer.from([level, 40]))], undefined, undefined, opts)).flow.risks;
    expect(await risks(2)).toContain('TLS Fatal Alert');
    expect(await risks(2, v6)).toContain('TLS Fatal Alert');
    expect(await risks(1)).not.toContain('TLS Fatal Alert');
  });

  it('a HelloVerifyRequest waits for the ClientHello that follows', async () => {
    const hvr = drec(22, dhs(3, Buffer.concat([u16(0xfefd), vec8(Buffer.alloc(20, 1))])));
    expect(await classify('udp', 4433, 42021, [hvr, drec(22, dhs(1, chBody))], [true, false])).toBe('DTLS (DPI)');
  });
});
