// One hand-built flow per case: the group-I dissectors of round 10 (CoAP,
// VMware, CAPWAP) name their protocol by DPI under nDPI's conditions, and a
// near miss (one detail wrong) is not named that protocol by DPI (a guess by
// port may still name it).
import { describe, expect, it } from 'vitest';

import { classifier, udpClassifierAt } from './fixtures/dissect.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-10i-');
const classifyAt = udpClassifierAt('fg-dissectors-10i-at-');
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);

// ── CoAP (RFC 7252 §3: Ver 2 bits, T 2 bits, TKL 4 bits, Code, Message ID) ──
const CON = 0, NON = 1, ACK = 2, RST = 3;
const code = (cls: number, detail: number) => (cls << 5) | detail; // §3 "c.dd"
const coap = (type: number, c: number, token: Buffer = Buffer.alloc(0), rest: Buffer = Buffer.alloc(0), ver = 1, tkl = token.length) =>
  Buffer.concat([bytes((ver << 6) | (type << 4) | tkl, c), u16(0x7d34), token, rest]);
// Options (§3.1): Uri-Path (11) "sensors", then Uri-Path "temp" (delta 0).
const uriPath = Buffer.concat([bytes(0xb7), txt('sensors'), bytes(0x04), txt('temp')]);
// A response body: Content-Format (12) text/plain (0, empty value), 0xFF marker, payload.
const body = Buffer.concat([bytes(0xc0, 0xff), txt('22.5 C')]);
const tok = bytes(0x71, 0xa2);
const GET = coap(CON, code(0, 1), tok, uriPath);

// ── VMware (port 902 datagrams: 66 bytes, led by 0xA4) ─────────────────────
const vm = (lead = 0xa4, size = 66) => Buffer.concat([bytes(lead), Buffer.alloc(size - 1, 0x5c)]);

// ── CAPWAP (RFC 5415) ──────────────────────────────────────────────────────
// §4.3 header: preamble (version 0, type 0), HLEN (4-byte words) | RID |
// WBID (1 = IEEE 802.11) | T, F L W M K flags, fragment id and offset, then
// the optional Radio MAC Address and Wireless Specific Information fields.
interface Hdr { t?: boolean; mac?: Buffer; wireless?: Buffer; k?: boolean; preamble?: number; rid?: number }
const pad4 = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
const capwapHdr = (o: Hdr = {}) => {
  const opt = Buffer.concat([o.mac ? pad4(Buffer.concat([bytes(o.mac.length), o.mac])) : Buffer.alloc(0), o.wireless ? pad4(Buffer.concat([bytes(o.wireless.length), o.wireless])) : Buffer.alloc(0)]);
  const hlen = (8 + opt.length) / 4, rid = o.rid ?? 0, wbid = 1;
  const flags = (o.wireless ? 0x20 : 0) | (o.mac ? 0x10 : 0) | (o.k ? 0x08 : 0);
  return Buffer.concat([bytes(o.preamble ?? 0, (hlen << 3) | (rid >> 2), ((rid & 3) << 6) | (wbid << 1) | (o.t ? 1 : 0), flags), u16(0), u16(0), opt]);
};
// §4.6 message element: type, length, value.
const elem = (type: number, value: Buffer) => Buffer.concat([u16(type), u16(value.length), value]);
// §4.5.1 control header: message type (enterprise 0 | type), sequence number,
// message element length (the bytes after the sequence number: itself, the
// flags and the elements), flags 0; `lenDelta` breaks the length.
const control = (type: number, elems: Buffer[], o: Hdr = {}, lenDelta = 0) => {
  const e = Buffer.concat(elems);
  return Buffer.concat([capwapHdr(o), u32(type), bytes(7), u16(3 + e.length + lenDelta), bytes(0), e]);
};
const RADIO_MAC = bytes(0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e);
// Discovery Request (type 1): Discovery Type (20) 1 = static configuration,
// WTP MAC Type (44) 0 = local MAC, WTP Frame Tunnel Mode (41) 0x04 = 802.3.
const discoveryElems = [elem(20, bytes(1)), elem(44, bytes(0)), elem(41, bytes(0x04))];
const discoveryRequest = control(1, discoveryElems);
// Discovery Response (type 2): AC Descriptor (1), AC Name (4).
const discoveryResponse = control(2, [elem(1, Buffer.concat([u16(2), u16(64), bytes(0, 0x04, 0, 0)])), elem(4, txt('ac-1'))]);
const joinRequest = control(3, [elem(37, bytes(0, 0, 0, 0)), elem(5, txt('wtp-lobby'))]); // Join Request: Location Data, WTP Name
const echoRequest = control(13, []); // Echo Request: no element, 16 bytes
// §4.2 DTLS header (preamble type 1, 3 reserved bytes), then one DTLS record
// (RFC 6347 §4.1: type, version, epoch, 48-bit sequence, length, fragment).
const dtls = (fragment: Buffer, lenDelta = 0) =>
  Buffer.concat([bytes(0x01, 0, 0, 0), bytes(0x16, 0xfe, 0xfd), u16(0), u16(0), u32(0), u16(fragment.length + lenDelta), fragment]);
// A ClientHello handshake fragment (RFC 6347 §4.2.2 header, then a short body).
const hello = Buffer.concat([bytes(0x01, 0, 0, 0x26), u16(0), bytes(0, 0, 0, 0, 0, 0x26), bytes(0xfe, 0xfd), Buffer.alloc(32, 0x11), bytes(0, 0, 0, 0)]);
// IEEE 802.11 management frame (Probe Request: FC 0x40 0x00), the WTP tunnels
// it to the AC in split MAC mode (RFC 5416 §2.2): FC, duration, three
// addresses, sequence control, then an SSID element.
const probeRequest = Buffer.concat([bytes(0x40, 0x00, 0, 0), Buffer.alloc(6, 0xff), bytes(0x02, 0x11, 0x22, 0x33, 0x44, 0x55), Buffer.alloc(6, 0xff), u16(0x1000), bytes(0, 4), txt('lab1')]);
// 802.11 null-data frame from the AC (FC type data, subtype 4), frame control
// bytes in the swapped order some APs use: flags (FromDS) first, then 0x48.
const nullDataSwapped = Buffer.concat([bytes(0x02, 0x48, 0, 0), bytes(0x02, 0x11, 0x22, 0x33, 0x44, 0x55), bytes(0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e), bytes(0x02, 0x99, 0x88, 0x77, 0x66, 0x55), u16(0x2000)]);
const nullData = Buffer.concat([nullDataSwapped.subarray(1, 2), nullDataSwapped.subarray(0, 1), nullDataSwapped.subarray(2)]);
// An 802.3 frame (T = 0): LLDP (ethertype 0x88cc) to its multicast MAC 01:80:c2:00:00:0e.
const lldp = Buffer.concat([bytes(0x01, 0x80, 0xc2, 0, 0, 0x0e), bytes(0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e), u16(0x88cc), bytes(0x02, 0x07, 0x04, 0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e, 0, 0)]);
// An 802.3 ARP request to the broadcast MAC.
const arp = (dst: Buffer, src: Buffer, trail = 0) =>
  Buffer.concat([dst, src, u16(0x0806), u16(1), u16(0x0800), bytes(6, 4), u16(1), src, bytes(192, 168, 1, 20), Buffer.alloc(6), bytes(192, 168, 1, 1), Buffer.alloc(trail)]);

describe('dissectors 10 (group I)', () => {
  it('CoAP: every message type, on port 5683, IPv4 and IPv6', async () => {
    // §4.2 CON request, §4.3 NON request, §5.2.1 piggybacked ACK response, §4.2 RST (empty)
    expect(await classify('udp', 40000, 5683, [GET, coap(ACK, code(2, 5), tok, body)])).toBe('COAP (DPI)');
    expect(await classify('udp', 40001, 5683, [coap(NON, code(0, 2), tok, uriPath)])).toBe('COAP (DPI)');
    expect(await classify('udp', 40002, 5683, [coap(ACK, code(2, 5), tok, body)])).toBe('COAP (DPI)');
    expect(await classify('udp', 40003, 5683, [coap(RST, 0)])).toBe('COAP (DPI)'); // 4 bytes: the header alone
    expect(await classify('udp', 40004, 5683, [coap(CON, 0)])).toBe('COAP (DPI)'); // §4.3 CoAP ping: empty CON
    expect(await classify('udp', 40005, 5683, [GET], undefined, v6)).toBe('COAP (DPI)');
    expect(await classify('udp', 40006, 5683, [coap(NON, code(2, 5), tok, body)], undefined, v6)).toBe('COAP (DPI)');
  });

  it('CoAP: the codes nDPI accepts — 0.00–0.05, 2.01–2.05, 4.00–4.06, 4.12–4.15, 5.00–5.05', async () => {
    const ok = [
      ...[0, 1, 2, 3, 4, 5].map((d) => code(0, d)), // Empty, GET, POST, PUT, DELETE, FETCH (RFC 8132)
      ...[1, 2, 3, 4, 5].map((d) => code(2, d)), // Created … Content (§5.9.1)
      ...[0, 1, 2, 3, 4, 5, 6].map((d) => code(4, d)), // Bad Request … Not Acceptable (§5.9.2)
      ...[12, 13, 14, 15].map((d) => code(4, d)), // Precondition Failed … Unsupported Content-Format
      ...[0, 1, 2, 3, 4, 5].map((d) => code(5, d)), // Internal Server Error … Proxying Not Supported (§5.9.3)
    ];
    for (const [i, c] of ok.entries()) expect(await classify('udp', 41000 + i, 5683, [coap(c ? ACK : CON, c, tok)]), `code ${c}`).toBe('COAP (DPI)');
  });

  it('CoAP: other codes are not CoAP for nDPI', async () => {
    const bad = [
      code(0, 6), code(0, 7), // PATCH, iPATCH (RFC 8132)
      code(1, 0), // class 1 is reserved
      code(2, 0), code(2, 6), code(2, 31), // 2.00, 2.06, 2.31 Continue (RFC 7959)
      code(4, 8), code(4, 9), code(4, 11), code(4, 22), code(4, 29), // 4.08 Request Entity Incomplete … 4.29 Too Many Requests
      code(5, 6), code(5, 8), // 5.06, 5.08 Hop Limit Reached (RFC 8768)
      code(6, 0), code(7, 31), // 6.00 (RFC 8323 signalling is TCP-only), 7.31
    ];
    for (const [i, c] of bad.entries()) expect(await classify('udp', 42000 + i, 5683, [coap(CON, c, tok)]), `code ${c}`).not.toBe('COAP (DPI)');
  });

  it('CoAP: token lengths 0–7 pass, 8 and the reserved 9–15 do not; version 1 only; 4 bytes at least', async () => {
    for (let n = 0; n <= 7; n++) expect(await classify('udp', 43000 + n, 5683, [coap(CON, code(0, 1), Buffer.alloc(n, 0xab), uriPath)]), `tkl ${n}`).toBe('COAP (DPI)');
    for (const n of [8, 9, 15]) expect(await classify('udp', 43100 + n, 5683, [coap(CON, code(0, 1), Buffer.alloc(Math.min(n, 8), 0xab), uriPath, 1, n)]), `tkl ${n}`).not.toBe('COAP (DPI)');
    for (const ver of [0, 2, 3]) expect(await classify('udp', 43200 + ver, 5683, [coap(CON, code(0, 1), tok, uriPath, ver)]), `version ${ver}`).not.toBe('COAP (DPI)');
    expect(await classify('udp', 43300, 5683, [coap(RST, 0).subarray(0, 3)])).not.toBe('COAP (DPI)');
  });

  it('CoAP: ports 5683 and 61616–61631 on either side, nothing else; the first datagram decides', async () => {
    expect(await classify('udp', 5683, 40010, [coap(ACK, code(2, 5), tok, body)])).toBe('COAP (DPI)'); // 5683 as the source
    expect(await classify('udp', 40011, 61616, [GET])).toBe('COAP (DPI)');
    expect(await classify('udp', 61631, 40012, [GET])).toBe('COAP (DPI)');
    expect(await classify('udp', 40013, 61631, [GET], undefined, v6)).toBe('COAP (DPI)');
    for (const port of [5682, 5684, 61615, 61632, 40015]) expect(await classify('udp', 40014, port, [GET]), `port ${port}`).not.toBe('COAP (DPI)');
    // not UDP
    expect(await classify('tcp', 40016, 5683, [GET])).not.toBe('COAP (DPI)');
    // a first datagram that is no CoAP (version 0) rules the flow out
    expect(await classify('udp', 40017, 5683, [coap(CON, code(0, 1), tok, uriPath, 0), GET])).not.toBe('COAP (DPI)');
  });

  it('VMware: a 66-byte datagram led by 0xA4 sent to port 902, IPv4 and IPv6', async () => {
    expect(await classify('udp', 40100, 902, [vm()])).toBe('VMware (DPI)');
    expect(await classify('udp', 40101, 902, [vm(), vm()])).toBe('VMware (DPI)');
    expect(await classify('udp', 40102, 902, [vm()], undefined, v6)).toBe('VMware (DPI)');
    // the datagram's destination port, not the flow's server side: an empty
    // datagram from 902 opens the flow, then one to 902 matches
    expect(await classify('udp', 902, 40103, [Buffer.alloc(0), vm()])).toBe('VMware (DPI)');
  });

  it('VMware: other sizes, another lead byte, another port, from 902, or TCP are not VMware', async () => {
    expect(await classify('udp', 40110, 902, [vm(0xa4, 65)])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 40111, 902, [vm(0xa4, 67)])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 40112, 902, [vm(0xa5)])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 40113, 903, [vm()])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 40114, 9020, [vm()])).not.toBe('VMware (DPI)');
    // the destination port of the datagram counts: from 902 to another port is no match,
    // whether 902 opened the flow or answers first in a flow to 902
    expect(await classify('udp', 902, 40115, [vm()])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 40116, 902, [vm(), vm()], [false, true])).not.toBe('VMware (DPI)');
    expect(await classify('udp', 902, 40117, [vm()], undefined, v6)).not.toBe('VMware (DPI)');
    // an empty datagram to 902 opens the flow, the answer from 902 is no match
    expect(await classify('udp', 40120, 902, [Buffer.alloc(0), vm()])).not.toBe('VMware (DPI)');
    // the first datagram decides: a wrong-sized one first rules the flow out
    expect(await classify('udp', 40118, 902, [vm(0xa4, 64), vm()], [true, true])).not.toBe('VMware (DPI)');
    expect(await classify('tcp', 40119, 902, [vm()])).not.toBe('VMware (DPI)');
  });

  it('CAPWAP control (5246): control messages whose element length fills the datagram, either direction', async () => {
    expect(await classify('udp', 40200, 5246, [discoveryRequest, discoveryResponse])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 5246, 40201, [discoveryResponse])).toBe('CAPWAP (DPI)'); // from the control port
    expect(await classify('udp', 40202, 5246, [joinRequest])).toBe('CAPWAP (DPI)');
    expect(echoRequest.length).toBe(16);
    expect(await classify('udp', 40203, 5246, [echoRequest])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40204, 5246, [discoveryRequest], undefined, v6)).toBe('CAPWAP (DPI)');
    // §4.2 DTLS header and one record (ClientHello) of length + 17 bytes in all
    expect(await classify('udp', 40205, 5246, [dtls(hello)])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 5246, 40206, [dtls(hello)], undefined, v6)).toBe('CAPWAP (DPI)');
  });

  it('CAPWAP control: near misses', async () => {
    expect(await classify('udp', 40210, 5246, [control(1, discoveryElems, {}, 1)])).not.toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40211, 5246, [control(1, discoveryElems, {}, -1)])).not.toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40212, 5246, [dtls(hello, 1)])).not.toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40213, 5246, [control(1, discoveryElems, { preamble: 0x10 })])).not.toBe('CAPWAP (DPI)'); // version 1
    expect(await classify('udp', 40214, 5246, [Buffer.concat([bytes(0x02), dtls(hello).subarray(1)])])).not.toBe('CAPWAP (DPI)'); // type 2
    // nDPI reads the control header right after an 8-byte header only: with a
    // radio MAC field (M flag) a unicast message is not recognised
    expect(await classify('udp', 40215, 5246, [control(1, discoveryElems, { mac: RADIO_MAC })])).not.toBe('CAPWAP (DPI)');
    // the port is required
    expect(await classify('udp', 40216, 5248, [discoveryRequest])).not.toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40217, 15246, [dtls(hello)])).not.toBe('CAPWAP (DPI)');
    expect(await classify('tcp', 40218, 5246, [discoveryRequest])).not.toBe('CAPWAP (DPI)');
    // the first datagram decides
    expect(await classify('udp', 40219, 5246, [control(1, discoveryElems, {}, 2), discoveryRequest], [true, true])).not.toBe('CAPWAP (DPI)');
  });

  it('CAPWAP discovery (§3.3): to the broadcast or CAPWAP multicast address with a radio MAC', async () => {
    const req = control(1, discoveryElems, { mac: RADIO_MAC }); // byte 8 = 6, at least 16 bytes
    expect(await classifyAt('10.0.0.1', '255.255.255.255', 40220, 5246, [req])).toBe('CAPWAP (DPI)');
    expect(await classifyAt('10.0.0.1', '224.0.1.140', 40221, 5246, [req])).toBe('CAPWAP (DPI)');
    // EUI-64 radio MAC (length 8): not this rule, nor the length rule
    expect(await classifyAt('10.0.0.1', '255.255.255.255', 40222, 5246, [control(1, discoveryElems, { mac: Buffer.concat([RADIO_MAC, bytes(1, 2)]) })])).not.toBe('CAPWAP (DPI)');
    expect(await classifyAt('10.0.0.1', '224.0.1.141', 40223, 5246, [req])).not.toBe('CAPWAP (DPI)');
    expect(await classifyAt('10.0.0.1', '255.255.255.255', 40224, 5247, [req])).not.toBe('CAPWAP (DPI)'); // to the data port
    // IPv6: nDPI's test (on a little-endian host) takes FF00:0X00::8C01:0 for
    // the All-ACs group, not FF0X::18C itself
    expect(await classifyAt('2001:db8::1', 'ff00:300::8c01:0', 40225, 5246, [req])).toBe('CAPWAP (DPI)');
    expect(await classifyAt('2001:db8::1', 'ff02::18c', 40226, 5246, [req])).not.toBe('CAPWAP (DPI)');
    expect(await classifyAt('2001:db8::1', 'ff05::18c', 40227, 5246, [req])).not.toBe('CAPWAP (DPI)');
  });

  it('CAPWAP data (5247): frames to the data port with a radio MAC, wireless info or a matching length; 802.11 data from it', async () => {
    // §4.3 W flag: IEEE 802.11 Wireless Specific Information (RFC 5416 §4.1: RSSI, SNR, data rate), length 4
    const info = bytes(0xc4, 0x19, 0x00, 0x36);
    expect(await classify('udp', 40230, 5247, [Buffer.concat([capwapHdr({ t: true, wireless: info }), probeRequest])])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40231, 5247, [Buffer.concat([capwapHdr({ t: true, mac: RADIO_MAC }), probeRequest])])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 40232, 5247, [Buffer.concat([capwapHdr({ t: true, wireless: info }), probeRequest])], undefined, v6)).toBe('CAPWAP (DPI)');
    // T = 0: an 802.3 frame whose destination MAC opens with 0x01 (byte 8 = 1)
    expect(await classify('udp', 40233, 5247, [Buffer.concat([capwapHdr(), lldp])])).toBe('CAPWAP (DPI)');
    // the 16-bit value at byte 13 (here destination MAC byte 5, source MAC byte 0) + 15 = the length
    const a = arp(bytes(0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x00), bytes(0x24, 0x11, 0x22, 0x33, 0x44, 0x55), 1);
    expect(8 + a.length).toBe(0x24 + 15);
    expect(await classify('udp', 40234, 5247, [Buffer.concat([capwapHdr(), a])])).toBe('CAPWAP (DPI)');
    // from the data port: an 802.11 data frame (type bits of byte 9 = 2)
    expect(await classify('udp', 5247, 40235, [Buffer.concat([capwapHdr({ t: true }), nullDataSwapped])])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 5247, 40237, [Buffer.concat([capwapHdr({ t: true, rid: 1 }), nullDataSwapped])])).toBe('CAPWAP (DPI)');
    expect(await classify('udp', 5247, 40236, [Buffer.concat([capwapHdr({ t: true }), nullDataSwapped])], undefined, v6)).toBe('CAPWAP (DPI)');
  });

  it('CAPWAP data: near misses', async () => {
    const info = bytes(0xc4, 0x19, 0x00, 0x36);
    const mgmt = Buffer.concat([capwapHdr({ t: true, wireless: info }), probeRequest]);
    // an 802.3 ARP to the broadcast MAC: byte 8 = 0xff, the length does not match
    const bcast = Buffer.concat([capwapHdr(), arp(Buffer.alloc(6, 0xff), bytes(0x00, 0x11, 0x22, 0x33, 0x44, 0x55))]);
    expect(await classify('udp', 40240, 5247, [bcast])).not.toBe('CAPWAP (DPI)');
    // the rule holds for the data port only
    expect(await classify('udp', 40241, 5249, [mgmt])).not.toBe('CAPWAP (DPI)');
    // the 4-byte DTLS header: nDPI reads no encrypted data channel
    expect(await classify('udp', 40242, 5247, [dtls(hello)])).not.toBe('CAPWAP (DPI)');
    // 15 bytes are too few
    expect(await classify('udp', 40243, 5247, [mgmt.subarray(0, 15)])).not.toBe('CAPWAP (DPI)');
    // to the data port at a discovery address: not this rule
    expect(await classifyAt('10.0.0.1', '224.0.1.140', 40244, 5247, [mgmt])).not.toBe('CAPWAP (DPI)');
    // from the data port, byte 9's type bits not Data (the usual frame control order: 0x48 first);
    // radio 1, so that bytes 2–3 do not read 03 00 (Viber's shape, asked after CAPWAP)
    expect(await classify('udp', 5247, 40245, [Buffer.concat([capwapHdr({ t: true, rid: 1 }), nullData])])).not.toBe('CAPWAP (DPI)');
    // nor from the data port with a radio MAC (only the destination-port rule reads byte 8)
    expect(await classify('udp', 5247, 40246, [Buffer.concat([capwapHdr({ t: true, mac: RADIO_MAC }), probeRequest])])).not.toBe('CAPWAP (DPI)');
  });
});
