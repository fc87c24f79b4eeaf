// nDPI 4.11's flow risks that do not come from one dissector's payload
// rules, checked against its source (ndpi_main.c, ndpi_utils.c,
// protocols/*.c): TCP connection issues, fully encrypted flows, suspicious
// entropy and the rest. One hand-built capture per case, replayed to its
// end (flows flushed, as ndpiReader reports them after its give-up): the
// case nDPI flags, and near misses (one detail off) it does not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, type ExpiredFlow } from '../ts/bindings/engine.js';
import { compileRules } from '../ts/services/custom-apps/index.js';
import { tlsClientHello } from './fixtures/apps.js';
import { replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, echo, eth, icmp, icmpv6, ipv4, ipv6, tcp, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { txt } from './fixtures/bytes.js';

const tmp = tempDir('fg-risks-ndpi-');
afterAll(() => tmp.cleanup());
let nfile = 0;

const C4 = '10.0.0.1', S4 = '10.0.0.2', C6 = '2001:db8::1', S6 = '2001:db8::2';
const { FIN, SYN, RST, PSH, ACK, URG } = TCPF;

/** Replays the frames to the end and returns every flow's end record. */
async function ended(frames: Buffer[]): Promise<ExpiredFlow[]> {
  return replayFrames(tmp.file(`c-${nfile++}.pcap`), frames, (e) => e.drainExpired(), { flushAtEnd: true });
}
/** The risks of the capture's only flow. */
async function risksOf(frames: Buffer[]): Promise<string[]> {
  const fl = await ended(frames);
  expect(fl).toHaveLength(1);
  return fl[0]!.risks;
}

const ip = (src: string, dst: string, proto: number, l4: Buffer) =>
  src.includes(':') ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src, dst, next: proto }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto }, l4));
/** One TCP segment src:sport → dst:dport. */
const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq = 1000, data: Buffer = Buffer.alloc(0)) =>
  ip(src, dst, IPPROTO.TCP, tcp({ sport, dport, flags, seq, ack: 1 }, data));
/** A TCP conversation between c:cp and s:sp: [from the client?, flags, payload?]. */
function convo(c: string, s: string, cp: number, sp: number, steps: [boolean, number, Buffer?][]): Buffer[] {
  const next = [1000, 5000];
  return steps.map(([fromCli, flags, data]) => {
    const d = fromCli ? 0 : 1;
    const f = fromCli ? seg(c, s, cp, sp, flags, next[d], data) : seg(s, c, sp, cp, flags, next[d], data);
    next[d] += (data?.length ?? 0) + (flags & (SYN | FIN) ? 1 : 0);
    return f;
  });
}
const handshake: [boolean, number][] = [
  [true, SYN],
  [false, SYN | ACK],
  [true, ACK],
];
const udpFrame = (src: string, dst: string, sport: number, dport: number, p: Buffer) => ip(src, dst, IPPROTO.UDP, udp({ sport, dport }, p));

// nDPI's ndpi_entropy, in single precision as nDPI sums it (by byte value).
function entropy(b: Buffer): number {
  const counts = new Array<number>(256).fill(0);
  for (const x of b) counts[x]!++;
  let e = Math.fround(0);
  const n = Math.fround(b.length);
  for (const c of counts) {
    if (!c) continue;
    const q = Math.fround(Math.fround(c) / n);
    e = Math.fround(e + Math.fround(q * Math.fround(Math.log2(Math.fround(1 / q)))));
  }
  return e;
}
/** n different byte values from `from` on, each once. */
const distinct = (n: number, from = 0x80) => Buffer.from(Array.from({ length: n }, (_, i) => (from + i) & 0xff));
/** Deterministic bytes that look random (a 32-bit LCG's high bytes). */
function noise(n: number, seed = 7): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

// ── TCP connection issues (ndpi_main.c: ndpi_connection_tracking, ndpi_check_tcp_flags) ──
describe('TCP Connection Issues', () => {
  const ISSUE = 'TCP Connection Issues';
  it('a SYN answered by RST, no payload: refused by the server, IPv4 and IPv6', async () => {
    expect(await risksOf(convo(C4, S4, 40000, 80, [[true, SYN], [false, RST | ACK]]))).toContain(ISSUE);
    expect(await risksOf(convo(C6, S6, 40001, 80, [[true, SYN], [false, RST | ACK]]))).toContain(ISSUE);
  });
  it('the client resets its own handshake before any payload: refused by the client', async () => {
    expect(await risksOf(convo(C4, S4, 40002, 443, [...handshake, [true, RST | ACK]]))).toContain(ISSUE);
  });
  it('a RST after payload was exchanged is a closed connection, not a refusal', async () => {
    const r = await risksOf(convo(C4, S4, 40003, 7777, [...handshake, [true, PSH | ACK, txt('hello')], [false, PSH | ACK, txt('world')], [true, RST | ACK]]));
    expect(r).not.toContain(ISSUE);
  });
  it('a lone RST from the lower port, its only packet: a probing attempt (nDPI direction 1)', async () => {
    expect(await risksOf([seg(S4, C4, 80, 40004, RST | ACK)])).toContain(ISSUE);
    expect(await risksOf([seg(S6, C6, 80, 40005, RST | ACK)])).toContain(ISSUE);
    // data nothing names, then one RST back: still one packet from direction 1
    const fl = await ended(convo(C4, S4, 50006, 47000, [[true, PSH | ACK, noise(40)], [false, RST | ACK]]));
    expect(fl[0]!.l7_app).toBe(0);
    expect(fl[0]!.risks).toContain(ISSUE);
  });
  it('two packets back from the lower port, or a RST from the higher one alone: no probing', async () => {
    expect(await risksOf(convo(C4, S4, 50007, 47000, [[true, PSH | ACK, noise(40)], [false, ACK], [false, RST | ACK]]))).not.toContain(ISSUE);
    expect(await risksOf([seg(C4, S4, 40008, 80, RST | ACK)])).not.toContain(ISSUE);
  });
  it('nDPI keys the flags on its port direction, not on who opened: SYN to a higher port, RST back, is no issue', async () => {
    // client 1000 → server 40000: the SYN travels in nDPI's direction 1, the RST in its direction 0
    expect(await risksOf(convo(C4, S4, 1000, 40000, [[true, SYN], [false, RST | ACK]]))).not.toContain(ISSUE);
  });
  it('a normal session with a FIN close: no issue', async () => {
    const r = await risksOf(convo(C4, S4, 40009, 7777, [...handshake, [true, PSH | ACK, txt('hi')], [false, PSH | ACK, txt('ho')], [true, FIN | ACK], [false, FIN | ACK], [true, ACK]]));
    expect(r).not.toContain(ISSUE);
  });
  it('NULL and XMAS segments, and a lone FIN from the higher port: scans', async () => {
    expect(await risksOf([seg(C4, S4, 40010, 7777, 0)])).toContain(ISSUE);
    expect(await risksOf([seg(C4, S4, 40011, 7777, FIN | PSH | URG)])).toContain(ISSUE);
    expect(await risksOf([seg(C4, S4, 40012, 7777, FIN)])).toContain(ISSUE);
    expect(await risksOf([seg(C6, S6, 40013, 7777, 0)])).toContain(ISSUE);
  });
  it('FIN from the lower port, FIN+ACK, FIN+PSH+URG+ACK: no scan', async () => {
    expect(await risksOf([seg(S4, C4, 7777, 40014, FIN)])).not.toContain(ISSUE);
    expect(await risksOf([seg(C4, S4, 40015, 7777, FIN | ACK)])).not.toContain(ISSUE);
    expect(await risksOf([seg(C4, S4, 40016, 7777, FIN | PSH | URG | ACK)])).not.toContain(ISSUE);
  });
  it('a NULL segment counts within nDPI’s 32 first packets only', async () => {
    // segments without payload: no dissector gives up on them, nDPI reads the flow up to its 32nd packet
    const data: [boolean, number][] = Array.from({ length: 28 }, (_, i) => [i % 2 === 0, ACK]);
    const base = convo(C4, S4, 40017, 7777, [...handshake, ...data]);
    expect(base).toHaveLength(31);
    expect(await risksOf([...base, seg(C4, S4, 40017, 7777, 0)])).toContain(ISSUE); // the 32nd
    const base2 = convo(C4, S4, 40018, 7777, [...handshake, ...data, [true, ACK]]);
    expect(await risksOf([...base2, seg(C4, S4, 40018, 7777, 0)])).not.toContain(ISSUE); // the 33rd
  });
});

// ── Fully encrypted (ndpi_main.c: fully_enc_heuristic, ndpi_detection_giveup) ──
describe('Fully Encrypted Flow', () => {
  const FE = 'Fully Encrypted Flow';
  const enc = noise(200);
  // the heuristic's conditions, checked on the bytes themselves
  const bits = [...enc].reduce((a, x) => a + x.toString(2).split('1').length - 1, 0);
  const printable = (x: number) => x >= 0x20 && x <= 0x7e;
  it('the payload used here passes nDPI’s tests', () => {
    expect(bits / enc.length).toBeGreaterThan(3.4);
    expect(bits / enc.length).toBeLessThan(4.6);
    expect([...enc.subarray(0, 6)].every(printable)).toBe(false);
    expect([...enc].filter(printable).length / enc.length).toBeLessThanOrEqual(0.5);
  });
  it('after the handshake, a first payload that looks random on a flow nothing names: flagged, IPv4 and IPv6', async () => {
    expect(await risksOf(convo(C4, S4, 40100, 47001, [...handshake, [true, PSH | ACK, enc]]))).toContain(FE);
    expect(await risksOf(convo(C6, S6, 40101, 47001, [...handshake, [true, PSH | ACK, enc]]))).toContain(FE);
  });
  it('without the handshake, over UDP, with printable lead bytes or eight bits a byte: not flagged', async () => {
    expect(await risksOf(convo(C4, S4, 40102, 47001, [[true, PSH | ACK, enc]]))).not.toContain(FE);
    expect(await risksOf([udpFrame(C4, S4, 40103, 47001, enc)])).not.toContain(FE);
    const lead = Buffer.concat([txt('ABCDEF'), enc]);
    expect(await risksOf(convo(C4, S4, 40104, 47001, [...handshake, [true, PSH | ACK, lead]]))).not.toContain(FE);
    expect(await risksOf(convo(C4, S4, 40105, 47001, [...handshake, [true, PSH | ACK, Buffer.alloc(200, 0xff)]]))).not.toContain(FE);
  });
  it('the bits per byte decide at 4.6, the last bytes of a length not a multiple of eight counted', async () => {
    // 88 × 0xff and 114 × 0xc0 (932 bits, none printable), then one byte: 933 / 203 = 4.596, 934 / 203 = 4.601
    const body = Buffer.from(Array.from({ length: 202 }, (_, i) => (i % 9 < 4 && i < 198 ? 0xff : 0xc0)));
    const bitsOf = (b: Buffer) => [...b].reduce((a, x) => a + x.toString(2).split('1').length - 1, 0);
    const [under, over] = [Buffer.concat([body, Buffer.from([0x01])]), Buffer.concat([body, Buffer.from([0x03])])];
    expect([bitsOf(under), bitsOf(over), under.length]).toEqual([933, 934, 203]);
    expect(await risksOf(convo(C4, S4, 40108, 47001, [...handshake, [true, PSH | ACK, under]]))).toContain(FE);
    expect(await risksOf(convo(C4, S4, 40109, 47001, [...handshake, [true, PSH | ACK, over]]))).not.toContain(FE);
  });
  it('the first payload only: random bytes after a text one are not judged', async () => {
    expect(await risksOf(convo(C4, S4, 40106, 47001, [...handshake, [true, PSH | ACK, txt('hello there')], [false, PSH | ACK, enc]]))).not.toContain(FE);
  });
  it('a flow a dissector names (TLS on its first payload) is not flagged', async () => {
    expect(await risksOf(convo(C4, S4, 40107, 443, [...handshake, [true, PSH | ACK, tlsClientHello('example.org')]]))).not.toContain(FE);
  });
});

// ── Suspicious entropy (ndpi_main.c: end of ndpi_internal_detection_process_packet; ndpi_utils.c: ndpi_entropy2risk) ──
describe('Susp Entropy', () => {
  const SE = 'Susp Entropy';
  it('entropy is computed as nDPI does: 31 distinct bytes are above 4.941, 30 below', () => {
    expect(entropy(distinct(31))).toBeGreaterThanOrEqual(4.941);
    expect(entropy(distinct(30))).toBeLessThan(4.941);
  });
  it('an unnamed UDP datagram above the bound is flagged; at 30 symbols it is not (IPv4, IPv6)', async () => {
    expect(await risksOf([udpFrame(C4, S4, 40200, 47002, distinct(31))])).toContain(SE);
    expect(await risksOf([udpFrame(C6, S6, 40201, 47002, distinct(31))])).toContain(SE);
    expect(await risksOf([udpFrame(C4, S4, 40202, 47002, distinct(30))])).not.toContain(SE);
  });
  it('near the bound, where only the whole sum decides: 4.9417 is flagged, 4.9401 is not', async () => {
    // one byte value `w` times and k - 1 others once: a collision entropy near 3, far under the bound
    const skewed = (k: number, w: number) => Buffer.concat([Buffer.alloc(w, 0x80), distinct(k - 1, 0x81)]);
    const [above, below] = [skewed(70, 36), skewed(71, 37)];
    expect(entropy(above)).toBeGreaterThanOrEqual(4.941);
    expect(entropy(above)).toBeLessThan(4.942);
    expect(entropy(below)).toBeLessThan(4.941);
    expect(entropy(below)).toBeGreaterThan(4.94);
    expect(await risksOf([udpFrame(C4, S4, 40211, 47002, above)])).toContain(SE);
    expect(await risksOf([udpFrame(C4, S4, 40212, 47002, below)])).not.toContain(SE);
  });
  it('the last packet judged decides: a later segment without payload resets it', async () => {
    const hi = distinct(64, 0x21); // printable: not a fully encrypted first packet
    expect(await risksOf(convo(C4, S4, 40203, 47002, [...handshake, [true, PSH | ACK, hi]]))).toContain(SE);
    expect(await risksOf(convo(C4, S4, 40204, 47002, [...handshake, [true, PSH | ACK, hi], [false, ACK]]))).not.toContain(SE);
  });
  it('only the first four payload packets are judged', async () => {
    const lo = txt('aaaa');
    const hi = distinct(64);
    expect(await risksOf([lo, lo, lo, hi].map((p) => udpFrame(C4, S4, 40205, 47002, p)))).toContain(SE);
    expect(await risksOf([lo, lo, lo, lo, hi].map((p) => udpFrame(C4, S4, 40206, 47002, p)))).not.toContain(SE);
  });
  it('a TLS flow is never judged (its hello has high entropy)', async () => {
    const hello = tlsClientHello('a0b1c2d3e4f5g6h7i8j9klmnopqrstuvwxyz.example.org');
    noise(32).copy(hello, 11); // its random
    expect(entropy(hello)).toBeGreaterThanOrEqual(4.941);
    expect(await risksOf(convo(C4, S4, 40207, 443, [...handshake, [true, PSH | ACK, hello]]))).not.toContain(SE);
  });
  it('ICMP: the data after the 8-byte header, on the first packet; ICMPv6 is not judged so', async () => {
    const hi = distinct(56);
    expect(entropy(hi)).toBeGreaterThanOrEqual(4.941);
    expect(await risksOf([ip(C4, S4, IPPROTO.ICMP, icmp(8, 0, echo(1, 1, hi)))])).toContain(SE);
    expect(await risksOf([ip(C4, S4, IPPROTO.ICMP, icmp(8, 0, echo(1, 1, distinct(30))))])).not.toContain(SE);
    expect(await risksOf([ip(C6, S6, IPPROTO.ICMPV6, icmpv6(128, 0, echo(1, 1, hi)))])).not.toContain(SE);
    // a second packet with high entropy does not count
    const two = [ip(C4, S4, IPPROTO.ICMP, icmp(8, 0, echo(1, 1, distinct(20)))), ip(C4, S4, IPPROTO.ICMP, icmp(8, 0, echo(1, 2, hi)))];
    expect(await risksOf(two)).not.toContain(SE);
  });
});

// ── nDPI's ip_risk lists (ndpi_main.c: ndpi_internal_detection_process_packet's
// tree check; lists from src/lib/inc_generated, data/ip-risks.tsv) ──
describe('Anonymous Subscriber and Crawler/Bot by the client’s address', () => {
  const AS = 'Anonymous Subscriber', CB = 'Crawler/Bot';
  const PUB = '93.184.216.34';
  const dg = (src: string, dst: string, sport: number, dport: number) => udpFrame(src, dst, sport, dport, txt('hello'));
  it('a client in iCloud Private Relay’s egress list talking to a public server, IPv4 and IPv6', async () => {
    expect(await risksOf([dg('104.28.28.10', PUB, 40300, 47010)])).toContain(AS); // 104.28.28.0/26
    expect(await risksOf([dg('2606:54c0::1', '2001:db8::2', 40301, 47010)])).toContain(AS); // 2606:54c0::/35, no public check over IPv6
  });
  it('an address between two listed ones, a private server, or the listed address as server: nothing', async () => {
    expect(await risksOf([dg('104.28.28.77', PUB, 40302, 47010)])).not.toContain(AS); // .76/32 and .79/32 are listed, .77 is not
    expect(await risksOf([dg('104.28.28.10', '192.168.1.5', 40303, 47010)])).not.toContain(AS);
    expect(await risksOf([dg(PUB, '104.28.28.10', 40304, 47010)])).not.toContain(AS);
  });
  it('nDPI’s client: the side above port 1024 when the other is below, whoever sent first', async () => {
    // the listed address sends first, from port 53 to a high port: nDPI's client is the other side
    expect(await risksOf([dg('104.28.28.10', PUB, 53, 47011)])).not.toContain(AS);
    expect(await risksOf([dg(PUB, '104.28.28.10', 53, 47012)])).toContain(AS);
  });
  it('a client in a crawler list (Bingbot’s 13.66.139.0/24) over TCP', async () => {
    expect(await risksOf(convo('13.66.139.5', PUB, 40305, 80, [...handshake, [true, PSH | ACK, txt('GET / HTTP/1.1\r\n\r\n')]]))).toContain(CB);
    expect(await risksOf(convo(PUB, '13.66.139.5', 40306, 80, [...handshake]))).not.toContain(CB);
  });
});

// ── Client contacted a malware host (ndpi_main.c: ndpi_fill_ip_protocol_category,
// with custom category networks loaded as ndpiReader's -c categories.txt) ──
describe('Client Contacted A Malware Host', () => {
  const MH = 'Client Contacted A Malware Host';
  beforeAll(() => Engine.setUserRules(compileRules([], { categories: { 100: { hosts: ['198.51.100.7', '2001:db8:bad::/48'] }, 101: { hosts: ['10.9.9.9'] } } })));
  afterAll(() => Engine.setUserRules({}));
  const dg = (src: string, dst: string) => udpFrame(src, dst, 40400, 47020, txt('hello'));
  it('a server in a Malware (100) network, IPv4 and IPv6', async () => {
    expect(await risksOf([dg(C4, '198.51.100.7')])).toContain(MH);
    expect(await risksOf([dg(C6, '2001:db8:bad::5')])).toContain(MH);
  });
  it('the malware address as client, a client with a category of its own, another category: nothing', async () => {
    expect(await risksOf([dg('198.51.100.7', C4)])).not.toContain(MH);
    expect(await risksOf([dg('10.9.9.9', '198.51.100.7')])).not.toContain(MH);
    expect(await risksOf([dg(C4, '10.9.9.9')])).not.toContain(MH);
  });
});

// ── DNS (protocols/dns.c): answers with TTL 0, obsolete record types, long first labels ──
describe('Minor Issues and Susp DNS Traffic (DNS)', () => {
  const MI = 'Minor Issues', SD = 'Susp DNS Traffic';
  const qname = (name: string) => Buffer.concat([...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
  const u16b = (v: number) => Buffer.from([v >> 8, v & 255]);
  const u32b = (v: number) => Buffer.from([v >>> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255]);
  const query = (name: string, id = 0x1234) => Buffer.concat([u16b(id), u16b(0x0100), u16b(1), u16b(0), u16b(0), u16b(0), qname(name), u16b(1), u16b(1)]);
  /** A response to `name` with one answer (a pointer to the question's name). */
  const answer = (name: string, type: number, ttl: number, rdata: Buffer, id = 0x1234) =>
    Buffer.concat([u16b(id), u16b(0x8180), u16b(1), u16b(1), u16b(0), u16b(0), qname(name), u16b(1), u16b(1), u16b(0xc00c), u16b(type), u16b(1), u32b(ttl), u16b(rdata.length), rdata]);
  const A = Buffer.from([93, 184, 216, 34]);
  const exchange = (c: string, s: string, port: number, q: Buffer, r: Buffer, dnsPort = 53) => [udpFrame(c, s, port, dnsPort, q), udpFrame(s, c, dnsPort, port, r)];
  it('an answer with TTL 0: Minor Issues, IPv4 and IPv6; TTL 1 is fine', async () => {
    expect(await risksOf(exchange(C4, S4, 40500, query('example.org'), answer('example.org', 1, 0, A)))).toContain(MI);
    expect(await risksOf(exchange(C6, S6, 40501, query('example.org'), answer('example.org', 1, 0, A)))).toContain(MI);
    expect(await risksOf(exchange(C4, S4, 40502, query('example.org'), answer('example.org', 1, 1, A)))).not.toContain(MI);
  });
  it('an answer of an obsolete type (NULL, 10): Susp DNS Traffic; A and SRV (33) are not', async () => {
    expect(await risksOf(exchange(C4, S4, 40503, query('example.org'), answer('example.org', 10, 60, A)))).toContain(SD);
    expect(await risksOf(exchange(C4, S4, 40504, query('example.org'), answer('example.org', 1, 60, A)))).not.toContain(SD);
    expect(await risksOf(exchange(C4, S4, 40505, query('example.org'), answer('example.org', 33, 60, A)))).not.toContain(SD);
  });
  it('a first label over 48 characters: Susp DNS Traffic; 48, a reverse lookup, a known domain or mDNS are not', async () => {
    const long = (n: number, rest = 'example.org') => `${'a1b2c3d4e5'.repeat(5).slice(0, n)}.${rest}`;
    expect(await risksOf([udpFrame(C4, S4, 40506, 53, query(long(49)))])).toContain(SD);
    expect(await risksOf([udpFrame(C6, S6, 40507, 53, query(long(49)))])).toContain(SD);
    expect(await risksOf([udpFrame(C4, S4, 40508, 53, query(long(48)))])).not.toContain(SD);
    expect(await risksOf([udpFrame(C4, S4, 40509, 53, query(long(49, 'in-addr.arpa')))])).not.toContain(SD);
    expect(await risksOf([udpFrame(C4, S4, 40510, 53, query(long(49, 's3.amazonaws.com')))])).not.toContain(SD);
    expect(await risksOf([udpFrame(C4, '224.0.0.251', 5353, 5353, query(long(49, 'local')))])).not.toContain(SD);
  });
});

// ── TLS hellos (protocols/tls.c: checkExtensions, the ESNI and padding checks) ──
describe('TLS Susp Extn, TLS Susp ESNI Usage, Obfuscated Traffic (TLS)', () => {
  const SX = 'TLS Susp Extn', ESNI = 'TLS Susp ESNI Usage', OB = 'Obfuscated Traffic';
  const u16b = (v: number) => Buffer.from([v >> 8, v & 255]);
  const u24b = (v: number) => Buffer.from([v >> 16, (v >> 8) & 255, v & 255]);
  const ext = (id: number, data: Buffer = Buffer.alloc(0)) => Buffer.concat([u16b(id), u16b(data.length), data]);
  const sni = (name: string) => ext(0, Buffer.concat([u16b(name.length + 3), Buffer.from([0]), u16b(name.length), txt(name)]));
  const alpn = ext(16, Buffer.concat([u16b(3), Buffer.from([2]), txt('h2')]));
  const versions = ext(43, Buffer.from([4, 0x03, 0x04, 0x03, 0x03]));
  const record = (type: number, body: Buffer) => {
    const hs = Buffer.concat([Buffer.from([type]), u24b(body.length), body]);
    return Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), u16b(hs.length), hs]);
  };
  /** A ClientHello with these extensions, its extension block's length given or right. */
  const clientHello = (exts: Buffer[], blockLen?: number) => {
    const e = Buffer.concat(exts);
    return record(1, Buffer.concat([u16b(0x0303), noise(32, 3), Buffer.from([0]), u16b(2), u16b(0x1301), Buffer.from([1, 0]), u16b(blockLen ?? e.length), e]));
  };
  const serverHello = (exts: Buffer[]) => {
    const e = Buffer.concat(exts);
    return record(2, Buffer.concat([u16b(0x0303), noise(32, 5), Buffer.from([0]), u16b(0x1301), Buffer.from([0]), u16b(e.length), e]));
  };
  const tlsRisks = (hello: Buffer, server?: Buffer, v6 = false, port = 40600) =>
    risksOf(convo(v6 ? C6 : C4, v6 ? S6 : S4, port, 443, [...handshake, [true, PSH | ACK, hello], ...(server ? [[false, PSH | ACK, server] as [boolean, number, Buffer]] : [])]));
  const base = [sni('example.org'), alpn, versions];
  it('the hello used here raises none of them', async () => {
    const r = await tlsRisks(clientHello(base), serverHello([ext(43, u16b(0x0304))]));
    for (const x of [SX, ESNI, OB]) expect(r).not.toContain(x);
  });
  it('a client extension id above 59 nDPI does not know (0x47e3), or DTLS’s 53 over TLS: TLS Susp Extn, IPv4 and IPv6', async () => {
    expect(await tlsRisks(clientHello([...base, ext(0x47e3, txt('x'))]))).toContain(SX);
    expect(await tlsRisks(clientHello([...base, ext(0x47e3, txt('x'))]), undefined, true, 40601)).toContain(SX);
    expect(await tlsRisks(clientHello([...base, ext(53)]), undefined, false, 40602)).toContain(SX);
  });
  it('GREASE, renegotiation_info, ALPS, ECH and IANA ids up to 59: nothing', async () => {
    expect(await tlsRisks(clientHello([ext(0x0a0a), ...base, ext(65281, Buffer.from([0])), ext(17513), ext(65037), ext(59)]), undefined, false, 40603)).not.toContain(SX);
  });
  it('an extension running past the hello (its block length still inside it): TLS Susp Extn', async () => {
    const exts = [...base, Buffer.concat([u16b(21), u16b(40), Buffer.alloc(4)])]; // says 40 bytes, has 4
    expect(await tlsRisks(clientHello(exts), undefined, false, 40604)).toContain(SX);
  });
  it('the server’s extensions are checked by id too', async () => {
    expect(await tlsRisks(clientHello(base), serverHello([ext(43, u16b(0x0304)), ext(0x47e3)]), false, 40605)).toContain(SX);
  });
  it('an encrypted SNI beside a clear one: TLS Susp ESNI Usage; the ESNI alone is not', async () => {
    const esni = ext(0xffce, Buffer.concat([u16b(0x1301), u16b(0x001d), u16b(32), noise(32, 9), u16b(32), noise(32, 11), u16b(16), noise(16, 13)]));
    expect(await tlsRisks(clientHello([sni('example.org'), esni, versions]), undefined, false, 40606)).toContain(ESNI);
    expect(await tlsRisks(clientHello([sni('example.org'), esni, versions]), undefined, true, 40607)).toContain(ESNI);
    expect(await tlsRisks(clientHello([esni, versions]), undefined, false, 40608)).not.toContain(ESNI);
  });
  it('a padding extension over 500 bytes: Obfuscated Traffic; 500 is not', async () => {
    expect(await tlsRisks(clientHello([...base, ext(21, Buffer.alloc(501))]), undefined, false, 40609)).toContain(OB);
    expect(await tlsRisks(clientHello([...base, ext(21, Buffer.alloc(501))]), undefined, true, 40610)).toContain(OB);
    expect(await tlsRisks(clientHello([...base, ext(21, Buffer.alloc(500))]), undefined, false, 40611)).not.toContain(OB);
  });
  it('a hello whose long padding runs over several segments (nDPI reads it gathered): Obfuscated Traffic; a short one cut so is not', async () => {
    // segments of the hello at bytes [0, 200), [200, 1200), [1200, end)
    const cut = async (hello: Buffer, port: number) => {
      const at = [0, 200, 1200, hello.length].filter((x, i, a) => i === 0 || x > a[i - 1]!);
      const parts = at.slice(1).map((end, i) => [true, PSH | ACK, hello.subarray(at[i], end)] as [boolean, number, Buffer]);
      return risksOf(convo(C4, S4, port, 443, [...handshake, ...parts]));
    };
    const long = clientHello([...base, ext(21, Buffer.alloc(3000))]), short = clientHello([...base, ext(21, Buffer.alloc(400))]);
    expect(long.length).toBeGreaterThan(3000);
    expect(await cut(long, 40612)).toContain(OB);
    expect(await cut(short, 40613)).not.toContain(OB);
  });
  it('a hello in two segments is judged whole, as nDPI reassembles it: no SNI with ALPN h2 gives Missing SNI and ALPN/SNI Mismatch, wherever its padding ends', async () => {
    const MS = 'Missing SNI TLS Extn', AM = 'ALPN/SNI Mismatch';
    const cut = async (hello: Buffer, port: number) =>
      risksOf(convo(C4, S4, port, 443, [...handshake, [true, PSH | ACK, hello.subarray(0, 150)], [true, PSH | ACK, hello.subarray(150)]]));
    const last = await cut(clientHello([alpn, versions, ext(21, Buffer.alloc(2000))]), 40614);
    expect(last).toEqual(expect.arrayContaining([MS, AM, OB]));
    // an extension after the padding (checked with ndpiReader 4.11: the same three)
    const inner = await cut(clientHello([alpn, versions, ext(21, Buffer.alloc(2000)), ext(23)]), 40615);
    expect(inner).toEqual(expect.arrayContaining([MS, AM, OB]));
    // whole in one segment, the same hello raises the same three
    expect(await tlsRisks(clientHello([alpn, versions, ext(21, Buffer.alloc(2000))]), undefined, false, 40616)).toEqual(expect.arrayContaining([MS, AM, OB]));
  });
});

// ── A host pattern's own category (ndpi_automa_match_string_subprotocol) and nDPI's
// built-in risk exceptions on names (ndpi_add_domain_risk_exceptions, searched as
// ndpi_check_hostname_risk_exception does) ──
describe('host pattern categories and built-in domain risk exceptions', () => {
  const DGA = 'Susp DGA Domain name', UNI = 'Unidirectional Traffic', SE = 'Susp Entropy';
  const u16b = (v: number) => Buffer.from([v >> 8, v & 255]);
  const qname = (name: string) => Buffer.concat([...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), txt(l)])), Buffer.from([0])]);
  const query = (name: string) => Buffer.concat([u16b(0x4321), u16b(0x0100), u16b(1), u16b(0), u16b(0), u16b(0), qname(name), u16b(1), u16b(1)]);
  let port = 40700;
  /** The end record of a lone DNS query for `name` (no answer: one-way). */
  const dnsQuery = async (name: string, v6 = false) => (await ended([udpFrame(v6 ? C6 : C4, v6 ? S6 : S4, port++, 53, query(name))]))[0]!;
  const sni = async (name: string) => {
    const hello = Buffer.from(tlsClientHello(name));
    return (await ended(convo(C4, S4, port++, 443, [...handshake, [true, PSH | ACK, hello]])))[0]!;
  };
  it('a flow a pattern names takes its category: googlesyndication.com is Google in Advertisement, google.com Web; DNS keeps Network', async () => {
    expect((await sni('pagead2.googlesyndication.com')).l7_category).toBe(101);
    expect((await sni('www.google.com')).l7_category).toBe(5);
    expect((await dnsQuery('pagead2.googlesyndication.com')).l7_category).toBe(14);
  });
  it('the category decides nDPI’s entropy risk on a flow named by DPI: Web is judged, Advertisement is not', async () => {
    const get = (host: string) => txt(`GET /${'a0b1c2d3e4f5g6h7i8j9kAlBmCnDoEpFqGrHsItJuKvLwMxNyOzP'}?q=${'QRSTUVWXYZ'} HTTP/1.1\r\nHost: ${host}\r\nAccept: */*\r\n\r\n`);
    expect(entropy(get('www.google.com'))).toBeGreaterThanOrEqual(4.941);
    const http = async (host: string) => (await ended(convo(C4, S4, port++, 80, [...handshake, [true, PSH | ACK, get(host)]])))[0]!.risks;
    expect(await http('www.google.com')).toContain(SE);
    expect(await http('pagead2.googlesyndication.com')).not.toContain(SE);
  });
  it('a machine-looking name is flagged, under akamaihd.net it is not; the other risks stay (IPv4, IPv6)', async () => {
    expect((await dnsQuery('bbcbedxhgjmdobdprmen.example.net')).risks).toEqual(expect.arrayContaining([DGA, UNI]));
    for (const v6 of [false, true]) {
      const r = (await dnsQuery('bbcbedxhgjmdobdprmen.akamaihd.net', v6)).risks;
      expect(r).not.toContain(DGA);
      expect(r).toContain(UNI);
    }
  });
  it('a pattern found where nDPI’s handler refuses it leaves no risk at all: “.local” and “.work” inside a name, a ConnCheck pattern after a letter', async () => {
    expect((await dnsQuery('bbcbedxhgjmdobdprmen.work')).risks).toEqual([]);
    expect((await dnsQuery('bbcbedxhgjmdobdprmen.local')).risks).toEqual([]);
    expect((await dnsQuery('xconnectivitycheck.gstatic.com')).risks).toEqual([]);
    expect((await dnsQuery('xconnectivity.gstatic.com')).risks).toContain(UNI);
  });
});
