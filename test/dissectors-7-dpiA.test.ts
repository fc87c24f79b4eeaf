// TLS, DTLS, STUN and QUIC as nDPI reads them past the first packet
// (certificate subjects, DTLS and RTP inside STUN flows, a ClientHello cut
// short, Snapchat calls), DingTalk and Sonos. One hand-built flow per case:
// each case is matched by DPI, and a near miss (one detail wrong) is not.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { compileRules } from '../ts/services/custom-apps/index.js';
import { classifier, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { txt, u16, u24, le16, le32, vec8, vec16, stun } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-7-dpiA-');
const tmp = tempDir('fg-dissectors-7-dpiA-x-');
afterAll(() => tmp.cleanup());


let certs = 0;
/** A self-signed certificate (DER); subjectAltName only when given. */
function cert(subj: string, san?: string): Buffer {
  const key = join(tmp.dir, `k${certs}.pem`), pem = join(tmp.dir, `c${certs++}.pem`);
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', '90', '-subj', subj];
  if (san) args.push('-addext', `subjectAltName=${san}`);
  execFileSync('openssl', args, { stdio: 'ignore' });
  return execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
}

// TLS 1.2 records.
const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(body)]);
const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const helloBody = (sni?: string, pad = 0) => {
  const exts: Buffer[] = [];
  if (sni) exts.push(Buffer.concat([u16(0), vec16(vec16(Buffer.concat([Buffer.from([0]), vec16(txt(sni))])))]));
  if (pad) exts.push(Buffer.concat([u16(21), vec16(Buffer.alloc(pad))]));
  return Buffer.concat([u16(0x0303), Buffer.alloc(32, 7), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(Buffer.concat(exts))]);
};
const clientHello = (sni?: string, pad = 0) => record(22, handshake(1, helloBody(sni, pad)));
const serverHelloBody = Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02f), Buffer.from([0])]);
const serverFlight = (der: Buffer) =>
  Buffer.concat([record(22, handshake(2, serverHelloBody)), record(22, handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der])))]);

// DTLS 1.2 records: 13-byte header, handshake messages with a 12-byte header (one whole fragment).
const dtlsRecord = (type: number, body: Buffer, version = 0xfefd) => Buffer.concat([Buffer.from([type]), u16(version), u16(0), Buffer.alloc(6), vec16(body)]);
const dtlsHandshake = (type: number, body: Buffer, seq = 0) =>
  Buffer.concat([Buffer.from([type]), u24(body.length), u16(seq), u24(0), u24(body.length), body]);
const dtlsClientHello = () =>
  dtlsRecord(22, dtlsHandshake(1, Buffer.concat([u16(0xfefd), Buffer.alloc(32, 3), vec8(Buffer.alloc(0)), vec8(Buffer.alloc(0)), vec16(u16(0xc02b)), vec8(Buffer.from([0])), vec16(Buffer.alloc(0))])));
const dtlsServerFlight = (der: Buffer) =>
  Buffer.concat([
    dtlsRecord(22, dtlsHandshake(2, Buffer.concat([u16(0xfefd), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02b), Buffer.from([0])]))),
    dtlsRecord(22, dtlsHandshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der]), 1)),
  ]);

const username = Buffer.from([0x00, 0x06, 0x00, 0x04, 0x61, 0x62, 0x63, 0x64]);
const rtp = (pt: number) => Buffer.concat([Buffer.from([0x80, pt]), u16(1), Buffer.alloc(4, 1), Buffer.alloc(4, 2), Buffer.alloc(160, 0x55)]);

/** Frames of several flows replayed at once: server "ip:port" → "name (confidence)". */
async function replay(frames: Buffer[]): Promise<Record<string, string>> {
  const file = join(tmp.dir, `r${Math.random().toString(36).slice(2)}.pcap`);
  return replayFrames(file, frames, (e) => {
    const rows = e.flows({ limit: 20 }).rows.map((f) => [`${f.server.ip}:${f.server.port}`, `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`]);
    return Object.fromEntries(rows);
  });
}
const udpFrame = (src: string, sport: number, dst: string, dport: number, p: Buffer) =>
  eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, p)));
const tcpFrame = (src: string, sport: number, dst: string, dport: number, flags: number, seq: number, p?: Buffer) =>
  eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack: 1 }, p)));

describe('TLS certificates as nDPI reads them', () => {
  it("a subject DN fragment of nDPI's list names the app; a near miss does not", async () => {
    const hello = clientHello('192.168.1.70');
    expect(await classify('tcp', 40300, 1443, [hello, serverFlight(cert('/C=US/O=Sonos, Inc/CN=speaker', 'DNS:speaker.local'))])).toBe('TLS.Sonos (DPI)');
    expect(await classify('tcp', 40301, 1443, [hello, serverFlight(cert('/C=US/O=Sonoss Ltd/CN=speaker', 'DNS:speaker.local'))])).toBe('TLS (DPI)');
  });

  it('the whole subject DN is matched, past what the metadata keeps', async () => {
    const subj = '/OU=Domain Control Validated/OU=PositiveSSL Wildcard/CN=simplednscrypt.org';
    expect(await classify('tcp', 40302, 443, [clientHello('simplednscrypt.org'), serverFlight(cert(subj, 'DNS:simplednscrypt.org'))])).toBe('TLS.DNScrypt (DPI)');
    expect(await classify('tcp', 40303, 443, [clientHello('dnscrypt.test'), serverFlight(cert(subj.replace('simplednscrypt.org', 'dnscrypt.test'), 'DNS:dnscrypt.test'))])).toBe('TLS (DPI)');
  });

  it("subjectAltName names the app, the subject's CN does not", async () => {
    const hello = clientHello('unknown.test');
    expect(await classify('tcp', 40304, 443, [hello, serverFlight(cert('/CN=www.waze.com', 'DNS:unknown.test,DNS:www.waze.com'))])).toBe('TLS.Waze (DPI)');
    expect(await classify('tcp', 40305, 443, [hello, serverFlight(cert('/CN=www.waze.com', 'DNS:unknown.test'))])).toBe('TLS (DPI)');
  });

  // nDPI picks its client at the flow's first packet (ndpi_connection_tracking): the SYN's sender; else,
  // one port under 1024 and the other above, the side above; else the first sender. ntopng's flow (ours)
  // makes the higher port the client of a TCP flow seen without SYN: the classifier reads it as nDPI does.
  it("a flow seen mid-stream is read from nDPI's client: the ClientHello's sender, whatever the ports", async () => {
    const run = async (cport: number, sport: number) => {
      const frames = [
        tcpFrame('10.0.0.1', cport, '10.0.0.40', sport, TCPF.ACK | TCPF.PSH, 1000, clientHello('dns.google')),
        tcpFrame('10.0.0.40', sport, '10.0.0.1', cport, TCPF.ACK | TCPF.PSH, 5000, serverFlight(cert('/CN=dns.google', 'DNS:dns.google'))),
      ];
      return replayFrames(join(tmp.dir, `mid${cport}.pcap`), frames, (e) => {
        const f = e.flows({ limit: 1 }).rows[0]!;
        return `${f.client.port}>${f.server.port} ${l7Name(f.l7_master, f.l7_app)}`;
      });
    };
    // both ports above 1024, the sender's the lower: ntopng's client is the other side, nDPI's the sender
    expect(await run(32266, 48117)).toMatch(/^48117>32266 TLS\.DoH_DoT$/);
    // the sender's port the higher: both agree
    expect(await run(48117, 32266)).toMatch(/^48117>32266 TLS\.DoH_DoT$/);
  });

  it('a certificate whose names do not cover the SNI raises TLS Cert Mismatch', async () => {
    const run = async (san: string, port: number) => {
      const file = join(tmp.dir, `mm${port}.pcap`);
      const frames = [
        tcpFrame('10.0.0.1', port, '10.0.0.40', 443, TCPF.ACK | TCPF.PSH, 1000, clientHello('www.unknown.test')),
        tcpFrame('10.0.0.40', 443, '10.0.0.1', port, TCPF.ACK | TCPF.PSH, 5000, serverFlight(cert('/CN=x', san))),
      ];
      return replayFrames(file, frames, (e) => e.flows({ limit: 1 }).rows[0]!.risks);
    };
    expect(await run('DNS:*.other.test', 40340)).toContain('TLS Cert Mismatch');
    expect(await run('DNS:*.unknown.test', 40341)).not.toContain('TLS Cert Mismatch');
  });

  it("the certificate's names name the app, covering the SNI or not (processCertificateElements)", async () => {
    const hello = clientHello('www.unknown.test');
    expect(await classify('tcp', 40308, 443, [hello, serverFlight(cert('/CN=x', 'DNS:*.unknown.test,DNS:www.waze.com'))])).toBe('TLS.Waze (DPI)');
    expect(await classify('tcp', 40309, 443, [hello, serverFlight(cert('/CN=x', 'DNS:*.other.test,DNS:www.waze.com'))])).toBe('TLS.Waze (DPI)');
  });

  describe("not when the SNI matched a custom category's host (subprotocol_detected)", () => {
    beforeAll(() => Engine.setUserRules(compileRules([], { categories: { 100: { hosts: ['badguys.test'] } } })));
    afterAll(() => Engine.setUserRules({}));
    it('a custom category host as SNI: the certificate names nothing; another SNI: it does', async () => {
      const flight = serverFlight(cert('/CN=x', 'DNS:www.waze.com'));
      expect(await classify('tcp', 40310, 443, [clientHello('www.badguys.test'), flight])).toBe('TLS (DPI)');
      expect(await classify('tcp', 40311, 443, [clientHello('www.goodguys.test'), flight])).toBe('TLS.Waze (DPI)');
    });
  });

  // tls.c: the SNI is kept as sent (ndpi_hostname_sni_set: lower case, unprintable bytes as '?'), and one
  // failing ndpi_is_valid_hostname raises Non-Printable/Invalid Chars and Possible Exploit Attempt.
  it('an SNI with invalid characters is kept, judged and checked against the certificate', async () => {
    const run = async (sni: string, port: number) => {
      const frames = [
        tcpFrame('10.0.0.1', port, '10.0.0.40', 443, TCPF.ACK | TCPF.PSH, 1000, clientHello(sni)),
        tcpFrame('10.0.0.40', 443, '10.0.0.1', port, TCPF.ACK | TCPF.PSH, 5000, serverFlight(cert('/CN=x', 'DNS:*.waze.com'))),
      ];
      return replayFrames(join(tmp.dir, `sni${port}.pcap`), frames, (e) => {
        const f = e.flows({ limit: 1 }).rows[0]!;
        return { name: l7Name(f.l7_master, f.l7_app), risks: f.risks as string[], host: f.host_name };
      });
    };
    const bad = await run('www.Waze.c>m', 40312);
    expect(bad.name).toBe('TLS.Waze');
    expect(bad.risks).toEqual(expect.arrayContaining(['Non-Printable/Invalid Chars Detected', 'Possible Exploit Attempt', 'TLS Cert Mismatch']));
    expect(bad.host).toBe('www.waze.c>m');
    const ok = await run('www.waze.com', 40313);
    expect(ok.name).toBe('TLS.Waze');
    expect(ok.risks).not.toContain('Possible Exploit Attempt');
    expect(ok.risks).not.toContain('TLS Cert Mismatch');
  });

  // tls.c splits a record into handshake messages: one whose length overruns the record is "something
  // went wrong", which rules TLS out; an extension overrunning a whole hello is read as far as it goes.
  it('a ClientHello whose length overruns its record rules TLS out; a whole one with a broken extension is judged', async () => {
    const hello = clientHello('www.unknown.test');
    const overrun = Buffer.from(hello);
    overrun[6] = 0xd6;  // handshake length 0xd6xxxx
    const flight = serverFlight(cert('/CN=x', 'DNS:www.waze.com'));
    expect(await classify('tcp', 40314, 40443, [overrun, flight])).not.toMatch(/^TLS/);
    expect(await classify('tcp', 40315, 40443, [hello, flight])).toBe('TLS.Waze (DPI)');
    // the record's version bytes are not checked: a hello under 03 44 is read all the same
    const odd = Buffer.from(clientHello('www.waze.com'));
    odd[2] = 0x44;
    expect(await classify('tcp', 40317, 40443, [odd])).toBe('TLS.Waze (DPI)');
    // the server_name extension's length one past the block: no ALPN, so not carrying HTTPS, as nDPI judges it
    const broken = Buffer.from(hello);
    const at = broken.indexOf(Buffer.from([0, 0, 0, 21]));  // server_name (type 0), extension length 21
    expect(at).toBeGreaterThan(0);
    broken[at + 3] = 0xff;
    const risks = await replayFrames(join(tmp.dir, 'broken.pcap'), [tcpFrame('10.0.0.1', 40316, '10.0.0.40', 443, TCPF.ACK | TCPF.PSH, 1000, broken)], (e) => e.flows({ limit: 1 }).rows[0]!.risks as string[]);
    expect(risks).toContain('TLS (probably) Not Carrying HTTPS');
  });

  it("a capture starting at the server's flight reads its certificate all the same", async () => {
    expect(await classify('tcp', 443, 40306, [serverFlight(cert('/CN=x', 'DNS:*.waze.com'))], [true])).toBe('TLS.Waze (DPI)');
    expect(await classify('tcp', 443, 40307, [serverFlight(cert('/CN=x', 'DNS:*.wazer.test'))], [true])).toBe('TLS (DPI)');
  });
});

describe('TLS without its handshake', () => {
  it('an Application Data record whole in the segment is TLS; one longer than the segment is not', async () => {
    const data = (len: number, have: number) => Buffer.concat([Buffer.from([0x17, 3, 3]), u16(len), Buffer.alloc(have, 0x9c)]);
    expect(await classify('tcp', 34686, 5228, [data(91, 91)])).toBe('TLS (DPI)');
    expect(await classify('tcp', 34687, 5228, [data(400, 91)])).not.toMatch(/^TLS/);
    // Two records, the second cut by the segment's end: nDPI's reassembly waits.
    expect(await classify('tcp', 34688, 5228, [Buffer.concat([data(32, 32), data(1872, 60)])])).not.toMatch(/^TLS/);
  });

  it("ApplePush: port 5223 to Apple's addresses when TLS did not claim the segment; not on another port", async () => {
    const seg = Buffer.concat([Buffer.from([0x17, 3, 3]), u16(4064), Buffer.alloc(1400, 0x5a)]);
    const frames = (port: number) => [tcpFrame('10.0.0.1', 49354, '17.242.60.84', port, TCPF.ACK | TCPF.PSH, 1000, seg)];
    expect((await replay(frames(5223)))['17.242.60.84:5223']).toBe('ApplePush (DPI)');
    expect((await replay(frames(5224)))['17.242.60.84:5224']).not.toMatch(/^ApplePush/);
  });
});

describe('a server certificate over several segments is gathered', () => {
  const C = '10.0.0.1';
  // A certificate whose subjectAltName lies past the first segment.
  const many = Array.from({ length: 40 }, (_, i) => `DNS:host${i}.example.test`).join(',');
  const flow = (srv: string, cport: number, gap: number) => {
    const flight = serverFlight(cert('/CN=gathered', `${many},DNS:unknown.test,DNS:www.waze.com`));
    const cut = 300;
    return [
      tcpFrame(C, cport, srv, 443, TCPF.SYN, 999),
      tcpFrame(srv, 443, C, cport, TCPF.SYN | TCPF.ACK, 4999),
      tcpFrame(C, cport, srv, 443, TCPF.ACK | TCPF.PSH, 1000, clientHello('unknown.test')),
      tcpFrame(srv, 443, C, cport, TCPF.ACK | TCPF.PSH, 5000, flight.subarray(0, cut)),
      tcpFrame(srv, 443, C, cport, TCPF.ACK | TCPF.PSH, 5000 + cut + gap, flight.subarray(cut + gap)),
    ];
  };
  it('in sequence: its later names count; after a gap: not', async () => {
    expect((await replay(flow('10.0.0.30', 40320, 0)))['10.0.0.30:443']).toBe('TLS.Waze (DPI)');
    expect((await replay(flow('10.0.0.31', 40321, 20)))['10.0.0.31:443']).toBe('TLS (DPI)');
  });

  it('FTPS: the certificate after AUTH (any mechanism: nDPI marks the command) names FTPS.App; without AUTH no FTPS', async () => {
    const frames = (srv: string, cport: number, auth: string) => [
      tcpFrame(C, cport, srv, 21, TCPF.SYN, 999),
      tcpFrame(srv, 21, C, cport, TCPF.SYN | TCPF.ACK, 4999),
      tcpFrame(srv, 21, C, cport, TCPF.ACK | TCPF.PSH, 5000, txt('220 ready\r\n')),
      tcpFrame(C, cport, srv, 21, TCPF.ACK | TCPF.PSH, 1000, txt(auth)),
      tcpFrame(srv, 21, C, cport, TCPF.ACK | TCPF.PSH, 5011, txt('234 Proceed\r\n')),
      tcpFrame(C, cport, srv, 21, TCPF.ACK | TCPF.PSH, 1000 + auth.length, clientHello()),
      tcpFrame(srv, 21, C, cport, TCPF.ACK | TCPF.PSH, 5024, serverFlight(cert('/CN=oss', 'DNS:OSS.huawei.com'))),
    ];
    const got = await replay([...frames('10.0.0.32', 62092, 'AUTH TLS\r\n'), ...frames('10.0.0.33', 62094, 'AUTH XYZ\r\n'), ...frames('10.0.0.34', 62093, 'FEAT\r\n')]);
    expect(got['10.0.0.32:21']).toBe('FTPS.Huawei (DPI)');
    expect(got['10.0.0.33:21']).toBe('FTPS.Huawei (DPI)');
    expect(got['10.0.0.34:21']).not.toMatch(/^FTPS/);
  });

  // RFC 3207 (SMTP STARTTLS), RFC 9051 §6.2.1 (IMAP STARTTLS), RFC 2595 (POP3 STLS): accepted by
  // the server, the flow is SMTPS / IMAPS / POPS and its TLS handshake names the app as for FTPS;
  // refused (454, NO, -ERR), it stays the mail protocol. Each dialogue is built line by line here.
  for (const [name, port, secure, plain, lines] of [
    ['SMTP', 25, 'SMTPS', 'SMTP', (ok: boolean) => [['s', '220 mx ESMTP\r\n'], ['c', 'EHLO client.test\r\n'], ['s', '250-mx\r\n250 STARTTLS\r\n'], ['c', 'STARTTLS\r\n'], ['s', ok ? '220 Go ahead\r\n' : '454 TLS not available\r\n']]],
    ['IMAP', 143, 'IMAPS', 'IMAP', (ok: boolean) => [['s', '* OK IMAP4rev1 ready\r\n'], ['c', 'a1 CAPABILITY\r\n'], ['s', '* CAPABILITY IMAP4rev1 STARTTLS\r\na1 OK done\r\n'], ['c', 'a2 STARTTLS\r\n'], ['s', ok ? 'a2 OK Begin TLS negotiation\r\n' : 'a2 NO not now\r\n']]],
    ['POP3', 110, 'POPS', 'POP3', (ok: boolean) => [['s', '+OK POP3 ready\r\n'], ['c', 'CAPA\r\n'], ['s', '+OK\r\nSTLS\r\n.\r\n'], ['c', 'STLS\r\n'], ['s', ok ? '+OK Begin TLS\r\n' : '-ERR no\r\n']]],
  ] as const) {
    it(`${name}: the upgrade to TLS accepted names ${secure}, and the certificate ${secure}.App; refused, ${plain} stays`, async () => {
      const frames = (srv: string, cport: number, ok: boolean, withTls: boolean) => {
        let cs = 1000, ss = 5000;
        const out = [tcpFrame(C, cport, srv, port, TCPF.SYN, 999), tcpFrame(srv, port, C, cport, TCPF.SYN | TCPF.ACK, 4999)];
        for (const [who, line] of lines(ok)) {
          const data = txt(line);
          if (who === 'c') out.push(tcpFrame(C, cport, srv, port, TCPF.ACK | TCPF.PSH, cs, data)), (cs += data.length);
          else out.push(tcpFrame(srv, port, C, cport, TCPF.ACK | TCPF.PSH, ss, data)), (ss += data.length);
        }
        if (withTls) {
          const hello = clientHello();
          out.push(tcpFrame(C, cport, srv, port, TCPF.ACK | TCPF.PSH, cs, hello));
          out.push(tcpFrame(srv, port, C, cport, TCPF.ACK | TCPF.PSH, ss, serverFlight(cert('/CN=oss', 'DNS:OSS.huawei.com'))));
        }
        return out;
      };
      const got = await replay([...frames('10.0.0.40', 62100, true, true), ...frames('10.0.0.41', 62101, true, false), ...frames('10.0.0.42', 62102, false, false)]);
      expect(got[`10.0.0.40:${port}`]).toBe(`${secure}.Huawei (DPI)`);
      expect(got[`10.0.0.41:${port}`]).toBe(`${secure} (DPI)`);
      // nDPI names IMAP only at a LOGIN's user name or the 7th IMAP line (mail_imap.c): refused
      // after 5 lines, the flow is not named by DPI
      if (name === 'IMAP') expect(got[`10.0.0.42:${port}`]).not.toMatch(/\(DPI\)/);
      else expect(got[`10.0.0.42:${port}`]).toBe(`${plain} (DPI)`);
    });
  }

  it('RDP asking for TLS security (requestedProtocols bit 0): the TLS handshake names TLS.RDP; standard RDP security stays RDP', async () => {
    // TPKT + X.224 Connection Request + "Cookie: mstshash=<9 characters>\r\n" + RDP_NEG_REQ (type 1, length 8,
    // requestedProtocols little-endian): with a 9-character name requestedProtocols begins at byte 43
    const request = (requested: number) => {
      const body = Buffer.concat([txt('Cookie: mstshash=user12345\r\n'), Buffer.from([1, 0, 8, 0, requested, 0, 0, 0])]);
      const x224 = Buffer.concat([Buffer.from([6 + body.length, 0xe0, 0, 0, 0, 0, 0]), body]);
      return Buffer.concat([Buffer.from([3, 0, (x224.length + 4) >> 8, (x224.length + 4) & 255]), x224]);
    };
    const confirm = Buffer.from([3, 0, 0, 19, 14, 0xd0, 0, 0, 0x12, 0x34, 0, 2, 0x1f, 8, 0, 1, 0, 0, 0]);
    expect(request(1)[43]).toBe(1);
    const frames = (srv: string, cport: number, requested: number) => {
      const req = request(requested), hello = clientHello();
      return [
        tcpFrame(C, cport, srv, 3389, TCPF.SYN, 999),
        tcpFrame(srv, 3389, C, cport, TCPF.SYN | TCPF.ACK, 4999),
        tcpFrame(C, cport, srv, 3389, TCPF.ACK | TCPF.PSH, 1000, req),
        tcpFrame(srv, 3389, C, cport, TCPF.ACK | TCPF.PSH, 5000, confirm),
        tcpFrame(C, cport, srv, 3389, TCPF.ACK | TCPF.PSH, 1000 + req.length, hello),
      ];
    };
    const got = await replay([...frames('10.0.0.50', 62200, 0x03), ...frames('10.0.0.51', 62201, 0x00)]);
    expect(got['10.0.0.50:3389']).toBe('TLS.RDP (DPI)');
    expect(got['10.0.0.51:3389']).toBe('RDP (DPI)');
  });

  it('self-signed is judged on the whole names, which the metadata keeps cut short', async () => {
    // A leaf signed by a CA whose name shares the leaf's first 60 characters, and a self-signed one.
    const base = '/C=NO/ST=Oslo/L=Oslo/O=Example Software ASA/OU=Example Max';
    const caKey = join(tmp.dir, 'ca.key'), caPem = join(tmp.dir, 'ca.pem'), leafKey = join(tmp.dir, 'leaf.key');
    const csr = join(tmp.dir, 'leaf.csr'), leafPem = join(tmp.dir, 'leaf.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey, '-out', caPem, '-days', '90', '-subj', `${base}/CN=Example Max CA`], { stdio: 'ignore' });
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', leafKey, '-out', csr, '-subj', `${base}/CN=leaf.example.test`], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', caPem, '-CAkey', caKey, '-CAcreateserial', '-out', leafPem, '-days', '30'], { stdio: 'ignore' });
    const leaf = execFileSync('openssl', ['x509', '-in', leafPem, '-outform', 'DER']);
    const risks = async (der: Buffer, port: number) => {
      const file = join(tmp.dir, `ss${port}.pcap`);
      const frames = [
        tcpFrame(C, port, '10.0.0.33', 443, TCPF.ACK | TCPF.PSH, 1000, clientHello('a.test')),
        tcpFrame('10.0.0.33', 443, C, port, TCPF.ACK | TCPF.PSH, 5000, serverFlight(der)),
      ];
      return replayFrames(file, frames, (e) => e.flows({ limit: 1 }).rows[0]!.risks);
    };
    expect(await risks(leaf, 40330)).not.toContain('Self-signed Cert');
    expect(await risks(cert(`${base}/CN=Example Max CA`), 40331)).toContain('Self-signed Cert');
  });
});

describe('a ClientHello cut short names the flow once its next segment follows', () => {
  const C = '10.0.0.1';
  const flow = (srv: string, gap: number) => {
    const hello = clientHello('www.youtube.com', 600);
    const cut = 200;
    return [
      tcpFrame(C, 40310, srv, 443, TCPF.SYN, 999),
      tcpFrame(srv, 443, C, 40310, TCPF.SYN | TCPF.ACK, 4999),
      tcpFrame(C, 40310, srv, 443, TCPF.ACK | TCPF.PSH, 1000, hello.subarray(0, cut)),
      tcpFrame(C, 40310, srv, 443, TCPF.ACK | TCPF.PSH, 1000 + cut + gap, hello.subarray(cut + gap)),
    ];
  };
  it('in sequence: named; after a lost segment: plain TLS', async () => {
    expect((await replay(flow('10.0.0.20', 0)))['10.0.0.20:443']).toBe('TLS.YouTube (DPI)');
    expect((await replay(flow('10.0.0.21', 50)))['10.0.0.21:443']).toBe('TLS (DPI)');
  });
});

describe('DTLS', () => {
  it('the server certificate in clear: no subjectAltName, the subject list names it', async () => {
    expect(await classify('udp', 443, 38876, [dtlsServerFlight(cert('/O=Microsoft/CN=www.update.microsoft.com'))], [true])).toBe('DTLS.WindowsUpdate (DPI)');
    expect(await classify('udp', 443, 38877, [dtlsServerFlight(cert('/O=Microsoft/CN=www.update.microsoft.test'))], [true])).toBe('DTLS (DPI)');
  });

  it('a certificate in fragments is gathered; a missing fragment leaves it unnamed', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `DNS:h${i}.example.test`).join(',');
    const der = cert('/CN=frag', `${many},DNS:*.discord.gg`);
    const body = Buffer.concat([u24(der.length + 3), u24(der.length), der]);
    const frag = (off: number, len: number) =>
      dtlsRecord(22, Buffer.concat([Buffer.from([11]), u24(body.length), u16(1), u24(off), u24(len), body.subarray(off, off + len)]));
    const sh = dtlsRecord(22, dtlsHandshake(2, Buffer.concat([u16(0xfefd), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02b), Buffer.from([0])])));
    const half = 400;
    const first = Buffer.concat([sh, frag(0, half)]);
    expect(await classify('udp', 43594, 50001, [dtlsClientHello(), first, frag(half, body.length - half)], [true, false, false])).toBe('DTLS.Discord (DPI)');
    expect(await classify('udp', 43595, 50001, [dtlsClientHello(), first, frag(half + 10, body.length - half - 10)], [true, false, false])).toBe('DTLS (DPI)');
  });

  it('after a ClientHello, the answer names it by subjectAltName', async () => {
    expect(await classify('udp', 48854, 8801, [dtlsClientHello(), dtlsServerFlight(cert('/CN=zoom', 'DNS:*.cloud.zoom.us'))])).toBe('DTLS.Zoom (DPI)');
    expect(await classify('udp', 48855, 8801, [dtlsClientHello(), dtlsServerFlight(cert('/CN=zoom', 'DNS:*.cloud.zoomish.test'))])).toBe('DTLS (DPI)');
  });
});

describe('STUN flows read on (RFC 7983 multiplexing)', () => {
  const req = stun(0x0001, username), ans = stun(0x0101, username);
  const zoomReq = stun(0x0001, Buffer.concat([username, Buffer.from([0x01, 0x01, 0x00, 0x04, 1, 2, 3, 4])]));

  it('DTLS turns STUN into DTLS, keeping a real application; a TLS-versioned record does not', async () => {
    expect(await classify('udp', 53065, 9000, [req, ans, dtlsClientHello()], [true, false, true])).toBe('DTLS (DPI)');
    // nDPI reads no packet after a Zoom match (stun.c keep_extra_dissection: "Exception Zoom"), so DTLS does not rename it
    expect(await classify('udp', 53066, 9000, [zoomReq, ans, dtlsClientHello()], [true, false, true])).toBe('STUN.Zoom (DPI)');
    expect(await classify('udp', 53067, 9000, [req, ans, clientHello('x.test')], [true, false, true])).toBe('STUN (DPI)');
  });

  it('RTP makes STUN.RTP, or SRTP under a real application; RTCP does not', async () => {
    const wa = stun(0x0001, Buffer.from([0x40, 0x00, 0x00, 0x04, 1, 2, 3, 4]));
    expect(await classify('udp', 55050, 13958, [req, ans, rtp(18)], [true, false, false])).toBe('STUN.RTP (DPI)');
    expect(await classify('udp', 55051, 13958, [wa, ans, rtp(96)], [true, false, false])).toBe('SRTP.WhatsAppCall (DPI)');
    expect(await classify('udp', 55052, 13958, [req, ans, rtp(200)], [true, false, false])).toBe('STUN (DPI)');
  });

  it("Google Meet's servers (port and prefix) name GoogleCall; a neighbour prefix does not", async () => {
    const got = await replay([
      udpFrame('10.0.0.1', 45400, '142.250.82.76', 3478, req),
      udpFrame('142.250.82.76', 3478, '10.0.0.1', 45400, ans),
      udpFrame('10.0.0.1', 45401, '142.250.83.76', 3478, req),
      udpFrame('142.250.83.76', 3478, '10.0.0.1', 45401, ans),
    ]);
    expect(got['142.250.82.76:3478']).toBe('STUN.GoogleCall (DPI)');
    expect(got['142.250.83.76:3478']).toBe('STUN (DPI)');
  });
});

describe('QUIC Q046 without SNI, then RTP: a Snapchat call', () => {
  const q046 = (sni?: string) => {
    const tags: [string, Buffer][] = [['PAD\0', Buffer.alloc(16)], ...(sni ? ([['SNI\0', txt(sni)]] as [string, Buffer][]) : []), ['VER\0', txt('Q046')]];
    let end = 0;
    const index = tags.map(([t, v]) => Buffer.concat([txt(t), le32((end += v.length))]));
    const chlo = Buffer.concat([txt('CHLO'), le16(tags.length), Buffer.alloc(2), ...index, ...tags.map(([, v]) => v)]);
    const frame = Buffer.concat([Buffer.from([0xa0, 1]), u16(chlo.length), chlo]);
    const head = Buffer.concat([Buffer.from([0xc3]), txt('Q046'), Buffer.from([0x50]), Buffer.alloc(8, 0x11), Buffer.from([0, 0, 0, 1]), Buffer.alloc(12, 0x22)]);
    const pkt = Buffer.concat([head, frame]);
    return Buffer.concat([pkt, Buffer.alloc(1350 - pkt.length)]);
  };
  const shortQuic = Buffer.concat([Buffer.from([0x43]), Buffer.alloc(60, 9)]);
  it('RTP after the QUIC packets names it; a non-RTP packet does not', async () => {
    expect(await classify('udp', 42083, 443, [q046(), shortQuic, rtp(96)], [true, false, false])).toBe('QUIC.SnapchatCall (DPI)');
    expect(await classify('udp', 42084, 443, [q046(), shortQuic, Buffer.alloc(40, 0)], [true, false, false])).toBe('QUIC (DPI)');
  });
});

describe('DingTalk and Sonos', () => {
  const ding = (b2: number) => Buffer.concat([Buffer.from([0x10, 0x64, b2, 0x80, 0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x02, 0x64, 0x6b, 0x03, 0x00, 0x20]), Buffer.alloc(88, 0x41)]);
  it('DingTalk: its fixed header in a packet over 90 bytes; not with one byte changed', async () => {
    expect(await classify('tcp', 48910, 443, [ding(0x87)])).toBe('DingTalk (DPI)');
    expect(await classify('tcp', 48911, 443, [ding(0x88)])).not.toMatch(/^DingTalk/);
  });

  it('Sonos: a short datagram to port 7080 on the local network; not to 7081', async () => {
    const msg = Buffer.from('0013598400000000fc', 'hex');
    expect(await classify('udp', 44467, 7080, [msg], [true])).toBe('Sonos (DPI)');
    expect(await classify('udp', 44468, 7081, [msg], [true])).not.toMatch(/^Sonos/);
  });
});
