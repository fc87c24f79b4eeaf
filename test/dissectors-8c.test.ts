// One hand-built flow per case for the group-C dissectors (TFTP, IRC, XDMCP,
// Git, Diameter): each message form nDPI 4.11 recognises, built byte by byte
// from the protocol's document, is named by DPI; a near miss (one detail
// wrong) is not named that protocol by DPI (a port guess may still name it).
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { txt, u16, u24, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-8c-');
const run = flowRunner('fg-dissectors-8c-risk-');

/** A NUL-terminated string (RFC 1350's "string 0"). */
const z = (s: string) => Buffer.concat([txt(s), Buffer.from([0])]);

// TFTP (RFC 1350 §5, options RFC 2347): a 2-byte opcode, then its fields.
const request = (op: 1 | 2, file: string, mode: string, ...options: string[]) => Buffer.concat([u16(op), z(file), z(mode), ...options.map(z)]);
const oack = (...options: string[]) => Buffer.concat([u16(6), ...options.map(z)]);
const data = (block: number, size: number) => Buffer.concat([u16(3), u16(block), Buffer.alloc(size, 0x41)]);
const ack = (block: number) => Buffer.concat([u16(4), u16(block)]);
const error = (code: number, msg: string) => Buffer.concat([u16(5), u16(code), z(msg)]);

// Git pkt-line (gitprotocol-common): 4 hex digits of the length, itself included.
const pktLine = (body: Buffer | string) => {
  const b = typeof body === 'string' ? txt(body) : body;
  return Buffer.concat([txt((b.length + 4).toString(16).padStart(4, '0')), b]);
};
// The request: command, path, NUL, host parameter, NUL ("0033git-upload-pack /project.git\0host=myserver.com\0").
const uploadPack = pktLine(Buffer.concat([z('git-upload-pack /project.git'), z('host=myserver.com')]));

// Diameter (RFC 6733 §3, §4.1): the 20-byte header and AVPs (code, flags,
// 24-bit length, data padded to 4 bytes).
const avp = (code: number, value: Buffer) => {
  const pad = Buffer.alloc((4 - (value.length % 4)) % 4);
  return Buffer.concat([u32(code), Buffer.from([0x40]), u24(8 + value.length), value, pad]);
};
const diameter = (flags: number, code: number, appId: number, avps: Buffer[] = [], version = 1) => {
  const body = Buffer.concat(avps);
  return Buffer.concat([Buffer.from([version]), u24(20 + body.length), Buffer.from([flags]), u24(code), u32(appId), u32(0x2a1b3c4d), u32(0x5e6f7081), body]);
};
const R = 0x80, P = 0x40, E = 0x20, T = 0x10;
const originAvps = [avp(264, txt('client.example.org')), avp(296, txt('example.org'))];
const cer = (flags: number) =>
  diameter(flags, 257, 0, [...originAvps, avp(257, Buffer.from([0, 1, 10, 0, 0, 1])), avp(266, u32(0)), avp(269, txt('flowgate'))]);

describe('dissectors 8 (group C)', () => {
  it('TFTP: read and write requests with a mode and RFC 2347 options; not an unknown mode, a control byte in the name, or no final NUL', async () => {
    expect(await classify('udp', 50069, 69, [request(1, 'rfc1350.txt', 'octet')], [true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 50070, 69, [request(2, 'upload.bin', 'netascii', 'blksize', '1428', 'tsize', '0')], [true])).toBe('TFTP (DPI)');
    // Modes compare without case; "mail" is the third.
    expect(await classify('udp', 50071, 69, [request(1, 'pxelinux.0', 'NETASCII')], [true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 50072, 69, [request(1, 'user@example.org', 'mail')], [true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 50073, 69, [request(1, 'rfc1350.txt', 'binary')], [true])).not.toBe('TFTP (DPI)');
    expect(await classify('udp', 50074, 69, [request(1, 'rfc\x011350.txt', 'octet')], [true])).not.toBe('TFTP (DPI)');
    expect(await classify('udp', 50075, 69, [Buffer.concat([u16(1), z('rfc1350.txt'), txt('octet')])], [true])).not.toBe('TFTP (DPI)');
  });

  it('TFTP: options nDPI knows are blksize and tsize; another one passes only as the last pair', async () => {
    expect(await classify('udp', 50076, 69, [request(1, 'a.bin', 'octet', 'blksize', '512', 'timeout', '5')], [true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 50077, 69, [request(1, 'a.bin', 'octet', 'timeout', '5', 'blksize', '512')], [true])).not.toBe('TFTP (DPI)');
  });

  it('TFTP: an option acknowledgement names the flow at once; not one with an empty option name', async () => {
    expect(await classify('udp', 41069, 50080, [oack('blksize', '1428', 'tsize', '2048')], [true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 41070, 50081, [Buffer.concat([u16(6), z(''), z('1428')])], [true])).not.toBe('TFTP (DPI)');
  });

  it('TFTP: DATA, ACK and ERROR name a transfer on the fourth packet; not after three, nor with a 5-byte ACK, an empty DATA or error code 8', async () => {
    const read = [true, false, true, false];
    expect(await classify('udp', 41071, 50082, [data(1, 512), ack(1), data(2, 100), ack(2)], read)).toBe('TFTP (DPI)');
    // A write: the server acknowledges block 0 first.
    expect(await classify('udp', 41072, 50083, [ack(0), data(1, 512), ack(1), data(2, 100)], read)).toBe('TFTP (DPI)');
    expect(await classify('udp', 41073, 50084, [data(1, 512), ack(1), data(2, 512), error(3, 'Disk full or allocation exceeded')], read)).toBe('TFTP (DPI)');
    expect(await classify('udp', 41074, 50085, [data(1, 512), ack(1), data(2, 100)], read.slice(0, 3))).not.toBe('TFTP (DPI)');
    expect(await classify('udp', 41075, 50086, [data(1, 512), ack(1), data(2, 100), Buffer.concat([ack(2), Buffer.from([0])])], read)).not.toBe('TFTP (DPI)');
    expect(await classify('udp', 41076, 50087, [data(1, 512), ack(1), data(2, 0), ack(2)], read)).not.toBe('TFTP (DPI)');
    // RFC 2347's code 8 (option negotiation refused): nDPI takes 0-7 only.
    expect(await classify('udp', 41077, 50088, [data(1, 512), ack(1), data(2, 512), error(8, 'Option refused')], read)).not.toBe('TFTP (DPI)');
  });

  it('TFTP: blocks out of sequence are not counted (nDPI keeps the last DATA and ACK block numbers)', async () => {
    const read = [true, false, true, false, true];
    // DATA 1, ACK 1, DATA 5 (skips: not counted), ACK 2 (after 1: counted), DATA 6: the fourth counted packet
    expect(await classify('udp', 41078, 50089, [data(1, 512), ack(1), data(5, 512), ack(2), data(6, 100)], read)).toBe('TFTP (DPI)');
    // only three in sequence among the four: not yet
    expect(await classify('udp', 41079, 50090, [data(1, 512), ack(1), data(5, 512), ack(2)], read.slice(0, 4))).not.toBe('TFTP (DPI)');
    // a first DATA repeating block 0 does not count (nDPI: the same block only after a first one)
    expect(await classify('udp', 41080, 50091, [data(0, 512), ack(1), data(1, 512), ack(2)], read.slice(0, 4))).not.toBe('TFTP (DPI)');
  });

  it('IRC: ":prefix" lines count across packets (4 then 3); commands count across packets, not mere packet positions', async () => {
    const line = (i: number) => `:irc.example.net 00${i} alice :line ${i}\r\n`;
    const four = txt([1, 2, 3, 4].map(line).join('')), three = txt([5, 6, 7].map(line).join(''));
    expect(await classify('tcp', 40622, 6667, [four, three], [false, false])).toBe('IRC (DPI)');
    // a command at the third packet after two packets of no command: the first command seen, not IRC yet
    expect(await classify('tcp', 40623, 6667, [txt('hello there\r\n'), txt('more text here\r\n'), txt('JOIN #flowgate\r\n')], [true, false, true])).not.toBe('IRC (DPI)');
  });

  it('IRC: registration in one packet, NICK then USER (CRLF; bare LF see audit 14); not in lower case or without the last line end', async () => {
    expect(await classify('tcp', 40600, 6667, [txt('NICK alice\r\nUSER alice 0 * :Alice Liddell\r\n')])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40601, 6667, [txt('PASS s3cret\r\nNICK alice\r\nUSER alice 0 * :Alice Liddell\r\n')])).toBe('IRC (DPI)');
    // As a flow's first packet RTSP splits it at CRLFs before IRC (nDPI splits a packet once): no second line.
    expect(await classify('tcp', 40602, 6667, [txt('NICK bob\nUSER bob 0 * :Bob\n')])).not.toBe('IRC (DPI)');
    expect(await classify('tcp', 40603, 6667, [txt('nick alice\r\nuser alice 0 * :Alice Liddell\r\n')])).not.toBe('IRC (DPI)');
    expect(await classify('tcp', 40604, 6667, [txt('NICK alice\r\nUSER alice 0 * :Alice Liddell')])).not.toBe('IRC (DPI)');
  });

  it('IRC: the third command packet (server NOTICE, NICK, JOIN; or three PRIVMSG/NOTICE lines); not the second', async () => {
    const notice = txt(':irc.example.net NOTICE * :*** Looking up your hostname...\r\n');
    expect(await classify('tcp', 40610, 6667, [notice, txt('NICK alice\r\n'), txt('JOIN #flowgate\r\n')], [false, true, true])).toBe('IRC (DPI)');
    const msgs = [':alice!a@example.org PRIVMSG #flowgate :hi\r\n', ':bob!b@example.org PRIVMSG #flowgate :hello\r\n', ':carol!c@example.org NOTICE #flowgate :hey\r\n'];
    expect(await classify('tcp', 40611, 6667, msgs.map(txt), [false, false, false])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40612, 6667, [txt('PASS s3cret\r\n'), txt('NICK alice\r\n'), txt('MODE alice +i\r\n')], [true, true, true])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40613, 6667, [txt('NICK alice\r\n'), txt('MODE alice +i\r\n')], [true, true])).not.toBe('IRC (DPI)');
  });

  it('IRC: after one command, nDPI\'s web-chat form ("interface=" with a Nickname=, or "item=" with a cmd=); not without the nickname', async () => {
    expect(await classify('tcp', 40614, 6667, [txt('NICK alice\r\n'), txt('interface=chat&Nickname=alice')], [true, true])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40615, 6667, [txt('NICK alice\r\n'), txt('item=42&cmd=join')], [true, true])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40616, 6667, [txt('NICK alice\r\n'), txt('interface=chat&user=alice')], [true, true])).not.toBe('IRC (DPI)');
  });

  it('IRC: seven ":prefix" lines in one packet (the numeric welcome replies); not six', async () => {
    const numerics = [
      '001 alice :Welcome to the Example IRC Network alice',
      '002 alice :Your host is irc.example.net, running version ircd-1.0',
      '003 alice :This server was created Mon Jan 1 2024',
      '004 alice irc.example.net ircd-1.0 iowghraAsORTVSxNCWqBzvdHtGp lvhopsmntikrRcaqOALQbSeIKVfMCuzNTGjZ',
      '005 alice CHANTYPES=# PREFIX=(ov)@+ :are supported by this server',
      '251 alice :There are 3 users and 0 invisible on 1 servers',
      '375 alice :- irc.example.net Message of the Day -',
    ].map((l) => `:irc.example.net ${l}\r\n`);
    expect(await classify('tcp', 40620, 6667, [txt(numerics.join(''))], [false])).toBe('IRC (DPI)');
    expect(await classify('tcp', 40621, 6667, [txt(numerics.slice(0, 6).join(''))], [false])).not.toBe('IRC (DPI)');
  });

  it('IRC: a USER command raises clear-text credentials', async () => {
    const { flow } = await run('tcp', 40630, 6667, [txt('NICK alice\r\nUSER alice 0 * :Alice Liddell\r\n')], [true]);
    expect(flow.risks).toContain('Clear-Text Credentials');
  });

  it('XDMCP: a Query to UDP 177 whose length is the rest; not BroadcastQuery, a wrong length or another port', async () => {
    // version 1, opcode 2 (Query), length, authentication names (ARRAYofARRAY8)
    const query = (opcode: number, names: Buffer, length = names.length) => Buffer.concat([u16(1), u16(opcode), u16(length), names]);
    const none = Buffer.from([0]);
    const cookie = Buffer.concat([Buffer.from([1]), u16(18), txt('MIT-MAGIC-COOKIE-1')]);
    expect(await classify('udp', 40177, 177, [query(2, none)], [true])).toBe('XDMCP (DPI)');
    expect(await classify('udp', 40178, 177, [query(2, cookie)], [true])).toBe('XDMCP (DPI)');
    expect(await classify('udp', 40179, 177, [query(1, none)], [true])).not.toBe('XDMCP (DPI)');
    expect(await classify('udp', 40180, 177, [query(2, none, 2)], [true])).not.toBe('XDMCP (DPI)');
    expect(await classify('udp', 40181, 178, [query(2, none)], [true])).not.toBe('XDMCP (DPI)');
  });

  it('XDMCP: the 48-byte little-endian X11 setup with a MIT-MAGIC-COOKIE-1 to 6000-6005; not to 6010 nor big-endian', async () => {
    // byte order, unused, protocol 11.0, name length 18, data length 16, unused; name padded to 4; data
    const setup = (order: 'l' | 'B', to: 'le' | 'be') => {
      const n = (v: number) => (to === 'le' ? Buffer.from([v & 255, v >> 8]) : u16(v));
      return Buffer.concat([txt(order), Buffer.from([0]), n(11), n(0), n(18), n(16), Buffer.alloc(2), txt('MIT-MAGIC-COOKIE-1'), Buffer.alloc(2), Buffer.alloc(16, 0x5a)]);
    };
    expect(await classify('tcp', 40190, 6000, [setup('l', 'le')], [true])).toBe('XDMCP (DPI)');
    expect(await classify('tcp', 40191, 6005, [setup('l', 'le')], [true])).toBe('XDMCP (DPI)');
    expect(await classify('tcp', 40192, 6010, [setup('l', 'le')], [true])).not.toBe('XDMCP (DPI)');
    expect(await classify('tcp', 40193, 6000, [setup('B', 'be')], [true])).not.toBe('XDMCP (DPI)');
  });

  it('Git: upload-pack and receive-pack requests and a run of pkt-lines on 9418; not a length past the payload, a flush first or another port', async () => {
    expect(await classify('tcp', 40700, 9418, [uploadPack])).toBe('Git (DPI)');
    const receive = pktLine(Buffer.concat([z('git-receive-pack /project.git'), z('host=myserver.com')]));
    expect(await classify('tcp', 40701, 9418, [receive])).toBe('Git (DPI)');
    // protocol v2 asked for in the extra parameters after a second NUL
    const v2 = pktLine(Buffer.concat([z('git-upload-pack /project.git'), z('host=myserver.com'), z(''), z('version=2')]));
    expect(await classify('tcp', 40702, 9418, [v2])).toBe('Git (DPI)');
    const wants = Buffer.concat([
      pktLine('want 0123456789abcdef0123456789abcdef01234567 multi_ack side-band-64k ofs-delta\n'),
      pktLine('want 89abcdef0123456789abcdef0123456789abcdef\n'),
      txt('0000'),
      pktLine('done\n'),
    ]);
    expect(await classify('tcp', 40703, 9418, [wants])).toBe('Git (DPI)');
    const tooLong = Buffer.from(uploadPack);
    tooLong.write((uploadPack.length + 1).toString(16).padStart(4, '0'), 0, 'latin1');
    expect(await classify('tcp', 40704, 9418, [tooLong])).not.toBe('Git (DPI)');
    expect(await classify('tcp', 40705, 9418, [Buffer.concat([txt('0000'), uploadPack])])).not.toBe('Git (DPI)');
    expect(await classify('tcp', 40706, 9419, [uploadPack])).not.toBe('Git (DPI)');
  });

  it('Diameter: base requests and answers whose flags are one of R, P, E, T; not a plain answer, a proxiable request, version 2 or another command', async () => {
    expect(await classify('tcp', 40800, 3868, [cer(R)])).toBe('Diameter (DPI)');
    expect(await classify('tcp', 40801, 3868, [diameter(R, 280, 0, originAvps)])).toBe('Diameter (DPI)');
    // A Credit-Control answer (RFC 4006, application 4) with only P set: Result-Code 2001.
    expect(await classify('tcp', 40802, 3868, [diameter(P, 272, 4, [...originAvps, avp(268, u32(2001))])])).toBe('Diameter (DPI)');
    // An error answer (E) to a Re-Auth request: DIAMETER_UNABLE_TO_DELIVER.
    expect(await classify('tcp', 40803, 3868, [diameter(E, 258, 4, [...originAvps, avp(268, u32(3002))])])).toBe('Diameter (DPI)');
    // A request retransmitted with only T set.
    expect(await classify('tcp', 40804, 3868, [diameter(T, 271, 3, originAvps)])).toBe('Diameter (DPI)');
    let port = 40805;
    for (const code of [258, 271, 272, 274, 275, 280, 282]) expect(await classify('tcp', port++, 3868, [diameter(R, code, 0, originAvps)])).toBe('Diameter (DPI)');
    expect(await classify('tcp', 40820, 3868, [diameter(0x00, 257, 0, [avp(268, u32(2001)), ...originAvps])])).not.toBe('Diameter (DPI)');
    expect(await classify('tcp', 40821, 3868, [cer(R | P)])).not.toBe('Diameter (DPI)');
    expect(await classify('tcp', 40822, 3868, [diameter(R, 257, 0, originAvps, 2)])).not.toBe('Diameter (DPI)');
    expect(await classify('tcp', 40823, 3868, [diameter(R, 316, 16777251, originAvps)])).not.toBe('Diameter (DPI)');
    expect(await classify('tcp', 40824, 3868, [diameter(R, 257, 0).subarray(0, 19)])).not.toBe('Diameter (DPI)');
  });

  it('Diameter: nDPI reads the command code with its high byte at bits 8-15, so 0x010001 passes as 257', async () => {
    expect(await classify('tcp', 40830, 3868, [diameter(R, 0x010001, 0, originAvps)])).toBe('Diameter (DPI)');
  });
});
