// One hand-built flow per case: the group-C dissectors of round 9 (SMB,
// IPP, rsync, SLP, NAT-PMP, WSD, AFP, LDP, Lotus Notes, BJNP, Ceph,
// Whois-DAS, Kismet, RMCP) name their protocol by DPI under nDPI's
// conditions, and a near miss (one detail wrong) is not named that protocol
// by DPI (a guess by port may still name it).
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, flowRunner, replayFrames } from './fixtures/dissect.js';
import { le16, le32, txt, u16, u24, u32 } from './fixtures/bytes.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, ipv6, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-9c-');
const run = flowRunner('fg-dissectors-9c-run-');
const le64 = (v: number) => Buffer.concat([le32(v), le32(0)]);
const bytes = (...b: number[]) => Buffer.from(b);

// ── SMB ────────────────────────────────────────────────────────────────────
// MS-SMB2 §2.1 Direct TCP transport: a zero byte, a 24-bit big-endian
// length of the SMB message, the message.
const direct = (msg: Buffer, len = msg.length) => Buffer.concat([bytes(0), u24(len), msg]);
// MS-SMB2 §2.2.1.2 SMB2 packet header (SYNC), 64 bytes: ProtocolId,
// StructureSize 64, CreditCharge, Status, Command, CreditRequest, Flags,
// NextCommand, MessageId, Reserved (ProcessId), TreeId, SessionId, Signature.
const smb2Hdr = (command: number, flags = 0, messageId = 0, magic = 0xfe) =>
  Buffer.concat([
    bytes(magic, 0x53, 0x4d, 0x42), le16(64), le16(0), le32(0), le16(command), le16(1), le32(flags), le32(0),
    le64(messageId), le32(0xfeff), le32(0), le64(0), Buffer.alloc(16),
  ]);
// §2.2.3 NEGOTIATE request: StructureSize 36, DialectCount, SecurityMode
// (signing enabled), Reserved, Capabilities, ClientGuid, ClientStartTime,
// then the dialects (2.0.2, 2.1, 3.0, 3.0.2).
const smb2NegotiateReq = () =>
  Buffer.concat([
    smb2Hdr(0x0000), le16(36), le16(4), le16(1), le16(0), le32(0x7f), Buffer.alloc(16, 0x11), le64(0),
    le16(0x0202), le16(0x0210), le16(0x0300), le16(0x0302),
  ]);
// §2.2.4 NEGOTIATE response (Flags: SMB2_FLAGS_SERVER_TO_REDIR): StructureSize
// 65, SecurityMode, DialectRevision, NegotiateContextCount, ServerGuid,
// Capabilities, MaxTransactSize, MaxReadSize, MaxWriteSize, SystemTime,
// ServerStartTime, SecurityBufferOffset / Length, NegotiateContextOffset.
const smb2NegotiateResp = (dialect = 0x0302) =>
  Buffer.concat([
    smb2Hdr(0x0000, 0x1), le16(65), le16(1), le16(dialect), le16(0), Buffer.alloc(16, 0x22), le32(0x2f),
    le32(0x800000), le32(0x800000), le32(0x800000), le64(0), le64(0), le16(0x80), le16(0), le32(0),
  ]);
// §2.2.20 READ response: StructureSize 17, DataOffset, Reserved,
// DataLength, DataRemaining, Reserved2, then the data.
const smb2ReadRespHead = (dataLength: number) =>
  Buffer.concat([smb2Hdr(0x0008, 0x1, 5), le16(17), bytes(0x50, 0), le32(dataLength), le32(0), le32(0)]);
// MS-CIFS §2.2.3.1 SMB header, 32 bytes: Protocol, Command, Status, Flags,
// Flags2, PIDHigh, SecurityFeatures, Reserved, TID, PIDLow, UID, MID; then
// §2.2.3.2 / 2.2.3.3 the parameter words (WordCount) and the data bytes
// (ByteCount).
const smb1 = (command: number, words: Buffer, data: Buffer) =>
  Buffer.concat([
    bytes(0xff, 0x53, 0x4d, 0x42, command), le32(0), bytes(0x18), le16(0xc853), le16(0), Buffer.alloc(8), le16(0),
    le16(0xffff), le16(0xfeff), le16(0), le16(0), bytes(words.length / 2), words, le16(data.length), data,
  ]);
// §2.2.4.52.1 SMB_COM_NEGOTIATE (0x72) request: no words, the dialects.
const dialect = (s: string) => Buffer.concat([bytes(0x02), txt(s + '\0')]);
const smb1NegotiateReq = () => smb1(0x72, Buffer.alloc(0), Buffer.concat([dialect('NT LM 0.12'), dialect('SMB 2.002'), dialect('SMB 2.???')]));
// §2.2.4.52.2 its response (NT LM 0.12 chosen, 17 words): DialectIndex,
// SecurityMode, MaxMpxCount, MaxNumberVcs, MaxBufferSize, MaxRawSize,
// SessionKey, Capabilities, SystemTime, ServerTimeZone, ChallengeLength.
const smb1NegotiateResp = () =>
  smb1(0x72, Buffer.concat([le16(0), bytes(3), le16(50), le16(1), le32(16644), le32(65536), le32(0), le32(0x8000e3fd), le64(0), le16(0), bytes(0)]), Buffer.alloc(16, 0x33));
// §2.2.4.53.1 SMB_COM_SESSION_SETUP_ANDX (0x73) request, extended security
// (12 words): AndXCommand, AndXReserved, AndXOffset, MaxBufferSize,
// MaxMpxCount, VcNumber, SessionKey, SecurityBlobLength, Reserved,
// Capabilities; data: the blob and native OS / LAN manager strings.
const smb1SessionSetup = () => {
  const blob = Buffer.concat([txt('NTLMSSP\0'), le32(1), le32(0xe2088297), Buffer.alloc(16)]);
  return smb1(0x73, Buffer.concat([bytes(0xff, 0), le16(0), le16(4356), le16(50), le16(0), le32(0), le16(blob.length), le32(0), le32(0x800000d4)]), Buffer.concat([blob, txt('Unix\0Samba\0')]));
};
// §2.2.4.51.1 SMB_COM_TREE_DISCONNECT (0x71): no words, no bytes: 39 bytes framed.
const smb1TreeDisconnect = () => smb1(0x71, Buffer.alloc(0), Buffer.alloc(0));

// ── IPP (RFC 8010) ─────────────────────────────────────────────────────────
// §3.1.1–3.1.5 an operation request: version 2.0, operation-id
// (0x000B Get-Printer-Attributes), request-id, operation-attributes-tag,
// attributes (value tag, name, value), end-of-attributes-tag (§3.5.1).
const ippAttr = (tag: number, name: string, value: string) => Buffer.concat([bytes(tag), u16(name.length), txt(name), u16(value.length), txt(value)]);
const ippBody = Buffer.concat([
  bytes(2, 0), u16(0x000b), u32(1), bytes(0x01),
  ippAttr(0x47, 'attributes-charset', 'utf-8'), ippAttr(0x48, 'attributes-natural-language', 'en'),
  ippAttr(0x45, 'printer-uri', 'ipp://printer.local:631/ipp/print'), bytes(0x03),
]);
// RFC 8010 §4.2: an HTTP POST carries it; nDPI needs no Content-Type here.
const ippPost = (line: string, headers = '', host = 'printer.local:631') =>
  Buffer.concat([txt(`${line}\r\nHost: ${host}\r\nUser-Agent: CUPS/2.4.2 (Linux 6.1; x86_64) IPP/2.0\r\n${headers}Content-Length: ${ippBody.length}\r\n\r\n`), ippBody]);
const httpOk = txt('HTTP/1.1 200 OK\r\nServer: CUPS/2.4\r\nContent-Length: 0\r\n\r\n');

// ── SLP ────────────────────────────────────────────────────────────────────
const slpStr = (s: string) => Buffer.concat([u16(s.length), txt(s)]);
// RFC 2608 §8: version, function-id, 24-bit length, flags, 24-bit next
// extension offset, XID, language tag length and tag; then the body.
const slp2 = (fid: number, body: Buffer, o: { flags?: number; lenDelta?: number; lang?: string; version?: number } = {}) => {
  const lang = o.lang ?? 'en';
  const len = 14 + lang.length + body.length;
  return Buffer.concat([bytes(o.version ?? 2, fid), u24(len + (o.lenDelta ?? 0)), u16(o.flags ?? 0), u24(0), u16(0x1234), u16(lang.length), txt(lang), body]);
};
// §8.1 SrvRqst: PRList, service type, scope list, predicate, SLP SPI.
const srvRqst = Buffer.concat([slpStr(''), slpStr('service:printer'), slpStr('DEFAULT'), slpStr(''), slpStr('')]);
// §4.3 URL entry: reserved, lifetime, URL length, URL, # of URL auths.
const urlEntry = (url: string) => Buffer.concat([bytes(0), u16(10800), slpStr(url), bytes(0)]);
// §8.2 SrvRply: error code, URL entry count, URL entries.
const srvRply = (entries: Buffer[], count = entries.length) => Buffer.concat([u16(0), u16(count), ...entries]);
// §8.5 DAAdvert: error code, DA stateless boot timestamp, URL, scope list,
// attribute list, SLP SPI list, # auth blocks.
const daAdvert = Buffer.concat([u16(0), u32(0x5f5e1000), slpStr('service:directory-agent://10.0.0.2'), slpStr('DEFAULT'), slpStr(''), slpStr(''), bytes(0)]);
// §8.6 SAAdvert (function 11, version 2 only): URL, scope list, attribute list, # auth blocks.
const saAdvert = Buffer.concat([slpStr('service:service-agent://10.0.0.2'), slpStr('DEFAULT'), slpStr(''), bytes(0)]);
// RFC 2165 §7 (version 1): version, function, 16-bit length, flags,
// dialect, language code, character encoding (MIBenum 3, US-ASCII), XID.
const slp1 = (fid: number, body: Buffer, lenDelta = 0) =>
  Buffer.concat([bytes(1, fid), u16(12 + body.length + lenDelta), bytes(0x20, 0), txt('en'), u16(3), u16(0x4321), body]);
// §9.1 Service Request: previous responders, the request "type/scope/where/".
const slp1Rqst = Buffer.concat([slpStr(''), slpStr('printer/DEFAULT//')]);

// ── NAT-PMP (RFC 6886) ─────────────────────────────────────────────────────
// §3.2 external address request: version 0, opcode 0.
const addrReq = bytes(0, 0);
// §3.2 its answer: version, 128, result code, seconds since epoch, address.
const addrResp = (result = 0, ip = [198, 51, 100, 7]) => Buffer.concat([bytes(0, 0x80), u16(result), u32(3600), bytes(...ip)]);
// §3.3 mapping request: opcode 1 UDP / 2 TCP, reserved, internal port,
// suggested external port, lifetime.
const mapReq = (op: number, internal = 51413, external = 51413, reserved = 0) => Buffer.concat([bytes(0, op), u16(reserved), u16(internal), u16(external), u32(7200)]);
// §3.3 its answer: 128 + op, result, epoch, internal port, mapped port, lifetime.
const mapResp = (op: number, result = 0, internal = 51413, mapped = 51413) => Buffer.concat([bytes(0, 0x80 + op), u16(result), u32(3600), u16(internal), u16(mapped), u32(7200)]);

// ── WSD: frames with their own addresses (the fixtures use unicast ones) ──
const wsdTmp = tempDir('fg-dissectors-9c-wsd-');
afterAll(() => wsdTmp.cleanup());
let wsdN = 0;
const udpFlow = async (src: string, dst: string, sport: number, dport: number, payloads: Buffer[]) => {
  const v6 = src.includes(':');
  const frames = payloads.map((p) =>
    v6
      ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.UDP }, udp({ sport, dport }, p)))
      : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, p))),
  );
  return replayFrames(join(wsdTmp.dir, `wsd-${wsdN++}.pcap`), frames, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
};
// WS-Discovery 1.1 §5.2 Probe, SOAP 1.2 envelope over UDP.
const probe = txt(
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" ' +
    'xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:wsd="http://schemas.xmlsoap.org/ws/2005/04/discovery">' +
    '<soap:Header><wsa:To>urn:schemas-xmlsoap-org:ws:2005:04:discovery</wsa:To>' +
    '<wsa:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</wsa:Action>' +
    '<wsa:MessageID>urn:uuid:0a6dc791-2be6-4991-9af1-454778a1917a</wsa:MessageID></soap:Header>' +
    '<soap:Body><wsd:Probe><wsd:Types>wsdp:Device</wsd:Types></wsd:Probe></soap:Body></soap:Envelope>',
);

// ── AFP: DSI header (AFP over TCP): flags, command, request id, data offset
// / error code, total data length, reserved; then the data.
const dsi = (flags: number, command: number, data: Buffer, o: { reserved?: number; lenDelta?: number } = {}) =>
  Buffer.concat([bytes(flags, command), u16(1), u32(0), u32(data.length + (o.lenDelta ?? 0)), u32(o.reserved ?? 0), data]);

// ── LDP (RFC 5036 §3.1, §3.5): PDU header (version, PDU length, LSR id,
// label space), then a message: type, length, message id, TLVs.
const ldpPdu = (type: number, tlvs: Buffer, o: { version?: number; lenDelta?: number } = {}) => {
  const msg = Buffer.concat([u16(type), u16(4 + tlvs.length), u32(1), tlvs]);
  return Buffer.concat([u16(o.version ?? 1), u16(6 + msg.length + (o.lenDelta ?? 0)), bytes(10, 0, 0, 1), u16(0), msg]);
};
const tlv = (type: number, value: Buffer) => Buffer.concat([u16(type), u16(value.length), value]);
// §3.5.2 Hello: Common Hello Parameters TLV (0x0400): hold time, flags.
const ldpHello = (type = 0x0100) => ldpPdu(type, tlv(0x0400, Buffer.concat([u16(15), u16(0)])));
// §3.5.3 Initialization: Common Session Parameters TLV (0x0500): version,
// keepalive time, flags, path vector limit, max PDU length, receiver LDP id.
const ldpInit = (type = 0x0200) => ldpPdu(type, tlv(0x0500, Buffer.concat([u16(1), u16(180), bytes(0, 0), u16(0), bytes(10, 0, 0, 2), u16(0)])));
// §3.5.4 KeepAlive: no TLV.
const ldpKeepAlive = () => ldpPdu(0x0201, Buffer.alloc(0));

describe('dissectors 9 (group C)', () => {
  it('SMB2/3 over direct TCP on port 445: NetBIOS.SMBv23, either port 445', async () => {
    // negotiation: request (MS-SMB2 §2.2.3), answer (§2.2.4)
    expect(await classify('tcp', 50100, 445, [direct(smb2NegotiateReq()), direct(smb2NegotiateResp())])).toBe('NetBIOS.SMBv23 (DPI)');
    // the server's answer first (capture starting mid-exchange)
    expect(await classify('tcp', 50101, 445, [direct(smb2NegotiateResp())], [false])).toBe('NetBIOS.SMBv23 (DPI)');
    // nDPI takes 445 on either side
    expect(await classify('tcp', 445, 50102, [direct(smb2NegotiateReq())])).toBe('NetBIOS.SMBv23 (DPI)');
    // a multi-protocol negotiation: the SMBv1 NEGOTIATE is passed over, the
    // server's SMB2 answer (dialect 0x02FF, MS-SMB2 §3.3.5.3.1) decides
    expect(await classify('tcp', 50103, 445, [direct(smb1NegotiateReq()), direct(smb2NegotiateResp(0x02ff))])).toBe('NetBIOS.SMBv23 (DPI)');
    // the first segment of a 1 MiB READ answer: the length covers more than
    // the segment (24-bit length, its high byte set)
    const head = smb2ReadRespHead(0x100000);
    const seg = direct(Buffer.concat([head, Buffer.alloc(1200, 0x5a)]), head.length + 0x100000);
    expect(seg[1]).toBe(0x10);
    expect(await classify('tcp', 50104, 445, [seg], [false])).toBe('NetBIOS.SMBv23 (DPI)');
    expect(await classify('tcp', 50105, 445, [direct(smb2NegotiateReq()), direct(smb2NegotiateResp())], undefined, { v6: true })).toBe('NetBIOS.SMBv23 (DPI)');
    expect(await classify('tcp', 445, 50106, [direct(smb2NegotiateReq())], undefined, { v6: true })).toBe('NetBIOS.SMBv23 (DPI)');
  });

  it('SMBv1: NetBIOS.SMBv1, not on its NEGOTIATE', async () => {
    const v1 = [direct(smb1NegotiateReq()), direct(smb1NegotiateResp()), direct(smb1SessionSetup())];
    expect(await classify('tcp', 50110, 445, v1)).toBe('NetBIOS.SMBv1 (DPI)');
    expect(await classify('tcp', 445, 50111, v1)).toBe('NetBIOS.SMBv1 (DPI)');
    expect(await classify('tcp', 445, 50112, v1, undefined, { v6: true })).toBe('NetBIOS.SMBv1 (DPI)');
    // NEGOTIATE request and answer alone (both command 0x72): not yet SMBv1
    expect(await classify('tcp', 445, 50113, [direct(smb1NegotiateReq()), direct(smb1NegotiateResp())])).not.toBe('NetBIOS.SMBv1 (DPI)');
  });

  it('SMB near misses: another port, 40 bytes or fewer, a frame shorter than the segment, other headers', async () => {
    // nDPI requires port 445
    expect(await classify('tcp', 50120, 8445, [direct(smb2NegotiateReq()), direct(smb2NegotiateResp())])).not.toMatch(/SMB.* \(DPI\)/);
    // SMBv1 TREE_DISCONNECT: 39 bytes framed, nDPI wants more than 40
    expect(direct(smb1TreeDisconnect()).length).toBe(39);
    expect(await classify('tcp', 445, 50121, [direct(smb1TreeDisconnect()), direct(smb1TreeDisconnect())])).not.toBe('NetBIOS.SMBv1 (DPI)');
    // a length field shorter than the segment's message
    const req = smb2NegotiateReq();
    expect(await classify('tcp', 445, 50122, [direct(req, req.length - 1)])).not.toBe('NetBIOS.SMBv23 (DPI)');
    expect(await classify('tcp', 50123, 445, [direct(req, req.length - 1)])).not.toBe('NetBIOS.SMBv23 (DPI)');
    // the SMB3 TRANSFORM header (0xFD 'SMB', encrypted message): no rule
    const transform = Buffer.concat([bytes(0xfd, 0x53, 0x4d, 0x42), Buffer.alloc(16, 0x44), Buffer.alloc(16, 0x55), le32(100), le16(0), le16(1), le64(7), Buffer.alloc(100, 0x66)]);
    expect(await classify('tcp', 445, 50124, [direct(transform), direct(transform)])).not.toMatch(/SMB.* \(DPI\)/);
    expect(await classify('tcp', 50125, 445, [direct(transform), direct(transform)])).not.toMatch(/SMB.* \(DPI\)/);
    // the first byte must be 0 (a NetBIOS session request type 0x81 is not SMB)
    const notDirect = Buffer.from(direct(req));
    notDirect[0] = 0x81;
    expect(await classify('tcp', 445, 50126, [notDirect])).not.toMatch(/SMB.* \(DPI\)/);
    // a bad packet first rules SMB out: a later good one comes too late
    expect(await classify('tcp', 445, 50127, [direct(transform), direct(smb2NegotiateReq())], [true, true])).not.toMatch(/SMB.* \(DPI\)/);
  });

  // netbios.cpp takes over TCP only nDPI's session request to port 139.
  it('not SMB: SMB2 on port 139 (nDPI: SMB on 445 only)', async () => {
    expect(await classify('tcp', 50130, 139, [direct(smb2NegotiateReq()), direct(smb2NegotiateResp())])).not.toMatch(/SMB.* \(DPI\)/);
  });
  it('not SMB: a 39-byte SMBv1 message on server port 445 (nDPI: over 40 bytes)', async () => {
    expect(await classify('tcp', 50131, 445, [direct(smb1TreeDisconnect()), direct(smb1TreeDisconnect())])).not.toBe('NetBIOS.SMBv1 (DPI)');
  });
  // nDPI raises its insecure-SMB risk with every SMBv1 match over TCP.
  it('the insecure-SMB risk of an SMBv1 flow, port 445 on either side', async () => {
    const v1 = [direct(smb1NegotiateReq()), direct(smb1NegotiateResp()), direct(smb1SessionSetup())];
    const a = await run('tcp', 445, 50133, v1);
    const b = await run('tcp', 50134, 445, v1);
    expect([a.flow.risks.includes('SMB Insecure Vers'), b.flow.risks.includes('SMB Insecure Vers')]).toEqual([true, true]);
  });
  it('a session keepalive (0x85) on port 445 is neither NetBIOS nor SMB (as nDPI)', async () => {
    expect(await classify('tcp', 50132, 445, [bytes(0x85, 0, 0, 0)])).not.toBe('NetBIOS (DPI)');
  });

  it('IPP: an HTTP POST to /ipp/… is HTTP.IPP, on any port', async () => {
    expect(await classify('tcp', 50200, 631, [ippPost('POST /ipp/print HTTP/1.1'), httpOk])).toBe('HTTP.IPP (DPI)');
    expect(await classify('tcp', 50201, 8631, [ippPost('POST /ipp/print HTTP/1.1')])).toBe('HTTP.IPP (DPI)');
    expect(await classify('tcp', 50202, 631, [ippPost('POST /ipp/ HTTP/1.0')])).toBe('HTTP.IPP (DPI)');
    expect(await classify('tcp', 50203, 631, [ippPost('POST /ipp/print HTTP/1.1'), httpOk], undefined, { v6: true })).toBe('HTTP.IPP (DPI)');
    // nDPI's http.c names no sub-protocol by "application/ipp" (only OCSP and
    // HLS content types): another path stays HTTP (audit 9)
    expect(await classify('tcp', 50204, 631, [ippPost('POST /printers/office HTTP/1.1', 'Content-Type: application/ipp\r\n')])).toBe('HTTP (DPI)');
  });

  it('IPP near misses: another method, path case or shape, no HTTP version, a host naming an app', async () => {
    expect(await classify('tcp', 50210, 631, [txt('GET /ipp/print HTTP/1.1\r\nHost: printer.local\r\nUser-Agent: CUPS/2.4\r\n\r\n'), httpOk])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 50211, 631, [ippPost('POST /IPP/print HTTP/1.1'), httpOk])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 50212, 631, [ippPost('POST /ipp HTTP/1.1'), httpOk])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 50213, 631, [ippPost('POST /printers/ipp/print HTTP/1.1'), httpOk])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 50214, 631, [ippPost('POST /ipp/print')])).not.toBe('HTTP.IPP (DPI)');
    // the host names an application: nDPI's IPP wants the flow plain HTTP
    expect(await classify('tcp', 50215, 80, [ippPost('POST /ipp/print HTTP/1.1', '', 'www.google.com')])).not.toBe('HTTP.IPP (DPI)');
  });

  it('rsync: "@RSYNCD:" from either side within the first 6 payload packets, any port, TCP only', async () => {
    // rsync(1): the daemon greets, the client answers with its version
    expect(await classify('tcp', 50300, 873, [txt('@RSYNCD: 31.0 sha512 sha256 sha1 md5 md4\n'), txt('@RSYNCD: 31.0 sha512 sha256 sha1 md5 md4\n')], [false, true])).toBe('RSYNC (DPI)');
    expect(await classify('tcp', 50301, 10873, [txt('@RSYNCD: 30.0\n')])).toBe('RSYNC (DPI)');
    expect(await classify('tcp', 50302, 873, [txt('@RSYNCD: 31.0\n'), txt('@RSYNCD: OK\n')], undefined, { v6: true })).toBe('RSYNC (DPI)');
    const other = txt('hello there\n');
    expect(await classify('tcp', 50303, 873, [other, other, other, other, other, txt('@RSYNCD: EXIT\n')])).toBe('RSYNC (DPI)');
    // near misses: on the 7th packet, another word, UDP
    expect(await classify('tcp', 50304, 873, [other, other, other, other, other, other, txt('@RSYNCD: EXIT\n')])).not.toBe('RSYNC (DPI)');
    expect(await classify('tcp', 50305, 873, [txt('@RSYNC: 31.0\n'), txt('@rsyncd: 31.0\n')])).not.toBe('RSYNC (DPI)');
    expect(await classify('udp', 50306, 873, [txt('@RSYNCD: 31.0\n')])).not.toBe('RSYNC (DPI)');
  });

  it('SLP v2 and v1 over UDP and TCP, any port: header length equal to the payload, a known function', async () => {
    const SLP = 'Service_Location_Protocol (DPI)';
    expect(await classify('udp', 50400, 427, [slp2(1, srvRqst, { flags: 0x2000 }), slp2(2, srvRply([urlEntry('service:printer:lpr://10.0.0.2/queue')]))])).toBe(SLP);
    expect(await classify('udp', 50401, 427, [slp2(8, daAdvert)], [false])).toBe(SLP);
    expect(await classify('udp', 50402, 427, [slp2(11, saAdvert)])).toBe(SLP);
    expect(await classify('udp', 50403, 5427, [slp2(1, srvRqst)])).toBe(SLP);
    expect(await classify('tcp', 50404, 427, [slp2(1, srvRqst), slp2(2, srvRply([urlEntry('service:printer:lpr://10.0.0.2/q')]))])).toBe(SLP);
    expect(await classify('udp', 50405, 427, [slp2(1, srvRqst)], undefined, { v6: true })).toBe(SLP);
    expect(await classify('udp', 50406, 427, [slp1(1, slp1Rqst)])).toBe(SLP);
    expect(await classify('tcp', 50407, 427, [slp1(10, Buffer.concat([u16(0), u16(0)]))], undefined, { v6: true })).toBe(SLP);
    // a reply whose URL entry runs past the payload: still SLP, malformed
    const bad = slp2(2, srvRply([urlEntry('service:printer:lpr://10.0.0.2/q').subarray(0, 12)]));
    const r = await run('udp', 50408, 427, [bad]);
    expect(`${l7Name(r.flow.l7_master, r.flow.l7_app)} (${r.flow.l7_confidence})`).toBe(SLP);
    expect(r.flow.risks).toContain('Malformed Packet');
    const good = await run('udp', 50409, 427, [slp2(2, srvRply([urlEntry('service:printer:lpr://10.0.0.2/queue')]))]);
    expect(good.flow.risks).not.toContain('Malformed Packet');
  });

  it('SLP near misses: length off by one, function 0 or out of range, version 3, short v2 header, not the first packet', async () => {
    const SLP = 'Service_Location_Protocol (DPI)';
    expect(await classify('udp', 50410, 427, [slp2(1, srvRqst, { lenDelta: 1 })])).not.toBe(SLP);
    expect(await classify('udp', 50411, 427, [slp2(0, srvRqst)])).not.toBe(SLP);
    expect(await classify('udp', 50412, 427, [slp2(12, srvRqst)])).not.toBe(SLP);
    expect(await classify('udp', 50413, 427, [slp1(11, slp1Rqst)])).not.toBe(SLP); // SAAdvert is v2 only
    expect(await classify('udp', 50414, 427, [slp2(1, srvRqst, { version: 3 })])).not.toBe(SLP);
    // 15 bytes in all (a 1-byte language tag, no body): below nDPI's 16
    expect(await classify('udp', 50415, 427, [slp2(5, Buffer.alloc(0), { lang: 'x' })])).not.toBe(SLP);
    expect(await classify('udp', 50416, 427, [slp2(1, srvRqst, { lenDelta: -1 }), slp2(1, srvRqst)], [true, true])).not.toBe(SLP);
    expect(await classify('tcp', 50417, 427, [slp1(1, slp1Rqst, 2)])).not.toBe(SLP);
  });

  it('NAT-PMP: on port 5351 at once; elsewhere from the 3rd payload packet and not on an address request', async () => {
    const P = 'NAT-PMP (DPI)';
    expect(await classify('udp', 50500, 5351, [addrReq, addrResp()])).toBe(P);
    expect(await classify('udp', 50501, 5351, [mapReq(1), mapResp(1)])).toBe(P);
    expect(await classify('udp', 50502, 5351, [mapReq(2), mapResp(2, 2)])).toBe(P);
    expect(await classify('udp', 50503, 5351, [addrResp(3, [0, 0, 0, 0])], [false])).toBe(P);
    expect(await classify('udp', 50504, 5351, [addrReq], undefined, { v6: true })).toBe(P);
    // off its port: the mapping request on the 3rd packet names it
    expect(await classify('udp', 50505, 6000, [addrReq, addrResp(), mapReq(2), mapResp(2)])).toBe(P);
    // an address request on the 3rd is not enough, the answer after it is
    expect(await classify('udp', 50506, 6000, [addrReq, addrResp(), addrReq, addrResp()], [true, false, true, false])).toBe(P);
    expect(await classify('udp', 50507, 6000, [addrReq, addrResp(), mapReq(1)], undefined, { v6: true })).toBe(P);
    // malformed, still NAT-PMP: internal port 0, an error with an address
    const r = await run('udp', 50508, 5351, [mapReq(1, 0)]);
    expect(r.flow.risks).toContain('Malformed Packet');
    const r2 = await run('udp', 50509, 5351, [addrResp(3)], [false]);
    expect(r2.flow.risks).toContain('Malformed Packet');
    const ok = await run('udp', 50510, 5351, [mapReq(1), mapResp(1)]);
    expect(ok.flow.risks).not.toContain('Malformed Packet');
    // after the match nDPI reads 5 more packets: a bad one among them (the
    // 6th in all) is malformed, the 7th is no longer read
    const five = [mapReq(1), mapResp(1), mapReq(2), mapResp(2), mapReq(1), mapResp(1)];
    const late6 = await run('udp', 50511, 5351, [...five.slice(0, 5), bytes(0, 9)]);
    expect(late6.flow.risks).toContain('Malformed Packet');
    const late6b = await run('udp', 50512, 5351, [...five.slice(0, 5), mapResp(1, 0, 0)]);
    expect(late6b.flow.risks).toContain('Malformed Packet');
    const late7 = await run('udp', 50513, 5351, [...five, bytes(0, 9)]);
    expect(`${l7Name(late7.flow.l7_master, late7.flow.l7_app)} (${late7.flow.l7_confidence})`).toBe(P);
    expect(late7.flow.risks).not.toContain('Malformed Packet');
  });

  it('NAT-PMP near misses: off-port too early, a bad shape, result over 5, PCP, TCP', async () => {
    const P = 'NAT-PMP (DPI)';
    expect(await classify('udp', 50520, 6000, [mapReq(1), mapResp(1)])).not.toBe(P);
    expect(await classify('udp', 50521, 6000, [addrReq, addrResp(), addrReq])).not.toBe(P);
    expect(await classify('udp', 50522, 5351, [mapResp(1, 6)], [false])).not.toBe(P);
    expect(await classify('udp', 50523, 5351, [mapReq(1, 51413, 51413, 1)])).not.toBe(P);
    expect(await classify('udp', 50524, 5351, [Buffer.concat([addrReq, bytes(0)])])).not.toBe(P);
    expect(await classify('udp', 50525, 5351, [bytes(0, 3)])).not.toBe(P);
    // PCP (RFC 6887, version 2) shares the port
    expect(await classify('udp', 50526, 5351, [Buffer.concat([bytes(2, 1), u16(0), u32(7200), Buffer.alloc(16)])])).not.toBe(P);
    // a bad packet off the port rules it out before the 3rd
    expect(await classify('udp', 50527, 6000, [addrReq, bytes(1, 2, 3), mapReq(1)], [true, true, true])).not.toBe(P);
    expect(await classify('tcp', 50528, 5351, [mapReq(1), mapResp(1)])).not.toBe(P);
  });

  it('WSD: XML to port 3702 at a multicast address (224/4, ff02::/32)', async () => {
    expect(await udpFlow('10.0.0.1', '239.255.255.250', 50600, 3702, [probe])).toBe('WSD (DPI)');
    expect(await udpFlow('2001:db8::1', 'ff02::c', 50601, 3702, [probe])).toBe('WSD (DPI)');
    expect(await udpFlow('10.0.0.1', '224.0.0.251', 50602, 3702, [probe])).toBe('WSD (DPI)');
    // near misses: unicast (a ProbeMatches answer), another port, no "<?xml",
    // under 40 bytes, a multicast scope other than ff02::/32
    expect(await udpFlow('10.0.0.1', '10.0.0.2', 50603, 3702, [probe])).not.toBe('WSD (DPI)');
    expect(await udpFlow('10.0.0.1', '239.255.255.250', 50604, 3703, [probe])).not.toBe('WSD (DPI)');
    expect(await udpFlow('10.0.0.1', '239.255.255.250', 50605, 3702, [probe.subarray(38)])).not.toBe('WSD (DPI)');
    expect(await udpFlow('10.0.0.1', '239.255.255.250', 50606, 3702, [txt('<?xml version="1.0"?><a/>')])).not.toBe('WSD (DPI)');
    expect(await udpFlow('2001:db8::1', 'ff05::c', 50607, 3702, [probe])).not.toBe('WSD (DPI)');
  });

  it('AFP: a DSI header in a payload of 16 to 128 bytes, any port; longer ones passed over until the 6th', async () => {
    // DSIGetStatus (3) request, DSIOpenSession (4) with the attention-quantum option
    expect(await classify('tcp', 50700, 548, [dsi(0, 3, Buffer.alloc(0)), dsi(1, 3, Buffer.alloc(0))])).toBe('AFP (DPI)');
    expect(await classify('tcp', 50701, 10548, [dsi(0, 4, bytes(0x01, 4, 0, 0, 4, 0))])).toBe('AFP (DPI)');
    expect(await classify('tcp', 50702, 548, [dsi(0, 5, Buffer.alloc(0))], undefined, { v6: true })).toBe('AFP (DPI)');
    // a DSIWrite (6) of bulk data, then a DSITickle (5)
    const big = dsi(0, 6, Buffer.alloc(600, 0x42));
    expect(await classify('tcp', 50703, 548, [big, big, big, big, big, dsi(0, 5, Buffer.alloc(0))], [true, true, true, true, true, true])).toBe('AFP (DPI)');
    // near misses: flags 2, command 0 or 9, reserved set, data past the payload, 15 bytes, too late
    expect(await classify('tcp', 50704, 548, [dsi(2, 3, Buffer.alloc(0))])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50705, 548, [dsi(0, 0, Buffer.alloc(0))])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50706, 548, [dsi(0, 9, Buffer.alloc(0))])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50707, 548, [dsi(0, 3, Buffer.alloc(0), { reserved: 1 })])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50708, 548, [dsi(0, 4, bytes(1, 2, 3), { lenDelta: 1 })])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50709, 548, [dsi(0, 3, Buffer.alloc(0)).subarray(0, 15)])).not.toBe('AFP (DPI)');
    expect(await classify('tcp', 50710, 548, [big, big, big, big, big, big, dsi(0, 5, Buffer.alloc(0))], [true, true, true, true, true, true, true])).not.toBe('AFP (DPI)');
  });

  it('LDP: Hello over UDP, session messages over TCP, any port', async () => {
    expect(await classify('udp', 646, 646, [ldpHello()])).toBe('LDP (DPI)');
    expect(await classify('udp', 50800, 10646, [ldpHello()], undefined, { v6: true })).toBe('LDP (DPI)');
    expect(await classify('tcp', 50801, 646, [ldpInit(), ldpInit()])).toBe('LDP (DPI)');
    expect(await classify('tcp', 50802, 646, [Buffer.concat([ldpKeepAlive(), Buffer.alloc(0)])])).not.toBe('LDP (DPI)'); // 18 bytes: too short
    expect(await classify('tcp', 50803, 10646, [ldpPdu(0x0400, tlv(0x0100, bytes(1, 32, 10, 0, 0, 0)))])).toBe('LDP (DPI)'); // Label Mapping, FEC TLV
    expect(await classify('tcp', 50804, 646, [ldpInit(0x3e05)], undefined, { v6: true })).toBe('LDP (DPI)'); // vendor-private
    expect(await classify('tcp', 50805, 646, [ldpInit(0x0703)])).toBe('LDP (DPI)'); // ICCP RG Application Data
    // near misses: version 2, length off, a Hello over TCP, an Init over UDP, unknown type
    expect(await classify('udp', 50810, 646, [ldpHello()].map((b) => Buffer.concat([u16(2), b.subarray(2)])))).not.toBe('LDP (DPI)');
    expect(await classify('udp', 50811, 646, [ldpPdu(0x0100, tlv(0x0400, Buffer.concat([u16(15), u16(0)])), { lenDelta: 1 })])).not.toBe('LDP (DPI)');
    expect(await classify('tcp', 50812, 646, [ldpHello()])).not.toBe('LDP (DPI)');
    expect(await classify('udp', 50813, 646, [ldpInit()])).not.toBe('LDP (DPI)');
    expect(await classify('tcp', 50814, 646, [ldpInit(0x0600)])).not.toBe('LDP (DPI)');
    expect(await classify('tcp', 50815, 646, [ldpInit(0x3f00)])).not.toBe('LDP (DPI)');
  });

  it('Lotus Notes: the first payload packet of a flow seen from its handshake, any port', async () => {
    // NRPC opening: a length, then a header with 00 00 02 00 00 40 02 0F at offset 6
    const nrpc = Buffer.concat([le32(0x26), bytes(0, 0), bytes(0, 0, 2, 0, 0, 0x40, 2, 0x0f), Buffer.alloc(30, 0x01)]);
    expect(await classify('tcp', 50900, 1352, [nrpc])).toBe('LotusNotes (DPI)');
    expect(await classify('tcp', 50901, 11352, [nrpc], undefined, { v6: true })).toBe('LotusNotes (DPI)');
    // near misses: on the 2nd packet, one byte off, 16 bytes only
    expect(await classify('tcp', 50902, 1352, [txt('hello'), nrpc])).not.toBe('LotusNotes (DPI)');
    const off = Buffer.from(nrpc);
    off[13] = 0x0e;
    expect(await classify('tcp', 50903, 1352, [off])).not.toBe('LotusNotes (DPI)');
    expect(await classify('tcp', 50904, 1352, [nrpc.subarray(0, 16)])).not.toBe('LotusNotes (DPI)');
  });

  it('BJNP: its four magics over UDP, any port', async () => {
    // Canon BJNP header: magic, type (0x01 printer command), code (0x30 discover), seq, session, length
    const bjnp = (magic: string, len = 0) => Buffer.concat([txt(magic), bytes(0x01, 0x30), u16(1), u16(0), u32(len)]);
    expect(await classify('udp', 51000, 8611, [bjnp('BJNP')])).toBe('BJNP (DPI)');
    expect(await classify('udp', 51001, 8612, [bjnp('MFNP')], undefined, { v6: true })).toBe('BJNP (DPI)');
    expect(await classify('udp', 51002, 9000, [bjnp('BNJB')])).toBe('BJNP (DPI)');
    expect(await classify('udp', 51003, 8612, [bjnp('BJNB')])).toBe('BJNP (DPI)');
    expect(await classify('udp', 51004, 8612, [txt('BJNP')])).not.toBe('BJNP (DPI)'); // 4 bytes: too short
    expect(await classify('udp', 51005, 8612, [bjnp('BJNX')])).not.toBe('BJNP (DPI)');
    expect(await classify('tcp', 51006, 8612, [bjnp('BJNP')])).not.toBe('BJNP (DPI)');
  });

  it('Ceph: a "ceph v" banner first, any port', async () => {
    expect(await classify('tcp', 51100, 6789, [txt('ceph v027'), txt('ceph v027')], [false, true])).toBe('Ceph (DPI)');
    expect(await classify('tcp', 51101, 3300, [txt('ceph v2\n'), txt('ceph v2\n')], undefined, { v6: true })).toBe('Ceph (DPI)');
    expect(await classify('tcp', 51102, 16789, [txt('ceph v2\n')])).toBe('Ceph (DPI)');
    expect(await classify('tcp', 51103, 6789, [txt('ceph v')])).not.toBe('Ceph (DPI)');
    expect(await classify('tcp', 51104, 6789, [txt('Ceph v027')])).not.toBe('Ceph (DPI)');
    expect(await classify('tcp', 51105, 6789, [txt('hello'), txt('ceph v027')])).not.toBe('Ceph (DPI)');
  });

  it('Whois-DAS: a CRLF-ended payload on port 43 or 4343; the query names the host', async () => {
    const r = await run('tcp', 51200, 43, [txt('Example.COM\r\n'), txt('Domain Name: EXAMPLE.COM\r\n')]);
    expect(`${l7Name(r.flow.l7_master, r.flow.l7_app)} (${r.flow.l7_confidence})`).toBe('Whois-DAS (DPI)');
    expect(r.flow.host_name).toBe('example.com');
    expect(await classify('tcp', 51201, 4343, [txt('example.org\r\n')], undefined, { v6: true })).toBe('Whois-DAS (DPI)');
    expect(await classify('tcp', 43, 51202, [txt('example.net\r\n')])).toBe('Whois-DAS (DPI)');
    // the answer first: named, no host from it
    const a = await run('tcp', 51203, 43, [txt('% IANA WHOIS server\r\n')], [false]);
    expect(`${l7Name(a.flow.l7_master, a.flow.l7_app)} (${a.flow.l7_confidence})`).toBe('Whois-DAS (DPI)');
    expect(a.flow.host_name).toBe('');
    // near misses: another port, LF only, CRLF alone
    expect(await classify('tcp', 51204, 4300, [txt('example.com\r\n')])).not.toBe('Whois-DAS (DPI)');
    expect(await classify('tcp', 51205, 43, [txt('example.com\n')])).not.toBe('Whois-DAS (DPI)');
    expect(await classify('tcp', 51206, 43, [txt('\r\n')])).not.toBe('Whois-DAS (DPI)');
  });

  it('Kismet: a "*KISMET: " sentence first, any port', async () => {
    expect(await classify('tcp', 51300, 2501, [txt('*KISMET: 0.0.0 1700000000 \x01Kismet\x01 \x01\x01 0 0 \n')], [false])).toBe('Kismet (DPI)');
    expect(await classify('tcp', 51301, 12501, [txt('*KISMET: 0.0.0 1700000000 \x01Kismet\x01\n')], [false], { v6: true })).toBe('Kismet (DPI)');
    expect(await classify('tcp', 51302, 2501, [txt('*KISMET:')], [false])).not.toBe('Kismet (DPI)');
    expect(await classify('tcp', 51303, 2501, [txt('*PROTOCOLS: KISMET,ERROR,ACK\n')], [false])).not.toBe('Kismet (DPI)');
    expect(await classify('udp', 51304, 2501, [txt('*KISMET: 0.0.0 1700000000\n')])).not.toBe('Kismet (DPI)');
  });

  it('RMCP: version 6, class ASF or IPMI, any port', async () => {
    // ASF Presence Ping (DSP0136 §3.2.4.3): RMCP header, IANA 4542, type 0x80, tag, reserved, length
    const ping = Buffer.concat([bytes(0x06, 0x00, 0xff, 0x06), u32(4542), bytes(0x80, 0x01, 0x00, 0x00)]);
    expect(await classify('udp', 51400, 623, [ping])).toBe('RMCP (DPI)');
    // IPMI over LAN (class 7): session header follows
    const ipmi = Buffer.concat([bytes(0x06, 0x00, 0xff, 0x07), bytes(0x06, 0x10), Buffer.alloc(20)]);
    expect(await classify('udp', 51401, 10623, [ipmi], undefined, { v6: true })).toBe('RMCP (DPI)');
    // an ACK (bit 7) with sequence 0
    expect(await classify('udp', 51402, 623, [bytes(0x06, 0x00, 0x00, 0x86)])).toBe('RMCP (DPI)');
    // near misses: ACK with sequence 255, class 8 (OEM), version 5, reserved set, 3 bytes
    expect(await classify('udp', 51403, 623, [bytes(0x06, 0x00, 0xff, 0x86)])).not.toBe('RMCP (DPI)');
    expect(await classify('udp', 51404, 623, [bytes(0x06, 0x00, 0xff, 0x08)])).not.toBe('RMCP (DPI)');
    expect(await classify('udp', 51405, 623, [bytes(0x05, 0x00, 0xff, 0x06)])).not.toBe('RMCP (DPI)');
    expect(await classify('udp', 51406, 623, [bytes(0x06, 0x01, 0xff, 0x06)])).not.toBe('RMCP (DPI)');
    expect(await classify('udp', 51407, 623, [bytes(0x06, 0x00, 0xff)])).not.toBe('RMCP (DPI)');
  });
});
