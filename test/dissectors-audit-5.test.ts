// Audit 5: BitTorrent checked against nDPI 4.11's bittorrent.c (and how
// HTTP hands it its requests); for each difference fixed, one hand-built
// flow nDPI names BitTorrent and a near miss (one detail wrong) it does not.
// Payloads follow the protocol documents: BEP 3 (peer wire, tracker GET),
// BEP 5 (DHT), BEP 14 (local peer discovery), BEP 15 (UDP tracker), BEP 29
// (uTP) and libutp's version-0 header.
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner, udpClassifierAt } from './fixtures/dissect.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-5-');
const classifyAt = udpClassifierAt('fg-dissectors-audit-5-at-');
const run = flowRunner('fg-dissectors-audit-5-run-');

// BEP 3 handshake: pstrlen 19, pstr, 8 reserved bytes, info_hash, peer_id.
const handshake = () =>
  Buffer.concat([Buffer.from([19]), txt('BitTorrent protocol'), Buffer.from([0, 0, 0, 0, 0, 0x10, 0, 5]), Buffer.alloc(20, 0x5a), txt('-UW130Q-QSp2v9wVO48a')]);
// Opaque bytes (an MSE key exchange's look): a fixed pseudo-random stream.
const opaque = (len: number, seed: number) => {
  const b = Buffer.alloc(len);
  let x = seed >>> 0;
  for (let i = 0; i < len; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = (x >>> 16) & 255;
  }
  b[0] = 0xf3; // never a printable command, never 0x13
  return b;
};
// BEP 5 bencoded messages around a 20-byte node id.
const nodeId = Buffer.from('e55c5ba26538c3baec3a6397e92a5778b48fc2c6', 'hex');
const dhtPing = () => Buffer.concat([txt('d1:ad2:id20:'), nodeId, txt('e1:q4:ping1:t2:aa1:y1:qe')]);
const dhtPong = () => Buffer.concat([txt('d1:rd2:id20:'), nodeId, txt('e1:t2:aa1:y1:re')]);
// A reply that first tells the querier its address (BEP 42 "ip"): compact
// IPv4 + port, here 10.0.0.1:6881 (a NUL byte inside).
const dhtPongWithIp = () => Buffer.concat([txt('d2:ip6:'), Buffer.from([10, 0, 0, 1, 0x1a, 0xe1]), txt('1:rd2:id20:'), nodeId, txt('e1:t2:aa1:y1:re')]);
// BEP 29 header: type/version, extension, connection id, timestamp (µs),
// timestamp difference, window, seq_nr, ack_nr.
const utp = (type: number, tdiff: number, payload: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([Buffer.from([(type << 4) | 1, 0]), u16(0x4567), u32(0xed639296), u32(tdiff), u32(0x00100000), u16(0x23c6), u16(0x1111), payload]);
// libutp's version-0 header: connid, tv_sec, tv_usec, reply_micro, windowsize,
// ext, flags, seq_nr, ack_nr (23 bytes).
const utp0 = (sec: number, ext = 0, flags = 2) =>
  Buffer.concat([u32(0x00003039), u32(sec), u32(123456), u32(0), Buffer.from([0x10, ext, flags]), u16(0x0102), u16(0x0001)]);
// A tracker announce (BEP 3 "trackers"): the info hash URL-encoded.
const announce = (hash: string, extra = '') =>
  txt(`GET /announce?info_hash=${hash}&peer_id=-UT3550-abcdefghijkl&port=6881&uploaded=0&downloaded=0&left=0 HTTP/1.1\r\nHost: tracker.example.org:6969\r\n${extra}\r\n`);
const hash20 = '%12%34%56%78%9a%bc%de%f0%12%34%56%78%9a%bc%de%f0%12%34%56%78';

describe('audit 5: BitTorrent', () => {
  it('TCP: the handshake is looked for on the first six packets (the sixth named from the cache), not the seventh', async () => {
    const pre = [opaque(198, 1), opaque(424, 2), opaque(471, 3), opaque(240, 4), opaque(68, 5)];
    expect(await classify('tcp', 48987, 6881, [...pre, handshake()])).toBe('BitTorrent (DPI (cache))');
    expect(await classify('tcp', 48988, 6881, [opaque(198, 1), handshake()])).toBe('BitTorrent (DPI)');
    expect(await classify('tcp', 48989, 6881, [...pre, opaque(90, 6), handshake()])).not.toMatch(/^BitTorrent/);
  });

  it('TCP: a handshake split after its length byte is the second packet; split after two bytes it is not', async () => {
    const h = handshake();
    expect(await classify('tcp', 48990, 6881, [h.subarray(0, 1), h.subarray(1)], [true, true])).toBe('BitTorrent (DPI)');
    expect(await classify('tcp', 48991, 6881, [h.subarray(0, 2), h.subarray(2)], [true, true])).not.toMatch(/^BitTorrent/);
    // the pstr alone on the first packet is not enough
    expect(await classify('tcp', 48992, 6881, [h.subarray(1)], [true])).not.toMatch(/^BitTorrent/);
  });

  it('HTTP: a tracker announce with a 20-character info_hash is HTTP.BitTorrent; a bad escape is plain HTTP', async () => {
    expect(await classify('tcp', 40500, 6969, [announce(hash20)], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40501, 6969, [announce(hash20)], [true], { v6: true })).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40502, 6969, [announce(hash20.replace('%9a', '%9g'))], [true])).toBe('HTTP (DPI)');
    // on BitTorrent's own port its dissector is asked first: BitTorrent alone
    expect(await classify('tcp', 40503, 51413, [announce(hash20)], [true])).toBe('BitTorrent (DPI)');
  });

  it('HTTP: web seed and BitComet persistent-seed requests; near misses stay HTTP', async () => {
    expect(await classify('tcp', 40510, 80, [txt('GET /webseed?info_hash=abc HTTP/1.1\r\nHost: a.example\r\n\r\n')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40511, 80, [txt('GET /webseed?infohash=abc HTTP/1.1\r\nHost: a.example\r\n\r\n')], [true])).toBe('HTTP (DPI)');
    const fid = (n: number) => txt(`GET /data?fid=${'0123456789abcdef'.repeat(3).slice(0, n)}&size=1048576 HTTP/1.1\r\nHost: b.example\r\n\r\n`);
    expect(await classify('tcp', 40512, 80, [fid(40)], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40513, 80, [fid(39)], [true])).toBe('HTTP (DPI)');
  });

  it('HTTP: client User-Agents (Azureus, BTWebClient) on a request over 90 bytes; a shorter one or a bare "Azureus" is HTTP', async () => {
    const req = (ua: string, pad = 'x'.repeat(40)) => txt(`GET /${pad} HTTP/1.1\r\nHost: c.example\r\nUser-Agent: ${ua}\r\n\r\n`);
    expect(await classify('tcp', 40520, 80, [req('Azureus 4.3.0.6;Windows 7;Java 1.6.0')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40521, 80, [req('BTWebClient/3550(25824)')], [true], { v6: true })).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40522, 80, [req('Azureus')], [true])).not.toMatch(/BitTorrent/);
    expect(await classify('tcp', 40523, 80, [req('BTWebClient/3550', '')], [true])).not.toMatch(/BitTorrent/); // 70 bytes
  });

  it('HTTP: FlashGet header layout (seven lines with Referer); a line out of place is HTTP', async () => {
    const flashget = (accept: string) =>
      txt(`GET /file.bin HTTP/1.1\r\nHost: d.example\r\n${accept}\r\nReferer: http://d.example/\r\nUser-Agent: Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)\r\nConnection: Keep-Alive\r\n`);
    expect(await classify('tcp', 40530, 80, [flashget('Accept: */*')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40531, 80, [flashget('Accept: */* ')], [true])).not.toMatch(/BitTorrent/);
  });

  it('TCP: the handshake needs more than 20 bytes', async () => {
    const h = handshake();
    expect(await classify('tcp', 48993, 6881, [h.subarray(0, 21)], [true], { v6: true })).toBe('BitTorrent (DPI)');
    expect(await classify('tcp', 48994, 6881, [h.subarray(0, 20)], [true], { v6: true })).not.toMatch(/^BitTorrent/);
  });

  it('HTTP: BitComet LTS and Shareaza header layouts; one detail off is HTTP', async () => {
    const lts = (conn: string) =>
      txt(`GET /file.bin HTTP/1.1\r\nHost: e.example\r\nKeep-Alive: 300\r\n${conn}\r\nAccpet: */*\r\nRange: bytes=0-\r\n` +
        `User-Agent: Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)\r\nPragma: no-cache\r\nCache-Control: no-cache\r\n\r\n`);
    expect(await classify('tcp', 40540, 80, [lts('Connection: Keep-alive')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40541, 80, [lts('Connection: Keep-Alive')], [true])).not.toMatch(/BitTorrent/);
    // (on a /uri-res/ URL Gnutella, asked after BitTorrent, matches the X-Queue
    // line too and nDPI keeps its match: audit 23)
    const shareaza = (l7: string, l8: string) =>
      txt(`GET /file.bin HTTP/1.1\r\nHost: 10.0.0.2:6346\r\nConnection: Keep-Alive\r\nAccept: */*\r\n` +
        `User-Agent: Shareaza 2.5.2.0\r\nRange: bytes=0-\r\nX-Features: g2/1.0\r\n${l7}\r\n${l8}\r\n\r\n`);
    expect(await classify('tcp', 40542, 80, [shareaza('X-Nick: peer', 'X-Queue: position=1')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40543, 80, [shareaza('X-Queue: position=1', 'X-Nick: peer')], [true])).not.toMatch(/BitTorrent/);
  });

  it('TCP: the 80-byte Warez packet and a GET to Host ip2p.com:port; 81 bytes or a Host without the port is not', async () => {
    const warez = (extra: number) =>
      Buffer.concat([
        Buffer.from([0x4c, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x57, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0]),
        Buffer.alloc(32, 0x33),
        Buffer.from([0x28, 0x23, 0, 0, 1, 0, 0, 0, 0x10, 0, 0, 0]),
        Buffer.alloc(16 + extra, 0x44),
      ]);
    expect(await classify('tcp', 40550, 6000, [warez(0)], [true], { v6: true })).toBe('BitTorrent (DPI)');
    expect(await classify('tcp', 40551, 6000, [warez(1)], [true], { v6: true })).not.toMatch(/^BitTorrent/);
    const ip2p = (host: string) => txt(`GET /download/file.dat HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(await classify('tcp', 40552, 80, [ip2p('ip2p.com:8080')], [true])).toBe('HTTP.BitTorrent (DPI)');
    expect(await classify('tcp', 40553, 80, [ip2p('ip2p.com')], [true])).not.toMatch(/BitTorrent/);
  });

  it('UDP: a DHT query opens with "d1:ad2:id20:"; a UDP tracker connect (BEP 15 magic) is not BitTorrent to nDPI', async () => {
    expect(await classify('udp', 50100, 6881, [dhtPing()], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50101, 6881, [dhtPing()], [true], { v6: true })).toBe('BitTorrent (DPI)');
    // protocol_id 0x41727101980, action 0 (connect), transaction id
    const connect = Buffer.concat([u32(0x417), u32(0x27101980), u32(0), u32(0x12345678)]);
    expect(await classify('udp', 50102, 6969, [connect], [true])).not.toMatch(/^BitTorrent/);
  });

  it('UDP: DHT strings are searched only before the first NUL and only on the first four packets', async () => {
    expect(await classify('udp', 50110, 6881, [dhtPong()], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50111, 6881, [dhtPongWithIp()], [true])).not.toMatch(/^BitTorrent/);
    const junk = (i: number) => txt(`junk-${i}-..`); // under 20 bytes: no header guess
    expect(await classify('udp', 50112, 6881, [junk(1), junk(2), junk(3), dhtPong()], [true, false, true, false])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50113, 6881, [junk(1), junk(2), junk(3), junk(4), dhtPong()], [true, false, true, false, true])).not.toMatch(/^BitTorrent/);
  });

  it('UDP: local peer discovery needs its CRLF; BT-SEARCH to 255.255.255.255 is left alone', async () => {
    const lsd = (eol: string) => txt(`BT-SEARCH * HTTP/1.1${eol}Host: 239.192.152.143:6771${eol}Port: 6881${eol}Infohash: ${'5a'.repeat(20)}${eol}${eol}`);
    expect(await classify('udp', 6771, 6771, [lsd('\r\n')], [true])).toBe('BitTorrent (DPI)');
    // (6771 is BitTorrent's port: a flow given up on is still guessed BitTorrent by port)
    expect(await classify('udp', 50120, 6771, [lsd('\n')], [true])).not.toBe('BitTorrent (DPI)');
    expect(await classifyAt('192.168.0.102', '239.192.152.143', 50121, 6771, [lsd('\r\n')])).toBe('BitTorrent (DPI)');
    expect(await classifyAt('192.168.0.102', '255.255.255.255', 50122, 6771, [lsd('\r\n')])).not.toBe('BitTorrent (DPI)');
  });

  it('uTP: a bare STATE packet is BitTorrent; a STATE carrying bytes is not', async () => {
    expect(await classify('udp', 50130, 33333, [utp(2, 0x1000)], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50131, 33333, [utp(2, 0x1000, txt('abcd'))], [true])).not.toMatch(/^BitTorrent/);
  });

  it('uTP version 0: a timestamp within a day of the packet is BitTorrent, two days off is not', async () => {
    // packets are stamped from 1700000000 s
    expect(await classify('udp', 50140, 40959, [utp0(1700000000)], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50141, 40959, [utp0(1700000000 - 2 * 86400)], [true])).not.toMatch(/^BitTorrent/);
    expect(await classify('udp', 50142, 40959, [utp0(1700000000, 3)], [true])).not.toMatch(/^BitTorrent/); // extension 3
  });

  it('uTP: the 0x60 00 00 00 00 opening (20 bytes or more) is BitTorrent; 0x60 00 00 00 01 is not', async () => {
    const old = (b4: number) => Buffer.concat([Buffer.from([0x60, 0, 0, 0, b4]), Buffer.alloc(12, 0x41), Buffer.from([5, 9, 0x41])]);
    expect(await classify('udp', 50150, 40959, [old(0)], [true])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50151, 40959, [old(1)], [true])).not.toMatch(/^BitTorrent/);
  });

  it('UDP on Teredo\'s port: excluded over IPv4, not over IPv6', async () => {
    expect(await classify('udp', 50160, 3544, [dhtPing()], [true])).not.toMatch(/^BitTorrent/);
    expect(await classify('udp', 50161, 3544, [dhtPing()], [true], { v6: true })).toBe('BitTorrent (DPI)');
  });

  it('UDP on a port under 1024: nDPI asks only its endpoint cache, so alone a DHT query or a uTP header is not BitTorrent', async () => {
    // (the cache naming it after an earlier flow: test/dpi-bittorrent-cache.test.ts)
    expect(await classify('udp', 6881, 1, [dhtPing()], [true], { v6: true })).not.toMatch(/^BitTorrent/);
    expect(await classify('udp', 50170, 1, [utp(4, 0)], [true])).not.toMatch(/^BitTorrent/);
  });

  it('named from the cache on a packet, the ports are judged as nDPI does on that packet: off its default ports, the risk', async () => {
    const NON_STD = 'Known Proto on Non Std Port';
    expect((await run('tcp', 48990, 6881, [opaque(198, 1), opaque(424, 2), opaque(471, 3), opaque(240, 4), opaque(68, 5), handshake()])).flow.risks).toContain(NON_STD);
    // on BitTorrent's own port 51413 (and by plain DPI) there is nothing to flag
    expect((await run('udp', 51413, 40000, [dhtPing()], [true])).flow.risks).not.toContain(NON_STD);
  });
});
