// Audit 19: Zoom, DHCP, TeamViewer, Ookla, Tailscale, Citrix, Dropbox,
// DNSCrypt, CiscoVPN and UltraSurf checked against nDPI 4.11's own source
// (src/lib/protocols/<name>.c, ndpi_main.c for the Ookla cache and packet
// counters). One hand-built flow per case, from the protocols' documents
// or nDPI's stated byte rules: what nDPI accepts is named by DPI, a near
// miss (one detail wrong) is not.
import { writeFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { hex, txt, u16, u32 } from './fixtures/bytes.js';
import { classifier, flowRunner, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, ipv6, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit-19-');
const runFlow = flowRunner('fg-dissectors-audit-19f-');
const tmp = tempDir('fg-dissectors-audit-19r-');
afterAll(() => tmp.cleanup());
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);
const dirsOf = (msgs: [boolean, Buffer][]) => msgs.map(([c]) => c);
const payloadsOf = (msgs: [boolean, Buffer][]) => msgs.map(([, p]) => p);
const run = (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: [boolean, Buffer][], opts = {}) =>
  classify(l4, cport, sport, payloadsOf(msgs), dirsOf(msgs), opts);
const junk = (n: number, seed = 7) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 53 + seed) & 0xff | 0x01));

/** Frames stamped at the given seconds, replayed and ended; "name (confidence)" per client port. */
let nAt = 0;
async function replayTimed(frames: Buffer[], at: number[]): Promise<Record<number, string>> {
  const file = tmp.file(`timed-${nAt++}.pcap`);
  writeFileSync(file, pcap(frames.map((data, i) => ({ tsNs: sec(1700000000 + at[i]!), data }))));
  const e = new Engine({ files: [file], flowIdleSec: 1e10, flushAtEnd: true });
  try {
    e.start();
    await e.waitDone();
    return Object.fromEntries(e.drainExpired(64).map((f) => [f.cli_port, `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`]));
  } finally {
    e.close();
  }
}
const udpFrame = (src: string, dst: string, sport: number, dport: number, p: Buffer) =>
  src.includes(':')
    ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: IPPROTO.UDP }, udp({ sport, dport }, p)))
    : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP }, udp({ sport, dport }, p)));

// ── Zoom (zoom.c; Michel et al. IMC 2022): SFU encapsulation (type, seq,
// 4 bytes, direction) towards 8801–8810; type 5 wraps the media
// encapsulation (type, 8 bytes, seq, timestamp) with RTP / RTCP inside.
const rtp = Buffer.concat([bytes(0x80, 111), u16(1), u32(160), u32(0x1234), junk(20)]);
const rtcp = Buffer.concat([bytes(0x80, 200), u16(6), junk(24)]);
const media = (type: number, inner: Buffer, gap: number) => Buffer.concat([bytes(type), Buffer.alloc(8), u16(1), u32(2), Buffer.alloc(gap), inner]);
const sfu = (type: number, body: Buffer) => Buffer.concat([bytes(type), u16(7), u32(0), bytes(0), body]);
const audio = sfu(5, media(15, rtp, 4)); // RTP at 19 of the media encapsulation
const video = sfu(5, media(16, rtp, 9)); // at 24
const rtcpMsg = sfu(5, media(33, rtcp, 1)); // RTCP at 16
function p2pOpen(extra = 0): Buffer {
  const ip = txt('192.0.2.7:50000'), uuid = txt('0123456789abcdef');
  return Buffer.concat([bytes(0x1f, 0x02, 0x01), Buffer.alloc(21, 0x11), u32(ip.length), ip, u32(uuid.length), uuid, Buffer.alloc(4 + extra)]);
}

describe('Zoom as zoom.c', () => {
  it('SFU types 1 and 2 on 8801–8810 (either side), over 8 bytes; not 8 bytes, not port 8811', async () => {
    expect(await run('udp', 50000, 8801, [[true, Buffer.concat([bytes(1, 0, 2), junk(6)])]])).toBe('Zoom (DPI)');
    expect(await run('udp', 8810, 50000, [[true, Buffer.concat([bytes(2, 0, 3), junk(6)])]], v6)).toBe('Zoom (DPI)');
    expect(await run('udp', 50000, 8801, [[true, Buffer.concat([bytes(1, 0, 2), junk(5)])]])).not.toContain('Zoom');
    expect(await run('udp', 50000, 8811, [[true, Buffer.concat([bytes(1, 0, 2), junk(6)])]])).not.toContain('Zoom');
  });
  it('SFU types 3/4 from the fourth payload packet only', async () => {
    const t3 = sfu(3, junk(12));
    expect(await run('udp', 50000, 8802, [[true, t3], [false, t3], [true, t3], [false, t3]])).toBe('Zoom (DPI)');
    expect(await run('udp', 50000, 8802, [[true, t3], [false, t3], [true, t3]])).not.toContain('Zoom');
  });
  it('SFU type 5: audio / video RTP is SRTP.Zoom, RTCP is Zoom, then media within 4 more packets names SRTP', async () => {
    expect(await run('udp', 50000, 8801, [[true, audio]])).toBe('SRTP.Zoom (DPI)');
    expect(await run('udp', 50000, 8801, [[true, video]], v6)).toBe('SRTP.Zoom (DPI)');
    expect(await run('udp', 50000, 8801, [[true, rtcpMsg]])).toBe('Zoom (DPI)');
    expect(await run('udp', 50000, 8801, [[true, rtcpMsg], [false, rtcpMsg], [true, video]])).toBe('SRTP.Zoom (DPI)');
    const five = [rtcpMsg, rtcpMsg, rtcpMsg, rtcpMsg, rtcpMsg].map((p, i): [boolean, Buffer] => [i % 2 === 0, p]);
    expect(await run('udp', 50000, 8801, [...five, [false, video]])).toBe('Zoom (DPI)');
    // RTP where audio's is not (one byte off): not a media encapsulation nDPI knows
    expect(await run('udp', 50000, 8801, [[true, sfu(5, media(15, rtp, 5))]])).not.toContain('Zoom');
  });
  it('P2P opening anywhere: lengths adding up exactly, 4 zero bytes at the end', async () => {
    expect(await run('udp', 40000, 50000, [[true, p2pOpen()]])).toBe('Zoom (DPI)');
    expect(await run('udp', 40000, 50000, [[true, p2pOpen()]], v6)).toBe('Zoom (DPI)');
    expect(await run('udp', 40000, 50000, [[true, p2pOpen(1)]])).not.toContain('Zoom');
    // then bare media encapsulation names SRTP
    expect(await run('udp', 40000, 50000, [[true, p2pOpen()], [false, media(16, rtp, 9)]])).toBe('SRTP.Zoom (DPI)');
  });
});

// ── DHCP (RFC 2131 §2 message format, RFC 2132 options 12, 53, 60).
function dhcp(options: Buffer, op = 1, len?: number): Buffer {
  const fixed = Buffer.alloc(236);
  fixed[0] = op, fixed[1] = 1, fixed[2] = 6;
  u32(0x3903f326).copy(fixed, 4);
  hex('00163e112233').copy(fixed, 28);
  const m = Buffer.concat([fixed, u32(0x63825363), options]);
  return len === undefined ? m : Buffer.concat([m, Buffer.alloc(Math.max(0, len - m.length))]).subarray(0, len);
}
const opt = (code: number, v: Buffer) => Buffer.concat([bytes(code, v.length), v]);
const END = bytes(255);
const discover = (host = 'MyHost') => dhcp(Buffer.concat([opt(53, bytes(1)), opt(12, txt(host)), opt(60, txt('MSFT 5.0')), END]));

describe('DHCP as dhcp.c', () => {
  it('67/68 over IPv4 with a message type 0–8 is DHCP and names the host (lower case)', async () => {
    const r = await runFlow('udp', 68, 67, [discover()]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.host_name]).toEqual(['DHCP', 'myhost']);
    expect(await classify('udp', 68, 67, [dhcp(Buffer.concat([opt(53, bytes(8)), END]), 3)])).toBe('DHCP (DPI)'); // the op byte is not read
    expect(await classify('udp', 67, 67, [discover()])).toBe('DHCP (DPI)');
  });
  it('near misses: no option 53, type 9, 243 bytes, a port other than 67/68, IPv6', async () => {
    expect(await classify('udp', 68, 67, [dhcp(Buffer.concat([opt(12, txt('a')), END]))])).not.toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [dhcp(Buffer.concat([opt(53, bytes(9)), END]))])).not.toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [dhcp(bytes(53, 1, 1), 1, 243)])).not.toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [dhcp(bytes(53, 1, 1), 1, 244)])).toBe('DHCP (DPI)');
    expect(await classify('udp', 69, 67, [discover()])).not.toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [discover()], undefined, v6)).not.toBe('DHCP (DPI)');
  });
  it('the host name is read only after option 53 and while the option list is under 48 characters', async () => {
    const before = await runFlow('udp', 68, 67, [dhcp(Buffer.concat([opt(12, txt('early')), opt(53, bytes(3)), END]))]);
    expect([l7Name(before.flow.l7_master, before.flow.l7_app), before.flow.host_name]).toEqual(['DHCP', '']);
    const fill = (n: number) => Buffer.concat(Array.from({ length: n }, () => opt(200, bytes(0x55))));
    // "53" + 11 × ",200" = 46 characters: option 12 is still read; with 12 it is 50
    const in11 = await runFlow('udp', 68, 67, [dhcp(Buffer.concat([opt(53, bytes(3)), fill(11), opt(12, txt('late')), END]))]);
    expect(in11.flow.host_name).toBe('late');
    const in12 = await runFlow('udp', 68, 67, [dhcp(Buffer.concat([opt(53, bytes(3)), fill(12), opt(12, txt('late')), END]))]);
    expect([l7Name(in12.flow.l7_master, in12.flow.l7_app), in12.flow.host_name]).toEqual(['DHCP', '']);
  });
});

// ── TeamViewer (teamviewer.c's byte rules).
const tvUdp = Buffer.concat([bytes(0), Buffer.alloc(10, 0x42), bytes(0x17, 0x24), bytes(0x10)]);
describe('TeamViewer as teamviewer.c', () => {
  it('UDP: on 5938 at once (remote-access risk), elsewhere the fourth such datagram', async () => {
    const r = await runFlow('udp', 40000, 5938, [tvUdp]);
    expect([l7Name(r.flow.l7_master, r.flow.l7_app), r.flow.risks]).toEqual(['TeamViewer', expect.arrayContaining(['Desktop/File Sharing'])]);
    expect(await classify('udp', 40000, 41000, [tvUdp, tvUdp, tvUdp, tvUdp], undefined, v6)).toBe('TeamViewer (DPI)');
    expect(await classify('udp', 40000, 41000, [tvUdp, tvUdp, tvUdp])).not.toContain('TeamViewer');
    expect(await classify('udp', 40000, 5938, [tvUdp.subarray(0, 13)])).not.toContain('TeamViewer');
  });
  it('TCP: 17 24 opens, 11 30 follows; the fourth names it, or the first on 5938', async () => {
    const open = bytes(0x17, 0x24, 0x0a), next = bytes(0x11, 0x30, 0x0b), other = bytes(0x99, 0x00, 0x00);
    expect(await run('tcp', 40000, 5938, [[true, open]])).toBe('TeamViewer (DPI)');
    expect(await run('tcp', 40000, 41000, [[true, open], [false, next], [true, other], [true, next], [false, next]], v6)).toBe('TeamViewer (DPI)');
    expect(await run('tcp', 40000, 41000, [[true, open], [false, next], [true, next]])).not.toContain('TeamViewer');
    expect(await run('tcp', 40000, 5938, [[true, next]])).not.toBe('TeamViewer (DPI)');
  });
});

// ── Ookla (ookla.c; ndpi_main.c's give-up and lru.ookla: 1024 entries, 120 s).
describe('Ookla as ookla.c', () => {
  it('port 8080: HI first, HELLO second; not the other order, not another port', async () => {
    expect(await run('tcp', 40000, 8080, [[true, txt('HI\n')], [false, txt('HELLO 2.9 (2.9.2) 2023-01-01\n')]])).toBe('Ookla (DPI)');
    expect(await run('udp', 8080, 40000, [[true, txt('HI\n')], [false, txt('HELLO 2.9\n')]], v6)).toBe('Ookla (DPI)');
    expect(await run('tcp', 40000, 8080, [[true, txt('HELLO\n')], [false, txt('HI\n')]])).not.toBe('Ookla (DPI)');
    expect(await run('tcp', 40000, 8081, [[true, txt('HI\n')], [false, txt('HELLO 2.9\n')]])).not.toBe('Ookla (DPI)');
  });
  it("the client's address is cached: a later unknown flow to 8080 within 120 s is Ookla (partial cache)", async () => {
    const A = '10.0.19.1', B = '10.0.19.2', C = '10.0.19.3';
    const first = tcpSession(A, B, 41000, 8080, [[true, txt('HI\n')], [false, txt('HELLO 2.9\n')]]);
    const later = tcpSession(A, C, 41001, 8080, [[true, junk(30)]]);
    const otherPort = tcpSession(A, C, 41002, 8081, [[true, junk(30)]]);
    const otherCli = tcpSession(C, B, 41003, 8080, [[true, junk(30)]]);
    const late = tcpSession(A, C, 41004, 8080, [[true, junk(30)]]);
    const frames = [...first, ...later, ...otherPort, ...otherCli, ...late];
    const at = frames.map((_, i) => (i < frames.length - late.length ? i : 200 + i));
    const got = await replayTimed(frames, at);
    expect(got[41000]).toBe('Ookla (DPI)');
    expect(got[41001]).toBe('Ookla (DPI (partial cache))');
    expect(got[41002]).not.toContain('Ookla');
    expect(got[41003]).not.toContain('Ookla');
    expect(got[41004]).not.toContain('Ookla'); // 120 s after the entry: expired
  });
});

// ── Tailscale (tailscale disco/disco.go magic "TS💬", port 41641).
const disco = Buffer.concat([txt('TS'), bytes(0xf0, 0x9f, 0x92, 0xac)]);
describe('Tailscale as tailscale.c', () => {
  it('41641 either side, the magic and more', async () => {
    expect(await classify('udp', 41641, 50000, [Buffer.concat([disco, junk(40)])])).toBe('Tailscale (DPI)');
    expect(await classify('udp', 50000, 41641, [Buffer.concat([disco, bytes(1)])], undefined, v6)).toBe('Tailscale (DPI)');
    expect(await classify('udp', 50000, 41641, [disco])).not.toContain('Tailscale');
    expect(await classify('udp', 50000, 41642, [Buffer.concat([disco, junk(40)])])).not.toContain('Tailscale');
  });
});

// ── Citrix (citrix.c: ICA's 6-byte detection string, CGP's signature).
describe('Citrix as citrix.c', () => {
  const ica = bytes(0x7f, 0x7f, 0x49, 0x43, 0x41, 0x00);
  it('exactly the ICA string, or over 22 bytes the CGP signature / TcpProxyService name', async () => {
    expect(await run('tcp', 40000, 1494, [[false, ica]])).toBe('Citrix (DPI)');
    expect(await run('tcp', 40000, 1494, [[false, Buffer.concat([ica, bytes(0)])]])).not.toBe('Citrix (DPI)');
    expect(await run('tcp', 40000, 2598, [[true, Buffer.concat([bytes(0x1a), txt('CGP/01'), junk(16)])]], v6)).toBe('Citrix (DPI)');
    expect(await run('tcp', 40000, 2598, [[true, Buffer.concat([bytes(0x1a), txt('CGP/01'), junk(15)])]])).not.toBe('Citrix (DPI)');
    expect(await run('tcp', 40000, 3000, [[true, txt('xx Citrix.TcpProxyService')]])).toBe('Citrix (DPI)');
    expect(await run('tcp', 40000, 3000, [[true, txt('xx\0Citrix.TcpProxyService')]])).not.toBe('Citrix (DPI)');
  });
});

// ── Dropbox LAN sync discovery (dropbox.c, UDP 17500).
describe('Dropbox as dropbox.c', () => {
  it('17500 → 17500 with "host_int"; another source port with Bus17Cmd', async () => {
    const ann = txt('{"host_int": 1234, "version": [2, 0], "port": 17500}');
    expect(await classify('udp', 17500, 17500, [ann])).toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [ann], undefined, v6)).toBe('Dropbox (DPI)');
    expect(await classify('udp', 17500, 17500, [txt('{host_int: 1234, "port": 17500}')])).not.toBe('Dropbox (DPI)');
    expect(await classify('udp', 40000, 17500, [txt('xxBus17Cmdxx')])).toBe('Dropbox (DPI)');
    expect(await classify('udp', 40000, 17500, [ann])).not.toBe('Dropbox (DPI)');
  });
});

// ── DNSCrypt (dnscrypt.c): the certificate query "2.dnscrypt-cert.<name>"
// or the v1 resolver magic; gives up once each nDPI direction carried payload.
const certQuery = Buffer.concat([hex('12340100000100000000 0000'), bytes(1), txt('2'), bytes(13), txt('dnscrypt-cert'), bytes(7), txt('example'), bytes(0), u16(16), u16(1)]);
const magic = (n: number) => Buffer.concat([txt('r6fnvWj8'), junk(n - 8)]);
describe('DNSCrypt as dnscrypt.c', () => {
  it('the certificate query (TCP or UDP, any port), the resolver magic in 64 bytes or more', async () => {
    expect(await classify('udp', 40000, 443, [certQuery])).toBe('DNScrypt (DPI)');
    expect(await classify('udp', 40000, 443, [certQuery], undefined, v6)).toBe('DNScrypt (DPI)');
    expect(await run('udp', 40000, 443, [[true, junk(40)], [false, magic(64)]])).toBe('DNScrypt (DPI)');
    expect(await run('udp', 40000, 443, [[true, junk(40)], [false, magic(63)]])).not.toBe('DNScrypt (DPI)');
  });
  it("waits while one nDPI direction only carried payload (TCP's handshake does not count)", async () => {
    expect(await run('tcp', 40000, 5443, [[true, junk(40)], [true, junk(41)], [true, magic(64)]])).toBe('DNScrypt (DPI)');
    expect(await run('tcp', 40000, 5443, [[true, junk(40)], [false, junk(41)], [true, magic(64)]])).not.toBe('DNScrypt (DPI)');
    // equal ports: over IPv6 nDPI files both sides under one direction, over IPv4 the addresses decide
    expect(await run('udp', 5000, 5000, [[true, junk(40)], [false, junk(41)], [true, magic(64)]], v6)).toBe('DNScrypt (DPI)');
    expect(await run('udp', 5000, 5000, [[true, junk(40)], [false, junk(41)], [true, magic(64)]])).not.toBe('DNScrypt (DPI)');
  });
});

// ── CiscoVPN (ciscovpn.c: UDP 10000 both ways, FE 57 7E 2B).
describe('CiscoVPN as ciscovpn.c', () => {
  const lead = Buffer.concat([hex('fe577e2b'), junk(20)]);
  it('10000 ↔ 10000 with the lead bytes; not from another port', async () => {
    expect(await classify('udp', 10000, 10000, [lead])).toBe('CiscoVPN (DPI)');
    expect(await classify('udp', 10000, 10000, [junk(20), lead], undefined, v6)).toBe('CiscoVPN (DPI)');
    expect(await classify('udp', 10001, 10000, [lead])).not.toBe('CiscoVPN (DPI)');
  });
  it('gives up once more than 5 packets were processed, empty datagrams counted', async () => {
    const flow = (empties: number) => [
      ...Array.from({ length: empties }, () => udpFrame('10.0.19.5', '10.0.19.6', 10000, 10000, Buffer.alloc(0))),
      udpFrame('10.0.19.5', '10.0.19.6', 10000, 10000, junk(20)),
      udpFrame('10.0.19.6', '10.0.19.5', 10000, 10000, lead),
    ];
    const four = await replayTimed(flow(4), [0, 1, 2, 3, 4, 5]);
    expect(four[10000]).toBe('CiscoVPN (DPI)');
    const five = await replayTimed(flow(5), [0, 1, 2, 3, 4, 5, 6]);
    expect(five[10000]).not.toBe('CiscoVPN (DPI)');
  });
});

// ── UltraSurf (ultrasurf.c: CC 1C 30 41 5B A4 38 66 opens the first TCP payload).
describe('UltraSurf as ultrasurf.c', () => {
  const pro = hex('cc1c30415ba43866');
  it('the 8-byte prologue, either direction, any port', async () => {
    expect(await run('tcp', 40000, 443, [[true, Buffer.concat([pro, junk(30)])]])).toBe('UltraSurf (DPI)');
    expect(await run('tcp', 40000, 8000, [[false, pro]], v6)).toBe('UltraSurf (DPI)');
    expect(await run('tcp', 40000, 8000, [[true, pro.subarray(0, 7)]])).not.toBe('UltraSurf (DPI)');
    expect(await run('tcp', 40000, 8000, [[true, junk(10)], [false, pro]])).not.toBe('UltraSurf (DPI)');
  });
});

// ── AliCloud (alicloud.c: CE FA BE BA, a 32-bit PDU length).
describe('AliCloud as alicloud.c', () => {
  const pdu = (body: Buffer, len = body.length) => Buffer.concat([hex('cefabeba'), u32(len), body]);
  it('the length covers the rest, or a lone non-zero header; up to the 4th payload packet', async () => {
    expect(await run('tcp', 40000, 9000, [[true, pdu(junk(20))]])).toBe('AliCloud (DPI)');
    expect(await run('tcp', 40000, 9000, [[false, pdu(Buffer.alloc(0), 12)]], v6)).toBe('AliCloud (DPI)');
    // a lone header of length 0 still passes nDPI's second rule (0 bytes follow)
    expect(await run('tcp', 40000, 9000, [[true, pdu(Buffer.alloc(0), 0)]])).toBe('AliCloud (DPI)');
    expect(await run('tcp', 40000, 9000, [[true, pdu(Buffer.alloc(1), 0)]])).not.toBe('AliCloud (DPI)');
    expect(await run('tcp', 40000, 9000, [[true, pdu(junk(20), 21)]])).not.toBe('AliCloud (DPI)');
    const pad: [boolean, Buffer][] = [[true, junk(20)], [false, junk(21)], [true, junk(22)]];
    expect(await run('tcp', 40000, 9000, [...pad, [false, pdu(junk(20))]])).toBe('AliCloud (DPI)');
    expect(await run('tcp', 40000, 9000, [...pad, [false, junk(23)], [true, pdu(junk(20))]])).not.toBe('AliCloud (DPI)');
    expect(await run('tcp', 40000, 9000, [[true, junk(7)], [true, pdu(junk(20))]])).not.toBe('AliCloud (DPI)');
  });
});

// ── i3D (i3d.c: two fixed headers in datagrams of 74 bytes or more).
describe('i3D as i3d.c', () => {
  const game = Buffer.concat([hex('00010046 0003cfa8'), junk(66)]);
  const media = Buffer.concat([hex('9078 0001 00000000 0003cfa9 bede0003'), junk(58)]);
  it('either header at 74 bytes, on the first datagram', async () => {
    expect(await classify('udp', 40000, 50000, [game])).toBe('i3D (DPI)');
    expect(await classify('udp', 40000, 50000, [media], undefined, v6)).toBe('i3D (DPI)');
    expect(await classify('udp', 40000, 50000, [game.subarray(0, 73)])).not.toBe('i3D (DPI)');
    expect(await classify('udp', 40000, 50000, [Buffer.concat([hex('9078 0001 00000000 0003cfa9 bede0004'), junk(58)])])).not.toBe('i3D (DPI)');
  });
});

// ── Riot Games (riotgames.c: two trailers).
describe('RiotGames as riotgames.c', () => {
  it('aa…bb trailer over 8 bytes, or the 53-byte form', async () => {
    expect(await classify('udp', 40000, 5100, [Buffer.concat([junk(1), hex('aaaaaaaabbbbbbbb')])])).toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 5100, [hex('aaaaaaaabbbbbbbb')])).not.toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 5100, [Buffer.concat([junk(45), hex('3cb11f2dea23460c')])], undefined, v6)).toBe('RiotGames (DPI)');
    expect(await classify('udp', 40000, 5100, [Buffer.concat([junk(46), hex('3cb11f2dea23460c')])])).not.toBe('RiotGames (DPI)');
  });
});

// ── Steam Datagram Relay (steam_datagram_relay.c: "sdping" at byte 2, 100 bytes or more).
describe('SteamDatagramRelay as steam_datagram_relay.c', () => {
  const ping = (n: number) => Buffer.concat([bytes(0x01, 0x02), txt('sdping'), Buffer.alloc(n - 8)]);
  it('100 bytes with the tag; 99 are not', async () => {
    expect(await classify('udp', 40000, 27015, [ping(100)])).toBe('SteamDatagramRelay (DPI)');
    expect(await classify('udp', 40000, 27015, [ping(120)], undefined, v6)).toBe('SteamDatagramRelay (DPI)');
    expect(await classify('udp', 40000, 27015, [ping(99)])).not.toBe('SteamDatagramRelay (DPI)');
  });
});

// ── Among Us (among_us.c: Hazel Hello, nonce 1, broadcast version 2020.10.8).
describe('AmongUs as among_us.c', () => {
  const hello = (n: number) => Buffer.concat([hex('08000100 80d90203'), junk(n - 8)]);
  it('over 9 bytes of the one Hello form, any port', async () => {
    expect(await classify('udp', 40000, 22023, [hello(10)])).toBe('AmongUs (DPI)');
    expect(await classify('udp', 40000, 30000, [hello(30)], undefined, v6)).toBe('AmongUs (DPI)');
    expect(await classify('udp', 40000, 22023, [hello(9)])).not.toBe('AmongUs (DPI)');
    expect(await classify('udp', 40000, 22023, [Buffer.concat([hex('08000200 80d90203'), junk(20)])])).not.toBe('AmongUs (DPI)');
  });
});
