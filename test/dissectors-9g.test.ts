// One hand-built flow per case: the group-G dissectors of round 9 (Steam,
// Zoom, Xbox, Dropbox, Viber, LINE calls, Ookla, Threema, QQ, OICQ, Riot
// Games, Steam Datagram Relay) name their protocol by DPI under nDPI's
// conditions, and a near miss (one detail wrong) is not named that protocol
// by DPI (a guess by port or by IP may still name it).
import { describe, expect, it } from 'vitest';

import { classifier, udpClassifierAt } from './fixtures/dissect.js';
import { hex, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9g-');
const v6 = { v6: true };
const fill = (n: number, b = 0x5a) => Buffer.alloc(n, b);

// UDP datagrams between chosen addresses (nDPI's IP lists, broadcast),
// alternating src → dst, dst → src: the flow's class.
const classifyUdpAt = udpClassifierAt('fg-dissectors-9g-ip-');

// An RTP header (RFC 3550 §5.1): V=2, no padding/extension/CSRC, payload
// type, sequence number, timestamp, SSRC, then media bytes.
const rtp = (pt: number, seq = 0x1000, len = 40) => Buffer.concat([Buffer.from([0x80, pt]), u16(seq), u32(0x00012345), u32(0xcafe0001), fill(len - 12, 0x33)]);
// An RTCP receiver report (RFC 3550 §6.4.2): V=2, RC=0, PT=201, length 1
// (8 bytes), SSRC.
const rtcpRr = () => Buffer.concat([Buffer.from([0x80, 201]), u16(1), u32(0xcafe0001)]);

// ── Steam In-Home Streaming discovery (steammessages_remoteclient_discovery.proto)
// signature FFFFFFFF + magic 0xA05F4C21 (little-endian), LE32 header length,
// CMsgRemoteClientBroadcastHeader {client_id (uint64, field 1), msg_type
// (field 2) = k_ERemoteClientBroadcastMsgDiscovery 0}, LE32 body length,
// CMsgRemoteClientBroadcastDiscovery {seq_num (field 1), client_ids (uint64, field 2)…}.
const steamHeader = hex('08b960 1000'); // client_id 12345 (varint), msg_type 0
const steamBody = hex('0801 10ffffffffffffff7f 10feffffffffffff7f'); // seq_num 1, two client_ids
const steamDiscovery = (magic = 'ffffffff214c5fa0', body = steamBody) =>
  Buffer.concat([hex(magic), le32(steamHeader.length), steamHeader, le32(body.length), body]);

// ── Zoom (Princeton zoom-analysis): SFU encapsulation (type, sequence,
// 4 unknown bytes, direction) and media encapsulation (type, 8 unknown,
// sequence, timestamp; the media at a per-type offset).
const sfu = (type: number, rest: Buffer, dir = 0) => Buffer.concat([Buffer.from([type]), u16(0x0101), u32(0), Buffer.from([dir]), rest]);
const media = (type: number, offset: number, inner: Buffer) => Buffer.concat([Buffer.from([type]), fill(offset - 1, 0x11), inner]);
const zAudio = (inner = rtp(111)) => sfu(5, media(15, 19, inner));
const zVideo = (inner = rtp(98)) => sfu(5, media(16, 24, inner));
const zScreen = (inner: Buffer) => sfu(5, media(13, 27, inner));
const zRtcp = () => sfu(5, media(33, 16, rtcpRr()));
// P2P opening: 1f 02 01, the rest of a 24-byte header, an address as text
// and an id, each behind a 32-bit length, then 4 zero bytes.
const zP2p = (ip = '192.168.1.20', uuid = '6f1c2a3e-0b7d-4e1a-9c55-123456789abc', uuidDelta = 0) =>
  Buffer.concat([hex('1f0201'), fill(21, 0x07), u32(ip.length), txt(ip), u32(uuid.length + uuidDelta), txt(uuid), u32(0)]);

// ── Xbox Live (UDP 3074) shapes nDPI recognises.
const xboxHeaded = (k = 0x0c, v = 0x76, b5 = 0x58) => Buffer.concat([u32(0), Buffer.from([k, b5, v, 0, 0, 0]), fill(20, 0x21)]);
const x24 = Buffer.concat([Buffer.from([0x00]), fill(23, 0x42)]);
const x42 = Buffer.concat([Buffer.from([0x4f, 0x01, 0x0a]), fill(39, 0x42)]);
const x80 = Buffer.concat([hex('50bc45'), fill(77, 0x42)]);
const x40 = Buffer.concat([hex('cf5f3202'), fill(36, 0x42)]);
const x38 = Buffer.concat([hex('c1457f03'), fill(34, 0x42)]);
const x28 = Buffer.concat([hex('015f2c00'), fill(24, 0x42)]);
const other = (n = 30) => fill(n, 0x99);

// ── Dropbox LAN sync discovery (db-lsp-disc): JSON announcement.
const dbAnnounce = txt('{"host_int": 291856739123456, "version": [2, 0], "displayname": "", "port": 17500, "namespaces": [1234567, 2345678]}');

// ── Viber (shapes nDPI recognises).
// TCP: LE16 total length, then the marker bytes.
const viberTcpA = (lenDelta = 0) => Buffer.concat([le16(16 + lenDelta), hex('0102 0304 fcff 05 80'), fill(6, 0x10)]);
const viberTcpB = () => Buffer.concat([le16(16), hex('0102 0380 0506 0708 0a'), fill(5, 0x10)]);
const viberUdp = (b2: number, b3: number, len: number, b45 = hex('0000')) => Buffer.concat([hex('abcd'), Buffer.from([b2, b3]), b45, fill(len - 6, 0x44)]);

// ── LINE calls (shapes nDPI recognises, on LINE's addresses).
const LINE4 = '43.223.0.10', HOME = '192.168.1.10';

// ── Ookla speedtest protocol (port 8080).
const HI = txt('HI\n'), HELLO = txt('HELLO 2.11 (2.11.0) 2023-10-27.1504.3b5d4a7\n');

// ── Threema chat protocol: client hello 48, server hello 80, login 191, login ack, frames.
const thFrame = (n: number, delta = 0) => Buffer.concat([le16(n + delta), fill(n, 0x6b)]);
const threema = [fill(48, 0x01), fill(80, 0x02), fill(191, 0x03), fill(32, 0x04), thFrame(60)];

// ── QQ / OICQ.
const qq = (head: number, len: number) => Buffer.concat([u32(head), fill(len - 4, 0x12)]);
// OICQ header (Wireshark packet-oicq.c): flag, version, command, sequence, QQ number, data.
const oicq = (command: number, version = 0x3b0b, flag = 0x02) => Buffer.concat([Buffer.from([flag]), u16(version), u16(command), u16(0x0042), u32(123456789), fill(16, 0x03)]);

describe('dissectors 9 (group G)', () => {
  it('Steam: In-Home Streaming discovery, any UDP port, IPv4 and IPv6', async () => {
    expect(steamDiscovery().length).toBeGreaterThanOrEqual(40);
    expect(await classify('udp', 27036, 27036, [steamDiscovery()])).toBe('Steam (DPI)');
    expect(await classify('udp', 40000, 27036, [steamDiscovery()])).toBe('Steam (DPI)');
    expect(await classify('udp', 41000, 41001, [steamDiscovery()])).toBe('Steam (DPI)');
    expect(await classify('udp', 27036, 27036, [steamDiscovery()], undefined, v6)).toBe('Steam (DPI)');
  });

  it('Steam near misses: short datagram, wrong magic, later packet, TCP', async () => {
    const short = steamDiscovery('ffffffff214c5fa0', hex('0801'));
    expect(short.length).toBeLessThan(40);
    expect(await classify('udp', 27036, 27036, [short])).not.toBe('Steam (DPI)');
    expect(await classify('udp', 27036, 27036, [steamDiscovery('ffffffff214c5fa1')])).not.toBe('Steam (DPI)');
    expect(await classify('udp', 27036, 27036, [steamDiscovery('fffffffe214c5fa0')])).not.toBe('Steam (DPI)');
    // nDPI decides on the first datagram
    expect(await classify('udp', 27036, 27036, [other(), steamDiscovery()])).not.toBe('Steam (DPI)');
    expect(await classify('tcp', 40000, 27036, [steamDiscovery()])).not.toBe('Steam (DPI)');
  });

  it('Zoom: SFU types 1/2 on 8801–8810, either side first', async () => {
    expect(await classify('udp', 50000, 8801, [Buffer.concat([hex('010003'), fill(12)])])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8810, [Buffer.concat([hex('010002'), fill(20)])])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8802, [Buffer.concat([hex('020003'), fill(20)])], [false])).toBe('Zoom (DPI)');
    expect(await classify('udp', 8803, 50000, [Buffer.concat([hex('020002'), fill(20)])])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [Buffer.concat([hex('010003'), fill(20)])], undefined, v6)).toBe('Zoom (DPI)');
  });

  it('Zoom: SFU types 3/4 only from the fourth packet', async () => {
    const t3 = sfu(3, fill(20)), t4 = sfu(4, fill(20), 4);
    expect(await classify('udp', 50000, 8801, [t3, t4, t3, t4])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [t3, t4, t3])).not.toBe('Zoom (DPI)');
  });

  it('Zoom: SFU type 5 media, SRTP.Zoom when audio/video/screen share carries RTP', async () => {
    expect(await classify('udp', 50000, 8801, [zAudio()])).toBe('SRTP.Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [zVideo()])).toBe('SRTP.Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [zScreen(rtp(99))])).toBe('SRTP.Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [sfu(5, media(30, 20, rtp(99)))])).toBe('SRTP.Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [zVideo()], undefined, v6)).toBe('SRTP.Zoom (DPI)');
    // screen share without RTP yet, RTCP: Zoom alone
    expect(await classify('udp', 50000, 8801, [zScreen(fill(20, 0x01))])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [zRtcp()])).toBe('Zoom (DPI)');
  });

  it('Zoom: up to 4 packets after the match, media turns Zoom into SRTP.Zoom', async () => {
    const hello = Buffer.concat([hex('010003'), fill(20)]);
    expect(await classify('udp', 50000, 8801, [hello, zAudio()])).toBe('SRTP.Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [zRtcp(), zRtcp(), zRtcp(), zRtcp(), zVideo()])).toBe('SRTP.Zoom (DPI)');
    // the fifth packet after the match is not read
    expect(await classify('udp', 50000, 8801, [zRtcp(), zRtcp(), zRtcp(), zRtcp(), zRtcp(), zVideo()])).toBe('Zoom (DPI)');
  });

  it('Zoom: P2P opening on any port, then bare media encapsulation', async () => {
    expect(await classify('udp', 50000, 50001, [zP2p()])).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 50001, [zP2p('fe80::1', 'x')], undefined, v6)).toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 50001, [zP2p(), media(16, 24, rtp(98))])).toBe('SRTP.Zoom (DPI)');
    // a P2P flow's media has no SFU header: SFU type 5 does not count there
    expect(await classify('udp', 50000, 50001, [zP2p(), zVideo()])).toBe('Zoom (DPI)');
  });

  it('Zoom near misses: port 8811, unknown SFU type, media without RTP, P2P lengths off', async () => {
    expect(await classify('udp', 50000, 8811, [Buffer.concat([hex('010003'), fill(20)])])).not.toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8800, [zAudio()])).not.toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [Buffer.concat([hex('010004'), fill(20)])])).not.toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 8801, [sfu(6, fill(30))])).not.toBe('Zoom (DPI)');
    // audio whose RTP is version 1
    expect(await classify('udp', 50000, 8801, [zAudio(Buffer.concat([hex('4000'), rtp(111).subarray(2)]))])).not.toBe('Zoom (DPI)');
    // only 8 bytes: nothing to read
    expect(await classify('udp', 50000, 8801, [hex('0100030000000000')])).not.toBe('Zoom (DPI)');
    expect(await classify('udp', 50000, 50001, [zP2p(undefined, undefined, 1)])).not.toBe('Zoom (DPI)');
    const tail = zP2p();
    tail[tail.length - 1] = 1;
    expect(await classify('udp', 50000, 50001, [tail])).not.toBe('Zoom (DPI)');
    // on a Zoom port the P2P opening is not looked for
    expect(await classify('udp', 50000, 8801, [zP2p()])).not.toBe('Zoom (DPI)');
  });

  it('Xbox: headed shapes on any port, IPv4 and IPv6', async () => {
    for (const [k, v] of [[0x0c, 0x76], [0x02, 0x18], [0x0b, 0x80], [0x03, 0x40], [0x06, 0x4e]] as const)
      expect(await classify('udp', 50000, 50001, [xboxHeaded(k, v)])).toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 50001, [other(), other(), xboxHeaded()], [true, false, false])).toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 50001, [xboxHeaded()], undefined, v6)).toBe('Xbox (DPI)');
  });

  it('Xbox: two 3074-shaped datagrams on 3074', async () => {
    expect(await classify('udp', 3074, 3074, [x24, x24])).toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 3074, [x42, x80])).toBe('Xbox (DPI)');
    expect(await classify('udp', 3074, 50000, [x40, other(), x38])).toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 3074, [x28, x28], undefined, v6)).toBe('Xbox (DPI)');
    // nDPI keeps a flow whose fifth packet is a 3074 shape
    expect(await classify('udp', 50000, 3074, [other(), other(), other(), other(), x24, x24])).toBe('Xbox (DPI)');
  });

  it('Xbox near misses: one shape only, off port, wrong byte, too late', async () => {
    expect(await classify('udp', 50000, 3074, [x24, other()])).not.toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 3075, [x24, x24])).not.toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 3074, [Buffer.concat([x24, hex('00')]), x24])).not.toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 50001, [xboxHeaded(0x0c, 0x76, 0x59)])).not.toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 50001, [xboxHeaded(0x0c, 0x77)])).not.toBe('Xbox (DPI)');
    expect(await classify('udp', 50000, 3074, [other(), other(), other(), other(), other(), x24, x24])).not.toBe('Xbox (DPI)');
  });

  it('Dropbox: LAN sync announcement 17500 → 17500, bus command to 17500', async () => {
    expect(await classify('udp', 17500, 17500, [dbAnnounce])).toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [dbAnnounce], undefined, v6)).toBe('Dropbox (DPI)');
    expect(await classify('udp', 40000, 17500, [Buffer.concat([txt('Bus17Cmd'), fill(8, 0x20)])])).toBe('Dropbox (DPI)');
  });

  it('Dropbox near misses: other ports, the other needle, text cut by a NUL', async () => {
    expect(await classify('udp', 17500, 17501, [dbAnnounce])).not.toBe('Dropbox (DPI)');
    expect(await classify('udp', 40000, 17500, [dbAnnounce])).not.toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [Buffer.concat([txt('Bus17Cmd'), fill(8, 0x20)])])).not.toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [Buffer.concat([txt('{"v": 2}'), hex('00'), dbAnnounce])])).not.toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [txt('"host_int"')])).not.toBe('Dropbox (DPI)');
  });

  it('Viber over TCP: length-led first packet with either marker', async () => {
    expect(await classify('tcp', 40000, 5242, [viberTcpA()])).toBe('Viber (DPI)');
    expect(await classify('tcp', 40000, 40001, [viberTcpB()])).toBe('Viber (DPI)');
    expect(await classify('tcp', 40000, 4244, [viberTcpA()], undefined, v6)).toBe('Viber (DPI)');
    expect(await classify('tcp', 40000, 40001, [viberTcpA(1)])).not.toBe('Viber (DPI)');
    expect(await classify('tcp', 40000, 40001, [Buffer.concat([le16(10), hex('0102 0304 fcff 05 80')])])).not.toBe('Viber (DPI)');
    expect(await classify('tcp', 40000, 40001, [txt('hello'), viberTcpA()], [true, true])).not.toBe('Viber (DPI)');
  });

  it('Viber over UDP: the first datagram over 5 bytes', async () => {
    expect(await classify('udp', 50000, 7985, [viberUdp(0x03, 0x00, 30)])).toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x03, 0x00, 30)])).toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x09, 0x00, 20)])).toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x01, 0x00, 24, hex('0500'))])).toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x19, 0x00, 34)])).toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x1b, 0x00, 34)], undefined, v6)).toBe('Viber (DPI)');
    // short datagrams wait, up to the fourth
    expect(await classify('udp', 50000, 50001, [hex('0102'), hex('0304'), viberUdp(0x03, 0x00, 30)])).toBe('Viber (DPI)');
    // an RTP-shaped first datagram: nDPI's RTP stage rules Viber out, unless Viber is asked first (its port)
    const rtpLike = Buffer.concat([hex('8000 0300'), fill(20, 0x01)]);
    expect(await classify('udp', 50000, 50001, [rtpLike])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 7985, [rtpLike])).toBe('Viber (DPI)');
  });

  it('Viber over UDP near misses: sizes, later datagram, broadcast', async () => {
    expect(await classify('udp', 50000, 50001, [viberUdp(0x09, 0x00, 21)])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x19, 0x00, 35)])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x01, 0x00, 24, hex('0501'))])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [viberUdp(0x03, 0x01, 30)])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [other(), viberUdp(0x03, 0x00, 30)])).not.toBe('Viber (DPI)');
    expect(await classify('udp', 50000, 50001, [hex('01'), hex('02'), hex('03'), hex('04'), viberUdp(0x03, 0x00, 30)])).not.toBe('Viber (DPI)');
    expect(await classifyUdpAt(HOME, '255.255.255.255', 50000, 50001, [viberUdp(0x03, 0x00, 30)])).not.toBe('Viber (DPI)');
    expect(await classifyUdpAt(HOME, '192.168.1.20', 50000, 50001, [viberUdp(0x03, 0x00, 30)])).toBe('Viber (DPI)');
  });

  it('LINE calls: known shapes on LINE addresses (IPv4)', async () => {
    const cases = [
      Buffer.concat([hex('b618006a'), fill(106)]),
      Buffer.concat([hex('da000000 0602'), fill(738 - 6)]),
      Buffer.concat([hex('db010203 0602'), fill(800 - 6)]),
      Buffer.concat([hex('d8900000 0602'), fill(150 - 6)]),
      Buffer.concat([hex('d9e10000 0602'), fill(200 - 6)]),
      Buffer.concat([hex('d8d00000 0602'), fill(150 - 6)]),
      Buffer.concat([hex('b6130006'), fill(42)]),
      hex('b6070004 01020304'),
      Buffer.concat([hex('b609000c'), fill(12)]),
      hex('d0b3'),
      Buffer.concat([hex('d0db'), fill(30)]),
    ];
    for (const p of cases) expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [p])).toBe('LineCall (DPI)');
    // the server's address decides, else the client's
    expect(await classifyUdpAt(LINE4, HOME, 50001, 50000, [hex('d0b4')])).toBe('LineCall (DPI)');
    // a datagram of no known shape first keeps the flow open
    expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [other(20), hex('d0da')])).toBe('LineCall (DPI)');
  });

  it('LINE calls near misses: other addresses, IPv6, sizes off', async () => {
    expect(await classify('udp', 50000, 50001, [hex('d0b3')])).not.toBe('LineCall (DPI)');
    expect(await classify('udp', 50000, 50001, [Buffer.concat([hex('b618006a'), fill(106)])])).not.toBe('LineCall (DPI)');
    expect(await classifyUdpAt('2001:db8::1', '2400:dcc0::10', 50000, 50001, [hex('d0b3')])).not.toBe('LineCall (DPI)');
    expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [Buffer.concat([hex('b618006a'), fill(107)])])).not.toBe('LineCall (DPI)');
    expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [Buffer.concat([hex('da000000 0602'), fill(737 - 6)])])).not.toBe('LineCall (DPI)');
    expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [Buffer.concat([hex('d8a00000 0602'), fill(150 - 6)])])).not.toBe('LineCall (DPI)');
    expect(await classifyUdpAt(HOME, LINE4, 50000, 50001, [hex('d0b5')])).not.toBe('LineCall (DPI)');
  });

  it('Ookla: HI then HELLO on 8080, TCP and UDP', async () => {
    expect(await classify('tcp', 40000, 8080, [HI, HELLO])).toBe('Ookla (DPI)');
    expect(await classify('tcp', 8080, 40000, [HI, HELLO])).toBe('Ookla (DPI)');
    expect(await classify('tcp', 40000, 8080, [HI, HELLO], undefined, v6)).toBe('Ookla (DPI)');
    expect(await classify('udp', 40000, 8080, [HI, HELLO])).toBe('Ookla (DPI)');
  });

  it('Ookla near misses: other port, order, a packet between, lower case', async () => {
    expect(await classify('tcp', 40000, 8081, [HI, HELLO])).not.toBe('Ookla (DPI)');
    expect(await classify('tcp', 40000, 8080, [HELLO, HI])).not.toBe('Ookla (DPI)');
    expect(await classify('tcp', 40000, 8080, [HI, txt('OK\n'), HELLO], [true, false, false])).not.toBe('Ookla (DPI)');
    expect(await classify('tcp', 40000, 8080, [txt('hi\n'), HELLO])).not.toBe('Ookla (DPI)');
    expect(await classify('tcp', 40000, 8080, [HI, txt('HELL')])).not.toBe('Ookla (DPI)');
  });

  it('Threema: the handshake sizes on 5222, then one length-led frame', async () => {
    expect(await classify('tcp', 40000, 5222, threema)).toBe('Threema (DPI)');
    expect(await classify('tcp', 5222, 40000, threema)).toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, threema, undefined, v6)).toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, [...threema.slice(0, 3), fill(500, 0x04), thFrame(0)])).toBe('Threema (DPI)');
  });

  it('Threema near misses: port, a handshake size, the frame length', async () => {
    expect(await classify('tcp', 40000, 5223, threema)).not.toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, [fill(47, 1), ...threema.slice(1)])).not.toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, [threema[0]!, fill(81, 2), ...threema.slice(2)])).not.toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, [...threema.slice(0, 2), fill(190, 3), ...threema.slice(3)])).not.toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, [...threema.slice(0, 4), thFrame(60, 1)])).not.toBe('Threema (DPI)');
    expect(await classify('tcp', 40000, 5222, threema.slice(0, 4))).not.toBe('Threema (DPI)');
  });

  it('QQ: fixed-size datagrams within the first five', async () => {
    expect(await classify('udp', 40000, 8000, [qq(0x02004800, 72)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x02004000, 64)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x02004200, 60)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x02005a00, 84)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x02003800, 56)], undefined, v6)).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x28000000, 39)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [other(), other(), other(), other(), qq(0x28000000, 100)])).toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x02004800, 73)])).not.toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [qq(0x28000000, 38)])).not.toBe('QQ (DPI)');
    expect(await classify('udp', 40000, 40001, [other(), other(), other(), other(), other(), qq(0x28000000, 100)])).not.toBe('QQ (DPI)');
    expect(await classify('tcp', 40000, 40001, [qq(0x02004800, 72)])).not.toBe('QQ (DPI)');
  });

  it('OICQ: flag 2, version 0x3b0b, a known command', async () => {
    expect(await classify('udp', 40000, 8000, [oicq(0x0022)])).toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 40001, [oicq(0x0001)])).toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 40001, [oicq(0x00b5)], undefined, v6)).toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 40001, [oicq(0x03f7)])).toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x0000)])).not.toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x00b6)])).not.toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x03f8)])).not.toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x0022, 0x3b0c)])).not.toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x0022, 0x3b0b, 0x03)])).not.toBe('OICQ (DPI)');
    expect(await classify('udp', 40000, 8000, [oicq(0x0022).subarray(0, 6)])).not.toBe('OICQ (DPI)');
  });

  it('RiotGames: either trailer', async () => {
    expect(await classify('udp', 40000, 5100, [Buffer.concat([fill(20, 0x31), hex('aaaaaaaa bbbbbbbb')])])).toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 40001, [Buffer.concat([fill(1, 0x31), hex('aaaaaaaa bbbbbbbb')])], undefined, v6)).toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 40001, [Buffer.concat([fill(45, 0x31), hex('3cb11f2d ea23460c')])])).toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 40001, [hex('aaaaaaaa bbbbbbbb')])).not.toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 40001, [Buffer.concat([fill(46, 0x31), hex('3cb11f2d ea23460c')])])).not.toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 40001, [Buffer.concat([fill(20, 0x31), hex('aaaaaaaa bbbbbbbc')])])).not.toBe('RiotGames (DPI)');
  });

  it('SteamDatagramRelay: an sdping of 100 bytes or more', async () => {
    const ping = (n: number, tag = 'sdping') => Buffer.concat([hex('0102'), txt(tag), fill(n - 8, 0)]);
    expect(await classify('udp', 40000, 27015, [ping(100)])).toBe('SteamDatagramRelay (DPI)');
    expect(await classify('udp', 40000, 40001, [ping(140)], undefined, v6)).toBe('SteamDatagramRelay (DPI)');
    expect(await classify('udp', 40000, 40001, [ping(99)])).not.toBe('SteamDatagramRelay (DPI)');
    expect(await classify('udp', 40000, 40001, [ping(100, 'sdpinG')])).not.toBe('SteamDatagramRelay (DPI)');
  });
});

// ── Nest Log Sink (Google Nest log upload, TCP 11095; nDPI's rule) ─────────
// A record header: byte 0 any, byte 1 ≤ 2, byte 2 0x00 or 0x10, byte 3 0x13.
const nest = (b1 = 1, b2 = 0x10, b3 = 0x13, len = 24) => Buffer.concat([Buffer.from([0x0a, b1, b2, b3]), Buffer.alloc(len - 4, 0x41)]);

describe('dissectors 9 (group G): Nest Log Sink', () => {
  it('three records on port 11095, either way, others in between skipped', async () => {
    const all = [true, true, true];
    expect(await classify('tcp', 40900, 11095, [nest(), nest(0, 0x00), nest(2)], all)).toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 11095, 40901, [nest(), nest(), nest()], [false, true, false])).toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 40902, 11095, [nest(), txt('not a record at all'), nest(), nest(1, 0x10, 0x13, 8)], [true, true, true, true])).toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 40903, 11095, [nest(), nest(), nest()], all, v6)).toBe('NestLogSink (DPI)');
  });

  it('near misses: two records, another port, a short packet, a header one byte off', async () => {
    const all = [true, true, true];
    expect(await classify('tcp', 40910, 11095, [nest(), nest()], [true, true])).not.toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 40911, 11096, [nest(), nest(), nest()], all)).not.toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 40912, 11095, [nest(), Buffer.from([0, 1, 0, 0x13, 0, 0, 0]), nest(), nest()], [true, true, true, true])).not.toBe('NestLogSink (DPI)');
    expect(await classify('tcp', 40913, 11095, [nest(3), nest(1, 0x20), nest(1, 0x10, 0x14)], all)).not.toBe('NestLogSink (DPI)');
  });
});
