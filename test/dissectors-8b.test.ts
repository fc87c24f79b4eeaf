// One hand-built flow per case: the group-B dissectors of round 8
// (Memcached, MongoDB, RESP, MS SQL TDS, Zabbix) name their protocol by DPI
// under nDPI's conditions, and a near miss (one detail wrong) is not named
// that protocol by DPI (a guess by port may still name it).
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-8b-');
const le64 = (v: number) => Buffer.concat([le32(v), le32(0)]);

// ── Memcached (protocol.txt) ───────────────────────────────────────────────
// The UDP frame header: request id, sequence number, datagram count,
// reserved (all big-endian 16-bit), then the text.
const mcUdp = (count: number, reserved: number, text: string) => Buffer.concat([u16(0x1234), u16(0), u16(count), u16(reserved), txt(text)]);
// A binary-protocol packet (protocol_binary.txt): 24-byte header, then
// extras, key, value.
const mcBinary = (magic: number, opcode: number, extras: Buffer, key: string, value: string) => {
  const body = Buffer.concat([extras, txt(key), txt(value)]);
  return Buffer.concat([
    Buffer.from([magic, opcode]), u16(key.length), Buffer.from([extras.length, 0]), u16(0), u32(body.length), u32(0xdeadbeef), Buffer.alloc(8, 0), body,
  ]);
};

// ── MongoDB (wire protocol: little-endian MsgHeader) ───────────────────────
const mongoHeader = (length: number, requestId: number, responseTo: number, opCode: number) =>
  Buffer.concat([le32(length), le32(requestId), le32(responseTo), le32(opCode)]);
const mongo = (opCode: number, body: Buffer, requestId = 1, responseTo = 0) => Buffer.concat([mongoHeader(16 + body.length, requestId, responseTo, opCode), body]);
// A BSON document of int32 fields.
const bson = (fields: [string, number][]) => {
  const elems = Buffer.concat(fields.map(([k, v]) => Buffer.concat([Buffer.from([0x10]), txt(k), Buffer.from([0]), le32(v)])));
  return Buffer.concat([le32(4 + elems.length + 1), elems, Buffer.from([0])]);
};
// OP_QUERY: flags, fullCollectionName, numberToSkip, numberToReturn, query.
const opQuery = () => mongo(2004, Buffer.concat([le32(0), txt('admin.$cmd\0'), le32(0), le32(-1), bson([['isMaster', 1]])]));
// OP_MSG: flagBits, a kind-0 section with its body document.
const opMsg = (requestId = 1, responseTo = 0) => mongo(2013, Buffer.concat([le32(0), Buffer.from([0]), bson([['ping', 1]])]), requestId, responseTo);
// OP_REPLY: responseFlags, cursorID, startingFrom, numberReturned, documents.
const opReply = (flags: number) => mongo(1, Buffer.concat([le32(flags), le64(0), le32(0), le32(1), bson([['ok', 1]])]), 2, 1);

// ── MS SQL TDS (MS-TDS 2.2.3.1): type, status, length (BE), SPID, packet id, window
const tds = (type: number, status: number, body: Buffer, opts: { lenDelta?: number; window?: number } = {}) =>
  Buffer.concat([Buffer.from([type, status]), u16(8 + body.length + (opts.lenDelta ?? 0)), u16(0), Buffer.from([1, opts.window ?? 0]), body]);
// PRELOGIN options: VERSION at offset 6, 6 bytes, terminator, then the version.
const prelogin = Buffer.from([0x00, 0x00, 0x06, 0x00, 0x06, 0xff, 0x10, 0x00, 0x07, 0xd0, 0x00, 0x00]);
const utf16 = (s: string) => Buffer.from(s, 'utf16le');

// ── Zabbix (header: "ZBXD", flags, data length LE32, reserved LE32, data) ───
const zbx = (json: string, flags = 0x01) => Buffer.concat([txt('ZBXD'), Buffer.from([flags]), le32(json.length), le32(0), txt(json)]);

describe('dissectors 8 (group B)', () => {
  it('Memcached over TCP: two packets opening with a command or reply word, either way', async () => {
    // storage command, its reply
    expect(await classify('tcp', 40200, 11211, [txt('set foo 0 0 3\r\nbar\r\n'), txt('STORED\r\n')])).toBe('Memcached (DPI)');
    // retrieval miss: "END\r\n" alone is long enough (5 bytes)
    expect(await classify('tcp', 40201, 11211, [txt('get foo\r\n'), txt('END\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40202, 11211, [txt('gets foo bar\r\n'), txt('END\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40203, 11211, [txt('stats\r\n'), txt('STAT pid 1234\r\nSTAT uptime 5\r\nEND\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40204, 11211, [txt('delete foo\r\n'), txt('NOT_FOUND\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40205, 11211, [txt('cas foo 0 0 3 77\r\nbaz\r\n'), txt('EXISTS\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40206, 11211, [txt('touch foo 60\r\n'), txt('TOUCHED\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40207, 11211, [txt('gat 60 foo\r\n'), txt('SERVER_ERROR out of memory\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40208, 11211, [txt('frobnicate\r\n'), txt('ERROR\r\n'), txt('add foo 0 0 1\r\nx\r\n'), txt('NOT_STORED\r\n')])).toBe('Memcached (DPI)');
    // nDPI counts packets, not replies: two commands one way do, on any port
    expect(await classify('tcp', 40209, 5000, [txt('incr n 1\r\n'), txt('decr n 1\r\n')], [true, true])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40210, 11211, [txt('append foo 0 0 1\r\nx\r\n'), txt('prepend foo 0 0 1\r\ny\r\n'), txt('replace foo 0 0 1\r\nz\r\n')], [true, true, true])).toBe('Memcached (DPI)');
    expect(await classify('tcp', 40211, 11211, [txt('gats 60 foo\r\n'), txt('CLIENT_ERROR bad data chunk\r\n')])).toBe('Memcached (DPI)');
    // the second word on the 6th payload packet still counts
    const six = [txt('get foo\r\n'), ...Array(4).fill(txt('version\r\n')), txt('END\r\n')];
    expect(await classify('tcp', 40212, 11211, six, [true, true, true, true, true, false])).toBe('Memcached (DPI)');
    // "flush_all" is no word nDPI counts, get and END are
    expect(await classify('tcp', 40213, 11211, [txt('flush_all\r\n'), txt('get foo\r\n'), txt('END\r\n')], [true, true, false])).toBe('Memcached (DPI)');
  });

  it('Memcached over TCP, near misses: one word only, words nDPI does not count, the binary protocol, a short packet, too late', async () => {
    // VALUE (a hit's reply) is not among nDPI's words: the get alone is one
    expect(await classify('tcp', 40220, 11211, [txt('get foo\r\n'), txt('VALUE foo 0 3\r\nbar\r\nEND\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('tcp', 40221, 11211, [txt('version\r\n'), txt('VERSION 1.6.21\r\n')])).not.toBe('Memcached (DPI)');
    // words are case-sensitive
    expect(await classify('tcp', 40222, 11211, [txt('SET foo 0 0 3\r\nbar\r\n'), txt('stored\r\n')])).not.toBe('Memcached (DPI)');
    // a word without its space
    expect(await classify('tcp', 40223, 11211, [txt('getfoo\r\n'), txt('ENDS\r\n')])).not.toBe('Memcached (DPI)');
    // the binary protocol (magic 0x80 request, 0x81 response): nDPI has no rule for it
    const binGet = mcBinary(0x80, 0x00, Buffer.alloc(0), 'foo', '');
    const binHit = mcBinary(0x81, 0x00, Buffer.from([0, 0, 0, 0]), '', 'bar');
    expect(await classify('tcp', 40224, 11211, [binGet, binHit])).not.toBe('Memcached (DPI)');
    // "OK\r\n" (4 bytes, shorter than "END\r\n") rules the flow out before get / END
    expect(await classify('tcp', 40225, 11211, [txt('flush_all\r\n'), txt('OK\r\n'), txt('get foo\r\n'), txt('END\r\n')])).not.toBe('Memcached (DPI)');
    // the second word on the 7th payload packet: too late
    const seven = [txt('get foo\r\n'), ...Array(5).fill(txt('version\r\n')), txt('END\r\n')];
    expect(await classify('tcp', 40226, 11211, seven, [true, true, true, true, true, true, false])).not.toBe('Memcached (DPI)');
  });

  it('Memcached over UDP: the 8-byte frame header then the text; not with a zero datagram count, reserved bytes set or no frame header', async () => {
    expect(await classify('udp', 40230, 11211, [mcUdp(1, 0, 'get foo\r\n'), mcUdp(1, 0, 'END\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('udp', 40231, 11211, [mcUdp(1, 0, 'set foo 0 0 3\r\nbar\r\n'), mcUdp(1, 0, 'STORED\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('udp', 40232, 11211, [mcUdp(1, 0, 'stats\r\n'), mcUdp(3, 0, 'STAT pid 1\r\n')])).toBe('Memcached (DPI)');
    expect(await classify('udp', 40233, 11211, [mcUdp(0, 0, 'get foo\r\n'), mcUdp(0, 0, 'END\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('udp', 40234, 11211, [mcUdp(1, 1, 'get foo\r\n'), mcUdp(1, 1, 'END\r\n')])).not.toBe('Memcached (DPI)');
    expect(await classify('udp', 40235, 11211, [txt('get foo bar baz\r\n'), txt('STORED\r\nSTORED\r\n')])).not.toBe('Memcached (DPI)');
    // the binary protocol over UDP, framed: still no rule in nDPI
    const frame = Buffer.concat([u16(1), u16(0), u16(1), u16(0)]);
    const binGet = Buffer.concat([frame, mcBinary(0x80, 0x00, Buffer.alloc(0), 'foo', '')]);
    const binHit = Buffer.concat([frame, mcBinary(0x81, 0x00, Buffer.from([0, 0, 0, 0]), '', 'bar')]);
    expect(await classify('udp', 40236, 11211, [binGet, binHit])).not.toBe('Memcached (DPI)');
  });

  it('MongoDB: OP_QUERY, OP_MSG and the legacy request opcodes on the first packet, off its port too', async () => {
    expect(await classify('tcp', 40300, 27017, [opQuery(), opReply(8)])).toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40301, 27017, [opMsg(), opMsg(2, 1)])).toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40302, 5000, [opMsg()])).toBe('MongoDB (DPI)');
    const legacy = Buffer.concat([le32(0), txt('test.c\0'), bson([['x', 1]])]);
    // OP_UPDATE, OP_INSERT, 2003 (reserved), OP_GET_MORE, OP_DELETE, OP_KILL_CURSORS
    for (const op of [2001, 2002, 2003, 2005, 2006, 2007]) {
      expect(await classify('tcp', 40310 + (op - 2000), 27017, [mongo(op, legacy)])).toBe('MongoDB (DPI)');
    }
    // messageLength is only range-checked: 1,000,000 still passes, a header
    // with a single byte after it too
    expect(await classify('tcp', 40320, 27017, [Buffer.concat([mongoHeader(1000000, 1, 0, 2013), le32(0), Buffer.from([0]), bson([['ping', 1]])])])).toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40321, 27017, [Buffer.concat([mongoHeader(17, 1, 0, 2013), Buffer.from([0])])])).toBe('MongoDB (DPI)');
  });

  it('MongoDB: OP_REPLY when its responseFlags use the 4 defined bits only; a reply that does not waits for up to 6 packets', async () => {
    expect(await classify('tcp', 40330, 27017, [opReply(0)], [false])).toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40331, 27017, [opReply(0x0f)], [false])).toBe('MongoDB (DPI)');
    // not decided by a reply with an undefined flag, but not ruled out either
    expect(await classify('tcp', 40332, 27017, [opReply(0x10)], [false])).not.toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40333, 27017, [opReply(0x10), opQuery()], [false, true])).toBe('MongoDB (DPI)');
    const five = [...Array(5).fill(opReply(0x10)), opQuery()];
    expect(await classify('tcp', 40334, 27017, five, [false, false, false, false, false, true])).toBe('MongoDB (DPI)');
    const six = [...Array(6).fill(opReply(0x10)), opQuery()];
    expect(await classify('tcp', 40335, 27017, six, [false, false, false, false, false, false, true])).not.toBe('MongoDB (DPI)');
    // a reply no longer than its 20-byte reply header: undecided
    expect(await classify('tcp', 40336, 27017, [mongo(1, Buffer.concat([le32(0), le64(0), le32(0), le32(0)]))], [false])).not.toBe('MongoDB (DPI)');
  });

  it('MongoDB near misses: an opcode nDPI does not list (OP_COMPRESSED), a length out of range, the bare header', async () => {
    const inner = Buffer.concat([le32(0), Buffer.from([0]), bson([['ping', 1]])]);
    const compressed = mongo(2012, Buffer.concat([le32(2013), le32(inner.length), Buffer.from([0]), inner]));
    expect(await classify('tcp', 40340, 27017, [compressed, compressed])).not.toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40341, 27017, [mongo(2014, inner)])).not.toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40342, 27017, [Buffer.concat([mongoHeader(1000001, 1, 0, 2013), inner])])).not.toBe('MongoDB (DPI)');
    expect(await classify('tcp', 40343, 27017, [Buffer.concat([mongoHeader(3, 1, 0, 2013), inner])])).not.toBe('MongoDB (DPI)');
    // 16 bytes: nothing after the header
    expect(await classify('tcp', 40344, 27017, [mongoHeader(16, 1, 0, 2013)])).not.toBe('MongoDB (DPI)');
    // big-endian lengths and opcodes are no MongoDB
    expect(await classify('tcp', 40345, 27017, [Buffer.concat([u32(16 + inner.length), u32(1), u32(0), u32(2013), inner])])).not.toBe('MongoDB (DPI)');
  });

  it('RESP: an array, a bulk string or a RESP3 set with up to 3 count digits and CRLF, 10 bytes or more, on the first packet', async () => {
    expect(await classify('tcp', 40400, 6379, [txt('*1\r\n$4\r\nPING\r\n'), txt('+PONG\r\n')])).toBe('RESP (DPI)');
    expect(await classify('tcp', 40401, 6379, [txt('*2\r\n$3\r\nGET\r\n$3\r\nfoo\r\n'), txt('$3\r\nbar\r\n')])).toBe('RESP (DPI)');
    expect(await classify('tcp', 40402, 5000, [txt('*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$3\r\nbar\r\n')])).toBe('RESP (DPI)');
    // a bulk string first (the server's answer), exactly 10 bytes
    expect(await classify('tcp', 40403, 6379, [txt('$4\r\nPING\r\n')])).toBe('RESP (DPI)');
    expect(await classify('tcp', 40404, 6379, [txt('$11\r\nhello world\r\n')], [false])).toBe('RESP (DPI)');
    expect(await classify('tcp', 40405, 6379, [txt('~2\r\n+a\r\n+b\r\n')], [false])).toBe('RESP (DPI)');
    expect(await classify('tcp', 40406, 6379, [txt('*100\r\n$1\r\na\r\n')])).toBe('RESP (DPI)');
    // nDPI accepts no digits at all
    expect(await classify('tcp', 40407, 6379, [txt('*\r\n$4\r\nPING\r\n')])).toBe('RESP (DPI)');
  });

  it('RESP near misses: 4 count digits, a sign, LF without CR, 9 bytes, simple strings and inline commands, not the first packet', async () => {
    expect(await classify('tcp', 40410, 6379, [txt('*1000\r\n$1\r\na\r\n')])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40411, 6379, [txt('*-1\r\n$4\r\nPING\r\n')])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40412, 6379, [txt('*1\n$4\nPING\n\n')])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40413, 6379, [txt('$3\r\nGET\r\n')])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40414, 6379, [txt('+OK\r\n+OK\r\n+OK\r\n')], [false])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40415, 6379, [txt(':1000\r\n:2000\r\n')], [false])).not.toBe('RESP (DPI)');
    expect(await classify('tcp', 40416, 6379, [txt('PING\r\nPING\r\n')])).not.toBe('RESP (DPI)');
    // nDPI decides on the first payload: an array after an inline AUTH is too late
    expect(await classify('tcp', 40417, 6379, [txt('AUTH secret\r\n'), txt('*1\r\n$4\r\nPING\r\n')], [true, true])).not.toBe('RESP (DPI)');
  });

  it('MS SQL TDS: a packet header whose length is the payload, window 0, on the first packet', async () => {
    expect(await classify('tcp', 40500, 1433, [tds(0x12, 0x01, prelogin), tds(0x04, 0x01, prelogin)])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40501, 1433, [tds(0x01, 0x01, utf16('SELECT 1'))])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40502, 1433, [tds(0x10, 0x01, Buffer.alloc(36, 0))])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40503, 1433, [tds(0x03, 0x01, Buffer.concat([le16(10), utf16('sp_who'), Buffer.alloc(4, 0)]))])).toBe('MsSQL-TDS (DPI)');
    // attention: the header alone
    expect(await classify('tcp', 40504, 1433, [tds(0x06, 0x01, Buffer.alloc(0))])).toBe('MsSQL-TDS (DPI)');
    // tabular result first, from the server
    expect(await classify('tcp', 40505, 1433, [tds(0x04, 0x01, Buffer.from([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))], [false])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40506, 1433, [tds(0x11, 0x01, Buffer.concat([txt('NTLMSSP\0'), le32(1)]))])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40507, 1433, [tds(0x0e, 0x01, Buffer.alloc(8, 0))])).toBe('MsSQL-TDS (DPI)');
    // the status values nDPI lists: not last (0), reset connection (0x08), EOM | reset (0x09)
    expect(await classify('tcp', 40508, 1433, [tds(0x01, 0x00, utf16('SEL'))])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40509, 1433, [tds(0x01, 0x09, utf16('SEL'))])).toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40510, 1433, [tds(0x01, 0x10, utf16('SEL'))])).toBe('MsSQL-TDS (DPI)');
    // off its port too
    expect(await classify('tcp', 40511, 5000, [tds(0x12, 0x01, prelogin)])).toBe('MsSQL-TDS (DPI)');
  });

  it('MS SQL TDS near misses: length off by one, window set, a status or type nDPI does not list, sent to port 102', async () => {
    expect(await classify('tcp', 40520, 1433, [tds(0x12, 0x01, prelogin, { lenDelta: 1 })])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40521, 1433, [tds(0x12, 0x01, prelogin, { lenDelta: -1 })])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40522, 1433, [tds(0x12, 0x01, prelogin, { window: 1 })])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40523, 1433, [tds(0x12, 0x03, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40524, 1433, [tds(0x12, 0x11, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40525, 1433, [tds(0x0b, 0x01, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40526, 1433, [tds(0x13, 0x01, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    expect(await classify('tcp', 40527, 1433, [tds(0x00, 0x01, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    // the same valid PRELOGIN sent to port 102 (ISO-TSAP's)
    expect(await classify('tcp', 40528, 102, [tds(0x12, 0x01, prelogin)])).not.toBe('MsSQL-TDS (DPI)');
    // a 7-byte packet: shorter than the header
    expect(await classify('tcp', 40529, 1433, [Buffer.from([0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x01])])).not.toBe('MsSQL-TDS (DPI)');
  });

  it('Zabbix: "ZBXD" opening the first packet, whatever the flags and lengths', async () => {
    const active = '{"request":"active checks","host":"web01"}';
    expect(await classify('tcp', 40600, 10051, [zbx(active), zbx('{"response":"success","data":[]}')])).toBe('Zabbix (DPI)');
    const passive = '{"request":"passive checks","data":[{"key":"agent.ping","timeout":3}]}';
    expect(await classify('tcp', 40601, 10050, [zbx(passive), zbx('{"version":"7.0.0","variant":1,"data":[{"value":"1"}]}')])).toBe('Zabbix (DPI)');
    // the pre-4.0 header (8-byte data length), an agent's answer first
    expect(await classify('tcp', 40602, 10050, [Buffer.concat([txt('ZBXD'), Buffer.from([0x01]), le64(1), txt('1')])], [false])).toBe('Zabbix (DPI)');
    // compressed (flags 0x03): nDPI does not look at the flags
    expect(await classify('tcp', 40603, 10051, [Buffer.concat([txt('ZBXD'), Buffer.from([0x03]), le32(10), le32(40), Buffer.from([0x78, 0x9c]), Buffer.alloc(8, 0)])])).toBe('Zabbix (DPI)');
    expect(await classify('tcp', 40604, 5000, [zbx(active)])).toBe('Zabbix (DPI)');
  });

  it('Zabbix near misses: lower-case or short signature, a byte before it, not the first packet', async () => {
    const active = '{"request":"active checks","host":"web01"}';
    expect(await classify('tcp', 40610, 10051, [Buffer.concat([txt('zbxd'), Buffer.from([1]), le32(active.length), le32(0), txt(active)])])).not.toBe('Zabbix (DPI)');
    expect(await classify('tcp', 40611, 10051, [Buffer.concat([txt('ZBX'), Buffer.from([1]), le32(active.length), le32(0), txt(active)])])).not.toBe('Zabbix (DPI)');
    expect(await classify('tcp', 40612, 10051, [Buffer.concat([Buffer.from([0]), zbx(active)])])).not.toBe('Zabbix (DPI)');
    // a plain-text passive check (old agents), then the framed answer: nDPI
    // decided on the first packet already
    expect(await classify('tcp', 40613, 10050, [txt('agent.ping\n'), Buffer.concat([txt('ZBXD'), Buffer.from([0x01]), le64(1), txt('1')])])).not.toBe('Zabbix (DPI)');
  });
});
