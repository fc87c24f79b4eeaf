// One hand-built flow per case: the group-H dissectors of round 9, online
// games (Source Engine queries, Among Us, World of Warcraft, StarCraft II,
// Warcraft III, …) name their protocol by DPI under nDPI's conditions, and a
// near miss (one detail wrong) is not named that protocol by DPI (a guess by
// port may still name it). Game heuristics are loose, so each also checks
// that a plain DNS, RTP, QUIC or STUN packet is not claimed.
import { afterAll, describe, expect, it } from 'vitest';

import { alternating, classifier, replayFrames, tcpSession } from './fixtures/dissect.js';
import { fill, le16, le32, txt, u16, u32, vec8 } from './fixtures/bytes.js';
import { tempDir } from './fixtures/pcap.js';
import { l7Name } from '../ts/bindings/engine.js';

const classify = classifier('fg-dissectors-9h-');
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);

// ── Plain packets of other protocols, none of which a game heuristic may claim
// DNS query (RFC 1035 §4.1): id, flags RD, one question "example.com" A IN.
const dnsQuery = Buffer.concat([u16(0x1a2b), u16(0x0100), u16(1), u16(0), u16(0), u16(0), vec8(txt('example')), vec8(txt('com')), bytes(0), u16(1), u16(1)]);
const dnsAnswer = Buffer.concat([u16(0x1a2b), u16(0x8180), u16(1), u16(1), u16(0), u16(0), vec8(txt('example')), vec8(txt('com')), bytes(0), u16(1), u16(1),
  u16(0xc00c), u16(1), u16(1), u32(300), u16(4), bytes(93, 184, 216, 34)]);
// RTP (RFC 3550 §5.1): V=2, PT 0 (PCMU), sequence, timestamp, SSRC, 160 samples.
const rtp = (seq: number) => Buffer.concat([bytes(0x80, 0x00), u16(seq), u32(seq * 160), u32(0x11223344), fill(160, 0xff)]);
// QUIC v1 Initial (RFC 9000 §17.2.2): long header 0xc3, version 1, DCID/SCID, token, length, padded to 1200.
const quicInitial = Buffer.concat([bytes(0xc3), u32(1), vec8(fill(8, 0x5a)), vec8(fill(8, 0xa5)), bytes(0), u16(0x4000 | 1170), fill(1170, 0x33)]).subarray(0, 1200);
// STUN Binding Request (RFC 5389 §6): type 0x0001, length 0, magic cookie, transaction id.
const stunBinding = Buffer.concat([u16(0x0001), u16(0), u32(0x2112a442), fill(12, 0x07)]);
const stunSuccess = Buffer.concat([u16(0x0101), u16(12), u32(0x2112a442), fill(12, 0x07), u16(0x0020), u16(8), bytes(0, 1), u16(0x1234), u32(0x5e12a443)]);
const plainUdp: [string, Buffer[]][] = [
  ['DNS', [dnsQuery, dnsAnswer, dnsQuery]],
  ['RTP', [rtp(1), rtp(2), rtp(3), rtp(4)]],
  ['QUIC', [quicInitial, quicInitial, quicInitial]],
  ['STUN', [stunBinding, stunSuccess, stunBinding]],
];
// Over TCP: DNS with its 2-byte length (RFC 1035 §4.2.2), RTP framed by RFC 4571, STUN as is.
const plainTcp: [string, Buffer[]][] = [
  ['DNS', [Buffer.concat([u16(dnsQuery.length), dnsQuery]), Buffer.concat([u16(dnsAnswer.length), dnsAnswer])]],
  ['RTP', [Buffer.concat([u16(172), rtp(1)]), Buffer.concat([u16(172), rtp(2)]), Buffer.concat([u16(172), rtp(3)])]],
  ['STUN', [stunBinding, stunSuccess, stunBinding]],
];
async function claimsNoPlain(name: string, l4: 'udp' | 'tcp', port: number) {
  let sport = 50100;
  for (const [what, flow] of l4 === 'udp' ? plainUdp : plainTcp) {
    expect(await classify(l4, sport++, port, flow), `${what} on ${l4} ${port}`).not.toBe(`${name} (DPI)`);
  }
}

// ── Source Engine: A2S_INFO (Valve "Server queries") ───────────────────────
// -1 header, 'T', "Source Engine Query\0", optionally a 4-byte challenge.
const a2sInfo = (challenge?: Buffer) => Buffer.concat([u32(0xffffffff), txt('T'), txt('Source Engine Query\0'), challenge ?? Buffer.alloc(0)]);
// The server's answer: -1, 'I', protocol, name, map, folder, game … (strings NUL-ended).
const a2sInfoReply = Buffer.concat([u32(0xffffffff), txt('I'), bytes(17), txt('My Server\0de_dust2\0cstrike\0Counter-Strike\0'), le16(240), bytes(3, 16, 0, 0x64, 0x6c, 0, 1), txt('1.0.0.0\0')]);

// ── Among Us: Hazel Hello ──────────────────────────────────────────────────
// send option 0x08, nonce (BE16), Hazel version 0, broadcast version (LE32), then the player's name and more.
const broadcast = (y: number, mo: number, d: number, rev = 0) => y * 25000 + mo * 1800 + d * 50 + rev;
const hello = (nonce: number, version: number, rest: Buffer = Buffer.concat([vec8(txt('Red')), le32(0), bytes(0)])) =>
  Buffer.concat([bytes(0x08), u16(nonce), bytes(0x00), le32(version), rest]);

// ── World of Warcraft ──────────────────────────────────────────────────────
// AUTH_LOGON_CHALLENGE (Wireshark packet-wow.c): cmd 0, error (protocol 8),
// size LE16 (bytes after it), "WoW\0", version 3.3.5, build 12340, platform,
// OS, country (reversed four-character codes), time-zone bias, client IP,
// account-name length and name.
const logonChallenge = (name: string, cmd = 0x00, shift = 0) => {
  const body = Buffer.concat([fill(shift, 0), txt('WoW\0'), bytes(3, 3, 5), le16(12340), txt('68x\0'), txt('niW\0'), txt('SUne'), le32(60), bytes(10, 0, 0, 1), vec8(txt(name))]);
  return Buffer.concat([bytes(cmd, 0x08), le16(body.length), body]);
};
// A packet framed with a big-endian length counting what follows.
const framed = (rest: Buffer) => Buffer.concat([u16(rest.length), rest]);
const trailer = bytes(0x94, 0xec, 0xff, 0xfd, 0x67, 0x62, 0xd4, 0x67, 0xfb, 0xf9, 0xdd, 0xbd, 0xfd, 0x01, 0xc0, 0x8f, 0xf9, 0x81);
const downloader = (ua: string, host: string) => txt(`GET /wow-patch/enUS/update.mfil HTTP/1.1\r\nUser-Agent: ${ua}\r\nHost: ${host}\r\nAccept: */*\r\n\r\n`);

// ── StarCraft II: needs its logon servers' addresses, so flows are built here
const scTmp = tempDir('fg-dissectors-9h-sc-');
afterAll(() => scTmp.cleanup());
let scN = 0;
async function classifyV4(src: string, dst: string, sport: number, dport: number, payloads: Buffer[], dirs?: boolean[]) {
  const frames = tcpSession(src, dst, sport, dport, alternating(payloads, dirs));
  return replayFrames(scTmp.file(`sc-${scN++}.pcap`), frames, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}
const scLogin = (first: number) => Buffer.concat([bytes(first, 0x00, 0x00, 0x0a, 0x66, 0x02, 0x0a, 0xed, 0x2d, 0x66), fill(64, 0x12)]);

// ── Warcraft III (BNETDocs): BNCS 0xFF / W3GS 0xF7, id, LE16 length with the header
const msg = (head: number, id: number, body: Buffer) => Buffer.concat([bytes(head, id), le16(4 + body.length), body]);
// SID_AUTH_INFO (0x50): protocol, platform IX86, product W3XP, version, language, IP, bias, locale, language id, country.
const sidAuthInfo = msg(0xff, 0x50, Buffer.concat([le32(0), txt('68XI'), txt('PX3W'), le32(0x1a), le32(0), bytes(10, 0, 0, 1), le32(60), le32(1033), le32(1033), txt('USA\0United States\0')]));
const sidPing = msg(0xff, 0x25, le32(0x12345678));
// W3GS_SEARCHGAME (0x2F): product, version, 0; W3GS_REFRESHGAME (0x32): game id, players, slots.
const searchGame = msg(0xf7, 0x2f, Buffer.concat([txt('PX3W'), le32(26), le32(0)]));
const refreshGame = msg(0xf7, 0x32, Buffer.concat([le32(1), le32(2), le32(12)]));
// W3GS_PING_FROM_HOST (0x01) and W3GS_PONG_TO_HOST (0x46): a tick count.
const pingFromHost = msg(0xf7, 0x01, le32(1000));
const pongToHost = msg(0xf7, 0x46, le32(1000));

// ── Gaijin Entertainment (observed forms only): the 52-byte connection packet, launcher statistics in text
const gaijinConnect = (b2 = 0) => Buffer.concat([bytes(0x8f, 0xff, b2, 0x00), u32(0x82ff0001), fill(44, 0x6e)]);
const gaijinStat = (event: string, n = 160) => { const t = txt(`${event}?version=2.41.0.24&platform=win64&lang=en&uid=1234567&ts=1700000000`); return Buffer.concat([t, fill(n - t.length, 0x26)]); };

// ── LoL: Wild Rift (observed forms only)
const wrShort = (tail = 'A0B1') => Buffer.concat([u32(0x0102c841), fill(14, 0x3c), txt(tail)]);
const wr69 = Buffer.concat([u32(0x04000000), fill(65, 0x11)]);
const wr359 = (n = 359) => Buffer.concat([u32(0x10000000), fill(n - 4, 0x22)]);

// ── TES Online (observed): a 4-byte big-endian length of the rest, then a body holding "eso.live" or 8B 78 9C 01
const teso = (n: number, marker: Buffer, lenDelta = 0) => Buffer.concat([u32(n - 4 + lenDelta), fill(40, 0x01), marker, fill(n - 44 - marker.length, 0x02)]);

// ── CrossFire: the UDP packet, and the launcher's HTTP request (RFC 9112 §3, §5)
const cfUdp = (tail = 0x7d00) => Buffer.concat([u32(0xc7d91999), u16(0x0200), fill(16, 0x31), u16(tail), bytes(0x00)]);
const cfNotice = (path: string, host: string, extra: string[] = []) =>
  txt([`GET /${path} HTTP/1.1`, 'Accept: */*', 'Accept-Language: en-us', 'User-Agent: Mozilla/4.0 (compatible; MSIE 7.0)', `Host: ${host}`, 'Connection: Keep-Alive', ...extra, '', ''].join('\r\n'));

// ── Dofus 1.x text messages (type, data, NUL) and Dofus 2 binary messages
const d1 = (s: string) => txt(`${s}\0`);
// ProtocolRequired (id 1, one length byte 8): required 1421, current 1304 (nDPI's fixed bytes)
const protocolRequired = bytes(0x00, 0x05, 0x08, 0x00, 0x00, 0x05, 0x8d, 0x00, 0x00, 0x05, 0x18);
const utf = (s: string) => Buffer.concat([u16(s.length), txt(s)]);

// ── Guild Wars (observed packets)
const gw64 = (mark = '@2&P') => { const b = fill(64, 0x00); b[0] = 0x3c; b.writeUInt16BE(0x050c, 1); b.write(mark, 50, 'latin1'); return b; };
const gw16 = (b12 = 0x04) => { const b = fill(16, 0x00); b.writeUInt16BE(0x040c, 1); b.writeUInt16BE(0xa672, 4); b[8] = 0x01; b[12] = b12; return b; };
const gw21 = () => { const b = fill(21, 0x00); b.writeUInt16BE(0x0100, 0); b.writeUInt32BE(0xf1001000, 5); b[9] = 0x01; return b; };

// ── Armagetron: descriptor, message id, length in 16-bit words, data, sender id
const agLogin = (words: number, extra = 0) => Buffer.concat([u16(0x000b), u16(0), u16(words), u16(0x0008), fill(words * 2 - 2 + extra, 0x00), u16(0)]);
const agSync = (words = 4, sender = 0) => Buffer.concat([u16(0x001c), u16(7), u16(words), u32(0x00000500), u32(0x00010000), u16(sender)]);
const agNetSync = (w12 = 0x0102) => {
  const b = fill(60, 0x00);
  b.writeUInt16BE(0x0018, 0); b.writeUInt16BE(9, 2); b.writeUInt16BE(26, 4); b.writeUInt16BE(0x0102, 8); b.writeUInt16BE(w12, 12);
  b.writeUInt16BE(10, 14); b.writeUInt32BE(0x00010000, 26);
  return b;
};

// ── World of Kung Fu (observed packet)
const wokf = (b9 = 0x16, n = 16) => { const b = fill(n, 0x00); b.writeUInt32BE(0x0c000000, 0); b.writeUInt32BE(0xd2000c00, 4); b[8] = 0x55; b[9] = b9; b[12] = 0x77; return b; };

describe('dissectors 9 (group H)', () => {
  it('Source Engine: an A2S_INFO request on any port, either transport family', async () => {
    expect(await classify('udp', 40000, 27015, [a2sInfo(), a2sInfoReply])).toBe('Source_Engine (DPI)');
    expect(await classify('udp', 40001, 27015, [a2sInfo()], undefined, v6)).toBe('Source_Engine (DPI)');
    // no port needed
    expect(await classify('udp', 40002, 28960, [a2sInfo(), a2sInfoReply])).toBe('Source_Engine (DPI)');
    // nDPI reads only the tail: the string alone, or after any header, counts
    expect(await classify('udp', 40003, 27016, [txt('Source Engine Query\0')])).toBe('Source_Engine (DPI)');
    // the server's side of the query seen first: the tail decides, not the direction
    expect(await classify('udp', 40004, 27015, [a2sInfo()], [false])).toBe('Source_Engine (DPI)');
  });

  it('Source Engine near misses: a challenge after the string, no NUL, another case, not first, TCP', async () => {
    expect(await classify('udp', 40010, 27015, [a2sInfo(bytes(0x4a, 0x1b, 0x2c, 0x3d))])).not.toBe('Source_Engine (DPI)');
    expect(await classify('udp', 40011, 27015, [Buffer.concat([u32(0xffffffff), txt('TSource Engine Query')])])).not.toBe('Source_Engine (DPI)');
    expect(await classify('udp', 40012, 27015, [Buffer.concat([u32(0xffffffff), txt('Tsource engine query\0')])])).not.toBe('Source_Engine (DPI)');
    // one byte short: "ource Engine Query\0"
    expect(await classify('udp', 40013, 27015, [txt('ource Engine Query\0')])).not.toBe('Source_Engine (DPI)');
    // A2S_PLAYER (0x55) with a challenge first: the flow is ruled out before the query
    expect(await classify('udp', 40014, 27015, [Buffer.concat([u32(0xffffffff), txt('U'), le32(-1 >>> 0)]), a2sInfo()], [true, true])).not.toBe('Source_Engine (DPI)');
    expect(await classify('tcp', 40015, 27015, [a2sInfo()])).not.toBe('Source_Engine (DPI)');
    await claimsNoPlain('Source_Engine', 'udp', 27015);
  });

  it('Among Us: the Hazel Hello of version 2020.10.8 with nonce 1, on any port', async () => {
    expect(broadcast(2020, 10, 8)).toBe(0x0302d980);
    expect(await classify('udp', 40100, 22023, [hello(1, broadcast(2020, 10, 8))])).toBe('AmongUs (DPI)');
    expect(await classify('udp', 40101, 22023, [hello(1, broadcast(2020, 10, 8))], undefined, v6)).toBe('AmongUs (DPI)');
    expect(await classify('udp', 40102, 22123, [hello(1, broadcast(2020, 10, 8))])).toBe('AmongUs (DPI)');
    // 10 bytes are enough (more than 9)
    expect(await classify('udp', 40103, 22023, [hello(1, broadcast(2020, 10, 8), bytes(0, 0))])).toBe('AmongUs (DPI)');
  });

  it('Among Us near misses: another nonce, another version, 9 bytes, not first, TCP', async () => {
    expect(await classify('udp', 40110, 22023, [hello(2, broadcast(2020, 10, 8))])).not.toBe('AmongUs (DPI)');
    expect(await classify('udp', 40111, 22023, [hello(1, broadcast(2021, 6, 30))])).not.toBe('AmongUs (DPI)');
    expect(await classify('udp', 40112, 22023, [hello(1, broadcast(2020, 10, 8), bytes(0))])).not.toBe('AmongUs (DPI)');
    // a Hazel Ping (0x0c, nonce) first rules the flow out
    expect(await classify('udp', 40113, 22023, [bytes(0x0c, 0x00, 0x02), hello(1, broadcast(2020, 10, 8))], [true, true])).not.toBe('AmongUs (DPI)');
    expect(await classify('tcp', 40114, 22023, [hello(1, broadcast(2020, 10, 8))])).not.toBe('AmongUs (DPI)');
    await claimsNoPlain('AmongUs', 'udp', 22023);
  });

  it('World of Warcraft: logon challenges, the connection banner, the Blizzard downloader, Battle.net', async () => {
    // AUTH_LOGON_CHALLENGE to 3724: 34 bytes + the name (41..69 in all)
    expect(logonChallenge('PLAYER1').length).toBe(41);
    expect(await classify('tcp', 40200, 3724, [logonChallenge('PLAYER1')])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40201, 3724, [logonChallenge('A'.repeat(35))], undefined, v6)).toBe('WorldOfWarcraft (DPI)');
    // AUTH_RECONNECT_CHALLENGE (cmd 2), and the game name one byte later
    expect(await classify('tcp', 40202, 3724, [logonChallenge('ADMINISTRATOR', 0x02)])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40203, 3724, [logonChallenge('ADMINISTRATOR', 0x00, 1)])).toBe('WorldOfWarcraft (DPI)');
    // the world server's banner, 50 bytes, on any port, from either side
    const banner = Buffer.concat([u16(48), txt('WORLD OF WARCRAFT CONNECTION - SERVER TO CLIENT\n')]);
    expect(banner.length).toBe(50);
    expect(await classify('tcp', 40204, 8085, [banner], [false])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40205, 8085, [Buffer.concat([u16(48), txt('WORLD OF WARCRAFT CONNECTION - CLIENT TO SERVER\n')])])).toBe('WorldOfWarcraft (DPI)');
    // from 3724: 8 bytes opening 00 06 EC 01
    expect(await classify('tcp', 40206, 3724, [Buffer.concat([u32(0x0006ec01), u32(0)])], [false])).toBe('WorldOfWarcraft (DPI)');
    // the downloader's request: HTTP takes it first and its host list already names
    // worldofwarcraft.com (HTTP.WorldOfWarcraft), so the sub-protocol is not asked, as in nDPI
    expect(await classify('tcp', 40207, 80, [downloader('Blizzard Downloader 2.2', 'us.patch.worldofwarcraft.com')])).toBe('HTTP.WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40208, 3724, [downloader('Blizzard Downloader/1.0', 'eu.worldofwarcraft.com')], undefined, v6)).toBe('HTTP.WorldOfWarcraft (DPI)');
    // a host the list does not name (no dot before the domain) leaves it to WoW's own rule
    expect(await classify('tcp', 40210, 80, [downloader('Blizzard Downloader 2.2', 'patchworldofwarcraft.com')])).toBe('WorldOfWarcraft (DPI)');
    // Battle.net on 1119: at least 77 bytes opening 40 00 0A ED EA 07 0A ED
    const bnet = Buffer.concat([u32(0x40000aed), u32(0xea070aed), fill(69, 0x10)]);
    expect(await classify('tcp', 40209, 1119, [bnet])).toBe('WorldOfWarcraft (DPI)');
  });

  it('World of Warcraft: the staged exchange from a WoW port', async () => {
    // stage 2 at once (EC 01 01 00), then a 4-byte packet
    const s2 = framed(Buffer.concat([u32(0xec010100), fill(10, 0x22)]));
    expect(s2.length).toBe(16);
    expect(await classify('tcp', 40220, 6112, [s2, bytes(1, 2, 3, 4)], [false, true])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40221, 3724, [s2, Buffer.concat([u32(0x000a0000), bytes(0x0c), fill(7, 1)])], [false, true], v6)).toBe('WorldOfWarcraft (DPI)');
    // stage 2 waits through the second payload packet, not the third
    expect(await classify('tcp', 40222, 4000, [s2, fill(20), bytes(9, 9, 9, 9)], [false, true, false])).toBe('WorldOfWarcraft (DPI)');
    // stage 1 (41 bytes, 00 85 / 00 34 / 19 60), then 325 bytes: 23 31 at 67, trailer at the end
    const s1 = (kind: number) => framed(Buffer.concat([u16(kind), fill(37, 0x33)]));
    expect(s1(0x0085).length).toBe(41);
    const big = (at67: boolean) => {
      const b = framed(Buffer.concat([u16(0x0102), u16(0), fill(319, 0x44)]));
      if (at67) { b[67] = 0x23; b[68] = 0x31; trailer.copy(b, 325 - 18); } else { b[322] = 0x23; b[323] = 0x31; trailer.copy(b, 325 - 30); }
      return b;
    };
    expect(await classify('tcp', 40223, 6113, [s1(0x0085), big(true)], [false, true])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40224, 6114, [s1(0x0034), big(false)], [false, true])).toBe('WorldOfWarcraft (DPI)');
    // stage 1 → 2 (a framed packet over 32 bytes, 00 00 at offset 4 or 12 05 00 00 at 2) → a 4-byte packet
    expect(await classify('tcp', 40225, 1119, [s1(0x1960), framed(Buffer.concat([u16(0x0301), u16(0), fill(30)])), bytes(0, 0, 0, 0)], [false, true, false])).toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40226, 3724, [s1(0x0085), framed(Buffer.concat([u32(0x12050000), fill(30)])), bytes(0, 0, 0, 0)], [false, true, false])).toBe('WorldOfWarcraft (DPI)');
  });

  it('World of Warcraft near misses', async () => {
    // logon challenge: to another port, too long (70), too short (40), no "WoW"
    expect(await classify('tcp', 40240, 3725, [logonChallenge('PLAYER1')])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40241, 3724, [logonChallenge('A'.repeat(36))])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40242, 3724, [logonChallenge('PLAYER')])).not.toBe('WorldOfWarcraft (DPI)');
    const noWow = logonChallenge('PLAYER1');
    noWow.write('WOW', 4, 'latin1');
    expect(await classify('tcp', 40243, 3724, [noWow])).not.toBe('WorldOfWarcraft (DPI)');
    // sent from 3724 rather than to it
    expect(await classify('tcp', 40244, 3724, [logonChallenge('PLAYER1')], [false])).not.toBe('WorldOfWarcraft (DPI)');
    // banner one byte longer
    expect(await classify('tcp', 40245, 8085, [Buffer.concat([u16(49), txt('WORLD OF WARCRAFT CONNECTION - SERVER TO CLIENT\n\0')])], [false])).not.toBe('WorldOfWarcraft (DPI)');
    // 00 06 EC 01 to 3724 rather than from it
    expect(await classify('tcp', 40246, 3724, [Buffer.concat([u32(0x0006ec01), u32(0)])])).not.toBe('WorldOfWarcraft (DPI)');
    // downloader (on a host the HTTP host list does not name): agent exactly "Blizzard Downloader",
    // agent in lower case, host not ending in worldofwarcraft.com
    expect(await classify('tcp', 40247, 80, [downloader('Blizzard Downloader', 'patchworldofwarcraft.com')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 40248, 80, [downloader('blizzard downloader 2.2', 'patchworldofwarcraft.com')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 40249, 80, [downloader('Blizzard Downloader 2.2', 'patchworldofwarcraft.co')])).toBe('HTTP (DPI)');
    // Battle.net: 76 bytes, or to another port
    expect(await classify('tcp', 40250, 1119, [Buffer.concat([u32(0x40000aed), u32(0xea070aed), fill(68, 0x10)])])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40251, 1120, [Buffer.concat([u32(0x40000aed), u32(0xea070aed), fill(69, 0x10)])])).not.toBe('WorldOfWarcraft (DPI)');
    // staged: from a port that is not WoW's, a length off by one, a 4-byte packet straight after stage 1,
    // nothing fitting by the third packet
    const s2 = framed(Buffer.concat([u32(0xec010100), fill(10, 0x22)]));
    expect(await classify('tcp', 40252, 7000, [s2, bytes(1, 2, 3, 4)], [false, true])).not.toBe('WorldOfWarcraft (DPI)');
    const off = Buffer.from(s2);
    off[1] = 15;
    expect(await classify('tcp', 40253, 6112, [off, bytes(1, 2, 3, 4)], [false, true])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40254, 6112, [framed(Buffer.concat([u16(0x0085), fill(37, 0x33)])), bytes(1, 2, 3, 4)], [false, true])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await classify('tcp', 40255, 6112, [s2, fill(20), fill(20), bytes(1, 2, 3, 4)], [false, true, false, true])).not.toBe('WorldOfWarcraft (DPI)');
    // the client speaking first with anything else rules the flow out
    expect(await classify('tcp', 40256, 6112, [fill(20), s2, bytes(1, 2, 3, 4)], [true, false, true])).not.toBe('WorldOfWarcraft (DPI)');
    for (const port of [3724, 6112, 1119]) await claimsNoPlain('WorldOfWarcraft', 'tcp', port);
  });

  it('StarCraft II: the login to a Battle.net logon server on 1119 (IPv4 only)', async () => {
    expect(await classifyV4('10.0.0.1', '12.129.206.130', 40300, 1119, [scLogin(0x4a)])).toBe('Starcraft (DPI)');
    expect(await classifyV4('10.0.0.1', '213.248.127.130', 40301, 1119, [scLogin(0x49)])).toBe('Starcraft (DPI)');
    for (const ip of ['121.254.200.130', '202.9.66.76', '12.129.236.254']) {
      expect(await classifyV4('10.0.0.1', ip, 40302, 1119, [scLogin(0x4a)])).toBe('Starcraft (DPI)');
    }
    // the logon server as the client side (it connects to port 1119 of the other end)
    expect(await classifyV4('12.129.206.130', '10.0.0.1', 40303, 1119, [scLogin(0x4a)])).toBe('Starcraft (DPI)');
  });

  it('StarCraft II near misses: another address, IPv6, another port, another first byte, from 1119; the UDP size run cut short', async () => {
    expect(await classifyV4('10.0.0.1', '12.129.206.131', 40310, 1119, [scLogin(0x4a)])).not.toBe('Starcraft (DPI)');
    expect(await classify('tcp', 40311, 1119, [scLogin(0x4a)], undefined, v6)).not.toBe('Starcraft (DPI)');
    expect(await classifyV4('10.0.0.1', '12.129.206.130', 40312, 1120, [scLogin(0x4a)])).not.toBe('Starcraft (DPI)');
    expect(await classifyV4('10.0.0.1', '12.129.206.130', 40313, 1119, [scLogin(0x4b)])).not.toBe('Starcraft (DPI)');
    expect(await classifyV4('10.0.0.1', '12.129.206.130', 40314, 1119, [scLogin(0x4a)], [false])).not.toBe('Starcraft (DPI)');
    expect(await classifyV4('10.0.0.1', '12.129.206.130', 40315, 1119, [fill(20), scLogin(0x4a)], [true, true])).not.toBe('Starcraft (DPI)');
    // the UDP size run (20, 20, 75, 20, 548 ×3, 484) on 1119 names it (dissectors-audit-15 covers it);
    // cut short, nDPI's port guess names it once inspection ends (25 UDP packets: the flow is kept open till then)
    const run = [20, 20, 75, 20, 548, 548, 548, 484, ...Array(17).fill(100)].map((n) => fill(n, 0x5c));
    expect(await classify('udp', 40316, 1119, run)).toBe('Starcraft (DPI)');
    expect(await classify('udp', 40318, 1119, [...run.slice(0, 7), ...Array(18).fill(fill(100, 0x5c))])).toBe('Starcraft (Match by port)');
    expect(await classify('udp', 40317, 1120, run)).not.toBe('Starcraft (DPI)');
    await claimsNoPlain('Starcraft', 'udp', 1119);
    await claimsNoPlain('Starcraft', 'tcp', 1119);
  });

  it('Warcraft III: Battle.net (BNCS) over TCP and game messages (W3GS) over UDP and TCP, on the third packet', async () => {
    // protocol selector 0x01, SID_AUTH_INFO, the server's SID_PING
    expect(await classify('tcp', 40400, 6112, [bytes(0x01), sidAuthInfo, sidPing], [true, true, false])).toBe('Warcraft3 (DPI)');
    expect(await classify('tcp', 40401, 6112, [bytes(0x01), sidAuthInfo, sidPing], [true, true, false], v6)).toBe('Warcraft3 (DPI)');
    // LAN game search and refresh over UDP, any port
    expect(await classify('udp', 40402, 6112, [searchGame, refreshGame, refreshGame])).toBe('Warcraft3 (DPI)');
    expect(await classify('udp', 40403, 41000, [searchGame, refreshGame, refreshGame], undefined, v6)).toBe('Warcraft3 (DPI)');
    // several messages back to back: a BNCS one then W3GS ones, and W3GS ones alone
    expect(await classify('tcp', 40404, 6113, [pingFromHost, pongToHost, Buffer.concat([sidPing, pingFromHost, pongToHost])])).toBe('Warcraft3 (DPI)');
    expect(await classify('tcp', 40405, 6113, [Buffer.concat([pingFromHost, pingFromHost]), pongToHost, pingFromHost])).toBe('Warcraft3 (DPI)');
  });

  it('Warcraft III near misses: two packets only, a length past the end, a stray byte, 0x01 later, another header byte', async () => {
    expect(await classify('tcp', 40410, 6112, [bytes(0x01), sidAuthInfo])).not.toBe('Warcraft3 (DPI)');
    const long = Buffer.from(sidPing);
    long[2] = 9;
    expect(await classify('tcp', 40411, 6112, [bytes(0x01), sidAuthInfo, long], [true, true, false])).not.toBe('Warcraft3 (DPI)');
    expect(await classify('udp', 40412, 6112, [searchGame, refreshGame, Buffer.concat([refreshGame, bytes(0)])])).not.toBe('Warcraft3 (DPI)');
    // a W3GS message whose length is 2 or over 1500 stops the walk short of the end
    expect(await classify('udp', 40413, 6112, [searchGame, refreshGame, Buffer.concat([refreshGame, bytes(0xf7, 0x01, 2, 0)])])).not.toBe('Warcraft3 (DPI)');
    // the selector is allowed only as the flow's first payload packet
    expect(await classify('tcp', 40414, 6112, [sidAuthInfo, bytes(0x01), sidPing, sidPing], [true, true, false, false])).not.toBe('Warcraft3 (DPI)');
    expect(await classify('udp', 40415, 6112, [msg(0xfe, 0x2f, le32(0)), refreshGame, refreshGame])).not.toBe('Warcraft3 (DPI)');
    // a length of 0 in the first header
    expect(await classify('udp', 40416, 6112, [bytes(0xf7, 0x2f, 0, 0), refreshGame, refreshGame])).not.toBe('Warcraft3 (DPI)');
    await claimsNoPlain('Warcraft3', 'udp', 6112);
    await claimsNoPlain('Warcraft3', 'tcp', 6112);
  });
  it('Gaijin Entertainment: the 52-byte connection packet, launcher statistics, on any port', async () => {
    expect(await classify('udp', 40500, 20011, [gaijinConnect()])).toBe('GaijinEntertainment (DPI)');
    expect(await classify('udp', 40501, 20012, [gaijinConnect()], undefined, v6)).toBe('GaijinEntertainment (DPI)');
    for (const ev of ['embeddedupdater.start', 'app.start', 'app.stage']) {
      expect(await classify('udp', 40502, 20010, [gaijinStat(ev)])).toBe('GaijinEntertainment (DPI)');
    }
    expect(await classify('udp', 40503, 20010, [gaijinStat('app.stage', 101)])).toBe('GaijinEntertainment (DPI)');
  });

  it('Gaijin Entertainment near misses', async () => {
    expect(await classify('udp', 40510, 20011, [gaijinConnect(1)])).not.toBe('GaijinEntertainment (DPI)');
    expect(await classify('udp', 40511, 20011, [Buffer.concat([gaijinConnect(), bytes(0)])])).not.toBe('GaijinEntertainment (DPI)');
    expect(await classify('udp', 40512, 20011, [gaijinStat('app.stage', 100)])).not.toBe('GaijinEntertainment (DPI)');
    expect(await classify('udp', 40513, 20011, [gaijinStat('App.start')])).not.toBe('GaijinEntertainment (DPI)');
    expect(await classify('udp', 40514, 20011, [fill(30), gaijinConnect()], [true, true])).not.toBe('GaijinEntertainment (DPI)');
    expect(await classify('tcp', 40515, 20011, [gaijinStat('app.start')])).not.toBe('GaijinEntertainment (DPI)');
    await claimsNoPlain('GaijinEntertainment', 'udp', 20011);
  });

  it('LoL: Wild Rift: the 22-byte packet, or 69 bytes then 359 bytes', async () => {
    expect(await classify('udp', 40600, 5100, [wrShort()])).toBe('LoLWildRift (DPI)');
    expect(await classify('udp', 40601, 5100, [wrShort()], undefined, v6)).toBe('LoLWildRift (DPI)');
    expect(await classify('udp', 40602, 5101, [wr69, wr359()])).toBe('LoLWildRift (DPI)');
    // the first form repeated keeps the flow waiting
    expect(await classify('udp', 40603, 5101, [wr69, wr69, wr69, wr359()], [true, true, true, false], v6)).toBe('LoLWildRift (DPI)');
  });

  it('LoL: Wild Rift near misses', async () => {
    expect(await classify('udp', 40610, 5100, [wrShort('A0B2')])).not.toBe('LoLWildRift (DPI)');
    expect(await classify('udp', 40611, 5100, [wr359()])).not.toBe('LoLWildRift (DPI)');
    expect(await classify('udp', 40612, 5100, [wr69, wr359(358)])).not.toBe('LoLWildRift (DPI)');
    expect(await classify('udp', 40613, 5100, [wr69, fill(40), wr359()], [true, false, false])).not.toBe('LoLWildRift (DPI)');
    expect(await classify('tcp', 40614, 5100, [wrShort()])).not.toBe('LoLWildRift (DPI)');
    await claimsNoPlain('LoLWildRift', 'udp', 5100);
  });

  it('TES Online: a length-framed packet of 600+ bytes with "eso.live" or 8B 78 9C 01', async () => {
    expect(await classify('tcp', 40700, 24100, [teso(600, txt('eso.live'))])).toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40701, 24100, [teso(900, bytes(0x8b, 0x78, 0x9c, 0x01))], undefined, v6)).toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40702, 443, [teso(700, txt('lb.eso.live.zenimax.com'))], [false])).toBe('TES_Online (DPI)');
  });

  it('TES Online near misses', async () => {
    expect(await classify('tcp', 40710, 24100, [teso(599, txt('eso.live'))])).not.toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40711, 24100, [teso(600, txt('eso.live'), 1)])).not.toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40712, 24100, [teso(600, txt('eso.livf'))])).not.toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40713, 24100, [teso(600, bytes(0x8b, 0x78, 0x9c, 0x02))])).not.toBe('TES_Online (DPI)');
    expect(await classify('tcp', 40714, 24100, [fill(20), teso(600, txt('eso.live'))], [true, true])).not.toBe('TES_Online (DPI)');
    expect(await classify('udp', 40715, 24100, [teso(600, txt('eso.live'))])).not.toBe('TES_Online (DPI)');
    await claimsNoPlain('TES_Online', 'tcp', 24100);
  });

  it('CrossFire: the UDP packet, the launcher\'s login notice request over HTTP', async () => {
    expect(await classify('udp', 40800, 12060, [cfUdp()])).toBe('Crossfire (DPI)');
    expect(await classify('udp', 40801, 12060, [cfUdp()], undefined, v6)).toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40802, 80, [cfNotice('notice/login_big/index.asp', 'crossfire.z8games.com')])).toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40803, 8080, [cfNotice('notice/login_small/index.asp', 'www.crossfire.co.kr')], undefined, v6)).toBe('Crossfire (DPI)');
  });

  it('CrossFire near misses', async () => {
    expect(await classify('udp', 40810, 12060, [cfUdp(0x7d01)])).not.toBe('Crossfire (DPI)');
    expect(await classify('udp', 40811, 12060, [Buffer.concat([cfUdp(), bytes(0)])])).not.toBe('Crossfire (DPI)');
    // a sixth header field makes 9 lines
    expect(await classify('tcp', 40812, 80, [cfNotice('notice/login_big/index.asp', 'crossfire.z8games.com', ['Cache-Control: no-cache'])])).not.toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40813, 80, [cfNotice('notice/login_mid/index.asp', 'crossfire.z8games.com')])).not.toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40814, 80, [cfNotice('notice/login_big/index.php', 'crossfire.z8games.com')])).not.toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40815, 80, [cfNotice('notice/login_big/index.asp', 'cf.z8games.com')])).not.toBe('Crossfire (DPI)');
    // "crossfire.com" is 13 characters and passes; "crossfire.io" is 12
    expect(await classify('tcp', 40816, 80, [cfNotice('notice/login_big/index.asp', 'crossfire.com')])).toBe('Crossfire (DPI)');
    expect(await classify('tcp', 40817, 80, [cfNotice('notice/login_big/index.asp', 'crossfire.io')])).not.toBe('Crossfire (DPI)');
    await claimsNoPlain('Crossfire', 'udp', 12060);
    await claimsNoPlain('Crossfire', 'tcp', 80);
  });

  it('Dofus: the 1.x text exchange and 13-byte packet, the Dofus 2 messages', async () => {
    // HC (hello connection: a 32-character key), then the client's ticket AT…
    expect(await classify('tcp', 40900, 5555, [d1('HC' + 'k'.repeat(32)), d1('AT12345678')], [false, true])).toBe('Dofus (DPI)');
    expect(await classify('tcp', 40901, 443, [d1('HG'), d1('Ak01')], [false, true], v6)).toBe('Dofus (DPI)');
    expect(await classify('tcp', 40902, 5555, [d1('Af1|2|3|4|'), d1('AT01')], [false, true])).toBe('Dofus (DPI)');
    const d13 = bytes(0x00, 0x05, 0x08, 0x00, 0x00, 0x04, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x01, 0x94);
    expect(await classify('tcp', 40903, 5555, [d13], [false])).toBe('Dofus (DPI)');
    // Dofus 2: ProtocolRequired alone, followed by a 01 94 header, and at 49 bytes
    expect(await classify('tcp', 40904, 5555, [protocolRequired], [false])).toBe('Dofus (DPI)');
    expect(await classify('tcp', 40905, 5555, [Buffer.concat([protocolRequired, u16(0x0194)])], [false])).toBe('Dofus (DPI)');
    const p49 = Buffer.concat([protocolRequired, bytes(0x01, 0x94, 0x00, 0x00), u16(32), fill(32, 0x61)]);
    expect(p49.length).toBe(49);
    expect(await classify('tcp', 40906, 5555, [p49], [false], v6)).toBe('Dofus (DPI)');
    // 01 B9 26 and two strings; the Identification message with two strings and 0x01
    expect(await classify('tcp', 40907, 5555, [Buffer.concat([bytes(0x01, 0xb9, 0x26), utf('a'.repeat(16)), utf('b'.repeat(18))])])).toBe('Dofus (DPI)');
    const ident = Buffer.concat([bytes(0x00, 0x11, 0x35, 0x02, 0x03, 0x00, 0x93, 0x96, 0x01, 0x00), utf('player'.padEnd(20, '_')), utf('x'.repeat(21)), bytes(0x01)]);
    expect(ident.length).toBe(56);
    expect(await classify('tcp', 40908, 5555, [ident])).toBe('Dofus (DPI)');
  });

  it('Dofus near misses', async () => {
    // a first packet opening "Ad" is no Dofus 1 message for nDPI
    expect(await classify('tcp', 40910, 5555, [d1('AdPlayer'), d1('AT12345678')], [false, true])).not.toBe('Dofus (DPI)');
    // no NUL at the end of the first packet
    expect(await classify('tcp', 40911, 5555, [txt('HC' + 'k'.repeat(33)), d1('AT12345678')], [false, true])).not.toBe('Dofus (DPI)');
    // the ticket one byte longer, the key message without its NUL, or on the third packet
    expect(await classify('tcp', 40912, 5555, [d1('HG'), d1('AT123456789')], [false, true])).not.toBe('Dofus (DPI)');
    expect(await classify('tcp', 40913, 5555, [d1('HG'), txt('Ak012')], [false, true])).not.toBe('Dofus (DPI)');
    expect(await classify('tcp', 40914, 5555, [d1('HG'), d1('BN'), d1('Ak01')], [false, true, false])).not.toBe('Dofus (DPI)');
    // the ticket as the first packet only makes the flow wait
    expect(await classify('tcp', 40915, 5555, [d1('AT12345678')])).not.toBe('Dofus (DPI)');
    // Dofus 2 with one byte wrong: 0x19 at 10, the 13-byte tail, the 49-byte length, the strings' fill
    const bad = Buffer.from(protocolRequired);
    bad[10] = 0x19;
    expect(await classify('tcp', 40916, 5555, [bad], [false])).not.toBe('Dofus (DPI)');
    expect(await classify('tcp', 40917, 5555, [Buffer.concat([protocolRequired, u16(0x0195)])], [false])).not.toBe('Dofus (DPI)');
    expect(await classify('tcp', 40918, 5555, [Buffer.concat([protocolRequired, bytes(0x01, 0x94, 0x00, 0x00), u16(31), fill(32, 0x61)])], [false])).not.toBe('Dofus (DPI)');
    expect(await classify('tcp', 40919, 5555, [Buffer.concat([bytes(0x01, 0xb9, 0x26), utf('a'.repeat(16)), utf('b'.repeat(18)), bytes(7)])])).not.toBe('Dofus (DPI)');
    const ident = Buffer.concat([bytes(0x00, 0x11, 0x35, 0x02, 0x03, 0x00, 0x93, 0x96, 0x01, 0x00), utf('player'.padEnd(20, '_')), utf('x'.repeat(21)), bytes(0x02)]);
    expect(await classify('tcp', 40920, 5555, [ident])).not.toBe('Dofus (DPI)');
    expect(await classify('udp', 40921, 5555, [protocolRequired])).not.toBe('Dofus (DPI)');
    await claimsNoPlain('Dofus', 'tcp', 5555);
  });

  it('Guild Wars: its three observed packets, on any port', async () => {
    expect(await classify('tcp', 41000, 6112, [gw64()])).toBe('Guildwars (DPI)');
    expect(await classify('tcp', 41001, 6112, [gw16()], [false], v6)).toBe('Guildwars (DPI)');
    expect(await classify('tcp', 41002, 80, [gw21()])).toBe('Guildwars (DPI)');
  });

  it('Guild Wars near misses', async () => {
    expect(await classify('tcp', 41010, 6112, [gw64('@2&Q')])).not.toBe('Guildwars (DPI)');
    expect(await classify('tcp', 41011, 6112, [gw64().subarray(0, 63)])).not.toBe('Guildwars (DPI)');
    expect(await classify('tcp', 41012, 6112, [gw16(0x05)])).not.toBe('Guildwars (DPI)');
    const g = gw21();
    g[9] = 0x02;
    expect(await classify('tcp', 41013, 6112, [g])).not.toBe('Guildwars (DPI)');
    expect(await classify('tcp', 41014, 6112, [fill(10), gw64()], [true, true])).not.toBe('Guildwars (DPI)');
    expect(await classify('udp', 41015, 6112, [gw64()])).not.toBe('Guildwars (DPI)');
    await claimsNoPlain('Guildwars', 'tcp', 6112);
  });

  it('Armagetron: login, sync and net sync datagrams, on any port', async () => {
    expect(agLogin(5).length).toBe(18);
    expect(await classify('udp', 41100, 4534, [agLogin(5)])).toBe('Armagetron (DPI)');
    expect(await classify('udp', 41101, 4534, [agSync()], [false], v6)).toBe('Armagetron (DPI)');
    expect(await classify('udp', 41102, 4600, [agNetSync()], [false])).toBe('Armagetron (DPI)');
  });

  it('Armagetron near misses', async () => {
    expect(await classify('udp', 41110, 4534, [agLogin(5, 2)])).not.toBe('Armagetron (DPI)');
    expect(await classify('udp', 41111, 4534, [agSync(5)])).not.toBe('Armagetron (DPI)');
    expect(await classify('udp', 41112, 4534, [agSync(4, 1)])).not.toBe('Armagetron (DPI)');
    expect(await classify('udp', 41113, 4534, [agNetSync(0x0103)])).not.toBe('Armagetron (DPI)');
    expect(await classify('udp', 41114, 4534, [fill(20), agLogin(5)], [true, true])).not.toBe('Armagetron (DPI)');
    expect(await classify('tcp', 41115, 4534, [agLogin(5)])).not.toBe('Armagetron (DPI)');
    await claimsNoPlain('Armagetron', 'udp', 4534);
  });

  it('World of Kung Fu: its observed 16-byte packet, on any port; near misses', async () => {
    expect(await classify('tcp', 41200, 7000, [wokf()])).toBe('WorldOfKungFu (DPI)');
    expect(await classify('tcp', 41201, 443, [wokf()], [false], v6)).toBe('WorldOfKungFu (DPI)');
    expect(await classify('tcp', 41202, 7000, [wokf(0x17)])).not.toBe('WorldOfKungFu (DPI)');
    expect(await classify('tcp', 41203, 7000, [wokf(0x16, 17)])).not.toBe('WorldOfKungFu (DPI)');
    expect(await classify('tcp', 41204, 7000, [fill(8), wokf()], [true, true])).not.toBe('WorldOfKungFu (DPI)');
    expect(await classify('udp', 41205, 7000, [wokf()])).not.toBe('WorldOfKungFu (DPI)');
    await claimsNoPlain('WorldOfKungFu', 'tcp', 7000);
  });
});
