// Audit 16: NAT-PMP, LINE calls, tinc, CAPWAP, MongoDB, CoAP, KNXnet/IP,
// LDP, FINS, Roughtime, Munin, OICQ, UBNTAC2, Threema, OPC-UA, IEC 62056,
// MS SQL TDS, BFD, Discord, SD-RTN, TP-Link SHP and Tuya LP checked against
// nDPI 4.11's own source (src/lib/protocols/<name>.c). One hand-built flow
// per case, its messages built from the protocols' own documents: what
// nDPI accepts is named by DPI, a near miss (one detail wrong) is not.

import { afterAll, describe, expect, it } from 'vitest';

import type { FlowRecord } from '../ts/bindings/native.js';
import { capturesIn, flowFrames, nameOf, udpFrame } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';
import { cat, crcX25, hex, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-16-');
afterAll(() => tmp.cleanup());

type Msg = [boolean, Buffer];
const C4 = '10.0.0.1', S4 = '10.0.0.2', C6 = '2001:db8::1', S6 = '2001:db8::2';

const frames = flowFrames;
/** Every flow of a capture made of these frames, once replayed to its end. */
const replay = capturesIn(tmp.dir);
/** The flow's record: IPv6 when `v6`. */
async function flowOf(l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], v6 = false): Promise<FlowRecord> {
  const [f] = await replay(frames(l4, v6 ? C6 : C4, v6 ? S6 : S4, cport, sport, msgs));
  return f!;
}
/** "name (confidence)" of one flow. */
const run = async (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], v6 = false) => nameOf(await flowOf(l4, cport, sport, msgs, v6));
/** Client-only messages. */
const cli = (...p: Buffer[]): Msg[] => p.map((b) => [true, b]);
/** Messages alternating client, server. */
const alt = (...p: Buffer[]): Msg[] => p.map((b, i) => [i % 2 === 0, b]);

// ── NAT-PMP (RFC 6886 §3): version 0, opcode; §3.2 external address
// request (2 bytes) and answer (result, epoch, address); §3.3 mapping
// request (reserved, internal port, suggested external port, lifetime) and
// answer (result, epoch, internal port, mapped port, lifetime).
const pmpAddrReq = () => hex('0000');
const pmpMapReq = (op = 1, internal = 5000, external = 5000, reserved = 0) => cat(Buffer.from([0, op]), u16(reserved), u16(internal), u16(external), u32(7200));
const pmpAddrResp = (result = 0, ip = 0xcb007105) => cat(hex('0080'), u16(result), u32(1000), u32(ip));
const pmpMapResp = (op = 0x81, result = 0, internal = 5000, mapped = 5000) => cat(Buffer.from([0, op]), u16(result), u32(1000), u16(internal), u16(mapped), u32(7200));

describe('NAT-PMP (natpmp.c)', () => {
  it('on port 5351 every RFC 6886 shape names the flow at once, IPv4 and IPv6', async () => {
    for (const p of [pmpAddrReq(), pmpMapReq(1), pmpMapReq(2), pmpAddrResp(), pmpMapResp(0x81), pmpMapResp(0x82), pmpAddrResp(5, 0)])
      expect(await run('udp', 41000, 5351, cli(p))).toBe('NAT-PMP (DPI)');
    expect(await run('udp', 41001, 5351, cli(pmpAddrReq()), true)).toBe('NAT-PMP (DPI)');
    expect(await run('udp', 5351, 41002, cli(pmpMapResp()), true)).toBe('NAT-PMP (DPI)');
  });

  it('one detail off is no NAT-PMP: version, size, reserved field, result code over 5, opcode', async () => {
    const near = [hex('0100'), hex('000000'), pmpMapReq(1, 5000, 5000, 1), pmpMapReq(1).subarray(0, 11), pmpAddrResp(6), pmpMapResp(0x81, 6), pmpMapResp(0x81).subarray(0, 15), hex('0003'), cat(pmpAddrResp(), hex('00'))];
    for (const p of near) expect(await run('udp', 41010, 5351, cli(p))).not.toBe('NAT-PMP (DPI)');
  });

  it('off port 5351: named from the third payload datagram on, never by an address request', async () => {
    expect(await run('udp', 41020, 41021, alt(pmpMapReq(), pmpMapResp(), pmpMapReq()))).toBe('NAT-PMP (DPI)');
    expect(await run('udp', 41022, 41021, alt(pmpMapReq(), pmpMapResp()))).not.toBe('NAT-PMP (DPI)');
    expect(await run('udp', 41023, 41021, alt(pmpAddrReq(), pmpAddrResp(), pmpAddrReq()))).not.toBe('NAT-PMP (DPI)');
    expect(await run('udp', 41024, 41021, alt(pmpAddrReq(), pmpAddrResp(), pmpAddrReq(), pmpAddrResp()))).toBe('NAT-PMP (DPI)');
    // a datagram of another shape on the way rules it out
    expect(await run('udp', 41025, 41021, alt(pmpMapReq(), hex('0001'), pmpMapReq()))).not.toBe('NAT-PMP (DPI)');
    expect(await run('udp', 41026, 41021, alt(pmpMapReq(), pmpMapResp(), pmpMapReq()), true)).toBe('NAT-PMP (DPI)');
  });

  it('malformed values raise the risk, on the naming datagram and the 5 read after it', async () => {
    const risks = async (msgs: Msg[]) => (await flowOf('udp', 41030, 5351, msgs)).risks;
    expect(await risks(cli(pmpMapReq(1, 0)))).toContain('Malformed Packet');
    expect(await risks(cli(pmpMapReq(1, 5000, 0)))).not.toContain('Malformed Packet');
    expect(await risks(alt(pmpAddrReq(), pmpAddrResp(3)))).toContain('Malformed Packet');
    expect(await risks(alt(pmpAddrReq(), pmpAddrResp(3, 0)))).not.toContain('Malformed Packet');
    expect(await risks(alt(pmpMapReq(), pmpMapResp(0x81, 0, 5000, 0)))).toContain('Malformed Packet');
    expect(await risks(alt(pmpMapReq(), pmpMapResp(0x82, 0, 0, 5000)))).toContain('Malformed Packet');
    expect(await risks(alt(pmpMapReq(), pmpMapResp()))).not.toContain('Malformed Packet');
    // another shape after the match: read up to the fifth datagram after it
    const five = [pmpAddrReq(), pmpAddrResp(), pmpAddrReq(), pmpAddrResp(), pmpAddrReq()];
    expect(await risks(alt(...five, hex('01020304')))).toContain('Malformed Packet');
    expect(await risks(alt(...five, pmpAddrResp(), hex('01020304')))).not.toContain('Malformed Packet');
  });
});

// ── LINE calls (no public format; nDPI's shapes) and the counter rule.
const LINE4 = '43.223.0.10', HOME = '192.168.1.10';
/** A datagram of `n` bytes carrying counter `cnt` in byte 3 (bytes 0–2 a fixed tag nothing else claims). */
const counted = (cnt: number, n = 24) => cat(hex('5aa5c3'), Buffer.from([cnt & 0xff]), Buffer.alloc(n - 4, 0x3c));
/** Four datagrams each way, counters from `a` (client) and `b` (server), interleaved. */
const counters = (a: number, b: number): Msg[] => [0, 1, 2, 3].flatMap((i): Msg[] => [[true, counted(a + i)], [false, counted(b + i)]]);
/** An RTP packet (RFC 3550 §5.1: version 2, PT 0, 12-byte header) with 20 bytes of media. */
const rtpPkt = (seq: number) => cat(hex('8000'), u16(seq), u32(160 * seq), u32(0x1234), Buffer.alloc(20, 0xd5));

describe('LINE calls (line.c)', () => {
  it('rule 1: a known shape on an IPv4 flow to LINE addresses; not elsewhere, not over IPv6', async () => {
    const on = async (msgs: Msg[]) => nameOf((await replay(frames('udp', HOME, LINE4, 41100, 41200, msgs)))[0]!);
    expect(await on(cli(cat(hex('b6130006'), Buffer.alloc(42, 1))))).toBe('LineCall (DPI)');
    expect(await on(cli(cat(hex('b6070004'), Buffer.alloc(4, 1))))).toBe('LineCall (DPI)');
    expect(await on(cli(cat(hex('b609000c'), Buffer.alloc(12, 1))))).toBe('LineCall (DPI)');
    expect(await on(cli(cat(hex('d99a0000 0602'), Buffer.alloc(144, 1))))).toBe('LineCall (DPI)');
    expect(await on(cli(cat(hex('d9aa0000 0602'), Buffer.alloc(144, 1))))).not.toBe('LineCall (DPI)');
    expect(await on(cli(cat(hex('b6130006'), Buffer.alloc(43, 1))))).not.toBe('LineCall (DPI)');
    expect(await run('udp', 41101, 41200, cli(cat(hex('b6130006'), Buffer.alloc(42, 1))))).not.toBe('LineCall (DPI)');
    // on LINE's addresses a datagram of no known shape goes on to rule 2
    expect(nameOf((await replay(frames('udp', HOME, LINE4, 41102, 41200, counters(0x10, 0x70))))[0]!)).toBe('LineCall (DPI)');
  });

  it('rule 2: four datagrams each way whose byte 3 counts up from different bases, any address, IPv4 and IPv6', async () => {
    expect(await run('udp', 41110, 41210, counters(0x10, 0x70))).toBe('LineCall (DPI)');
    expect(await run('udp', 41111, 41211, counters(0xfe, 0x00), true)).toBe('LineCall (DPI)'); // wraps at 256
    // three each way: not yet
    expect(await run('udp', 41112, 41212, counters(0x10, 0x70).slice(0, 7))).not.toBe('LineCall (DPI)');
    // the same base both ways rules it out
    expect(await run('udp', 41113, 41213, counters(0x10, 0x10))).not.toBe('LineCall (DPI)');
    // a counter skipping a value
    const gap = counters(0x10, 0x70);
    gap[4] = [true, counted(0x13)];
    expect(await run('udp', 41114, 41214, gap)).not.toBe('LineCall (DPI)');
    // a datagram of 10 bytes rules it out; 11 bytes count
    const short = counters(0x10, 0x70);
    short[2] = [true, counted(0x11, 10)];
    expect(await run('udp', 41115, 41215, short)).not.toBe('LineCall (DPI)');
    short[2] = [true, counted(0x11, 11)];
    expect(await run('udp', 41116, 41216, short)).toBe('LineCall (DPI)');
  });

  it('RTP or RTCP between them is stepped over before the 10th payload datagram, and rules LINE out from it on', async () => {
    const m = counters(0x10, 0x70);
    expect(await run('udp', 41120, 41220, [...m.slice(0, 4), [true, rtpPkt(1)], ...m.slice(4)])).toBe('LineCall (DPI)');
    // client counts 4 by the 7th datagram, the server's 4th comes 11th
    const late: Msg[] = [[true, counted(0x10)], [false, counted(0x70)], [true, counted(0x11)], [false, counted(0x71)], [true, counted(0x12)], [false, counted(0x72)], [true, counted(0x13)], [true, counted(0x14)], [true, counted(0x15)]];
    expect(await run('udp', 41121, 41221, [...late, [true, counted(0x16)], [false, counted(0x73)]])).toBe('LineCall (DPI)');
    expect(await run('udp', 41122, 41222, [...late, [true, rtpPkt(1)], [false, counted(0x73)]])).not.toBe('LineCall (DPI)');
    // an RTCP receiver report (RFC 3550 §6.4.2: PT 201, length 1 = 8 bytes) stepped over as well
    const rtcp = cat(hex('80c90001'), u32(0x1234), Buffer.alloc(4));
    expect(await run('udp', 41123, 41223, [...m.slice(0, 4), [false, cat(rtcp, Buffer.alloc(4))], ...m.slice(4)])).toBe('LineCall (DPI)');
  });

  it("counters are kept per nDPI direction: with equal ports over IPv6 both sides are one direction", async () => {
    expect(await run('udp', 41130, 41130, counters(0x10, 0x70))).toBe('LineCall (DPI)');
    expect(await run('udp', 41131, 41131, counters(0x10, 0x70), true)).not.toBe('LineCall (DPI)');
  });
});

// ── tinc 1.0 meta protocol (tinc's documentation, "The meta-protocol").
const tincId = (name: string, ver = '17') => txt(`0 ${name} ${ver}\n`);
const tincKey = (key = '7A2B9C04D1E8F3A6') => txt(`1 94 64 0 0 ${key}\n`);
const tincHello = (): Msg[] => [[true, tincId('alice')], [false, tincId('bob')], [true, tincKey()], [false, tincKey('00FF11EE22DD33CC')]];

describe('tinc (tinc.c)', () => {
  it('two ID lines then two METAKEY lines name the TCP flow; IPv4 only', async () => {
    expect(await run('tcp', 41300, 655, tincHello())).toBe('TINC (DPI)');
    expect(await run('tcp', 41301, 41655, tincHello())).toBe('TINC (DPI)');
    expect(await run('tcp', 41302, 655, tincHello(), true)).not.toBe('TINC (DPI)');
  });

  it('one detail off rules it out: the version, the order, a key in lower case, a name opening with a space', async () => {
    const h = tincHello();
    expect(await run('tcp', 41310, 41655, [h[0]!, [false, tincId('bob', '18')], h[2]!, h[3]!])).not.toBe('TINC (DPI)');
    expect(await run('tcp', 41311, 41655, [h[0]!, h[2]!, h[1]!, h[3]!])).not.toBe('TINC (DPI)');
    expect(await run('tcp', 41312, 41655, [h[0]!, h[1]!, h[2]!, [false, tincKey('00ff11ee')]])).not.toBe('TINC (DPI)');
    expect(await run('tcp', 41313, 41655, [[true, txt('0  alice 17\n')], h[1]!, h[2]!, h[3]!])).not.toBe('TINC (DPI)');
    expect(await run('tcp', 41314, 41655, [[true, txt('0 alice 17\r\n')], h[1]!, h[2]!, h[3]!])).not.toBe('TINC (DPI)');
  });

  it("the named connection's endpoints name the first UDP flow between them with the server's port on its side, once", async () => {
    const tcp = frames('tcp', C4, S4, 41320, 41655, tincHello());
    const pkt = Buffer.alloc(40, 0x77);
    const flows = await replay([...tcp, udpFrame(C4, S4, 41321, 41655, pkt), udpFrame(S4, C4, 41655, 41321, pkt), udpFrame(C4, S4, 41322, 41655, pkt)]);
    const udpFlows = flows.filter((f) => f.proto === 17).map((f) => [f.client.port, nameOf(f)]);
    expect(udpFlows).toContainEqual([41321, 'TINC (DPI (cache))']);
    expect(udpFlows.find(([port]) => port === 41322)?.[1]).not.toBe('TINC (DPI (cache))');
    // either side may send it; the server's port on the wrong side is not the tunnel
    const back = await replay([...frames('tcp', C4, S4, 41330, 41655, tincHello()), udpFrame(S4, C4, 41655, 41331, pkt)]);
    expect(back.filter((f) => f.proto === 17).map(nameOf)).toEqual(['TINC (DPI (cache))']);
    const wrong = await replay([...frames('tcp', C4, S4, 41340, 41655, tincHello()), udpFrame(C4, S4, 41655, 41341, pkt)]);
    expect(wrong.filter((f) => f.proto === 17).map(nameOf)).not.toContain('TINC (DPI (cache))');
  });
});

// ── CAPWAP (RFC 5415 §4.1–4.5): preamble, header (HLEN in words, RID,
// WBID, T flag …), optional radio MAC; control header (type, sequence,
// message element length, flags); the DTLS header then a DTLS record.
/** A plain header: HLEN 2 words, WBID 2 with T set (no frame the decoder unwraps); byte 8 on is `rest`. */
const capHead = (rest: Buffer) => cat(hex('00100500 00000000'), rest);
/** A control message of nDPI's length: element length + 13 = the datagram. */
const capCtl = (elems: Buffer, delta = 0) => capHead(cat(u32(1), Buffer.from([7]), u16(elems.length + 3 + delta), Buffer.from([0]), elems));
const capDtls = (body: Buffer, delta = 0) => cat(hex('01000000'), hex('16fefd0000'), hex('000000000001'), u16(body.length + delta), body);
/** A discovery request whose header carries the radio MAC (length 6 at byte 8). */
const capDiscovery = () => cat(hex('00200300 00000000'), hex('06 020000000001 00'), u32(1), hex('00 0009 00'), hex('0014 0001 02'), Buffer.alloc(4));
const elems = hex('0014 0001 02 0026 0004 00000001');

describe('CAPWAP (capwap.c)', () => {
  it('a control message from or to 5246 whose element length fills the datagram; a DTLS record likewise', async () => {
    expect(await run('udp', 41400, 5246, cli(capCtl(elems)))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 5246, 41401, cli(capCtl(elems)))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 41402, 5246, cli(capDtls(Buffer.alloc(40, 0x9a))))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 41403, 5246, cli(capCtl(elems)), true)).toBe('CAPWAP (DPI)');
    expect(await run('udp', 41404, 5246, cli(capCtl(elems, 1)))).not.toBe('CAPWAP (DPI)');
    expect(await run('udp', 41405, 5246, cli(capDtls(Buffer.alloc(40, 0x9a), -1)))).not.toBe('CAPWAP (DPI)');
    expect(await run('udp', 41406, 5250, cli(capCtl(elems)))).not.toBe('CAPWAP (DPI)');
    // preamble version 1 is neither form
    const v1 = capCtl(elems);
    v1[0] = 0x10;
    expect(await run('udp', 41407, 5246, cli(v1))).not.toBe('CAPWAP (DPI)');
  });

  it('a discovery request with a radio MAC sent to the discovery addresses, whatever its lengths', async () => {
    const disc = capDiscovery();
    const at = async (dst: string) => nameOf((await replay([udpFrame(dst.includes(':') ? C6 : C4, dst, 41410, 5246, disc)]))[0]!);
    expect(await at('255.255.255.255')).toBe('CAPWAP (DPI)');
    expect(await at('224.0.1.140')).toBe('CAPWAP (DPI)');
    expect(await at(S4)).not.toBe('CAPWAP (DPI)');
    // IPv6: what nDPI's byte-swapped test accepts, not the All-ACs group itself
    expect(await at('ff00:300::8c01:0')).toBe('CAPWAP (DPI)');
    expect(await at('ff02::18c')).not.toBe('CAPWAP (DPI)');
  });

  it('the data channel: from 5247 an 802.11 data frame type; to 5247 a radio MAC / wireless length or a length that fits', async () => {
    const data = (b8: number, b9: number, n = 24) => {
      const b = capHead(Buffer.alloc(n - 8, 0x00));
      b[8] = b8;
      b[9] = b9;
      return b;
    };
    expect(await run('udp', 5247, 41420, cli(data(0, 0x08)))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 5247, 41421, cli(data(0, 0x04)))).not.toBe('CAPWAP (DPI)');
    for (const b8 of [1, 4, 6]) expect(await run('udp', 41422, 5247, cli(data(b8, 0)))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 41423, 5247, cli(data(2, 0)))).not.toBe('CAPWAP (DPI)');
    const fits = data(2, 0, 30);
    fits.writeUInt16BE(30 - 15, 13);
    expect(await run('udp', 41424, 5247, cli(fits))).toBe('CAPWAP (DPI)');
    expect(await run('udp', 41425, 5247, cli(data(6, 0, 15)))).not.toBe('CAPWAP (DPI)');
    expect(await run('udp', 41426, 5247, cli(data(6, 0)), true)).toBe('CAPWAP (DPI)');
    // to 5247 at a discovery address the data rule does not apply
    expect(nameOf((await replay([udpFrame(C4, '255.255.255.255', 41427, 5247, data(6, 0))]))[0]!)).not.toBe('CAPWAP (DPI)');
  });
});

// ── MongoDB wire protocol: MsgHeader (messageLength, requestID,
// responseTo, opCode, little-endian), then the body.
const mongo = (op: number, body: Buffer, len?: number) => cat(le32(len ?? 16 + body.length), le32(7), le32(0), le32(op), body);
const bsonEmpty = hex('0500000000');
const opMsg = () => mongo(2013, cat(le32(0), Buffer.from([0]), bsonEmpty));
const opReply = (flags = 0, docs = bsonEmpty) => mongo(1, cat(le32(flags), Buffer.alloc(8), le32(0), le32(1), docs));

describe('MongoDB (mongodb.c)', () => {
  it('OP_MSG and the legacy opcodes name the TCP flow on any port; IPv6 as IPv4', async () => {
    expect(await run('tcp', 41500, 27017, cli(opMsg()))).toBe('MongoDB (DPI)');
    for (const op of [2001, 2002, 2003, 2004, 2005, 2006, 2007]) expect(await run('tcp', 41501, 41017, cli(mongo(op, Buffer.alloc(20, 0x61))))).toBe('MongoDB (DPI)');
    expect(await run('tcp', 41502, 41017, cli(opMsg()), true)).toBe('MongoDB (DPI)');
  });

  it('OP_REPLY names it with only the defined flag bits and past its 20-byte header; else it waits, up to 6 packets', async () => {
    expect(await run('tcp', 41510, 41017, cli(opReply(0x0f)))).toBe('MongoDB (DPI)');
    expect(await run('tcp', 41511, 41017, cli(opReply(0x10)))).not.toBe('MongoDB (DPI)');
    expect(await run('tcp', 41512, 41017, cli(opReply(0, Buffer.alloc(0))))).not.toBe('MongoDB (DPI)');
    expect(await run('tcp', 41513, 41017, cli(opReply(0, hex('00'))))).toBe('MongoDB (DPI)');
    const waits = Array.from({ length: 5 }, () => opReply(0x10));
    expect(await run('tcp', 41514, 41017, alt(...waits, opMsg()))).toBe('MongoDB (DPI)');
    expect(await run('tcp', 41515, 41017, alt(...waits, opReply(0x10), opMsg()))).not.toBe('MongoDB (DPI)');
  });

  it('a length under 4 or over 1,000,000, another opcode (OP_COMPRESSED too), 16 bytes or less, or UDP are not MongoDB', async () => {
    expect(await run('tcp', 41520, 27017, cli(mongo(2013, Buffer.alloc(10), 3)))).not.toBe('MongoDB (DPI)');
    expect(await run('tcp', 41521, 27017, cli(mongo(2013, Buffer.alloc(10), 1000001)))).not.toBe('MongoDB (DPI)');
    expect(await run('tcp', 41522, 27017, cli(mongo(2013, Buffer.alloc(10), 1000000)))).toBe('MongoDB (DPI)');
    expect(await run('tcp', 41523, 27017, cli(mongo(2012, Buffer.alloc(10))))).not.toBe('MongoDB (DPI)');
    expect(await run('tcp', 41524, 27017, cli(mongo(2013, Buffer.alloc(0))))).not.toBe('MongoDB (DPI)');
    expect(await run('udp', 41525, 27017, cli(opMsg()))).not.toBe('MongoDB (DPI)');
  });
});

// ── CoAP (RFC 7252 §3): Ver | T | TKL, Code (class.detail), Message ID.
const coap = (b0: number, code: number, tail = hex('b16162')) => cat(Buffer.from([b0, code]), u16(0x1234), tail);

describe('CoAP (coap.c)', () => {
  it('version 1, a token length below 8 and a code nDPI knows, on 5683 or 61616–61631; IPv6 too', async () => {
    expect(await run('udp', 41600, 5683, cli(coap(0x40, 0x01)))).toBe('COAP (DPI)'); // CON GET
    expect(await run('udp', 5683, 41601, cli(coap(0x64, 0x45, hex('01020304'))))).toBe('COAP (DPI)'); // ACK 2.05, token of 4
    expect(await run('udp', 41602, 61616, cli(coap(0x50, 0x02)))).toBe('COAP (DPI)');
    expect(await run('udp', 61631, 41603, cli(coap(0x77, 0xa5, Buffer.alloc(7))))).toBe('COAP (DPI)'); // RST 5.05
    expect(await run('udp', 41604, 5683, cli(hex('40000000')), true)).toBe('COAP (DPI)'); // the empty message, 4 bytes
  });

  it('another port, version, token length 8, an unknown code, or 3 bytes are not CoAP', async () => {
    expect(await run('udp', 41610, 5684, cli(coap(0x40, 0x01)))).not.toBe('COAP (DPI)');
    expect(await run('udp', 41611, 61632, cli(coap(0x40, 0x01)))).not.toBe('COAP (DPI)');
    expect(await run('udp', 41612, 5683, cli(coap(0x80, 0x01)))).not.toBe('COAP (DPI)');
    expect(await run('udp', 41613, 5683, cli(coap(0x48, 0x01, Buffer.alloc(8))))).not.toBe('COAP (DPI)');
    for (const code of [0x06, 0x46, 0x87, 0x8c - 1, 0x90, 0xa6]) expect(await run('udp', 41614, 5683, cli(coap(0x40, code)))).not.toBe('COAP (DPI)');
    expect(await run('udp', 41615, 5683, cli(hex('400100')))).not.toBe('COAP (DPI)');
    expect(await run('tcp', 41616, 5683, cli(coap(0x40, 0x01)))).not.toBe('COAP (DPI)');
  });
});

// ── KNXnet/IP (KNX 03.08.02 §2.3): header length 6, version 0x10,
// service type, total length; SEARCH_REQUEST carries an HPAI.
const knx = (svc: number, body: Buffer, total?: number) => cat(hex('0610'), u16(svc), u16(total ?? 6 + body.length), body);
const hpai = hex('0801 c0a8010a 0e57');

describe('KNXnet/IP (knxnet_ip.c)', () => {
  it('a known service whose total length is the datagram or segment, any port, UDP or TCP, IPv6 too', async () => {
    expect(await run('udp', 41700, 3671, cli(knx(0x0201, hpai)))).toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41701, 41671, cli(knx(0x0530, hex('2900bce011010a0301008000'))))).toBe('KNXnet_IP (DPI)');
    expect(await run('tcp', 41702, 3671, cli(knx(0x0420, hex('04010200 2900bce0'))), true)).toBe('KNXnet_IP (DPI)');
    for (const svc of [0x020c, 0x0310, 0x0425, 0x0743, 0x0950]) expect(await run('udp', 41703, 3671, cli(knx(svc, hpai)))).toBe('KNXnet_IP (DPI)');
  });

  it('over TCP a segment of two frames counts when a second header follows the first, 10 bytes from it', async () => {
    const two = cat(knx(0x0420, hex('04010200 2900bce0')), knx(0x0421, hex('04010200')));
    expect(await run('tcp', 41710, 3671, cli(two))).toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41711, 3671, cli(two))).not.toBe('KNXnet_IP (DPI)');
    const second = knx(0x0421, hex('04010200'));
    second[3] = 0x26; // no tunnelling service 0x0426
    expect(await run('tcp', 41712, 3671, cli(cat(knx(0x0420, hex('04010200 2900bce0')), second)))).not.toBe('KNXnet_IP (DPI)');
    expect(await run('tcp', 41713, 3671, cli(cat(knx(0x0420, hex('04010200 2900bce0')), hex('0610 0421 000a 0401'))))).not.toBe('KNXnet_IP (DPI)');
    // a total length of 0 points the second header back at the first: nDPI reads it so
    expect(await run('tcp', 41714, 3671, cli(knx(0x0420, hex('04010200 2900bce0'), 0)))).toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41715, 3671, cli(knx(0x0420, hex('04010200 2900bce0'), 0)))).not.toBe('KNXnet_IP (DPI)');
  });

  it('an unknown service or family, a header off, a total length off, or under 10 bytes are not KNXnet/IP', async () => {
    for (const svc of [0x0200, 0x020d, 0x0312, 0x0601, 0x0820, 0x0956]) expect(await run('udp', 41720, 3671, cli(knx(svc, hpai)))).not.toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41721, 3671, cli(cat(hex('0611'), knx(0x0201, hpai).subarray(2))))).not.toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41722, 3671, cli(knx(0x0201, hpai, 15)))).not.toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41723, 3671, cli(knx(0x0207, hex('01000801'))))).toBe('KNXnet_IP (DPI)');
    expect(await run('udp', 41724, 3671, cli(knx(0x0207, hex('010008'))))).not.toBe('KNXnet_IP (DPI)');
  });
});

// ── LDP (RFC 5036 §3.1, §3.5): version 1, PDU length (bytes after it),
// LSR id and label space; then a message: type, length, id, TLVs.
const ldp = (type: number, tlvs: Buffer, pduDelta = 0, version = 1) => {
  const msg = cat(u16(type), u16(4 + tlvs.length), u32(1), tlvs);
  return cat(u16(version), u16(6 + msg.length + pduDelta), hex('0a000001 0000'), msg);
};
const helloTlv = hex('0400 0004 000f 0000');
const sessionTlv = hex('0500 000e 0001 00b4 0000 1000 0a000002 0000');

describe('LDP (ldp.c)', () => {
  it('a Hello over UDP, a session message or a vendor-private one over TCP, any port, IPv6 too', async () => {
    expect(await run('udp', 646, 646, cli(ldp(0x0100, helloTlv)))).toBe('LDP (DPI)');
    expect(await run('udp', 41800, 41646, cli(ldp(0x0100, helloTlv)), true)).toBe('LDP (DPI)');
    for (const t of [0x0200, 0x0201, 0x0202, 0x0300, 0x0301, 0x0400, 0x0404, 0x0500, 0x0501, 0x0700, 0x0703, 0x3e00, 0x3eff])
      expect(await run('tcp', 41801, 646, cli(ldp(t, sessionTlv)))).toBe('LDP (DPI)');
    expect(await run('tcp', 41802, 41646, cli(ldp(0x0200, sessionTlv)), true)).toBe('LDP (DPI)');
  });

  it('a Hello over TCP, a session message over UDP, another type, a PDU length or version off, 19 bytes: no LDP', async () => {
    expect(await run('tcp', 41810, 646, cli(ldp(0x0100, helloTlv)))).not.toBe('LDP (DPI)');
    expect(await run('udp', 41811, 646, cli(ldp(0x0200, sessionTlv)))).not.toBe('LDP (DPI)');
    for (const t of [0x0203, 0x0405, 0x0502, 0x0704, 0x3dff, 0x3f00]) expect(await run('tcp', 41812, 646, cli(ldp(t, sessionTlv)))).not.toBe('LDP (DPI)');
    expect(await run('udp', 41813, 646, cli(ldp(0x0100, helloTlv, 1)))).not.toBe('LDP (DPI)');
    expect(await run('udp', 41814, 646, cli(ldp(0x0100, helloTlv, 0, 2)))).not.toBe('LDP (DPI)');
    // a lone KeepAlive is 18 bytes: too short for nDPI; with one more byte of TLV it counts
    expect(await run('tcp', 41815, 646, cli(ldp(0x0201, Buffer.alloc(0))))).not.toBe('LDP (DPI)');
    expect(await run('tcp', 41816, 646, cli(ldp(0x0201, Buffer.alloc(2))))).toBe('LDP (DPI)');
    expect(await run('tcp', 41817, 646, cli(ldp(0x0201, Buffer.alloc(1))))).not.toBe('LDP (DPI)');
  });
});

// ── Omron FINS (W227 manual): over TCP the FINS/TCP header ("FINS",
// length, command, error code); over UDP the 10-byte FINS header (ICF, RSV,
// GCT, DNA, DA1, DA2, SNA, SA1, SA2, SID) then the command.
const finsUdp = (o: Partial<Record<'icf' | 'rsv' | 'gct' | 'dna' | 'da2' | 'sna' | 'sa2', number>> = {}, tail = hex('0101 820000 000001')) =>
  cat(Buffer.from([o.icf ?? 0x80, o.rsv ?? 0, o.gct ?? 2, o.dna ?? 0, 0x01, o.da2 ?? 0, o.sna ?? 0, 0x02, o.sa2 ?? 0, 0x01]), tail);
const finsTcp = () => cat(txt('FINS'), u32(12), u32(0), u32(0), u32(0));

describe('FINS (fins.c)', () => {
  it('over TCP "FINS" in a segment of 20 bytes or more; over UDP the header values nDPI checks', async () => {
    expect(await run('tcp', 41900, 9600, cli(finsTcp()))).toBe('FINS (DPI)');
    expect(await run('tcp', 41901, 41600, cli(finsTcp()), true)).toBe('FINS (DPI)');
    expect(await run('tcp', 41902, 9600, cli(finsTcp().subarray(0, 19)))).not.toBe('FINS (DPI)');
    expect(await run('tcp', 41903, 9600, cli(cat(txt('FINT'), finsTcp().subarray(4))))).not.toBe('FINS (DPI)');
    expect(await run('udp', 41904, 9600, cli(finsUdp()))).toBe('FINS (DPI)');
    expect(await run('udp', 41905, 41600, cli(finsUdp({ icf: 0xc1, dna: 0x7f, sna: 0x7f, da2: 0xfe, sa2: 0x1f })), true)).toBe('FINS (DPI)');
    expect(await run('udp', 41906, 9600, cli(finsUdp({ icf: 0xc0, da2: 0xe1, sa2: 0x10 }, hex('00'))))).toBe('FINS (DPI)');
  });

  it('over UDP: ICF, RSV, GCT, a network over 0x7f, a unit address off, or 10 bytes are not FINS', async () => {
    const near = [finsUdp({ icf: 0x81 }), finsUdp({ rsv: 1 }), finsUdp({ gct: 7 }), finsUdp({ dna: 0x80 }), finsUdp({ sna: 0x80 }), finsUdp({ da2: 0x20 }), finsUdp({ sa2: 0x0f }), finsUdp({}, Buffer.alloc(0))];
    for (const p of near) expect(await run('udp', 41910, 9600, cli(p))).not.toBe('FINS (DPI)');
  });
});

// ── Roughtime (draft-ietf-ntp-roughtime): tag count N (LE), N-1 offsets,
// N tags, then the values.
const rtMsg = (tags: string[], values: Buffer[], count = tags.length) => {
  const offsets: Buffer[] = [];
  let at = 0;
  for (const v of values.slice(0, -1)) offsets.push(le32((at += v.length)));
  return cat(le32(count), ...offsets, ...tags.map((t) => Buffer.from(t, 'latin1')), ...values);
};
const rtRequest = () => rtMsg(['NONC', 'PAD\x00'], [Buffer.alloc(64, 0x4e), Buffer.alloc(944, 0)]);

describe('Roughtime (roughtime.c)', () => {
  it('a request of known tags in its first packet, UDP or TCP, any port, IPv6 too', async () => {
    expect(await run('udp', 42000, 2002, cli(rtRequest()))).toBe('Roughtime (DPI)');
    expect(await run('tcp', 42001, 42002, cli(rtRequest()), true)).toBe('Roughtime (DPI)');
    expect(await run('udp', 42002, 2002, cli(rtMsg(['SIG\xff', 'VER\xff', 'zzzz'], [Buffer.alloc(64), Buffer.alloc(4), Buffer.alloc(8)])))).toBe('Roughtime (DPI)');
    expect(await run('udp', 42003, 2002, cli(rtMsg(['SREP'], [Buffer.alloc(4)])))).toBe('Roughtime (DPI)');
  });

  it('an unknown tag, none, more than 22, no room for the tags, or the last offset past the end are not Roughtime', async () => {
    expect(await run('udp', 42010, 2002, cli(rtMsg(['NONC', 'PADX'], [Buffer.alloc(64), Buffer.alloc(100)])))).not.toBe('Roughtime (DPI)');
    expect(await run('udp', 42011, 2002, cli(rtMsg(['NONC', 'ZZZZ'], [Buffer.alloc(64), Buffer.alloc(100)])))).not.toBe('Roughtime (DPI)');
    expect(await run('udp', 42012, 2002, cli(cat(le32(0), Buffer.alloc(40))))).not.toBe('Roughtime (DPI)');
    const many = Array.from({ length: 23 }, () => 'PAD\x00');
    expect(await run('udp', 42013, 2002, cli(rtMsg(many, many.map(() => Buffer.alloc(4)))))).not.toBe('Roughtime (DPI)');
    expect(await run('udp', 42014, 2002, cli(rtMsg(many.slice(1), many.slice(1).map(() => Buffer.alloc(4)))))).toBe('Roughtime (DPI)');
    // two tags need 16 bytes: count, one offset, two tags
    expect(await run('udp', 42015, 2002, cli(cat(le32(2), le32(0), txt('NONCPAD'))))).not.toBe('Roughtime (DPI)');
    expect(await run('udp', 42018, 2002, cli(cat(le32(2), le32(0), txt('NONCPAD\x00'))))).toBe('Roughtime (DPI)');
    const past = rtRequest(); // 1024 bytes
    past.writeUInt32LE(1024 - 8 + 1, 4); // the offset counted from after the offsets (not the tags), as nDPI does
    expect(await run('udp', 42016, 2002, cli(past))).not.toBe('Roughtime (DPI)');
    past.writeUInt32LE(1024 - 8, 4);
    expect(await run('udp', 42017, 2002, cli(past))).toBe('Roughtime (DPI)');
  });
});

// ── Munin (munin-node's protocol: the node greets first).
describe('Munin (munin.c)', () => {
  it('the greeting names the flow and its host as nDPI stores it; IPv6 too', async () => {
    const f = await flowOf('tcp', 42100, 4949, [[false, txt('# munin node at Node1.Example.org\n')]]);
    expect(nameOf(f)).toBe('Munin (DPI)');
    expect(f.host_name).toBe('node1.example.org');
    expect(f.risks).not.toContain('Malformed Packet');
    const g = await flowOf('tcp', 42101, 42949, [[false, txt('# munin node at a\tb\x01c   \n')]], true);
    expect(nameOf(g)).toBe('Munin (DPI)');
    expect(g.host_name).toBe('a b?c');
  });

  it('no newline at the end or no host raises the malformed-packet risk; another opening or a later packet is no Munin', async () => {
    const noNl = await flowOf('tcp', 42110, 4949, [[false, txt('# munin node at host1')]]);
    expect(nameOf(noNl)).toBe('Munin (DPI)');
    expect(noNl.risks).toContain('Malformed Packet');
    expect(noNl.host_name).toBe('');
    expect((await flowOf('tcp', 42111, 4949, [[false, txt('# munin node at \n')]])).risks).toContain('Malformed Packet');
    expect(await run('tcp', 42112, 4949, [[false, txt('# Munin node at host1\n')]])).not.toBe('Munin (DPI)');
    expect(await run('tcp', 42113, 4949, [[true, txt('list\n')], [false, txt('# munin node at host1\n')]])).not.toBe('Munin (DPI)');
    expect(await run('udp', 42114, 4949, [[false, txt('# munin node at host1\n')]])).not.toBe('Munin (DPI)');
  });
});

// ── OICQ (Wireshark's packet-oicq.c: flag, version, command, sequence).
const oicq = (cmd: number, flag = 0x02, ver = 0x3b0b) => cat(Buffer.from([flag]), u16(ver), u16(cmd), u16(1), Buffer.alloc(16, 0x31), hex('03'));

describe('OICQ (oicq.c)', () => {
  it('flag 2, version 0x3b0b and a command 0x0001–0x00b5 or 0x03f7, any port, IPv6 too', async () => {
    for (const cmd of [0x0001, 0x0022, 0x00b5, 0x03f7]) expect(await run('udp', 42200, 8000, cli(oicq(cmd)))).toBe('OICQ (DPI)');
    expect(await run('udp', 42201, 42800, cli(oicq(0x0022)), true)).toBe('OICQ (DPI)');
    expect(await run('udp', 42202, 42800, cli(hex('023b0b0022 0001')))).toBe('OICQ (DPI)');
  });
  it('command 0, 0x00b6, 0x03f6 or 0x03f8, another flag or version, 6 bytes, TCP: no OICQ', async () => {
    for (const cmd of [0, 0x00b6, 0x03f6, 0x03f8]) expect(await run('udp', 42210, 8000, cli(oicq(cmd)))).not.toBe('OICQ (DPI)');
    expect(await run('udp', 42211, 8000, cli(oicq(0x22, 0x03)))).not.toBe('OICQ (DPI)');
    expect(await run('udp', 42212, 8000, cli(oicq(0x22, 0x02, 0x3b0c)))).not.toBe('OICQ (DPI)');
    expect(await run('udp', 42213, 8000, cli(hex('023b0b0022 00')))).not.toBe('OICQ (DPI)');
    expect(await run('tcp', 42214, 8000, cli(oicq(0x22)))).not.toBe('OICQ (DPI)');
  });
});

// ── UBNTAC2: Ubiquiti discovery (UDP 10001), its announce's product tag.
const ubnt = (tag: string, at: number, n = 135) => {
  const b = Buffer.alloc(n, 0x01);
  b.write(tag, at, 'latin1');
  return b;
};
describe('UBNTAC2 (ubntac2.c)', () => {
  it('"UBNT" at 36 or "ubnt" at 49 in 135 bytes or more, from or to 10001; IPv6 too', async () => {
    expect(await run('udp', 42300, 10001, cli(ubnt('UBNT', 36)))).toBe('UBNTAC2 (DPI)');
    expect(await run('udp', 10001, 42301, cli(ubnt('ubnt', 49, 200)))).toBe('UBNTAC2 (DPI)');
    expect(await run('udp', 42302, 10001, cli(ubnt('UBNT', 36)), true)).toBe('UBNTAC2 (DPI)');
  });
  it('134 bytes, the tag elsewhere or in the other case, another port: no UBNTAC2', async () => {
    expect(await run('udp', 42310, 10001, cli(ubnt('UBNT', 36, 134)))).not.toBe('UBNTAC2 (DPI)');
    expect(await run('udp', 42311, 10001, cli(ubnt('UBNT', 37)))).not.toBe('UBNTAC2 (DPI)');
    expect(await run('udp', 42312, 10001, cli(ubnt('UBNT', 49)))).not.toBe('UBNTAC2 (DPI)');
    expect(await run('udp', 42313, 10002, cli(ubnt('UBNT', 36)))).not.toBe('UBNTAC2 (DPI)');
  });
});

// ── Threema (Cryptography Whitepaper, chat protocol): 48-byte client
// hello, 80-byte server hello, 191-byte login, its ack, then frames of a
// 16-bit little-endian length.
const thr = (n: number) => Buffer.alloc(n, 0xa7);
const thrFrame = (n: number, delta = 0) => cat(le16(n + delta), Buffer.alloc(n, 0x5e));
describe('Threema (threema.c)', () => {
  it('48, 80, 191 bytes, one packet of any size, then one length-prefixed frame, with 5222 on either side; IPv6 too', async () => {
    expect(await run('tcp', 42400, 5222, alt(thr(48), thr(80), thr(191), thr(32), thrFrame(100)))).toBe('Threema (DPI)');
    expect(await run('tcp', 5222, 42401, alt(thr(48), thr(80), thr(191), thr(32), thrFrame(0)), true)).toBe('Threema (DPI)');
  });
  it('a size off, the frame length off, or another port: no Threema', async () => {
    expect(await run('tcp', 42410, 5222, alt(thr(48), thr(81), thr(191), thr(32), thrFrame(100)))).not.toBe('Threema (DPI)');
    expect(await run('tcp', 42411, 5222, alt(thr(48), thr(80), thr(190), thr(32), thrFrame(100)))).not.toBe('Threema (DPI)');
    expect(await run('tcp', 42412, 5222, alt(thr(48), thr(80), thr(191), thr(32), thrFrame(100, 1)))).not.toBe('Threema (DPI)');
    expect(await run('tcp', 42413, 5223, alt(thr(48), thr(80), thr(191), thr(32), thrFrame(100)))).not.toBe('Threema (DPI)');
  });
});

// ── OPC UA (OPC 10000-6 §7.1.2): message type, chunk type 'F', size.
const opc = (type: string, n = 32) => cat(txt(type), le32(n), Buffer.alloc(n - 8, 0));
describe('OPC-UA (opc-ua.c)', () => {
  it('HEL, ACK, RHE, OPN, MSG, ERR or CLO as a final chunk in 16 bytes or more, any port; IPv6 too', async () => {
    for (const t of ['HELF', 'ACKF', 'RHEF', 'OPNF', 'MSGF', 'ERRF', 'CLOF']) expect(await run('tcp', 42500, 4840, cli(opc(t)))).toBe('OPC-UA (DPI)');
    expect(await run('tcp', 42501, 42840, cli(opc('HELF', 16)), true)).toBe('OPC-UA (DPI)');
  });
  it('an intermediate or abort chunk, 15 bytes, or UDP: no OPC-UA', async () => {
    for (const t of ['MSGC', 'MSGA', 'HELX']) expect(await run('tcp', 42510, 4840, cli(opc(t)))).not.toBe('OPC-UA (DPI)');
    expect(await run('tcp', 42511, 4840, cli(opc('HELF', 16).subarray(0, 15)))).not.toBe('OPC-UA (DPI)');
    expect(await run('udp', 42512, 4840, cli(opc('HELF')))).not.toBe('OPC-UA (DPI)');
  });
});

// ── IEC 62056-46 HDLC frame: 7E, frame format A0 + length, addresses,
// control, (HCS, information,) FCS (CRC-16/X.25, little-endian), 7E.
const hdlc = (inner: Buffer, flip = 0) => {
  const fcs = crcX25(inner) ^ flip;
  return cat(hex('7e'), inner, le16(fcs), hex('7e'));
};
const snrm = hex('a0 07 03 21 93'); // format + length 7, server address 3, client 0x10 (0x21), SNRM (0x93)
describe('IEC62056 (iec62056.c)', () => {
  it('an HDLC frame of format type A whose FCS holds, over TCP or UDP, any port; IPv6 too', async () => {
    expect(await run('tcp', 42600, 4059, cli(hdlc(snrm)))).toBe('IEC62056 (DPI)');
    expect(await run('udp', 42601, 42059, cli(hdlc(cat(hex('a0 19 03 21 10'), Buffer.alloc(20, 0x42)))))).toBe('IEC62056 (DPI)');
    expect(await run('tcp', 42602, 42059, cli(hdlc(snrm)), true)).toBe('IEC62056 (DPI)');
  });
  it('an FCS off by one bit, another format byte, no closing flag, or 8 bytes: no IEC62056', async () => {
    expect(await run('tcp', 42610, 4059, cli(hdlc(snrm, 1)))).not.toBe('IEC62056 (DPI)');
    expect(await run('tcp', 42611, 4059, cli(hdlc(hex('a8 07 03 21 93'))))).not.toBe('IEC62056 (DPI)');
    expect(await run('tcp', 42612, 4059, cli(hdlc(snrm).subarray(0, 8)))).not.toBe('IEC62056 (DPI)');
    expect(await run('tcp', 42613, 4059, cli(hdlc(hex('a0 07 03 21'))))).not.toBe('IEC62056 (DPI)');
    expect(await run('tcp', 42614, 4059, cli(hdlc(hex('a0 07 03 21 93 00'))))).toBe('IEC62056 (DPI)');
  });
});

// ── MS-TDS 2.2.3.1: Type, Status, Length (big-endian, the whole
// packet), SPID, PacketID, Window.
const tds = (type: number, status: number, body: Buffer, o: { lenDelta?: number; window?: number } = {}) =>
  cat(Buffer.from([type, status]), u16(8 + body.length + (o.lenDelta ?? 0)), u16(0), Buffer.from([1, o.window ?? 0]), body);
const prelogin = hex('00 0015 0006 01 001b 0001 ff 0e000dac 0000 00');
describe('MS SQL TDS (mssql_tds.c)', () => {
  it('a known type and status, Length the segment, Window 0, any port but 102; IPv6 too', async () => {
    expect(await run('tcp', 42700, 1433, cli(tds(0x12, 0x01, prelogin)))).toBe('MsSQL-TDS (DPI)');
    for (const [type, status] of [[1, 0], [8, 2], [14, 4], [18, 8], [4, 0x09], [16, 0x10]])
      expect(await run('tcp', 42701, 42433, cli(tds(type!, status!, prelogin)))).toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42702, 42433, cli(tds(0x12, 0x01, prelogin)), true)).toBe('MsSQL-TDS (DPI)');
  });
  it('type 9 or 19, status 3, Length or Window off, to port 102, or UDP: no TDS', async () => {
    expect(await run('tcp', 42710, 1433, cli(tds(9, 1, prelogin)))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42711, 1433, cli(tds(19, 1, prelogin)))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42712, 1433, cli(tds(0x12, 3, prelogin)))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42713, 1433, cli(tds(0x12, 1, prelogin, { lenDelta: 1 })))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42714, 1433, cli(tds(0x12, 1, prelogin, { window: 1 })))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 42715, 102, cli(tds(0x12, 1, prelogin)))).not.toBe('MsSQL-TDS (DPI)');
    expect(await run('tcp', 102, 42716, cli(tds(0x12, 1, prelogin)))).toBe('MsSQL-TDS (DPI)');
    expect(await run('udp', 42717, 1433, cli(tds(0x12, 1, prelogin)))).not.toBe('MsSQL-TDS (DPI)');
  });
});

// ── BFD (RFC 5880 §4.1 control packet: Vers | Diag, Sta | flags,
// Detect Mult, Length, discriminators, intervals; RFC 5881 ports).
const bfdCtl = (b0 = 0x20, n = 24, lenByte = n) => cat(Buffer.from([b0, 0xc0, 3, lenByte]), u32(1), u32(2), u32(1000000), u32(1000000), u32(0), Buffer.alloc(n - 24, 0));
const bfdEcho = () => cat(u32(0), u32(1), hex('abcd 0000'));
describe('BFD (bfd.c)', () => {
  it('a control packet of 24–100 bytes to 3784 whose Length byte is its size, version 0 or 1; the 12-byte echo to 3785; IPv6 too', async () => {
    expect(await run('udp', 49152, 3784, cli(bfdCtl()))).toBe('BFD (DPI)');
    expect(await run('udp', 49153, 3784, cli(bfdCtl(0x00, 100)))).toBe('BFD (DPI)');
    expect(await run('udp', 49154, 3785, cli(bfdEcho()))).toBe('BFD (DPI)');
    expect(await run('udp', 49155, 3784, cli(bfdCtl(0x3f, 48)), true)).toBe('BFD (DPI)');
  });
  it('version 2, a Length byte off, 101 bytes, from 3784 only, or an echo off: no BFD', async () => {
    expect(await run('udp', 49160, 3784, cli(bfdCtl(0x40)))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49161, 3784, cli(bfdCtl(0x20, 24, 25)))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49162, 3784, cli(bfdCtl(0x20, 101)))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49163, 3784, cli(bfdCtl(0x20, 24, 23).subarray(0, 23)))).not.toBe('BFD (DPI)');
    expect(await run('udp', 3784, 49164, cli(bfdCtl()))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49165, 3785, cli(cat(bfdEcho(), hex('00'))))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49166, 3785, cli(cat(u32(0), u32(2), hex('abcd 0000'))))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49167, 3785, cli(cat(u32(0), u32(1), hex('abcd 0001'))))).not.toBe('BFD (DPI)');
    expect(await run('udp', 49168, 3784, cli(bfdEcho()))).not.toBe('BFD (DPI)');
  });
});

// ── Discord voice: the keep-alive and IP discovery (Discord's developer
// documentation, "IP Discovery": type, length 70, SSRC, address, port).
const discoveryMsg = (type: number) => cat(u16(type), u16(70), u32(0x1234), Buffer.from('203.0.113.9'.padEnd(64, '\0'), 'latin1'), u16(50000));
const junk = (i: number) => Buffer.alloc(30, 0x61 + i);
describe('Discord (discord.c)', () => {
  it('the 8-byte keep-alive in the first 5 packets; an IP discovery request answered as the second packet; IPv6 too', async () => {
    expect(await run('udp', 42900, 50001, cli(hex('1337cafe 00000001')))).toBe('Discord (DPI)');
    expect(await run('udp', 42901, 50001, cli(junk(0), junk(1), junk(2), junk(3), hex('1337cafe 00000001')))).toBe('Discord (DPI)');
    expect(await run('udp', 42902, 50001, cli(junk(0), junk(1), junk(2), junk(3), junk(4), hex('1337cafe 00000001')))).not.toBe('Discord (DPI)');
    expect(await run('udp', 42903, 50001, alt(discoveryMsg(1), discoveryMsg(2)))).toBe('Discord (DPI)');
    expect(await run('udp', 42904, 50001, alt(discoveryMsg(1), discoveryMsg(2)), true)).toBe('Discord (DPI)');
  });
  it('the discovery answer as the third packet, a request not first, 9 bytes, or TCP: no Discord', async () => {
    expect(await run('udp', 42910, 50001, [[true, discoveryMsg(1)], [true, junk(0)], [false, discoveryMsg(2)]])).not.toBe('Discord (DPI)');
    expect(await run('udp', 42911, 50001, [[true, junk(0)], [true, discoveryMsg(1)], [false, discoveryMsg(2)]])).not.toBe('Discord (DPI)');
    expect(await run('udp', 42912, 50001, cli(hex('1337cafe 0000000100')))).not.toBe('Discord (DPI)');
    expect(await run('tcp', 42913, 50001, cli(hex('1337cafe 00000001')))).not.toBe('Discord (DPI)');
  });
});

// ── SD-RTN (Agora; nDPI's shape): byte 6 0x21, "\x04SNI" at 12, a 16-bit
// length, a zero byte, the server name.
const sdrtn = (name: string, o: { b6?: number; b18?: number; lenDelta?: number } = {}) => {
  const head = Buffer.alloc(12, 0x11);
  head[6] = o.b6 ?? 0x21;
  return cat(head, hex('04534e49'), u16(name.length + (o.lenDelta ?? 0)), Buffer.from([o.b18 ?? 0]), txt(name));
};
describe('SD-RTN (sd_rtn.c)', () => {
  it('the tagged server name names the flow and its host; IPv6 too', async () => {
    const f = await flowOf('udp', 43000, 43001, cli(sdrtn('Edge.Agora.io')));
    expect(nameOf(f)).toBe('SD-RTN (DPI)');
    expect(f.host_name).toBe('edge.agora.io');
    expect(await run('udp', 43002, 43001, cli(sdrtn('a.io')), true)).toBe('SD-RTN (DPI)');
  });
  it('byte 6, the zero byte or a length past the end off: no SD-RTN', async () => {
    expect(await run('udp', 43010, 43001, cli(sdrtn('edge.agora.io', { b6: 0x22 })))).not.toBe('SD-RTN (DPI)');
    expect(await run('udp', 43011, 43001, cli(sdrtn('edge.agora.io', { b18: 1 })))).not.toBe('SD-RTN (DPI)');
    expect(await run('udp', 43012, 43001, cli(sdrtn('edge.agora.io', { lenDelta: 1 })))).not.toBe('SD-RTN (DPI)');
    expect(await run('udp', 43013, 43001, cli(sdrtn('edge.agora.io', { lenDelta: -1 })))).toBe('SD-RTN (DPI)');
    expect(await run('tcp', 43014, 43001, cli(sdrtn('edge.agora.io')))).not.toBe('SD-RTN (DPI)');
  });
});

// ── TP-Link Smart Home Protocol (softScheck's write-up): JSON under an
// autokey XOR from 171; over TCP a 32-bit length first.
const tpEnc = (s: string) => {
  let k = 171;
  return Buffer.from([...Buffer.from(s, 'latin1')].map((c) => (k = c ^ k)));
};
const sysinfo = '{"system":{"get_sysinfo":{}}}';
describe('TP-Link SHP (tplink_shp.c)', () => {
  it('a JSON object opening after decryption, UDP or TCP (after the length), any port; IPv6 too', async () => {
    expect(await run('udp', 43100, 9999, cli(tpEnc(sysinfo)))).toBe('TPLINK_SHP (DPI)');
    expect(await run('udp', 43101, 43999, cli(tpEnc('{}')))).toBe('TPLINK_SHP (DPI)');
    expect(await run('tcp', 43102, 9999, cli(cat(u32(sysinfo.length), tpEnc(sysinfo))))).toBe('TPLINK_SHP (DPI)');
    expect(await run('tcp', 43103, 43999, cli(cat(u32(99), tpEnc(sysinfo))), true)).toBe('TPLINK_SHP (DPI)');
  });
  it('another opening, plain JSON, TCP without its length, or 1 byte: no TP-Link SHP', async () => {
    expect(await run('udp', 43110, 9999, cli(tpEnc('[{}]')))).not.toBe('TPLINK_SHP (DPI)');
    expect(await run('udp', 43111, 9999, cli(tpEnc('{ "a":1}')))).not.toBe('TPLINK_SHP (DPI)');
    expect(await run('udp', 43112, 9999, cli(txt(sysinfo)))).not.toBe('TPLINK_SHP (DPI)');
    expect(await run('tcp', 43113, 9999, cli(tpEnc(sysinfo)))).not.toBe('TPLINK_SHP (DPI)');
    expect(await run('udp', 43114, 9999, cli(tpEnc('{')))).not.toBe('TPLINK_SHP (DPI)');
  });
});

// ── Tuya LAN protocol (Tuya SDK lan_protocol.h): prefix 000055AA,
// sequence, command, length, data, CRC, suffix 0000AA55.
const tuya = (o: { seq?: number; suffix?: number; data?: number } = {}) => {
  const data = Buffer.alloc(o.data ?? 24, 0x33);
  return cat(u32(0x55aa), u32(o.seq ?? 1), u32(10), u32(data.length + 8), data, u32(0xdeadbeef), u32(o.suffix ?? 0xaa55));
};
describe('Tuya LP (tuya_lp.c)', () => {
  it('prefix and suffix around a datagram of 16 bytes or more, any port; IPv6 too', async () => {
    expect(await run('udp', 6667, 6667, cli(tuya()))).toBe('TuyaLP (DPI)');
    expect(await run('udp', 43200, 43667, cli(tuya({ data: 0 })), true)).toBe('TuyaLP (DPI)');
    expect(await run('udp', 43201, 43667, cli(cat(u32(0x55aa), u32(16), u32(0), u32(0xaa55))))).toBe('TuyaLP (DPI)');
  });
  it('another suffix, a sequence number above the size (nDPI reads it as the length), 15 bytes, or TCP: no Tuya LP', async () => {
    expect(await run('udp', 43210, 6667, cli(tuya({ suffix: 0xaa56 })))).not.toBe('TuyaLP (DPI)');
    expect(await run('udp', 43211, 6667, cli(tuya({ seq: 49 })))).not.toBe('TuyaLP (DPI)'); // 48 bytes
    expect(await run('udp', 43212, 6667, cli(tuya({ seq: 48 })))).toBe('TuyaLP (DPI)');
    expect(await run('udp', 43213, 6667, cli(cat(u32(0x55aa), u32(0), hex('000000'), u32(0xaa55))))).not.toBe('TuyaLP (DPI)');
    expect(await run('tcp', 43214, 6667, cli(tuya()))).not.toBe('TuyaLP (DPI)');
  });
});
