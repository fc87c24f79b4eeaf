// One hand-built flow per case: the group-E dissectors of round 9 (H.323,
// IAX2, Cisco Skinny, Megaco, RTMP, RTPS, BFCP …) name their protocol by DPI
// under nDPI's conditions, and a near miss (one detail wrong) is not named
// that protocol by DPI (a guess by port may still name it).
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9e-');
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);

// ── H.323 ──────────────────────────────────────────────────────────────────
// TPKT (RFC 1006 §6): version 3, reserved 0, length of the whole packet (BE).
const tpkt = (body: Buffer, lenDelta = 0) => Buffer.concat([bytes(3, 0), u16(4 + body.length + lenDelta), body]);
// Q.931 (ITU-T Q.931 §4): protocol discriminator 0x08, call reference length
// and value (flag bit in the first byte), message type, then IEs.
const q931 = (msgType: number, callRef: Buffer, ies: Buffer, discriminator = 0x08) =>
  Buffer.concat([bytes(discriminator, callRef.length), callRef, bytes(msgType), ies]);
// Q.931 IEs: Bearer capability (0x04, speech, circuit mode, 64 kbit/s, G.711 µ-law),
// Display (0x28), then H.225.0's User-user IE (0x7e, 16-bit length, protocol 5).
const setupIes = Buffer.concat([bytes(0x04, 0x03, 0x80, 0x90, 0xa2), bytes(0x28, 0x05), txt('Alice'), bytes(0x7e, 0x00, 0x06, 0x05, 0x20, 0x80, 0x06, 0x00, 0x08)]);
const setup = tpkt(q931(0x05, bytes(0x00, 0x2a), setupIes));
const connect = tpkt(q931(0x07, bytes(0x80, 0x2a), Buffer.concat([bytes(0x28, 0x03), txt('Bob'), bytes(0x7e, 0x00, 0x06, 0x05, 0x22, 0xc0, 0x06, 0x00, 0x08)])));
// H.245 TerminalCapabilitySet, aligned PER (X.691): request choice, the
// message's preamble, sequenceNumber, then protocolIdentifier: OID length 6,
// 0.0.8.245.0.6 (00 08 81 75 00 06), then the capability table.
const h245Tcs = (oid = [0x00, 0x08, 0x81, 0x75, 0x00, 0x06]) =>
  tpkt(Buffer.concat([bytes(0x02, 0x70, 0x01, 0x06), bytes(...oid), bytes(0x01, 0x00, 0x01, 0x00, 0x03, 0x80, 0x01, 0x00)]));
// H.225.0 RAS RegistrationRequest, aligned PER: choice 6 and the message's
// preamble bits (bytes 0-1), requestSeqNum (2-3), protocolIdentifier OID
// length 6 (4), 0.0.8.2250.0.4 (00 08 91 4A 00 04), then the addresses.
const rasRrq = (oid = [0x00, 0x08, 0x91, 0x4a, 0x00, 0x04]) =>
  Buffer.concat([bytes(0x18, 0x80, 0x00, 0x2a, 0x06), bytes(...oid), bytes(0x01, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x06, 0xb8, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x06, 0xb7)]);

// ── IAX2 (RFC 5456 §8.1.1 full frame) ──────────────────────────────────────
// F + source call number, R + destination call number, timestamp, OSeqno,
// ISeqno, frame type, C + subclass, then IEs (§8.6: type, length, data).
const iaxFull = (oseq: number, iseq: number, type: number, subclass: number, ies: Buffer = Buffer.alloc(0), f = 0x8000) =>
  Buffer.concat([u16(f | 0x0123), u16(0x0000), u32(3), bytes(oseq, iseq, type, subclass), ies]);
const ie = (type: number, data: Buffer) => Buffer.concat([bytes(type, data.length), data]);
// NEW (subclass 1) with VERSION (0x0b) 2, CALLED NUMBER (0x01), USERNAME
// (0x06), FORMAT (0x09, µ-law 0x4).
const iaxNewIes = Buffer.concat([ie(0x0b, u16(2)), ie(0x01, txt('100')), ie(0x06, txt('alice')), ie(0x09, u32(4))]);

// ── Cisco Skinny (Wireshark packet-skinny.c) ───────────────────────────────
// data length (LE, from the message id on), header version (LE), message id (LE), data.
const skinny = (version: number, msgId: number, data: Buffer, lenDelta = 0) => Buffer.concat([le32(4 + data.length + lenDelta), le32(version), le32(msgId), data]);
// RegisterMessage 0x0001: device name (16), user id, instance, IP address,
// device type, max streams.
const register = Buffer.concat([txt('SEP001122334455\0'), le32(0), le32(1), bytes(10, 0, 0, 1), le32(30016), le32(5)]);

// ── RTMP (Adobe RTMP 1.0 §5.2) ─────────────────────────────────────────────
// C1 / S1: time (4), zero (4), 1528 random bytes.
const c1 = () => Buffer.concat([u32(0), u32(0), Buffer.alloc(1528, 0x5a)]);
const c0c1 = Buffer.concat([bytes(3), c1()]);
const s0s1 = Buffer.concat([bytes(3), c1()]);

// ── RTPS (DDSI-RTPS 2.5 §9.4.4.1) ──────────────────────────────────────────
// magic, protocol version major.minor, vendor id, GUID prefix (12), then an
// INFO_TS submessage (id 0x09, flags 0x01 little-endian, length 8, time).
const rtps = (magic = 'RTPS', major = 2, minor = 3, extra = true) =>
  Buffer.concat([txt(magic), bytes(major, minor, 0x01, 0x0f), Buffer.alloc(12, 0x11), extra ? Buffer.concat([bytes(0x09, 0x01, 0x08, 0x00), Buffer.alloc(8, 0x22)]) : Buffer.alloc(0)]);

// ── BFCP (RFC 4582 §5.1 / RFC 8855 §5.1) ───────────────────────────────────
// Ver(3) R(1) F(1) Res(3), Primitive, Payload Length (32-bit words), Conference
// ID, Transaction ID, User ID, then attributes (type(7) M(1), length, value).
const bfcp = (primitive: number, conf: number, attrs: Buffer, first = 0x20) =>
  Buffer.concat([bytes(first, primitive), u16(attrs.length / 4), u32(conf), u16(7), u16(2), attrs]);
// FLOOR-ID (type 2, M set: 0x05), length 4, floor 1.
const floorId = bytes(0x05, 0x04, 0x00, 0x01);
// REQUEST-STATUS (type 5, M: 0x0b), length 4, Pending (2), queue position 0.
const requestStatus = bytes(0x0b, 0x04, 0x02, 0x00);


// ── Icecast (icecast.org source protocol: SOURCE + ice-* headers) ──────────
const source = (extra: string) => txt(`SOURCE /live.ogg HTTP/1.0\r\nAuthorization: Basic c291cmNlOmhhY2ttZQ==\r\nContent-Type: application/ogg\r\n${extra}\r\n`);
const iceHeaders = 'ice-name: Radio E\r\nice-public: 1\r\n';
const okFrom = (server: string) => txt(`HTTP/1.0 200 OK\r\nServer: ${server}\r\nContent-Type: audio/mpeg\r\n\r\n`);

// ── Zattoo ─────────────────────────────────────────────────────────────────
const req = (line: string, headers: string[]) => txt(`${line}\r\n${['Host: tv.example.net', ...headers].join('\r\n')}\r\n\r\n`);
// A User-Agent value of exactly 111 bytes with "Zattoo/4" 25 bytes before its end.
const ua111 = (tag = 'Zattoo/4') =>
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) '.padEnd(86, 'x').slice(0, 86) +
  `${tag}.0.3 (Windows; x64)`.padEnd(25, '-').slice(0, 25);
const zattooUdp = (head: number[]) => Buffer.concat([bytes(...head), Buffer.alloc(24 - head.length, 0x11)]);

// ── EAQ probes: 16 bytes, the first four a decimal-digit sequence value ───
const eaqProbe = (seq: number, len = 16) => Buffer.concat([bytes(Math.floor(seq / 1000) % 10, Math.floor(seq / 100) % 10, Math.floor(seq / 10) % 10, seq % 10), Buffer.alloc(len - 4, 0x55)]);

// ── VHUA's signature ───────────────────────────────────────────────────────
const vhuaSig = bytes(0x05, 0x14, 0x3a, 0x05, 0x08, 0xf8, 0xa1, 0xb1, 0x03);

describe('dissectors 9 (group E)', () => {
  it('H.323 over TCP: Q.931 (H.225.0 call signalling) or H.245 in TPKT, first packet, any port', async () => {
    expect(await classify('tcp', 40100, 1720, [setup, connect])).toBe('H323 (DPI)');
    // the callee's answer seen first (capture starting late) decides as well
    expect(await classify('tcp', 40101, 1720, [connect], [false])).toBe('H323 (DPI)');
    // H.245 on its dynamic port
    expect(await classify('tcp', 40102, 11002, [h245Tcs()])).toBe('H323 (DPI)');
    // a call reference of 0 bytes (dummy) and of 3 bytes still pass
    expect(await classify('tcp', 40103, 30000, [tpkt(q931(0x05, Buffer.alloc(0), setupIes))])).toBe('H323 (DPI)');
    expect(await classify('tcp', 40104, 1720, [tpkt(q931(0x05, bytes(0, 0, 1), setupIes))])).toBe('H323 (DPI)');
    expect(await classify('tcp', 40105, 1720, [setup, connect], undefined, v6)).toBe('H323 (DPI)');
  });

  it('H.323 RAS over UDP port 1719', async () => {
    expect(await classify('udp', 1719, 1719, [rasRrq()])).toBe('H323 (DPI)');
    expect(await classify('udp', 40110, 1719, [rasRrq()], undefined, v6)).toBe('H323 (DPI)');
  });

  it('H.323 near misses', async () => {
    // TPKT length one off
    expect(await classify('tcp', 40120, 1720, [tpkt(q931(0x05, bytes(0x00, 0x2a), setupIes), 1)])).not.toBe('H323 (DPI)');
    // TPKT version 2
    const v2 = Buffer.from(setup);
    v2[0] = 2;
    expect(await classify('tcp', 40121, 1720, [v2])).not.toBe('H323 (DPI)');
    // Q.931 discriminator not 0x08
    expect(await classify('tcp', 40122, 1720, [tpkt(q931(0x05, bytes(0x00, 0x2a), setupIes, 0x09))])).not.toBe('H323 (DPI)');
    // call reference length 4
    expect(await classify('tcp', 40123, 1720, [tpkt(q931(0x05, bytes(0, 0, 0, 1), setupIes))])).not.toBe('H323 (DPI)');
    // 20 bytes in all: too short
    expect(await classify('tcp', 40124, 1720, [tpkt(q931(0x05, bytes(0x00, 0x2a), bytes(0x04, 0x03, 0x80, 0x90, 0xa2, 0x28, 0x04, 0x41, 0x42, 0x43, 0x44)))])).not.toBe('H323 (DPI)');
    // H.245 with another OID (H.225.0's) at byte 8
    expect(await classify('tcp', 40125, 11002, [h245Tcs([0x00, 0x08, 0x91, 0x4a, 0x00, 0x06])])).not.toBe('H323 (DPI)');
    // the first packet decides: a Q.931 SETUP after another packet is too late
    expect(await classify('tcp', 40126, 1720, [txt('hello there, not a TPKT\r\n'), setup], [true, true])).not.toBe('H323 (DPI)');
    // RAS away from port 1719
    expect(await classify('udp', 40127, 1718, [rasRrq()])).not.toBe('H323 (DPI)');
    // RAS with H.245's OID
    expect(await classify('udp', 40128, 1719, [rasRrq([0x00, 0x08, 0x81, 0x75, 0x00, 0x04])])).not.toBe('H323 (DPI)');
  });

  it('IAX2 over UDP port 4569: a call-opening full frame, alone or with IEs filling the datagram', async () => {
    expect(await classify('udp', 4569, 4569, [iaxFull(0, 0, 0x06, 0x01, iaxNewIes)])).toBe('IAX (DPI)');
    // ACK (subclass 4) alone, 12 bytes, ISeqno 1
    expect(await classify('udp', 40130, 4569, [iaxFull(0, 1, 0x06, 0x04)])).toBe('IAX (DPI)');
    // REGREQ (13) with USERNAME and REFRESH (0x13)
    expect(await classify('udp', 40131, 4569, [iaxFull(0, 0, 0x06, 0x0d, Buffer.concat([ie(0x06, txt('bob')), ie(0x13, u16(60))]))])).toBe('IAX (DPI)');
    // a retransmitted frame (R bit in the destination call number) still counts
    const retx = iaxFull(0, 0, 0x06, 0x01, iaxNewIes);
    retx[2] = 0x80;
    expect(await classify('udp', 40132, 4569, [retx], undefined, v6)).toBe('IAX (DPI)');
  });

  it('IAX2 near misses', async () => {
    expect(await classify('udp', 40140, 4570, [iaxFull(0, 0, 0x06, 0x01, iaxNewIes)])).not.toBe('IAX (DPI)');
    // mini frame (F bit clear)
    expect(await classify('udp', 40141, 4569, [iaxFull(0, 0, 0x06, 0x01, iaxNewIes, 0)])).not.toBe('IAX (DPI)');
    // OSeqno 1, ISeqno 2
    expect(await classify('udp', 40142, 4569, [iaxFull(1, 0, 0x06, 0x01, iaxNewIes)])).not.toBe('IAX (DPI)');
    expect(await classify('udp', 40143, 4569, [iaxFull(0, 2, 0x06, 0x01, iaxNewIes)])).not.toBe('IAX (DPI)');
    // a voice frame (type 2) and POKE (subclass 0x1e)
    expect(await classify('udp', 40144, 4569, [iaxFull(0, 0, 0x02, 0x04)])).not.toBe('IAX (DPI)');
    expect(await classify('udp', 40145, 4569, [iaxFull(0, 0, 0x06, 0x1e)])).not.toBe('IAX (DPI)');
    // IEs one byte short of the datagram
    expect(await classify('udp', 40146, 4569, [iaxFull(0, 0, 0x06, 0x01, Buffer.concat([iaxNewIes, bytes(0)]))])).not.toBe('IAX (DPI)');
    // 16 IEs: nDPI walks 15 at most
    const many = Buffer.concat(Array.from({ length: 16 }, () => ie(0x06, txt('x'))));
    expect(await classify('udp', 40147, 4569, [iaxFull(0, 0, 0x06, 0x01, many)])).not.toBe('IAX (DPI)');
  });

  it('Cisco Skinny over TCP port 2000: length, header version and message id', async () => {
    expect(await classify('tcp', 40150, 2000, [skinny(0, 0x0001, register)])).toBe('CiscoSkinny (DPI)');
    // KeepAliveMessage (0x0000), no data: 12 bytes
    expect(await classify('tcp', 40151, 2000, [skinny(0, 0x0000, Buffer.alloc(0))])).toBe('CiscoSkinny (DPI)');
    // the CallManager's RegisterAckMessage (0x0081), CM header version 22 (0x16)
    expect(await classify('tcp', 40152, 2000, [skinny(0x16, 0x0081, Buffer.concat([le32(30), txt('M/D/Y\0'), bytes(0, 0), le32(60)]))], [false])).toBe('CiscoSkinny (DPI)');
    // a message id of the 0x100..0x160 range (0x0143), header version 17 (0x11), the port on the client side
    expect(await classify('tcp', 2000, 40153, [skinny(0x11, 0x0143, le32(5))], undefined, v6)).toBe('CiscoSkinny (DPI)');
  });

  it('Cisco Skinny near misses', async () => {
    expect(await classify('tcp', 40160, 2001, [skinny(0, 0x0001, register)])).not.toBe('CiscoSkinny (DPI)');
    expect(await classify('tcp', 40161, 2000, [skinny(0, 0x0001, register, 1)])).not.toBe('CiscoSkinny (DPI)');
    expect(await classify('tcp', 40162, 2000, [skinny(0x05, 0x0001, register)])).not.toBe('CiscoSkinny (DPI)');
    expect(await classify('tcp', 40163, 2000, [skinny(0, 0x0200, register)])).not.toBe('CiscoSkinny (DPI)');
    expect(await classify('udp', 40164, 2000, [skinny(0, 0x0001, register)])).not.toBe('CiscoSkinny (DPI)');
  });

  it('Megaco text over UDP (H.248.1 Annex B, RFC 3525 examples), any port', async () => {
    const long = 'MEGACO/1 [124.124.124.222]:55555\nTransaction = 9998 {\n  Context = - {\n    ServiceChange = ROOT {Services {Method=Restart}}}}\n';
    expect(await classify('udp', 55555, 2944, [txt(long)])).toBe('Megaco (DPI)');
    expect(await classify('udp', 40170, 2944, [txt('!/1 [124.124.124.222] T=9998{C=-{SC=ROOT{SV{MT=RS}}}}')])).toBe('Megaco (DPI)');
    expect(await classify('udp', 40171, 33000, [txt('!/1 <mgc.example.net> P=9998{C=-{SC=ROOT{SV{AD=2944}}}}')], undefined, v6)).toBe('Megaco (DPI)');
  });

  it('Megaco near misses', async () => {
    // the long form with a domain name is not among nDPI's forms
    expect(await classify('udp', 40180, 2944, [txt('MEGACO/1 <mgc.example.net>\nTransaction = 1 {}')])).not.toBe('Megaco (DPI)');
    expect(await classify('udp', 40181, 2944, [txt('MEGACO/2 [10.0.0.1]:2944\nT=1{}')])).not.toBe('Megaco (DPI)');
    expect(await classify('udp', 40182, 2944, [txt('megaco/1 [10.0.0.1]:2944\nT=1{}')])).not.toBe('Megaco (DPI)');
    expect(await classify('udp', 40183, 2944, [txt('!/1 mgc T=1{}')])).not.toBe('Megaco (DPI)');
    // over TCP (H.248 allows it) nDPI does not look
    expect(await classify('tcp', 40184, 2944, [txt('!/1 [10.0.0.1] T=1{C=-{SC=ROOT{SV{MT=RS}}}}')])).not.toBe('Megaco (DPI)');
  });

  it('RTMP: C0+C1 of exactly 1537 bytes, in one or more segments, then S0 from the server', async () => {
    expect(await classify('tcp', 40190, 1935, [c0c1, s0s1])).toBe('RTMP (DPI)');
    // segmented by an MSS of 1460, on a port that is not RTMP's
    expect(await classify('tcp', 40191, 8935, [c0c1.subarray(0, 1460), c0c1.subarray(1460), s0s1], [true, true, false])).toBe('RTMP (DPI)');
    // C0 written on its own, then C1
    expect(await classify('tcp', 40192, 1935, [c0c1.subarray(0, 1), c0c1.subarray(1), s0s1], [true, true, false], v6)).toBe('RTMP (DPI)');
  });

  it('RTMP near misses', async () => {
    // C1 one byte short
    expect(await classify('tcp', 40200, 1935, [c0c1.subarray(0, 1536), s0s1])).not.toBe('RTMP (DPI)');
    // RTMPE's C0 (6)
    const e0 = Buffer.from(c0c1);
    e0[0] = 6;
    expect(await classify('tcp', 40201, 1935, [e0, s0s1])).not.toBe('RTMP (DPI)');
    // the server's answer does not start with 3
    const bad = Buffer.from(s0s1);
    bad[0] = 0;
    expect(await classify('tcp', 40202, 1935, [c0c1, bad])).not.toBe('RTMP (DPI)');
    // S0 after C0 alone (1 byte) or 1281 bytes: totals 1537 modulo 256
    expect(await classify('tcp', 40203, 1935, [c0c1.subarray(0, 1), s0s1])).not.toBe('RTMP (DPI)');
    expect(await classify('tcp', 40204, 1935, [c0c1.subarray(0, 1281), s0s1])).not.toBe('RTMP (DPI)');
    // C0+C1 plus one byte more
    expect(await classify('tcp', 40205, 1935, [Buffer.concat([c0c1, bytes(0)]), s0s1])).not.toBe('RTMP (DPI)');
  });

  it('RTPS over UDP: "RTPS"/"RTPX", version 2.0 to 2.5, any port', async () => {
    expect(await classify('udp', 40210, 7400, [rtps()])).toBe('RTPS (DPI)');
    expect(await classify('udp', 40211, 7410, [rtps('RTPX', 2, 5)])).toBe('RTPS (DPI)');
    expect(await classify('udp', 40212, 50000, [rtps('RTPS', 2, 0, false).subarray(0, 16)], undefined, v6)).toBe('RTPS (DPI)');
  });

  it('RTPS near misses', async () => {
    expect(await classify('udp', 40220, 7400, [rtps('RTPS', 1, 0)])).not.toBe('RTPS (DPI)');
    expect(await classify('udp', 40221, 7400, [rtps('RTPS', 2, 6)])).not.toBe('RTPS (DPI)');
    expect(await classify('udp', 40222, 7400, [rtps('RTPZ')])).not.toBe('RTPS (DPI)');
    expect(await classify('udp', 40223, 7400, [rtps('RTPS', 2, 3, false).subarray(0, 15)])).not.toBe('RTPS (DPI)');
    expect(await classify('tcp', 40224, 7400, [rtps()])).not.toBe('RTPS (DPI)');
  });

  it('BFCP over TCP and UDP: two packets of the same conference', async () => {
    // FloorRequest (1), then FloorRequestStatus (4)
    const req = bfcp(1, 0x1234, floorId), status = bfcp(4, 0x1234, Buffer.concat([floorId, requestStatus]));
    expect(await classify('tcp', 40230, 5070, [req, status])).toBe('BFCP (DPI)');
    expect(await classify('udp', 40231, 5070, [req, status])).toBe('BFCP (DPI)');
    expect(await classify('udp', 40232, 40000, [req, status], undefined, v6)).toBe('BFCP (DPI)');
    // Hello (11) and HelloAck (12), one way then the other; FloorRelease (2)
    expect(await classify('tcp', 40233, 5070, [bfcp(11, 7, Buffer.alloc(0)), bfcp(12, 7, Buffer.alloc(0))], undefined, v6)).toBe('BFCP (DPI)');
    expect(await classify('udp', 40234, 5070, [bfcp(2, 9, floorId), bfcp(2, 9, floorId)], [true, true])).toBe('BFCP (DPI)');
  });

  it('BFCP near misses', async () => {
    const req = bfcp(1, 0x1234, floorId);
    expect(await classify('tcp', 40240, 5070, [req, bfcp(4, 0x1235, Buffer.concat([floorId, requestStatus]))])).not.toBe('BFCP (DPI)');
    expect(await classify('udp', 40241, 5070, [req])).not.toBe('BFCP (DPI)');
    // version 2 (RFC 8855 over UDP), the F bit set, primitive 18
    expect(await classify('udp', 40242, 5070, [bfcp(1, 5, floorId, 0x40), bfcp(4, 5, floorId, 0x40)])).not.toBe('BFCP (DPI)');
    expect(await classify('udp', 40243, 5070, [bfcp(1, 5, floorId, 0x28), bfcp(4, 5, floorId, 0x28)])).not.toBe('BFCP (DPI)');
    expect(await classify('udp', 40244, 5070, [bfcp(18, 5, floorId), bfcp(18, 5, floorId)])).not.toBe('BFCP (DPI)');
    // a packet that is not BFCP in between rules the flow out
    expect(await classify('udp', 40245, 5070, [req, txt('0123456789abcdef'), bfcp(4, 0x1234, floorId)])).not.toBe('BFCP (DPI)');
  });
  it('Amazon Video: FE ED FA CE over TCP, DE AD BE EF over UDP, first packet, any port', async () => {
    expect(await classify('tcp', 40250, 443, [Buffer.concat([u32(0xfeedface), u32(1), u32(64)])])).toBe('AmazonVideo (DPI)');
    expect(await classify('udp', 40251, 3000, [Buffer.concat([u32(0xdeadbeef), u32(7)])])).toBe('AmazonVideo (DPI)');
    expect(await classify('udp', 40252, 3000, [Buffer.concat([u32(0xdeadbeef), bytes(0)])], undefined, v6)).toBe('AmazonVideo (DPI)');
  });

  it('Amazon Video near misses', async () => {
    expect(await classify('udp', 40260, 3000, [Buffer.concat([u32(0xfeedface), u32(1)])])).not.toBe('AmazonVideo (DPI)');
    expect(await classify('tcp', 40261, 3000, [Buffer.concat([u32(0xdeadbeef), u32(1)])])).not.toBe('AmazonVideo (DPI)');
    expect(await classify('tcp', 40262, 3000, [u32(0xfeedface)])).not.toBe('AmazonVideo (DPI)');
    expect(await classify('udp', 40263, 3000, [txt('hello world'), Buffer.concat([u32(0xdeadbeef), u32(7)])], [true, true])).not.toBe('AmazonVideo (DPI)');
  });

  it('VHUA: its 9-byte signature within the first three datagrams', async () => {
    expect(await classify('udp', 40270, 58267, [Buffer.concat([vhuaSig, bytes(1, 2, 3)])])).toBe('VHUA (DPI)');
    expect(await classify('udp', 40271, 40000, [txt('0123456789'), txt('abcdefghij'), vhuaSig], [true, false, true], v6)).toBe('VHUA (DPI)');
  });

  it('VHUA near misses', async () => {
    expect(await classify('udp', 40280, 58267, [txt('0123456789'), txt('abcdefghij'), txt('klmnopqrst'), vhuaSig], [true, false, true, false])).not.toBe('VHUA (DPI)');
    expect(await classify('udp', 40281, 58267, [txt('short'), vhuaSig])).not.toBe('VHUA (DPI)');
    const bad = Buffer.from(vhuaSig);
    bad[8] = 0x04;
    expect(await classify('udp', 40282, 58267, [bad])).not.toBe('VHUA (DPI)');
  });

  it('EAQ: four 16-byte probes on UDP port 6000', async () => {
    expect(await classify('udp', 40290, 6000, [eaqProbe(1), eaqProbe(1), eaqProbe(2), eaqProbe(2)])).toBe('EAQ (DPI)');
    expect(await classify('udp', 6000, 40291, [eaqProbe(10), eaqProbe(11), eaqProbe(12), eaqProbe(13)], [true, true, true, true], v6)).toBe('EAQ (DPI)');
  });

  it('EAQ near misses', async () => {
    expect(await classify('udp', 40300, 6001, [eaqProbe(1), eaqProbe(1), eaqProbe(2), eaqProbe(2)])).not.toBe('EAQ (DPI)');
    expect(await classify('udp', 40301, 6000, [eaqProbe(1), eaqProbe(1), eaqProbe(2, 17), eaqProbe(2)])).not.toBe('EAQ (DPI)');
    expect(await classify('udp', 40302, 6000, [eaqProbe(1), eaqProbe(1), eaqProbe(2)])).not.toBe('EAQ (DPI)');
  });

  it('Icecast: a SOURCE request with ice- headers, or the server naming itself', async () => {
    expect(await classify('tcp', 40310, 8000, [source(iceHeaders), okFrom('Icecast 2.4.4')])).toBe('IceCast (DPI)');
    // ICE/1.0 source (no ice- lines), then the server's Server header
    expect(await classify('tcp', 40311, 8000, [source('x-audiocast-name: Radio E\r\n'), okFrom('Icecast 2.4.4')])).toBe('IceCast (DPI)');
    // the client sends more first; header name in another case, spaces around the value
    expect(await classify('tcp', 40312, 8001, [source(''), txt('OggS....'), txt('HTTP/1.0 200 OK\r\nserver:   Icecast/2.3  \r\n\r\n')], [true, true, false], v6)).toBe('IceCast (DPI)');
  });

  it('Icecast near misses', async () => {
    // Server "Icecast" with nothing after it, or in another case
    expect(await classify('tcp', 40320, 8000, [source(''), okFrom('Icecast')])).not.toBe('IceCast (DPI)');
    expect(await classify('tcp', 40321, 8000, [source(''), okFrom('icecast 2.4.4')])).not.toBe('IceCast (DPI)');
    // SOURCE of 500 bytes or more: its ice- lines are not read
    const big = source(iceHeaders + `x-pad: ${'p'.repeat(450)}\r\n`);
    expect(big.length).toBeGreaterThanOrEqual(500);
    expect(await classify('tcp', 40322, 8000, [big, okFrom('nginx')])).not.toBe('IceCast (DPI)');
    // an ice- line without its line end counts (audit 17: nDPI's Icecast
    // reads the CRLF split RTSP made of the packet, with its last open line)
    expect(await classify('tcp', 40323, 8000, [txt('SOURCE /live.ogg HTTP/1.0\r\nice-name: Radio E'), okFrom('nginx')])).toBe('IceCast (DPI)');
    // "ice-" alone (4 bytes) is no header
    expect(await classify('tcp', 40324, 8000, [source('ice-\r\n'), okFrom('nginx')])).not.toBe('IceCast (DPI)');
  });

  it('Zattoo: HTTP requests to its services, the binary stream, UDP port 5003', async () => {
    expect(await classify('tcp', 40330, 80, [req('GET /frontdoor/fd?brand=Zattoo&v=1.5.3&os=windows HTTP/1.1', [])])).toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40331, 80, [req('GET /ZattooAdRedirect/redirect.jsp?user=12345 HTTP/1.1', [])])).toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40332, 80, [req('POST /channelserver/player/channel/update HTTP/1.1', ['User-Agent: Zattoo 4.0.5'])])).toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40333, 80, [req('GET /epg/query?channel=sf1 HTTP/1.1', ['User-Agent: Zattoo 4.0.5'])], undefined, v6)).toBe('Zattoo (DPI)');
    expect(ua111().length).toBe(111);
    expect(await classify('tcp', 40334, 8080, [req('GET /watch/ard HTTP/1.1', [`User-Agent: ${ua111()}`])])).toBe('Zattoo (DPI)');
    const open = Buffer.concat([bytes(0x03, 0x04, 0x00, 0x04, 0x0a, 0x00), Buffer.alloc(60, 1)]);
    const answer = Buffer.concat([bytes(0x03, 0x04), Buffer.alloc(60, 2)]);
    expect(await classify('tcp', 40335, 5002, [open, answer])).toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40336, 5002, [open, Buffer.concat([bytes(0, 0), Buffer.alloc(600, 3)]), answer], [true, true, false])).toBe('Zattoo (DPI)');
    expect(await classify('udp', 40337, 5003, [zattooUdp([0x03, 0x7a]), zattooUdp([0x03, 0x05])])).toBe('Zattoo (DPI)');
    expect(await classify('udp', 5003, 40338, [zattooUdp([0x03, 0x04, 0x00, 0x04]), zattooUdp([0x03, 0x01, 0x00, 0x05])], undefined, v6)).toBe('Zattoo (DPI)');
  });

  it('Zattoo near misses', async () => {
    expect(await classify('tcp', 40340, 80, [req('GET /frontdoor/fd?brand=Other&v=1.5.3&os=windows HTTP/1.1', [])])).not.toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40341, 80, [req('GET /epg/query?channel=sf1 HTTP/1.1', ['User-Agent: Mozilla/5.0'])])).not.toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40342, 80, [req('GET /watch/ard HTTP/1.1', [`User-Agent: ${ua111()}x`])])).not.toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40343, 80, [req('GET /watch/ard HTTP/1.1', [`User-Agent: ${ua111('Zattoo/3')}`])])).not.toBe('Zattoo (DPI)');
    const open = Buffer.concat([bytes(0x03, 0x04, 0x00, 0x04, 0x0a, 0x00), Buffer.alloc(60, 1)]);
    expect(await classify('tcp', 40344, 5002, [open, Buffer.concat([bytes(0x03, 0x05), Buffer.alloc(60, 2)])])).not.toBe('Zattoo (DPI)');
    expect(await classify('tcp', 40345, 5002, [open, Buffer.concat([bytes(0x03, 0x04), Buffer.alloc(40, 2)])])).not.toBe('Zattoo (DPI)');
    expect(await classify('udp', 40346, 5004, [zattooUdp([0x03, 0x7a]), zattooUdp([0x03, 0x05])])).not.toBe('Zattoo (DPI)');
    expect(await classify('udp', 40347, 5003, [zattooUdp([0x03, 0x7a])])).not.toBe('Zattoo (DPI)');
    expect(await classify('udp', 40348, 5003, [zattooUdp([0x03, 0x7a]), zattooUdp([0x03, 0x06])])).not.toBe('Zattoo (DPI)');
  });

  it('MPEG-DASH: HTTP.MpegDash from the packet that named the flow HTTP', async () => {
    expect(await classify('tcp', 40350, 80, [req('GET /vod/seg-00042.m4s HTTP/1.1', [])])).toBe('HTTP.MpegDash (DPI)');
    expect(await classify('tcp', 40351, 80, [req('GET /vod/init.mp4 HTTP/1.1', [])], undefined, v6)).toBe('HTTP.MpegDash (DPI)');
    // a header line starting "DASH"; a request line ending "RTSP/1.0" matches
    // RTSP too, asked after MPEG-DASH: nDPI keeps the last match (audit 23)
    expect(await classify('tcp', 40352, 8080, [req('GET /vod/manifest HTTP/1.1', ['DASH-Version: 1'])])).toBe('HTTP.MpegDash (DPI)');
    expect(await classify('tcp', 40353, 80, [req('GET /vod/stream RTSP/1.0', [])])).toBe('HTTP.RTSP (DPI)');
    // a response seen first, its Content-Type video/mp4
    expect(await classify('tcp', 40354, 80, [txt('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 10\r\n\r\n')], [false])).toBe('HTTP.MpegDash (DPI)');
  });

  it('MPEG-DASH near misses', async () => {
    expect(await classify('tcp', 40360, 80, [req('GET /vod/seg-00042.m4s HTTP/1.0', [])])).not.toBe('HTTP.MpegDash (DPI)');
    expect(await classify('tcp', 40361, 80, [req('GET /vod/manifest HTTP/1.1', ['dash-version: 1'])])).not.toBe('HTTP.MpegDash (DPI)');
    // the "DASH" line after the blank line (in the body) does not count
    expect(await classify('tcp', 40362, 80, [txt('POST /vod HTTP/1.1\r\nHost: tv.example.net\r\n\r\nDASH-Version: 1\r\n')])).not.toBe('HTTP.MpegDash (DPI)');
    // a video/mp4 answer to a request already named HTTP
    expect(await classify('tcp', 40363, 80, [req('GET /vod/a HTTP/1.1', []), txt('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n')])).not.toBe('HTTP.MpegDash (DPI)');
  });
});
