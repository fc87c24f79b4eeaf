// Audit 25: valid protocol messages (built from the protocols' own formats,
// every message form, on standard and other ports, TCP with and without
// handshake, UDP, IPv4 and IPv6) scored against nDPI 4.11 itself (its
// ndpiReader, built from its source). Each case below was also run through
// that ndpiReader; the expectations are its answers. Hand-built frames:
// - nDPI's one-way risk over IPv6 when both ports are equal (or there are
//   none): nDPI's direction puts every packet on one side there
//   (ndpi_direction.h), so the risk stands when nDPI is done with the flow,
//   and only a packet back after that clears it (the reader's accounting);
// - the DGA check's letter tables as nDPI 4.11 compiles them: "cv" and "vm"
//   are commented out of its impossible pairs (scripts/gen-ndpi-dga-lists.mjs;
//   300,000 + 300,000 generated names then agree with ndpi_check_dga_name);
// - a TLS ClientHello read from whichever side sends it (processTLSBlock
//   keeps its direction): a flow seen mid-stream whose client sits on port
//   443 is judged by its hello (Obsolete TLS, Not Carrying HTTPS);
// - RDP asking for TLS off port 3389: nDPI's TLS dissector read the request
//   before RDP matched it (the port guessed nothing, so RDP was not asked
//   first), and its TLS buffer for the client's side begins with it: the
//   client's hello ends the read, the server's names TLS.RDP;
// - a flow's info for HTTP is nDPI's URL: the target alone for CONNECT;
// - nDPI's host risk exceptions (".local" names and the like) are evaluated
//   once, when a naming finds the flow with a risk and a name
//   (ndpi_handle_risk_exceptions from ndpi_reconcile_protocols), with the
//   name it has then: a flow named while it had no risk keeps what is
//   raised later, one evaluated under an earlier name keeps that answer;
// - a dissector that decides on the first packet it reads (IEC 60870-5-104)
//   reads the second when nDPI stopped the first on an operator-only port;
// - DNS's Fragmented DNS Message: a response whose first fragment says more
//   follow (it was never raised before);
// - a packet captured shorter than its IP length (a snap length): nDPI's
//   reader drops it, so no dissector reads it and it does not make a flow
//   two-way (Packet::cut).

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, type ExpiredFlow, l7Name } from '../ts/bindings/engine.js';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, echo, eth, icmpv6, ipv4, ipv6, tcp } from './fixtures/frames.js';
import { tlsClientHello } from './fixtures/apps.js';
import { compileRules, loadProtosText } from '../ts/services/custom-apps/index.js';
import { replayFrames, tcpSession, udpFrame } from './fixtures/dissect.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { hex, txt, u16 } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-25-');
afterAll(() => tmp.cleanup());

let n = 0;
/** Replays the frames (1 s apart) as one capture, flushed at the end: every flow's final record. */
async function replay(frames: Buffer[]): Promise<ExpiredFlow[]> {
  const file = join(tmp.dir, `c-${n++}.pcap`);
  const flows = await replayFrames(file, frames, (e) => e.drainExpired(1 << 16), { flushAtEnd: true, workers: 1 });
  if (process.env.FG_KEEP_CAPTURES) copyFileSync(file, join(process.env.FG_KEEP_CAPTURES, `audit25-${n - 1}.pcap`)); // to check with ndpiReader
  return flows;
}
const said = (f: ExpiredFlow) => `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`;

describe('one-way risk over IPv6 with equal ports (nDPI direction)', () => {
  const A = 'fd01:2345:6789:1:aaaa:bbbb:1000:1', B = 'fd01:2345:6789:2:cccc:dddd:2000:2';
  // www.example.com A, a query and its answer; r2 another answer (id 0x4321)
  const q = hex('12340100000100000000000003777777076578616d706c6503636f6d0000010001');
  const r = hex('12348180000100010000000003777777076578616d706c6503636f6d0000010001c00c000100010000003c00045db8d822');
  const r2 = hex('43218180000100010000000003777777076578616d706c6503636f6d0000010001c00c000100010000003c00045db8d822');
  const ntpReq = Buffer.concat([Buffer.from([0x23]), Buffer.alloc(47)]), ntpRep = Buffer.concat([Buffer.from([0x24, 1]), Buffer.alloc(46)]);
  const one = async (frames: Buffer[]) => {
    const flows = await replay(frames);
    expect(flows).toHaveLength(1);
    return flows[0];
  };
  const oneway = (f: ExpiredFlow) => f.risks.includes('Unidirectional Traffic');

  it('holds when nDPI finished on the answer, or never finished, though both sides spoke', async () => {
    // DNS named on the answer: nothing came back after it
    let f = await one([udpFrame(A, B, 53, 53, q), udpFrame(B, A, 53, 53, r)]);
    expect([said(f), oneway(f)]).toEqual(['DNS (DPI)', true]);
    // a later packet from the side that opened the flow does not clear it
    f = await one([udpFrame(A, B, 53, 53, q), udpFrame(B, A, 53, 53, r), udpFrame(A, B, 53, 53, q)]);
    expect(oneway(f)).toBe(true);
    // nothing names it until the end: IPsec by port, the risk kept
    f = await one([udpFrame(A, B, 500, 500, Buffer.alloc(40, 0x11)), udpFrame(B, A, 500, 500, Buffer.alloc(40, 0x22))]);
    expect([said(f), oneway(f)]).toEqual(['IPSec (Match by port)', true]);
  });

  it('clears on a packet back after nDPI was done, and never applies with ports that differ or over IPv4', async () => {
    let f = await one([udpFrame(A, B, 53, 53, q), udpFrame(B, A, 53, 53, r), udpFrame(B, A, 53, 53, r2)]);
    expect([said(f), oneway(f)]).toEqual(['DNS (DPI)', false]);
    // NTP is named on its first packet: the answers come after
    f = await one([udpFrame(A, B, 123, 123, ntpReq), udpFrame(B, A, 123, 123, ntpRep), udpFrame(A, B, 123, 123, ntpReq), udpFrame(B, A, 123, 123, ntpRep)]);
    expect([said(f), oneway(f)]).toEqual(['NTP (DPI)', false]);
    f = await one([udpFrame(A, B, 40000, 53, q), udpFrame(B, A, 53, 40000, r)]);
    expect([said(f), oneway(f)]).toEqual(['DNS (DPI)', false]);
    f = await one([udpFrame('10.0.0.1', '10.0.0.2', 53, 53, q), udpFrame('10.0.0.2', '10.0.0.1', 53, 53, r)]);
    expect([said(f), oneway(f)]).toEqual(['DNS (DPI)', false]);
  });

  it('over ICMPv6 (no ports): an echo answered is two-way, requests alone are not', async () => {
    const ping = (s: string, d: string, type: number, seq: number) => eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.ICMPV6 }, icmpv6(type, 0, echo(7, seq))));
    let f = await one([ping(A, B, 128, 1), ping(B, A, 129, 1)]);
    expect([said(f), oneway(f)]).toEqual(['ICMPV6 (DPI)', false]);
    f = await one([ping(A, B, 128, 1), ping(A, B, 128, 2)]);
    expect([said(f), oneway(f)]).toEqual(['ICMPV6 (DPI)', true]);
  });
});

describe('DGA letter tables (nDPI 4.11)', () => {
  /** A standard query for `name` (type A). */
  const query = (name: string) =>
    Buffer.concat([u16(0x1234), u16(0x0100), u16(1), u16(0), u16(0), u16(0), ...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0]), u16(1), u16(1)]);
  it('a "cv" or "vm" pair is not impossible English', async () => {
    const names = ['wlhuvcv.de', 'tbufvmf.net', 'cvixgooid.jlbw.net', 'cvwoteb.ytzemlz.de', 'xjwqkzpvbn.com'];
    const flows = await replay(names.map((name, i) => udpFrame(`10.7.0.${i + 1}`, '10.7.1.1', 40000, 53, query(name))));
    const dga = names.map((name, i) => [name, flows.find((f) => f.cli_ip === `10.7.0.${i + 1}`)!.risks.includes('Susp DGA Domain name')]);
    expect(dga).toEqual([
      ['wlhuvcv.de', false],
      ['tbufvmf.net', false],
      ['cvixgooid.jlbw.net', false],
      ['cvwoteb.ytzemlz.de', false],
      ['xjwqkzpvbn.com', true], // no English pair at all
    ]);
  });
});

describe('TLS ClientHello from the side nDPI calls the server', () => {
  /** TCP segments with no handshake before them (a flow seen mid-stream), each [from the first sender, payload]. */
  function midStream(a: string, b: string, aport: number, bport: number, segs: [boolean, Buffer][]): Buffer[] {
    const seq = [1000, 5000];
    return segs.map(([fromA, p]) => {
      const l4 = tcp({ sport: fromA ? aport : bport, dport: fromA ? bport : aport, flags: TCPF.PSH | TCPF.ACK, seq: seq[fromA ? 0 : 1], ack: seq[fromA ? 1 : 0] }, p);
      seq[fromA ? 0 : 1] += p.length;
      return eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: fromA ? a : b, dst: fromA ? b : a, proto: IPPROTO.TCP }, l4));
    });
  }
  it('is read as a hello: no ALPN from TLS 1.2, an old version', async () => {
    const noAlpn = tlsClientHello('shop.example.org');
    const old = Buffer.from(tlsClientHello('shop.example.org', ['h2']));
    old[9] = 3, old[10] = 2; // the hello's own version: TLS 1.1
    const flows = await replay([
      ...midStream('10.8.0.1', '10.8.0.2', 443, 11647, [[true, noAlpn]]),
      ...midStream('10.8.0.3', '10.8.0.4', 443, 8907, [[true, old]]),
      ...midStream('10.8.0.5', '10.8.0.6', 11648, 443, [[true, noAlpn]]), // the usual side, as before
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip || f.srv_ip === ip)!;
    for (const ip of ['10.8.0.1', '10.8.0.5']) {
      expect([ip, said(at(ip))]).toEqual([ip, 'TLS (DPI)']);
      expect(at(ip).risks).toContain('TLS (probably) Not Carrying HTTPS');
    }
    expect(said(at('10.8.0.3'))).toBe('TLS (DPI)');
    expect(at('10.8.0.3').risks).toContain('Obsolete TLS (v1.1 or older)');
    expect(at('10.8.0.3').risks).not.toContain('TLS (probably) Not Carrying HTTPS');
  });
});

describe('RDP asking for TLS security, off port 3389', () => {
  const request = () => {
    const body = Buffer.concat([txt('Cookie: mstshash=user12345\r\n'), Buffer.from([1, 0, 8, 0, 3, 0, 0, 0])]);
    const x224 = Buffer.concat([Buffer.from([6 + body.length, 0xe0, 0, 0, 0, 0, 0]), body]);
    return Buffer.concat([Buffer.from([3, 0, 0, x224.length + 4]), x224]);
  };
  const confirm = Buffer.from([3, 0, 0, 19, 14, 0xd0, 0, 0, 0x12, 0x34, 0, 2, 0x1f, 8, 0, 1, 0, 0, 0]);
  // a ServerHello (TLS 1.2, ECDHE-RSA-AES128-GCM-SHA256, no extension)
  const serverHello = Buffer.concat([hex('160303002a020000260303'), Buffer.alloc(32, 0x11), hex('00c02f00')]);
  it('the client\'s hello ends the read on another port; the server\'s names TLS.RDP; on 3389 both are read', async () => {
    const req = request(), hello = tlsClientHello('rdp.example.org');
    expect(req[43]).toBe(3);
    const session = (cli: string, srv: string, sport: number, msgs: [boolean, Buffer][]) => tcpSession(cli, srv, 40000, sport, msgs);
    const flows = await replay([
      ...session('10.9.0.1', '10.9.1.1', 25234, [[true, req], [false, confirm], [true, hello], [false, serverHello]]),
      ...session('10.9.0.2', '10.9.1.2', 25234, [[true, req], [false, confirm], [false, serverHello]]),
      ...session('10.9.0.3', '10.9.1.3', 3389, [[true, req], [false, confirm], [true, hello], [false, serverHello]]),
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip)!;
    expect(said(at('10.9.0.1'))).toBe('RDP (DPI)');
    expect(at('10.9.0.1').risks).not.toContain('TLS (probably) Not Carrying HTTPS');
    expect(said(at('10.9.0.2'))).toBe('TLS.RDP (DPI)');
    expect(said(at('10.9.0.3'))).toBe('TLS.RDP (DPI)');
    expect(at('10.9.0.3').risks).toContain('TLS (probably) Not Carrying HTTPS'); // its hello was read
  });
});

describe('flow info of HTTP (nDPI URL)', () => {
  it('CONNECT: the target alone; a request: host then target', async () => {
    const flows = await replay([
      ...tcpSession('10.9.2.1', '10.9.3.1', 40000, 3128, [[true, txt('CONNECT www.example.org:443 HTTP/1.1\r\nHost: www.example.org:443\r\n\r\n')], [false, txt('HTTP/1.1 200 OK\r\n\r\n')]]),
      ...tcpSession('10.9.2.2', '10.9.3.2', 40000, 80, [[true, txt('GET /a/b?c=1 HTTP/1.1\r\nHost: www.example.org\r\nUser-Agent: curl/8.5.0\r\n\r\n')]]),
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip)!;
    expect([said(at('10.9.2.1')), at('10.9.2.1').info]).toEqual(['HTTP_Connect (DPI)', 'www.example.org:443']);
    expect([said(at('10.9.2.2')), at('10.9.2.2').info]).toEqual(['HTTP (DPI)', 'www.example.org/a/b?c=1']);
  });
});

describe('host risk exceptions, evaluated when nDPI evaluates them', () => {
  const name = (n: string) => Buffer.concat([...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
  const query = (id: number, n: string) => Buffer.concat([u16(id), u16(0x0100), u16(1), u16(0), u16(0), u16(0), name(n), u16(1), u16(1)]);
  const nxdomain = (id: number, n: string) => Buffer.concat([u16(id), u16(0x8183), u16(1), u16(0), u16(0), u16(0), name(n), u16(1), u16(1)]);
  const tcpDns = (b: Buffer) => Buffer.concat([u16(b.length), b]);
  it('a flow named with no risk yet keeps the risks raised after, whatever its name', async () => {
    const flows = await replay([
      // Munin names the flow, then sets its name; the port is raised after
      ...tcpSession('10.10.0.1', '10.10.1.1', 40000, 48193, [[false, txt('# munin node at web01.corp.local\n')], [true, txt('list\n')]]),
      // DNS over TCP: no risk when the query named it (both sides seen), NXDOMAIN after
      ...tcpSession('10.10.0.2', '10.10.1.2', 40000, 53, [[true, tcpDns(query(7, 'dc01.corp.local'))], [false, tcpDns(nxdomain(7, 'dc01.corp.local'))]]),
      // DNS over UDP: one way when the query named it: ".local" masks every risk
      udpFrame('10.10.0.3', '10.10.1.3', 40000, 53, query(8, 'dc01.corp.local')),
      // ... and a flow evaluated under its first name keeps that answer
      udpFrame('10.10.0.4', '10.10.1.4', 40000, 53, query(9, 'xjwqkzpvbn.com')),
      udpFrame('10.10.0.4', '10.10.1.4', 40000, 53, query(10, 'dc01.corp.local')),
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip)!;
    expect([said(at('10.10.0.1')), at('10.10.0.1').risks]).toEqual(['Munin (DPI)', ['Known Proto on Non Std Port']]);
    expect([said(at('10.10.0.2')), at('10.10.0.2').risks]).toEqual(['DNS (DPI)', ['Error Code']]);
    expect([said(at('10.10.0.3')), at('10.10.0.3').risks]).toEqual(['DNS (DPI)', []]);
    expect(at('10.10.0.4').risks).toEqual(expect.arrayContaining(['Susp DGA Domain name', 'Unidirectional Traffic']));
  });

  it('risks a dissector raised before naming count; a DNS answer seen without its query names the flow before its name is read', async () => {
    const answer = (id: number, n: string) =>
      Buffer.concat([u16(id), u16(0x8180), u16(1), u16(1), u16(0), u16(1), name(n), u16(1), u16(1), hex('c00c0001000100000e10000405060708'), hex('0000291000000000000000')]);
    const flows = await replay([
      // TLS: no ALPN, raised while reading the hello, before naming: ".local" masks it and the port's
      ...tcpSession('10.10.2.1', '10.10.3.1', 40000, 3128, [[true, tlsClientHello('www.shop.corp.local')]]),
      // the same hello to an ordinary name keeps both
      ...tcpSession('10.10.2.2', '10.10.3.2', 40000, 3128, [[true, tlsClientHello('www.shop.example.org')]]),
      // an answer with an additional record and no query: named by its port, then its name is read
      udpFrame('10.10.3.3', '10.10.2.3', 53, 40000, answer(11, 'cdn.web.corp.local')),
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip || f.srv_ip === ip)!;
    expect([said(at('10.10.2.1')), at('10.10.2.1').risks]).toEqual(['TLS (DPI)', []]);
    expect(at('10.10.2.2').risks).toEqual(expect.arrayContaining(['Known Proto on Non Std Port', 'TLS (probably) Not Carrying HTTPS']));
    expect([said(at('10.10.2.3')), at('10.10.2.3').risks]).toEqual(['DNS (DPI)', ['Unidirectional Traffic']]);
  });
});

describe('first packet stopped on an operator-only port', () => {
  it('IEC 60870-5-104 reads the second packet', async () => {
    // tcp:3000@ntop (nDPI's example rules): the first packet goes to no dissector
    Engine.setUserRules(compileRules(loadProtosText('tcp:3000@ntop\n').apps));
    try {
      const seg = (fromCli: boolean, seq: number, ack: number, p: Buffer) => {
        const l4 = tcp({ sport: fromCli ? 10853 : 3000, dport: fromCli ? 3000 : 10853, flags: TCPF.PSH | TCPF.ACK, seq, ack }, p);
        return eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: fromCli ? '10.11.0.1' : '10.11.0.2', dst: fromCli ? '10.11.0.2' : '10.11.0.1', proto: IPPROTO.TCP }, l4));
      };
      const flows = await replay([seg(true, 1, 1, hex('680407000000')), seg(false, 1, 7, hex('68040b000000')), seg(true, 7, 7, hex('680443000000'))]);
      expect(said(flows[0])).toBe('IEC60870 (DPI)');
    } finally {
      Engine.setUserRules({});
    }
  });
});

describe('Fragmented DNS Message', () => {
  it('a response split in IPv4 fragments raises it; a whole one and a split query do not', async () => {
    const name = (n: string) => Buffer.concat([...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
    const txtRecord = Buffer.concat([hex('c00c0010000100000e10'), u16(201), Buffer.from([200]), Buffer.alloc(200, 0x78)]);
    const msg = (id: number, flags: number, answers: number, extra: Buffer) =>
      Buffer.concat([u16(id), u16(flags), u16(1), u16(answers), u16(0), u16(0), name('www.example.org'), u16(16), u16(1), extra]);
    const query = (id: number) => msg(id, 0x0100, 0, Buffer.alloc(0));
    const answer = (id: number) => msg(id, 0x8180, 3, Buffer.concat([txtRecord, txtRecord, txtRecord]));
    // UDP header + DNS message, its checksum left 0 (allowed over IPv4)
    const dgram = (sport: number, dport: number, m: Buffer) => Buffer.concat([u16(sport), u16(dport), u16(8 + m.length), u16(0), m]);
    const frags = (src: string, dst: string, id: number, l4: Buffer, size: number) => {
      const out: Buffer[] = [];
      for (let off = 0; off < l4.length; off += size) {
        const part = l4.subarray(off, Math.min(l4.length, off + size));
        out.push(eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.UDP, id, mf: off + size < l4.length, fragOffset: off }, part)));
      }
      return out;
    };
    const flows = await replay([
      udpFrame('10.12.0.1', '10.12.1.1', 40001, 53, query(1)),
      ...frags('10.12.1.1', '10.12.0.1', 7001, dgram(53, 40001, answer(1)), 256),
      udpFrame('10.12.0.2', '10.12.1.2', 40002, 53, query(2)),
      udpFrame('10.12.1.2', '10.12.0.2', 53, 40002, answer(2)),
      ...frags('10.12.0.3', '10.12.1.3', 7003, dgram(40003, 53, msg(3, 0x0100, 0, Buffer.concat([txtRecord, txtRecord]))), 256),
    ]);
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip)!;
    expect([said(at('10.12.0.1')), at('10.12.0.1').risks.includes('Fragmented DNS Message')]).toEqual(['DNS (DPI)', true]);
    expect([said(at('10.12.0.2')), at('10.12.0.2').risks.includes('Fragmented DNS Message')]).toEqual(['DNS (DPI)', false]);
    expect(at('10.12.0.3').risks).not.toContain('Fragmented DNS Message');
  });
});

describe('packets cut by the snap length', () => {
  it('reach no dissector and do not make the flow two-way', async () => {
    const name = (n: string) => Buffer.concat([...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
    const q = Buffer.concat([u16(5), u16(0x0100), u16(1), u16(0), u16(0), u16(0), name('www.example.org'), u16(1), u16(1)]);
    const r = Buffer.concat([u16(5), u16(0x8180), u16(1), u16(1), u16(0), u16(0), name('www.example.org'), u16(1), u16(1), hex('c00c000100010000003c000405060708')]);
    const frames: { data: Buffer; cut?: number }[] = [
      { data: udpFrame('10.13.0.1', '10.13.1.1', 40001, 53, q) },
      { data: udpFrame('10.13.1.1', '10.13.0.1', 53, 40001, r), cut: 60 }, // the answer cut short
      { data: udpFrame('10.13.0.2', '10.13.1.2', 40002, 53, q) },
      { data: udpFrame('10.13.1.2', '10.13.0.2', 53, 40002, r) },
      // an SMTP greeting cut inside its first line, then the client's EHLO whole
      ...tcpSession('10.13.0.3', '10.13.1.3', 40003, 25, [[false, txt('220 mail.example.org ESMTP Postfix\r\n')], [true, txt('EHLO client.example.org\r\n')]]).map((data, i) => ({ data, cut: i === 3 ? 70 : undefined })),
    ];
    const file = join(tmp.dir, `cut-${n++}.pcap`);
    writeFileSync(file, pcap(frames.map((f, i) => ({ tsNs: sec(1700000000 + i), data: f.cut ? f.data.subarray(0, f.cut) : f.data, wirelen: f.data.length }))));
    if (process.env.FG_KEEP_CAPTURES) copyFileSync(file, join(process.env.FG_KEEP_CAPTURES, `audit25-cut.pcap`));
    const e = new Engine({ files: [file], workers: 1, flowIdleSec: 1e10, flushAtEnd: true });
    let flows: ExpiredFlow[];
    try {
      e.start();
      await e.waitDone();
      flows = e.drainExpired(1 << 16);
    } finally {
      e.close();
    }
    const at = (ip: string) => flows.find((f) => f.cli_ip === ip)!;
    expect([said(at('10.13.0.1')), at('10.13.0.1').risks]).toEqual(['DNS (DPI)', ['Unidirectional Traffic']]);
    expect([said(at('10.13.0.2')), at('10.13.0.2').risks]).toEqual(['DNS (DPI)', []]);
    expect(at('10.13.0.1').srv2cli_pkts).toBe(1); // still counted as traffic
    expect(said(at('10.13.0.3'))).not.toBe('SMTP (DPI)'); // the greeting was not read
  });
});
