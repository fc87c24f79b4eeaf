// Audit 24: random and near-miss traffic scored against nDPI 4.11 itself
// (its ndpiReader, built from its source, on 20,000 flows of random payload
// shapes on random and well-known ports; 99.98 % agreed before these
// fixes). Each case below was also run through that ndpiReader; the
// expectations are its answers. Hand-built frames:
// - a port only the operator's rules give to one of nDPI's own protocols
//   (tcp:3000@ntop, udp:5062@SIP, tcp:81@HTTP: the port tree node's
//   customUserProto) stops the flow's first packet in ndpi_do_guess: no
//   dissector and no entropy see it;
// - nDPI guesses by port only with both ports non-zero, the server's port
//   first, then the client's (ndpi_get_guessed_protocol_id);
// - IMO: two one-byte datagrams in a row with the same byte; Gnutella's
//   NEONet exchange (a message id echoed by the second packet);
// - the BitTorrent cache keyed as nDPI keys it (IPv6 addresses through its
//   weak ndpi_quick_hash64, so colliding addresses share entries), an entry
//   found only by a flow whose last packet is no earlier than its writing;
// - FTP_CONTROL's request-then-reply stages, with the password nDPI
//   shares with POP3;
// - TLS's own guess for a flow whose ports give none: a record that looks
//   like TLS (ndpi_looks_like_tls) makes it "TLS (Match by port)" at give-up.

import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { Engine, type ExpiredFlow, l7Name } from '../ts/bindings/engine.js';
import { compileRules, loadProtosText } from '../ts/services/custom-apps/index.js';
import { join } from 'node:path';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp } from './fixtures/frames.js';
import { replayFrames, tcpSession, udpFrame } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';
import { hex, txt } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-24-');
afterAll(() => tmp.cleanup());
afterEach(() => Engine.setUserRules({}));

let n = 0;
/** Replays the frames (1 s apart) as one capture, flushed at the end: every flow's final record. */
async function replay(frames: Buffer[]): Promise<ExpiredFlow[]> {
  const file = join(tmp.dir, `c-${n++}.pcap`);
  const flows = await replayFrames(file, frames, (e) => e.drainExpired(1 << 16), { flushAtEnd: true, workers: 1 });
  return flows;
}
const byPort = (flows: ExpiredFlow[], cport: number) => flows.find((f) => f.cli_port === cport || f.srv_port === cport)!;
const said = (f: ExpiredFlow) => `${l7Name(f.l7_master, f.l7_app)} (${f.confidence})`;

/** TCP segments from the client with no handshake before them (a flow seen mid-stream). */
function midStream(cli: string, srv: string, cport: number, sport: number, payloads: Buffer[]): Buffer[] {
  let seq = 1000;
  return payloads.map((p) => {
    const l4 = tcp({ sport: cport, dport: sport, flags: TCPF.PSH | TCPF.ACK, seq, ack: 1 }, p);
    seq += p.length;
    return cli.includes(':') ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: cli, dst: srv, next: IPPROTO.TCP }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: cli, dst: srv, proto: IPPROTO.TCP }, l4));
  });
}
const udps = (cli: string, srv: string, cport: number, sport: number, payloads: [boolean, Buffer][]) =>
  payloads.map(([c, p]) => (c ? udpFrame(cli, srv, cport, sport, p) : udpFrame(srv, cli, sport, cport, p)));

// 64 bytes of 58 distinct values: entropy 5.8 bits, above nDPI's 4.941 plain-text bound
const NOISE = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 53 + 7) & 0xff));
const INVITE = txt('INVITE sip:bob@example.org SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5062\r\nFrom: <sip:alice@example.org>\r\nTo: <sip:bob@example.org>\r\nCall-ID: 1@x\r\nCSeq: 1 INVITE\r\n\r\n');
const GET = txt('GET / HTTP/1.1\r\nHost: www.example.org\r\nUser-Agent: t/1\r\n\r\n');
const RULES = 'tcp:3000@ntop\nudp:5062@SIP\ntcp:81@HTTP\n';
const useRules = (text: string) => {
  const p = loadProtosText(text);
  Engine.setUserRules(compileRules(p.apps, { riskMasks: p.riskMasks }));
};

describe('a port only the operator gives to an nDPI protocol (ndpi_do_guess)', () => {
  it('the first packet reaches no dissector and no entropy check; the next ones do', async () => {
    useRules(RULES);
    const flows = await replay([
      ...midStream('10.0.1.1', '10.0.2.1', 40001, 3000, [NOISE]),
      ...midStream('10.0.1.2', '10.0.2.2', 40002, 3001, [NOISE]),
      ...midStream('10.0.1.3', '10.0.2.3', 40003, 3000, [NOISE, NOISE]),
      ...udps('10.0.1.4', '10.0.2.4', 40004, 5062, [[true, INVITE]]),
      ...udps('10.0.1.5', '10.0.2.5', 40005, 5062, [[true, INVITE], [true, INVITE]]),
      ...udps('10.0.1.6', '10.0.2.6', 40006, 5060, [[true, INVITE]]),
      ...midStream('10.0.1.7', '10.0.2.7', 40007, 81, [GET]),
      ...tcpSession('10.0.1.8', '10.0.2.8', 40008, 81, [[true, GET]]),
      ...udps('2001:db8::9', '2001:db8::a', 40009, 5062, [[true, INVITE]]),
    ]);
    const one = byPort(flows, 40001);
    expect(said(one)).toBe('ntop (Match by port)');
    expect(one.risks).not.toContain('Susp Entropy');
    expect(byPort(flows, 40002).risks).toContain('Susp Entropy'); // no rule on 3001: judged
    expect(byPort(flows, 40003).risks).toContain('Susp Entropy'); // its second packet is judged
    expect(said(byPort(flows, 40004))).toBe('SIP (Match by port)');
    expect(said(byPort(flows, 40005))).toBe('SIP (DPI)');
    expect(said(byPort(flows, 40006))).toBe('SIP (DPI)'); // 5060 is SIP's own port: no rule of the operator's
    expect(said(byPort(flows, 40007))).toBe('HTTP (Match by port)');
    expect(said(byPort(flows, 40008))).toBe('HTTP (DPI)'); // the SYN was the packet stopped
    expect(said(byPort(flows, 40009))).toBe('SIP (Match by port)');
  });

  it('without the rules the same first packets are dissected', async () => {
    const flows = await replay([...udps('10.0.1.4', '10.0.2.4', 40004, 5062, [[true, INVITE]]), ...midStream('10.0.1.7', '10.0.2.7', 40007, 81, [GET])]);
    expect(said(byPort(flows, 40004))).toBe('SIP (DPI)');
    expect(said(byPort(flows, 40007))).toBe('HTTP (DPI)');
  });
});

describe("nDPI's guess by port (ndpi_get_guessed_protocol_id)", () => {
  it('needs both ports non-zero', async () => {
    const flows = await replay([
      ...udps('10.0.1.9', '10.0.2.9', 0, 53, [[true, NOISE]]),
      ...udps('10.0.1.10', '10.0.2.10', 53, 0, [[true, NOISE]]),
      ...udps('10.0.1.12', '10.0.2.12', 40012, 53, [[true, NOISE]]),
    ]);
    expect(said(byPort(flows, 0))).toBe('Unknown (Unknown)');
    expect(flows.filter((f) => f.cli_port === 0 || f.srv_port === 0).map(said)).toEqual(['Unknown (Unknown)', 'Unknown (Unknown)']);
    expect(said(byPort(flows, 40012))).toBe('DNS (Match by port)');
  });

  it("asks the server's port first, a rule on the client's port giving way to a default there", async () => {
    useRules('tcp:40020@HTTP\nudp:40021@SIP\n');
    const flows = await replay([
      ...midStream('10.0.1.20', '10.0.2.20', 40020, 3306, [NOISE]), // server 3306: MySQL's
      ...udps('10.0.1.21', '10.0.2.21', 40021, 39999, [[true, NOISE]]), // server port with no default: the client's rule
    ]);
    expect(said(byPort(flows, 40020))).toBe('MySQL (Match by port)');
    expect(said(byPort(flows, 40021))).toBe('SIP (Match by port)');
  });
});

describe('IMO: two one-byte datagrams in a row with the same byte (imo.c)', () => {
  it('either direction, after another one-byte datagram, IPv4 and IPv6; not with a longer one between', async () => {
    const A = hex('41'), B = hex('42');
    const flows = await replay([
      ...udps('10.0.3.1', '10.0.4.1', 41001, 5004, [[true, A], [true, A], [true, NOISE]]),
      ...udps('10.0.3.2', '10.0.4.2', 41002, 5004, [[true, A], [false, A]]),
      ...udps('10.0.3.3', '10.0.4.3', 41003, 5004, [[true, A], [true, B], [true, B]]),
      ...udps('10.0.3.4', '10.0.4.4', 41004, 5004, [[true, A], [true, txt('AB')], [true, A]]),
      ...udps('2001:db8::3:5', '2001:db8::4:5', 41005, 5004, [[true, B], [false, B]]),
      ...udps('10.0.3.6', '10.0.4.6', 41006, 5004, [[true, A], [true, B]]),
    ]);
    expect(said(byPort(flows, 41001))).toBe('IMO (DPI)');
    expect(said(byPort(flows, 41002))).toBe('IMO (DPI)');
    expect(said(byPort(flows, 41003))).toBe('IMO (DPI)');
    expect(said(byPort(flows, 41004))).not.toBe('IMO (DPI)');
    expect(said(byPort(flows, 41005))).toBe('IMO (DPI)');
    expect(said(byPort(flows, 41006))).not.toBe('IMO (DPI)');
  });
});

describe("Gnutella's NEONet exchange (gnutella.c)", () => {
  // bytes 4, 6 and 8 of the first packet come back as bytes 0, 2 and 4 of the second
  const first = (len: number) => {
    const b = Buffer.alloc(len, 0x5a);
    b[4] = 0x11, b[6] = 0x22, b[8] = 0x33;
    return b;
  };
  const echo = (len: number, x = 0x11) => {
    const b = Buffer.alloc(len, 0xa5);
    b[0] = x, b[2] = 0x22, b[4] = 0x33;
    return b;
  };
  it('the same way 33 or 22 bytes, the other way 10 or 75; ports >= 1024; the id must match', async () => {
    const flows = await replay([
      ...tcpSession('10.0.5.1', '10.0.6.1', 42001, 42101, [[true, first(11)], [true, echo(33)]]),
      ...tcpSession('10.0.5.2', '10.0.6.2', 42002, 42102, [[true, first(37)], [false, echo(10)]]),
      ...tcpSession('2001:db8::5:3', '2001:db8::6:3', 42003, 42103, [[true, first(33)], [false, echo(75)]]),
      ...tcpSession('10.0.5.4', '10.0.6.4', 42004, 42104, [[true, first(11)], [false, echo(33)]]), // wrong size that way
      ...tcpSession('10.0.5.5', '10.0.6.5', 42005, 42105, [[true, first(11)], [true, echo(22, 0x12)]]), // id differs
      ...tcpSession('10.0.5.6', '10.0.6.6', 42006, 1000, [[true, first(11)], [true, echo(22)]]), // a port below 1024
    ]);
    expect(said(byPort(flows, 42001))).toBe('Gnutella (DPI)');
    expect(said(byPort(flows, 42002))).toBe('Gnutella (DPI)');
    expect(said(byPort(flows, 42003))).toBe('Gnutella (DPI)');
    for (const p of [42004, 42005, 42006]) expect(said(byPort(flows, p))).not.toBe('Gnutella (DPI)');
  });
});

describe("FTP_CONTROL's request and reply stages (ftp_control.c)", () => {
  const G: [boolean, Buffer] = [false, txt('220 ProFTPD Server ready\r\n')];
  const c = (s: string): [boolean, Buffer] => [true, txt(s)];
  const s = (t: string): [boolean, Buffer] => [false, txt(t)];
  it('named on a reply once a password was sent or a login failed; USER raises the credentials risk anywhere', async () => {
    const flows = await replay([
      ...tcpSession('10.0.11.1', '10.0.12.1', 46001, 21, [G, c('USER bob\r\n'), s('331 Password required\r\n'), c('PASS secret\r\n'), s('230 Logged in\r\n')]),
      ...tcpSession('10.0.11.2', '10.0.12.2', 46002, 21, [G, c('AUTH TLS\r\n'), s('234 AUTH TLS ok\r\n')]),
      ...tcpSession('10.0.11.3', '10.0.12.3', 46003, 21, [G, c('USER bob\r\n'), s('331 Password required\r\n')]),
      ...tcpSession('10.0.11.4', '10.0.12.4', 46004, 2121, [G, c('USER bob\r\n'), s('331 Password required\r\n')]),
      ...tcpSession('10.0.11.5', '10.0.12.5', 46005, 2121, [G, c('USER bob\r\n'), s('530 Login incorrect\r\n')]),
      ...tcpSession('10.0.11.6', '10.0.12.6', 46006, 25, [G, c('USER bob\r\n'), s('331 Password required\r\n'), c('PASS secret\r\n'), s('230 Logged in\r\n')]),
      // lower case: FTP's own list takes "user" and "pass" as requests only; POP3's reading of "pass" sets the password nDPI shares
      ...tcpSession('10.0.11.7', '10.0.12.7', 46007, 2121, [G, c('user bob\r\n'), s('331 Password required\r\n'), c('pass secret\r\n'), s('230 Logged in\r\n')]),
      ...tcpSession('10.0.11.8', '10.0.12.8', 46008, 2121, [s('USER bob\r\n'), c('200 ok\r\n')]),
      // the password comes after the 8th payload packet
      ...tcpSession('2001:db8::b:9', '2001:db8::c:9', 46009, 2121, [G, c('NOOP\r\n'), s('200 ok\r\n'), c('NOOP\r\n'), s('200 ok\r\n'), c('NOOP\r\n'), s('200 ok\r\n'), c('PASS x\r\n'), s('230 ok\r\n')]),
      ...tcpSession('10.0.11.10', '10.0.12.10', 46010, 2121, [G, c('PASS \r\n'), s('230 ok\r\n')]), // an empty password
      ...tcpSession('10.0.11.11', '10.0.12.11', 46011, 2121, [G, c('USER bob\r\n'), c('PASS secret\r\n'), s('230 ok\r\n')]),
    ]);
    const want: [number, string, boolean][] = [
      [46001, 'FTP_CONTROL (DPI)', true], [46002, 'FTPS (DPI)', false], [46003, 'FTP_CONTROL (Match by port)', true],
      [46004, 'Unknown (Unknown)', true], [46005, 'FTP_CONTROL (DPI)', true], [46006, 'SMTP (Match by port)', true],
      [46007, 'FTP_CONTROL (DPI)', true], [46008, 'Unknown (Unknown)', true], [46009, 'Unknown (Unknown)', true],
      [46010, 'Unknown (Unknown)', true], [46011, 'FTP_CONTROL (DPI)', true],
    ];
    for (const [port, name, creds] of want) {
      const f = byPort(flows, port);
      expect([port, said(f)]).toEqual([port, name]);
      expect([port, f.risks.includes('Clear-Text Credentials')]).toEqual([port, creds]);
    }
  });
});

describe('TLS as the guess of a flow whose ports give none (tls.c: ndpi_looks_like_tls)', () => {
  const N = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 53 + 7) & 0xff));
  it('an Application Data record under 16384 bytes or a well-framed handshake block; not past the port guess', async () => {
    const app = Buffer.concat([hex('1704000037'), N.subarray(0, 120)]); // a 55-byte record, then other bytes
    const big = Buffer.concat([hex('1703034000'), N.subarray(0, 100)]); // 16384 announced
    const hs = Buffer.concat([hex('1699990008'), hex('05000004'), N.subarray(0, 40)]); // one block of type 5, 4 bytes
    const bad = Buffer.concat([hex('1699990008'), hex('05010004'), N.subarray(0, 40)]); // its length's high byte not 0
    const flows = await replay([
      ...tcpSession('10.0.7.1', '10.0.8.1', 43001, 4789, [[true, app]]),
      ...tcpSession('10.0.7.2', '10.0.8.2', 43002, 3306, [[true, app]]),
      ...tcpSession('10.0.7.3', '10.0.8.3', 43003, 4789, [[true, big]]),
      ...tcpSession('10.0.7.4', '10.0.8.4', 43004, 4789, [[true, hs]]),
      ...tcpSession('2001:db8::7:5', '2001:db8::8:5', 43005, 4789, [[true, app]]),
      ...tcpSession('10.0.7.6', '10.0.8.6', 43006, 4789, [[true, bad]]),
    ]);
    expect(said(byPort(flows, 43001))).toBe('TLS (Match by port)');
    expect(said(byPort(flows, 43002))).toBe('MySQL (Match by port)');
    expect(said(byPort(flows, 43003))).toBe('Unknown (Unknown)');
    expect(said(byPort(flows, 43004))).toBe('TLS (Match by port)');
    expect(said(byPort(flows, 43005))).toBe('TLS (Match by port)');
    expect(said(byPort(flows, 43006))).toBe('Unknown (Unknown)');
  });
});

describe("the BitTorrent cache, keyed as nDPI keys it", () => {
  // fd01:…:1000:17d3, …:1995 and …:1511 hash alike in ndpi_quick_hash64 (31 * 0x17 + (int8)0xd3 = 668 = 31 * 0x19 + (int8)0x95 = 31 * 0x15 + 0x11)
  const a = (side: number, tail: string) => `fd01:2345:6789:${side}:aaaa:bbbb:1000:${tail}`;
  const bt = Buffer.concat([hex('13'), txt('BitTorrent protocol'), Buffer.alloc(8), Buffer.from(Array.from({ length: 20 }, (_, i) => i)), txt('-UT3530-'), Buffer.alloc(12)]);
  it('colliding IPv6 peers share an entry; a flow that ended before the entry was written does not find it', async () => {
    const flows = await replay([
      ...udps(a(1, '1511'), a(2, '1511'), 24700, 24701, [[true, NOISE]]), // before the BitTorrent flow
      ...tcpSession(a(1, '17d3'), a(2, '17d3'), 50000, 51413, [[true, bt]]),
      ...udps(a(1, '1995'), a(2, '1995'), 53666, 22144, [[true, NOISE]]),
      ...udps(a(1, '1996'), a(2, '1996'), 53667, 22145, [[true, NOISE]]),
    ]);
    expect(said(byPort(flows, 50000))).toBe('BitTorrent (DPI)');
    expect(said(byPort(flows, 53666))).toBe('BitTorrent (DPI (partial cache))');
    expect(said(byPort(flows, 24700))).toBe('Unknown (Unknown)');
    expect(said(byPort(flows, 53667))).toBe('Unknown (Unknown)');
  });
});
