// One hand-built flow per case: the group-A dissectors of round 9, the
// industrial and building-automation protocols (DNP3, IEC 60870-5-104,
// S7comm / S7comm-plus, EtherNet/IP, CIP I/O, OPC UA, PROFINET IO over
// DCE/RPC, PTPv2, KNXnet/IP, IEEE C37.118, Beckhoff ADS, HiSLIP, EtherSIO,
// Ether-S-Bus, ANSI C12.22, CNP/IP, NOE, TRDP) name their protocol by DPI
// under nDPI's conditions, and a near miss (one detail wrong) is not named
// that protocol by DPI (a guess by port may still name it).
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9a-');
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);

// ── Checksums the protocols carry ──────────────────────────────────────────
// CRC-16 with polynomial 0x1021, MSB first: CCITT-FALSE (init 0xffff, IEEE
// C37.118.2 CHK) and XMODEM (init 0, Ether-S-Bus).
const crc1021 = (b: Buffer, init: number) => {
  let c = init;
  for (const x of b) {
    c ^= x << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  }
  return c;
};
// CRC-32 (IEEE 802.3, reflected): TRDP's header FCS.
const crc32 = (b: Buffer) => {
  let c = 0xffffffff;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
};
// DNP3's link CRC (IEEE 1815 §9.2.4.2: polynomial 0x3d65 reflected, inverted), stored little-endian.
const crcDnp = (b: Buffer) => {
  let c = 0;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa6bc : c >>> 1;
  }
  return ~c & 0xffff;
};

// ── DNP3 (IEEE 1815-2012 §9.2: FT3 link frame) ─────────────────────────────
// 0x05 0x64, LENGTH (5 + user octets), CONTROL, DESTINATION, SOURCE (LE), CRC,
// then the user data in 16-octet blocks, each followed by its CRC.
const dnp3 = (ctrl: number, dst: number, src: number, user: Buffer = Buffer.alloc(0)) => {
  const hdr = Buffer.concat([bytes(0x05, 0x64, 5 + user.length, ctrl), le16(dst), le16(src)]);
  const parts: Buffer[] = [hdr, le16(crcDnp(hdr))];
  for (let i = 0; i < user.length; i += 16) {
    const blk = user.subarray(i, i + 16);
    parts.push(blk, le16(crcDnp(blk)));
  }
  return Buffer.concat(parts);
};
// Transport header FIR|FIN, application control FIR|FIN, READ of class 0
// data (object group 60 variation 1, qualifier 0x06: all).
const dnpRead = dnp3(0xc4, 10, 1, bytes(0xc0, 0xc0, 0x01, 0x3c, 0x01, 0x06));
// The outstation's response: FUNCTION 0x81 RESPONSE, IIN 0x0000.
const dnpResponse = dnp3(0x44, 1, 10, bytes(0xc0, 0xc0, 0x81, 0x00, 0x00));
// REQUEST LINK STATUS (PRM=1, function 9): the header alone, 10 octets.
const dnpLinkStatus = dnp3(0xc9, 10, 1);

// ── IEC 60870-5-104 (§5.1 APCI: 0x68, length, four control octets) ─────────
const apci = (ctrl: number[], asdu: Buffer = Buffer.alloc(0)) => Buffer.concat([bytes(0x68, 4 + asdu.length, ...ctrl), asdu]);
const STARTDT_ACT = apci([0x07, 0, 0, 0]); // U format (§5.3)
const STARTDT_CON = apci([0x0b, 0, 0, 0]);
const TESTFR_ACT = apci([0x43, 0, 0, 0]);
const sFrame = (rx: number) => apci([0x01, 0, (rx << 1) & 0xff, rx >> 7]); // S format (§5.2)
const iFrame = (tx: number, rx: number, asdu: Buffer) => apci([(tx << 1) & 0xff, tx >> 7, (rx << 1) & 0xff, rx >> 7], asdu); // I format (§5.1)
// C_IC_NA_1 (type 100) station interrogation, activation (IEC 60870-5-101
// §7.3.4.1): type, VSQ 1, COT 6, originator 0, common address 1, IOA 0, QOI 20.
const interrogation = bytes(100, 0x01, 0x06, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x14);

// ── S7comm over ISO-on-TCP (RFC 1006 §6 TPKT, ISO 8073 COTP) ───────────────
const tpkt = (body: Buffer) => Buffer.concat([bytes(3, 0), u16(4 + body.length), body]);
// COTP CR / CC (ISO 8073 §13.3 / §13.4): TPDU size 1024, calling / called TSAPs (rack 0 slot 2).
const cotpCR = tpkt(bytes(0x11, 0xe0, 0, 0, 0, 1, 0, 0xc0, 1, 0x0a, 0xc1, 2, 1, 0, 0xc2, 2, 1, 2));
const cotpCC = tpkt(bytes(0x11, 0xd0, 0, 1, 0, 2, 0, 0xc0, 1, 0x0a, 0xc1, 2, 1, 0, 0xc2, 2, 1, 2));
const cotpDT = bytes(0x02, 0xf0, 0x80); // DT TPDU, EOT
// S7 header: protocol id 0x32, ROSCTR, reserved (2), PDU ref, parameter and
// data lengths; ack (2) and ack-data (3) add error class and code.
const s7 = (rosctr: number, param: Buffer, data: Buffer = Buffer.alloc(0), reserved = 0) =>
  tpkt(Buffer.concat([cotpDT, bytes(0x32, rosctr), u16(reserved), u16(0x0100), u16(param.length), u16(data.length), rosctr === 2 || rosctr === 3 ? bytes(0, 0) : Buffer.alloc(0), param, data]));
// Setup communication (function 0xf0): max AmQ calling / called 1, PDU length 960.
const setupComm = bytes(0xf0, 0x00, 0x00, 0x01, 0x00, 0x01, 0x03, 0xc0);
// User data: read SZL 0x0011 (module identification).
const szlParam = bytes(0x00, 0x01, 0x12, 0x04, 0x11, 0x44, 0x01, 0x00);
const szlData = bytes(0xff, 0x09, 0x00, 0x04, 0x00, 0x11, 0x00, 0x00);
// S7comm-plus: protocol id 0x72, version, data length, data, and the
// trailer repeating 0x72, version, 0x0000.
const s7plus = (data: Buffer, trailer = 0x72) => tpkt(Buffer.concat([cotpDT, bytes(0x72, 0x01), u16(data.length), data, bytes(trailer, 0x01, 0x00, 0x00)]));
const s7plusCreate = Buffer.concat([bytes(0x31, 0x00, 0x00, 0x04, 0xca, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x20, 0x36), Buffer.alloc(16, 0)]);

// ── EtherNet/IP (CIP Vol. 2 §2-3.1 encapsulation header) ───────────────────
// command, length, session handle, status, sender context (8), options, data.
const encap = (cmd: number, data: Buffer, session = 0, lenDelta = 0) =>
  Buffer.concat([le16(cmd), le16(data.length + lenDelta), le32(session), le32(0), txt('fgctx001'), le32(0), data]);
const registerSession = encap(0x0065, Buffer.concat([le16(1), le16(0)])); // protocol version 1, options 0
const listIdentity = encap(0x0063, Buffer.alloc(0));
// SendRRData: interface handle, timeout, CPF with a null address item and an
// unconnected data item holding Get_Attributes_All on the Identity object.
const cipRequest = bytes(0x01, 0x02, 0x20, 0x01, 0x24, 0x01);
const sendRRData = encap(0x006f, Buffer.concat([le32(0), le16(10), le16(2), le16(0x0000), le16(0), le16(0x00b2), le16(cipRequest.length), cipRequest]), 0x12345678);

// ── CIP I/O (CIP Vol. 2 §2-6.1 Common Packet Format over UDP 2222) ─────────
// item count, sequenced address item (0x8002: connection id, sequence),
// connected data item (0x00b1: CIP sequence count, data).
const cpfItem = (type: number, data: Buffer, lenDelta = 0) => Buffer.concat([le16(type), le16(data.length + lenDelta), data]);
const cipIo = (io: Buffer, count = 2, lenDelta = 0) =>
  Buffer.concat([le16(count), cpfItem(0x8002, Buffer.concat([le32(0x11223344), le32(7)])), cpfItem(0x00b1, Buffer.concat([le16(7), io]), lenDelta)]);

// ── OPC UA (OPC 10000-6 §7.1.2: message type, chunk type, size LE32) ───────
const uaChunk = (type: string, body: Buffer) => Buffer.concat([txt(type), le32(8 + body.length), body]);
// Hello (§7.1.2.3): protocol version, buffer sizes, max message size, max chunk count, endpoint URL.
const uaHello = (type = 'HELF') =>
  uaChunk(type, Buffer.concat([le32(0), le32(65536), le32(65536), le32(0), le32(0), le32(26), txt('opc.tcp://plc.example:4840')]));
const uaAck = uaChunk('ACKF', Buffer.concat([le32(0), le32(65536), le32(65536), le32(0), le32(0)]));
// ReverseHello (§7.1.2.6): server URI and endpoint URL.
const uaReverseHello = uaChunk('RHEF', Buffer.concat([le32(8), txt('urn:plc1'), le32(26), txt('opc.tcp://plc.example:4840')]));
// OpenSecureChannel / MSG / CLO: secure channel id, then security header and body (not read).
const uaSecure = (type: string) => uaChunk(type, Buffer.concat([le32(1), le32(47), txt('http://opcfoundation.org/UA/SecurityPolicy#None'), le32(-1 >>> 0), le32(-1 >>> 0), le32(1), le32(1)]));
// Error (§7.1.2.5): error code, reason.
const uaError = uaChunk('ERRF', Buffer.concat([le32(0x80010000), le32(4), txt('oops')]));

// ── PROFINET IO over connectionless DCE/RPC (C706 §12.5.2, IEC 61158-6-10) ──
// 80-octet header: version 4, ptype, flags, data representation (0x10
// little-endian / 0x00 big-endian), serial hi, object UUID at 8, interface
// UUID at 24, activity UUID at 40, boot time, interface version, sequence,
// opnum, hints, body length at 74, fragment number, auth, serial lo.
const uuidFields = (little: boolean, tl: number, tm: number, th: number, rest: number[]) =>
  Buffer.concat([little ? le32(tl) : u32(tl), little ? le16(tm) : u16(tm), little ? le16(th) : u16(th), bytes(...rest)]);
const PNIO_OBJECT = [0xdea00000, 0x6c97, 0x11d1, [0x82, 0x71, 0x00, 0x01, 0x00, 0x01, 0x01, 0x2c]] as const;
const PNIO_DEVICE_IF = [0xdea00001, 0x6c97, 0x11d1, [0x82, 0x71, 0x00, 0xa0, 0x24, 0x42, 0xdf, 0x7d]] as const;
const dceCl = (little: boolean, object: readonly [number, number, number, readonly number[]], body: Buffer, tcpish = false) => {
  const w16 = little ? le16 : u16;
  const w32 = little ? le32 : u32;
  return Buffer.concat([
    bytes(4, 0 /* request */, 0x20 /* idempotent */, 0, little ? 0x10 : 0x00, 0, 0, 0),
    uuidFields(little, object[0], object[1], object[2], [...object[3]]),
    uuidFields(little, PNIO_DEVICE_IF[0], PNIO_DEVICE_IF[1], PNIO_DEVICE_IF[2], [...PNIO_DEVICE_IF[3]]),
    Buffer.alloc(16, 0x5a), // activity
    w32(0), w32(1), w32(0), w16(0 /* Connect */), w16(0xffff), w16(0xffff), w16(body.length + (tcpish ? 1 : 0)), w16(0), bytes(0, 0),
    body,
  ]);
};
const pnioConnect = Buffer.concat([u32(0x100), u32(0), u32(0x100), u32(0), u32(0)]); // NDR args: max, length, max count, offset, actual count

// ── PTPv2 (IEEE 1588-2008 §13.3 common header, 34 octets) ──────────────────
// transportSpecific|messageType, reserved|versionPTP, messageLength,
// domainNumber, reserved, flagField, correctionField, reserved,
// sourcePortIdentity, sequenceId, controlField, logMessageInterval.
const ptp = (type: number, body: Buffer, version = 0x02) =>
  Buffer.concat([bytes(type, version), u16(34 + body.length), bytes(0, 0), u16(0x0200), Buffer.alloc(8, 0), u32(0), bytes(0x00, 0x1b, 0x19, 0xff, 0xfe, 0x00, 0x00, 0x01), u16(1), u16(42), bytes(type === 0 ? 0 : type === 1 ? 1 : 5, 0), body]);
const timestamp = Buffer.concat([u16(0), u32(1700000000), u32(500)]); // §5.3.3 Timestamp: 48-bit seconds, nanoseconds
const ptpSync = ptp(0x0, timestamp); // §13.6
const ptpDelayReq = ptp(0x1, timestamp); // §13.6
// Announce (§13.5): origin timestamp, currentUtcOffset, reserved, priority1,
// clockQuality, priority2, grandmasterIdentity, stepsRemoved, timeSource.
const ptpAnnounce = ptp(0xb, Buffer.concat([timestamp, u16(37), bytes(0, 128, 248, 0xfe, 0xff, 0xff, 128), Buffer.alloc(8, 0x11), u16(0), bytes(0xa0)]));

// ── KNXnet/IP (KNX 03.08.02 §2.3 header: 0x06, 0x10, service, total length) ──
const knx = (service: number, body: Buffer, version = 0x10, lenDelta = 0) => Buffer.concat([bytes(0x06, version), u16(service), u16(6 + body.length + lenDelta), body]);
const hpai = (proto: number) => bytes(0x08, proto, 192, 168, 1, 20, 0x0e, 0x57); // §8.6.2: UDP (1) / TCP (2), 192.168.1.20:3671
const knxSearch = knx(0x0201, hpai(1)); // SEARCH_REQUEST
const knxConnect = (proto: number) => knx(0x0205, Buffer.concat([hpai(proto), hpai(proto), bytes(0x04, 0x04, 0x02, 0x00)])); // CONNECT_REQUEST, CRI tunnel link layer
// TUNNELLING_REQUEST (03.08.04 §4.4.6): connection header, cEMI L_Data.req group write.
const knxTunnel = knx(0x0420, Buffer.concat([bytes(0x04, 0x01, 0x00, 0x00), bytes(0x11, 0x00, 0xbc, 0xe0, 0x11, 0x01, 0x0a, 0x01, 0x01, 0x00, 0x81)]));
const knxTunnelAck = (seq: number) => knx(0x0421, bytes(0x04, 0x01, seq, 0x00));
const knxSecure = knx(0x0950, Buffer.concat([u16(0), Buffer.alloc(6, 1), Buffer.alloc(6, 2), u16(0), Buffer.alloc(20, 3), Buffer.alloc(16, 4)])); // SECURE_WRAPPER (03.08.09)

// ── IEEE C37.118.2-2011 (§6.2: SYNC, FRAMESIZE, IDCODE, SOC, FRACSEC …, CHK) ──
const c37 = (typeNibble: number, body: Buffer, opts: { sizeDelta?: number; badChk?: boolean } = {}) => {
  const head = Buffer.concat([bytes(0xaa, (typeNibble << 4) | 0x1), u16(2 + 2 + 2 + 4 + 4 + body.length + 2 + (opts.sizeDelta ?? 0)), u16(7), u32(1700000000), u32(0x00000100), body]);
  return Buffer.concat([head, u16(crc1021(head, 0xffff) ^ (opts.badChk ? 1 : 0))]);
};
const c37Command = c37(4, u16(0x0002)); // §6.5: CMD 0x0002, turn on transmission
const c37Data = c37(0, Buffer.concat([u16(0x0000), u16(0x1000), u16(0x0200), u16(0), u16(0)])); // §6.3: STAT, one phasor, FREQ, DFREQ

// ── Beckhoff ADS (AMS/TCP header, 32-octet AMS header, ADS data; all LE) ────
const netId = (last: number) => bytes(192, 168, 1, last, 1, 1);
const ads = (cmd: number, flags: number, data: Buffer, opts: { error?: number; reserved?: number; dataDelta?: number } = {}) => {
  const ams = Buffer.concat([netId(10), le16(851), netId(20), le16(32905), le16(cmd), le16(flags), le32(data.length + (opts.dataDelta ?? 0)), le32(opts.error ?? 0), le32(77), data]);
  return Buffer.concat([le16(opts.reserved ?? 0), le32(ams.length), ams]);
};
const adsRead = ads(2, 0x0004, Buffer.concat([le32(0x4020), le32(0), le32(4)])); // ADS Read: index group, offset, length
const adsReadResp = ads(2, 0x0005, Buffer.concat([le32(0), le32(4), le32(0xdeadbeef)])); // result, length, data
const adsDeviceInfo = ads(1, 0x0004, Buffer.alloc(0)); // ReadDeviceInfo: no data, 38 octets

// ── HiSLIP (IVI-6.1 §2.2: "HS", type, control, parameter, length BE64) ──────
const hislip = (type: number, control: number, param: Buffer, payload: Buffer, lenDelta = 0) =>
  Buffer.concat([txt('HS'), bytes(type, control), param, u32(0), u32(payload.length + lenDelta), payload]);
const hsInitialize = hislip(0, 0, Buffer.concat([u16(0x0100), txt('FG')]), txt('hislip0')); // §6.1 Initialize
const hsInitResponse = hislip(1, 0, Buffer.concat([u16(0x0100), u16(1)]), Buffer.alloc(0)); // InitializeResponse
const hsDataEnd = hislip(7, 0, u32(1), txt('*IDN?\n')); // DataEND

// ── EtherSIO / Ether-S-Bus (Saia-Burgess) ──────────────────────────────────
const esio = (b4: number, b5: number, b6: number, size = 20) => Buffer.concat([txt('ESIO'), bytes(b4, b5, b6), Buffer.alloc(size - 7, 0x20)]);
// Ether-S-Bus frame: length BE32, version, protocol type, sequence, telegram
// (attribute request, station 1, read register 0x06, count, address), CRC.
const sbus = (opts: { version?: number; type?: number; lenDelta?: number; badCrc?: boolean } = {}) => {
  const telegram = bytes(0x00, 0x01, 0x06, 0x03, 0x00, 0x64);
  const head = Buffer.concat([u32(4 + 2 + 2 + telegram.length + 2 + (opts.lenDelta ?? 0)), bytes(opts.version ?? 0, opts.type ?? 0), u16(1), telegram]);
  return Buffer.concat([head, u16(crc1021(head, 0) ^ (opts.badCrc ? 0x100 : 0))]);
};

// ── ANSI C12.22 (ACSE APDU in BER: 0x60, length, called AP title 0xa2 …) ────
const ber = (tag: number, content: Buffer) => Buffer.concat([bytes(tag, content.length), content]);
const c1222 = (opts: { tag?: number; first?: number; lenDelta?: number; epsem?: number } = {}) => {
  const body = Buffer.concat([
    ber(opts.first ?? 0xa2, ber(0x06, bytes(0x7b, 0xc5, 0x1b, 0x01))), // called AP title (relative OID)
    ber(0xa6, ber(0x06, bytes(0x7b, 0xc5, 0x1b, 0x02))), // calling AP title
    ber(0xa8, ber(0x02, bytes(0x05))), // calling AE qualifier
    ber(0xbe, ber(0x28, ber(0x81, Buffer.concat([bytes(0x80), bytes(opts.epsem ?? 24), bytes(0x30), Buffer.alloc((opts.epsem ?? 24) - 1, 0x11)])))), // user information: EPSEM
  ]);
  return Buffer.concat([bytes(opts.tag ?? 0x60, body.length + (opts.lenDelta ?? 0)), body]);
};

// ── CNP/IP (ANSI/CEA-852 common header, 20 octets) ──────────────────────────
const cnp = (opts: { type?: number; ext?: number; flags?: number; lenDelta?: number; data?: Buffer } = {}) => {
  const data = opts.data ?? bytes(0x00, 0x0c, 0x81, 0x01, 0x02, 0x03, 0x04, 0x05);
  return Buffer.concat([u16(20 + data.length + (opts.lenDelta ?? 0)), bytes(0x01, opts.type ?? 0x01, opts.ext ?? 0, opts.flags ?? 0), u16(0), u32(0x1234), u32(9), u32(1700000000), data]);
};

// ── TRDP (IEC 61375-2-3 Annex A) ───────────────────────────────────────────
const withFcs = (head: Buffer, badFcs = false) => Buffer.concat([head, le32((crc32(head) ^ (badFcs ? 1 : 0)) >>> 0)]);
// Process data (§A.6.3): sequence, version 1.0, "Pd", ComId, topo counters,
// dataset length, reserved, reply ComId, reply IP, header FCS.
const trdpPd = (dataset: Buffer, opts: { reserved?: number; badFcs?: boolean; type?: string } = {}) =>
  Buffer.concat([withFcs(Buffer.concat([u32(5), u16(0x0100), txt(opts.type ?? 'Pd'), u32(1001), u32(0), u32(0), u32(dataset.length), u32(opts.reserved ?? 0), u32(0), u32(0)]), opts.badFcs), dataset]);
// Message data (§A.7.3): … dataset length, reply status, session UUID, reply
// timeout, source and destination URIs (32 each), FCS; dataset padded to 4.
const trdpMd = (dataset: Buffer, opts: { pad?: boolean; badFcs?: boolean } = {}) => {
  const head = Buffer.concat([u32(1), u16(0x0100), txt('Mr'), u32(2002), u32(0), u32(0), u32(dataset.length), u32(0), Buffer.alloc(16, 0x42), u32(1000000), Buffer.alloc(32, 0), Buffer.alloc(32, 0)]);
  const pad = opts.pad === false ? 0 : (4 - (dataset.length % 4)) % 4;
  return Buffer.concat([withFcs(head, opts.badFcs), dataset, Buffer.alloc(pad, 0)]);
};

describe('dissectors 9 (group A)', () => {
  it('DNP3: the first segment opens with a link header (0x05 0x64, 10 octets at least), on any port', async () => {
    expect(await classify('tcp', 41000, 20000, [dnpRead, dnpResponse])).toBe('DNP3 (DPI)');
    expect(await classify('tcp', 41001, 20000, [dnpLinkStatus])).toBe('DNP3 (DPI)');
    // the outstation speaks first (unsolicited response)
    expect(await classify('tcp', 41002, 20000, [dnpResponse], [false])).toBe('DNP3 (DPI)');
    // nDPI does not require port 20000
    expect(await classify('tcp', 41003, 33000, [dnpRead, dnpResponse])).toBe('DNP3 (DPI)');
    expect(await classify('tcp', 41004, 20000, [dnpRead, dnpResponse], undefined, v6)).toBe('DNP3 (DPI)');
  });

  it('DNP3 near misses: 9 octets, a wrong start octet, DNP3 after a first segment that is not, over UDP', async () => {
    expect(await classify('tcp', 41010, 33000, [dnpLinkStatus.subarray(0, 9)])).not.toBe('DNP3 (DPI)');
    expect(await classify('tcp', 41011, 33000, [Buffer.concat([bytes(0x05, 0x65), dnpRead.subarray(2)])])).not.toBe('DNP3 (DPI)');
    expect(await classify('tcp', 41012, 33000, [txt('hello there, outstation\r\n'), dnpRead])).not.toBe('DNP3 (DPI)');
    // nDPI has DNP3 over TCP only
    expect(await classify('udp', 41013, 20000, [dnpRead, dnpResponse])).not.toBe('DNP3 (DPI)');
  });

  it('IEC 60870-5-104: APDUs (0x68, length) filling the first segment exactly, one or several, on any port', async () => {
    expect(await classify('tcp', 41100, 2404, [STARTDT_ACT, STARTDT_CON])).toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41101, 2404, [iFrame(0, 0, interrogation), sFrame(1)])).toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41102, 2404, [Buffer.concat([sFrame(3), TESTFR_ACT, iFrame(5, 3, interrogation)])])).toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41103, 2404, [STARTDT_CON], [false])).toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41104, 33001, [STARTDT_ACT, STARTDT_CON])).toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41105, 2404, [iFrame(0, 0, interrogation)], undefined, v6)).toBe('IEC60870 (DPI)');
  });

  it('IEC 60870-5-104 near misses: a length one too long or short, a zero length, a second frame without 0x68, UDP', async () => {
    expect(await classify('tcp', 41110, 33001, [Buffer.concat([STARTDT_ACT, bytes(0)])])).not.toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41111, 33001, [STARTDT_ACT.subarray(0, 5)])).not.toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41112, 33001, [bytes(0x68, 0x00, 0x68, 0x04, 0x07, 0, 0, 0)])).not.toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41113, 33001, [Buffer.concat([STARTDT_ACT, bytes(0x69, 0x04, 0x07, 0, 0, 0)])])).not.toBe('IEC60870 (DPI)');
    expect(await classify('tcp', 41114, 33001, [txt('GET / HTTP/1.0\r\n\r\n'), STARTDT_ACT])).not.toBe('IEC60870 (DPI)');
    expect(await classify('udp', 41115, 2404, [STARTDT_ACT, STARTDT_CON])).not.toBe('IEC60870 (DPI)');
  });

  it('S7comm on port 102: job, ack-data and user-data PDUs, after the COTP connection setup', async () => {
    const job = s7(1, setupComm), ack = s7(3, setupComm);
    expect(await classify('tcp', 41200, 102, [cotpCR, cotpCC, job, ack])).toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41201, 102, [job, ack])).toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41202, 102, [ack], [false])).toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41203, 102, [s7(7, szlParam, szlData)])).toBe('S7Comm (DPI)');
    // ack without data (ROSCTR 2)
    expect(await classify('tcp', 41204, 102, [cotpCR, cotpCC, s7(2, Buffer.alloc(0))])).toBe('S7Comm (DPI)');
    // the port on the client's side counts too
    expect(await classify('tcp', 102, 41205, [job, ack])).toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41206, 102, [cotpCR, cotpCC, job, ack], undefined, v6)).toBe('S7Comm (DPI)');
  });

  it('S7comm-plus on port 102: protocol id 0x72 and the same id in the trailer', async () => {
    expect(await classify('tcp', 41210, 102, [cotpCR, cotpCC, s7plus(s7plusCreate)])).toBe('S7CommPlus (DPI)');
    expect(await classify('tcp', 41211, 102, [s7plus(s7plusCreate)], undefined, v6)).toBe('S7CommPlus (DPI)');
  });

  it('S7comm near misses: another port, ROSCTR 4, reserved set, no trailer, a broken TPKT length, something else after setup', async () => {
    expect(await classify('tcp', 41220, 1102, [cotpCR, cotpCC, s7(1, setupComm), s7(3, setupComm)])).not.toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41221, 1102, [s7plus(s7plusCreate)])).not.toBe('S7CommPlus (DPI)');
    expect(await classify('tcp', 41222, 102, [s7(4, setupComm)])).not.toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41223, 102, [s7(1, setupComm, Buffer.alloc(0), 1)])).not.toBe('S7Comm (DPI)');
    expect(await classify('tcp', 41224, 102, [s7plus(s7plusCreate, 0x73)])).not.toBe('S7CommPlus (DPI)');
    const badLen = s7(1, setupComm);
    badLen.writeUInt16BE(badLen.length + 1, 2);
    expect(await classify('tcp', 41225, 102, [badLen])).not.toBe('S7Comm (DPI)');
    // a segment that is not TPKT ends the watch: the S7 job after it comes too late
    expect(await classify('tcp', 41226, 102, [cotpCR, txt('not a tpkt segment'), s7(1, setupComm)], [true, false, true])).not.toBe('S7Comm (DPI)');
    // a TPKT segment of 17 octets (the minimum is 18) does too
    expect(await classify('tcp', 41227, 102, [tpkt(Buffer.concat([cotpDT, bytes(0x32, 1, 0, 0, 0, 1, 0, 0, 0, 0)])), s7(1, setupComm)], [true, true])).not.toBe('S7Comm (DPI)');
  });

  it('EtherNet/IP on TCP port 44818: the length field plus the 24-octet header equals the first segment', async () => {
    expect(await classify('tcp', 41300, 44818, [registerSession, encap(0x0065, Buffer.concat([le16(1), le16(0)]), 0x12345678)])).toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 41301, 44818, [listIdentity])).toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 41302, 44818, [sendRRData])).toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 44818, 41303, [sendRRData])).toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 41304, 44818, [registerSession], undefined, v6)).toBe('EthernetIP (DPI)');
  });

  it('EtherNet/IP near misses: another port, a length one off, 23 octets, UDP', async () => {
    expect(await classify('tcp', 41310, 44819, [registerSession])).not.toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 41311, 44818, [encap(0x0065, Buffer.concat([le16(1), le16(0)]), 0, 1)])).not.toBe('EthernetIP (DPI)');
    expect(await classify('tcp', 41312, 44818, [listIdentity.subarray(0, 23)])).not.toBe('EthernetIP (DPI)');
    expect(await classify('udp', 41313, 44818, [listIdentity])).not.toBe('EthernetIP (DPI)');
  });

  it('CIP I/O: a Common Packet Format item list over UDP 2222 on both sides, 12 to 63 octets', async () => {
    expect(await classify('udp', 2222, 2222, [cipIo(bytes(0, 0, 0, 0)), cipIo(bytes(1, 2, 3, 4))])).toBe('CIP (DPI)');
    expect(await classify('udp', 2222, 2222, [cipIo(Buffer.alloc(38, 0x55))], undefined, v6)).toBe('CIP (DPI)');
    // a single item (count 1): the smallest list
    expect(await classify('udp', 2222, 2222, [Buffer.concat([le16(1), cpfItem(0x00b1, bytes(1, 0, 9, 9, 9, 9))])])).toBe('CIP (DPI)');
    // nDPI's walk keeps its offset in 8 bits: an item length of 270 lands on 20
    expect(await classify('udp', 2222, 2222, [Buffer.concat([le16(1), le16(0x00b1), le16(270), Buffer.alloc(14, 0)])])).toBe('CIP (DPI)');
  });

  it('CIP near misses: port 2222 on one side only, 64 octets, 11 octets, an item length one off, a count over 255', async () => {
    expect(await classify('udp', 41400, 2222, [cipIo(bytes(0, 0, 0, 0))])).not.toBe('CIP (DPI)');
    expect(await classify('udp', 2222, 2222, [cipIo(Buffer.alloc(44, 0x55))])).not.toBe('CIP (DPI)');
    expect(await classify('udp', 2222, 2222, [Buffer.concat([le16(1), cpfItem(0x00b1, bytes(1, 0, 9, 9, 9))])])).not.toBe('CIP (DPI)');
    expect(await classify('udp', 2222, 2222, [cipIo(bytes(0, 0, 0, 0), 2, 1)])).not.toBe('CIP (DPI)');
    expect(await classify('udp', 2222, 2222, [cipIo(bytes(0, 0, 0, 0), 0x0102)])).not.toBe('CIP (DPI)');
  });

  it('OPC UA: the first segment opens with a final-chunk message type, on any port', async () => {
    expect(await classify('tcp', 41500, 4840, [uaHello(), uaAck])).toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41501, 4840, [uaAck], [false])).toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41502, 4840, [uaReverseHello], [false])).toBe('OPC-UA (DPI)');
    for (const [i, t] of ['OPNF', 'MSGF', 'CLOF'].entries()) expect(await classify('tcp', 41503 + i, 4840, [uaSecure(t)])).toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41506, 4840, [uaError], [false])).toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41507, 53530, [uaHello(), uaAck])).toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41508, 4840, [uaHello(), uaAck], undefined, v6)).toBe('OPC-UA (DPI)');
  });

  it('OPC UA near misses: an intermediate or abort chunk first, lower case, 15 octets, UDP', async () => {
    expect(await classify('tcp', 41510, 4840, [uaSecure('MSGC')])).not.toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41511, 4840, [uaSecure('MSGA')])).not.toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41512, 4840, [uaHello('helF')])).not.toBe('OPC-UA (DPI)');
    expect(await classify('tcp', 41513, 4840, [uaHello().subarray(0, 15)])).not.toBe('OPC-UA (DPI)');
    expect(await classify('udp', 41514, 4840, [uaHello()])).not.toBe('OPC-UA (DPI)');
  });

  it('PROFINET IO: a connectionless DCE/RPC call on the PNIO object UUID, either byte order (DCERPC.PROFINET_IO)', async () => {
    expect(await classify('udp', 49153, 34964, [dceCl(true, PNIO_OBJECT, pnioConnect)])).toBe('DCERPC.PROFINET_IO (DPI)');
    expect(await classify('udp', 49154, 34964, [dceCl(false, PNIO_OBJECT, pnioConnect)])).toBe('DCERPC.PROFINET_IO (DPI)');
    expect(await classify('udp', 49155, 40000, [dceCl(true, PNIO_OBJECT, pnioConnect)], undefined, v6)).toBe('DCERPC.PROFINET_IO (DPI)');
    // Data representation 0x11 (little-endian integers, EBCDIC): nDPI reads the
    // UUID by the high nibble (little-endian) but the body length as big-endian.
    const drep11 = Buffer.from(dceCl(true, PNIO_OBJECT, pnioConnect));
    drep11[4] = 0x11;
    drep11.writeUInt16BE(pnioConnect.length, 74);
    expect(await classify('udp', 49156, 34964, [drep11])).toBe('DCERPC.PROFINET_IO (DPI)');
  });

  it('PROFINET IO near misses: another object UUID (plain DCERPC), a body length one off', async () => {
    const other = [0xdea00000, 0x6c97, 0x11d2, [0x82, 0x71, 0x00, 0x01, 0x00, 0x01, 0x01, 0x2c]] as const;
    expect(await classify('udp', 49160, 34964, [dceCl(true, other, pnioConnect)])).toBe('DCERPC (DPI)');
    expect(await classify('udp', 49161, 34964, [dceCl(true, PNIO_OBJECT, pnioConnect, true)])).not.toBe('DCERPC.PROFINET_IO (DPI)');
  });

  it('PTPv2: sync, delay request and announce messages, ports 319 or 320 on both sides', async () => {
    expect(await classify('udp', 319, 319, [ptpSync, ptpDelayReq])).toBe('PTPv2 (DPI)');
    expect(await classify('udp', 320, 320, [ptpAnnounce])).toBe('PTPv2 (DPI)');
    // transportSpecific 1 (802.1AS) in the high nibble is not read
    expect(await classify('udp', 319, 319, [ptp(0x10, timestamp)])).toBe('PTPv2 (DPI)');
    expect(await classify('udp', 319, 319, [ptpSync], undefined, v6)).toBe('PTPv2 (DPI)');
  });

  it('PTPv2 near misses: mixed or one-sided ports, PTP 2.1 (0x12), version 1, messageType 15, the bare 34-octet header', async () => {
    expect(await classify('udp', 319, 320, [ptpSync])).not.toBe('PTPv2 (DPI)');
    expect(await classify('udp', 41600, 319, [ptpSync])).not.toBe('PTPv2 (DPI)');
    expect(await classify('udp', 319, 319, [ptp(0x0, timestamp, 0x12)])).not.toBe('PTPv2 (DPI)');
    expect(await classify('udp', 319, 319, [ptp(0x0, timestamp, 0x01)])).not.toBe('PTPv2 (DPI)');
    expect(await classify('udp', 320, 320, [ptp(0xf, timestamp)])).not.toBe('PTPv2 (DPI)');
    expect(await classify('udp', 320, 320, [ptp(0xd, Buffer.alloc(0))])).not.toBe('PTPv2 (DPI)');
  });

  it('KNXnet/IP over UDP: a known service and the total length equal to the datagram, on any port', async () => {
    expect(await classify('udp', 3671, 3671, [knxSearch])).toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41700, 3671, [knxConnect(1)])).toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41701, 3671, [knxTunnel, knxTunnelAck(0)])).toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 3671, 3671, [knx(0x0530, bytes(0x29, 0x00, 0xbc, 0xe0, 0x11, 0x01, 0x0a, 0x01, 0x01, 0x00, 0x81))])).toBe('KNXnet_IP (DPI)'); // ROUTING_INDICATION
    expect(await classify('udp', 41702, 3671, [knxSecure])).toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41703, 50000, [knxSearch])).toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41704, 3671, [knxConnect(1)], undefined, v6)).toBe('KNXnet_IP (DPI)');
  });

  it('KNXnet/IP over TCP: one frame, or a segment whose second frame opens with a valid header', async () => {
    expect(await classify('tcp', 41710, 3671, [knxConnect(2)])).toBe('KNXnet_IP (DPI)');
    expect(await classify('tcp', 41711, 3671, [Buffer.concat([knxTunnelAck(0), knxTunnelAck(1)])])).toBe('KNXnet_IP (DPI)');
    expect(await classify('tcp', 41712, 3671, [Buffer.concat([knxTunnel, knxTunnelAck(0)])], undefined, v6)).toBe('KNXnet_IP (DPI)');
  });

  it('KNXnet/IP near misses: version 0x11, a service outside the defined ones, a length one off, two frames over UDP, a bad second header', async () => {
    expect(await classify('udp', 41720, 3671, [knx(0x0201, hpai(1), 0x11)])).not.toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41721, 3671, [knx(0x020d, hpai(1))])).not.toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41722, 3671, [knx(0x0600, hpai(1))])).not.toBe('KNXnet_IP (DPI)'); // remote logging: no service defined
    expect(await classify('udp', 41723, 3671, [knx(0x0201, hpai(1), 0x10, 1)])).not.toBe('KNXnet_IP (DPI)');
    expect(await classify('udp', 41724, 3671, [Buffer.concat([knxTunnelAck(0), knxTunnelAck(1)])])).not.toBe('KNXnet_IP (DPI)');
    expect(await classify('tcp', 41725, 3671, [Buffer.concat([knxTunnelAck(0), knx(0x0426, bytes(0x04, 0x01, 1, 0))])])).not.toBe('KNXnet_IP (DPI)');
    // a second header with fewer than 10 octets from its start
    expect(await classify('tcp', 41726, 3671, [Buffer.concat([knxTunnelAck(0), bytes(0x06, 0x10, 0x04, 0x21, 0, 10, 4, 1, 1)])])).not.toBe('KNXnet_IP (DPI)');
  });

  it('IEEE C37.118: a single frame with SYNC 0xaa, FRAMESIZE and CHK right, TCP or UDP, on any port', async () => {
    expect(await classify('tcp', 41800, 4712, [c37Command, c37(3, Buffer.alloc(40, 1))])).toBe('IEEE-C37118 (DPI)');
    expect(await classify('udp', 41801, 4713, [c37Data])).toBe('IEEE-C37118 (DPI)');
    expect(await classify('udp', 41802, 50001, [c37Data], undefined, v6)).toBe('IEEE-C37118 (DPI)');
    expect(await classify('tcp', 41803, 50002, [c37(5, Buffer.alloc(12, 2))])).toBe('IEEE-C37118 (DPI)'); // CFG-3
  });

  it('IEEE C37.118 near misses: a bad CHK, frame type 6, FRAMESIZE one off, 16 octets, two frames in one segment', async () => {
    expect(await classify('tcp', 41810, 4712, [c37(4, u16(2), { badChk: true })])).not.toBe('IEEE-C37118 (DPI)');
    expect(await classify('tcp', 41811, 4712, [c37(6, u16(2))])).not.toBe('IEEE-C37118 (DPI)');
    expect(await classify('udp', 41812, 4713, [c37(0, Buffer.alloc(10), { sizeDelta: 1 })])).not.toBe('IEEE-C37118 (DPI)');
    expect(await classify('udp', 41813, 4713, [c37(4, Buffer.alloc(0))])).not.toBe('IEEE-C37118 (DPI)');
    expect(await classify('tcp', 41814, 4712, [Buffer.concat([c37Command, c37Command])])).not.toBe('IEEE-C37118 (DPI)');
  });

  it('Beckhoff ADS: AMS/TCP and AMS headers consistent with the segment, TCP state flags, a known command', async () => {
    expect(await classify('tcp', 41900, 48898, [adsRead, adsReadResp])).toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41901, 48898, [adsReadResp], [false])).toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41902, 48898, [adsDeviceInfo])).toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41903, 41904, [adsRead, adsReadResp])).toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41905, 48898, [adsRead], undefined, v6)).toBe('BeckhoffADS (DPI)');
    // error code 0x1e, the highest nDPI accepts
    expect(await classify('tcp', 41906, 48898, [ads(2, 0x0005, le32(0x1e), { error: 0x1e })], [false])).toBe('BeckhoffADS (DPI)');
  });

  it('Beckhoff ADS near misses: reserved set, UDP state flags, command 10, error 0x1f, data length off, 37 octets', async () => {
    const read = Buffer.concat([le32(0x4020), le32(0), le32(4)]);
    expect(await classify('tcp', 41910, 48898, [ads(2, 0x0004, read, { reserved: 1 })])).not.toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41911, 48898, [ads(2, 0x0044, read)])).not.toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41912, 48898, [ads(10, 0x0004, read)])).not.toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41913, 48898, [ads(2, 0x0005, le32(0x1f), { error: 0x1f })], [false])).not.toBe('BeckhoffADS (DPI)');
    expect(await classify('tcp', 41914, 48898, [ads(2, 0x0004, read, { dataDelta: 1 })])).not.toBe('BeckhoffADS (DPI)');
    const short = Buffer.concat([le16(0), le32(31), adsDeviceInfo.subarray(6, 37)]);
    expect(await classify('tcp', 41915, 48898, [short])).not.toBe('BeckhoffADS (DPI)');
  });

  it('HiSLIP: "HS", a message type below 127 and the payload length equal to the rest, on any port', async () => {
    expect(await classify('tcp', 42000, 4880, [hsInitialize, hsInitResponse])).toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42001, 4880, [hsInitResponse], [false])).toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42002, 4880, [hsDataEnd])).toBe('HiSLIP (DPI)');
    // type 126: not a standard type, but nDPI's signed test lets it pass
    expect(await classify('tcp', 42003, 4880, [hislip(126, 0, u32(0), Buffer.alloc(0))])).toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42004, 50003, [hsInitialize])).toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42005, 4880, [hsInitialize], undefined, v6)).toBe('HiSLIP (DPI)');
  });

  it('HiSLIP near misses: vendor-specific type 128, type 127, a length one off, "HT"', async () => {
    expect(await classify('tcp', 42010, 4880, [hislip(128, 0, u32(0), txt('x'))])).not.toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42011, 4880, [hislip(127, 0, u32(0), Buffer.alloc(0))])).not.toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42012, 4880, [hislip(0, 0, u32(0x0100_4647), txt('hislip0'), 1)])).not.toBe('HiSLIP (DPI)');
    expect(await classify('tcp', 42013, 4880, [Buffer.concat([txt('HT'), hsInitialize.subarray(2)])])).not.toBe('HiSLIP (DPI)');
  });

  it('EtherSIO: "ESIO", 0, a type up to 2, 0, 20 octets at least, on any port', async () => {
    expect(await classify('udp', 6060, 6060, [esio(0, 1, 0)])).toBe('EtherSIO (DPI)');
    expect(await classify('udp', 42100, 6060, [esio(0, 2, 0, 64)])).toBe('EtherSIO (DPI)');
    expect(await classify('udp', 42101, 42102, [esio(0, 0, 0)], undefined, v6)).toBe('EtherSIO (DPI)');
  });

  it('EtherSIO near misses: 19 octets, type 3, octet 4 or 6 set, "ESIP"', async () => {
    expect(await classify('udp', 6060, 6060, [esio(0, 1, 0, 19)])).not.toBe('EtherSIO (DPI)');
    expect(await classify('udp', 6060, 6060, [esio(0, 3, 0)])).not.toBe('EtherSIO (DPI)');
    expect(await classify('udp', 6060, 6060, [esio(1, 1, 0)])).not.toBe('EtherSIO (DPI)');
    expect(await classify('udp', 6060, 6060, [esio(0, 1, 1)])).not.toBe('EtherSIO (DPI)');
    expect(await classify('udp', 6060, 6060, [Buffer.concat([txt('ESIP'), esio(0, 1, 0).subarray(4)])])).not.toBe('EtherSIO (DPI)');
  });

  it('Ether-S-Bus: the length equal to the datagram and a valid CRC-16, on any port', async () => {
    expect(await classify('udp', 42200, 5050, [sbus()])).toBe('Ether-S-Bus (DPI)');
    expect(await classify('udp', 42201, 5050, [sbus({ version: 1 })])).toBe('Ether-S-Bus (DPI)');
    expect(await classify('udp', 42202, 42203, [sbus()], undefined, v6)).toBe('Ether-S-Bus (DPI)');
  });

  it('Ether-S-Bus near misses: a bad CRC, octet 4 = 2, octet 5 set, the length one off', async () => {
    expect(await classify('udp', 42210, 5050, [sbus({ badCrc: true })])).not.toBe('Ether-S-Bus (DPI)');
    expect(await classify('udp', 42211, 5050, [sbus({ version: 2 })])).not.toBe('Ether-S-Bus (DPI)');
    expect(await classify('udp', 42212, 5050, [sbus({ type: 1 })])).not.toBe('Ether-S-Bus (DPI)');
    expect(await classify('udp', 42213, 5050, [sbus({ lenDelta: 1 })])).not.toBe('Ether-S-Bus (DPI)');
  });

  it('ANSI C12.22: an ACSE APDU (0x60, length, called AP title) of 50 octets or more, TCP or UDP, any port', async () => {
    expect(await classify('tcp', 42300, 1153, [c1222()])).toBe('ANSI_C1222 (DPI)');
    expect(await classify('udp', 42301, 1153, [c1222()])).toBe('ANSI_C1222 (DPI)');
    expect(await classify('udp', 42302, 42303, [c1222({ epsem: 60 })], undefined, v6)).toBe('ANSI_C1222 (DPI)');
  });

  it('ANSI C12.22 near misses: tag 0x61, the length one off, another first element, 49 octets', async () => {
    expect(await classify('tcp', 42310, 1153, [c1222({ tag: 0x61 })])).not.toBe('ANSI_C1222 (DPI)');
    expect(await classify('tcp', 42311, 1153, [c1222({ lenDelta: 1 })])).not.toBe('ANSI_C1222 (DPI)');
    expect(await classify('udp', 42312, 1153, [c1222({ first: 0xa1 })])).not.toBe('ANSI_C1222 (DPI)');
    const short = c1222({ epsem: 2 });
    expect(short.length).toBeLessThan(50);
    expect(await classify('udp', 42313, 1153, [short])).not.toBe('ANSI_C1222 (DPI)');
  });

  it('CNP/IP: a data packet whose length fills the datagram, on any port', async () => {
    expect(await classify('udp', 1628, 1628, [cnp()])).toBe('CNP-IP (DPI)');
    // the high bits of type and flags are not read
    expect(await classify('udp', 42400, 1628, [cnp({ type: 0x21, flags: 0x22 })])).toBe('CNP-IP (DPI)');
    expect(await classify('udp', 42401, 42402, [cnp()], undefined, v6)).toBe('CNP-IP (DPI)');
  });

  it('CNP/IP near misses: another packet type, an extended header, flags 3, the length one off, the bare header', async () => {
    expect(await classify('udp', 1628, 1628, [cnp({ type: 0x03 })])).not.toBe('CNP-IP (DPI)');
    expect(await classify('udp', 1628, 1628, [cnp({ ext: 1 })])).not.toBe('CNP-IP (DPI)');
    expect(await classify('udp', 1628, 1628, [cnp({ flags: 3 })])).not.toBe('CNP-IP (DPI)');
    expect(await classify('udp', 1628, 1628, [cnp({ lenDelta: 1 })])).not.toBe('CNP-IP (DPI)');
    expect(await classify('udp', 1628, 1628, [cnp({ data: Buffer.alloc(0) })])).not.toBe('CNP-IP (DPI)');
  });

  it('NOE: a keep-alive octet, a 5- or 12-octet 0x07 frame, or a frame opening 00 06 62 6c', async () => {
    expect(await classify('udp', 32512, 32513, [bytes(0x05)])).toBe('NOE (DPI)');
    expect(await classify('udp', 32514, 32515, [bytes(0x04)])).toBe('NOE (DPI)');
    expect(await classify('udp', 32516, 32517, [bytes(0x07, 0x00, 0x01, 0x00, 0x2a)])).toBe('NOE (DPI)');
    expect(await classify('udp', 32518, 32519, [Buffer.concat([bytes(0x07, 0x00, 0x02, 0x00), Buffer.alloc(8, 9)])])).toBe('NOE (DPI)');
    expect(await classify('udp', 32520, 32521, [Buffer.concat([bytes(0x00, 0x06, 0x62, 0x6c), Buffer.alloc(21, 3)])], undefined, v6)).toBe('NOE (DPI)');
  });

  it('NOE near misses: octet 0x06, a 6-octet 0x07 frame, a zero third octet, 24 octets of 00 06 62 6c', async () => {
    expect(await classify('udp', 32530, 32531, [bytes(0x06)])).not.toBe('NOE (DPI)');
    expect(await classify('udp', 32532, 32533, [bytes(0x07, 0x00, 0x01, 0x00, 0x2a, 0x2b)])).not.toBe('NOE (DPI)');
    expect(await classify('udp', 32534, 32535, [bytes(0x07, 0x00, 0x00, 0x00, 0x2a)])).not.toBe('NOE (DPI)');
    expect(await classify('udp', 32536, 32537, [Buffer.concat([bytes(0x00, 0x06, 0x62, 0x6c), Buffer.alloc(20, 3)])])).not.toBe('NOE (DPI)');
  });

  it('TRDP: process data over UDP, message data over TCP or UDP, header FCS right, on any port', async () => {
    expect(await classify('udp', 17224, 17224, [trdpPd(Buffer.alloc(16, 1))])).toBe('TRDP (DPI)');
    expect(await classify('udp', 42500, 42501, [trdpPd(Buffer.alloc(0))], undefined, v6)).toBe('TRDP (DPI)');
    expect(await classify('tcp', 42502, 17225, [trdpMd(txt('hello'))])).toBe('TRDP (DPI)');
    expect(await classify('udp', 42503, 17225, [trdpMd(Buffer.alloc(8, 2))])).toBe('TRDP (DPI)');
    expect(await classify('tcp', 42504, 17225, [trdpMd(Buffer.alloc(0))], undefined, v6)).toBe('TRDP (DPI)');
  });

  it('TRDP near misses: a bad FCS, process data over TCP, reserved set, message data without its padding', async () => {
    expect(await classify('udp', 17224, 17224, [trdpPd(Buffer.alloc(16, 1), { badFcs: true })])).not.toBe('TRDP (DPI)');
    expect(await classify('tcp', 42510, 17225, [trdpPd(Buffer.alloc(16, 1))])).not.toBe('TRDP (DPI)');
    expect(await classify('udp', 17224, 17224, [trdpPd(Buffer.alloc(16, 1), { reserved: 1 })])).not.toBe('TRDP (DPI)');
    expect(await classify('tcp', 42511, 17225, [trdpMd(txt('hello'), { pad: false })])).not.toBe('TRDP (DPI)');
    expect(await classify('udp', 42512, 17225, [trdpMd(Buffer.alloc(8, 2), { badFcs: true })])).not.toBe('TRDP (DPI)');
  });
});
