// Audit 7: STUN and RTP/RTCP against nDPI 4.11 (stun.c, rtp.c). Every
// message is built byte by byte from the RFCs: STUN header RFC 5389 §6 /
// 8489 §5 (type, length, magic cookie 0x2112A442, 96-bit transaction id),
// classic STUN RFC 3489 §11.1 (no cookie), TURN RFC 8656 (methods §17,
// ChannelData §12.4), RFC 4571 framing over TCP, RTP RFC 3550 §5.1, RTCP
// §6.4, DTLS records RFC 6347 §4.1, first-byte demultiplexing RFC 7983.
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-7-');
const v6 = { v6: true };
const b = (...x: number[]) => Buffer.from(x);
const fill = (n: number, v: number) => Buffer.alloc(n, v);
const tid = fill(12, 0x07);

// STUN message: type, length of the attributes, cookie (or a classic
// transaction-id word), transaction id, attributes.
const msg = (type: number, attrs: Buffer = Buffer.alloc(0), cookie = 0x2112a442) =>
  Buffer.concat([u16(type), u16(attrs.length), u32(cookie), tid, attrs]);
// An attribute: type, length, value padded to 4 bytes.
const attr = (type: number, value: Buffer) =>
  Buffer.concat([u16(type), u16(value.length), value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
const realm = (s: string) => attr(0x0014, txt(s));
const software = attr(0x8022, txt('test'));
// RTP (RFC 3550 §5.1): V=2, CC, payload type, sequence, timestamp, SSRC, payload.
const rtp = (seq: number, pt = 96, first = 0x80, body = 160) =>
  Buffer.concat([b(first, pt), u16(seq), u32(seq * 160), u32(0x11223344), fill(body, 0x55)]);
// DTLS 1.2 handshake record (RFC 6347 §4.1) carrying a ClientHello fragment header.
const dtls = () => {
  const body = Buffer.concat([b(1), b(0, 0, 20), u16(0), b(0, 0, 0), b(0, 0, 20), b(0xfe, 0xfd), fill(18, 0x21)]);
  return Buffer.concat([b(22, 0xfe, 0xfd), u16(0), b(0, 0, 0, 0, 0, 0), u16(body.length), body]);
};
// A datagram of none of RFC 7983's kinds: first byte in the 4–15 range.
const other = fill(40, 0x05);
const req = msg(0x0001, software);
const ans = msg(0x0101, software);

describe('STUN header as nDPI reads it', () => {
  it('a lone Binding request is STUN at once, on any port, IPv4 and IPv6; type 0 is not', async () => {
    expect(await classify('udp', 40001, 50001, [req])).toBe('STUN (DPI)');
    expect(await classify('udp', 40002, 50002, [req], undefined, v6)).toBe('STUN (DPI)');
    expect(await classify('udp', 40003, 50003, [msg(0x0000, software)])).not.toMatch(/STUN/);
  });

  it('methods up to 0x00B (and classes) with the cookie, WhatsApp 0x0800; not method 0x00D', async () => {
    // 0x011b: Connection Bind (RFC 6062, method 0x00B) as an error response
    expect(await classify('udp', 40010, 50010, [msg(0x011b, software)])).toBe('STUN (DPI)');
    expect(await classify('udp', 40011, 50011, [msg(0x0800, software)], undefined, v6)).toBe('STUN.WhatsAppCall (DPI)');
    // nDPI masks the two top bits away: 0xc001 reads as a Binding request
    expect(await classify('udp', 40012, 50012, [msg(0xc001, software)])).toBe('STUN (DPI)');
    expect(await classify('udp', 40013, 50013, [msg(0x000d, software)])).not.toMatch(/STUN/);
    // even RFC 6062's Connection Attempt (0x00C) is past nDPI's bound
    expect(await classify('udp', 40014, 50014, [msg(0x000c, software)], undefined, v6)).not.toMatch(/STUN/);
  });

  it('classic STUN (no cookie): RFC 3489 types incl. 0x0115 whose attributes fit; not 0x0016', async () => {
    const mapped = attr(0x0001, Buffer.concat([b(0, 1), u16(5000), b(192, 0, 2, 1)]));
    expect(await classify('udp', 40020, 50020, [msg(0x0115, mapped, 0x01020304)])).toBe('STUN (DPI)');
    expect(await classify('udp', 40021, 50021, [msg(0x0016, mapped, 0x01020304)])).not.toMatch(/STUN/);
  });

  it('TCP: RFC 4571 length prefix and the first of several messages; never classic over TCP', async () => {
    const framed = Buffer.concat([u16(req.length), req]);
    expect(await classify('tcp', 40030, 50030, [framed])).toBe('STUN (DPI)');
    expect(await classify('tcp', 40031, 50031, [Buffer.concat([req, ans])], undefined, v6)).toBe('STUN (DPI)');
    // the same two messages in one datagram: the length no longer matches
    expect(await classify('udp', 40032, 50032, [Buffer.concat([req, ans])])).not.toMatch(/STUN/);
    expect(await classify('tcp', 40033, 50033, [msg(0x0001, software, 0x01020304)])).not.toMatch(/STUN/);
  });

  it('MS-TURN multiplexed header (0xFF10, length, 8 bytes) before the message; its length must fit', async () => {
    const wrap = (extra: number) => Buffer.concat([u16(0xff10), u16(req.length + 8 + extra), fill(8, 0x09), req]);
    expect(await classify('udp', 40040, 50040, [wrap(0)])).toBe('STUN (DPI)');
    expect(await classify('udp', 40041, 50041, [wrap(4)])).not.toMatch(/STUN/);
  });

  it('the legacy "RSP/x.y STUN_" text; not without the marker', async () => {
    expect(await classify('udp', 40050, 50050, [txt('RSP/1.0 STUN_BINDING 200 OK\r\n')])).toBe('STUN (DPI)');
    expect(await classify('udp', 40051, 50051, [txt('RSP/1.0 SPAM_BINDING 200 OK\r\n')])).not.toMatch(/STUN/);
  });

  it('looked for on the first six packets; not on the seventh', async () => {
    expect(await classify('udp', 40060, 50060, [other, other, other, other, other, req], [true, true, true, true, true, true])).toBe('STUN (DPI)');
    expect(await classify('udp', 40061, 50061, [other, other, other, other, other, other, req], Array(7).fill(true))).not.toMatch(/STUN/);
  });
});

describe('STUN attributes', () => {
  const wa = attr(0x4000, b(1, 2, 3, 4));
  it('a later attribute overrides an earlier one; the realm is lower-cased', async () => {
    expect(await classify('udp', 40100, 50100, [msg(0x0001, Buffer.concat([wa, realm('turn.GOOGLE.com')]))])).toBe('STUN.GoogleCall (DPI)');
    expect(await classify('udp', 40101, 50101, [msg(0x0001, Buffer.concat([wa, realm('turn.GOOGLE.com')]))], undefined, v6)).toBe('STUN.GoogleCall (DPI)');
  });
  it('a realm with a non-printable byte is junk and names nothing', async () => {
    expect(await classify('udp', 40102, 50102, [msg(0x0001, Buffer.concat([wa, realm('google.com\x01')]))])).toBe('STUN.WhatsAppCall (DPI)');
  });
  it('only the flow\'s first realm counts', async () => {
    const first = msg(0x0001, realm('example.org'));
    const second = msg(0x0101, realm('signal.org'));
    expect(await classify('udp', 40103, 50103, [msg(0x0001, realm('signal.org'))])).toBe('STUN.SignalVoip (DPI)');
    expect(await classify('udp', 40104, 50104, [first, second])).toBe('STUN (DPI)');
  });
});

describe('STUN flows read on after the match (RFC 7983)', () => {
  const wa = msg(0x0001, attr(0x4000, b(1, 2, 3, 4)));
  const zoom = msg(0x0001, attr(0x0101, b(1, 2, 3, 4)));
  it('Zoom is not read on (RTP leaves it STUN.Zoom); WhatsApp is (SRTP.WhatsAppCall)', async () => {
    expect(await classify('udp', 40200, 50200, [zoom, ans, rtp(1)])).toBe('STUN.Zoom (DPI)');
    expect(await classify('udp', 40201, 50201, [wa, ans, rtp(1)])).toBe('SRTP.WhatsAppCall (DPI)');
  });
  it('RTP after DTLS is DTLS.SRTP; DTLS after STUN.RTP is DTLS.SRTP too; RTCP does neither', async () => {
    expect(await classify('udp', 40210, 50210, [req, ans, dtls(), rtp(1)])).toBe('DTLS.SRTP (DPI)');
    expect(await classify('udp', 40211, 50211, [req, ans, rtp(1), dtls()], undefined, v6)).toBe('DTLS.SRTP (DPI)');
    const rtcp = Buffer.concat([b(0x80, 201), u16(1), u32(0x11223344)]);
    expect(await classify('udp', 40212, 50212, [req, ans, dtls(), rtcp])).toBe('DTLS (DPI)');
  });
  it('RTP needs room for its CSRC list (15 CSRCs: 72 bytes)', async () => {
    expect(await classify('udp', 40220, 50220, [req, ans, rtp(1, 96, 0x8f, 60)])).toBe('STUN.RTP (DPI)');
    expect(await classify('udp', 40221, 50221, [req, ans, rtp(1, 96, 0x8f, 59)])).toBe('STUN (DPI)');
  });
  it('TURN ChannelData (0x40–0x4F) after a TURN method carries RTP; not after a Binding', async () => {
    const alloc = msg(0x0003, software), allocOk = msg(0x0103, software);
    const r = rtp(1);
    const channel = Buffer.concat([u16(0x4000), u16(r.length), r]);
    expect(await classify('udp', 40230, 50230, [alloc, allocOk, channel])).toBe('STUN.RTP (DPI)');
    expect(await classify('udp', 40231, 50231, [req, ans, channel])).toBe('STUN (DPI)');
  });
  it('six packets after the match are read, not a seventh', async () => {
    const dirs = Array(8).fill(true);
    expect(await classify('udp', 40240, 50240, [req, other, other, other, other, other, rtp(1)], dirs)).toBe('STUN.RTP (DPI)');
    expect(await classify('udp', 40241, 50241, [req, other, other, other, other, other, other, rtp(1)], dirs)).toBe('STUN (DPI)');
  });
});

describe('RTP: a packet of neither kind once counting began', () => {
  const dirs = [true, true, true, true];
  it('ends the search when STUN\'s header test answers -1 (here: length mismatch)', async () => {
    expect(await classify('udp', 40300, 50300, [rtp(1), rtp(2), fill(30, 0x11), rtp(3)], dirs)).not.toMatch(/RTP/);
    expect(await classify('udp', 40301, 50301, [rtp(1), rtp(2), fill(30, 0x11), rtp(3)], dirs, v6)).not.toMatch(/RTP/);
  });
  it('not when it answers 0 (a classic type whose attributes overrun) nor on DTLS', async () => {
    const classicMisfit = Buffer.concat([u16(0x0001), u16(8), u32(0x01020304), tid, u16(0x0006), u16(12), fill(4, 0x61)]);
    expect(await classify('udp', 40302, 50302, [rtp(1), rtp(2), classicMisfit, rtp(3)], dirs)).toBe('RTP (DPI)');
    expect(await classify('udp', 40303, 50303, [rtp(1), rtp(2), dtls(), rtp(3)], dirs, v6)).toBe('RTP (DPI)');
  });
  it('over TCP (RFC 4571) a segment without the cookie is "not STUN" (0)', async () => {
    const f = (p: Buffer) => Buffer.concat([u16(p.length), p]);
    expect(await classify('tcp', 40304, 50304, [f(rtp(1)), f(rtp(2)), f(fill(30, 0x11)), f(rtp(3))], dirs)).toBe('RTP (DPI)');
    expect(await classify('tcp', 40305, 50305, [f(rtp(1)), f(rtp(2)), f(msg(0x0000, software)), f(rtp(3))], dirs)).not.toMatch(/RTP/);
  });
});
