// Audit 4: each dissector checked against nDPI 4.11's own source; for each
// difference fixed, one hand-built flow nDPI names and a near miss (one
// detail wrong) it does not name that protocol by DPI.
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-4-');

describe('audit 4', () => {
  it('SOMEIP: a magic cookie needs its fixed header (request id 0xdeadbeef)', async () => {
    // message id, length (8), request id, version 1, interface 1, type, return code
    const cookie = (id: number, req: number) => Buffer.concat([u32(id), u32(8), u32(req), Buffer.from([1, 1, 0x01, 0])]);
    expect(await classify('udp', 49191, 49201, [cookie(0xffff0000, 0xdeadbeef)], [true])).toBe('SOMEIP (DPI)');
    expect(await classify('udp', 49192, 49201, [cookie(0xffff8000, 0xdeadbeef)], [true])).toBe('SOMEIP (DPI)');
    expect(await classify('udp', 49193, 49201, [cookie(0xffff0000, 0xdeadbeee)], [true])).not.toMatch(/^SOMEIP/);
    expect(await classify('udp', 49194, 49201, [cookie(0xffff8000, 0x12345678)], [true])).not.toMatch(/^SOMEIP/);
  });

  it('Modbus: function code read as is (0xDA is plain Modbus, 0 too); a short first packet ends the search', async () => {
    // transaction id, protocol id 0, length (unit id + PDU), unit id, function, data
    const mbap = (fc: number, data: Buffer) => Buffer.concat([u16(1), u16(0), u16(2 + data.length), Buffer.from([1, fc]), data]);
    expect(await classify('tcp', 40200, 502, [mbap(0xda, Buffer.from([2]))])).toBe('Modbus (DPI)');
    expect(await classify('tcp', 40201, 502, [mbap(0x00, Buffer.from([0, 1]))])).toBe('Modbus (DPI)');
    expect(await classify('tcp', 40202, 502, [mbap(0x5a, Buffer.from([0, 2]))])).toBe('Modbus.UMAS (DPI)');
    expect(await classify('tcp', 40203, 502, [Buffer.from([0, 1, 0, 0, 0, 1, 1]), mbap(3, Buffer.from([0, 0, 0, 2]))], [true, true])).not.toMatch(/\(DPI\)/);
  });

  it('Nats: the CRLF must come before any NUL byte; a first packet of 4 bytes ends the search', async () => {
    expect(await classify('tcp', 40210, 4222, [txt('PUB foo 0\r\n\0')], [true])).toBe('Nats (DPI)');
    expect(await classify('tcp', 40211, 4222, [txt('PUB foo\0 0\r\n')], [true])).not.toMatch(/^Nats/);
    expect(await classify('tcp', 40212, 4222, [txt('PING'), txt('PING\r\n')], [true, true])).not.toMatch(/^Nats/);
  });

  it('RX: waits for the reply past 8 client packets (nDPI sets no limit of its own); a reply on another connection is not RX', async () => {
    // epoch, connection id, call, sequence, serial, type, flags, status, security, checksum, service
    const rx = (epoch: number, conn: number, type: number, flags: number) =>
      Buffer.concat([u32(epoch), u32(conn), u32(1), u32(1), u32(1), Buffer.from([type, flags, 0, 0]), u16(0), u16(1), Buffer.alloc(8, 0x33)]);
    const calls = Array.from({ length: 10 }, () => rx(0x5e0a1b2c, 0x11223344, 1, 1));
    const dirs = [...calls.map(() => true), false];
    expect(await classify('udp', 7101, 7003, [...calls, rx(0x5e0a1b2c, 0x11223344, 1, 4)], dirs)).toBe('RX (DPI)');
    expect(await classify('udp', 7102, 7003, [...calls, rx(0x5e0a1b2c, 0x11223345, 1, 4)], dirs)).not.toMatch(/^RX/);
  });

  it('Jabber: presence, iq commands and stream end are Jabber; a stream header without the namespace waits; TCP only', async () => {
    const presence = "<presence from='a@b'><x xmlns='http://jabber.org/protocol/muc'/></presence>";
    expect(await classify('tcp', 40300, 5222, [txt(presence)], [true])).toBe('Jabber (DPI)');
    expect(await classify('tcp', 40301, 5222, [txt("<presence from='a@b'><x xmlns='urn:xmpp:muc'/></presence>")], [true])).not.toMatch(/^Jabber/);
    expect(await classify('tcp', 40302, 5222, [txt("<iq type='set' id='1'><command xmlns='http://jabber.org/protocol/commands'/></iq>")], [true])).toBe('Jabber (DPI)');
    expect(await classify('tcp', 40303, 5222, [txt('</stream:stream>')], [false])).toBe('Jabber (DPI)');
    expect(await classify('tcp', 40304, 5222, [txt('</stream:stream>\n')], [false])).not.toMatch(/^Jabber/);
    // The XML declaration alone waits; the stream header that follows names it.
    const header = "<stream:stream to='example.org' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>";
    expect(await classify('tcp', 40305, 5222, [txt("<?xml version='1.0'?>"), txt(header)], [true, true])).toBe('Jabber (DPI)');
    // The namespace after a NUL byte is not seen.
    expect(await classify('tcp', 40306, 5222, [txt("<stream:stream to='x'\0" + header.slice(15))], [true])).not.toMatch(/^Jabber/);
    expect(await classify('udp', 40307, 5222, [txt(header)], [true])).not.toMatch(/^Jabber/);
  });

  it('Jabber: old-style SSL records (byte 2 = length) name the flow from the fourth payload packet; another first byte gives up', async () => {
    const rec = (first: number) => Buffer.concat([Buffer.from([first, 0, 20]), Buffer.alloc(17, 0x41)]);
    const four = [rec(0x30), rec(0x25), rec(0x26), rec(0x99)];
    expect(await classify('tcp', 40310, 5223, four, [true, false, true, false])).toBe('Jabber (DPI)');
    expect(await classify('tcp', 40311, 5223, [rec(0x30), rec(0x25), rec(0x26)], [true, false, true])).not.toMatch(/^Jabber/);
    expect(await classify('tcp', 40312, 5223, [rec(0x31), rec(0x25), rec(0x26), rec(0x30)], [true, false, true, false])).not.toMatch(/^Jabber/);
  });

  it('Protobuf: a cut 32-bit field refuses the flow; a cut length still counts as a field', async () => {
    const v = (n: number) => Buffer.concat(Array.from({ length: n }, () => Buffer.from([0x08, 0x01])));  // field 1, varint 1
    const len = Buffer.from([0x12, 0x02, 0x41, 0x41]);  // field 2, two bytes
    expect(await classify('tcp', 40400, 40500, [Buffer.concat([v(6), len, Buffer.from([0x1d, 1, 2, 3, 4])])], [true])).toBe('Protobuf (DPI)');
    expect(await classify('tcp', 40401, 40500, [Buffer.concat([v(6), len, Buffer.from([0x1d, 1, 2])])], [true])).not.toMatch(/^Protobuf/);
    // Seven whole fields and a length-delimited one whose length is cut: eight.
    expect(await classify('tcp', 40402, 40500, [Buffer.concat([v(6), len, Buffer.from([0x12, 0x80])])], [true])).toBe('Protobuf (DPI)');
    expect(await classify('tcp', 40403, 40500, [Buffer.concat([v(5), len, Buffer.from([0x12, 0x80])])], [true])).not.toMatch(/^Protobuf/);
  });

  it('Protobuf: over UDP a first packet that RTP also reads waits for a second', async () => {
    const v = (n: number) => Buffer.concat(Array.from({ length: n }, () => Buffer.from([0x08, 0x01])));
    const len = Buffer.from([0x12, 0x02, 0x41, 0x41]);
    // 0x80 0x08: an RTP header (version 2, type 8) and a varint tag (field 128).
    const rtpLike = Buffer.concat([Buffer.from([0x80, 0x08, 0x01]), v(6), len]);
    expect(await classify('udp', 40410, 40510, [rtpLike], [true])).not.toMatch(/^Protobuf/);
    expect(await classify('udp', 40411, 40510, [rtpLike, rtpLike], [true, true])).toBe('Protobuf (DPI)');
    expect(await classify('udp', 40412, 40510, [Buffer.concat([v(7), len])], [true])).toBe('Protobuf (DPI)');
  });

  it('TFTP: block numbers do not wrap (0 does not follow 65535)', async () => {
    const ack = (n: number) => Buffer.concat([u16(4), u16(n)]);
    // Each ACK counts when it follows the last one (+1 or the same); the fourth counted names it.
    expect(await classify('udp', 40600, 40601, [ack(65531), ack(65532), ack(65533), ack(65534), ack(65535)], [true, true, true, true, true])).toBe('TFTP (DPI)');
    expect(await classify('udp', 40602, 40601, [ack(65532), ack(65533), ack(65534), ack(65535), ack(0)], [true, true, true, true, true])).not.toMatch(/^TFTP/);
  });

  it('RX: an empty datagram from the other side is no reply (nDPI counts payload packets per direction)', async () => {
    const rx = (epoch: number, conn: number, flags: number) =>
      Buffer.concat([u32(epoch), u32(conn), u32(1), u32(1), u32(1), Buffer.from([1, flags, 0, 0]), u16(0), u16(1), Buffer.alloc(8, 0x33)]);
    const call = rx(0x5e0a1b2c, 0x11223344, 1);
    expect(await classify('udp', 7111, 7003, [call, Buffer.alloc(0), call], [true, false, true])).not.toMatch(/^RX/);
    expect(await classify('udp', 7112, 7003, [call, Buffer.alloc(0), call, rx(0x5e0a1b2c, 0x11223344, 4)], [true, false, true, false])).toBe('RX (DPI)');
  });
});
