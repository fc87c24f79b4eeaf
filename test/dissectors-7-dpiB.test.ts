// One hand-built flow per case: each dissector added in this round
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI.
import { writeFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { classifier, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { txt, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-7-dpiB-');
const u16le = (v: number) => Buffer.from([v & 255, v >> 8]);

// A TCP flow to `port` with a payload no dissector knows, flushed at the end
// of the capture so that inspection gives up and guesses.
const tmp = tempDir('fg-dissectors-7-dpiB-guess-');
afterAll(() => tmp.cleanup());
// One UDP datagram from 10.0.0.1 to `server`:23045, classified.
async function kakao(server: string, payload: Uint8Array): Promise<string> {
  const frame = eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: server, proto: IPPROTO.UDP }, udp({ sport: 11321, dport: 23045 }, payload)));
  const file = tmp.file(`kakao-${server}.pcap`);
  writeFileSync(file, pcap([{ tsNs: sec(1700000000), data: frame }]));
  const e = new Engine({ files: [file], flowIdleSec: 1e10 });
  e.start();
  await e.waitDone();
  const f = e.flows({ limit: 1 }).rows[0]!;
  e.close();
  return l7Name(f.l7_master, f.l7_app);
}

async function guess(port: number): Promise<string> {
  const junk = new Uint8Array(48).map((_, i) => (i * 37 + 11) & 0xff);
  const seg = (c: boolean, flags: number, seq: number, data?: Uint8Array) =>
    eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? '10.0.0.1' : '10.0.0.2', dst: c ? '10.0.0.2' : '10.0.0.1', proto: IPPROTO.TCP }, tcp({ sport: c ? 50000 : port, dport: c ? port : 50000, flags, seq, ack: 1 }, data)));
  const frames = [seg(true, TCPF.SYN, 999), seg(false, TCPF.SYN | TCPF.ACK, 4999), seg(true, TCPF.PSH | TCPF.ACK, 1000, junk), seg(false, TCPF.PSH | TCPF.ACK, 5000, junk)];
  const file = tmp.file(`guess-${port}.pcap`);
  return replayFrames(file, frames, (e) => {
    const [f] = e.drainExpired(16);
    return `${l7Name(f!.l7_master, f!.l7_app)} (${f!.confidence})`;
  }, { flushAtEnd: true });
}

describe('dissectors 7 (dpiB)', () => {
  it('Nats: the server INFO then the client CONNECT; not INFO without its JSON object', async () => {
    const info = 'INFO {"server_id":"X","version":"2.1.6","proto":1}\r\n';
    const connect = 'CONNECT {"verbose":false}\r\nPING\r\n';
    expect(await classify('tcp', 40100, 4222, [txt(info), txt(connect)], [false, true])).toBe('Nats (DPI)');
    expect(await classify('tcp', 40101, 4222, [txt('INFO server\r\n'), txt('PING\r\n')], [false, true])).not.toMatch(/^Nats/);
    // A verb without its line end is no NATS either.
    expect(await classify('tcp', 40102, 4222, [txt('PUB foo 5')], [true])).not.toMatch(/^Nats/);
  });

  it('DCERPC: a connectionless call on the PROFINET IO UUID; not with a body length that does not fill the datagram', async () => {
    // 80-byte header, little-endian (drep 0x10), object UUID dea00000-6c97-11d1-…
    const call = (bodyLen: number, extra: number) => {
      const h = Buffer.alloc(80);
      h[0] = 4, h[1] = 0, h[2] = 0x08, h[4] = 0x10;
      h.writeUInt32LE(0xdea00000, 8), h.writeUInt16LE(0x6c97, 12), h.writeUInt16LE(0x11d1, 14);
      u16le(bodyLen).copy(h, 74);
      return Buffer.concat([h, Buffer.alloc(bodyLen + extra, 0x11)]);
    };
    expect(await classify('udp', 1566, 34964, [call(20, 0)], [true])).toBe('DCERPC.PROFINET_IO (DPI)');
    expect(await classify('udp', 1567, 34964, [call(20, 1)], [true])).not.toMatch(/DCERPC/);
  });

  it('DCERPC: a connection-oriented bind whose fragment length is the segment; not when it is not', async () => {
    const bind = (len: number, size: number) => {
      const b = Buffer.alloc(size, 0);
      b[0] = 5, b[2] = 11, b[3] = 3, b[4] = 0x10;
      u16le(len).copy(b, 8);
      return b;
    };
    expect(await classify('tcp', 40110, 135, [bind(72, 72)])).toBe('DCERPC (DPI)');
    expect(await classify('tcp', 40111, 135, [bind(73, 72)])).not.toBe('DCERPC (DPI)');
  });

  it('RX: a call and its reply on the same connection epoch and id; not when the reply names another connection', async () => {
    const rx = (epoch: number, conn: number, type: number, flags: number) =>
      Buffer.concat([u32(epoch), u32(conn), u32(1), u32(1), u32(1), Buffer.from([type, flags, 0, 0, 0, 0, 0, 52]), Buffer.alloc(16, 7)]);
    expect(await classify('udp', 7001, 7003, [rx(0x5e0a1b2c, 0x11223344, 1, 1), rx(0x5e0a1b2c, 0x11223344, 1, 4)])).toBe('RX (DPI)');
    expect(await classify('udp', 7002, 7003, [rx(0x5e0a1b2c, 0x11223344, 1, 1), rx(0x5e0a1b2c, 0x11223348, 1, 4)])).not.toMatch(/^RX/);
    // A type RX does not have.
    expect(await classify('udp', 7004, 7003, [rx(0x5e0a1b2c, 0x11223344, 12, 1), rx(0x5e0a1b2c, 0x11223344, 12, 4)])).not.toMatch(/^RX/);
  });
  it('iQIYI: a datagram of 121-299 bytes naming PPStream; not a shorter one', async () => {
    const dgram = (size: number) => Buffer.concat([Buffer.alloc(20, 1), txt('PPStream'), Buffer.alloc(size - 28, 0)]);
    expect(await classify('udp', 50412, 16600, [dgram(135)], [true])).toBe('iQIYI (DPI)');
    expect(await classify('udp', 50413, 16600, [dgram(120)], [true])).not.toMatch(/^iQIYI/);
  });

  it('PathofExile: the login packet with its fixed words around the name; not with another trailer', async () => {
    const login = (tail: number) =>
      Buffer.concat([Buffer.from([0, 3, 0, 0x37, 0x75, 0x60, 0, 2, 0, 9]), txt('nDPI_Test'), u32(0xec8fecf2), u32(0), u32(tail)]);
    expect(await classify('tcp', 36262, 6112, [login(0x40000001)])).toBe('PathofExile (DPI)');
    expect(await classify('tcp', 36263, 6112, [login(0x40000002)])).not.toMatch(/^PathofExile/);
  });

  it('MapleStory: the updater request with User-Agent AspINet, before HTTP takes it; not with another agent', async () => {
    const req = (ua: string) => txt(`GET /maplestory/ HTTP/1.1\r\nHost: example.com\r\nUser-Agent: ${ua}\r\nAccept: */*\r\n\r\n`);
    expect(await classify('tcp', 60546, 80, [req('AspINet')])).toBe('MapleStory (DPI)');
    expect(await classify('tcp', 60547, 80, [req('curl/8.0')])).toBe('HTTP (DPI)');
    // The game's 16-byte hello.
    const hello = Buffer.concat([u32(0x0e003a00), Buffer.from([1, 0, 0x32]), Buffer.alloc(9, 0)]);
    expect(await classify('tcp', 60548, 8484, [hello])).toBe('MapleStory (DPI)');
  });
  it('TeamViewer: four packets opening 0x17 0x24 (later 0x11 0x30) off its port; not three', async () => {
    const hello = Buffer.concat([Buffer.from([0x17, 0x24, 0x0a, 0x20]), Buffer.alloc(30, 0)]);
    const data = Buffer.concat([Buffer.from([0x11, 0x30, 0x36, 0x00]), Buffer.alloc(40, 1)]);
    const dirs = [true, true, true, false];
    expect(await classify('tcp', 8787, 32177, [hello, hello, hello, data], dirs)).toBe('TeamViewer (DPI)');
    expect(await classify('tcp', 8788, 32177, [hello, hello, hello], [true, true, true])).not.toMatch(/^TeamViewer/);
    // On port 5938 the first one does.
    expect(await classify('tcp', 40120, 5938, [hello])).toBe('TeamViewer (DPI)');
  });

  it('Usenet: the server greeting then AUTHINFO USER from the client; not the command from the greeting side', async () => {
    const greet = txt('200 Leafnode NNTP Daemon ready\r\n');
    const auth = txt('AUTHINFO USER someone\r\n');
    expect(await classify('tcp', 55630, 119, [greet, auth], [false, true])).toBe('Usenet (DPI)');
    expect(await classify('tcp', 55631, 119, [greet, auth], [false, false])).not.toBe('Usenet (DPI)');
  });

  it('Jabber: a stream header in the jabber streams namespace, TruPhone when addressed to im.truphone.com; not another namespace', async () => {
    const stream = (to: string, ns = 'http://etherx.jabber.org/streams') =>
      txt(`<stream:stream xmlns='jabber:client' xmlns:stream='${ns}' version='1.0' to='${to}'>`);
    expect(await classify('tcp', 54898, 5222, [stream('example.org')])).toBe('Jabber (DPI)');
    expect(await classify('tcp', 54899, 1299, [stream('im.truphone.com')])).toBe('TruPhone (DPI)');
    expect(await classify('tcp', 54900, 1299, [stream('example.org', 'http://example.org/streams')])).not.toMatch(/^(Jabber|TruPhone)/);
  });
  it('Gnutella: the CONNECT handshake line, and the servent TLS hello of 82 bytes (TLS ruled out by the opening byte 0, as nDPI); not a plain ClientHello of that size', async () => {
    expect(await classify('tcp', 40130, 6346, [txt('GNUTELLA CONNECT/0.6\r\nUser-Agent: x\r\n\r\n')])).toBe('Gnutella (DPI)');
    const hello = (cipherAt76: number) => {
      const h = Buffer.alloc(82, 0);
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0x4d, 0x01, 0x00, 0x00, 0x49, 0x03]).copy(h, 0);
      h.writeUInt16BE(cipherAt76, 76), h.writeUInt32BE(0x00340100, 78);
      return h;
    };
    expect(await classify('tcp', 40131, 11, [Buffer.from([0]), hello(0x0002)], [true, true])).toBe('Gnutella (DPI)');
    expect(await classify('tcp', 40132, 11, [Buffer.from([0]), hello(0x0004)], [true, true])).not.toMatch(/^Gnutella/);
  });

  it('HalfLife2: a 0xffffffff … "000" request answered in kind; not a one-sided pair', async () => {
    const q = Buffer.concat([u32(0xffffffff), Buffer.alloc(12, 0), txt('000\0')]);
    expect(await classify('udp', 27005, 27015, [q, q])).toBe('HalfLife2 (DPI)');
    expect(await classify('udp', 27006, 27015, [q, q], [true, true])).not.toMatch(/^HalfLife2/);
  });

  it('Protobuf: four datagrams of well-formed varint fields; not with a group field', async () => {
    const msg = txt('XXXXXXXXXXXXXXXXXXXX');  // field 11, varint 88, ten times
    const dirs = [true, true, true, true];
    expect(await classify('udp', 41119, 41120, [msg, msg, msg, msg], dirs)).toBe('Protobuf (DPI)');
    const group = Buffer.from([0x0b, 0x01, 0x0c, 0x58, 0x58]);  // start group, end group
    expect(await classify('udp', 41121, 41120, [group, group, group, group], dirs)).not.toMatch(/^Protobuf/);
  });
  it('HTTP: a SOAPAction header makes the request HTTP.SOAP; a plain POST stays HTTP', async () => {
    const post = (extra: string) => txt(`POST /svc HTTP/1.1\r\nHost: example.com\r\n${extra}Content-Length: 0\r\n\r\n`);
    expect(await classify('tcp', 40140, 8091, [post('SOAPAction: \r\n')])).toBe('HTTP.SOAP (DPI)');
    expect(await classify('tcp', 40141, 8091, [post('X-Action: soap\r\n')])).toBe('HTTP (DPI)');
  });

  it('HTTP: a video/mp4 response seen first is MPEG-DASH; after a request that was not, it stays HTTP', async () => {
    const resp = txt('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 10\r\n\r\n');
    const req = txt('GET /video?id=1 HTTP/1.1\r\nHost: example.com\r\n\r\n');
    // The capture starts with the server's answer.
    expect(await classify('tcp', 80, 40150, [resp], [true])).toBe('HTTP.MpegDash (DPI)');
    expect(await classify('tcp', 40151, 80, [req, resp])).toBe('HTTP (DPI)');
  });

  it('NetEaseGames: the 12-byte client hello and the Naraka opening; not a hello with another trailer', async () => {
    const hello = (tail: number) => Buffer.concat([Buffer.from([0x01, 0xb5, 0xd0, 0x01, 0x11, 0x2a, 0x3d, 0x03]), Buffer.from([tail & 255, (tail >> 8) & 255, (tail >> 16) & 255, tail >>> 24])]);
    expect(await classify('udp', 56588, 4513, [hello(0x01010100)], [true])).toBe('NetEaseGames (DPI)');
    expect(await classify('udp', 56589, 4513, [hello(0x01010101)], [true])).not.toMatch(/^NetEaseGames/);
    const naraka = Buffer.concat([Buffer.from([0x07, 0x08, 0x08, 0x0c]), Buffer.alloc(40, 3)]);
    expect(await classify('udp', 58951, 28203, [naraka], [true])).toBe('NetEaseGames (DPI)');
  });
  it('BitTorrent: a uTP SYN (BEP 29) names the flow; not one with a zero connection id', async () => {
    const syn = (conn: number) => Buffer.concat([Buffer.from([0x41, 0x00]), Buffer.from([conn >> 8, conn & 255]), u32(0xed639296), u32(0), u32(0x00100000), Buffer.from([0x23, 0xc6, 0, 0])]);
    expect(await classify('udp', 49861, 33333, [syn(0x4567)], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 49862, 33333, [syn(0)], [true])).not.toMatch(/^BitTorrent/);
  });
  it('HTTP: CONNECT is HTTP_Connect and an absolute URI HTTP_Proxy; an origin-form request stays HTTP', async () => {
    expect(await classify('tcp', 40160, 8080, [txt('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n')])).toBe('HTTP_Connect (DPI)');
    expect(await classify('tcp', 40161, 8080, [txt('GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n')])).toBe('HTTP_Proxy (DPI)');
    expect(await classify('tcp', 40162, 8080, [txt('GET / HTTP/1.1\r\nHost: example.org\r\n\r\n')])).toBe('HTTP (DPI)');
  });

  it('port guess: a port two protocols list goes to the later one (8080 HTTP_Proxy, 445 SMBv23)', async () => {
    expect(await guess(8080)).toBe('HTTP_Proxy (Match by port)');
    expect(await guess(445)).toBe('SMBv23 (Match by port)');
    expect(await guess(40123)).toBe('Unknown (Unknown)');
  });
  it('Nintendo: a datagram over 48 bytes opening 32 ab 98 64 02; not with 01 as the fifth byte', async () => {
    const dgram = (kind: number) => Buffer.concat([Buffer.from([0x32, 0xab, 0x98, 0x64, kind]), Buffer.alloc(60, 0x11)]);
    expect(await classify('udp', 55915, 27520, [dgram(2)], [true])).toBe('Nintendo (DPI)');
    expect(await classify('udp', 55916, 27520, [dgram(1)], [true])).not.toMatch(/^Nintendo/);
  });
  it('RTP: a non-RTP packet first, then three RTP packets; RTP over TCP with RFC 4571 framing; not a replayed first packet', async () => {
    const rtp = (seq: number, pt = 0x6f) => Buffer.concat([Buffer.from([0x80, pt]), Buffer.from([seq >> 8, seq & 255]), u32(0x1e5131ff), u32(0xb80974d8), Buffer.alloc(20, 0x48)]);
    const dirs = [true, true, true, true];
    const hello = Buffer.concat([Buffer.from([0x01, 0x00]), Buffer.alloc(14, 0)]);
    expect(await classify('udp', 55402, 6008, [hello, rtp(100), rtp(101), rtp(102)], dirs)).toBe('RTP (DPI)');
    expect(await classify('udp', 55403, 6008, [rtp(100), rtp(101), rtp(100)], [true, true, true])).not.toMatch(/^RTP/);
    const framed = (seq: number) => {
      const r = rtp(seq, 0x08);
      return Buffer.concat([Buffer.from([r.length >> 8, r.length & 255]), r]);
    };
    expect(await classify('tcp', 40252, 5000, [framed(1), framed(2), framed(3)], [true, true, true])).toBe('RTP (DPI)');
  });

  it('RTCP: four RTCP sender reports with no RTP; not three', async () => {
    const sr = Buffer.concat([Buffer.from([0x80, 200, 0x00, 0x06]), Buffer.alloc(24, 0x22)]);
    expect(await classify('udp', 40200, 40201, [sr, sr, sr, sr], [true, true, true, true])).toBe('RTCP (DPI)');
    expect(await classify('udp', 40202, 40201, [sr, sr, sr], [true, true, true])).not.toMatch(/^RTCP/);
  });

  it('TocaBoca: a datagram opening with eight 0x7d; not with seven', async () => {
    const d = (k: number) => Buffer.concat([Buffer.alloc(k, 0x7d), Buffer.alloc(20 - k, 0x01)]);
    expect(await classify('udp', 40210, 5056, [d(8)], [true])).toBe('TocaBoca (DPI)');
    expect(await classify('udp', 40211, 5056, [d(7)], [true])).not.toMatch(/^TocaBoca/);
  });
  it('KakaoTalk_Voice: a control packet (0x81 first) to 1.201.0.0/16; not to another network', async () => {
    const rtcp = Buffer.concat([Buffer.from([0x81, 0xc9, 0x00, 0x07]), Buffer.alloc(28, 0x33)]);
    expect(await kakao('1.201.1.174', rtcp)).toBe('KakaoTalk_Voice');
    expect(await kakao('1.202.1.174', rtcp)).not.toBe('KakaoTalk_Voice');
  });
  it('NetBIOS: a datagram to 138 carrying its sender\'s address and more than the names is NetBIOS.SMBv1; not with another address', async () => {
    const dgm = (src: number[]) => {
      const body = Buffer.alloc(100, 0xaa);
      return Buffer.concat([Buffer.from([0x11, 0x0e, 0x84, 0xec]), Buffer.from(src), Buffer.from([0x00, 0x8a, 0x00, body.length, 0x00, 0x00]), body]);
    };
    expect(await classify('udp', 138, 138, [dgm([10, 0, 0, 1])], [true])).toBe('NetBIOS.SMBv1 (DPI)');
    expect(await classify('udp', 138, 138, [dgm([10, 0, 0, 9])], [true])).not.toMatch(/\(DPI\)/);
  });
});
