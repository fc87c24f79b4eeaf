// Audit 21: VMware, BJNP, WSD, Service Location, Whois-DAS, MPEG-TS,
// MPEG-DASH, HalfLife2, Path of Exile, World of Kung Fu, QQ, KakaoTalk
// voice, DingTalk, VHUA, HPVIRTGRP, EAQ, NOE, CheckMK, XDMCP, AFP,
// Ether-S-Bus, EtherSIO, PTPv2, C12.22, PFCP, VXLAN, FLUTE, UFTP, CNP/IP,
// HiSLIP, RTPS, Kismet, OpenFlow, CPHA, Avast SecureDNS, Amazon Video, Nest
// Log Sink, BFCP and ATG checked against nDPI 4.11's own source (src/lib/protocols/<name>.c). One
// hand-built flow per case, its bytes from the protocols' documents or the
// byte rules nDPI states: what nDPI accepts is named by DPI, a near miss
// (one detail wrong) is not.

import { afterAll, describe, expect, it } from 'vitest';

import type { FlowRecord } from '../ts/bindings/native.js';
import { capturesIn, flowFrames, nameOf } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';
import { cat, fill, hex, txt, u16, u24, u32 } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-21-');
afterAll(() => tmp.cleanup());

type Msg = [boolean, Buffer];
const C4 = '10.0.0.1', S4 = '10.0.0.2', C6 = '2001:db8::1', S6 = '2001:db8::2';

const frames = flowFrames;
const replay = capturesIn(tmp.dir);
/** The flow's record between the given addresses. */
async function flowAt(l4: 'udp' | 'tcp', cli: string, srv: string, cport: number, sport: number, msgs: Msg[]): Promise<FlowRecord> {
  const [f] = await replay(frames(l4, cli, srv, cport, sport, msgs));
  return f!;
}
const flowOf = (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], v6 = false) => flowAt(l4, v6 ? C6 : C4, v6 ? S6 : S4, cport, sport, msgs);
const run = async (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], v6 = false) => nameOf(await flowOf(l4, cport, sport, msgs, v6));
const cli = (...p: Buffer[]): Msg[] => p.map((b) => [true, b]);
const srv = (...p: Buffer[]): Msg[] => p.map((b) => [false, b]);
const alt = (...p: Buffer[]): Msg[] => p.map((b, i) => [i % 2 === 0, b]);

// ── VMware (vmware.c): one UDP datagram of exactly 66 bytes, 0xA4 first, sent to port 902.
describe('VMware (vmware.c)', () => {
  const dg = (lead = 0xa4, n = 66) => cat(Buffer.from([lead]), fill(n - 1, 0));
  it('a 66-byte 0xA4 datagram to port 902 names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 41000, 902, cli(dg()))).toBe('VMware (DPI)');
    expect(await run('udp', 41001, 902, cli(dg()), true)).toBe('VMware (DPI)');
  });
  it('size, lead byte, the destination port (the answer from 902 is not enough) or TCP: no VMware by DPI', async () => {
    for (const p of [dg(0xa4, 65), dg(0xa4, 67), dg(0xa5)]) expect(await run('udp', 41002, 902, cli(p))).not.toBe('VMware (DPI)');
    expect(await run('udp', 41003, 902, srv(dg()))).not.toBe('VMware (DPI)');
    expect(await run('udp', 41004, 903, cli(dg()))).not.toBe('VMware (DPI)');
    expect(await run('tcp', 41005, 902, cli(dg()))).not.toBe('VMware (DPI)');
  });
  it('the first datagram decides', async () => {
    expect(await run('udp', 41006, 902, cli(dg(0x00), dg()))).not.toBe('VMware (DPI)');
  });
});

// ── BJNP (bjnp.c): Canon's 4-byte magic and at least one byte more, any port, UDP.
describe('BJNP (bjnp.c)', () => {
  const cmd = (magic: string) => cat(txt(magic), hex('0101 0000 0001 00000000 00000000'));
  it('BJNP, MFNP, BNJB and BJNB headers name the flow on any port, IPv4 and IPv6', async () => {
    for (const m of ['BJNP', 'MFNP', 'BNJB', 'BJNB']) expect(await run('udp', 41100, 8611, cli(cmd(m)))).toBe('BJNP (DPI)');
    expect(await run('udp', 41101, 40000, cli(cmd('BJNP')), true)).toBe('BJNP (DPI)');
  });
  it('4 bytes alone, another magic, TCP, or a later datagram: no BJNP by DPI', async () => {
    expect(await run('udp', 41102, 8611, cli(txt('BJNP')))).not.toBe('BJNP (DPI)');
    expect(await run('udp', 41103, 8611, cli(cmd('BJNX')))).not.toBe('BJNP (DPI)');
    expect(await run('tcp', 41104, 8611, cli(cmd('BJNP')))).not.toBe('BJNP (DPI)');
    expect(await run('udp', 41105, 8611, cli(fill(20), cmd('BJNP')))).not.toBe('BJNP (DPI)');
  });
});

// ── WSD (wsd.c): WS-Discovery's SOAP-over-UDP, an XML document multicast to port 3702.
describe('WSD (wsd.c)', () => {
  const probe = txt('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"></soap:Envelope>');
  it('a Probe to 239.255.255.250 or [ff02::c] port 3702 names the flow', async () => {
    expect(nameOf(await flowAt('udp', C4, '239.255.255.250', 41200, 3702, cli(probe)))).toBe('WSD (DPI)');
    expect(nameOf(await flowAt('udp', C6, 'ff02::c', 41201, 3702, cli(probe)))).toBe('WSD (DPI)');
  });
  it('unicast, another port, under 40 bytes or no "<?xml": no WSD by DPI', async () => {
    expect(nameOf(await flowAt('udp', C4, S4, 41202, 3702, cli(probe)))).not.toBe('WSD (DPI)');
    expect(nameOf(await flowAt('udp', C6, 'ff05::c', 41203, 3702, cli(probe)))).not.toBe('WSD (DPI)');
    expect(nameOf(await flowAt('udp', C4, '239.255.255.250', 41204, 3703, cli(probe)))).not.toBe('WSD (DPI)');
    expect(nameOf(await flowAt('udp', C4, '239.255.255.250', 41205, 3702, cli(probe.subarray(0, 39))))).not.toBe('WSD (DPI)');
    expect(nameOf(await flowAt('udp', C4, '239.255.255.250', 41206, 3702, cli(cat(txt(' '), probe))))).not.toBe('WSD (DPI)');
  });
});

// ── SLP (slp.c): RFC 2165 v1 (12-byte header, 16-bit length) and RFC 2608 v2
// (24-bit length, 16 bytes with a 2-byte language tag), length = payload, function 1..10 / 1..11.
describe('Service Location (slp.c)', () => {
  const v1 = (fn: number, body = fill(4), lenAdj = 0) => {
    const n = 12 + body.length;
    return cat(Buffer.from([1, fn]), u16(n + lenAdj), hex('00 00'), txt('en'), u16(3), u16(0x1234), body);
  };
  const v2 = (fn: number, body = fill(4), lenAdj = 0) => {
    const n = 16 + body.length;
    return cat(Buffer.from([2, fn]), u24(n + lenAdj), u16(0), u24(0), u16(0x1234), u16(2), txt('en'), body);
  };
  // RFC 2608 §8.2 SrvRply: error code, URL entry count, entries (reserved, lifetime, length, URL, #auths).
  const url = txt('service:printer:lpr://10.0.0.9');
  const entry = (u = url, len = u.length) => cat(hex('00'), u16(60), u16(len), u, hex('00'));
  const rply = (...e: Buffer[]) => v2(2, cat(u16(0), u16(e.length), ...e));
  it('v1 functions 1..10 and v2 functions 1..11 name the flow, UDP and TCP, IPv4 and IPv6', async () => {
    for (const fn of [1, 10]) expect(await run('udp', 41300, 427, cli(v1(fn)))).toBe('Service_Location_Protocol (DPI)');
    for (const fn of [1, 11]) expect(await run('udp', 41301, 427, cli(v2(fn)))).toBe('Service_Location_Protocol (DPI)');
    expect(await run('tcp', 41302, 427, cli(v2(1)))).toBe('Service_Location_Protocol (DPI)');
    expect(await run('udp', 41303, 40001, cli(v1(3)), true)).toBe('Service_Location_Protocol (DPI)');
    expect(await run('tcp', 41304, 40001, cli(v2(6)), true)).toBe('Service_Location_Protocol (DPI)');
  });
  it('version, function 0 / 11 on v1 / 12 on v2, a length off by one, a short header: no SLP by DPI', async () => {
    const near = [cat(hex('03'), v2(1).subarray(1)), v1(0), v1(11), v2(0), v2(12), v1(1, fill(4), 1), v2(1, fill(4), -1), v2(1, Buffer.alloc(0)).subarray(0, 15)];
    for (const p of near) expect(await run('udp', 41305, 427, cli(p))).not.toBe('Service_Location_Protocol (DPI)');
  });
  it('a v2 SrvRply whose URL entries do not hold together raises Malformed Packet', async () => {
    const ok = await flowOf('udp', 41306, 427, cli(rply(entry())));
    expect(nameOf(ok)).toBe('Service_Location_Protocol (DPI)');
    expect(ok.risks).not.toContain('Malformed Packet');
    // No entry at all: read (and the risk raised) only past 20 bytes, as nDPI does.
    const none = await flowOf('udp', 41307, 427, cli(v2(2, cat(u16(0), u16(0), hex('00')))));
    expect(nameOf(none)).toBe('Service_Location_Protocol (DPI)');
    expect(none.risks).toContain('Malformed Packet');
    expect((await flowOf('udp', 41309, 427, cli(rply()))).risks).not.toContain('Malformed Packet');
    const past = await flowOf('udp', 41308, 427, cli(rply(entry(url, url.length + 10))));
    expect(past.risks).toContain('Malformed Packet');
  });
});

// ── Whois-DAS (whoisdas.c): TCP, port 43 or 4343 either side, a payload of more than 2 bytes ending CRLF.
describe('Whois-DAS (whoisdas.c)', () => {
  it('a query to 43 or 4343 names the flow and its host, IPv4 and IPv6', async () => {
    const f = await flowOf('tcp', 41400, 43, cli(txt('Example.ORG\r\n')));
    expect(nameOf(f)).toBe('Whois-DAS (DPI)');
    expect(f.host_name).toBe('example.org');
    const g = await flowOf('tcp', 41401, 4343, cli(txt('example.net\r\n')), true);
    expect(nameOf(g)).toBe('Whois-DAS (DPI)');
    expect(g.host_name).toBe('example.net');
  });
  it('a long query: nDPI keeps its last 79 bytes, of which the first 39 characters are stored', async () => {
    const q = 'x'.repeat(30) + 'A\tb' + 'c'.repeat(60) + 'tail.example   ';
    const kept = q.slice(-79).toLowerCase().replace(/\t/g, ' ').replace(/ +$/, '');
    const f = await flowOf('tcp', 41407, 43, cli(txt(q + '\r\n')));
    expect(f.host_name).toBe(kept.slice(0, 39));
    expect(f.host_name.startsWith('xa bccc')).toBe(true);
  });
  it('the answer from port 43 names it too, without a host', async () => {
    const f = await flowOf('tcp', 41402, 43, srv(txt('Domain Name: EXAMPLE.ORG\r\n')));
    expect(nameOf(f)).toBe('Whois-DAS (DPI)');
    expect(f.host_name).toBe('');
  });
  it('no CRLF at the end, CRLF alone, another port, or the first packet not so: no Whois-DAS by DPI', async () => {
    expect(await run('tcp', 41403, 43, cli(txt('example.org\n')))).not.toBe('Whois-DAS (DPI)');
    expect(await run('tcp', 41404, 43, cli(txt('\r\n')))).not.toBe('Whois-DAS (DPI)');
    expect(await run('tcp', 41405, 44, cli(txt('example.org\r\n')))).not.toBe('Whois-DAS (DPI)');
    expect(await run('tcp', 41406, 43, cli(txt('example'), txt('.org\r\n')))).not.toBe('Whois-DAS (DPI)');
  });
});

// ── MPEG-TS (mpegts.c): a UDP payload of whole 188-byte packets, each opening with sync byte 0x47.
describe('MPEG-TS (mpegts.c)', () => {
  const ts = (n: number, bad = -1) => cat(...Array.from({ length: n }, (_, i) => cat(Buffer.from([i === bad ? 0x48 : 0x47]), hex('1fff10'), fill(184, 0xff))));
  it('one or seven TS packets name the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 41500, 1234, cli(ts(1)))).toBe('MPEG_TS (DPI)');
    expect(await run('udp', 41501, 5004, cli(ts(7)), true)).toBe('MPEG_TS (DPI)');
  });
  it('a lost sync byte, a size not a multiple of 188, or TCP: no MPEG-TS by DPI', async () => {
    expect(await run('udp', 41502, 1234, cli(ts(7, 6)))).not.toBe('MPEG_TS (DPI)');
    expect(await run('udp', 41503, 1234, cli(cat(ts(1), hex('47'))))).not.toBe('MPEG_TS (DPI)');
    expect(await run('tcp', 41504, 1234, cli(ts(2)))).not.toBe('MPEG_TS (DPI)');
  });
});

// ── MPEG-DASH (mpegdash.c): on an HTTP flow, the request line ending ".mp4 HTTP/1.1", ".m4s HTTP/1.1"
// or "RTSP/1.0", or a header "Content-Type: … video/mp4" or one starting "DASH".
describe('MPEG-DASH (mpegdash.c)', () => {
  const req = (line: string, ...h: string[]) => txt([line, 'Host: media.example.com', ...h, '', ''].join('\r\n'));
  const resp = (...h: string[]) => txt(['HTTP/1.1 200 OK', ...h, 'Content-Length: 0', '', ''].join('\r\n'));
  it('segment requests, a video/mp4 answer and a DASH header name HTTP.MpegDash, IPv4 and IPv6', async () => {
    expect(await run('tcp', 41600, 80, cli(req('GET /seg/1.m4s HTTP/1.1')))).toBe('HTTP.MpegDash (DPI)');
    expect(await run('tcp', 41601, 80, cli(req('GET /v/init.mp4 HTTP/1.1')), true)).toBe('HTTP.MpegDash (DPI)');
    // Judged on the packet that names the flow HTTP: an answer seen first (nDPI never asks it on later packets).
    expect(await run('tcp', 41602, 80, srv(resp('Content-Type: video/mp4')))).toBe('HTTP.MpegDash (DPI)');
    expect(await run('tcp', 41603, 80, cli(req('GET /x HTTP/1.1', 'DASH-Version: 1')))).toBe('HTTP.MpegDash (DPI)');
  });
  it('HTTP/1.0 segments, another type, another case: plain HTTP', async () => {
    expect(await run('tcp', 41604, 80, cli(req('GET /seg/1.m4s HTTP/1.0')))).toBe('HTTP (DPI)');
    expect(await run('tcp', 41605, 80, srv(resp('Content-Type: video/webm')))).toBe('HTTP (DPI)');
    expect(await run('tcp', 41607, 80, alt(req('GET /x HTTP/1.1'), resp('Content-Type: video/mp4')))).toBe('HTTP (DPI)');
    expect(await run('tcp', 41606, 80, cli(req('GET /x HTTP/1.1', 'dash-version: 1')))).toBe('HTTP (DPI)');
  });
});

// ── HalfLife2 (halflife2_and_mods.c): a datagram of 20 bytes or more opening 0xffffffff and
// ending "000\0", answered in kind from the other side.
describe('HalfLife2 (halflife2_and_mods.c)', () => {
  const q = (n = 24, head = 0xffffffff) => cat(u32(head), fill(n - 8, 0x54), txt('000\0'));
  it('a request answered in kind names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 41700, 27015, alt(q(), q(20)))).toBe('HalfLife2 (DPI)');
    expect(await run('udp', 41701, 27015, alt(q(), q()), true)).toBe('HalfLife2 (DPI)');
  });
  it('the same side twice, an answer of another shape, 19 bytes, a non-matching first datagram: no HalfLife2', async () => {
    expect(await run('udp', 41702, 27015, cli(q(), q()))).not.toBe('HalfLife2 (DPI)');
    expect(await run('udp', 41703, 27015, alt(q(), q(24, 0xfffffffe)))).not.toBe('HalfLife2 (DPI)');
    expect(await run('udp', 41704, 27015, alt(q(19), q(19)))).not.toBe('HalfLife2 (DPI)');
    expect(await run('udp', 41705, 27015, [[true, fill(24)], [true, q()], [false, q()]])).not.toBe('HalfLife2 (DPI)');
  });
});

// ── Path of Exile (path_of_exile.c): the first TCP payload, 26..49 bytes: 00, 0300 at 1, 00 at 6,
// 0200 at 7, and its last 8 bytes 00000000 40000001.
describe('Path of Exile (path_of_exile.c)', () => {
  const login = (n = 32, tail = 0x40000001) => cat(hex('00 0300 000000 00 0200'), fill(n - 9 - 8, 0x61), u32(0), u32(tail));
  it('the login packet names the flow, any port, IPv4 and IPv6', async () => {
    expect(await run('tcp', 41800, 20481, cli(login()))).toBe('PathofExile (DPI)');
    expect(await run('tcp', 41801, 6112, cli(login(26)), true)).toBe('PathofExile (DPI)');
    expect(await run('tcp', 41802, 6112, cli(login(49)))).toBe('PathofExile (DPI)');
  });
  it('25 or 50 bytes, another tail, a second packet: no Path of Exile', async () => {
    for (const p of [login(25), login(50), login(32, 0x40000002)]) expect(await run('tcp', 41803, 20481, cli(p))).not.toBe('PathofExile (DPI)');
    expect(await run('tcp', 41804, 20481, cli(fill(10), login()))).not.toBe('PathofExile (DPI)');
  });
});

// ── World of Kung Fu (world_of_kung_fu.c): one 16-byte TCP packet, 0c000000 d2000c00 at 0, 0x16 at 9,
// zero words at 10 and 14.
describe('World of Kung Fu (world_of_kung_fu.c)', () => {
  const hello = (b9 = 0x16, w14 = 0) => cat(hex('0c000000 d2000c00 55'), Buffer.from([b9]), u16(0), hex('7788'), u16(w14));
  it('the 16-byte packet names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 41900, 7000, cli(hello()))).toBe('WorldOfKungFu (DPI)');
    expect(await run('tcp', 41901, 7000, srv(hello()), true)).toBe('WorldOfKungFu (DPI)');
  });
  it('byte 9, the word at 14, a 17th byte, UDP: no World of Kung Fu', async () => {
    for (const p of [hello(0x17), hello(0x16, 1), cat(hello(), hex('00'))]) expect(await run('tcp', 41902, 7000, cli(p))).not.toBe('WorldOfKungFu (DPI)');
    expect(await run('udp', 41903, 7000, cli(hello()))).not.toBe('WorldOfKungFu (DPI)');
  });
});

// ── QQ (qq.c): UDP datagrams of fixed size and head (72/0x02004800, 64/0x02004000, 60/0x02004200,
// 84/0x02005a00, 56/0x02003800) or of 39 bytes or more opening 0x28000000; nDPI looks until it
// has processed more than 4 packets.
describe('QQ (qq.c)', () => {
  const dg = (n: number, head: number) => cat(u32(head), fill(n - 4, 0x11));
  it('each shape names the flow, either side, IPv4 and IPv6', async () => {
    for (const [n, h] of [[72, 0x02004800], [64, 0x02004000], [60, 0x02004200], [84, 0x02005a00], [56, 0x02003800], [39, 0x28000000], [300, 0x28000000]])
      expect(await run('udp', 42000, 8000, cli(dg(n, h)))).toBe('QQ (DPI)');
    expect(await run('udp', 42001, 8000, srv(dg(72, 0x02004800)), true)).toBe('QQ (DPI)');
  });
  it('the fifth datagram still counts, the sixth does not', async () => {
    const other = fill(30, 0x33);
    expect(await run('udp', 42002, 8000, cli(other, other, other, other, dg(64, 0x02004000)))).toBe('QQ (DPI)');
    expect(await run('udp', 42003, 8000, cli(other, other, other, other, other, dg(64, 0x02004000)))).not.toBe('QQ (DPI)');
  });
  it('a size off by one, 38 bytes, or TCP: no QQ', async () => {
    for (const p of [dg(73, 0x02004800), dg(63, 0x02004000), dg(38, 0x28000000)]) expect(await run('udp', 42004, 8000, cli(p))).not.toBe('QQ (DPI)');
    expect(await run('tcp', 42005, 8000, cli(dg(72, 0x02004800)))).not.toBe('QQ (DPI)');
  });
});

// ── KakaoTalk voice (kakaotalk_voice.c): UDP over IPv4, 4 bytes or more with 0x81 first OR 0xc8 second
// OR 0x00 third OR 0x0c fourth, to or from 1.201.0.0/16.
describe('KakaoTalk voice (kakaotalk_voice.c)', () => {
  const K = '1.201.7.9';
  it('any one of the four bytes, to or from 1.201.0.0/16, names the flow', async () => {
    for (const p of [hex('81ffffff'), hex('ffc8ffff'), hex('ffff00ff'), hex('ffffff0c')]) expect(nameOf(await flowAt('udp', C4, K, 42100, 5000, cli(p)))).toBe('KakaoTalk_Voice (DPI)');
    expect(nameOf(await flowAt('udp', C4, K, 42101, 5000, srv(cat(hex('81c8000c'), fill(20)))))).toBe('KakaoTalk_Voice (DPI)');
  });
  it('none of the four bytes, another network, 3 bytes, IPv6 or TCP: no KakaoTalk voice', async () => {
    expect(nameOf(await flowAt('udp', C4, K, 42102, 5000, cli(hex('80c9010d'))))).not.toBe('KakaoTalk_Voice (DPI)');
    expect(nameOf(await flowAt('udp', C4, '1.202.7.9', 42103, 5000, cli(hex('81c8000c'))))).not.toBe('KakaoTalk_Voice (DPI)');
    expect(nameOf(await flowAt('udp', C4, K, 42104, 5000, cli(hex('81c800'))))).not.toBe('KakaoTalk_Voice (DPI)');
    expect(nameOf(await flowAt('udp', C6, '2001:db8:1:c9::1', 42105, 5000, cli(hex('81c8000c'))))).not.toBe('KakaoTalk_Voice (DPI)');
    expect(nameOf(await flowAt('tcp', C4, K, 42106, 5000, cli(hex('81c8000c'))))).not.toBe('KakaoTalk_Voice (DPI)');
  });
});

// ── DingTalk (dingtalk.c): TCP, more than 90 bytes, 0x10 then the fixed header 87800100 01000200 02646b03 0020 at 2.
describe('DingTalk (dingtalk.c)', () => {
  const frame = (n = 120, b15 = 0x20) => cat(hex('10 7f 87800100 01000200 02646b03 00'), Buffer.from([b15]), fill(n - 16, 0x5a));
  it('the framed packet names the flow, any port, IPv4 and IPv6', async () => {
    expect(await run('tcp', 42200, 443, cli(frame()))).toBe('DingTalk (DPI)');
    expect(await run('tcp', 42201, 8000, cli(frame(91)), true)).toBe('DingTalk (DPI)');
  });
  it('90 bytes, one header byte off, or a second packet: no DingTalk', async () => {
    expect(await run('tcp', 42202, 8000, cli(frame(90)))).not.toBe('DingTalk (DPI)');
    expect(await run('tcp', 42203, 8000, cli(frame(120, 0x21)))).not.toBe('DingTalk (DPI)');
    expect(await run('tcp', 42204, 8000, cli(fill(100), frame()))).not.toBe('DingTalk (DPI)');
  });
});

// ── VHUA (vhua.c): UDP, the 9-byte signature 05143a0508f8a1b103 opening one of the first three payload datagrams.
describe('VHUA (vhua.c)', () => {
  const sig = (tail = fill(11)) => cat(hex('05143a0508f8a1b103'), tail);
  it('the signature in the first or third datagram names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 42300, 9000, cli(sig()))).toBe('VHUA (DPI)');
    expect(await run('udp', 42301, 9000, alt(fill(20), fill(20), sig()), true)).toBe('VHUA (DPI)');
  });
  it('in the fourth, after a datagram under 9 bytes, or one byte off: no VHUA', async () => {
    expect(await run('udp', 42302, 9000, alt(fill(20), fill(20), fill(20), sig()))).not.toBe('VHUA (DPI)');
    expect(await run('udp', 42303, 9000, cli(fill(8), sig()))).not.toBe('VHUA (DPI)');
    expect(await run('udp', 42304, 9000, cli(cat(hex('05143a0508f8a1b104'), fill(11))))).not.toBe('VHUA (DPI)');
  });
});

// ── HPVIRTGRP (hpvirtgrp.c): TCP, the flow's first payload packet: 0x16, its own length (16 bits), 0x00.
describe('HP Virtual Machine Group Management (hpvirtgrp.c)', () => {
  const msg = (n = 40, b3 = 0, lenAdj = 0) => cat(hex('16'), u16(n + lenAdj), Buffer.from([b3]), fill(n - 4, 0x22));
  it('the first packet names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 42400, 1000, cli(msg()))).toBe('HP_VIRTGRP (DPI)');
    expect(await run('tcp', 42401, 1000, cli(msg(4)), true)).toBe('HP_VIRTGRP (DPI)');
  });
  it('a length off by one, byte 3 set, or the second packet: no HPVIRTGRP', async () => {
    expect(await run('tcp', 42402, 1000, cli(msg(40, 0, 1)))).not.toBe('HP_VIRTGRP (DPI)');
    expect(await run('tcp', 42403, 1000, cli(msg(40, 1)))).not.toBe('HP_VIRTGRP (DPI)');
    expect(await run('tcp', 42404, 1000, cli(fill(30), msg()))).not.toBe('HP_VIRTGRP (DPI)');
  });
});

// ── EAQ (eaq.c): UDP with port 6000 on a side, every datagram 16 bytes, its sequence value
// b0·1000 + b1·100 + b2·10 + b3 the previous one's or one more; the fourth names the flow.
describe('EAQ (eaq.c)', () => {
  const probe = (b: number[]) => cat(Buffer.from(b), fill(12, 0x55));
  const seq = (v: number) => probe([Math.floor(v / 1000) % 10, Math.floor(v / 100) % 10, Math.floor(v / 10) % 10, v % 10]);
  it('four probes in sequence name the flow, either side on 6000, IPv4 and IPv6', async () => {
    expect(await run('udp', 42500, 6000, alt(seq(1), seq(1), seq(2), seq(3)))).toBe('EAQ (DPI)');
    expect(await run('udp', 6000, 42501, cli(seq(10), seq(11), seq(11), seq(12)), true)).toBe('EAQ (DPI)');
    // The value is a weighted sum, not a decimal number: 0,0,0,10 follows 0,0,0,9 and 0,0,1,0 equals it.
    expect(await run('udp', 42502, 6000, cli(probe([0, 0, 0, 9]), probe([0, 0, 0, 10]), probe([0, 0, 1, 0]), probe([0, 0, 1, 1])))).toBe('EAQ (DPI)');
  });
  it('a jump or a step back in the sequence, a 17-byte datagram, three probes, another port: no EAQ', async () => {
    expect(await run('udp', 42503, 6000, cli(seq(1), seq(2), seq(4), seq(5)))).not.toBe('EAQ (DPI)');
    expect(await run('udp', 42504, 6000, cli(seq(5), seq(4), seq(5), seq(6)))).not.toBe('EAQ (DPI)');
    expect(await run('udp', 42505, 6000, cli(seq(1), cat(seq(2), hex('00')), seq(3), seq(4)))).not.toBe('EAQ (DPI)');
    expect(await run('udp', 42506, 6000, cli(seq(1), seq(2), seq(3)))).not.toBe('EAQ (DPI)');
    expect(await run('udp', 42507, 6001, cli(seq(1), seq(2), seq(3), seq(4)))).not.toBe('EAQ (DPI)');
  });
});

// ── NOE (noe.c): UDP, first datagram: one byte 04/05; or 5 / 12 bytes 07 00 <non-zero> 00; or 25+ bytes 0006626c.
describe('NOE (noe.c)', () => {
  it('each form names the flow, IPv4 and IPv6', async () => {
    for (const p of [hex('04'), hex('05'), hex('0700010000'), cat(hex('07000900'), fill(8, 0)), cat(hex('0006626c'), fill(21))])
      expect(await run('udp', 42600, 32512, cli(p))).toBe('NOE (DPI)');
    expect(await run('udp', 42601, 32512, cli(hex('05')), true)).toBe('NOE (DPI)');
  });
  it('one detail off: no NOE', async () => {
    for (const p of [hex('06'), hex('0700000000'), hex('070001000000'), cat(hex('0006626c'), fill(20)), cat(hex('0006626d'), fill(21))])
      expect(await run('udp', 42602, 32512, cli(p))).not.toBe('NOE (DPI)');
    expect(await run('tcp', 42603, 32512, cli(cat(hex('0006626c'), fill(21))))).not.toBe('NOE (DPI)');
  });
});

// ── CheckMK (checkmk.c): TCP, 15..99 bytes opening "<<<check_mk>>>"; packets over 128 bytes are passed over up to the 6th.
describe('CheckMK (checkmk.c)', () => {
  const hello = txt('<<<check_mk>>>\nVersion: 2.2.0\n');
  it('the agent report names the flow, also after large packets, IPv4 and IPv6', async () => {
    expect(await run('tcp', 42700, 6556, srv(hello))).toBe('CHECKMK (DPI)');
    expect(await run('tcp', 42701, 6556, cli(fill(200), fill(200), fill(200), fill(200), fill(200), hello), true)).toBe('CHECKMK (DPI)');
  });
  it('100 bytes, 14 bytes, a 7th packet, a small packet first: no CheckMK', async () => {
    expect(await run('tcp', 42702, 6556, srv(cat(hello, fill(100 - hello.length, 0x20))))).not.toBe('CHECKMK (DPI)');
    expect(await run('tcp', 42703, 6556, srv(txt('<<<check_mk>>>')))).not.toBe('CHECKMK (DPI)');
    expect(await run('tcp', 42704, 6556, cli(fill(200), fill(200), fill(200), fill(200), fill(200), fill(200), fill(200), hello))).not.toBe('CHECKMK (DPI)');
    expect(await run('tcp', 42705, 6556, cli(fill(20), hello))).not.toBe('CHECKMK (DPI)');
  });
});

// ── XDMCP (xdmcp.c): UDP to 177, version 1, opcode 2 (Query), length = rest; TCP to 6000..6005, a
// 48-byte little-endian X11 setup with an 18-byte auth name and 16 bytes of data.
describe('XDMCP (xdmcp.c)', () => {
  const query = (op = 2, lenAdj = 0) => cat(u16(1), u16(op), u16(1 + lenAdj), hex('00'));
  const setup = (nameLen = 18) => cat(hex('6c00 0b00 0000'), Buffer.from([nameLen, 0]), hex('1000 0000'), txt('MIT-MAGIC-COOKIE-1'), hex('0000'), fill(16, 0x99));
  it('a Query to 177 and an X11 setup to 6000..6005 name the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 42800, 177, cli(query()))).toBe('XDMCP (DPI)');
    expect(await run('udp', 42801, 177, cli(query()), true)).toBe('XDMCP (DPI)');
    expect(await run('tcp', 42802, 6000, cli(setup()))).toBe('XDMCP (DPI)');
    expect(await run('tcp', 42803, 6005, cli(setup()), true)).toBe('XDMCP (DPI)');
  });
  it('another opcode, a wrong length, another port, another auth name length: no XDMCP', async () => {
    expect(await run('udp', 42804, 177, cli(query(7)))).not.toBe('XDMCP (DPI)');
    expect(await run('udp', 42805, 177, cli(query(2, 1)))).not.toBe('XDMCP (DPI)');
    expect(await run('udp', 42806, 178, cli(query()))).not.toBe('XDMCP (DPI)');
    expect(await run('tcp', 42807, 6006, cli(setup()))).not.toBe('XDMCP (DPI)');
    expect(await run('tcp', 42808, 6000, cli(setup(17)))).not.toBe('XDMCP (DPI)');
  });
});

// ── AFP (afp.c): TCP, a DSI header (flags 0/1, command 1..8, reserved 0, data length held) in 16..128 bytes;
// packets over 128 bytes are passed over until the 6th.
describe('AFP (afp.c)', () => {
  const dsi = (flags = 0, cmd = 4, dataLen = 0, reserved = 0, body = Buffer.alloc(0)) => cat(Buffer.from([flags, cmd]), u16(1), u32(0), u32(dataLen), u32(reserved), body);
  it('a DSI OpenSession names the flow, also after large packets, IPv4 and IPv6', async () => {
    expect(await run('tcp', 42900, 548, cli(dsi(0, 4, 6, 0, hex('010400000400'))))).toBe('AFP (DPI)');
    expect(await run('tcp', 42901, 548, cli(fill(200), fill(200), fill(200), fill(200), dsi(1, 8)), true)).toBe('AFP (DPI)');
  });
  it('command 9, flags 2, reserved set, data past the payload, a 6th packet: no AFP', async () => {
    for (const p of [dsi(0, 9), dsi(2, 4), dsi(0, 4, 0, 1), dsi(0, 4, 7, 0, hex('010400000400'))]) expect(await run('tcp', 42902, 548, cli(p))).not.toBe('AFP (DPI)');
    expect(await run('tcp', 42903, 548, cli(fill(200), fill(200), fill(200), fill(200), fill(200), fill(200), dsi()))).not.toBe('AFP (DPI)');
  });
});

// ── Ether-S-Bus (ethersbus.c): UDP, over 12 bytes, length word = datagram, byte 4 < 2, byte 5 zero, CRC-16/XMODEM last.
describe('Ether-S-Bus (ethersbus.c)', () => {
  const xmodem = (b: Buffer) => {
    let crc = 0;
    for (const x of b) {
      crc ^= x << 8;
      for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc;
  };
  const frame = (ver = 1, bad = false) => {
    const body = cat(u32(16), Buffer.from([ver, 0]), hex('0001 00 0102030405'));
    return cat(body, u16(xmodem(body) ^ (bad ? 1 : 0)));
  };
  it('a frame with its CRC names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43000, 5050, cli(frame()))).toBe('Ether-S-Bus (DPI)');
    expect(await run('udp', 43001, 5050, cli(frame(0)), true)).toBe('Ether-S-Bus (DPI)');
  });
  it('a wrong CRC or byte 4 at 2: no Ether-S-Bus', async () => {
    expect(await run('udp', 43002, 5050, cli(frame(1, true)))).not.toBe('Ether-S-Bus (DPI)');
    expect(await run('udp', 43003, 5050, cli(frame(2)))).not.toBe('Ether-S-Bus (DPI)');
  });
});

// ── EtherSIO (ethersio.c): UDP, 20 bytes or more, "ESIO", byte 4 zero, byte 5 ≤ 2, byte 6 zero.
describe('EtherSIO (ethersio.c)', () => {
  const m = (b5 = 2, n = 20) => cat(txt('ESIO'), Buffer.from([0, b5, 0]), fill(n - 7, 0));
  it('names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43100, 6060, cli(m()))).toBe('EtherSIO (DPI)');
    expect(await run('udp', 43101, 6060, cli(m(0, 40)), true)).toBe('EtherSIO (DPI)');
  });
  it('byte 5 at 3 or 19 bytes: no EtherSIO', async () => {
    expect(await run('udp', 43102, 6060, cli(m(3)))).not.toBe('EtherSIO (DPI)');
    expect(await run('udp', 43103, 6060, cli(m(2, 19)))).not.toBe('EtherSIO (DPI)');
  });
});

// ── PTPv2 (ptpv2.c): UDP 319→319 or 320→320, over 34 bytes, messageType nibble < 15, second byte exactly 2.
describe('PTPv2 (ptpv2.c)', () => {
  const sync = (b0 = 0x00, b1 = 0x02, n = 44) => cat(Buffer.from([b0, b1]), u16(n), fill(n - 4, 0));
  it('Sync on 319 and Announce on 320 name the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 319, 319, cli(sync()))).toBe('PTPv2 (DPI)');
    expect(await run('udp', 320, 320, cli(sync(0x0b, 0x02, 64)), true)).toBe('PTPv2 (DPI)');
  });
  it('PTP 2.1 (0x12), messageType 15, 34 bytes, mixed ports: no PTPv2', async () => {
    for (const p of [sync(0, 0x12), sync(0x0f), sync(0, 2, 34)]) expect(await run('udp', 319, 319, cli(p))).not.toBe('PTPv2 (DPI)');
    expect(await run('udp', 42000, 319, cli(sync()))).not.toBe('PTPv2 (DPI)');
  });
});

// ── ANSI C12.22 (c1222.c): TCP or UDP, 50 bytes or more, 0x60, a one-byte length = size − 2 (mod 256), 0xA2 at 2, 0x06 at 4.
describe('ANSI C12.22 (c1222.c)', () => {
  const apdu = (n = 60, tag2 = 0xa2) => cat(Buffer.from([0x60, (n - 2) & 0xff, tag2, 0x06, 0x06]), hex('042b060104'), fill(n - 10, 0x30));
  it('an ACSE APDU names the flow, UDP and TCP, IPv4 and IPv6, the length taken mod 256', async () => {
    expect(await run('udp', 43200, 1153, cli(apdu()))).toBe('ANSI_C1222 (DPI)');
    expect(await run('tcp', 43201, 1153, cli(apdu(50)), true)).toBe('ANSI_C1222 (DPI)');
    expect(await run('udp', 43202, 1153, cli(apdu(300)), true)).toBe('ANSI_C1222 (DPI)');
  });
  it('49 bytes, a length off, or no called AP title: no C12.22', async () => {
    expect(await run('udp', 43203, 1153, cli(apdu(49)))).not.toBe('ANSI_C1222 (DPI)');
    const off = apdu();
    off[1] = 57;
    expect(await run('udp', 43204, 1153, cli(off))).not.toBe('ANSI_C1222 (DPI)');
    expect(await run('tcp', 43205, 1153, cli(apdu(60, 0xa1)))).not.toBe('ANSI_C1222 (DPI)');
  });
});

// ── PFCP (pfcp.c): UDP, port 8805 on a side, over 12 bytes, flags' low nibble 1, type ≤ 57 (as nDPI's test reads), length = size − 4.
describe('PFCP (pfcp.c)', () => {
  const msg = (flags = 0x21, type = 50, n = 24, lenAdj = 0) => cat(Buffer.from([flags, type]), u16(n - 4 + lenAdj), fill(n - 4, 0x01));
  it('session messages (S set) name the flow, also reserved types up to 57, IPv4 and IPv6', async () => {
    for (const t of [50, 57, 1, 30]) expect(await run('udp', 43300, 8805, cli(msg(0x21, t)))).toBe('PFCP (DPI)');
    expect(await run('udp', 8805, 43301, cli(msg(0x21, 51)), true)).toBe('PFCP (DPI)');
  });
  it('S clear (node messages), type 58, a length off, 12 bytes, another port: no PFCP', async () => {
    for (const p of [msg(0x20, 1), msg(0x21, 58), msg(0x21, 50, 24, 1), msg(0x21, 50, 12)]) expect(await run('udp', 43302, 8805, cli(p))).not.toBe('PFCP (DPI)');
    expect(await run('udp', 43303, 8806, cli(msg()))).not.toBe('PFCP (DPI)');
  });
});

// ── VXLAN (vxlan.c): UDP to 4789, 8 bytes or more, 08 00 00 00 and a zero last reserved byte. The decoder
// opens what follows; a header nDPI's test refuses stays a flow on 4789 for this dissector.
describe('VXLAN (vxlan.c)', () => {
  it('a header with group-policy bits or a set last byte is not VXLAN by DPI', async () => {
    expect(await run('udp', 43400, 4789, cli(cat(hex('0800 0001 000001 00'), fill(20))))).not.toBe('VXLAN (DPI)');
    expect(await run('udp', 43401, 4789, cli(cat(hex('0880 0000 000001 01'), fill(20))))).not.toBe('VXLAN (DPI)');
    // A valid header sent FROM 4789 (the decoder opens only datagrams to 4789): nDPI wants the destination port.
    expect(await run('udp', 4789, 43402, cli(cat(hex('0800 0000 000001 00'), fill(20))), true)).not.toBe('VXLAN (DPI)');
  });
});

// ── FLUTE (flute.c): UDP, over 250 bytes, 0x10 first, "<?xml" 4 bytes and "<FDT" 43 bytes after the LCT header (HDR_LEN·4).
describe('FLUTE (flute.c)', () => {
  const decl = txt('<?xml version="1.0" encoding="UTF-8"?>\n'); // 39 bytes with its line end
  const fdt = (hdrWords = 4, b0 = 0x10, extra = 200) => {
    const lct = cat(Buffer.from([b0, 0x00, hdrWords, 0x80]), fill(hdrWords * 4 - 4, 0));
    return cat(lct, u32(0), decl, txt('<FDT-Instance Expires="3600">'), fill(extra, 0x20));
  };
  it('an FDT packet names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43500, 4001, cli(fdt()))).toBe('FLUTE (DPI)');
    expect(await run('udp', 43501, 4001, cli(fdt(6)), true)).toBe('FLUTE (DPI)');
  });
  it('flags in the first byte, 250 bytes, the FDT elsewhere: no FLUTE', async () => {
    expect(await run('udp', 43502, 4001, cli(fdt(4, 0x12)))).not.toBe('FLUTE (DPI)');
    const short = fdt();
    expect(await run('udp', 43503, 4001, cli(short.subarray(0, 250)))).not.toBe('FLUTE (DPI)');
    expect(await run('udp', 43504, 4001, cli(cat(fdt(4).subarray(0, 20), hex('20'), fdt(4).subarray(20))))).not.toBe('FLUTE (DPI)');
  });
});

// ── UFTP (uftp.c): UDP, over 23 bytes, version 0x40 / 0x50, function < 22, byte 15 zero, byte 16 = function.
describe('UFTP (uftp.c)', () => {
  const m = (ver = 0x50, fn = 1, b15 = 0, n = 32) => cat(Buffer.from([ver, fn]), fill(13, 0x07), Buffer.from([b15, fn]), fill(n - 17, 0));
  it('versions 4 and 5 name the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43600, 1044, cli(m()))).toBe('UFTP (DPI)');
    expect(await run('udp', 43601, 1044, cli(m(0x40, 21, 0, 24)), true)).toBe('UFTP (DPI)');
  });
  it('function 22, byte 15 set, 23 bytes, version 0x30: no UFTP', async () => {
    for (const p of [m(0x50, 22), m(0x50, 1, 1), m(0x50, 1, 0, 23), m(0x30)]) expect(await run('udp', 43602, 1044, cli(p))).not.toBe('UFTP (DPI)');
  });
});

// ── CNP/IP (cnp-ip.c): UDP, over 20 bytes, length word = size, type low 5 bits 1, byte 4 zero, flags low 5 bits < 3.
describe('CNP-IP (cnp-ip.c)', () => {
  const pkt = (n = 32, type = 0x01, flags = 0x00) => cat(u16(n), Buffer.from([0x01, type, 0x00, flags]), fill(n - 6, 0));
  it('a data packet names the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43700, 1628, cli(pkt()))).toBe('CNP-IP (DPI)');
    expect(await run('udp', 43701, 1629, cli(pkt(21, 0x21, 0x02)), true)).toBe('CNP-IP (DPI)');
  });
  it('20 bytes, another type, flags 3: no CNP-IP', async () => {
    for (const p of [pkt(20), pkt(32, 0x02), pkt(32, 0x01, 0x03)]) expect(await run('udp', 43702, 1628, cli(p))).not.toBe('CNP-IP (DPI)');
  });
});

// ── HiSLIP (hislip.c): TCP, 16 bytes or more, "HS", type < 127 (nDPI's signed test), 64-bit length = rest.
describe('HiSLIP (hislip.c)', () => {
  const m = (type = 0, body = txt('hello')) => cat(txt('HS'), Buffer.from([type, 0]), u32(0x00010000), u32(0), u32(body.length), body);
  it('an Initialize, a type-126 message name the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 43800, 4880, cli(m(0)))).toBe('HiSLIP (DPI)');
    expect(await run('tcp', 43801, 4880, cli(m(126, Buffer.alloc(0))), true)).toBe('HiSLIP (DPI)');
  });
  it('type 127, a length off, two messages in one segment: no HiSLIP', async () => {
    expect(await run('tcp', 43802, 4880, cli(m(127)))).not.toBe('HiSLIP (DPI)');
    expect(await run('tcp', 43803, 4880, cli(cat(m(0), hex('00'))))).not.toBe('HiSLIP (DPI)');
    expect(await run('tcp', 43804, 4880, cli(cat(m(0), m(6))))).not.toBe('HiSLIP (DPI)');
  });
});

// ── RTPS (rtps.c): UDP, 16 bytes or more, "RTPS" / "RTPX", major 2, minor ≤ 5.
describe('RTPS (rtps.c)', () => {
  const hdr = (magic = 'RTPS', major = 2, minor = 3, n = 20) => cat(txt(magic), Buffer.from([major, minor]), hex('010f'), fill(n - 8, 0x0a));
  it('RTPS and RTPX headers name the flow, IPv4 and IPv6', async () => {
    expect(await run('udp', 43900, 7400, cli(hdr()))).toBe('RTPS (DPI)');
    expect(await run('udp', 43901, 7410, cli(hdr('RTPX', 2, 5, 16)), true)).toBe('RTPS (DPI)');
  });
  it('minor 6, major 3, 15 bytes: no RTPS', async () => {
    for (const p of [hdr('RTPS', 2, 6), hdr('RTPS', 3, 1), hdr('RTPS', 2, 3, 15)]) expect(await run('udp', 43902, 7400, cli(p))).not.toBe('RTPS (DPI)');
  });
});

// ── Kismet (kismet.c): TCP, the first payload opening "*KISMET: ".
describe('Kismet (kismet.c)', () => {
  it('the greeting names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 44000, 2501, srv(txt('*KISMET: 0.0.0 1700000000 \x01Kismet\x01 2023 0 \n')))).toBe('Kismet (DPI)');
    expect(await run('tcp', 44001, 2501, srv(txt('*KISMET: ')), true)).toBe('Kismet (DPI)');
  });
  it('no space, lower case, a later packet: no Kismet', async () => {
    expect(await run('tcp', 44002, 2501, srv(txt('*KISMET:0 1')))).not.toBe('Kismet (DPI)');
    expect(await run('tcp', 44003, 2501, srv(txt('*kismet: 0 1')))).not.toBe('Kismet (DPI)');
    expect(await run('tcp', 44004, 2501, alt(txt('!1 ENABLE\n'), txt('*KISMET: 0 1\n')))).not.toBe('Kismet (DPI)');
  });
});

// ── OpenFlow (openflow.c): TCP, 8 bytes or more, version 0x06, type < 36, length = size.
describe('OpenFlow (openflow.c)', () => {
  const m = (ver = 6, type = 0, n = 8) => cat(Buffer.from([ver, type]), u16(n), u32(1), fill(n - 8, 0));
  it('an OpenFlow 1.5 HELLO or FEATURES message names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 44100, 6653, cli(m()))).toBe('OpenFlow (DPI)');
    expect(await run('tcp', 6653, 44101, srv(m(6, 35, 32)), true)).toBe('OpenFlow (DPI)');
  });
  it('OpenFlow 1.3 (0x04), type 36, two messages in one segment: no OpenFlow', async () => {
    for (const p of [m(4), m(6, 36), cat(m(), m())]) expect(await run('tcp', 44102, 6653, cli(p))).not.toBe('OpenFlow (DPI)');
  });
});

// ── CPHA (cpha.c): IPv4 UDP 8116 → 8116 from 0.0.0.0, over 20 bytes opening 1a 90.
describe('CPHA (cpha.c)', () => {
  const ccp = (n = 28) => cat(hex('1a90 0002'), fill(n - 4, 0x01));
  it('a CCP packet from 0.0.0.0 names the flow', async () => {
    expect(nameOf(await flowAt('udp', '0.0.0.0', '10.0.0.255', 8116, 8116, cli(ccp())))).toBe('CPHA (DPI)');
  });
  it('from a real address, 20 bytes, another port, IPv6: no CPHA', async () => {
    expect(nameOf(await flowAt('udp', C4, '10.0.0.255', 8116, 8116, cli(ccp())))).not.toBe('CPHA (DPI)');
    expect(nameOf(await flowAt('udp', '0.0.0.0', '10.0.0.255', 8116, 8116, cli(ccp(20))))).not.toBe('CPHA (DPI)');
    expect(nameOf(await flowAt('udp', '0.0.0.0', '10.0.0.255', 8117, 8116, cli(ccp())))).not.toBe('CPHA (DPI)');
    expect(nameOf(await flowAt('udp', '::', 'ff02::1', 8116, 8116, cli(ccp())))).not.toBe('CPHA (DPI)');
  });
});

// ── Avast SecureDNS (avast_securedns.c): UDP, the first payload packet, 34 bytes or more, 00013209 at 11, "securedns" (any case) at 15.
describe('Avast SecureDNS (avast_securedns.c)', () => {
  const q = (label = 'securedns', n = 40) => { const b = cat(fill(11, 0x00), hex('00013209'), txt(label)); return cat(b, fill(n - b.length, 0x00)); };
  it('the query names the flow, any case, IPv4 and IPv6', async () => {
    expect(await run('udp', 44200, 9053, cli(q()))).toBe('AVASTSecureDNS (DPI)');
    expect(await run('udp', 44201, 443, cli(q('SecureDNS', 34)), true)).toBe('AVASTSecureDNS (DPI)');
  });
  it('33 bytes, another label, the second packet: no Avast SecureDNS', async () => {
    expect(await run('udp', 44202, 443, cli(q('securedns', 33)))).not.toBe('AVASTSecureDNS (DPI)');
    expect(await run('udp', 44203, 443, cli(q('securedms')))).not.toBe('AVASTSecureDNS (DPI)');
    expect(await run('udp', 44204, 443, cli(fill(40, 0x01), q()))).not.toBe('AVASTSecureDNS (DPI)');
  });
});

// ── Amazon Video (amazon_video.c): over 4 bytes, FEEDFACE first on TCP, DEADBEEF first on UDP.
describe('Amazon Video (amazon_video.c)', () => {
  it('each transport its magic, IPv4 and IPv6', async () => {
    expect(await run('tcp', 44300, 9000, cli(cat(hex('feedface'), fill(8))))).toBe('AmazonVideo (DPI)');
    expect(await run('udp', 44301, 9000, cli(cat(hex('deadbeef'), fill(8))), true)).toBe('AmazonVideo (DPI)');
  });
  it('the other transport\'s magic, 4 bytes alone, a later packet: no Amazon Video', async () => {
    expect(await run('tcp', 44302, 9000, cli(cat(hex('deadbeef'), fill(8))))).not.toBe('AmazonVideo (DPI)');
    expect(await run('udp', 44303, 9000, cli(cat(hex('feedface'), fill(8))))).not.toBe('AmazonVideo (DPI)');
    expect(await run('udp', 44304, 9000, cli(hex('deadbeef')))).not.toBe('AmazonVideo (DPI)');
    expect(await run('tcp', 44305, 9000, cli(fill(8), cat(hex('feedface'), fill(8))))).not.toBe('AmazonVideo (DPI)');
  });
});

// ── Nest Log Sink (nest_log_sink.c): TCP port 11095, 8 bytes or more; the third packet with byte 1 ≤ 2,
// byte 2 00/10 and byte 3 0x13 names the flow; other 8-byte packets are passed over.
describe('Nest Log Sink (nest_log_sink.c)', () => {
  const rec = (b1 = 1, b2 = 0x10) => cat(Buffer.from([0x00, b1, b2, 0x13]), fill(12, 0x42));
  it('three records, others between, name the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 44400, 11095, cli(rec(), rec(0, 0), rec(2)))).toBe('NestLogSink (DPI)');
    expect(await run('tcp', 44401, 11095, alt(rec(), fill(10), rec(), fill(10), rec()), true)).toBe('NestLogSink (DPI)');
  });
  it('two records, byte 1 at 3, a short packet, another port: no Nest Log Sink', async () => {
    expect(await run('tcp', 44402, 11095, cli(rec(), rec()))).not.toBe('NestLogSink (DPI)');
    expect(await run('tcp', 44403, 11095, cli(rec(), rec(3), rec()))).not.toBe('NestLogSink (DPI)');
    expect(await run('tcp', 44404, 11095, cli(rec(), fill(7), rec(), rec()))).not.toBe('NestLogSink (DPI)');
    expect(await run('tcp', 44405, 11096, cli(rec(), rec(), rec()))).not.toBe('NestLogSink (DPI)');
  });
});

// ── BFCP (bfcp.c): TCP or UDP, 12 bytes or more, version 1, the next bit clear, primitive 1..17; a second such
// packet of the first one's conference names the flow.
describe('BFCP (bfcp.c)', () => {
  const m = (conf = 0x01020304, prim = 1, b0 = 0x20) => cat(Buffer.from([b0, prim]), u16(2), u32(conf), u16(7), u16(9), fill(8, 0));
  it('two packets of one conference name the flow, UDP and TCP, IPv4 and IPv6', async () => {
    expect(await run('udp', 44500, 2000, alt(m(), m(0x01020304, 4)))).toBe('BFCP (DPI)');
    expect(await run('tcp', 44501, 2000, alt(m(77, 1), m(77, 17)), true)).toBe('BFCP (DPI)');
    expect(await run('tcp', 44509, 2000, cli(m(0xfedcba98), m(0xfedcba98, 2), m(0xfedcba98, 3)))).toBe('BFCP (DPI)');
  });
  it('another conference, one packet, version 2, primitive 18: no BFCP', async () => {
    expect(await run('udp', 44502, 2000, alt(m(1), m(2)))).not.toBe('BFCP (DPI)');
    expect(await run('udp', 44503, 2000, cli(m()))).not.toBe('BFCP (DPI)');
    expect(await run('udp', 44504, 2000, alt(m(1, 1, 0x40), m(1, 1, 0x40)))).not.toBe('BFCP (DPI)');
    expect(await run('udp', 44505, 2000, alt(m(1, 18), m(1, 18)))).not.toBe('BFCP (DPI)');
    // Conferences whose bytes are the same, reordered (a one-byte XOR fold would not tell them apart).
    expect(await run('tcp', 44506, 2000, alt(m(0x01020304), m(0x02010304)))).not.toBe('BFCP (DPI)');
    expect(await run('tcp', 44507, 2000, alt(m(0x01020304), m(0x04030201)), true)).not.toBe('BFCP (DPI)');
    expect(await run('udp', 44508, 2000, alt(m(0x01020304), m(0x02010304)))).not.toBe('BFCP (DPI)');
  });
});

// ── ATG (atg.c): TCP port 10001 on a side, 8 bytes or more, SOH, I/i/S/s, ending CRLF.
describe('ATG (atg.c)', () => {
  it('a command names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 44600, 10001, cli(txt('\x01I20100\r\n')))).toBe('ATG (DPI)');
    expect(await run('tcp', 44601, 10001, cli(txt('\x01s60200\r\n')), true)).toBe('ATG (DPI)');
  });
  it('another letter, no CRLF, 7 bytes, another port: no ATG', async () => {
    for (const p of [txt('\x01J20100\r\n'), txt('\x01I201000\n'), txt('\x01I201\r\n')]) expect(await run('tcp', 44602, 10001, cli(p))).not.toBe('ATG (DPI)');
    expect(await run('tcp', 44603, 10002, cli(txt('\x01I20100\r\n')))).not.toBe('ATG (DPI)');
  });
});
