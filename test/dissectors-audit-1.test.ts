// Audit 1: dissectors checked against nDPI 4.11's own source; for each
// difference fixed, a hand-built case nDPI accepts and a near miss it
// rejects.
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit1-');
const run = flowRunner('fg-dissectors-audit1-run-');

// ── NetBIOS over UDP (netbios.c) ───────────────────────────────────────────
// A name in first-level encoding: length 32, two letters per byte, a zero label.
const nbEncoded = (name: string) =>
  Buffer.concat([Buffer.from([0x20]), txt(name.padEnd(16, ' ').split('').map((ch) => {
    const c = ch.charCodeAt(0);
    return String.fromCharCode(0x41 + (c >> 4), 0x41 + (c & 15));
  }).join('')), Buffer.from([0])]);
const nbHeader = (flags: number, qd: number, an: number, ns: number, ar: number) =>
  Buffer.concat([u16(0x4242), u16(flags), u16(qd), u16(an), u16(ns), u16(ar)]);

describe('NetBIOS over UDP as netbios.c', () => {
  it('to 137: nDPI\'s header shapes on 50 bytes or more, to the packet\'s destination port 137 only', async () => {
    const q = (flags: number, ar = 0) => Buffer.concat([nbHeader(flags, 1, 0, 0, ar), nbEncoded('FRED'), u16(0x20), u16(1)]);
    expect(q(0).length).toBe(50);
    expect(await classify('udp', 50000, 137, [q(0)])).toBe('NetBIOS (DPI)');
    // 49 bytes: too short for every shape
    expect(await classify('udp', 50001, 137, [q(0).subarray(0, 49)])).not.toBe('NetBIOS (DPI)');
    // sent from 137 to another port: nDPI looks at the destination only
    expect(await classify('udp', 137, 50002, [q(0)])).not.toBe('NetBIOS (DPI)');
    // a registration (flags 0x2910, one additional record) is taken on its header
    expect(await classify('udp', 50003, 137, [Buffer.concat([q(0x2910, 1), Buffer.alloc(12)])])).toBe('NetBIOS (DPI)');
    // opcode 5 with flags 0x2800 and one additional record is none of nDPI's shapes
    expect(await classify('udp', 50004, 137, [Buffer.concat([q(0x2800, 1), Buffer.alloc(12)])])).not.toBe('NetBIOS (DPI)');
    // a query with recursion desired but no broadcast (0x0100): the question must close the packet
    expect(await classify('udp', 50005, 137, [q(0x0100)])).toBe('NetBIOS (DPI)');
    expect(await classify('udp', 50006, 137, [Buffer.concat([q(0x0100), Buffer.from([0])])])).not.toBe('NetBIOS (DPI)');
  });
  it('to 137: a negative response (flags 0x8300, no records) wants a NULL-type record after the name', async () => {
    const neg = (type: number) => Buffer.concat([nbHeader(0x8300, 0, 0, 0, 0), nbEncoded('FRED'), u16(type), u16(1)]);
    expect(await classify('udp', 50010, 137, [neg(0x0a)])).toBe('NetBIOS (DPI)');
    expect(await classify('udp', 50011, 137, [neg(0x20)])).not.toBe('NetBIOS (DPI)');
  });
  it('to 138: length, type and the sender\'s address; nothing else (no name check)', async () => {
    const dgm = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 0x02, 0x11, 0x22]), Buffer.from([10, 0, 0, 1]), u16(138), u16(body.length), u16(0), body]);
    const names = Buffer.concat([nbEncoded('FRED'), nbEncoded('WORKGROUP')]);
    expect(await classify('udp', 138, 138, [dgm(0x11, names)])).toBe('NetBIOS (DPI)');
    // a query datagram (0x14) with a length that does not count the rest
    const bad = dgm(0x14, names);
    bad.writeUInt16BE(names.length + 1, 10);
    expect(await classify('udp', 138, 138, [bad])).not.toBe('NetBIOS (DPI)');
    // over IPv6 nDPI has no address to compare: not NetBIOS
    expect(await classify('udp', 138, 138, [dgm(0x11, names)], undefined, { v6: true })).not.toBe('NetBIOS (DPI)');
  });
  it('names the flow after the first decoded name', async () => {
    const q = Buffer.concat([nbHeader(0x0110, 1, 0, 0, 0), nbEncoded('FRED'), u16(0x20), u16(1)]);
    const { flow } = await run('udp', 50020, 137, [q]);
    expect(flow.host_name).toBe('fred');
  });
});

// ── Gnutella (gnutella.c) ──────────────────────────────────────────────────
describe('Gnutella as gnutella.c', () => {
  it('UDP: a Mojito-DHT frame ("GTKG" at 24, little-endian length at 19 counting from 23)', async () => {
    const body = Buffer.alloc(40, 0x11);
    const dht = (len: number) => {
      const b = Buffer.concat([Buffer.alloc(19, 0x22), le32(len), Buffer.alloc(1, 0), txt('GTKG'), body]);
      return b;
    };
    const ok = dht(40 + 5 + 0); // 19+4+1+4+40 = 68 bytes, 68-23 = 45
    ok.writeUInt32LE(ok.length - 23, 19);
    expect(await classify('udp', 40000, 40001, [ok])).toBe('Gnutella (DPI)');
    const bad = Buffer.from(ok);
    bad.writeUInt32LE(ok.length - 22, 19);
    expect(await classify('udp', 40002, 40003, [bad])).not.toBe('Gnutella (DPI)');
  });
  it('UDP: "GND" frames (0x10 after it, or an 8-byte frame with 01 00 at 6)', async () => {
    expect(await classify('udp', 40010, 40011, [Buffer.concat([txt('GND'), Buffer.from([0x10, 9, 9, 9])])])).toBe('Gnutella (DPI)');
    expect(await classify('udp', 40012, 40013, [Buffer.concat([txt('GND'), Buffer.from([0x02, 9, 9, 1, 0])])])).toBe('Gnutella (DPI)');
    expect(await classify('udp', 40014, 40015, [Buffer.concat([txt('GND'), Buffer.from([0x02, 9, 9, 1, 1])])])).not.toBe('Gnutella (DPI)');
  });
  // HTTP (first in nDPI's order) takes these requests; Gnutella, one of its
  // sub-protocols, then names the application
  it('TCP: a "GET /uri-res/" request with an X-Gnutella- line; not with another header', async () => {
    const req = (h: string) => txt(`GET /uri-res/N2R?abcdefghijklmnopqrstuvwxyz0123456789\r\n${h}\r\n\r\n`);
    expect(await classify('tcp', 40020, 6346, [req('X-Gnutella-Content-URN: a')])).toBe('HTTP.Gnutella (DPI)');
    expect(await classify('tcp', 40021, 6346, [req('X-Other-Content-URN: abc')])).not.toBe('Gnutella (DPI)');
  });
  it('TCP: "HEAD /gnutella/push-proxy?" over 30 bytes; a 46-byte "PUSH guid:"', async () => {
    expect(await classify('tcp', 40030, 6346, [txt('HEAD /gnutella/push-proxy?guid=1')])).toBe('HTTP.Gnutella (DPI)');
    expect(await classify('tcp', 40031, 6346, [txt('HEAD /gnutella/push-proxy?g=1')])).not.toBe('Gnutella (DPI)');
    expect(await classify('tcp', 40032, 6346, [txt('PUSH guid:'.padEnd(46, 'A'))])).toBe('Gnutella (DPI)');
    expect(await classify('tcp', 40033, 6346, [txt('PUSH guid:'.padEnd(47, 'A'))])).not.toBe('Gnutella (DPI)');
  });
  it('TCP: a "GIV …\\n\\n" packet waits for the next one', async () => {
    expect(await classify('tcp', 40040, 6346, [txt('GIV 0:ABCD/file\n\n'), txt('GNUTELLA/0.6 200 OK\r\n')], [true, false])).toBe('Gnutella (DPI)');
    expect(await classify('tcp', 40041, 6346, [txt('GIV 0:ABCD/file\n'), txt('GNUTELLA/0.6 200 OK\r\n')], [true, false])).not.toBe('Gnutella (DPI)');
  });
});

describe('Gnutella as one of HTTP\'s sub-protocols', () => {
  it('an HTTP request "GET /get/…" with a Gnutella user agent: HTTP.Gnutella', async () => {
    const req = (ua: string) => txt(`GET /get/12/some-shared-file.mp3 HTTP/1.1\r\nHost: 10.0.0.2\r\nUser-Agent: ${ua}\r\n\r\n`);
    expect(await classify('tcp', 40050, 80, [req('Gnutella/0.6 servent')])).toBe('HTTP.Gnutella (DPI)');
    expect(await classify('tcp', 40051, 80, [req('Mozilla/5.0 browser')])).not.toMatch(/Gnutella/);
  });
});

// ── MySQL (mysql.c) ────────────────────────────────────────────────────────
const mysqlHello = (version: string, tail: string, fill = 25) => {
  const body = Buffer.concat([Buffer.from([0x0a]), txt(`${version}\0`), le32(7), Buffer.alloc(8, 0x41), Buffer.from([0]), Buffer.alloc(fill, 0x42), txt(`${tail}\0`)]);
  return Buffer.concat([Buffer.from([body.length & 255, body.length >> 8, 0, 0]), body]);
};
describe('MySQL as mysql.c', () => {
  it('the first payload packet only, 71..119 bytes, ending with an auth plugin name', async () => {
    expect(mysqlHello('8.0.36', 'caching_sha2_password').length).toBe(72);
    expect(await classify('tcp', 41000, 3306, [mysqlHello('8.0.36', 'caching_sha2_password')], [false])).toBe('MySQL (DPI)');
    expect(await classify('tcp', 41001, 3306, [mysqlHello('5.5.5-10.6.12-MariaDB', 'mysql_native_password', 10)], [false])).toBe('MySQL (DPI)');
    // another plugin name
    expect(await classify('tcp', 41002, 3306, [mysqlHello('8.0.36', 'caching_sha2_passwore')], [false])).not.toBe('MySQL (DPI)');
    // version 3.x is not in nDPI's range
    expect(await classify('tcp', 41003, 3306, [mysqlHello('3.0.36', 'caching_sha2_password')], [false])).not.toBe('MySQL (DPI)');
    // 120 bytes: too long
    expect(await classify('tcp', 41004, 3306, [mysqlHello('8.0.36', 'caching_sha2_password', 73)], [false])).not.toBe('MySQL (DPI)');
    // a client packet first: nDPI has excluded MySQL by the server's greeting
    expect(await classify('tcp', 41005, 3306, [txt('hello'), mysqlHello('8.0.36', 'caching_sha2_password')], [true, false])).not.toBe('MySQL (DPI)');
  });
});

// ── PPTP (pptp.c) ──────────────────────────────────────────────────────────
describe('PPTP as pptp.c', () => {
  it('a Start-Control-Connection-Request (control type 1) only; not its reply (type 2)', async () => {
    const ctl = (type: number) => {
      const b = Buffer.concat([u16(156), u16(1), u32(0x1a2b3c4d), u16(type), Buffer.alloc(146)]);
      return b;
    };
    expect(await classify('tcp', 41100, 1723, [ctl(1)])).toBe('PPTP (DPI)');
    expect(await classify('tcp', 41101, 1723, [ctl(2)], [false])).not.toBe('PPTP (DPI)');
  });
});

// ── WhatsApp (whatsapp.c) ──────────────────────────────────────────────────
describe('WhatsApp as whatsapp.c', () => {
  it('"ED\\0\\1" alone waits: WhatsApp only when the next packet goes on with the prologue', async () => {
    const rest = Buffer.concat([Buffer.from([0, 0, 2, 8]), Buffer.alloc(40, 3)]);
    expect(await classify('tcp', 41200, 5222, [txt('ED\x00\x01'), rest], [true, true])).toBe('WhatsApp (DPI)');
    // the server answering something else: nDPI excludes WhatsApp
    expect(await classify('tcp', 41201, 5222, [txt('ED\x00\x01'), Buffer.from([0, 0, 0x31, 1, 2, 3])], [true, false])).not.toBe('WhatsApp (DPI)');
    // in three pieces, any direction
    expect(await classify('tcp', 41202, 5222, [txt('ED'), Buffer.from([0, 1, 0, 0]), Buffer.from([4, 8, 1])], [true, true, true])).toBe('WhatsApp (DPI)');
  });
});

// ── SMPP (smpp.c) ──────────────────────────────────────────────────────────
const smppPdu = (cmd: number, status: number, body: Buffer) => Buffer.concat([u32(16 + body.length), u32(cmd), u32(status), u32(1), body]);
describe('SMPP as smpp.c', () => {
  it('ids nDPI does not shape-check pass: an outbind response (0x8000000b)', async () => {
    expect(await classify('tcp', 41300, 2775, [smppPdu(0x8000000b, 0, Buffer.alloc(0))])).toBe('SMPP (DPI)');
    // an unknown command (0x0a) excludes
    expect(await classify('tcp', 41301, 2775, [smppPdu(0x0000000a, 0, Buffer.alloc(0))])).not.toBe('SMPP (DPI)');
  });
  it('a generic_nack with a body is not SMPP; enquire_link with a non-zero status neither', async () => {
    expect(await classify('tcp', 41302, 2775, [smppPdu(0x80000000, 0, Buffer.alloc(0))])).toBe('SMPP (DPI)');
    expect(await classify('tcp', 41303, 2775, [smppPdu(0x80000000, 0, Buffer.alloc(2))])).not.toBe('SMPP (DPI)');
    expect(await classify('tcp', 41304, 2775, [smppPdu(0x00000015, 1, Buffer.alloc(0))])).not.toBe('SMPP (DPI)');
  });
  it('a segment the PDUs do not tile waits for the next (a bad command byte does not exclude it)', async () => {
    const broken = Buffer.concat([u32(40), Buffer.from([0x42, 0, 0, 0]), Buffer.alloc(12)]);
    expect(await classify('tcp', 41305, 2775, [broken, smppPdu(0x00000015, 0, Buffer.alloc(0))], [true, true])).toBe('SMPP (DPI)');
  });
});

// ── RSH (rsh.c) ────────────────────────────────────────────────────────────
describe('RSH as rsh.c', () => {
  it('port then users from an unprivileged port to any port: RSH with clear-text credentials', async () => {
    const { flow } = await run('tcp', 40001, 40514, [txt('1022\0'), txt('alice\0root\0ls\0')], [true, true]);
    expect(`${flow.l7_master}/${flow.l7_app}` === '0/0').toBe(false);
    expect(flow.risks).toContain('Clear-Text Credentials');
    expect(await classify('tcp', 40002, 40514, [txt('10a2\0'), txt('alice\0root\0ls\0')], [true, true])).not.toBe('RSH (DPI)');
    // the users packet must end with a NUL
    expect(await classify('tcp', 40003, 40514, [txt('1022\0'), txt('alice\0root\0ls')], [true, true])).not.toBe('RSH (DPI)');
  });
  it('mid-stream on port 514: the sixth payload packet ending with a newline', async () => {
    const lines = Array.from({ length: 6 }, (_, i) => txt(`output line ${i}\n`));
    expect(await classify('tcp', 40010, 514, lines, [false, false, false, false, false, false])).toBe('RSH (DPI)');
    expect(await classify('tcp', 40011, 514, lines.slice(0, 5), [false, false, false, false, false])).not.toBe('RSH (DPI)');
  });
});

// ── Z39.50 (z3950.c) ───────────────────────────────────────────────────────
describe('Z39.50 as z3950.c', () => {
  const pdu = Buffer.from('b41c830200e0840300e9a2850404000000860404000000' + '87020000' + '9f6e023831' + '00', 'hex');
  it('the fourth packet with six elements names the flow; three do not', async () => {
    expect(await classify('tcp', 40020, 210, [pdu, pdu, pdu, pdu], [true, false, true, false])).toBe('Z3950 (DPI)');
    expect(await classify('tcp', 40021, 210, [pdu, pdu, pdu], [true, false, true])).not.toBe('Z3950 (DPI)');
  });
  it('only packets with six elements count (z3950_stage): one with two waits without counting', async () => {
    const two = Buffer.from('b408830200e0840200e9', 'hex');  // two elements ending the packet: wait
    expect(await classify('tcp', 40023, 210, [two, pdu, pdu, pdu], [true, false, true, false])).not.toBe('Z3950 (DPI)');
    expect(await classify('tcp', 40024, 210, [two, pdu, pdu, pdu, pdu], [true, false, true, false, true])).toBe('Z3950 (DPI)');
  });
  it('both directions must have sent payload (packet_direction_counter): the server acknowledging only is not enough', async () => {
    expect(await classify('tcp', 40025, 210, [pdu, pdu, pdu, pdu], [true, true, true, true])).not.toBe('Z3950 (DPI)');
    expect(await classify('tcp', 40026, 210, [pdu, pdu, pdu, pdu], [true, true, true, false])).toBe('Z3950 (DPI)');
  });
  it('a PDU tag below 20 excludes', async () => {
    const low = Buffer.from(pdu);
    low[0] = 0xa1;
    expect(await classify('tcp', 40022, 210, [low, low, low, low], [true, false, true, false])).not.toBe('Z3950 (DPI)');
  });
});

// ── PostgreSQL (postgres.c) ────────────────────────────────────────────────
describe('PostgreSQL as postgres.c', () => {
  const startup = (code: number) => {
    const params = txt('user\0postgres\0\0');
    return Buffer.concat([u32(8 + params.length), u32(code), params]);
  };
  it('request then answer: a GSSENCRequest refused (N); not the request alone', async () => {
    const gss = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30]);
    expect(await classify('tcp', 41400, 5432, [gss, txt('N')])).toBe('PostgreSQL (DPI)');
    expect(await classify('tcp', 41401, 5432, [gss])).not.toBe('PostgreSQL (DPI)');
  });
  it('a StartupMessage answered by an MD5 password request (R, length, code 5 + salt)', async () => {
    const md5 = Buffer.concat([txt('R'), u32(12), u32(5), Buffer.from([1, 2, 3, 4])]);
    expect(await classify('tcp', 41402, 5432, [startup(0x30000), md5])).toBe('PostgreSQL (DPI)');
    const bad = Buffer.from(md5);
    bad.writeUInt32BE(13, 1);
    expect(await classify('tcp', 41403, 5432, [startup(0x30000), bad])).not.toBe('PostgreSQL (DPI)');
  });
});

// ── MQTT (mqtt.c) ──────────────────────────────────────────────────────────
describe('MQTT as mqtt.c', () => {
  it('a PUBLISH with a two-byte remaining length; not with a length one short', async () => {
    const body = Buffer.concat([u16(3), txt('a/b'), Buffer.alloc(200, 0x61)]);
    const pub = (rl: number) => Buffer.concat([Buffer.from([0x30, 0x80 | (rl & 0x7f), rl >> 7]), body]);
    expect(await classify('tcp', 41500, 1883, [pub(body.length)], [false])).toBe('MQTT (DPI)');
    expect(await classify('tcp', 41501, 1883, [pub(body.length - 1)], [false])).not.toBe('MQTT (DPI)');
  });
  it('a CONNECT from the server side counts too; a PINGREQ with flags excludes', async () => {
    expect(await classify('tcp', 41502, 1883, [Buffer.from([0x10, 2, 0, 0])], [false])).toBe('MQTT (DPI)');
    expect(await classify('tcp', 41503, 1883, [Buffer.from([0xc1, 0])])).not.toBe('MQTT (DPI)');
  });
});

// ── Kerberos (kerberos.c) ──────────────────────────────────────────────────
describe('Kerberos as kerberos.c', () => {
  // AS-REQ head: APPLICATION 10, SEQUENCE (long lengths), pvno [1] 5, msg-type [2] 10
  const asReq = (msgType: number, size = 120) => {
    const b = Buffer.alloc(size, 0);
    Buffer.from([0x6a, 0x81, size - 3, 0x30, 0x81, size - 6, 0xa1, 3, 2, 1, 5, 0xa2, 3, 2, 1, msgType]).copy(b);
    return b;
  };
  it('to or from port 88 only', async () => {
    expect(await classify('udp', 41600, 88, [asReq(10)])).toBe('Kerberos (DPI)');
    expect(await classify('udp', 88, 41601, [asReq(30)], [false])).toBe('Kerberos (DPI)');
    expect(await classify('udp', 41602, 8888, [asReq(10)])).not.toBe('Kerberos (DPI)');
  });
  it('more than 64 bytes', async () => {
    expect(await classify('udp', 41603, 88, [asReq(10, 65)])).toBe('Kerberos (DPI)');
    expect(await classify('udp', 41604, 88, [asReq(10, 64)])).not.toBe('Kerberos (DPI)');
  });
  it('TCP: a message longer than its first segment is read by its start; a shorter one excludes', async () => {
    const msg = asReq(12, 200);
    expect(await classify('tcp', 41605, 88, [Buffer.concat([u32(200), msg.subarray(0, 100)])])).toBe('Kerberos (DPI)');
    expect(await classify('tcp', 41606, 88, [Buffer.concat([u32(90), msg.subarray(0, 100)])])).not.toBe('Kerberos (DPI)');
  });
});

// ── LDAP (ldap.c) ──────────────────────────────────────────────────────────
describe('LDAP as ldap.c', () => {
  const msg = (op: number, body: Buffer, seqLen?: number) => {
    const inner = Buffer.concat([Buffer.from([0x02, 0x01, 0x05, op, body.length]), body]);
    return Buffer.concat([Buffer.from([0x30, seqLen ?? inner.length]), inner]);
  };
  it('any port, the SEQUENCE length not compared with the packet', async () => {
    const bind = msg(0x60, Buffer.from([0x02, 0x01, 0x03, 0x04, 0x00, 0x80, 0x00]), 0x7f);
    expect(await classify('tcp', 41700, 41389, [bind])).toBe('LDAP (DPI)');
    expect(await classify('udp', 41701, 41389, [bind])).toBe('LDAP (DPI)');
  });
  it('a primitive op (unbindRequest 0x42) is not LDAP to nDPI', async () => {
    expect(await classify('tcp', 41702, 389, [msg(0x63, Buffer.alloc(4, 1))])).toBe('LDAP (DPI)');
    expect(await classify('tcp', 41703, 389, [Buffer.from([0x30, 0x05, 0x02, 0x01, 0x05, 0x42, 0x00])])).not.toBe('LDAP (DPI)');
  });
});

// ── IPSec (ipsec.c) ────────────────────────────────────────────────────────
describe('IPSec as ipsec.c', () => {
  // ISAKMP header: SPIs, next payload, version, exchange, flags, message id, length
  const isakmp = (version: number, next: number, exchange: number, flags: number, extra = 0, spi = 0x11) => {
    const b = Buffer.alloc(28 + extra, 0);
    b.fill(spi, 0, 8);
    b[16] = next, b[17] = version, b[18] = exchange, b[19] = flags;
    b.writeUInt32BE(b.length, 24);
    return b;
  };
  it('an IKEv1 main mode on any port; a zero first word is read as the non-ESP marker', async () => {
    expect(await classify('udp', 41800, 41801, [isakmp(0x10, 1, 2, 0, 20)])).toBe('IPSec (DPI)');
    expect(await classify('udp', 41808, 41809, [isakmp(0x10, 1, 2, 0, 20, 0)])).not.toBe('IPSec (DPI)');
    // version 0x11: not exactly 1.0
    expect(await classify('udp', 41802, 41803, [isakmp(0x11, 1, 2, 0, 20)])).not.toBe('IPSec (DPI)');
  });
  it('bad fields: IPSec with a malformed-packet risk on port 500, excluded elsewhere', async () => {
    const bad = isakmp(0x20, 33, 34, 0x01, 20); // flag bit 0x01 is not allowed in IKEv2
    const { flow } = await run('udp', 41804, 500, [bad]);
    expect(flow.risks).toContain('Malformed Packet');
    expect(await classify('udp', 41805, 500, [bad])).toBe('IPSec (DPI)');
    expect(await classify('udp', 41806, 41807, [bad])).not.toBe('IPSec (DPI)');
  });
});

// ── SSDP (ssdp.c) and NTP (ntp.c) ──────────────────────────────────────────
describe('SSDP and NTP as nDPI', () => {
  it('SSDP: 19 bytes at least; the Host header names the flow', async () => {
    expect(await classify('udp', 41900, 41901, [txt('NOTIFY * HTTP/1.1\r\n')])).toBe('SSDP (DPI)');
    expect(await classify('udp', 41902, 41903, [txt('NOTIFY * HTTP/1.1\r')])).not.toBe('SSDP (DPI)');
    const { flow } = await run('udp', 41904, 1900, [txt('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900 \r\nMX: 1\r\n\r\n')]);
    expect(flow.host_name).toBe('239.255.255.250:1900');
  });
  it('NTP: any length and mode with version 0..4 to or from port 123', async () => {
    expect(await classify('udp', 41905, 123, [Buffer.from([0x20, 0, 0, 0])])).toBe('NTP (DPI)');
    expect(await classify('udp', 41906, 123, [Buffer.from([0x28, 0, 0, 0])])).not.toBe('NTP (DPI)');
  });
});

// ── SNMP (snmp_proto.c) and Syslog (syslog.c) ──────────────────────────────
describe('SNMP and Syslog as nDPI', () => {
  // a v2c GetResponse with the given error-status
  const snmpResp = (status: number) => {
    const pdu = Buffer.from([0xa2, 0x0e, 0x02, 0x01, 0x01, 0x02, 0x01, status, 0x02, 0x01, 0x00, 0x30, 0x03, 0x30, 0x01, 0x05]);
    const body = Buffer.concat([Buffer.from([0x02, 0x01, 0x01, 0x04, 6]), txt('public'), pdu]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  };
  it('SNMP: a GetResponse with a non-zero error-status raises the error-code risk', async () => {
    const bad = await run('udp', 161, 42000, [snmpResp(2)], [false]);
    expect(bad.flow.risks).toContain('Error Code');
    const ok = await run('udp', 161, 42001, [snmpResp(0)], [false]);
    expect(ok.flow.risks).not.toContain('Error Code');
  });
  it('SNMP: the GetResponse may come after the request', async () => {
    const req = snmpResp(0);
    req[13] = 0xa0; // GetRequest
    const { flow } = await run('udp', 42002, 161, [req, snmpResp(5)]);
    expect(flow.risks).toContain('Error Code');
  });
  it('SNMP: only to or from 161 / 162', async () => {
    expect(await classify('udp', 42003, 42004, [snmpResp(0)])).not.toBe('SNMP (DPI)');
  });
  it('Syslog: "<>" with no digits, any port, UDP or TCP; not a tag with a "/"', async () => {
    expect(await classify('udp', 42010, 42011, [txt('<>kernel: something happened')])).toBe('Syslog (DPI)');
    expect(await classify('tcp', 42012, 42013, [txt('<13>kernel[12]: something happened')])).toBe('Syslog (DPI)');
    expect(await classify('udp', 42014, 42015, [txt('<13>usr/bin: something happened')])).not.toBe('Syslog (DPI)');
    // a ':' after the tag must be followed by a space
    expect(await classify('udp', 42016, 42017, [txt('<13>kernel:something happened')])).not.toBe('Syslog (DPI)');
  });
});

// ── SOCKS (socks45.c) ──────────────────────────────────────────────────────
describe('SOCKS as socks45.c', () => {
  it('a SOCKS5 greeting offering two methods (05 02 00 01) answered by 05 00; not 05 02 00 02', async () => {
    expect(await classify('tcp', 42100, 1080, [Buffer.from([5, 2, 0, 1]), Buffer.from([5, 0])])).toBe('SOCKS (DPI)');
    expect(await classify('tcp', 42101, 1080, [Buffer.from([5, 2, 0, 2]), Buffer.from([5, 0])])).not.toBe('SOCKS (DPI)');
  });
});

// ── DHCPv6, LISP, HART-IP (dhcpv6.c, lisp.c, hart-ip.c) ────────────────────
describe('DHCPv6, LISP and HART-IP as nDPI', () => {
  it('DHCPv6 over IPv6 only', async () => {
    const solicit = Buffer.from([1, 0x12, 0x34, 0x56, 0, 1, 0, 0]);
    expect(await classify('udp', 546, 547, [solicit], undefined, { v6: true })).toBe('DHCPV6 (DPI)');
    expect(await classify('udp', 546, 547, [solicit])).not.toBe('DHCPV6 (DPI)');
  });
  it('LISP over TCP: the end marker, on 4342 at either end', async () => {
    const msg = Buffer.concat([u16(0x0014), u16(64), Buffer.alloc(8), Buffer.from([0x9f, 0xac, 0xad, 0xe9])]);
    expect(await classify('tcp', 4342, 42200, [msg], [false])).toBe('LISP (DPI)');
    const short = Buffer.from(msg);
    short.writeUInt16BE(msg.length - 1, 2); // length below the segment's
    expect(await classify('tcp', 4342, 42201, [short], [false])).not.toBe('LISP (DPI)');
  });
  it('HART-IP: an unknown message type with a known id passes; unknown both does not', async () => {
    const hdr = (type: number, msgId: number) => Buffer.concat([Buffer.from([1, type, msgId, 0]), u16(1), u16(8)]);
    expect(await classify('udp', 42210, 5094, [hdr(5, 2)])).toBe('HART-IP (DPI)');
    expect(await classify('udp', 42211, 5094, [hdr(5, 9)])).not.toBe('HART-IP (DPI)');
  });
});
