// Audit 8: DNS, mDNS and LLMNR against nDPI 4.11 (dns.c, the only dissector
// of the three). One hand-built flow per case; each difference fixed has a
// case nDPI accepts and a near miss it does not. Messages follow RFC 1035
// §4.1 (header: id, flags QR|opcode|AA|TC|RD|RA|Z|rcode, QDCOUNT, ANCOUNT,
// NSCOUNT, ARCOUNT; questions: name, type, class; records: name, type,
// class, TTL, RDLENGTH, RDATA), §4.2.2 (TCP: a 2-byte length first),
// RFC 6762 (mDNS: port 5353, 224.0.0.251 / ff02::fb) and RFC 4795 (LLMNR:
// port 5355, 224.0.0.252 / ff02::1:3).
import { describe, expect, it } from 'vitest';

import { txt, u16, u32 } from './fixtures/bytes.js';
import { classifier, flowRunner, udpClassifierAt } from './fixtures/dissect.js';

const bytes = (...b: number[]) => Buffer.from(b);
const classify = classifier('fg-dissectors-audit8-');
const run = flowRunner('fg-dissectors-audit8-run-');
const at = udpClassifierAt('fg-dissectors-audit8-at-');

// A name as labels (RFC 1035 §3.1): length byte, bytes; the root label 0.
const name = (...labels: (string | Buffer)[]) =>
  Buffer.concat([...labels.map((l) => (typeof l === 'string' ? txt(l) : l)).map((l) => Buffer.concat([bytes(l.length), l])), bytes(0)]);
// The 12-byte header.
const header = (flags: number, qd: number, an = 0, ns = 0, ar = 0, id = 0x3c5a) => Buffer.concat([u16(id), u16(flags), u16(qd), u16(an), u16(ns), u16(ar)]);
// A question: name, QTYPE, QCLASS IN.
const question = (n: Buffer, type = 1) => Buffer.concat([n, u16(type), u16(1)]);
// A record: name, TYPE, CLASS, TTL, RDLENGTH, RDATA.
const record = (n: Buffer, type: number, rdata: Buffer, cls = 1, ttl = 300) => Buffer.concat([n, u16(type), u16(cls), u32(ttl), u16(rdata.length), rdata]);
const ptrTo = (off: number) => bytes(0xc0 | (off >> 8), off & 0xff);
const tcpFramed = (m: Buffer) => Buffer.concat([u16(m.length), m]);

// A near miss is not named by DPI (the replay ends with the flow still under
// inspection, so nDPI's port guess need not show).

// Flags: a standard query asking recursion (RD), mDNS/LLMNR queries (all
// zero), a standard response (QR, RD, RA), an authoritative one (QR, AA).
const QUERY = 0x0100, PLAIN = 0x0000, RESPONSE = 0x8180, AUTH_RESPONSE = 0x8400;

const query = (flags: number, ...labels: string[]) => Buffer.concat([header(flags, 1), question(name(...labels))]);
const answerA = (flags: number, labels: string[], ip: number[]) =>
  Buffer.concat([header(flags, 1, 1), question(name(...labels)), record(ptrTo(12), 1, bytes(...ip))]);

describe('audit 8: DNS names the flow by the query name, whatever the port', () => {
  it('mDNS and LLMNR queries for an application name are DNS.app (nDPI gives the app the master DNS)', async () => {
    expect(await at('192.168.1.10', '224.0.0.251', 5353, 5353, [query(PLAIN, 'www', 'google', 'com')])).toBe('DNS.Google (DPI)');
    expect(await at('192.168.1.10', '224.0.0.251', 5353, 5353, [query(PLAIN, 'printer', 'local')])).toBe('MDNS (DPI)');
    expect(await at('192.168.1.10', '224.0.0.252', 50100, 5355, [query(PLAIN, 'www', 'google', 'com')])).toBe('DNS.Google (DPI)');
    expect(await at('192.168.1.10', '224.0.0.252', 50101, 5355, [query(PLAIN, 'fileserver')])).toBe('LLMNR (DPI)');
    expect(await at('fe80::10', 'ff02::fb', 5353, 5353, [query(PLAIN, 'apple', 'com')])).toBe('DNS.Apple (DPI)');
    expect(await at('fe80::10', 'ff02::fb', 5353, 5353, [query(PLAIN, 'printer', 'local')])).toBe('MDNS (DPI)');
  });

  it('the source port names a flow before the destination port (53 → 5353 is DNS, 5353 → 53 is mDNS)', async () => {
    expect(await classify('udp', 53, 5353, [query(PLAIN, 'host', 'example')], [true])).toBe('DNS (DPI)');
    expect(await classify('udp', 5353, 53, [query(PLAIN, 'host', 'example')], [true])).toBe('MDNS (DPI)');
  });

  it('a first question that is a pointer or runs out of the packet leaves no name: the flow is plain DNS', async () => {
    // mDNS question pointing back (nDPI reads no pointer in a question): DNS, not MDNS
    const pointed = Buffer.concat([header(PLAIN, 1), ptrTo(12), u16(1), u16(1)]);
    expect(await at('192.168.1.10', '224.0.0.251', 5353, 5353, [pointed])).toBe('DNS (DPI)');
    expect(await at('192.168.1.10', '224.0.0.251', 5353, 5353, [query(PLAIN, 'tv', 'local')])).toBe('MDNS (DPI)');
    // a response with a question, an answer and an additional record, its query
    // missed: its source port names it first (5353: mDNS), with no additional record not
    const ans = record(name('tv', 'local'), 1, bytes(192, 168, 1, 20));
    const withAr = Buffer.concat([header(AUTH_RESPONSE, 1, 1, 0, 1), ptrTo(12), u16(1), u16(1), ans, ans]);
    const withoutAr = Buffer.concat([header(AUTH_RESPONSE, 1, 1), ptrTo(12), u16(1), u16(1), ans]);
    expect(await at('192.168.1.20', '224.0.0.251', 5353, 5353, [withAr])).toBe('MDNS (DPI)');
    expect(await at('192.168.1.20', '224.0.0.251', 5353, 5353, [withoutAr])).toBe('DNS (DPI)');
    expect(await at('fe80::20', 'ff02::fb', 5353, 5353, [withAr])).toBe('MDNS (DPI)');
    // LLMNR keeps its name without a name
    expect(await at('192.168.1.10', '224.0.0.252', 50102, 5355, [pointed])).toBe('LLMNR (DPI)');
  });
});

describe('audit 8: which packets nDPI reads', () => {
  it('port 5355 only as the destination: an LLMNR response (unicast from 5355, RFC 4795 §2.3) is not read', async () => {
    const reply = answerA(0x8000, ['fileserver'], [192, 168, 1, 20]);
    expect(await at('192.168.1.20', '192.168.1.10', 5355, 50110, [reply])).not.toBe('LLMNR (DPI)');
    expect(await at('fe80::20', 'fe80::10', 5355, 50111, [reply])).not.toBe('LLMNR (DPI)');
    expect(await at('192.168.1.10', '224.0.0.252', 50112, 5355, [query(PLAIN, 'fileserver')])).toBe('LLMNR (DPI)');
  });

  it('TCP: every segment is read past 2 bytes, so a message split from its length is read from its third byte', async () => {
    const msg = query(QUERY, 'www', 'google', 'com');
    expect(await classify('tcp', 50120, 53, [tcpFramed(msg)], [true])).toBe('DNS.Google (DPI)');
    // the length alone waits; the message then read at offset 2 has a header of
    // other fields and no name: plain DNS
    expect(await classify('tcp', 50121, 53, [u16(msg.length), msg], [true, true])).toBe('DNS (DPI)');
    expect(await classify('tcp', 50122, 53, [u16(msg.length), msg], [true, true], { v6: true })).toBe('DNS (DPI)');
  });
});

describe('audit 8: mDNS and LLMNR messages sent to a unicast address', () => {
  // An mDNS response with its question (RFC 6762 §6 allows it) and an answer.
  const mdnsAnswer = answerA(AUTH_RESPONSE, ['tv', 'local'], [192, 168, 1, 20]);
  it('a message with flags and a question to port 5353 is only taken towards 224.0.0.251 / ff02::fb', async () => {
    expect(await at('192.168.1.20', '224.0.0.251', 5353, 5353, [mdnsAnswer])).toBe('MDNS (DPI)');
    expect(await at('192.168.1.20', '192.168.1.10', 5353, 5353, [mdnsAnswer])).not.toBe('MDNS (DPI)');
    expect(await at('fe80::20', 'ff02::fb', 5353, 5353, [mdnsAnswer])).toBe('MDNS (DPI)');
    expect(await at('fe80::20', 'fe80::10', 5353, 5353, [mdnsAnswer])).not.toBe('MDNS (DPI)');
    // a unicast query with all flags zero is taken (RFC 6762 §5.5 one-shot unicast)
    expect(await at('192.168.1.10', '192.168.1.20', 50103, 5353, [query(PLAIN, 'tv', 'local')])).toBe('MDNS (DPI)');
  });

  it('an LLMNR query with a flag set is only taken towards 224.0.0.252 / ff02::1:3', async () => {
    const conflict = query(0x0400, 'fileserver'); // the C bit (RFC 4795 §2.1.1)
    expect(await at('192.168.1.10', '224.0.0.252', 50104, 5355, [conflict])).toBe('LLMNR (DPI)');
    expect(await at('192.168.1.10', '192.168.1.20', 50105, 5355, [conflict])).not.toBe('LLMNR (DPI)');
    expect(await at('fe80::10', 'ff02::1:3', 50106, 5355, [conflict])).toBe('LLMNR (DPI)');
    expect(await at('fe80::10', 'fe80::20', 50107, 5355, [conflict])).not.toBe('LLMNR (DPI)');
  });
});

describe('audit 8: the header checks nDPI applies', () => {
  it('a response is always read: any opcode, no question', async () => {
    // opcode 3 (unassigned) in a response, and a response with no question
    const odd = Buffer.concat([header(0x9980, 1, 1), question(name('a', 'example')), record(ptrTo(12), 1, bytes(192, 0, 2, 1))]);
    expect(await classify('udp', 53, 50200, [odd], [true])).toBe('DNS (DPI)');
    const noQuestion = Buffer.concat([header(RESPONSE, 0, 1), record(name('a', 'example'), 1, bytes(192, 0, 2, 1))]);
    expect(await classify('udp', 53, 50201, [noQuestion], [true])).toBe('DNS (DPI)');
    // a bare header is not read (it must be longer than 12 bytes)
    expect(await classify('udp', 53, 50202, [header(RESPONSE, 0)], [true])).not.toBe('DNS (DPI)');
    expect(await classify('tcp', 53, 50203, [tcpFramed(odd)], [true])).toBe('DNS (DPI)');
    expect(await classify('tcp', 53, 50204, [tcpFramed(noQuestion)], [true], { v6: true })).toBe('DNS (DPI)');
  });

  it('a query: at most 16 questions, and a standard, inverse or update form or no answer and no authority record', async () => {
    const noQuestion = header(QUERY, 0);
    expect(await classify('udp', 50210, 53, [Buffer.concat([noQuestion, bytes(0)])])).toBe('DNS (DPI)');
    const many = Buffer.concat([header(QUERY, 17), question(name('a', 'example'))]);
    expect(await classify('udp', 50211, 53, [many])).not.toBe('DNS (DPI)');
    // opcode 2 (status) with an answer record: no form fits
    const status = Buffer.concat([header(0x1100, 1, 1), question(name('a', 'example')), record(ptrTo(12), 1, bytes(192, 0, 2, 1))]);
    expect(await classify('udp', 50212, 53, [status])).not.toBe('DNS (DPI)');
    // the same without the record fits "no answer, no authority"
    expect(await classify('udp', 50213, 53, [Buffer.concat([header(0x1100, 1), question(name('a', 'example'))])])).toBe('DNS (DPI)');
    // an update (opcode 5, RFC 2136) carrying records in its sections fits the update form
    const update = Buffer.concat([header(0x2800, 1, 1, 1), question(name('example'), 6), record(ptrTo(12), 1, bytes(192, 0, 2, 1)), record(ptrTo(12), 1, bytes(192, 0, 2, 2))]);
    expect(await classify('udp', 50214, 53, [update])).toBe('DNS (DPI)');
    expect(await classify('tcp', 50215, 53, [tcpFramed(update)], [true], { v6: true })).toBe('DNS (DPI)');
    expect(await classify('tcp', 50216, 53, [tcpFramed(status)], [true], { v6: true })).not.toBe('DNS (DPI)');
  });

  it('a message no longer than the header is waited past, up to the fourth packet', async () => {
    const q = query(QUERY, 'a', 'example');
    const bare = header(QUERY, 1);
    expect(await classify('udp', 50220, 53, [bare, bare, bare, q], [true, true, true, true])).toBe('DNS (DPI)');
    expect(await classify('udp', 50221, 53, [bare, bare, bare, bare, q], [true, true, true, true, true])).not.toBe('DNS (DPI)');
    // over TCP the length prefix comes first: 2 + 12 bytes is still only a header
    expect(await classify('tcp', 50222, 53, [tcpFramed(bare), tcpFramed(q)], [true, true])).toBe('DNS (DPI)');
    expect(await classify('tcp', 50223, 53, [tcpFramed(bare), tcpFramed(q)], [true, true], { v6: true })).toBe('DNS (DPI)');
  });
});

describe('audit 8: risks from the names and the response', () => {
  const risks = async (payloads: Buffer[], dirs?: boolean[], l4: 'udp' | 'tcp' = 'udp', sport = 50300, dport = 53, v6 = false) =>
    (await run(l4, sport, dport, payloads, dirs, undefined, { v6 })).flow.risks;

  it('characters outside [A-Za-z0-9_-] in a DNS name (not an mDNS one) are invalid', async () => {
    expect(await risks([query(QUERY, 'my host', 'example')], undefined, 'udp', 50300)).toContain('Non-Printable/Invalid Chars Detected');
    expect(await risks([query(QUERY, 'my_host', 'example')], undefined, 'udp', 50301)).not.toContain('Non-Printable/Invalid Chars Detected');
    expect(await risks([query(PLAIN, 'my host', 'local')], undefined, 'udp', 50302, 5353)).not.toContain('Non-Printable/Invalid Chars Detected');
    expect(await risks([tcpFramed(query(QUERY, 'my\x01host', 'example'))], [true], 'tcp', 50303, 53, true)).toContain('Non-Printable/Invalid Chars Detected');
  });

  it('a question of type 0 or running past the packet is malformed', async () => {
    const type0 = Buffer.concat([header(QUERY, 1), question(name('a', 'example'), 0)]);
    expect(await risks([type0], undefined, 'udp', 50310)).toContain('Malformed Packet');
    expect(await risks([query(QUERY, 'a', 'example')], undefined, 'udp', 50311)).not.toContain('Malformed Packet');
    const cut = Buffer.concat([header(QUERY, 1), name('a', 'example'), u16(1)]); // no class
    expect(await risks([cut], undefined, 'udp', 50312, 53, true)).toContain('Malformed Packet');
  });

  it('punycode (xn--) and the risky top-level domains ndpiReader is given', async () => {
    expect(await risks([query(QUERY, 'xn--bcher-kva', 'example')], undefined, 'udp', 50320)).toContain('IDN Domain Name');
    expect(await risks([query(QUERY, 'xn-bcher-kva', 'example')], undefined, 'udp', 50321)).not.toContain('IDN Domain Name');
    expect(await risks([query(QUERY, 'whois', 'dot', 'tk')], undefined, 'udp', 50322)).toContain('Risky Domain Name');
    expect(await risks([query(QUERY, 'whois', 'dot', 'tkx')], undefined, 'udp', 50323)).not.toContain('Risky Domain Name');
  });

  it('a response over 512 bytes (UDP) is large unless EDNS(0) announced room for it', async () => {
    const q = query(QUERY, 'big', 'example');
    const txtRdata = Buffer.concat([bytes(250), Buffer.alloc(250, 0x61), bytes(250), Buffer.alloc(250, 0x62)]);
    const body = [question(name('big', 'example'), 16), record(ptrTo(12), 16, txtRdata)];
    const plain = Buffer.concat([header(RESPONSE, 1, 1), ...body]);
    // the OPT pseudo-record (RFC 6891 §6.1.2): root name, type 41, CLASS = payload size 4096
    const opt = Buffer.concat([bytes(0), u16(41), u16(4096), u32(0), u16(0)]);
    const edns = Buffer.concat([header(RESPONSE, 1, 1, 0, 1), ...body, opt]);
    expect(plain.length).toBeGreaterThan(512);
    expect(await risks([q, plain], undefined, 'udp', 50330)).toContain('Large DNS Packet (512+ bytes)');
    expect(await risks([q, edns], undefined, 'udp', 50331)).not.toContain('Large DNS Packet (512+ bytes)');
    expect(await risks([q, plain], undefined, 'udp', 50332, 53, true)).toContain('Large DNS Packet (512+ bytes)');
    // over TCP a large message is normal
    expect(await risks([tcpFramed(q), tcpFramed(plain)], undefined, 'tcp', 50333)).not.toContain('Large DNS Packet (512+ bytes)');
  });

  it('an error code is read from a response within five packets after the query, not from an LLMNR one', async () => {
    const q = query(QUERY, 'gone', 'example');
    const nx = Buffer.concat([header(0x8183, 1), question(name('gone', 'example'))]);
    expect(await risks([q, nx], undefined, 'udp', 50340)).toContain('Error Code');
    // a response with no record keeps nDPI reading: a later one still counts
    const empty = Buffer.concat([header(RESPONSE, 1), question(name('gone', 'example'))]);
    const fail = Buffer.concat([header(0x8182, 1), question(name('gone', 'example'))]);
    expect(await risks([q, empty, q, q, fail], [true, false, true, true, false], 'udp', 50341)).toContain('Error Code');
    // one with a record ends it
    const ok = Buffer.concat([header(RESPONSE, 1, 1), question(name('gone', 'example')), record(ptrTo(12), 1, bytes(192, 0, 2, 9))]);
    expect(await risks([q, ok, q, fail], [true, false, true, false], 'udp', 50345)).not.toContain('Error Code');
    // five more packets are all it reads
    expect(await risks([q, q, q, q, q, q, nx], [true, true, true, true, true, true, false], 'udp', 50342)).not.toContain('Error Code');
    expect(await risks([q, q, q, q, q, nx], [true, true, true, true, true, false], 'udp', 50343)).toContain('Error Code');
    // LLMNR: nDPI never reads on after the query
    const lq = query(PLAIN, 'fileserver');
    const lnx = Buffer.concat([header(0x8003, 1), question(name('fileserver'))]);
    expect(await risks([lq, lnx], undefined, 'udp', 50344, 5355)).not.toContain('Error Code');
  });
});

describe('audit 8: the packets read after the query rename the flow', () => {
  it('a later query of the flow names it by its own name, within the five packets', async () => {
    const first = query(PLAIN, '_services', '_dns-sd', '_udp', 'local');
    const google = query(PLAIN, 'www', 'google', 'com');
    const d = [true, true, true, true, true, true, true];
    expect(await classify('udp', 5353, 5353, [first, google], [true, true])).toBe('DNS.Google (DPI)');
    expect(await classify('udp', 5353, 5353, [first, first, first, first, first, google], d.slice(0, 6))).toBe('DNS.Google (DPI)');
    expect(await classify('udp', 5353, 5353, [first, first, first, first, first, first, google], d)).toBe('MDNS (DPI)');
  });
});
