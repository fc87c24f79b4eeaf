// Audit 17: SMB, DCE/RPC, RTMP, AJP, Cassandra, ZeroMQ, Kafka, Diameter,
// IAX, Icecast, Cisco Skinny, NoMachine, Radmin, HSRP, Beckhoff ADS, TRDP,
// H.323, S7comm, NFS, Lustre, IEEE C37.118 and DLEP checked against nDPI
// 4.11's own source (src/lib/protocols/<name>.c).
// One hand-built flow per case, its messages built from the protocols' own
// documents: what nDPI accepts is named by DPI, a near miss (one detail
// wrong) is not.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { cat, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-17-');
afterAll(() => tmp.cleanup());
const bytes = (...v: number[]) => Buffer.from(v);

type Msg = [boolean, Buffer];
/** How a TCP flow's capture opens: the whole handshake, none of it, or the SYN alone. */
type Opening = 'handshake' | 'none' | 'syn';
interface At {
  cli?: string;
  srv?: string;
  v6?: boolean;
  opening?: Opening;
}
interface Result {
  name: string;
  risks: string[];
}

/** TCP frames of one session opened as asked. */
function tcpFrames(cli: string, srv: string, cport: number, sport: number, msgs: Msg[], opening: Opening): Buffer[] {
  if (opening === 'handshake') return tcpSession(cli, srv, cport, sport, msgs);
  const six = cli.includes(':');
  const seg = (c: boolean, flags: number, seq: number, data?: Buffer) => {
    const l4 = tcp({ sport: c ? cport : sport, dport: c ? sport : cport, flags, seq, ack: 1 }, data);
    const [s, d] = c ? [cli, srv] : [srv, cli];
    return six ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.TCP }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.TCP }, l4));
  };
  const frames = opening === 'syn' ? [seg(true, TCPF.SYN, 999)] : [];
  const next = [1000, 5000];
  for (const [c, p] of msgs) {
    frames.push(seg(c, TCPF.PSH | TCPF.ACK, next[c ? 0 : 1]!, p));
    next[c ? 0 : 1]! += p.length;
  }
  return frames;
}

let nFlow = 0;
/** One flow, messages [from the client?, payload]: its "name (confidence)" and risks. */
async function flow(l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], at: At = {}): Promise<Result> {
  const ca = at.cli ?? (at.v6 ? '2001:db8::1' : '10.0.0.1');
  const sa = at.srv ?? (at.v6 ? '2001:db8::2' : '10.0.0.2');
  const six = ca.includes(':');
  const frames =
    l4 === 'tcp'
      ? tcpFrames(ca, sa, cport, sport, msgs, at.opening ?? 'handshake')
      : msgs.map(([c, p]) => {
          const l4data = udp({ sport: c ? cport : sport, dport: c ? sport : cport }, p);
          const [s, d] = c ? [ca, sa] : [sa, ca];
          return six
            ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.UDP }, l4data))
            : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, l4data));
        });
  return replayFrames(join(tmp.dir, `f-${nFlow++}.pcap`), frames, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return { name: `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`, risks: f.risks };
  });
}
const name = async (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], at: At = {}) => (await flow(l4, cport, sport, msgs, at)).name;
const v6: At = { v6: true };
/** Payloads alternating client → server, server → client. */
const alt = (...p: Buffer[]): Msg[] => p.map((b, i) => [i % 2 === 0, b]);
/** Payloads all from the client. */
const cli = (...p: Buffer[]): Msg[] => p.map((b) => [true, b]);

// ── SMB over TCP 445 ([MS-SMB2] §2.1 Direct TCP transport: 0x00, 24-bit
// length; [MS-CIFS] §2.2.3.1 SMB header; [MS-SMB2] §2.2.1 SYNC header).
const direct = (msg: Buffer, lenDelta = 0) => cat(bytes(0, (msg.length + lenDelta) >> 16, ((msg.length + lenDelta) >> 8) & 255, (msg.length + lenDelta) & 255), msg);
function smb1(command: number, words: Buffer = Buffer.alloc(0), data: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(32);
  txt('\xffSMB').copy(h, 0);
  h[4] = command;
  h[9] = 0x18; // flags: case-insensitive, canonicalized paths
  h.writeUInt16LE(0xc803, 10); // flags2
  h.writeUInt16LE(0xfeff, 26); // PID
  h.writeUInt16LE(1, 30); // MID
  return cat(h, bytes(words.length / 2), words, le16(data.length), data);
}
function smb2(command: number, body: Buffer): Buffer {
  const h = Buffer.alloc(64);
  txt('\xfeSMB').copy(h, 0);
  h.writeUInt16LE(64, 4); // StructureSize
  h.writeUInt16LE(command, 12);
  h.writeUInt16LE(1, 14); // CreditRequest
  return cat(h, body);
}
// NEGOTIATE request (StructureSize 36, two dialects: 0x0202, 0x0210)
const smb2Negotiate = () => smb2(0, cat(le16(36), le16(2), le16(1), le16(0), le32(0), Buffer.alloc(16, 0x5a), Buffer.alloc(8), le16(0x0202), le16(0x0210)));
const smb1Negotiate = () => smb1(0x72, Buffer.alloc(0), txt('\x02NT LM 0.12\0\x02SMB 2.002\0\x02SMB 2.???\0'));
// SESSION_SETUP_ANDX (0x73), 13 parameter words
const smb1SessionSetup = () => smb1(0x73, Buffer.alloc(26, 0x01), txt('\0\0user\0WORKGROUP\0Unix\0Samba\0'));

describe('SMB (smb.c)', () => {
  it('an SMB2 message on port 445 (either side) is NetBIOS.SMBv23, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50000, 445, alt(direct(smb2Negotiate())))).toBe('NetBIOS.SMBv23 (DPI)');
    expect(await name('tcp', 445, 50001, alt(direct(smb2Negotiate())))).toBe('NetBIOS.SMBv23 (DPI)');
    expect(await name('tcp', 50002, 445, alt(direct(smb2Negotiate())), v6)).toBe('NetBIOS.SMBv23 (DPI)');
  });

  it('SMBv1 is NetBIOS.SMBv1 with the insecure-SMB risk (and Unsafe Protocol: nDPI rates it dangerous)', async () => {
    const r = await flow('tcp', 50010, 445, cli(direct(smb1SessionSetup())));
    expect(r.name).toBe('NetBIOS.SMBv1 (DPI)');
    expect(r.risks).toContain('SMB Insecure Vers');
    expect(r.risks).toContain('Unsafe Protocol');
    expect((await flow('tcp', 50011, 445, cli(direct(smb1SessionSetup())), v6)).name).toBe('NetBIOS.SMBv1 (DPI)');
  });

  it("SMBv1's NEGOTIATE waits: the next message decides (SMB2 after it is SMBv23, no risk)", async () => {
    const r = await flow('tcp', 50020, 445, alt(direct(smb1Negotiate()), direct(smb2(0, Buffer.alloc(64, 1)))));
    expect(r.name).toBe('NetBIOS.SMBv23 (DPI)');
    expect(r.risks).not.toContain('SMB Insecure Vers');
    expect(await name('tcp', 50021, 445, alt(direct(smb1Negotiate()), direct(smb1SessionSetup())))).toBe('NetBIOS.SMBv1 (DPI)');
  });

  it('the length may announce more than the segment (a first segment), never less', async () => {
    expect(await name('tcp', 50030, 445, cli(direct(smb2Negotiate(), 100)))).toBe('NetBIOS.SMBv23 (DPI)');
    expect(await name('tcp', 50031, 445, cli(direct(smb2Negotiate(), -1)))).not.toMatch(/SMB.* \(DPI\)/);
  });

  it('near misses: another port, 40 bytes, a first byte other than 0, another protocol id; a bad message first rules SMB out', async () => {
    expect(await name('tcp', 50040, 4450, cli(direct(smb2Negotiate())))).not.toMatch(/SMB.* \(DPI\)/);
    // over 40 bytes: 41 pass, 40 do not
    expect(await name('tcp', 50041, 445, cli(direct(smb2Negotiate().subarray(0, 36))))).not.toMatch(/SMB.* \(DPI\)/);
    expect(await name('tcp', 50042, 445, cli(direct(smb2Negotiate().subarray(0, 37))))).toBe('NetBIOS.SMBv23 (DPI)');
    const notZero = direct(smb2Negotiate());
    notZero[0] = 0x81;
    expect(await name('tcp', 50043, 445, cli(notZero))).not.toMatch(/SMB.* \(DPI\)/);
    const other = direct(smb2Negotiate());
    other[4] = 0xfd; // the SMB3 TRANSFORM header
    expect(await name('tcp', 50044, 445, cli(other, direct(smb2Negotiate())))).not.toMatch(/SMB.* \(DPI\)/);
  });
});

// ── DCE/RPC (C706 §12.5 connectionless PDU header, §12.6 connection-oriented).
const DREP_LE = 0x10;
/** A connection-oriented PDU: BIND (11) by default, 72 bytes. */
function coPdu(o: { ptype?: number; vers?: number; lenDelta?: number; body?: Buffer } = {}): Buffer {
  const body = o.body ?? cat(le16(4280), le16(4280), le32(0), bytes(1, 0, 0, 0), le16(0), bytes(1, 0), Buffer.alloc(16, 0x11), le32(0), Buffer.alloc(20, 0x22));
  const h = Buffer.alloc(16);
  h[0] = o.vers ?? 5;
  h[1] = 0;
  h[2] = o.ptype ?? 11;
  h[3] = 0x03; // first + last fragment
  h[4] = DREP_LE;
  h.writeUInt16LE(16 + body.length + (o.lenDelta ?? 0), 8);
  h.writeUInt32LE(1, 12); // call id
  return cat(h, body);
}
const PNIO_UUID_LE = bytes(0x00, 0x00, 0xa0, 0xde, 0x97, 0x6c, 0xd1, 0x11, 0x82, 0x71, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05);
const PNIO_UUID_BE = bytes(0xde, 0xa0, 0x00, 0x00, 0x6c, 0x97, 0x11, 0xd1, 0x82, 0x71, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05);
/** A connectionless PDU: REQUEST (0) by default, a 16-byte body. */
function clPdu(o: { ptype?: number; drep?: number; flags2?: number; fp?: number; object?: Buffer; body?: number; lenDelta?: number } = {}): Buffer {
  const bodyLen = o.body ?? 16;
  const h = Buffer.alloc(80);
  h[0] = 4;
  h[1] = o.ptype ?? 0;
  h[2] = 0x20; // flags1: idempotent
  h[3] = o.flags2 ?? 0;
  h[4] = o.drep ?? DREP_LE;
  h[5] = o.fp ?? 0;
  (o.object ?? Buffer.alloc(16, 0x33)).copy(h, 8);
  Buffer.alloc(16, 0x44).copy(h, 24); // interface
  Buffer.alloc(16, 0x55).copy(h, 40); // activity
  const len = bodyLen + (o.lenDelta ?? 0);
  // the body length in the sender's order: little-endian only when drep is 0x10 (as nDPI reads it)
  if ((o.drep ?? DREP_LE) === DREP_LE) h.writeUInt16LE(len, 74);
  else h.writeUInt16BE(len, 74);
  return cat(h, Buffer.alloc(bodyLen, 0x66));
}

describe('DCE/RPC (dcerpc.c) and PROFINET IO (profinet_io.c)', () => {
  it('a connection-oriented PDU filling the segment names a TCP flow on any port, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50100, 135, alt(coPdu()))).toBe('DCERPC (DPI)');
    expect(await name('tcp', 50101, 49700, alt(coPdu()))).toBe('DCERPC (DPI)');
    expect(await name('tcp', 50102, 49700, alt(coPdu()), v6)).toBe('DCERPC (DPI)');
    // a response (type 2) from the server after a client packet of 1 byte, which only waits
    expect(await name('tcp', 50103, 49700, alt(bytes(0x05), coPdu({ ptype: 2 })))).toBe('DCERPC (DPI)');
  });

  it('connection-oriented near misses: the length, version 4, type 16, 63 bytes; a bad packet first', async () => {
    expect(await name('tcp', 50110, 49700, alt(coPdu({ lenDelta: 1 })))).not.toBe('DCERPC (DPI)');
    expect(await name('tcp', 50111, 49700, alt(coPdu({ vers: 4 })))).not.toBe('DCERPC (DPI)');
    expect(await name('tcp', 50112, 49700, alt(coPdu({ ptype: 16 })))).not.toBe('DCERPC (DPI)');
    expect(await name('tcp', 50113, 49700, alt(coPdu({ body: Buffer.alloc(47, 1) })))).not.toBe('DCERPC (DPI)');
    expect(await name('tcp', 50114, 49700, alt(coPdu({ body: Buffer.alloc(48, 1) })))).toBe('DCERPC (DPI)');
    expect(await name('tcp', 50115, 49700, alt(bytes(5, 0), coPdu()))).not.toBe('DCERPC (DPI)');
  });

  it('a connectionless PDU whose body fills the datagram names a UDP flow, either byte order, IPv4 and IPv6', async () => {
    expect(await name('udp', 50120, 135, alt(clPdu()))).toBe('DCERPC (DPI)');
    expect(await name('udp', 50121, 34964, alt(clPdu({ drep: 0x00 })))).toBe('DCERPC (DPI)');
    expect(await name('udp', 50122, 34964, alt(clPdu({ drep: 0x11, ptype: 10, flags2: 0x02, fp: 3 })))).toBe('DCERPC (DPI)');
    expect(await name('udp', 50123, 34964, alt(clPdu()), v6)).toBe('DCERPC (DPI)');
  });

  it('connectionless near misses: the length, type 11, flags2 bit 2, data representation 0x20, floating point 4; version 5 over UDP', async () => {
    expect(await name('udp', 50130, 34964, alt(clPdu({ lenDelta: 1 })))).not.toBe('DCERPC (DPI)');
    expect(await name('udp', 50131, 34964, alt(clPdu({ ptype: 11 })))).not.toBe('DCERPC (DPI)');
    expect(await name('udp', 50132, 34964, alt(clPdu({ flags2: 0x04 })))).not.toBe('DCERPC (DPI)');
    expect(await name('udp', 50133, 34964, alt(clPdu({ drep: 0x20 })))).not.toBe('DCERPC (DPI)');
    expect(await name('udp', 50134, 34964, alt(clPdu({ fp: 4 })))).not.toBe('DCERPC (DPI)');
    // drep 0x11: the body length is read big-endian (nDPI takes little-endian from 0x10 only)
    const le11 = clPdu({ drep: 0x11 });
    le11.writeUInt16LE(16, 74);
    expect(await name('udp', 50135, 34964, alt(le11))).not.toBe('DCERPC (DPI)');
    expect(await name('udp', 50136, 34964, alt(coPdu()))).not.toBe('DCERPC (DPI)');
  });

  it("PROFINET IO's object UUID on the flow's first datagram is DCERPC.PROFINET_IO; later it is plain DCERPC", async () => {
    expect(await name('udp', 50140, 34964, alt(clPdu({ object: PNIO_UUID_LE })))).toBe('DCERPC.PROFINET_IO (DPI)');
    expect(await name('udp', 50141, 34964, alt(clPdu({ object: PNIO_UUID_BE, drep: 0x00 })))).toBe('DCERPC.PROFINET_IO (DPI)');
    // drep 0x01: the UUID is read big-endian (high nibble 0), the little-endian one does not fit
    expect(await name('udp', 50142, 34964, alt(clPdu({ object: PNIO_UUID_LE, drep: 0x01 })))).toBe('DCERPC (DPI)');
    expect(await name('udp', 50143, 34964, alt(clPdu({ object: PNIO_UUID_LE })), v6)).toBe('DCERPC.PROFINET_IO (DPI)');
    // PROFINET's dissector ruled itself out on the 1-byte datagram before
    expect(await name('udp', 50144, 34964, alt(bytes(0x99), clPdu({ object: PNIO_UUID_LE })))).toBe('DCERPC (DPI)');
  });
});

// ── RTMP (Adobe RTMP specification 1.0 §5.2: C0 = version 3, C1 = 1536
// bytes; S0 = 3, S1 …).
const c0c1 = (n = 1537) => cat(bytes(3), Buffer.alloc(n - 1, 0x2a));
const s0s1 = () => cat(bytes(3), Buffer.alloc(1536, 0x2b));

describe('RTMP (rtmp.c)', () => {
  it('C0+C1 (1537 bytes) answered by S0 names the flow, on any port, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50200, 1935, alt(c0c1(), s0s1()))).toBe('RTMP (DPI)');
    expect(await name('tcp', 50201, 8935, alt(c0c1(), s0s1()))).toBe('RTMP (DPI)');
    expect(await name('tcp', 50202, 1935, alt(c0c1(), s0s1()), v6)).toBe('RTMP (DPI)');
  });

  it('C0+C1 over several segments adds up; the side that speaks first is the one counted', async () => {
    const c = c0c1();
    expect(await name('tcp', 50210, 1935, [[true, c.subarray(0, 1000)], [true, c.subarray(1000)], [false, s0s1()]])).toBe('RTMP (DPI)');
    expect(await name('tcp', 50211, 1935, [[true, c.subarray(0, 1)], [true, c.subarray(1, 700)], [true, c.subarray(700)], [false, s0s1()]])).toBe('RTMP (DPI)');
    // the server opening with 3 and 1537 bytes, the client answering 3
    expect(await name('tcp', 50212, 1935, [[false, c0c1()], [true, s0s1()]])).toBe('RTMP (DPI)');
  });

  it('near misses: 1536 or 1538 bytes, a count past 1537 that is 1537 mod 256, more from the opening side, S0 of 6, C0 of 6', async () => {
    expect(await name('tcp', 50220, 1935, alt(c0c1(1536), s0s1()))).not.toBe('RTMP (DPI)');
    expect(await name('tcp', 50221, 1935, alt(c0c1(1538), s0s1()))).not.toBe('RTMP (DPI)');
    const long = c0c1(1537 + 256);
    expect(await name('tcp', 50222, 1935, [[true, long.subarray(0, 1000)], [true, long.subarray(1000)], [false, s0s1()]])).not.toBe('RTMP (DPI)');
    expect(await name('tcp', 50223, 1935, [[true, c0c1()], [true, Buffer.alloc(10, 3)], [false, s0s1()]])).not.toBe('RTMP (DPI)');
    const s6 = s0s1();
    s6[0] = 6; // RTMPE's S0
    expect(await name('tcp', 50224, 1935, alt(c0c1(), s6))).not.toBe('RTMP (DPI)');
    const c6 = c0c1();
    c6[0] = 6;
    expect(await name('tcp', 50225, 1935, alt(c6, s0s1()))).not.toBe('RTMP (DPI)');
  });

  it('only a flow seen from its handshake: none, or the SYN alone, rules RTMP out', async () => {
    expect(await name('tcp', 50230, 1935, alt(c0c1(), s0s1()), { opening: 'none' })).not.toBe('RTMP (DPI)');
    expect(await name('tcp', 50231, 1935, alt(c0c1(), s0s1()), { opening: 'syn' })).not.toBe('RTMP (DPI)');
  });
});

// ── AJP13 (Tomcat's AJPv13 reference: 0x1234 to the container, "AB" back;
// length; type).
const ajp = (magic: number, type: number, body: Buffer = Buffer.alloc(0), len?: number) => cat(u16(magic), u16(len ?? body.length + 1), bytes(type), body);
const forward = () => ajp(0x1234, 2, cat(bytes(2), txt('\0\x08HTTP/1.1\0'), txt('\0\x01/\0'), Buffer.alloc(20, 0x41)));

describe('AJP (ajp.c)', () => {
  it('a request type after 0x1234 or a response type after "AB" names the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50300, 8009, alt(forward()))).toBe('AJP (DPI)');
    expect(await name('tcp', 50301, 18009, alt(ajp(0x1234, 10)))).toBe('AJP (DPI)'); // CPing
    expect(await name('tcp', 50302, 18009, alt(ajp(0x1234, 7)))).toBe('AJP (DPI)'); // Shutdown
    expect(await name('tcp', 50303, 18009, alt(ajp(0x1234, 8)))).toBe('AJP (DPI)'); // Ping
    expect(await name('tcp', 50304, 18009, [[false, ajp(0x4142, 9)]])).toBe('AJP (DPI)'); // CPong
    for (const [i, t] of [3, 4, 5, 6].entries()) expect(await name('tcp', 50305 + i, 18009, alt(ajp(0x4142, t, Buffer.alloc(8, 1))))).toBe('AJP (DPI)');
    expect(await name('tcp', 50310, 8009, alt(forward()), v6)).toBe('AJP (DPI)');
  });

  it('near misses: length 0, a response type after 0x1234, a request type after "AB", 4 bytes; the first packet decides', async () => {
    expect(await name('tcp', 50320, 18009, alt(ajp(0x1234, 10, Buffer.alloc(0), 0)))).not.toBe('AJP (DPI)');
    expect(await name('tcp', 50321, 18009, alt(ajp(0x1234, 4)))).not.toBe('AJP (DPI)');
    expect(await name('tcp', 50322, 18009, alt(ajp(0x4142, 2)))).not.toBe('AJP (DPI)');
    expect(await name('tcp', 50323, 18009, alt(ajp(0x4142, 11)))).not.toBe('AJP (DPI)');
    expect(await name('tcp', 50324, 18009, alt(ajp(0x1234, 10).subarray(0, 4)))).not.toBe('AJP (DPI)');
    expect(await name('tcp', 50325, 18009, alt(txt('hello'), ajp(0x4142, 9)))).not.toBe('AJP (DPI)');
  });
});

// ── Cassandra: the CQL native protocol v4 (frame header: version, flags,
// stream, opcode, length; [string map]/[string multimap] bodies) and the
// internode preamble (magic 0xCA552DFA).
const cqlFrame = (version: number, opcode: number, body: Buffer) => cat(bytes(version, 0), u16(1), bytes(opcode), u32(body.length), body);
const cqlString = (s: string) => cat(u16(s.length), txt(s));
const cqlOptions = () => cqlFrame(0x04, 0x05, Buffer.alloc(0));
const cqlStartup = (pairs: [string, string][]) => cqlFrame(0x04, 0x01, cat(u16(pairs.length), ...pairs.flatMap(([k, v]) => [cqlString(k), cqlString(v)])));
const cqlSupported = (versions: string[]) =>
  cqlFrame(0x84, 0x06, cat(u16(2), cqlString('COMPRESSION'), u16(2), cqlString('snappy'), cqlString('lz4'), cqlString('CQL_VERSION'), u16(versions.length), ...versions.map(cqlString)));
const startup7 = () => cqlStartup([['DRIVER_NAME', 'DataStax Python Driver'], ['CQL_VERSION', '3.4.5.1']]);
const internode = (n = 19) => cat(u32(0xca552dfa), Buffer.alloc(n - 4, 0x07));

describe('Cassandra (cassandra.c)', () => {
  it('CQL_VERSION 20 bytes before the end of a packet over 60 bytes, or the 19-byte internode preamble, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50400, 9042, alt(cqlOptions(), cqlSupported(['3.4.5'])))).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50401, 19042, alt(startup7()))).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50402, 7000, alt(internode()))).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50403, 9042, alt(cqlOptions(), cqlSupported(['3.4.5'])), v6)).toBe('Cassandra (DPI)');
  });

  it('near misses: CQL_VERSION 18 bytes before the end, a 20-byte preamble, a packet under 9 bytes first', async () => {
    expect(await name('tcp', 50410, 19042, alt(cqlStartup([['DRIVER_NAME', 'DataStax Python Driver'], ['CQL_VERSION', '3.4.5']])))).not.toBe('Cassandra (DPI)');
    expect(await name('tcp', 50411, 17000, alt(internode(20)))).not.toBe('Cassandra (DPI)');
    expect(await name('tcp', 50412, 19042, alt(bytes(4, 0, 0, 1), cqlSupported(['3.4.5'])))).not.toBe('Cassandra (DPI)');
    // 60 bytes is not enough
    const s = startup7();
    expect(s.length).toBeGreaterThan(60);
    const at60 = (n: number) => cqlStartup([['A', 'x'.repeat(n)], ['CQL_VERSION', '3.4.5.1']]);
    const short = at60(60 - at60(0).length);
    expect(short.length).toBe(60);
    expect(await name('tcp', 50414, 19042, alt(at60(61 - at60(0).length)))).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50413, 19042, alt(short))).not.toBe('Cassandra (DPI)');
  });

  it("a direction's third payload packet rules it out (the internode preamble is read before that)", async () => {
    expect(await name('tcp', 50420, 19042, [[true, cqlOptions()], [true, cqlOptions()], [false, cqlSupported(['3.4.5'])]])).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50421, 19042, [[true, cqlOptions()], [true, cqlOptions()], [true, startup7()]])).not.toBe('Cassandra (DPI)');
    expect(await name('tcp', 50422, 19042, [[true, cqlOptions()], [true, cqlOptions()], [true, internode()]])).toBe('Cassandra (DPI)');
    expect(await name('tcp', 50423, 19042, [[true, cqlOptions()], [true, cqlOptions()], [true, cqlOptions()], [false, cqlSupported(['3.4.5'])]])).not.toBe('Cassandra (DPI)');
    expect(await name('tcp', 50424, 19042, [[true, cqlOptions()], [true, cqlOptions()], [true, cqlOptions()], [false, cqlSupported(['3.4.5'])]], v6)).not.toBe('Cassandra (DPI)');
  });
});

// ── ZeroMQ (ZMTP 23/ZMTP: the 10-byte signature FF, padding, 7F; the
// ZMTP 3.0 greeting: version 3.0, mechanism, as-server, filler).
const SIG = bytes(0xff, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x7f);
const greeting = () => cat(SIG, bytes(3, 0), txt('NULL'), Buffer.alloc(16), bytes(0), Buffer.alloc(31));
const FLOW9 = cat(bytes(0, 0, 0, 5, 1), txt('flow'));
const tagged = () => cat(bytes(0x01, 0x28), txt('flow'), bytes(0), Buffer.alloc(9, 0x61));

describe('ZeroMQ (zeromq.c)', () => {
  it('two greetings opening with the signature name the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50500, 5555, alt(greeting(), greeting()))).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50501, 5555, alt(greeting(), greeting()), v6)).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50502, 5555, alt(SIG, greeting()))).toBe('ZeroMQ (DPI)');
  });

  it('the other forms nDPI knows: the "(flow" tag twice, and three 2-byte answers', async () => {
    expect(await name('tcp', 50510, 5555, alt(tagged(), tagged()))).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50511, 5555, alt(SIG, bytes(1, 2)))).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50512, 5555, alt(bytes(1, 2), bytes(1, 1)))).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50513, 5555, alt(FLOW9, bytes(0, 0)))).toBe('ZeroMQ (DPI)');
  });

  it("the flow's first packet is the one compared: a later greeting pair does not count after another first packet", async () => {
    expect(await name('tcp', 50520, 5555, alt(txt('hello there'), greeting(), greeting()))).not.toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50521, 5555, alt(tagged(), greeting()))).not.toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50522, 5555, alt(greeting(), tagged()))).not.toBe('ZeroMQ (DPI)');
  });

  it('near misses of the 2-byte forms', async () => {
    expect(await name('tcp', 50530, 5555, alt(bytes(1, 2), bytes(1, 2)))).not.toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50531, 5555, alt(SIG, bytes(1, 1)))).not.toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50532, 5555, alt(FLOW9, bytes(1, 2)))).not.toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50533, 5555, alt(cat(FLOW9, bytes(0)), bytes(0, 0)))).not.toBe('ZeroMQ (DPI)');
  });

  it('a match must come by the flow’s 10th payload packet', async () => {
    const filler = Array.from({ length: 8 }, () => txt('data!')) as Buffer[];
    expect(await name('tcp', 50540, 5555, cli(greeting(), ...filler, greeting()))).toBe('ZeroMQ (DPI)');
    expect(await name('tcp', 50541, 5555, cli(greeting(), ...filler, txt('data!'), greeting()))).not.toBe('ZeroMQ (DPI)');
  });
});

// ── Kafka (kafka.apache.org/protocol.html: INT32 size, request header v1:
// api_key, api_version, correlation_id, client_id NULLABLE_STRING).
function kafkaReq(o: { key?: number; version?: number; clientId?: Buffer; idLen?: number; sizeDelta?: number; body?: Buffer } = {}): Buffer {
  const id = o.clientId ?? txt('rdkafka');
  const rest = cat(u16(o.key ?? 18), u16(o.version ?? 3), u32(7), u16(o.idLen ?? id.length), id, o.body ?? cat(bytes(0x12), txt('librdkafka'), bytes(0x06), txt('2.3.0'), bytes(0)));
  return cat(u32(rest.length + (o.sizeDelta ?? 0)), rest);
}

describe('Kafka (kafka.c)', () => {
  it('a request header whose size fills the packet and whose client id is printable names the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50600, 9092, alt(kafkaReq()))).toBe('Kafka (DPI)');
    expect(await name('tcp', 50601, 19092, alt(kafkaReq({ key: 74, version: 15 })))).toBe('Kafka (DPI)');
    expect(await name('tcp', 50602, 19092, alt(kafkaReq({ clientId: Buffer.alloc(0) })))).toBe('Kafka (DPI)');
    expect(await name('tcp', 50603, 9092, alt(kafkaReq()), v6)).toBe('Kafka (DPI)');
  });

  it('near misses: the size, api key 75, api version 16, a control byte in the client id, a null client id, 13 bytes; the first packet decides', async () => {
    expect(await name('tcp', 50610, 19092, alt(kafkaReq({ sizeDelta: 1 })))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50611, 19092, alt(kafkaReq({ key: 75 })))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50612, 19092, alt(kafkaReq({ version: 16 })))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50613, 19092, alt(kafkaReq({ clientId: txt('rd\tkafka') })))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50614, 19092, alt(kafkaReq({ clientId: Buffer.alloc(0), idLen: 0xffff })))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50615, 19092, alt(kafkaReq({ clientId: txt('a'), body: Buffer.alloc(0) }).subarray(0, 13)))).not.toBe('Kafka (DPI)');
    expect(await name('tcp', 50616, 19092, alt(txt('hello kafka\r\n'), kafkaReq()))).not.toBe('Kafka (DPI)');
  });
});

// ── Diameter (RFC 6733 §3: version, 24-bit length, flags R P E T, 24-bit
// command code, application id, hop-by-hop and end-to-end ids; AVPs).
function diameter(o: { version?: number; flags?: number; code?: number[]; avps?: Buffer } = {}): Buffer {
  const avps = o.avps ?? cat(u32(264), bytes(0x40, 0, 0, 19), txt('host.example'), bytes(0)); // Origin-Host
  const len = 20 + avps.length;
  return cat(bytes(o.version ?? 1, len >> 16, (len >> 8) & 255, len & 255, o.flags ?? 0x80), bytes(...(o.code ?? [0, 1, 1])), u32(0), u32(0x1111), u32(0x2222), avps);
}

describe('Diameter (diameter.c)', () => {
  it('a base-protocol command with exactly one flag names a TCP flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50700, 3868, alt(diameter()))).toBe('Diameter (DPI)');
    for (const [i, code] of [258, 271, 272, 274, 275, 280, 282].entries())
      expect(await name('tcp', 50701 + i, 13868, alt(diameter({ code: [0, code >> 8, code & 255] })))).toBe('Diameter (DPI)');
    for (const [i, flags] of [0x40, 0x20, 0x10].entries()) expect(await name('tcp', 50710 + i, 13868, alt(diameter({ flags })))).toBe('Diameter (DPI)');
    expect(await name('tcp', 50713, 3868, alt(diameter()), v6)).toBe('Diameter (DPI)');
    // nDPI adds the code's high byte at bits 8-15: 0x010001 reads as 257
    expect(await name('tcp', 50714, 13868, alt(diameter({ code: [1, 0, 1] })))).toBe('Diameter (DPI)');
  });

  it('near misses: an answer (no flag), R|P, version 2, code 316, 19 bytes, over UDP; the first packet decides', async () => {
    expect(await name('tcp', 50720, 13868, alt(diameter({ flags: 0 })))).not.toBe('Diameter (DPI)');
    expect(await name('tcp', 50721, 13868, alt(diameter({ flags: 0xc0 })))).not.toBe('Diameter (DPI)');
    expect(await name('tcp', 50722, 13868, alt(diameter({ version: 2 })))).not.toBe('Diameter (DPI)');
    expect(await name('tcp', 50723, 13868, alt(diameter({ code: [0, 1, 0x3c] })))).not.toBe('Diameter (DPI)');
    expect(await name('tcp', 50724, 13868, alt(diameter().subarray(0, 19)))).not.toBe('Diameter (DPI)');
    expect(await name('udp', 50725, 3868, alt(diameter()))).not.toBe('Diameter (DPI)');
    expect(await name('tcp', 50726, 13868, alt(diameter({ flags: 0 }), diameter()))).not.toBe('Diameter (DPI)');
  });
});

// ── IAX2 (RFC 5456 §8.1.1 full frame: F + source call, R + destination
// call, timestamp, OSeqno, ISeqno, frame type, C + subclass; §8.6 IEs).
function iaxFull(o: { oseq?: number; iseq?: number; type?: number; sub?: number; ies?: Buffer[]; f?: boolean } = {}): Buffer {
  const h = cat(u16((o.f ?? true ? 0x8000 : 0) | 0x0123), u16(0), u32(3), bytes(o.oseq ?? 0, o.iseq ?? 0, o.type ?? 6, o.sub ?? 1));
  return cat(h, ...(o.ies ?? []));
}
const ie = (type: number, data: Buffer) => cat(bytes(type, data.length), data);
const NEW_IES = [ie(11, u16(2)), ie(1, txt('100')), ie(6, txt('alice')), ie(9, u32(4))];

describe('IAX (iax.c)', () => {
  it('a call-opening control frame on UDP 4569, alone or with IEs filling the datagram, IPv4 and IPv6', async () => {
    expect(await name('udp', 50800, 4569, alt(iaxFull({ ies: NEW_IES })))).toBe('IAX (DPI)');
    expect(await name('udp', 4569, 50801, alt(iaxFull({ sub: 2, iseq: 1 })))).toBe('IAX (DPI)');
    expect(await name('udp', 50802, 4569, alt(iaxFull({ ies: NEW_IES })), v6)).toBe('IAX (DPI)');
    expect(await name('udp', 50803, 4569, alt(iaxFull({ sub: 15, ies: Array(15).fill(ie(0, Buffer.alloc(0))) })))).toBe('IAX (DPI)');
  });

  it('near misses: another port, OSeqno 1, ISeqno 2, voice, subclass 16, a mini frame, IEs one short, a 16th IE, over TCP', async () => {
    expect(await name('udp', 50810, 4570, alt(iaxFull({ ies: NEW_IES })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50811, 4569, alt(iaxFull({ oseq: 1 })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50812, 4569, alt(iaxFull({ iseq: 2 })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50813, 4569, alt(iaxFull({ type: 2 })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50814, 4569, alt(iaxFull({ sub: 16 })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50815, 4569, alt(iaxFull({ f: false })))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50816, 4569, alt(cat(iaxFull({ ies: NEW_IES }), bytes(0))))).not.toBe('IAX (DPI)');
    expect(await name('udp', 50817, 4569, alt(iaxFull({ ies: Array(16).fill(ie(0, Buffer.alloc(0))) })))).not.toBe('IAX (DPI)');
    expect(await name('tcp', 50818, 4569, alt(iaxFull({ ies: NEW_IES })))).not.toBe('IAX (DPI)');
  });
});

// ── Icecast (the SOURCE method and ice-* headers of its source protocol;
// the server's Server header).
const source = (lines: string) => txt(`SOURCE /live.ogg HTTP/1.0\r\nAuthorization: Basic c291cmNlOmhhY2ttZQ==\r\n${lines}\r\n`);
const okFrom = (server: string) => txt(`HTTP/1.0 200 OK\r\nServer: ${server}\r\nContent-Type: audio/ogg\r\n\r\n`);

describe('Icecast (icecast.c)', () => {
  it('a SOURCE request with an ice- header names the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50900, 8000, alt(source('ice-name: Radio\r\nice-public: 1\r\n')))).toBe('IceCast (DPI)');
    expect(await name('tcp', 50901, 8000, alt(source('ice-name: Radio\r\n')), v6)).toBe('IceCast (DPI)');
  });

  it('a SOURCE packet with no line at all lets the next packets be searched for the ice- line', async () => {
    const lfOnly = txt('SOURCE /live.ogg ICE/1.0\ncontent-type: audio/ogg\n');
    expect(await name('tcp', 50910, 8000, cli(lfOnly, txt('ice-name: Radio\r\n\r\n')))).toBe('IceCast (DPI)');
    expect(await name('tcp', 50911, 8000, [[true, lfOnly], [false, txt('OK2\r\nice-x: y\r\n')]])).toBe('IceCast (DPI)');
    // its own LF lines are not read (the CRLF split sees none), nor are a later packet's without ice-
    expect(await name('tcp', 50912, 8000, [[true, txt('SOURCE /live.ogg ICE/1.0\nice-name: Radio\n')], [false, okFrom('nginx')]])).not.toBe('IceCast (DPI)');
  });

  it("otherwise the server's first answer decides: Server: Icecast… names the flow, anything else rules it out", async () => {
    expect(await name('tcp', 50920, 8000, alt(txt('\x01\x02binary hello'), okFrom('Icecast 2.4.4')))).toBe('IceCast (DPI)');
    expect(await name('tcp', 50921, 8000, alt(txt('\x01\x02binary hello'), okFrom('Icecast 2.4.4')), v6)).toBe('IceCast (DPI)');
    expect(await name('tcp', 50922, 8000, alt(txt('\x01\x02binary hello'), okFrom('Icecast')))).not.toBe('IceCast (DPI)');
    expect(await name('tcp', 50923, 8000, alt(txt('\x01\x02binary hello'), okFrom('nginx'), txt('x'), okFrom('Icecast 2.4.4')))).not.toBe('IceCast (DPI)');
  });

  it('client packets are waited through up to the 9th payload packet', async () => {
    const nine = Array.from({ length: 9 }, () => txt('\x01\x02data')) as Buffer[];
    expect(await name('tcp', 50930, 8000, [...cli(...nine), [false, okFrom('Icecast 2.4.4')]])).toBe('IceCast (DPI)');
    expect(await name('tcp', 50931, 8000, [...cli(...nine, txt('\x01\x02data')), [false, okFrom('Icecast 2.4.4')]])).not.toBe('IceCast (DPI)');
  });

  it('SOURCE of 500 bytes or more is not read; "ice-" alone is no header', async () => {
    const big = source(`ice-name: Radio\r\nx-pad: ${'p'.repeat(420)}\r\n`);
    expect(big.length).toBeGreaterThanOrEqual(500);
    expect(await name('tcp', 50940, 8000, alt(big, okFrom('nginx')))).not.toBe('IceCast (DPI)');
    expect(await name('tcp', 50941, 8000, alt(source('ice-\r\n'), okFrom('nginx')))).not.toBe('IceCast (DPI)');
  });
});

// ── Cisco Skinny (Wireshark's packet-skinny.c: LE data length, header
// version, message id).
const skinny = (id: number, body: Buffer = Buffer.alloc(0), version = 0, lenDelta = 0) => cat(le32(4 + body.length + lenDelta), le32(version), le32(id), body);
const register = () => skinny(0x0001, cat(txt('SEP001122334455\0'), le32(0), le32(1), le32(0x0a000001), le32(8), le32(0), le32(0)));

describe('Cisco Skinny (skinny.c)', () => {
  it('a message with a known header version and id on TCP 2000 (either side) names the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 50950, 2000, alt(register()))).toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 2000, 50951, alt(skinny(0x0000)))).toBe('CiscoSkinny (DPI)'); // KeepAlive
    expect(await name('tcp', 50952, 2000, alt(skinny(0x8101, Buffer.alloc(4), 0x11)))).toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50953, 2000, alt(skinny(0x0160, Buffer.alloc(4), 0x16)))).toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50954, 2000, alt(register()), v6)).toBe('CiscoSkinny (DPI)');
  });

  it('near misses: port 2001, the length, version 12, ids 0xa0, 0x161, 0x8002; the first packet decides', async () => {
    expect(await name('tcp', 50960, 2001, alt(register()))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50961, 2000, alt(skinny(0x0001, Buffer.alloc(8), 0, 1)))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50962, 2000, alt(skinny(0x0001, Buffer.alloc(8), 0x0c)))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50963, 2000, alt(skinny(0x00a0)))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50964, 2000, alt(skinny(0x0161)))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50965, 2000, alt(skinny(0x8002)))).not.toBe('CiscoSkinny (DPI)');
    expect(await name('tcp', 50966, 2000, alt(skinny(0x0161), register()))).not.toBe('CiscoSkinny (DPI)');
  });
});

// ── NoMachine (its NX handshake "NXSH-<version>" / "NXD-<version>"; UDP
// multimedia frames: LE 1 at 2, the datagram length at 4).
const nxUdp = (len = 24, one = 1, tail = 0) => {
  const b = Buffer.alloc(len, 0x5c);
  b.writeUInt16LE(one, 2);
  b.writeUInt16LE(len, 4);
  if (len >= 10) b.writeUInt16LE(tail, 8);
  return b;
};
const DESKTOP = 'Desktop/File Sharing';

describe('NoMachine (nomachine.c)', () => {
  it('a TCP handshake of 11 to 14 bytes, or a UDP frame, names the flow with the desktop-sharing risk, IPv4 and IPv6', async () => {
    const t = await flow('tcp', 51000, 4000, alt(txt('NXSH-8.10.1\n')));
    expect(t.name).toBe('NoMachine (DPI)');
    expect(t.risks).toContain(DESKTOP);
    expect(await name('tcp', 51001, 14000, [[false, txt('NXD-8.10.1\n')]])).toBe('NoMachine (DPI)');
    expect(await name('tcp', 51002, 14000, alt(txt('NXSH-8.10.100\n')))).toBe('NoMachine (DPI)');
    const u = await flow('udp', 51003, 4000, alt(nxUdp()));
    expect(u.name).toBe('NoMachine (DPI)');
    expect(u.risks).toContain(DESKTOP);
    expect(await name('udp', 51004, 14000, alt(nxUdp(10)))).toBe('NoMachine (DPI)');
    expect(await name('tcp', 51005, 4000, alt(txt('NXSH-8.10.1\n')), v6)).toBe('NoMachine (DPI)');
    expect(await name('udp', 51006, 4000, alt(nxUdp()), v6)).toBe('NoMachine (DPI)');
  });

  it('near misses: 10 or 15 bytes, "NXS-"; over UDP 9 bytes, another length, a 2 at 2, bytes 8-9 not zero', async () => {
    expect(await name('tcp', 51010, 14000, alt(txt('NXSH-8.10\n')))).not.toBe('NoMachine (DPI)');
    expect(await name('tcp', 51011, 14000, alt(txt('NXSH-8.10.1000\n')))).not.toBe('NoMachine (DPI)');
    expect(await name('tcp', 51012, 14000, alt(txt('NXS-8.10.1.1\n')))).not.toBe('NoMachine (DPI)');
    expect(await name('udp', 51013, 14000, alt(nxUdp(9)))).not.toBe('NoMachine (DPI)');
    const wrongLen = nxUdp();
    wrongLen.writeUInt16LE(25, 4);
    expect(await name('udp', 51014, 14000, alt(wrongLen))).not.toBe('NoMachine (DPI)');
    expect(await name('udp', 51015, 14000, alt(nxUdp(24, 2)))).not.toBe('NoMachine (DPI)');
    expect(await name('udp', 51016, 14000, alt(nxUdp(24, 1, 0x0100)))).not.toBe('NoMachine (DPI)');
  });
});

// ── Radmin (no public spec: 01 00 00 00, a size byte, the body, as seen on the wire).
const radHello = () => bytes(1, 0, 0, 0, 1, 0, 0, 0, 8, 8);
const radAnswer = () => cat(bytes(1, 0, 0, 0, 0x25, 0, 0, 0x02, 0x12, 0x08, 0x02, 0, 0, 0x0a), Buffer.alloc(32, 0x33));
const rad14 = (b9 = 0x27) => bytes(1, 0, 0, 0, 5, 0, 0, 0, 0x27, b9, 0, 0, 0, 0);

describe('Radmin (radmin.c)', () => {
  it("the client's hello then the server's answer, or two 14-byte packets, name the flow with the desktop-sharing risk", async () => {
    const r = await flow('tcp', 51100, 4899, alt(radHello(), radAnswer()));
    expect(r.name).toBe('Radmin (DPI)');
    expect(r.risks).toContain(DESKTOP);
    expect(await name('tcp', 51101, 14899, alt(rad14(), rad14()))).toBe('Radmin (DPI)');
    expect(await name('tcp', 51102, 14899, cli(rad14(), rad14()))).toBe('Radmin (DPI)');
    // either opening sets the one stage: hello then a 14-byte packet, a 14-byte packet then the answer
    expect(await name('tcp', 51103, 14899, alt(radHello(), rad14()))).toBe('Radmin (DPI)');
    expect(await name('tcp', 51104, 14899, alt(rad14(), radAnswer()))).toBe('Radmin (DPI)');
    expect(await name('tcp', 51105, 4899, alt(radHello(), radAnswer()), v6)).toBe('Radmin (DPI)');
  });

  it('near misses: the hello from the server, the answer without a hello, 27 28, a packet in between', async () => {
    expect(await name('tcp', 51110, 14899, [[false, radHello()], [false, radAnswer()]])).not.toBe('Radmin (DPI)');
    expect(await name('tcp', 51111, 14899, [[false, radAnswer()]])).not.toBe('Radmin (DPI)');
    expect(await name('tcp', 51112, 14899, alt(rad14(), rad14(0x28)))).not.toBe('Radmin (DPI)');
    expect(await name('tcp', 51113, 14899, [[true, radHello()], [true, txt('x')], [false, radAnswer()]])).not.toBe('Radmin (DPI)');
  });
});

// ── HSRP (RFC 2281 §5 version 0 hello to 224.0.0.2; HSRPv2's Group State
// TLV to 224.0.0.102 or ff02::66).
const hsrpV0 = (reserved = 0) => cat(bytes(0, 0, 16, 3, 10, 100, 1, reserved), txt('cisco\0\0\0'), bytes(10, 0, 0, 254));
const hsrpV2 = (ipVer = 4, type = 1) => cat(bytes(type, 40, 2, 0, 6, ipVer), u16(1), u16(100), bytes(0, 0), Buffer.alloc(6, 0xaa), u32(3000), u32(10000), Buffer.alloc(16, 0), bytes(0, 0));
/** Hellos from a router to a group address, each side on `sport`/`dport`. */
const hsrp = (src: string, dst: string, sport: number, dport: number, p: Buffer) => name('udp', sport, dport, [[true, p], [true, p]], { cli: src, srv: dst });

describe('HSRP (hsrp.c)', () => {
  it('version 0 to 224.0.0.2 and version 2 to 224.0.0.102 on UDP 1985, HSRPv2 to ff02::66 on UDP 2029', async () => {
    expect(await hsrp('10.0.0.1', '224.0.0.2', 1985, 1985, hsrpV0())).toBe('HSRP (DPI)');
    expect(await hsrp('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV2())).toBe('HSRP (DPI)');
    expect(await hsrp('fe80::1', 'ff02::66', 2029, 2029, hsrpV2(6))).toBe('HSRP (DPI)');
  });

  it('near misses: another group, one port other, reserved byte set, IP version 6 in an IPv4 hello, IPv6 on 1985, TLV type 5', async () => {
    expect(await hsrp('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV0())).not.toBe('HSRP (DPI)');
    expect(await hsrp('10.0.0.1', '224.0.0.2', 1985, 1986, hsrpV0())).not.toBe('HSRP (DPI)');
    expect(await hsrp('10.0.0.1', '224.0.0.2', 1985, 1985, hsrpV0(1))).not.toBe('HSRP (DPI)');
    expect(await hsrp('10.0.0.1', '224.0.0.102', 1985, 1985, hsrpV2(6))).not.toBe('HSRP (DPI)');
    expect(await hsrp('fe80::1', 'ff02::66', 1985, 1985, hsrpV2(6))).not.toBe('HSRP (DPI)');
    expect(await hsrp('fe80::1', 'ff02::66', 2029, 2029, hsrpV2(6, 5))).not.toBe('HSRP (DPI)');
    expect(await hsrp('fe80::1', 'ff02::67', 2029, 2029, hsrpV2(6))).not.toBe('HSRP (DPI)');
  });
});

// ── Beckhoff ADS (AMS/TCP header: reserved, LE length; AMS header: target
// and source NetId and port, command, state flags, data length, error,
// invoke id).
function ads(o: { reserved?: number; lenDelta?: number; cmd?: number; flags?: number; dataDelta?: number; error?: number; data?: Buffer } = {}): Buffer {
  const data = o.data ?? cat(le32(0x4020), le32(0), le32(4)); // Read: index group, offset, length
  const ams = cat(bytes(5, 1, 2, 3, 1, 1), le16(851), bytes(10, 0, 0, 1, 1, 1), le16(32905), le16(o.cmd ?? 2), le16(o.flags ?? 4), le32(data.length + (o.dataDelta ?? 0)), le32(o.error ?? 0), le32(7), data);
  return cat(le16(o.reserved ?? 0), le32(ams.length + (o.lenDelta ?? 0)), ams);
}

describe('Beckhoff ADS (beckhoff_ads.c)', () => {
  it('an AMS/TCP packet whose lengths fit, request or response flags, names the flow on any port, IPv4 and IPv6', async () => {
    expect(await name('tcp', 51300, 48898, alt(ads()))).toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51301, 18898, alt(ads({ flags: 5, cmd: 9, error: 0x1e })))).toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51302, 18898, alt(ads({ cmd: 0, data: Buffer.alloc(0) })))).toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51303, 48898, alt(ads()), v6)).toBe('BeckhoffADS (DPI)');
  });

  it('near misses: reserved set, either length, flags 6, command 10, error 0x1f, 37 bytes, over UDP; the first packet decides', async () => {
    expect(await name('tcp', 51310, 18898, alt(ads({ reserved: 1 })))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51311, 18898, alt(ads({ lenDelta: 1 })))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51312, 18898, alt(ads({ dataDelta: -1 })))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51313, 18898, alt(ads({ flags: 6 })))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51314, 18898, alt(ads({ cmd: 10 })))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51315, 18898, alt(ads({ error: 0x1f })))).not.toBe('BeckhoffADS (DPI)');
    const short = ads({ cmd: 0, data: Buffer.alloc(0) }).subarray(0, 37);
    short.writeUInt32LE(31, 2);
    expect(await name('tcp', 51316, 18898, alt(short))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('udp', 51317, 48899, alt(ads()))).not.toBe('BeckhoffADS (DPI)');
    expect(await name('tcp', 51318, 18898, alt(txt('hello'), ads()))).not.toBe('BeckhoffADS (DPI)');
  });
});

// ── TRDP (IEC 61375-2-3 Annex A: process data header of 40 octets, message
// data header of 116, each closed by a CRC-32 FCS stored little-endian).
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  return c >>> 0;
});
const crc32 = (b: Buffer) => {
  let c = 0xffffffff;
  for (const x of b) c = (CRC_TABLE[(c ^ x) & 255]! ^ (c >>> 8)) >>> 0;
  return (c ^ 0xffffffff) >>> 0;
};
function trdpPd(o: { dataset?: number; lenDelta?: number; reserved?: number; badFcs?: boolean } = {}): Buffer {
  const n = o.dataset ?? 16;
  const h = cat(u32(1), u16(0x0100), txt('Pd'), u32(1000), u32(0), u32(0), u32(n + (o.lenDelta ?? 0)), u32(o.reserved ?? 0), u32(0), u32(0));
  return cat(h, le32((crc32(h) ^ (o.badFcs ? 1 : 0)) >>> 0), Buffer.alloc(n, 0x5d));
}
function trdpMd(o: { dataset?: number; pad?: number; badFcs?: boolean } = {}): Buffer {
  const n = o.dataset ?? 21;
  const h = cat(u32(1), u16(0x0100), txt('Mr'), u32(2000), u32(0), u32(0), u32(n), u32(0), Buffer.alloc(16, 0x1e), u32(5000000), Buffer.alloc(32, 0), Buffer.alloc(32, 0));
  return cat(h, le32((crc32(h) ^ (o.badFcs ? 1 : 0)) >>> 0), Buffer.alloc(n + (o.pad ?? (4 - (n % 4)) % 4), 0x6d));
}

describe('TRDP (trdp.c)', () => {
  it('process data over UDP and message data over UDP or TCP, with a valid header FCS, on any port, IPv4 and IPv6', async () => {
    expect(await name('udp', 51400, 17224, alt(trdpPd()))).toBe('TRDP (DPI)');
    expect(await name('udp', 51401, 27224, alt(trdpPd({ dataset: 0 })))).toBe('TRDP (DPI)');
    expect(await name('udp', 51402, 17225, alt(trdpMd()))).toBe('TRDP (DPI)');
    expect(await name('tcp', 51403, 17225, alt(trdpMd()))).toBe('TRDP (DPI)');
    expect(await name('tcp', 51404, 27225, alt(trdpMd({ dataset: 24 })))).toBe('TRDP (DPI)');
    expect(await name('udp', 51405, 17224, alt(trdpPd()), v6)).toBe('TRDP (DPI)');
    expect(await name('tcp', 51406, 17225, alt(trdpMd()), v6)).toBe('TRDP (DPI)');
  });

  it('near misses: process data over TCP, a bad FCS, the reserved word, the dataset length, message data without its padding', async () => {
    expect(await name('tcp', 51410, 17224, alt(trdpPd()))).not.toBe('TRDP (DPI)');
    expect(await name('udp', 51411, 17224, alt(trdpPd({ badFcs: true })))).not.toBe('TRDP (DPI)');
    expect(await name('udp', 51412, 17224, alt(trdpPd({ reserved: 1 })))).not.toBe('TRDP (DPI)');
    expect(await name('udp', 51413, 17224, alt(trdpPd({ lenDelta: 1 })))).not.toBe('TRDP (DPI)');
    expect(await name('tcp', 51414, 17225, alt(trdpMd({ badFcs: true })))).not.toBe('TRDP (DPI)');
    expect(await name('tcp', 51415, 17225, alt(trdpMd({ pad: 0 })))).not.toBe('TRDP (DPI)');
    expect(await name('udp', 51416, 17225, alt(trdpMd().subarray(0, 115)))).not.toBe('TRDP (DPI)');
  });
});

// ── H.323 (RFC 1006 TPKT; ITU-T Q.931 §4 message header for H.225.0 call
// signalling; H.245 and H.225.0 RAS open their PER encoding with the
// protocolIdentifier OID 0.0.8.245 / 0.0.8.2250).
const tpkt = (body: Buffer, lenDelta = 0) => cat(bytes(3, 0), u16(body.length + 4 + lenDelta), body);
const q931Setup = (discriminator = 0x08, crLen = 2) => cat(bytes(discriminator, crLen), Buffer.alloc(crLen, 0x12), bytes(0x05), bytes(0x04, 0x03, 0x80, 0x90, 0xa5), bytes(0x7e, 0x00, 0x06), Buffer.alloc(6, 0x20));
const h245 = () => cat(bytes(0x02, 0x70, 0x01, 0x06, 0x00, 0x08, 0x81, 0x75), Buffer.alloc(16, 0x01));
const rasGrq = (oid = 0x0008914a) => cat(bytes(0x00, 0x00, 0x01, 0x00, 0x06), u32(oid), bytes(0x00, 0x08), Buffer.alloc(14, 0x02));

describe('H.323 (h323.c)', () => {
  it('a TPKT-framed Q.931 message or H.245 PDU over TCP on any port, RAS over UDP 1719, IPv4 and IPv6', async () => {
    expect(await name('tcp', 51500, 1720, alt(tpkt(q931Setup())))).toBe('H323 (DPI)');
    expect(await name('tcp', 51501, 11720, alt(tpkt(q931Setup(0x08, 3))))).toBe('H323 (DPI)');
    expect(await name('tcp', 51502, 11720, alt(tpkt(h245())))).toBe('H323 (DPI)');
    expect(await name('udp', 51503, 1719, alt(rasGrq()))).toBe('H323 (DPI)');
    expect(await name('udp', 1719, 51504, alt(rasGrq()))).toBe('H323 (DPI)');
    expect(await name('tcp', 51505, 1720, alt(tpkt(q931Setup())), v6)).toBe('H323 (DPI)');
    expect(await name('udp', 51506, 1719, alt(rasGrq()), v6)).toBe('H323 (DPI)');
  });

  it('near misses: the TPKT length, 20 bytes, discriminator 9, a 4-byte call reference, RAS on 1718 or with another OID, TPKT over UDP', async () => {
    expect(await name('tcp', 51510, 11720, alt(tpkt(q931Setup(), 1)))).not.toBe('H323 (DPI)');
    expect(await name('tcp', 51511, 11720, alt(tpkt(q931Setup().subarray(0, 16))))).not.toBe('H323 (DPI)');
    expect(await name('tcp', 51512, 11720, alt(tpkt(q931Setup().subarray(0, 17))))).toBe('H323 (DPI)');
    expect(await name('tcp', 51513, 11720, alt(tpkt(q931Setup(0x09))))).not.toBe('H323 (DPI)');
    expect(await name('tcp', 51514, 11720, alt(tpkt(q931Setup(0x08, 4))))).not.toBe('H323 (DPI)');
    expect(await name('udp', 51515, 1718, alt(rasGrq()))).not.toBe('H323 (DPI)');
    expect(await name('udp', 51516, 1719, alt(rasGrq(0x00088175)))).not.toBe('H323 (DPI)');
    expect(await name('udp', 51517, 11720, alt(tpkt(q931Setup())))).not.toBe('H323 (DPI)');
  });
});

// ── S7comm over ISO-on-TCP (RFC 1006 TPKT, ISO 8073 COTP data TPDU 02 f0 80,
// then the S7 PDU: protocol id 0x32 / 0x72).
const cotpDt = (s7: Buffer) => tpkt(cat(bytes(0x02, 0xf0, 0x80), s7));
// S7comm job "setup communication": 32, ROSCTR, reserved, PDU ref, parameter and data lengths, parameters
const s7Setup = (rosctr = 1, reserved = 0) => cat(bytes(0x32, rosctr), u16(reserved), u16(0x0100), u16(8), u16(0), bytes(0xf0, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01, 0xe0));
const s7Plus = (trailer = 0x72) => cat(bytes(0x72, 0x01), u16(16), Buffer.alloc(16, 0x31), bytes(trailer, 0x01, 0x00, 0x00));
const cotpCr = () => tpkt(bytes(0x11, 0xe0, 0x00, 0x00, 0x00, 0x01, 0x00, 0xc1, 0x02, 0x01, 0x00, 0xc2, 0x02, 0x01, 0x02, 0xc0, 0x01, 0x0a));

describe('S7comm (s7comm.c)', () => {
  it('an S7comm or S7comm-plus PDU on port 102 names the flow, IPv4 and IPv6', async () => {
    expect(await name('tcp', 51600, 102, alt(cotpDt(s7Setup())))).toBe('S7Comm (DPI)');
    expect(await name('tcp', 102, 51601, alt(cotpDt(s7Setup(7))))).toBe('S7Comm (DPI)');
    expect(await name('tcp', 51602, 102, alt(cotpDt(s7Plus())))).toBe('S7CommPlus (DPI)');
    expect(await name('tcp', 51603, 102, alt(cotpDt(s7Setup())), v6)).toBe('S7Comm (DPI)');
  });

  it("COTP's connection setup first only waits", async () => {
    expect(await name('tcp', 51610, 102, alt(cotpCr(), cotpCr(), cotpDt(s7Setup())))).toBe('S7Comm (DPI)');
    expect(await name('tcp', 51611, 102, alt(cotpDt(s7Plus(0x73)), cotpDt(s7Setup(3))))).toBe('S7Comm (DPI)');
  });

  it('near misses: another port, ROSCTR 4, the reserved field, 17 bytes, no TPKT', async () => {
    expect(await name('tcp', 51620, 1020, alt(cotpDt(s7Setup())))).not.toBe('S7Comm (DPI)');
    expect(await name('tcp', 51621, 102, alt(cotpDt(s7Setup(4))))).not.toBe('S7Comm (DPI)');
    expect(await name('tcp', 51622, 102, alt(cotpDt(s7Setup(1, 1))))).not.toBe('S7Comm (DPI)');
    expect(await name('tcp', 51623, 102, alt(cotpDt(s7Setup().subarray(0, 10))))).not.toBe('S7Comm (DPI)');
    expect(await name('tcp', 51624, 102, alt(cotpDt(s7Setup()).subarray(4)))).not.toBe('S7Comm (DPI)');
    // a packet that is no TPKT rules it out: a later good one comes too late
    expect(await name('tcp', 51625, 102, alt(txt('hello there'), cotpDt(s7Setup())))).not.toBe('S7Comm (DPI)');
  });
});

// ── NFS over ONC RPC (RFC 5531 §9 call body: xid, CALL, rpcvers 2, prog,
// vers, proc, credentials, verifier; over TCP a record mark first, §11).
const rpcCall = (o: { type?: number; rpcvers?: number; prog?: number; vers?: number } = {}) =>
  cat(u32(0x1234), u32(o.type ?? 0), u32(o.rpcvers ?? 2), u32(o.prog ?? 100003), u32(o.vers ?? 3), u32(0), u32(0), u32(0), u32(0), u32(0));
const recordMark = (msg: Buffer, last = true) => cat(u32(((last ? 0x80000000 : 0) | msg.length) >>> 0), msg);

describe('NFS (nfs.c)', () => {
  it('an RPC call to NFS, mountd or the portmapper, version 4 at most, over UDP or behind a record mark over TCP, IPv4 and IPv6', async () => {
    expect(await name('udp', 51700, 2049, alt(rpcCall()))).toBe('NFS (DPI)');
    expect(await name('tcp', 51701, 2049, alt(recordMark(rpcCall({ vers: 4 }))))).toBe('NFS (DPI)');
    expect(await name('udp', 51702, 20049, alt(rpcCall({ prog: 100005 })))).toBe('NFS (DPI)');
    expect(await name('tcp', 51703, 20049, alt(recordMark(rpcCall({ prog: 100000, vers: 2 }))))).toBe('NFS (DPI)');
    expect(await name('udp', 51704, 2049, alt(rpcCall()), v6)).toBe('NFS (DPI)');
    expect(await name('tcp', 51705, 2049, alt(recordMark(rpcCall())), v6)).toBe('NFS (DPI)');
  });

  it('near misses: a reply, RPC version 3, program 100004, version 5, no last-fragment bit, 39 bytes, no record mark over TCP', async () => {
    expect(await name('udp', 51710, 20049, alt(rpcCall({ type: 1 })))).not.toBe('NFS (DPI)');
    expect(await name('udp', 51711, 20049, alt(rpcCall({ rpcvers: 3 })))).not.toBe('NFS (DPI)');
    expect(await name('udp', 51712, 20049, alt(rpcCall({ prog: 100004 })))).not.toBe('NFS (DPI)');
    expect(await name('udp', 51713, 20049, alt(rpcCall({ vers: 5 })))).not.toBe('NFS (DPI)');
    expect(await name('tcp', 51714, 20049, alt(recordMark(rpcCall(), false)))).not.toBe('NFS (DPI)');
    expect(await name('udp', 51715, 20049, alt(rpcCall().subarray(0, 39)))).not.toBe('NFS (DPI)');
    expect(await name('tcp', 51716, 20049, alt(rpcCall()))).not.toBe('NFS (DPI)');
  });
});

// ── Lustre (LNet's socket LND: the hello with its magic and the
// destination NID's IPv4 address, little-endian; an LNet message of type
// 0xc1 with its 96-byte header).
const ipLe = (ip: string) => Buffer.from(ip.split('.').map(Number).reverse());
const lnetHello = (magic: number, dst: string) => cat(le32(magic), le32(1), ipLe(dst), Buffer.alloc(20, 0x4c));
const lnetMsg = (dst: string, lenDelta = 0, body = 32) => {
  const h = Buffer.alloc(96, 0);
  h.writeUInt32LE(0xc1, 0);
  ipLe(dst).copy(h, 24);
  h.writeUInt32LE(body + lenDelta, 52);
  return cat(h, Buffer.alloc(body, 0x6c));
};

describe('Lustre (lustre.c)', () => {
  it("a hello naming the receiver's address, or an LNet message whose length fits, names an IPv4 TCP flow", async () => {
    expect(await name('tcp', 51800, 988, alt(lnetHello(0x45726963, '10.0.0.2')))).toBe('Lustre (DPI)');
    expect(await name('tcp', 51801, 10988, alt(lnetHello(0xacce7100, '10.0.0.2')))).toBe('Lustre (DPI)');
    expect(await name('tcp', 51802, 10988, [[false, lnetHello(0xacce7100, '10.0.0.1')]])).toBe('Lustre (DPI)');
    expect(await name('tcp', 51803, 10988, alt(lnetMsg('10.0.0.2')))).toBe('Lustre (DPI)');
    expect(await name('tcp', 51804, 10988, alt(lnetMsg('10.0.0.2', 0, 0)))).toBe('Lustre (DPI)');
  });

  it("near misses: the sender's address, another magic, the length, over UDP, over IPv6", async () => {
    expect(await name('tcp', 51810, 10988, alt(lnetHello(0x45726963, '10.0.0.1')))).not.toBe('Lustre (DPI)');
    expect(await name('tcp', 51811, 10988, alt(lnetHello(0x45726964, '10.0.0.2')))).not.toBe('Lustre (DPI)');
    expect(await name('tcp', 51812, 10988, alt(lnetMsg('10.0.0.2', 1)))).not.toBe('Lustre (DPI)');
    expect(await name('udp', 51813, 10988, alt(lnetHello(0x45726963, '10.0.0.2')))).not.toBe('Lustre (DPI)');
    expect(await name('tcp', 51814, 10988, alt(lnetHello(0x45726963, '0.0.0.2')), v6)).not.toBe('Lustre (DPI)');
  });
});

// ── IEEE C37.118.2 (§6.2 common frame: SYNC AA + type/version, FRAMESIZE,
// IDCODE, SOC, FRACSEC …, CHK = CRC-CCITT over the rest).
const crc16 = (b: Buffer) => {
  let c = 0xffff;
  for (const x of b) {
    c ^= x << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  }
  return c;
};
const c37 = (o: { sync?: number; type?: number; sizeDelta?: number; badChk?: boolean; extra?: number } = {}) => {
  const body = cat(u16(1), u32(1700000000), u32(0), u16(2), Buffer.alloc(o.extra ?? 0, 0)); // IDCODE, SOC, FRACSEC, CMD (turn on)
  const head = cat(bytes(o.sync ?? 0xaa, ((o.type ?? 4) << 4) | 1), u16(4 + body.length + 2 + (o.sizeDelta ?? 0)), body);
  return cat(head, u16(crc16(head) ^ (o.badChk ? 1 : 0)));
};

describe('IEEE C37.118 (ieee-c37118.c)', () => {
  it('a frame whose size and CRC fit, type 0 to 5, names a TCP or UDP flow on any port, IPv4 and IPv6', async () => {
    expect(await name('tcp', 51900, 4712, alt(c37()))).toBe('IEEE-C37118 (DPI)');
    expect(await name('udp', 51901, 4713, alt(c37({ type: 0 })))).toBe('IEEE-C37118 (DPI)');
    expect(await name('tcp', 51902, 14712, alt(c37({ type: 5 })))).toBe('IEEE-C37118 (DPI)');
    expect(await name('tcp', 51903, 4712, alt(c37()), v6)).toBe('IEEE-C37118 (DPI)');
    expect(await name('udp', 51904, 4713, alt(c37()), v6)).toBe('IEEE-C37118 (DPI)');
  });

  it('near misses: type 6, SYNC 0xAB, the size, the CRC, 16 bytes', async () => {
    expect(await name('tcp', 51910, 14712, alt(c37({ type: 6 })))).not.toBe('IEEE-C37118 (DPI)');
    expect(await name('tcp', 51911, 14712, alt(c37({ sync: 0xab })))).not.toBe('IEEE-C37118 (DPI)');
    expect(await name('tcp', 51912, 14712, alt(c37({ sizeDelta: 1 })))).not.toBe('IEEE-C37118 (DPI)');
    expect(await name('udp', 51913, 14713, alt(c37({ badChk: true })))).not.toBe('IEEE-C37118 (DPI)');
    // 17 bytes is enough, 16 is not (a frame cut short of FRACSEC's last byte)
    const frame = (n: number) => {
      const head = cat(bytes(0xaa, 0x41), u16(n), u16(1), u32(1700000000), Buffer.alloc(n - 12, 0));
      return cat(head, u16(crc16(head)));
    };
    expect(frame(17).length).toBe(17);
    expect(await name('udp', 51914, 14713, alt(frame(17)))).toBe('IEEE-C37118 (DPI)');
    expect(await name('udp', 51915, 14713, alt(frame(16)))).not.toBe('IEEE-C37118 (DPI)');
  });
});

// ── DLEP (RFC 8175 §11: over UDP the "DLEP" prefix then signal type,
// length and data items; over TCP 854 a message type and the length of
// what follows).
const dlepUdp = (prefix = 'DLEP', items = 20) => cat(txt(prefix), u16(1), u16(items), Buffer.alloc(items, 0x0d));
const dlepTcp = (type = 1, lenDelta = 0, items = 12) => cat(u16(type), u16(items + lenDelta), Buffer.alloc(items, 0x0e));

describe('DLEP (dlep.c)', () => {
  it('a UDP signal over 27 bytes opening "DLEP" on any port, a TCP message on port 854, IPv4 and IPv6', async () => {
    expect(await name('udp', 52000, 854, alt(dlepUdp()))).toBe('DLEP (DPI)');
    expect(await name('udp', 52001, 10854, alt(dlepUdp('DLEP', 20)))).toBe('DLEP (DPI)');
    expect(await name('tcp', 52002, 854, alt(dlepTcp()))).toBe('DLEP (DPI)');
    expect(await name('tcp', 854, 52003, alt(dlepTcp(16, 0, 5)))).toBe('DLEP (DPI)');
    expect(await name('udp', 52004, 854, alt(dlepUdp()), v6)).toBe('DLEP (DPI)');
    expect(await name('tcp', 52005, 854, alt(dlepTcp()), v6)).toBe('DLEP (DPI)');
  });

  it('near misses: 27 bytes or "DLEp" over UDP; over TCP port 855, type 17, the length, 8 bytes', async () => {
    expect(await name('udp', 52010, 854, alt(dlepUdp('DLEP', 19)))).not.toBe('DLEP (DPI)');
    expect(await name('udp', 52011, 854, alt(dlepUdp('DLEp')))).not.toBe('DLEP (DPI)');
    expect(await name('tcp', 52012, 855, alt(dlepTcp()))).not.toBe('DLEP (DPI)');
    expect(await name('tcp', 52013, 854, alt(dlepTcp(17)))).not.toBe('DLEP (DPI)');
    expect(await name('tcp', 52014, 854, alt(dlepTcp(1, 1)))).not.toBe('DLEP (DPI)');
    expect(await name('tcp', 52015, 854, alt(dlepTcp(1, 0, 4)))).not.toBe('DLEP (DPI)');
  });
});
