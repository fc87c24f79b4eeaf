// One hand-built flow per case: the group-D dissectors of round 9 (sFlow,
// VXLAN, OpenFlow, PFCP, …) name their protocol by DPI under nDPI's
// conditions, and a near miss (one detail wrong) is not named that protocol
// by DPI (a guess by port may still name it).
import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-9d-');
const v6 = { v6: true };

// ── sFlow v5 (sflow.org "sFlow Version 5", sample_datagram_v5) ─────────────
// version, agent address type (1 IPv4 / 2 IPv6), agent address, sub-agent
// id, sequence number, uptime (ms), number of samples, then the samples.
const sflow = (seq: number, opts: { version?: number; addrType?: number; samples?: Buffer } = {}) => {
  const addrType = opts.addrType ?? 1;
  const addr = addrType === 2 ? Buffer.from('20010db8000000000000000000000009', 'hex') : Buffer.from([192, 0, 2, 9]);
  const samples = opts.samples ?? Buffer.alloc(0);
  return Buffer.concat([u32(opts.version ?? 5), u32(addrType), addr, u32(0), u32(seq), u32(123456), u32(samples.length ? 1 : 0), samples]);
};
// A counters sample (enterprise 0, format 2) holding nothing but its header.
const counterSample = Buffer.concat([u32(2), u32(8), u32(1), u32(0)]);

// ── VXLAN (RFC 7348 §5): flags (I = 0x08), 24 reserved bits, VNI, 8 reserved bits; then the inner Ethernet frame
// The inner frame is an ARP request (RFC 826): the engine's decoder opens
// VXLAN frames carrying IP and classifies the inner flow (as ndpiReader
// does), so the outer flow reaches the dissector with other payloads.
const innerFrame = Buffer.concat([
  Buffer.from('ffffffffffff0200000000010806', 'hex'),
  Buffer.concat([u16(1), u16(0x0800), Buffer.from([6, 4]), u16(1), Buffer.from('020000000001c0000201000000000000c0000202', 'hex')]),
]);
const vxlan = (vni: number, opts: { flags?: number; reserved1?: number; reserved2?: number } = {}) =>
  Buffer.concat([Buffer.from([opts.flags ?? 0x08]), Buffer.from([0, (opts.reserved1 ?? 0) >> 8, (opts.reserved1 ?? 0) & 255]), Buffer.from([vni >> 16, (vni >> 8) & 255, vni & 255, opts.reserved2 ?? 0]), innerFrame]);

// ── OpenFlow 1.5 (§7.1 ofp_header): version, type, length (whole message), xid
const ofp = (type: number, body: Buffer, opts: { version?: number; lenDelta?: number } = {}) =>
  Buffer.concat([Buffer.from([opts.version ?? 0x06, type]), u16(8 + body.length + (opts.lenDelta ?? 0)), u32(0x11223344), body]);
// OFPT_HELLO (0) with a versionbitmap element (type 1, length 8, bitmap of 1.5)
const ofpHello = ofp(0, Buffer.concat([u16(1), u16(8), u32(1 << 6)]));
// OFPT_FEATURES_REPLY (6): datapath_id, n_buffers, n_tables, auxiliary_id, pad, capabilities, reserved
const ofpFeatures = ofp(6, Buffer.concat([Buffer.alloc(8, 1), u32(256), Buffer.from([254, 0, 0, 0]), u32(0x4f), u32(0)]));
// OFPT_ECHO_REQUEST (2), empty
const ofpEcho = ofp(2, Buffer.alloc(0));

// ── PFCP (3GPP TS 29.244 §7.2.2): flags (version 1 << 5 | FO | MP | S), type, length (after the first 4 bytes), [SEID], sequence (3) + spare/priority (1), IEs
const pfcp = (type: number, ies: Buffer, opts: { flags?: number; seid?: boolean; lenDelta?: number } = {}) => {
  const seid = opts.seid ?? true;
  const rest = Buffer.concat([seid ? Buffer.from('0000000000000abc', 'hex') : Buffer.alloc(0), Buffer.from([0, 0, 7, 0]), ies]);
  return Buffer.concat([Buffer.from([opts.flags ?? (0x20 | (seid ? 1 : 0)), type]), u16(rest.length + (opts.lenDelta ?? 0)), rest]);
};
// Cause IE (type 19, length 1, Request accepted = 1); Node ID IE (60): IPv4 type
const causeIe = Buffer.concat([u16(19), u16(1), Buffer.from([1])]);
const nodeIdIe = Buffer.concat([u16(60), u16(5), Buffer.from([0, 10, 0, 0, 9])]);

// ── UBNTAC2 (Ubiquiti discovery, Wireshark "ubdp"): version 1, command, length, TLVs.
// The reply of an AirControl-managed device, 135+ bytes: MAC/IP (type 2),
// MAC (1), firmware (3), then the product tag — placed so the tag lands
// where nDPI looks: "UBNT" at byte 36 (v1 announce) or "ubnt" at byte 49.
const ubnt = (tag: 'UBNT' | 'ubnt', opts: { at?: number; total?: number } = {}) => {
  const at = opts.at ?? (tag === 'UBNT' ? 36 : 49);
  const total = opts.total ?? 160;
  const b = Buffer.alloc(total, 0x20);
  Buffer.concat([Buffer.from([1, 0]), u16(total - 4), Buffer.from([2, 0, 10]), Buffer.from('0418d6a1b2c3c0a8010a', 'hex')]).copy(b, 0);
  txt(tag).copy(b, at);
  b[at + 4] = 0x2e, b[at + 5] = 5; // model name length nDPI skips
  txt('v4.3.2').copy(b, at + 11);
  b[at + 17] = 0;
  return b;
};

// ── TP-Link Smart Home (softScheck's reverse engineering): autokey XOR from 171
const tplEncrypt = (json: string) => {
  let key = 171;
  return Buffer.from([...txt(json)].map((ch) => (key = ch ^ key)));
};
const tplTcp = (json: string) => Buffer.concat([u32(json.length), tplEncrypt(json)]);
const tplInfo = '{"system":{"get_sysinfo":{}}}';

// ── Tuya LAN (lan_protocol.h): prefix, seq, cmd, len (payload + CRC + suffix), payload, CRC32, suffix
const tuya = (seq: number, cmd: number, payload: Buffer, opts: { prefix?: number; suffix?: number } = {}) =>
  Buffer.concat([u32(opts.prefix ?? 0x000055aa), u32(seq), u32(cmd), u32(payload.length + 8), payload, u32(0xdeadbeef), u32(opts.suffix ?? 0x0000aa55)]);
// UDP discovery broadcast (cmd 0x13) with its (normally encrypted) payload
const tuyaBeacon = tuya(0, 0x13, Buffer.alloc(88, 0x5a));

// ── TiVoConnect discovery beacon: key=value lines
const tivo = 'tivoconnect=1\nmethod=broadcast\nplatform=tcd/Series3\nmachine=Living Room\nidentity=uuid:0123abcd\nservices=TiVoMediaServer:80/http\nswversion=11.0k\n';

// ── Roughtime (draft-ietf-ntp-roughtime, Google's protocol.md): tag count N
// (LE32), N-1 value offsets (LE32, from the start of the values), N tags, values
const rtMsg = (fields: [string, Buffer][], opts: { count?: number; lastOffsetDelta?: number } = {}) => {
  const offsets: number[] = [];
  let at = 0;
  fields.forEach(([, v], i) => {
    if (i > 0) offsets.push(at);
    at += v.length;
  });
  if (offsets.length && opts.lastOffsetDelta) offsets[offsets.length - 1]! += opts.lastOffsetDelta;
  return Buffer.concat([le32(opts.count ?? fields.length), ...offsets.map(le32), ...fields.map(([t]) => Buffer.from(t, 'latin1')), ...fields.map(([, v]) => v)]);
};
// A client request: a 64-byte nonce, padded to 1024 bytes (PAD ended by 0xff, as Google's client sends it)
const rtRequest = rtMsg([['NONC', Buffer.alloc(64, 0x33)], ['PAD\xff', Buffer.alloc(1024 - 8 - 4 - 8 - 64, 0)]]);
// A server reply: SIG, PATH, SREP (itself a message of ROOT, MIDP, RADI), CERT, INDX
const rtSrep = rtMsg([['RADI', le32(1000000)], ['MIDP', Buffer.alloc(8, 1)], ['ROOT', Buffer.alloc(64, 2)]]);
const rtReply = rtMsg([['SIG\0', Buffer.alloc(64, 4)], ['PATH', Buffer.alloc(0)], ['SREP', rtSrep], ['CERT', Buffer.alloc(152, 5)], ['INDX', le32(0)]]);

// ── DLEP (RFC 8175): UDP signals "DLEP" + type + length + data items; TCP messages type + length + data items
const dlepItem = (type: number, value: Buffer) => Buffer.concat([u16(type), u16(value.length), value]);
const peerType = dlepItem(4, Buffer.concat([Buffer.from([0]), txt('radio-modem-7, 5 GHz')])); // §13.4 Peer Type: flags, description
const heartbeat = dlepItem(5, u32(60000)); // §13.5 Heartbeat Interval (ms)
const connPoint = dlepItem(2, Buffer.from([0, 192, 0, 2, 7, 0x03, 0x56])); // §13.2 IPv4 Connection Point: flags, address, port 854
const dlepSignal = (type: number, items: Buffer) => Buffer.concat([txt('DLEP'), u16(type), u16(items.length), items]);
const dlepMessage = (type: number, items: Buffer, lenDelta = 0) => Buffer.concat([u16(type), u16(items.length + lenDelta), items]);

// ── CPHA (Check Point CCP, Wireshark "cpha"): magic 0x1A90, protocol version,
// cluster number, HA opcode, source machine id, reserved, policy id, filler
const cpha = (magic = 0x1a90) => Buffer.concat([u16(magic), u16(3010), u16(1), u16(1), u16(0), u16(0), u16(0), u16(0), Buffer.alloc(16, 0)]);

// ── FLUTE (RFC 6726) over ALC/LCT (RFC 5651 §5.1): V=1 C=0 PSI=0 | S=1 O=01 H=0 |
// HDR_LEN | codepoint, CCI, TSI, TOI = 0 (the FDT), EXT_FDT (HET 192, RFC 6726 §3.4.1),
// then the FEC payload id (SBN, ESI), then the FDT instance
const fdt = (lineEnd = '\n') =>
  txt('<?xml version="1.0" encoding="UTF-8"?>' + lineEnd +
    '<FDT-Instance Expires="3600000000"><File TOI="1" Content-Location="file:///news/today.mp4" Content-Length="1048576" Content-Type="video/mp4"/>' +
    '<File TOI="2" Content-Location="file:///news/today.srt" Content-Length="2048" Content-Type="text/plain"/></FDT-Instance>');
const lct = (first = 0x10, extWords = 1) =>
  Buffer.concat([Buffer.from([first, 0xa0, 4 + extWords, 0]), u32(0), u32(0x1234), u32(0), Buffer.concat([Buffer.from([192, 0x20, 0, 1])]), Buffer.alloc((extWords - 1) * 4, 0)]);
const flute = (opts: { first?: number; extWords?: number; lineEnd?: string } = {}) => Buffer.concat([lct(opts.first, opts.extWords), u16(0), u16(0), fdt(opts.lineEnd)]);

// ── UFTP 5 (uftp protocol description, uftp_h): version, func, seq, session id,
// group id, group instance, grtt, gsize, source id; then the message (func again)
const uftp = (version: number, func: number, opts: { srcId?: number; msgFunc?: number } = {}) =>
  Buffer.concat([Buffer.from([version, func]), u16(7), u32(0xc0ffee01), Buffer.from([3, 0, 0x40, 0x20]), u32(opts.srcId ?? 0x0a000100),
    Buffer.from([opts.msgFunc ?? func, 6]), u16(0), u32(0), Buffer.alloc(16, 0x11)]);

// ── FTP_DATA (RFC 959 §3.2–3.3): a data connection carries the file or the
// LIST output as is. A file opens with its format's magic number; fill a
// payload to `len` bytes (nDPI wants 256 or more for a file header).
const fileData = (magic: Buffer | string, len = 512, fill = 0) => {
  const head = typeof magic === 'string' ? txt(magic) : magic;
  // zero fill: no other heuristic (Protobuf's field reader) can take it
  return Buffer.concat([head, Buffer.alloc(len - head.length, fill)]);
};
// LIST output in the usual "ls -l" form
const listing = 'drwxr-xr-x    2 ftp      ftp          4096 Jan 01 00:00 pub\r\n-rw-r--r--    1 ftp      ftp      10485760 Jan 01 00:00 big.iso\r\n';
// Magic numbers: name → opening bytes (format documents / file(1)'s magic).
// The XML declaration uses single quotes: our SOAP dissector, registered
// before FTP_DATA, names a first packet opening <?xml version="1.0" SOAP at
// once, where nDPI asks FTP_DATA first (reported, not ours to change).
const fileMagics: [string, Buffer | string][] = [
  ['RIFF (WAV/AVI)', 'RIFF'], ['Ogg', 'OggS'], ['ZIP', 'PK\x03\x04'], ['MPEG-PS pack', Buffer.from([0, 0, 1, 0xba])], ['RAR', 'Rar!\x1a\x07\x00'],
  ['EBML/Matroska', Buffer.from([0x1a, 0x45, 0xdf, 0xa3])], ['JPEG SOI', Buffer.from([0xff, 0xd8, 0xff, 0xe0])], ['GIF', 'GIF89a'],
  ['PHP', '<?php echo 1; ?>'], ['PDF', '%PDF-1.7\n'], ['PNG', Buffer.from('89504e470d0a1a0a', 'hex')], ['HTML', '<html><head>'],
  ['HTML after a line end', '\n<!DOCTYPE html>'], ['7-Zip', Buffer.from('377abcaf271c', 'hex')], ['gzip', Buffer.from([0x1f, 0x8b, 0x08, 0])],
  ['doctype', '<!DOCTYPE html>'], ['FLAC', 'fLaC'], ['MP3 ID3v2.3', 'ID3\x03\x00'], ['MP3 frame', Buffer.from([0xff, 0xfb, 0x90, 0xc0])],
  ['RPM', Buffer.from([0xed, 0xab, 0xee, 0xdb])], ['Wz patch', 'WzPa'], ['FLV', 'FLV\x01\x05'], ['MTF (.bkf)', 'TAPE'],
  ['OLE2 (MS Office)', Buffer.from('d0cf11e0a1b11ae1', 'hex')], ['ASP', '<%@ Language="VBScript" %>'], ['markup comment', '<!-- x -->'],
  ['ar (.deb)', '!<arch>\n'], ['XML', "<?xml version='1.0'?><doc/>"], ['XML stanza', "<iq type='get'>"], ['SPF', 'SPFI'], ['ABIF', 'ABIF'],
  ['bzip2', 'BZh91AY&SY'], ['ColdFusion', '<cfset x=1>'], ['ColdFusion upper', '<CFSET x=1>'], ['.tem', '.tem'], ['.ite', '.ite'], ['.lef', '.lef'],
];

describe('dissectors 9 (group D)', () => {
  it('sFlow: two v5 datagrams with an IPv4 or IPv6 agent address, any port', async () => {
    expect(await classify('udp', 50000, 6343, [sflow(1, { samples: counterSample }), sflow(2, { samples: counterSample })], [true, true])).toBe('sFlow (DPI)');
    // IPv6 agent (address type 2), over IPv6
    expect(await classify('udp', 50001, 6343, [sflow(1, { addrType: 2 }), sflow(2, { addrType: 2 })], [true, true], v6)).toBe('sFlow (DPI)');
    // nDPI does not require the port
    expect(await classify('udp', 50002, 9999, [sflow(7), sflow(8)], [true, true])).toBe('sFlow (DPI)');
    // an empty datagram (no samples) is 28 bytes, above the 24 minimum
    expect(await classify('udp', 50003, 9999, [sflow(1), sflow(2), sflow(3)], [true, true, true])).toBe('sFlow (DPI)');
  });

  it('sFlow near misses: one datagram, version 4, unknown address type, a short second datagram', async () => {
    expect(await classify('udp', 50010, 9999, [sflow(1)])).not.toBe('sFlow (DPI)');
    expect(await classify('udp', 50011, 9999, [sflow(1, { version: 4 }), sflow(2, { version: 4 })], [true, true])).not.toBe('sFlow (DPI)');
    expect(await classify('udp', 50012, 9999, [sflow(1, { addrType: 3 }), sflow(2, { addrType: 3 })], [true, true])).not.toBe('sFlow (DPI)');
    expect(await classify('udp', 50013, 9999, [sflow(1), sflow(2).subarray(0, 23)], [true, true])).not.toBe('sFlow (DPI)');
    // a first datagram that is not sFlow ends the search
    expect(await classify('udp', 50014, 9999, [txt('hello there, not sflow at all'), sflow(1), sflow(2)], [true, true, true])).not.toBe('sFlow (DPI)');
  });

  it('VXLAN: a datagram to port 4789 with only the I flag set', async () => {
    expect(await classify('udp', 51000, 4789, [vxlan(42)])).toBe('VXLAN (DPI)');
    expect(await classify('udp', 51001, 4789, [vxlan(0xffffff)], undefined, v6)).toBe('VXLAN (DPI)');
    // the header alone (8 bytes) is enough
    expect(await classify('udp', 51002, 4789, [vxlan(1).subarray(0, 8)])).toBe('VXLAN (DPI)');
  });

  it('VXLAN near misses: another port, sent from 4789, a flag or reserved bit set', async () => {
    expect(await classify('udp', 51010, 4790, [vxlan(42)])).not.toBe('VXLAN (DPI)');
    // the first datagram comes from 4789 (server → client): nDPI wants 4789 as the destination
    expect(await classify('udp', 51011, 4789, [vxlan(42)], [false])).not.toBe('VXLAN (DPI)');
    // I flag clear; VXLAN-GPE's P flag (0x04) besides I
    expect(await classify('udp', 51012, 4789, [vxlan(42, { flags: 0x00 })])).not.toBe('VXLAN (DPI)');
    expect(await classify('udp', 51013, 4789, [vxlan(42, { flags: 0x0c })])).not.toBe('VXLAN (DPI)');
    // group policy id (VXLAN-GBP) in the first reserved field; last reserved byte
    expect(await classify('udp', 51014, 4789, [vxlan(42, { reserved1: 0x0010 })])).not.toBe('VXLAN (DPI)');
    expect(await classify('udp', 51015, 4789, [vxlan(42, { reserved2: 1 })])).not.toBe('VXLAN (DPI)');
    expect(await classify('udp', 51016, 4789, [vxlan(42).subarray(0, 7)])).not.toBe('VXLAN (DPI)');
  });

  it('OpenFlow 1.5: the first message of a TCP flow, any port', async () => {
    expect(await classify('tcp', 52000, 6653, [ofpHello, ofpHello])).toBe('OpenFlow (DPI)');
    expect(await classify('tcp', 52001, 6653, [ofpEcho, ofpFeatures], undefined, v6)).toBe('OpenFlow (DPI)');
    expect(await classify('tcp', 52002, 7777, [ofpFeatures])).toBe('OpenFlow (DPI)');
    // the highest type nDPI admits: 35 (OFPT_BUNDLE_ADD_MESSAGE is 34, 35 a
    // spare value), with an 8-byte message
    expect(await classify('tcp', 52003, 6653, [ofp(35, Buffer.alloc(0))])).toBe('OpenFlow (DPI)');
  });

  it('OpenFlow near misses: version 1.3, type 36, a wrong length, a second message first', async () => {
    expect(await classify('tcp', 52010, 6653, [ofp(0, Buffer.alloc(0), { version: 0x04 })])).not.toBe('OpenFlow (DPI)');
    expect(await classify('tcp', 52011, 6653, [ofp(36, Buffer.alloc(0))])).not.toBe('OpenFlow (DPI)');
    expect(await classify('tcp', 52012, 6653, [ofp(0, Buffer.alloc(4), { lenDelta: -4 })])).not.toBe('OpenFlow (DPI)');
    // two messages in one segment: the length is the first one's only
    expect(await classify('tcp', 52013, 6653, [Buffer.concat([ofpHello, ofpEcho])])).not.toBe('OpenFlow (DPI)');
    // only the first payload packet counts
    expect(await classify('tcp', 52014, 6653, [txt('GARBAGE!'), ofpHello])).not.toBe('OpenFlow (DPI)');
  });

  it('PFCP: session messages (S set) on port 8805, either side', async () => {
    // Session Establishment Request (50)
    expect(await classify('udp', 8805, 8805, [pfcp(50, nodeIdIe)])).toBe('PFCP (DPI)');
    // Session Modification Response (53), from the UPF's port 8805 to an ephemeral port
    expect(await classify('udp', 40000, 8805, [pfcp(53, causeIe)], [false], v6)).toBe('PFCP (DPI)');
    expect(await classify('udp', 40001, 8805, [pfcp(57, causeIe)])).toBe('PFCP (DPI)');
    // nDPI reads the low nibble only: version bits other than 1 pass
    expect(await classify('udp', 40002, 8805, [pfcp(52, causeIe, { flags: 0x41 })])).toBe('PFCP (DPI)');
  });

  it('PFCP near misses: no SEID, another port, type 58, a wrong length, too short', async () => {
    // Heartbeat Request (1) and Association Setup Request (5) carry no SEID (S = 0)
    expect(await classify('udp', 40010, 8805, [pfcp(1, Buffer.concat([u16(96), u16(4), u32(0xe0000000)]), { seid: false })])).not.toBe('PFCP (DPI)');
    expect(await classify('udp', 40011, 8805, [pfcp(5, nodeIdIe, { seid: false })])).not.toBe('PFCP (DPI)');
    expect(await classify('udp', 40012, 8806, [pfcp(50, nodeIdIe)])).not.toBe('PFCP (DPI)');
    expect(await classify('udp', 40013, 8805, [pfcp(58, causeIe)])).not.toBe('PFCP (DPI)');
    expect(await classify('udp', 40014, 8805, [pfcp(50, causeIe, { lenDelta: 1 })])).not.toBe('PFCP (DPI)');
    // MP flag (0x02) besides S
    expect(await classify('udp', 40015, 8805, [pfcp(50, causeIe, { flags: 0x23 })])).not.toBe('PFCP (DPI)');
    // 12 bytes with a consistent length (nDPI wants more than 12); 13 pass
    const short = (n: number) => Buffer.concat([Buffer.from([0x21, 50]), u16(n - 4), Buffer.alloc(n - 4, 0)]);
    expect(await classify('udp', 40016, 8805, [short(12)])).not.toBe('PFCP (DPI)');
    expect(await classify('udp', 40017, 8805, [short(13)])).toBe('PFCP (DPI)');
  });

  it('UBNTAC2: a 135-byte or longer Ubiquiti discovery datagram with its tag, port 10001', async () => {
    expect(await classify('udp', 10001, 54000, [ubnt('UBNT')])).toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54001, 10001, [ubnt('ubnt')])).toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54002, 10001, [ubnt('UBNT', { total: 135 })], undefined, v6)).toBe('UBNTAC2 (DPI)');
    // the server's reply first
    expect(await classify('udp', 54003, 10001, [ubnt('ubnt')], [false])).toBe('UBNTAC2 (DPI)');
  });

  it('UBNTAC2 near misses: 134 bytes, another port, the tag elsewhere or in the other case', async () => {
    expect(await classify('udp', 54010, 10001, [ubnt('UBNT', { total: 134 })])).not.toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54011, 10002, [ubnt('UBNT')])).not.toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54012, 10001, [ubnt('UBNT', { at: 37 })])).not.toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54013, 10001, [ubnt('ubnt', { at: 36 })])).not.toBe('UBNTAC2 (DPI)');
    expect(await classify('udp', 54014, 10001, [ubnt('UBNT', { at: 49 })])).not.toBe('UBNTAC2 (DPI)');
  });

  it('TPLINK_SHP: an XOR-obfuscated JSON command over TCP (length first) or UDP, any port', async () => {
    expect(await classify('tcp', 55000, 9999, [tplTcp(tplInfo), tplTcp('{"system":{"get_sysinfo":{"err_code":0}}}')])).toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55001, 9999, [tplEncrypt(tplInfo)])).toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55002, 9999, [tplEncrypt('{}')], undefined, v6)).toBe('TPLINK_SHP (DPI)');
    expect(await classify('tcp', 55003, 8080, [tplTcp('{"emeter":{"get_realtime":{}}}')], undefined, v6)).toBe('TPLINK_SHP (DPI)');
    // nDPI skips the TCP length without reading it
    expect(await classify('tcp', 55004, 9999, [Buffer.concat([u32(0), tplEncrypt(tplInfo)])])).toBe('TPLINK_SHP (DPI)');
  });

  it('TPLINK_SHP near misses: plain JSON, an array, a missing TCP length, a wrong key, too short', async () => {
    expect(await classify('udp', 55010, 9999, [txt(tplInfo)])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55011, 9999, [tplEncrypt('[{"a":1}]')])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55012, 9999, [tplEncrypt('{ "a":1}')])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('tcp', 55013, 9999, [tplEncrypt(tplInfo)])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55014, 9999, [tplTcp(tplInfo)])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('udp', 55015, 9999, [tplEncrypt('{')])).not.toBe('TPLINK_SHP (DPI)');
    expect(await classify('tcp', 55016, 9999, [Buffer.concat([u32(1), tplEncrypt('{')])])).not.toBe('TPLINK_SHP (DPI)');
  });

  it('TuyaLP: a datagram framed by 0x000055AA and 0x0000AA55, any port', async () => {
    expect(await classify('udp', 6667, 6667, [tuyaBeacon])).toBe('TuyaLP (DPI)');
    expect(await classify('udp', 56001, 6666, [tuya(5, 0x0a, txt('{"gwId":"bf123","devId":"bf123"}'))], undefined, v6)).toBe('TuyaLP (DPI)');
    expect(await classify('udp', 56002, 7000, [tuya(1, 0x07, Buffer.alloc(0))])).toBe('TuyaLP (DPI)');
    // nDPI's length test reads the sequence number: one as large as the datagram passes
    expect(await classify('udp', 56003, 6667, [tuya(24, 0x07, Buffer.alloc(0))])).toBe('TuyaLP (DPI)');
  });

  it('TuyaLP near misses: a wrong prefix or suffix, a sequence number above the size, too short', async () => {
    expect(await classify('udp', 56010, 6667, [tuya(0, 0x13, Buffer.alloc(8), { prefix: 0x000055ab })])).not.toBe('TuyaLP (DPI)');
    expect(await classify('udp', 56011, 6667, [tuya(0, 0x13, Buffer.alloc(8), { suffix: 0x0000aa56 })])).not.toBe('TuyaLP (DPI)');
    expect(await classify('udp', 56012, 6667, [tuya(25, 0x07, Buffer.alloc(0))])).not.toBe('TuyaLP (DPI)');
    // 12 bytes: prefix, a zero word, suffix
    expect(await classify('udp', 56013, 6667, [Buffer.concat([u32(0x55aa), u32(0), u32(0xaa55)])])).not.toBe('TuyaLP (DPI)');
  });

  it('TiVoConnect: a beacon opening with tivoconnect=, any case, TCP or UDP, any port', async () => {
    expect(await classify('udp', 2190, 2190, [txt(tivo)])).toBe('TiVoConnect (DPI)');
    expect(await classify('tcp', 57001, 2190, [txt(tivo)], undefined, v6)).toBe('TiVoConnect (DPI)');
    expect(await classify('udp', 57002, 5000, [txt(tivo.toUpperCase())])).toBe('TiVoConnect (DPI)');
    // a damaged beacon (no line end) still names it (nDPI only adds a risk)
    expect(await classify('udp', 57003, 2190, [txt('TiVoConnect=1\nmachine')])).toBe('TiVoConnect (DPI)');
  });

  it('TiVoConnect near misses: no "=", another key first, not at the start', async () => {
    expect(await classify('udp', 57010, 2190, [txt('tivoconnect:1\n')])).not.toBe('TiVoConnect (DPI)');
    expect(await classify('udp', 57011, 2190, [txt('method=broadcast\n' + tivo)])).not.toBe('TiVoConnect (DPI)');
    expect(await classify('tcp', 57012, 2190, [txt(' ' + tivo)])).not.toBe('TiVoConnect (DPI)');
    expect(await classify('udp', 57013, 2190, [txt('tivoconnect')])).not.toBe('TiVoConnect (DPI)');
  });

  it('Roughtime: a request or reply of known tags, UDP or TCP, any port', async () => {
    expect(await classify('udp', 58000, 2002, [rtRequest, rtReply])).toBe('Roughtime (DPI)');
    expect(await classify('udp', 58001, 2002, [rtReply], [false], v6)).toBe('Roughtime (DPI)');
    expect(await classify('tcp', 58002, 2002, [rtRequest, rtReply])).toBe('Roughtime (DPI)');
    expect(await classify('udp', 58003, 4000, [rtSrep])).toBe('Roughtime (DPI)');
    // one tag: 8 bytes are enough; PAD with NUL, VER, zzzz
    expect(await classify('udp', 58004, 2002, [rtMsg([['VER\0', Buffer.alloc(0)]])])).toBe('Roughtime (DPI)');
    expect(await classify('udp', 58005, 2002, [rtMsg([['PAD\0', Buffer.alloc(8)], ['NONC', Buffer.alloc(32, 1)], ['zzzz', Buffer.alloc(4)]])])).toBe('Roughtime (DPI)');
  });

  it('Roughtime near misses: an unknown tag, no tags, 23 tags, an offset past the end, the ROUGHTIM framing', async () => {
    expect(await classify('udp', 58010, 2002, [rtMsg([['NONC', Buffer.alloc(64)], ['PADX', Buffer.alloc(64)]])])).not.toBe('Roughtime (DPI)');
    expect(await classify('udp', 58011, 2002, [rtMsg([['nonc', Buffer.alloc(64)]])])).not.toBe('Roughtime (DPI)');
    expect(await classify('udp', 58012, 2002, [Buffer.concat([le32(0), Buffer.alloc(60)])])).not.toBe('Roughtime (DPI)');
    expect(await classify('udp', 58013, 2002, [rtMsg(Array.from({ length: 23 }, () => ['PAD\0', Buffer.alloc(4)] as [string, Buffer]))])).not.toBe('Roughtime (DPI)');
    // 22 tags are still fine
    expect(await classify('udp', 58014, 2002, [rtMsg(Array.from({ length: 22 }, () => ['PAD\0', Buffer.alloc(4)] as [string, Buffer]))])).toBe('Roughtime (DPI)');
    // the last offset beyond the packet (nDPI measures it past the offsets: the tags' 8 bytes plus the last value's 4 still fit)
    expect(await classify('udp', 58015, 2002, [rtMsg([['NONC', Buffer.alloc(64)], ['PAD\xff', Buffer.alloc(4)]], { lastOffsetDelta: 13 })])).not.toBe('Roughtime (DPI)');
    expect(await classify('udp', 58016, 2002, [rtMsg([['NONC', Buffer.alloc(64)], ['PAD\xff', Buffer.alloc(4)]], { lastOffsetDelta: 12 })])).toBe('Roughtime (DPI)');
    expect(await classify('udp', 58017, 2002, [Buffer.concat([txt('ROUGHTIM'), le32(rtRequest.length), rtRequest])])).not.toBe('Roughtime (DPI)');
    // a count of 3 with room for only two tags
    expect(await classify('udp', 58018, 2002, [rtMsg([['NONC', Buffer.alloc(0)], ['PAD\0', Buffer.alloc(0)]], { count: 3 })])).not.toBe('Roughtime (DPI)');
  });

  it('DLEP: a UDP discovery signal (any port) or a TCP session message on port 854', async () => {
    expect(await classify('udp', 59000, 854, [dlepSignal(1, peerType), dlepSignal(2, Buffer.concat([peerType, connPoint]))])).toBe('DLEP (DPI)');
    expect(await classify('udp', 59001, 6000, [dlepSignal(1, peerType)], undefined, v6)).toBe('DLEP (DPI)');
    // Session Initialization (1), its response (2)
    expect(await classify('tcp', 59002, 854, [dlepMessage(1, Buffer.concat([heartbeat, peerType])), dlepMessage(2, Buffer.concat([dlepItem(1, Buffer.from([0])), heartbeat, peerType]))])).toBe('DLEP (DPI)');
    expect(await classify('tcp', 854, 59003, [dlepMessage(16, heartbeat)], undefined, v6)).toBe('DLEP (DPI)');
  });

  it('DLEP near misses: a short signal, a TCP message off port 854 or of type 17, a wrong length, a bare heartbeat', async () => {
    // 27 bytes: "DLEP", type, length and a 19-byte Peer Type item
    const short = dlepSignal(1, dlepItem(4, Buffer.concat([Buffer.from([0]), txt('abcdefghijklmn')])));
    expect(short.length).toBe(27);
    expect(await classify('udp', 59010, 854, [short])).not.toBe('DLEP (DPI)');
    expect(await classify('udp', 59011, 854, [Buffer.concat([txt('dlep'), dlepSignal(1, peerType).subarray(4)])])).not.toBe('DLEP (DPI)');
    expect(await classify('tcp', 59012, 855, [dlepMessage(1, Buffer.concat([heartbeat, peerType]))])).not.toBe('DLEP (DPI)');
    expect(await classify('tcp', 59013, 854, [dlepMessage(17, Buffer.concat([heartbeat, peerType]))])).not.toBe('DLEP (DPI)');
    expect(await classify('tcp', 59014, 854, [dlepMessage(1, Buffer.concat([heartbeat, peerType]), 1)])).not.toBe('DLEP (DPI)');
    // Heartbeat (16) without items: 4 bytes, nDPI wants more than 8
    expect(await classify('tcp', 59015, 854, [dlepMessage(16, Buffer.alloc(0))])).not.toBe('DLEP (DPI)');
    // over TCP the "DLEP" signal form does not count
    expect(await classify('tcp', 59016, 854, [dlepSignal(1, peerType)])).not.toBe('DLEP (DPI)');
  });

  describe('CPHA (needs the source address 0.0.0.0)', () => {
    const tmp = tempDir('fg-dissectors-9d-cpha-');
    let n = 0;
    const one = async (src: string, sport: number, dport: number, payload: Buffer) =>
      replayFrames(tmp.file(`cpha-${n++}.pcap`), [eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst: '255.255.255.255', proto: IPPROTO.UDP }, udp({ sport, dport }, payload)))], (e) => {
        const f = e.flows({ limit: 1 }).rows[0]!;
        return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
      });
    afterAll(() => tmp.cleanup());

    it('a CCP packet from 0.0.0.0, port 8116 to 8116', async () => {
      expect(await one('0.0.0.0', 8116, 8116, cpha())).toBe('CPHA (DPI)');
      expect(await one('0.0.0.0', 8116, 8116, cpha().subarray(0, 21))).toBe('CPHA (DPI)');
    });

    it('near misses: another source, one port not 8116, a wrong magic, 20 bytes, IPv6', async () => {
      expect(await one('10.0.0.1', 8116, 8116, cpha())).not.toBe('CPHA (DPI)');
      expect(await one('0.0.0.0', 40000, 8116, cpha())).not.toBe('CPHA (DPI)');
      expect(await one('0.0.0.0', 8116, 8117, cpha())).not.toBe('CPHA (DPI)');
      expect(await one('0.0.0.0', 8116, 8116, cpha(0x1a91))).not.toBe('CPHA (DPI)');
      expect(await one('0.0.0.0', 8116, 8116, cpha().subarray(0, 20))).not.toBe('CPHA (DPI)');
      // nDPI reads CPHA over IPv4 only
      expect(await classify('udp', 8116, 8116, [cpha()], undefined, v6)).not.toBe('CPHA (DPI)');
    });
  });

  it('FLUTE: an FDT instance in an LCT packet, any port', async () => {
    expect(await classify('udp', 60000, 4001, [flute()])).toBe('FLUTE (DPI)');
    expect(await classify('udp', 60001, 4001, [flute({ extWords: 3 })], undefined, v6)).toBe('FLUTE (DPI)');
  });

  it('FLUTE near misses: a CRLF after the declaration, PSI bits set, 250 bytes, a data packet', async () => {
    expect(await classify('udp', 60010, 4001, [flute({ lineEnd: '\r\n' })])).not.toBe('FLUTE (DPI)');
    expect(await classify('udp', 60011, 4001, [flute({ first: 0x11 })])).not.toBe('FLUTE (DPI)');
    expect(await classify('udp', 60012, 4001, [flute().subarray(0, 250)])).not.toBe('FLUTE (DPI)');
    expect(await classify('udp', 60013, 4001, [flute().subarray(0, 251)])).toBe('FLUTE (DPI)');
    expect(await classify('udp', 60014, 4001, [Buffer.concat([lct(), u16(0), u16(5), Buffer.alloc(400, 0x77)])])).not.toBe('FLUTE (DPI)');
  });

  it('UFTP: a version 4 or 5 message whose body repeats the function, any port', async () => {
    expect(await classify('udp', 61000, 1044, [uftp(0x50, 1)])).toBe('UFTP (DPI)');
    expect(await classify('udp', 61001, 1044, [uftp(0x40, 2)], undefined, v6)).toBe('UFTP (DPI)');
    expect(await classify('udp', 61002, 7000, [uftp(0x50, 21)])).toBe('UFTP (DPI)');
  });

  it('UFTP near misses: version 3, function 22, a source id ending non-zero, a body of another function, too short', async () => {
    expect(await classify('udp', 61010, 1044, [uftp(0x30, 1)])).not.toBe('UFTP (DPI)');
    expect(await classify('udp', 61011, 1044, [uftp(0x50, 22)])).not.toBe('UFTP (DPI)');
    expect(await classify('udp', 61012, 1044, [uftp(0x50, 1, { srcId: 0x0a000101 })])).not.toBe('UFTP (DPI)');
    expect(await classify('udp', 61013, 1044, [uftp(0x50, 1, { msgFunc: 2 })])).not.toBe('UFTP (DPI)');
    expect(await classify('udp', 61014, 1044, [uftp(0x50, 1).subarray(0, 23)])).not.toBe('UFTP (DPI)');
    expect(await classify('udp', 61015, 1044, [uftp(0x50, 1).subarray(0, 24)])).toBe('UFTP (DPI)');
  });

  it('FTP_DATA: port 20 (active mode) with any payload', async () => {
    // the server's port 20 opens the data connection to the client's announced port
    expect(await classify('tcp', 20, 50000, [Buffer.alloc(300, 0x55)])).toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50001, 20, [txt('x')], undefined, v6)).toBe('FTP_DATA (DPI)');
  });

  it('FTP_DATA: a LIST output line, any port, either direction', async () => {
    expect(await classify('tcp', 50010, 40000, [txt(listing)], [false])).toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50011, 40001, [txt('-rw-r--r--    1 ftp ftp 12 a.txt\r\n')], undefined, v6)).toBe('FTP_DATA (DPI)');
    // 11 bytes: just above nDPI's minimum
    expect(await classify('tcp', 50012, 40002, [txt('-rwxrwxrwx ')])).toBe('FTP_DATA (DPI)');
  });

  it('FTP_DATA: a file opening with a known magic number (256 bytes or more), any port', async () => {
    let port = 50100;
    for (const [name, magic] of fileMagics) {
      expect(`${name}: ${await classify('tcp', port++, 40100, [fileData(magic)], [false])}`).toBe(`${name}: FTP_DATA (DPI)`);
    }
    expect(await classify('tcp', 50200, 40200, [fileData('%PDF-1.4\n', 256)], undefined, v6)).toBe('FTP_DATA (DPI)');
    // "jabber" after a NUL byte is not looked at
    expect(await classify('tcp', 50201, 40201, [fileData(Buffer.concat([txt("<?xml version='1.0'?>\0"), txt('jabber')]))])).toBe('FTP_DATA (DPI)');
  });

  it('FTP_DATA near misses: a short file, other mode letters, XMPP, a later packet, no handshake', async () => {
    expect(await classify('tcp', 50300, 40300, [fileData('%PDF-1.7\n', 255)])).not.toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50301, 40301, [fileData('GIF7', 512)])).not.toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50302, 40302, [fileData('BZh8', 512)])).not.toBe('FTP_DATA (DPI)');
    // a symbolic link first, a setuid bit, exactly 10 bytes
    expect(await classify('tcp', 50303, 40303, [txt('lrwxrwxrwx    1 ftp ftp 7 link -> target\r\n')])).not.toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50304, 40304, [txt('-rwsr-xr-x    1 root root 63960 passwd\r\n')])).not.toBe('FTP_DATA (DPI)');
    expect(await classify('tcp', 50305, 40305, [txt('-rw-r--r--')])).not.toBe('FTP_DATA (DPI)');
    // clear-text XMPP opening: XML naming jabber
    expect(await classify('tcp', 50306, 40306, [fileData("<?xml version='1.0'?><stream:stream xmlns='jabber:client' to='example.com'>")])).not.toBe('FTP_DATA (DPI)');
    // only the first payload packet counts
    expect(await classify('tcp', 50307, 40307, [txt('hello'), fileData('%PDF-1.7\n')])).not.toBe('FTP_DATA (DPI)');
    // an ordinary port with an unknown payload
    expect(await classify('tcp', 50308, 21000, [Buffer.alloc(600, 0x41)])).not.toBe('FTP_DATA (DPI)');
  });

  describe('FTP_DATA only on a flow seen from its handshake', () => {
    const tmp = tempDir('fg-dissectors-9d-ftpdata-');
    let n = 0;
    // A data segment with no SYN before it (the capture joined midway)
    const midway = async (sport: number, dport: number, payload: Buffer) =>
      replayFrames(tmp.file(`ftpdata-${n++}.pcap`), [eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.2', dst: '10.0.0.1', proto: IPPROTO.TCP }, tcp({ sport, dport, flags: TCPF.PSH | TCPF.ACK }, payload)))], (e) => {
        const f = e.flows({ limit: 1 }).rows[0]!;
        return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
      });
    afterAll(() => tmp.cleanup());

    it('no SYN seen: neither a file header nor port 20 names it by DPI', async () => {
      expect(await midway(50400, 40400, fileData('%PDF-1.7\n'))).not.toBe('FTP_DATA (DPI)');
      expect(await midway(20, 40401, Buffer.alloc(300, 0x55))).not.toBe('FTP_DATA (DPI)');
      expect(await midway(50402, 40402, txt(listing))).not.toBe('FTP_DATA (DPI)');
    });
  });
});
