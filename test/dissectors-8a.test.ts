// One hand-built flow per case: the group-A dissectors of round 8 (BGP, BFD,
// HSRP, Teredo, RADIUS) name their protocol by DPI under nDPI's conditions,
// each message built field by field from its RFC layout, and a near miss (one
// detail wrong) is not named that protocol by DPI (a guess by port may still
// name it). HSRP and Teredo depend on the addresses, so their frames are built
// here and replayed whole.
import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, addr, echo, eth, icmpv6, ipv4, ipv6, mac, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-8a-');

// One UDP datagram from src to dst (IPv4 or IPv6, multicast MACs for group
// destinations), replayed alone: the flow's name as classify() gives it.
const tmp = tempDir('fg-dissectors-8a-frames-');
afterAll(() => tmp.cleanup());
let frameCase = 0;
async function datagram(src: string, dst: string, sport: number, dport: number, payload: Uint8Array): Promise<string> {
  const v6 = src.includes(':');
  const d = addr(dst);
  const dstMac = v6
    ? d[0] === 0xff ? Buffer.from([0x33, 0x33, d[12]!, d[13]!, d[14]!, d[15]!]) : mac('02:00:00:00:00:0b')
    : d[0]! >= 224 && d[0]! <= 239 ? Buffer.from([0x01, 0x00, 0x5e, d[1]! & 0x7f, d[2]!, d[3]!]) : mac('02:00:00:00:00:0b');
  const l4 = udp({ sport, dport }, payload);
  const frame = v6
    ? eth(dstMac, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.UDP, hopLimit: 255 }, l4))
    : eth(dstMac, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP, ttl: 1 }, l4));
  return replayFrames(tmp.file(`frame-${frameCase++}.pcap`), [frame], (e) => {
    const f = e.flows({ limit: 10 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}

// ── BGP-4 (RFC 4271 §4) ────────────────────────────────────────────────────
// §4.1 header: 16-byte marker of ones, length (whole message), type.
const MARKER = Buffer.alloc(16, 0xff);
const bgp = (type: number, body: Buffer, o: { length?: number; marker?: Buffer } = {}) =>
  Buffer.concat([o.marker ?? MARKER, u16(o.length ?? 19 + body.length), Buffer.from([type]), body]);
// §4.2 OPEN: version 4, my AS 65000, hold time 180, BGP identifier 10.0.0.1,
// one optional parameter: capabilities (RFC 5492) with multiprotocol IPv4 unicast.
const OPEN_BODY = Buffer.concat([Buffer.from([4]), u16(65000), u16(180), Buffer.from([10, 0, 0, 1]), Buffer.from([8, 2, 6, 1, 4, 0, 1, 0, 1])]);
const bgpOpen = (o: { length?: number; marker?: Buffer } = {}) => bgp(1, OPEN_BODY, o);
// §4.3 UPDATE: no withdrawn routes; ORIGIN IGP, AS_PATH (sequence of one
// 4-octet AS), NEXT_HOP 10.0.0.1; NLRI 192.168.1.0/24.
const pathAttrs = Buffer.concat([
  Buffer.from([0x40, 1, 1, 0]),
  Buffer.from([0x40, 2, 6, 2, 1]), u32(65000),
  Buffer.from([0x40, 3, 4, 10, 0, 0, 1]),
]);
const bgpUpdate = () => bgp(2, Buffer.concat([u16(0), u16(pathAttrs.length), pathAttrs, Buffer.from([24, 192, 168, 1])]));
// §4.5 NOTIFICATION: Cease (6), Administrative Shutdown (2, RFC 4486).
const bgpNotification = () => bgp(3, Buffer.from([6, 2]));
// §4.4 KEEPALIVE: the header alone, 19 bytes.
const bgpKeepalive = () => bgp(4, Buffer.alloc(0));
// RFC 2918 ROUTE-REFRESH: AFI 1, reserved, SAFI 1.
const bgpRouteRefresh = () => bgp(5, Buffer.concat([u16(1), Buffer.from([0, 1])]));

// ── BFD (RFC 5880 §4, RFC 5881) ────────────────────────────────────────────
// §4.1 mandatory section: Vers|Diag, Sta|P F C A D M, Detect Mult, Length, My and
// Your Discriminator, Desired Min TX, Required Min RX, Required Min Echo RX;
// then the optional authentication section (A bit set).
const bfdControl = (o: { vers?: number; length?: number; auth?: Buffer } = {}) => {
  const auth = o.auth ?? Buffer.alloc(0);
  const h = Buffer.alloc(24);
  h[0] = (o.vers ?? 1) << 5; // diagnostic 0: none
  h[1] = (3 << 6) | (auth.length ? 0x04 : 0); // state Up
  h[2] = 3;
  h[3] = o.length ?? 24 + auth.length;
  h.writeUInt32BE(0x00000001, 4);
  h.writeUInt32BE(0x00000002, 8);
  h.writeUInt32BE(1000000, 12);
  h.writeUInt32BE(1000000, 16);
  h.writeUInt32BE(0, 20);
  return Buffer.concat([h, auth]);
};
// §4.2 Simple Password: type 1, length, key id, password.
const simplePassword = Buffer.concat([Buffer.from([1, 3 + 8, 1]), txt('secret12')]);
// §4.4 Keyed SHA1: type 4, length 28, key id, reserved, sequence number, hash.
const keyedSha1 = Buffer.concat([Buffer.from([4, 28, 1, 0]), u32(7), Buffer.alloc(20, 0xa5)]);
// Echo (RFC 5881 §4: contents are the sender's own): the 12-byte form nDPI
// knows, a 64-bit 1, two bytes of the sender's, two zero bytes.
const bfdEcho = (first = 1, tail = 0) => Buffer.concat([u32(0), u32(first), u16(0x1234), u16(tail)]);

// ── HSRP ───────────────────────────────────────────────────────────────────
// Version 0/1 (RFC 2281 §5): version, op code, state, hellotime, holdtime,
// priority, group, reserved, 8 bytes of authentication data, virtual IP.
const hsrpV1 = (o: { version?: number; opcode?: number; reserved?: number } = {}) =>
  Buffer.concat([
    Buffer.from([o.version ?? 0, o.opcode ?? 0, 16 /* Active */, 3, 10, 100, 1, o.reserved ?? 0]),
    txt('cisco\0\0\0'),
    Buffer.from([10, 0, 0, 254]),
  ]);
// Version 2 (Cisco): the Group State TLV (type 1, length 40): version 2, op
// code, state, IP version, group, identifier (MAC), priority, hello and hold
// times (ms), virtual IP (16 bytes); optionally the text authentication TLV (3).
const hsrpV2 = (ipVer: number, vip: Buffer, withAuth = false) => {
  const tlv = Buffer.concat([
    Buffer.from([1, 40, 2, 0 /* Hello */, 6, ipVer]),
    u16(1),
    mac('00:11:22:33:44:55'),
    u32(100), u32(3000), u32(10000),
    Buffer.concat([vip, Buffer.alloc(16 - vip.length)]),
  ]);
  return withAuth ? Buffer.concat([tlv, Buffer.from([3, 8]), txt('cisco\0\0\0')]) : tlv;
};

// ── Teredo (RFC 4380 §5.1) ─────────────────────────────────────────────────
const TEREDO_CLIENT = '2001:0:c000:201:0:f227:f5ff:fffe'; // prefix, server 192.0.2.1, flags, port, address
const TEREDO_PEER = '2001:0:c000:201:0:1234:abcd:1';
// A bubble: an IPv6 header with no payload (next header 59).
const bubble = () => ipv6({ src: TEREDO_CLIENT, dst: TEREDO_PEER, next: IPPROTO.NONE, hopLimit: 255 });
// Origin indication (§5.1.1): 0x0000, obfuscated port and IPv4 address.
const originIndication = Buffer.concat([u16(0), u16(0xaef4), Buffer.from([0x3f, 0x36, 0xae, 0xfe])]);
// Authentication (§5.1.1): 0x0001, ID-len 0, AU-len 0, nonce, confirmation.
const authHeader = Buffer.concat([u16(1), Buffer.from([0, 0]), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), Buffer.from([0])]);
// The qualification's router solicitation (§5.2.1), from a link-local address to all-routers.
const routerSolicitation = () => ipv6({ src: 'fe80::8000:f227:f5ff:fffe', dst: 'ff02::2', next: IPPROTO.ICMPV6, hopLimit: 255 }, icmpv6(133, 0, Buffer.alloc(4)));
// Data: an ICMPv6 echo request between Teredo addresses.
const pingV6 = () => ipv6({ src: TEREDO_CLIENT, dst: TEREDO_PEER, next: IPPROTO.ICMPV6 }, icmpv6(128, 0, echo(1, 1, Buffer.alloc(16, 0x61))));

// ── RADIUS (RFC 2865 §3, §5; RFC 2866) ─────────────────────────────────────
const attr = (type: number, value: Buffer) => Buffer.concat([Buffer.from([type, 2 + value.length]), value]);
// Code, identifier, length (whole packet; `lengthDelta` spoils it), 16-byte authenticator, attributes.
const radius = (code: number, ident: number, attrs: Buffer[], lengthDelta = 0) => {
  const body = Buffer.concat(attrs);
  return Buffer.concat([Buffer.from([code, ident]), u16(20 + body.length + lengthDelta), Buffer.alloc(16, 0x5a), body]);
};
// Access-Request: User-Name, User-Password (16 hidden bytes), NAS-IP-Address, NAS-Port.
const accessRequest = (lengthDelta = 0) =>
  radius(1, 0x2a, [attr(1, txt('alice')), attr(2, Buffer.alloc(16, 0x3c)), attr(4, Buffer.from([10, 0, 0, 1])), attr(5, u32(10))], lengthDelta);
const accessAccept = () => radius(2, 0x2a, [attr(18, txt('Welcome'))]);
const accessReject = () => radius(3, 0x2a, []);
const accessChallenge = () => radius(11, 0x2a, [attr(24, txt('state-1')), attr(18, txt('Enter PIN'))]);
// Accounting-Request (RFC 2866 §4.1): Acct-Status-Type Start, Acct-Session-Id, User-Name.
const accountingRequest = () => radius(4, 0x2b, [attr(40, u32(1)), attr(44, txt('00000001')), attr(1, txt('alice'))]);
const accountingResponse = () => radius(5, 0x2b, []);
// Status-Server (RFC 5997): code 12 with a Message-Authenticator.
const statusServer = () => radius(12, 0x2c, [attr(80, Buffer.alloc(16, 0x11))]);
// Disconnect-Request (RFC 5176): code 40, beyond the range nDPI takes.
const disconnectRequest = () => radius(40, 0x2d, [attr(1, txt('alice')), attr(44, txt('00000001'))]);

describe('dissectors 8 (group A)', () => {
  it('BGP: OPEN, UPDATE, NOTIFICATION and KEEPALIVE on port 179, either side first', async () => {
    expect(await classify('tcp', 40179, 179, [bgpOpen(), bgpOpen()])).toBe('BGP (DPI)');
    expect(await classify('tcp', 40180, 179, [bgpUpdate()], [true])).toBe('BGP (DPI)');
    expect(await classify('tcp', 40181, 179, [bgpNotification()], [false])).toBe('BGP (DPI)');
    expect(await classify('tcp', 40182, 179, [bgpKeepalive(), bgpKeepalive()])).toBe('BGP (DPI)');
    // Two messages in one segment: the first one's length is within it.
    expect(await classify('tcp', 40183, 179, [Buffer.concat([bgpOpen(), bgpKeepalive()])], [false])).toBe('BGP (DPI)');
  });

  it('BGP near misses: a marker byte off, a length beyond the segment, ROUTE-REFRESH, another port', async () => {
    const marker = Buffer.alloc(16, 0xff);
    marker[9] = 0xfe;
    expect(await classify('tcp', 40184, 179, [bgpOpen({ marker })], [true])).not.toBe('BGP (DPI)');
    expect(await classify('tcp', 40185, 179, [bgpOpen({ length: 19 + OPEN_BODY.length + 1 })], [true])).not.toBe('BGP (DPI)');
    // nDPI takes types below 5 only: RFC 2918's ROUTE-REFRESH does not name it.
    expect(await classify('tcp', 40186, 179, [bgpRouteRefresh()], [true])).not.toBe('BGP (DPI)');
    // A well-formed OPEN, but neither side on port 179.
    expect(await classify('tcp', 40187, 1179, [bgpOpen(), bgpKeepalive()])).not.toMatch(/^BGP/);
  });

  it('BFD: control packets to 3784 (versions 1 and 0, with authentication) and the echo form to 3785', async () => {
    expect(await classify('udp', 49152, 3784, [bfdControl(), bfdControl()])).toBe('BFD (DPI)');
    expect(await classify('udp', 49153, 3784, [bfdControl({ auth: simplePassword })], [true])).toBe('BFD (DPI)');
    expect(await classify('udp', 49154, 3784, [bfdControl({ auth: keyedSha1 })], [true])).toBe('BFD (DPI)');
    expect(await classify('udp', 49155, 3784, [bfdControl({ vers: 0 })], [true])).toBe('BFD (DPI)');
    expect(await classify('udp', 49156, 3785, [bfdEcho()], [true])).toBe('BFD (DPI)');
  });

  it('BFD near misses: Length byte off, version 2, control to the echo port, multihop port, echo not 1 or not ending in zero', async () => {
    expect(await classify('udp', 49160, 3784, [bfdControl({ length: 25 })], [true])).not.toBe('BFD (DPI)');
    expect(await classify('udp', 49161, 3784, [bfdControl({ vers: 2 })], [true])).not.toBe('BFD (DPI)');
    expect(await classify('udp', 49162, 3785, [bfdControl()], [true])).not.toBe('BFD (DPI)');
    // RFC 5883 multihop BFD on 4784: nDPI does not look there.
    expect(await classify('udp', 49163, 4784, [bfdControl()], [true])).not.toMatch(/^BFD/);
    expect(await classify('udp', 49164, 3785, [bfdEcho(2)], [true])).not.toBe('BFD (DPI)');
    expect(await classify('udp', 49165, 3785, [bfdEcho(1, 1)], [true])).not.toBe('BFD (DPI)');
    // The echo form sent to the control port.
    expect(await classify('udp', 49166, 3784, [bfdEcho()], [true])).not.toBe('BFD (DPI)');
  });

  it('HSRP: version 0 to 224.0.0.2, version 2 to 224.0.0.102, IPv6 to ff02::66, on their ports', async () => {
    expect(await datagram('10.0.0.1', '224.0.0.2', 1985, 1985, hsrpV1())).toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.3', '224.0.0.2', 1985, 1985, hsrpV1({ opcode: 1 /* Coup */ }))).toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV2(4, Buffer.from([10, 0, 0, 254])))).toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.3', '224.0.0.102', 1985, 1985, hsrpV2(4, Buffer.from([10, 0, 0, 254]), true))).toBe('HSRP (DPI)');
    expect(await datagram('fe80::1', 'ff02::66', 2029, 2029, hsrpV2(6, addr('fe80::fe')))).toBe('HSRP (DPI)');
  });

  it('HSRP near misses: wrong group address, reserved byte set, one side off the port, IP version 6 over IPv4, IPv6 to another group', async () => {
    // Version 0 sent to the version 2 group.
    expect(await datagram('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV1())).not.toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.1', '224.0.0.2', 1985, 1985, hsrpV1({ reserved: 1 }))).not.toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.1', '224.0.0.2', 1986, 1985, hsrpV1())).not.toBe('HSRP (DPI)');
    // Version 2 sent to the version 0 group.
    expect(await datagram('10.0.0.1', '224.0.0.2', 1985, 1985, hsrpV2(4, Buffer.from([10, 0, 0, 254])))).not.toBe('HSRP (DPI)');
    expect(await datagram('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV2(6, Buffer.from([10, 0, 0, 254])))).not.toBe('HSRP (DPI)');
    expect(await datagram('fe80::1', 'ff02::2', 2029, 2029, hsrpV2(6, addr('fe80::fe')))).not.toMatch(/^HSRP/);
    // A first byte (TLV type) above 4.
    const v6 = hsrpV2(6, addr('fe80::fe'));
    v6[0] = 5;
    expect(await datagram('fe80::1', 'ff02::66', 2029, 2029, v6)).not.toMatch(/^HSRP/);
  });

  it('Teredo: bubbles (plain and with origin indication), a qualification with authentication, data, either side on 3544', async () => {
    expect(await classify('udp', 50000, 3544, [bubble()], [true])).toBe('Teredo (DPI)');
    expect(await classify('udp', 50001, 3544, [Buffer.concat([originIndication, bubble()])], [false])).toBe('Teredo (DPI)');
    expect(await classify('udp', 50002, 3544, [Buffer.concat([authHeader, routerSolicitation()])], [true])).toBe('Teredo (DPI)');
    expect(await classify('udp', 50003, 3544, [pingV6(), pingV6()])).toBe('Teredo (DPI)');
    // A relay or peer on 3544 as the source, to a public address.
    expect(await datagram('198.51.100.7', '192.0.2.10', 3544, 50004, bubble())).toBe('Teredo (DPI)');
  });

  it('Teredo near misses: shorter than an IPv6 header, to a multicast group, off its port, over IPv6', async () => {
    expect(await classify('udp', 50010, 3544, [bubble().subarray(0, 39)], [true])).not.toMatch(/^Teredo/);
    // Local discovery (RFC 4380 §5.2.8) to 224.0.0.253: nDPI skips multicast.
    expect(await datagram('192.0.2.10', '224.0.0.253', 50011, 3544, bubble())).not.toMatch(/^Teredo/);
    expect(await classify('udp', 50012, 3545, [bubble()], [true])).not.toMatch(/^Teredo/);
    expect(await datagram('2001:db8::1', '2001:db8::2', 50013, 3544, bubble())).not.toMatch(/^Teredo/);
  });

  it('RADIUS: access exchanges on 1812, accounting on 1813 and 18013, Status-Server, a later packet within four', async () => {
    expect(await classify('udp', 50100, 1812, [accessRequest(), accessAccept()])).toBe('Radius (DPI)');
    expect(await classify('udp', 50101, 1812, [accessAccept()], [false])).toBe('Radius (DPI)');
    expect(await classify('udp', 50102, 1812, [accessReject()], [false])).toBe('Radius (DPI)');
    expect(await classify('udp', 50103, 1812, [accessChallenge()], [false])).toBe('Radius (DPI)');
    expect(await classify('udp', 50104, 1813, [accountingRequest(), accountingResponse()])).toBe('Radius (DPI)');
    expect(await classify('udp', 50105, 18013, [accountingRequest()], [true])).toBe('Radius (DPI)');
    expect(await classify('udp', 50106, 1812, [statusServer()], [true])).toBe('Radius (DPI)');
    // Three datagrams of the wrong length, then a right one: the fourth still counts.
    const bad = accessRequest(1);
    expect(await classify('udp', 50107, 1812, [bad, bad, bad, accessRequest()], [true, true, true, true])).toBe('Radius (DPI)');
  });

  it('RADIUS near misses: Length field off, a code beyond 13, the legacy ports, a datagram under 20 bytes first, a fifth packet', async () => {
    expect(await classify('udp', 50110, 1812, [accessRequest(1)], [true])).not.toBe('Radius (DPI)');
    expect(await classify('udp', 50111, 1812, [accessRequest(-1)], [true])).not.toBe('Radius (DPI)');
    expect(await classify('udp', 50112, 1812, [disconnectRequest()], [true])).not.toBe('Radius (DPI)');
    // RFC 2138's 1645/1646: nDPI takes neither.
    expect(await classify('udp', 50113, 1645, [accessRequest(), accessAccept()])).not.toMatch(/^Radius/);
    expect(await classify('udp', 50114, 1646, [accountingRequest(), accountingResponse()])).not.toMatch(/^Radius/);
    // A 19-byte datagram on the port rules the flow out at once.
    const short = accessReject().subarray(0, 19);
    expect(await classify('udp', 50115, 1812, [short, accessRequest()], [true, true])).not.toBe('Radius (DPI)');
    // Four of the wrong length: a fifth right one is too late.
    const bad = accessRequest(1);
    expect(await classify('udp', 50116, 1812, [bad, bad, bad, bad, accessRequest()], [true, true, true, true, true])).not.toBe('Radius (DPI)');
  });
});
