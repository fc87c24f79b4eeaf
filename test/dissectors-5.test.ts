// One hand-built flow per case (two for the STUN cache), replayed through
// the engine: each addition recognises its protocol by DPI, and a near miss
// (one detail wrong) is not classified as that protocol by DPI.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { CLI, SRV, classifier, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { txt, u16, u24, le16, le32, vec8, vec16, stun } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-5-');


/** A Google QUIC Q043 client hello in clear: public header, 12-byte hash, a stream-1 frame holding a CHLO. */
function gquic43(sni: string, stream = 1): Buffer {
  const tags: [string, Buffer][] = [['PAD\0', Buffer.alloc(16)], ['SNI\0', txt(sni)], ['VER\0', txt('Q043')]];
  let end = 0;
  const index = tags.map(([t, v]) => Buffer.concat([txt(t), le32((end += v.length))]));
  const chlo = Buffer.concat([txt('CHLO'), le16(tags.length), Buffer.alloc(2), ...index, ...tags.map(([, v]) => v)]);
  const frame = Buffer.concat([Buffer.from([0xa0, stream]), u16(chlo.length), chlo]);
  const head = Buffer.concat([Buffer.from([0x09]), Buffer.alloc(8, 0x11), txt('Q043'), Buffer.from([1]), Buffer.alloc(12, 0x22)]);
  const pkt = Buffer.concat([head, frame]);
  return Buffer.concat([pkt, Buffer.alloc(1350 - pkt.length)]);
}

describe('dissectors 5', () => {
  it('AVAST: "NOSA" with the segment length, not with another length', async () => {
    const msg = Buffer.concat([txt('NOSA'), u16(40), Buffer.alloc(34, 3)]);
    expect(await classify('tcp', 49532, 80, [msg])).toBe('AVAST (DPI)');
    const bad = Buffer.from(msg);
    bad.writeUInt16BE(41, 4);
    expect(await classify('tcp', 49533, 80, [bad])).not.toMatch(/^AVAST/);
  });

  it('HTTP sub-protocols: WebDAV methods, OCSP and IPP content types, MPEG-DASH segments; plain requests stay HTTP', async () => {
    const req = (line: string, extra = '') => txt(`${line}\r\nHost: files.example\r\nUser-Agent: test/1.0\r\n${extra}\r\n`);
    expect(await classify('tcp', 40100, 80, [req('PROPFIND /dav/ HTTP/1.1', 'Depth: 1\r\n')])).toBe('HTTP.WebDAV (DPI)');
    expect(await classify('tcp', 40101, 80, [req('PROPFINX /dav/ HTTP/1.1')])).not.toMatch(/WebDAV/);
    const ocsp = txt('HTTP/1.1 200 OK\r\nContent-Type: application/ocsp-response\r\nContent-Length: 0\r\n\r\n');
    expect(await classify('tcp', 40102, 80, [req('GET /MFEwTzBN HTTP/1.1'), ocsp])).toBe('HTTP.OCSP (DPI)');
    const json = txt('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n');
    expect(await classify('tcp', 40103, 80, [req('GET /MFEwTzBN HTTP/1.1'), json])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 40104, 631, [req('POST /ipp/ HTTP/1.1', 'Content-Type: application/ipp\r\n')])).toBe('HTTP.IPP (DPI)');
    expect(await classify('tcp', 40105, 80, [req('GET /v/206598098.m4s HTTP/1.1')])).toBe('HTTP.MpegDash (DPI)');
    expect(await classify('tcp', 40106, 80, [req('GET /v/206598098.m4v HTTP/1.1')])).toBe('HTTP (DPI)');
  });

  it('Google QUIC Q043: the CHLO in clear names the app by its SNI tag, not in a frame of another stream', async () => {
    expect(await classify('udp', 57833, 443, [gquic43('www.youtube.com')])).toBe('QUIC.YouTube (DPI)');
    expect(await classify('udp', 57834, 443, [gquic43('www.youtube.com', 3)])).toBe('QUIC (DPI)');
  });

  it('IETF QUIC drafts and forced version negotiation have QUIC\'s shape', async () => {
    const initial = (version: number) => {
      const b = Buffer.alloc(1250, 0x5a);
      b[0] = 0xc3;
      b.writeUInt32BE(version, 1);
      b[5] = 8;
      b[14] = 0;
      return b;
    };
    expect(await classify('udp', 57835, 443, [initial(0x0a0a0a0a)])).toBe('QUIC (DPI)');
    expect(await classify('udp', 57836, 443, [initial(0xff00001b)])).toBe('QUIC (DPI)');
    expect(await classify('udp', 57837, 4433, [initial(0x12345678)])).not.toMatch(/^QUIC/);
  });

  describe('STUN: one endpoint names the next flows (nDPI\'s cache)', () => {
    const tmp = tempDir('fg-stun-cache-');
    afterAll(() => tmp.cleanup());
    const OTHER = '10.0.0.3';
    const frame = (src: string, sport: number, dst: string, dport: number, p: Buffer) =>
      eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, p)));
    const flows = async (frames: Buffer[]) => {
      const file = join(tmp.dir, `c${Math.random().toString(36).slice(2)}.pcap`);
      return replayFrames(file, frames, (e) => {
        const rows = e.flows({ limit: 10 }).rows.map((f) => [f.server.ip, `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`]);
        return Object.fromEntries(rows);
      });
    };
    const plain = stun(0x0001, Buffer.from([0x00, 0x06, 0x00, 0x04, 0x61, 0x62, 0x63, 0x64]));
    const answer = stun(0x0101, Buffer.from([0x00, 0x06, 0x00, 0x04, 0x61, 0x62, 0x63, 0x64]));
    const whatsapp = stun(0x0003, Buffer.from([0x40, 0x00, 0x00, 0x02, 1, 2])); // unpadded, as WhatsApp sends it

    it('a WhatsApp attribute on one flow names a later flow from the same client port', async () => {
      const got = await flows([
        frame(CLI, 53688, SRV, 3478, whatsapp),
        frame(CLI, 53688, OTHER, 40000, plain),
        frame(OTHER, 40000, CLI, 53688, answer),
      ]);
      expect(got[SRV]).toBe('STUN.WhatsAppCall (DPI)');
      expect(got[OTHER]).toBe('STUN.WhatsAppCall (DPI (cache))');
    });

    it('not from another client port', async () => {
      const got = await flows([
        frame(CLI, 53688, SRV, 3478, whatsapp),
        frame(CLI, 53689, OTHER, 40000, plain),
        frame(OTHER, 40000, CLI, 53689, answer),
      ]);
      expect(got[OTHER]).toBe('STUN (DPI)');
    });
  });

  describe('TLS named by the server certificate\'s names when the hello named nothing', () => {
    const tmp = tempDir('fg-cert-names-');
    afterAll(() => tmp.cleanup());
    const cert = (san: string, subj = '/O=Test/CN=server.test') => {
      const key = join(tmp.dir, 'k.pem'), pem = join(tmp.dir, 'c.pem');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', '90', '-subj', subj, '-addext', `subjectAltName=${san}`], { stdio: 'ignore' });
      return execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
    };
    const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(body)]);
    const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
    const hello = record(22, handshake(1, Buffer.concat([u16(0x0303), Buffer.alloc(32, 7), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(Buffer.alloc(0))])));
    const serverHello = handshake(2, Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02f), Buffer.from([0])]));
    const server = (der: Buffer) => Buffer.concat([record(22, serverHello), record(22, handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der])))]);

    it('a subjectAltName wildcard of a known application names it', async () => {
      expect(await classify('tcp', 40200, 443, [hello, server(cert('DNS:*.waze.com,DNS:waze.test'))])).toBe('TLS.Waze (DPI)');
    });

    it('names of no known application leave it TLS', async () => {
      expect(await classify('tcp', 40201, 443, [hello, server(cert('DNS:*.wazeish.test'))])).toBe('TLS (DPI)');
    });

    it("a fragment of nDPI's certificate-subject list names it (OU=FortiGate, self-signed)", async () => {
      expect(await classify('tcp', 40202, 10443, [hello, server(cert('DNS:fw.test', '/C=US/O=Fortinet/OU=FortiGate/CN=fw'))])).toBe('TLS.FortiClient (DPI)');
    });

    it('near misses of that fragment leave it TLS', async () => {
      expect(await classify('tcp', 40204, 10443, [hello, server(cert('DNS:fw.test', '/C=US/O=Fortinet/CN=FortiGate'))])).toBe('TLS (DPI)');
      expect(await classify('tcp', 40203, 10443, [hello, server(cert('DNS:fw.test', '/C=US/O=Fortigate Inc/CN=Fortinet'))])).toBe('TLS (DPI)');
    });
  });
});
