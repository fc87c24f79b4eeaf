// Audit 3: dissectors checked against nDPI 4.11's own source. One
// hand-built flow per case: what nDPI accepts is named by DPI, a near miss
// (one detail wrong) is not.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, flowRunner, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-3-');
const runFlow = flowRunner('fg-dissectors-audit-3f-');
const tmp = tempDir('fg-dissectors-audit-3r-');
afterAll(() => tmp.cleanup());
const bytes = (...v: number[]) => Buffer.from(v);

/** One flow of hand-made frames replayed: its "name (confidence)". */
async function replayOne(frames: Buffer[]): Promise<string> {
  const file = join(tmp.dir, `r${Math.random().toString(36).slice(2)}.pcap`);
  return replayFrames(file, frames, (e) => {
    const f = e.flows({ limit: 5 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}
const udp4 = (src: string, sport: number, dst: string, dport: number, p: Buffer) =>
  eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, p)));
const tcp6 = (src: string, sport: number, dst: string, dport: number, p: Buffer) =>
  eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.TCP }, tcp({ sport, dport, flags: TCPF.ACK | TCPF.PSH, seq: 1000, ack: 1 }, p)));

describe('RTSP (rtsp.c)', () => {
  it('a first line ending "RTSP/1.0" (no space needed before it) is RTSP; "RTSP/2.0" is not', async () => {
    expect(await classify('tcp', 41000, 8554, [txt('DESCRIBE rtsp://192.0.2.9/RTSP/1.0\r\nCSeq: 1\r\n\r\n')])).toBe('RTSP (DPI)');
    expect(await classify('tcp', 41001, 8554, [txt('DESCRIBE rtsp://192.0.2.9/ RTSP/2.0\r\nCSeq: 1\r\n\r\n')])).not.toBe('RTSP (DPI)');
    // no CRLF: nDPI parses no line at all
    expect(await classify('tcp', 41002, 8554, [txt('DESCRIBE rtsp://192.0.2.9/ RTSP/1.0')])).not.toBe('RTSP (DPI)');
  });

  it('an answer counts only from the other direction than the first payload packet', async () => {
    const answer = txt('RTSP/1.0 200 OK\r\nCSeq: 2\r\n\r\n');
    expect(await classify('tcp', 41003, 8554, [txt('junk from the client 1'), answer], [true, false])).toBe('RTSP (DPI)');
    // the answer alone is the first packet: nDPI only notes its direction
    expect(await classify('tcp', 41004, 8554, [answer], [false])).not.toBe('RTSP (DPI)');
    // "rtsp://" in the first 31 bytes of the other direction's packet (over 20 bytes)
    // (not "hello": a 5-byte "hello" is SIP's ping in nDPI's sip.c, named SIP at once)
    expect(await classify('tcp', 41005, 8554, [txt('hallo'), txt('x rtsp://192.0.2.9/a b c d e f')], [true, false])).toBe('RTSP (DPI)');
    expect(await classify('tcp', 41006, 8554, [txt('hello'), txt('0123456789012345678901234 rtsp://192.0.2.9/')], [true, false])).not.toBe('RTSP (DPI)');
    // the first direction may send a second packet before the answer, not a third
    expect(await classify('tcp', 41007, 8554, [txt('hallo'), txt('again'), answer], [true, true, false])).toBe('RTSP (DPI)');
    expect(await classify('tcp', 41008, 8554, [txt('hello'), txt('again'), txt('more'), answer], [true, true, true, false])).not.toBe('RTSP (DPI)');
  });

  it('an HTTP request accepting application/x-rtsp-tunnelled is HTTP.RTSP; another media type is HTTP', async () => {
    const req = (accept: string) => txt(`GET /stream HTTP/1.0\r\nHost: cam.test\r\nAccept: ${accept}\r\n\r\n`);
    expect(await classify('tcp', 41009, 80, [req('application/x-rtsp-tunnelled')])).toBe('HTTP.RTSP (DPI)');
    expect(await classify('tcp', 41010, 80, [req('application/x-rtsp-tunneled')])).toBe('HTTP (DPI)');
  });
});

describe('VNC (vnc.c)', () => {
  it('nDPI reads "RFB 003" / "RFB 004" and the line feed at 11 only', async () => {
    expect(await classify('tcp', 41020, 5900, [txt('RFB 003-008\n'), txt('RFB 003.008\n')], [false, true])).toBe('VNC (DPI)');
    expect(await classify('tcp', 41021, 5900, [txt('RFB 004.xyz\n'), txt('RFB 004.001\n')], [false, true])).toBe('VNC (DPI)');
    expect(await classify('tcp', 41022, 5900, [txt('RFB 005.000\n'), txt('RFB 005.000\n')], [false, true])).not.toBe('VNC (DPI)');
    expect(await classify('tcp', 41023, 5900, [txt('RFB 003.008\r'), txt('RFB 003.008\r')], [false, true])).not.toBe('VNC (DPI)');
  });
});

describe('MGCP (mgcp.c)', () => {
  it('"MGCP " must follow the transaction id and the endpoint, each after one space', async () => {
    expect(await classify('udp', 41030, 2427, [txt('CRCX 1204 aaln/1@gw.example.com MGCP 1.0\r\nC: A3C47F21456789F0\r\n')])).toBe('MGCP (DPI)');
    // "MGCP " right after the transaction id: the endpoint is "MGCP"
    expect(await classify('udp', 41031, 2427, [txt('CRCX 1204 MGCP 1.0\r\nC: A3C47F21456789F0\r\n')])).not.toBe('MGCP (DPI)');
    // the search for the spaces stops at a NUL byte
    expect(await classify('udp', 41032, 2427, [txt('CRCX 1204\x00aaln/1@gw.example.com MGCP 1.0\r\n')])).not.toBe('MGCP (DPI)');
  });
  it("the endpoint's host (after '@', else the whole endpoint) is the flow's name", async () => {
    const at = await runFlow('udp', 41033, 2427, [txt('RQNT 1205 aaln/1@GW.Example.com MGCP 1.0\r\n')]);
    expect([l7Name(at.flow.l7_master, at.flow.l7_app), at.flow.host_name]).toEqual(['MGCP', 'gw.example.com']);
    const whole = await runFlow('udp', 41034, 2427, [txt('RQNT 1206 gw2.example.com MGCP 1.0\r\n')]);
    expect(whole.flow.host_name).toBe('gw2.example.com');
  });
});

describe('CryNetwork (crynet.c)', () => {
  const cry = (len: number, b0: number) => {
    const b = Buffer.alloc(len);
    b[0] = b0;
    b[16] = 0x01;
    b[20] = 0x07;
    b.writeUInt16BE(0x0307, 24);
    return b;
  };
  it('the first byte must be 0x3c (70 bytes); nothing is read at offset 3', async () => {
    expect(await classify('udp', 41040, 64100, [cry(70, 0x3c)])).toBe('CryNetwork (DPI)');
    // length byte consistent with the size, but not 0x3c
    expect(await classify('udp', 41041, 64100, [cry(71, 0x3d)])).not.toBe('CryNetwork (DPI)');
  });
});

describe('Yojimbo (yojimbo.c)', () => {
  it('type 0 and "NETCODE " in 9 bytes or more, whatever the version after it', async () => {
    expect(await classify('udp', 41050, 40000, [Buffer.concat([bytes(0), txt('NETCODE ')])])).toBe('Yojimbo (DPI)');
    expect(await classify('udp', 41051, 40000, [Buffer.concat([bytes(0), txt('NETCODE 2.00\x00'), Buffer.alloc(20, 3)])])).toBe('Yojimbo (DPI)');
    expect(await classify('udp', 41052, 40000, [Buffer.concat([bytes(0), txt('NETCODE_1.02\x00'), Buffer.alloc(20, 3)])])).not.toBe('Yojimbo (DPI)');
  });
});

describe('Sonos (sonos.c)', () => {
  it("towards nDPI's non-public IPv4 only (RFC 1918, loopback), not link-local", async () => {
    const msg = Buffer.alloc(60, 0x11);
    expect(await replayOne([udp4('10.0.0.5', 44000, '192.168.1.20', 7080, msg)])).toBe('Sonos (DPI)');
    expect(await replayOne([udp4('169.254.1.5', 44001, '169.254.1.20', 7080, msg)])).not.toBe('Sonos (DPI)');
  });
});

describe('ApplePush (apple_push.c)', () => {
  it("the IPv6 prefix nDPI's code tests is 2a0a:b740:a42::/48", async () => {
    const seg = Buffer.alloc(100, 0x5a);
    expect(await replayOne([tcp6('2001:db8::5', 49354, '2a0a:b740:a42::10', 5223, seg)])).toBe('ApplePush (DPI)');
    expect(await replayOne([tcp6('2001:db8::5', 49355, '2a01:b740:a42::10', 5223, seg)])).not.toBe('ApplePush (DPI)');
  });
});

describe('Corba (corba.c)', () => {
  const giop = (size: number) => Buffer.concat([txt('GIOP'), bytes(1, 2, 1, 0), Buffer.alloc(size - 8, 0)]);
  it('a GIOP packet of any size from 24 bytes; only the first payload packet counts', async () => {
    expect(await classify('tcp', 41060, 2809, [giop(600)])).toBe('Corba (DPI)');
    expect(await classify('tcp', 41061, 2809, [Buffer.alloc(200, 0x41), giop(64)], [true, false])).not.toBe('Corba (DPI)');
    expect(await classify('tcp', 41062, 2809, [giop(23)])).not.toBe('Corba (DPI)');
  });
});

describe('HL7 (hl7.c)', () => {
  const body = 'SENDER|FAC|RECEIVER|FAC|20240101120000||ADT^A01|MSG00001|P|2.5\rPID|1||12345^^^HOSP^MR||DOE^JOHN\r';
  it('the MSH segment must start at offset 1', async () => {
    expect(await classify('tcp', 41070, 2575, [Buffer.concat([bytes(0x0b), txt(`MSH|^~\\&|${body}`)])])).toBe('HL7 (DPI)');
    expect(await classify('tcp', 41071, 2575, [Buffer.concat([bytes(0x0b, 0x0d), txt(`MSH|^~\\&|${body}`)])])).not.toBe('HL7 (DPI)');
  });
  it('over HTTP, a Content-Type of its media types is HTTP.HL7', async () => {
    const post = (type: string) => txt(`POST /hl7 HTTP/1.1\r\nHost: emr.test\r\nContent-Type: ${type}\r\nContent-Length: 4\r\n\r\nMSH|`);
    expect(await classify('tcp', 41072, 80, [post('x-application/hl7-v2+er7; charset=utf-8')])).toBe('HTTP.HL7 (DPI)');
    expect(await classify('tcp', 41073, 80, [post('x-application/fhir+json')])).toBe('HTTP.HL7 (DPI)');
    expect(await classify('tcp', 41074, 80, [post('application/hl7-v2+er7')])).toBe('HTTP (DPI)');
  });
});

describe('TencentGames (tencent_games.c)', () => {
  it('0x4215f787 with a zero 16-bit word at 6', async () => {
    const pkt = (w6: number) => Buffer.concat([u32(0x4215f787), u16(0x0102), u16(w6), Buffer.alloc(60, 0x33)]);
    expect(await classify('tcp', 41080, 17500, [pkt(0)])).toBe('TencentGames (DPI)');
    expect(await classify('tcp', 41081, 17500, [pkt(1)])).not.toBe('TencentGames (DPI)');
  });
});

describe('TeamSpeak (teamspeak.c)', () => {
  it('license / weblist datagrams: the third payload packet of that shape names the flow', async () => {
    const short4 = bytes(0x01, 0x00, 0x00, 0x01);
    const five = bytes(0x01, 0x07, 0x00, 0x02, 0x00);
    const sixteen = Buffer.concat([bytes(0x01, 0x00, 0x00, 0x02), Buffer.alloc(7, 9), Buffer.alloc(5, 0)]);
    expect(await classify('udp', 41090, 2008, [short4, five, sixteen])).toBe('TeamSpeak (DPI)');
    expect(await classify('udp', 41091, 2008, [short4, five])).not.toBe('TeamSpeak (DPI)');
    // a third packet of another shape rules it out
    const bad16 = Buffer.from(sixteen);
    bad16[15] = 1;
    expect(await classify('udp', 41092, 2008, [short4, five, bad16])).not.toBe('TeamSpeak (DPI)');
  });
});

describe('NetFlow (netflow.c)', () => {
  const v5 = (secs: number) => Buffer.concat([u16(5), u16(1), u32(123456), u32(secs), Buffer.alloc(12), Buffer.alloc(48, 1)]);
  it("the export time is checked against the classifying machine's clock, not the packet's", async () => {
    // 1750000000 (2025) is after the packets' time (2023), before now
    expect(await classify('udp', 41100, 2055, [v5(1750000000)], [true])).toBe('NetFlow (DPI)');
  });
  it('a header that fits with an export time out of range waits for the next datagram', async () => {
    expect(await classify('udp', 41101, 2055, [v5(0xf0000000), v5(1700000000 - 10)], [true, true])).toBe('NetFlow (DPI)');
    // a header that does not fit rules it out
    const bad = Buffer.concat([u16(5), u16(2), u32(123456), u32(1700000000 - 10), Buffer.alloc(12), Buffer.alloc(48, 1)]);
    expect(await classify('udp', 41102, 2055, [bad, v5(1700000000 - 10)], [true, true])).not.toBe('NetFlow (DPI)');
  });
});

describe('Xiaomi (xiaomi.c)', () => {
  // header 0xc2fe0005, length of the rest, 0x00020016, then (from 16) TLVs
  const msg = (tlvs: Buffer) => {
    const rest = Buffer.concat([u32(0x00020016), Buffer.alloc(4, 0), tlvs]);
    return Buffer.concat([u32(0xc2fe0005), u32(rest.length - 4), rest]);
  };
  const tlvs = Buffer.concat([bytes(0x28, 0x01), bytes(0x12, 3), txt('ua1'), bytes(0x3a, 21), txt('push.xiaomi.test:5222'), bytes(0x42, 2), txt('en')]);
  it("a packet to port 5222 names the flow by its 0x3a TLV, without the port", async () => {
    const r = await runFlow('tcp', 41120, 5222, [msg(tlvs)]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.host_name]).toEqual(['Xiaomi', 'push.xiaomi.test']);
    // from the server (source port 5222) the TLVs are not read
    const s = await runFlow('tcp', 41121, 5222, [msg(tlvs)], [false]);
    expect([l7Name(s.flow.l7_master, s.flow.l7_app), s.flow.host_name]).toEqual(['Xiaomi', '']);
  });
  it('a length that does not cover the rest is not Xiaomi', async () => {
    const bad = msg(tlvs);
    bad.writeUInt32BE(bad.readUInt32BE(4) + 1, 4);
    expect(await classify('tcp', 41122, 5222, [bad])).not.toBe('Xiaomi (DPI)');
  });
});

describe('HAProxy (haproxy.c)', () => {
  it('the search for the line end stops at a NUL byte', async () => {
    expect(await classify('tcp', 41110, 8443, [txt('PROXY TCP4 192.0.2.1 192.0.2.2 56324 443\r\nhello')])).toBe('HAProxy (DPI)');
    expect(await classify('tcp', 41111, 8443, [txt('PROXY TCP4 192.0.2.1\x00192.0.2.2 56324 443\r\nhello')])).not.toBe('HAProxy (DPI)');
  });
});
