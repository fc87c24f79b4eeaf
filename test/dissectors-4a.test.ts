// Dissectors batch 4a (DHCPv6, LISP, HART-IP, ATG, Lustre, Activision,
// Heroes of the Storm, Ethernet Global Data, CORBA over UDP, Mumble, IMO,
// CoD_Mobile, GenshinImpact, EpicGames, ISO9506-1-MMS, IEC62056). One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).

import { describe, expect, it } from 'vitest';

import { crcX25, hex } from './fixtures/bytes.js';
import { classifier } from './fixtures/dissect.js';

const classify = classifier('fg-dissectors-4a-');


function hartIp(version: number, len?: number): Buffer {
  const b = Buffer.alloc(13);
  b[0] = version;
  b[1] = 0; // request
  b[2] = 0; // session initiate
  b.writeUInt16BE(1, 4);
  b.writeUInt16BE(len ?? b.length, 6);
  return b;
}

function lustreHello(dst: number[]): Buffer {
  const b = Buffer.alloc(24);
  b.writeUInt32LE(0x45726963, 0);
  b.set([...dst].reverse(), 8); // destination IPv4, little-endian
  return b;
}


/** An HDLC frame 0x7e 0xa0 … FCS 0x7e as DLMS uses it (SNRM-like body). */
function hdlc(fcsDelta = 0): Buffer {
  const body = Buffer.from([0xa0, 0x07, 0x03, 0x21, 0x93]);
  const fcs = Buffer.alloc(2);
  fcs.writeUInt16LE((crcX25(body) + fcsDelta) & 0xffff);
  return Buffer.concat([Buffer.from([0x7e]), body, fcs, Buffer.from([0x7e])]);
}

describe('dissectors 4a', () => {
  it('DHCPV6: a Solicit from 546 to 547, not message type 0', async () => {
    // nDPI's dhcpv6.c is registered for IPv6 only
    expect(await classify('udp', 546, 547, [hex('01 123456 0001000a')], undefined, { v6: true })).toBe('DHCPV6 (DPI)');
    expect(await classify('udp', 546, 547, [hex('00 123456 0001000a')], undefined, { v6: true })).not.toBe('DHCPV6 (DPI)');
    expect(await classify('udp', 546, 547, [hex('01 123456 0001000a')])).not.toBe('DHCPV6 (DPI)');
  });

  it('LISP: control plane 4342 ↔ 4342 and a TCP message to 4342, not between other ports', async () => {
    expect(await classify('udp', 4342, 4342, [hex('30000001 00000000')])).toBe('LISP (DPI)');
    // nDPI's lisp.c wants a length not below the segment's and the end
    // marker 9f ac ad e9 closing it
    expect(await classify('tcp', 50100, 4342, [hex('0014 000f 00000000000000 9facade9')])).toBe('LISP (DPI)');
    expect(await classify('tcp', 50101, 4342, [hex('0014 000f 00000000000000 9facadea')])).not.toBe('LISP (DPI)');
    expect(await classify('udp', 50102, 4342, [hex('30000001 00000000')])).not.toBe('LISP (DPI)');
  });

  it('HART-IP: a session initiate with its own length, not with a wrong length', async () => {
    expect(await classify('tcp', 50110, 5094, [hartIp(1)])).toBe('HART-IP (DPI)');
    expect(await classify('udp', 50111, 5094, [hartIp(2)])).toBe('HART-IP (DPI)');
    expect(await classify('tcp', 50112, 5094, [hartIp(1, 99)])).not.toBe('HART-IP (DPI)');
  });

  it('ATG: SOH "I20100" CR LF to 10001, not without SOH', async () => {
    expect(await classify('tcp', 50120, 10001, [Buffer.from('\x01I20100\r\n', 'latin1')])).toBe('ATG (DPI)');
    expect(await classify('tcp', 50121, 10001, [Buffer.from('\x02I20100\r\n', 'latin1')])).not.toBe('ATG (DPI)');
  });

  it('Lustre: an LNet hello naming the destination address, not another address', async () => {
    expect(await classify('tcp', 1023, 988, [lustreHello([10, 0, 0, 2])])).toBe('Lustre (DPI)');
    expect(await classify('tcp', 1022, 988, [lustreHello([10, 0, 0, 3])])).not.toBe('Lustre (DPI)');
  });

  it("Activision: nDPI's rule — per direction 0x0c02 / 0x0d02 first (at least 29 bytes), the c0a800 15020c mark, or five packets keeping 0x29 / 0x28", async () => {
    // nDPI's direction of a UDP packet: 1 when its source port is below its destination port
    const first = (magic: string, mark = true) => Buffer.concat([hex(`${magic} 00d3 dded0396 1669981a 27af4f38 1b`), mark ? hex('c0a80015020c') : hex('0a0000150210'), Buffer.alloc(12, 0x11)]);
    const later = (lead: number) => Buffer.concat([Buffer.from([lead]), Buffer.alloc(30, 0x22)]);
    // client 3074 → 33441 is direction 1 (0x0d02), the reply direction 0 (0x0c02)
    expect(await classify('udp', 3074, 33441, [first('0d02'), first('0c02')])).toBe('Activision (DPI)');
    // without the mark: named on the fifth packet of the pattern, not before
    const slow = [first('0d02', false), first('0c02', false), later(0x28), later(0x29), later(0x28)];
    expect(await classify('udp', 3074, 33442, slow)).toBe('Activision (DPI)');
    expect(await classify('udp', 3074, 33443, slow.slice(0, 4))).not.toBe('Activision (DPI)');
    // near misses: the magics swapped for the direction; a first packet of 28 bytes; a later packet off the pattern
    expect(await classify('udp', 3074, 33444, [first('0c02'), first('0d02')])).not.toBe('Activision (DPI)');
    expect(await classify('udp', 3074, 33445, [first('0d02').subarray(0, 28)])).not.toBe('Activision (DPI)');
    expect(await classify('udp', 3074, 33446, [first('0d02', false), first('0c02', false), later(0x29), later(0x29), later(0x28)])).not.toBe('Activision (DPI)');
  });

  it('Heroes_of_the_Storm: a game datagram to 3724, not without 0x40 0x00 at offset 14', async () => {
    const g = hex('e65d3400 972714f7 3f95aae0 3e36 4000 1abc63b3 2ac9fda5');
    expect(await classify('udp', 54598, 3724, [g])).toBe('Heroes_of_the_Storm (DPI)');
    const bad = Buffer.from(g);
    bad[14] = 0x41;
    expect(await classify('udp', 54599, 3724, [bad])).not.toBe('Heroes_of_the_Storm (DPI)');
  });

  it('EthernetGlobalData: a PDU type 13 v1 datagram on 18246, not version 2', async () => {
    const egd = Buffer.alloc(59);
    egd[0] = 0x0d;
    egd[1] = 0x01;
    // nDPI's egd.c also wants the producer id (offset 4) to be the sender's
    // IPv4 address: the client 10.0.0.1 here (status and reserved stay 0).
    egd.set([10, 0, 0, 1], 4);
    expect(await classify('udp', 18246, 18246, [egd])).toBe('EthernetGlobalData (DPI)');
    const bad = Buffer.from(egd);
    bad[1] = 0x02;
    expect(await classify('udp', 18246, 18246, [bad])).not.toBe('EthernetGlobalData (DPI)');
  });

  it('Corba: a MIOP datagram over UDP and a long GIOP request followed by a short one, not "MIOQ"', async () => {
    const miop = Buffer.concat([Buffer.from('MIOP', 'latin1'), Buffer.alloc(40, 1)]);
    expect(await classify('udp', 50130, 15984, [miop])).toBe('Corba (DPI)');
    const giop = (size: number) => Buffer.concat([Buffer.from('GIOP', 'latin1'), Buffer.from([1, 2, 1, 0]), Buffer.alloc(size - 8, 0)]);
    expect(await classify('tcp', 50131, 2809, [giop(228), giop(64)], [true, false])).toBe('Corba (DPI)');
    const bad = Buffer.from(miop);
    bad[3] = 0x51;
    expect(await classify('udp', 50132, 15984, [bad])).not.toBe('Corba (DPI)');
  });

  it('Mumble: a 12-byte ping and its 24-byte answer, not a ping with a non-zero head', async () => {
    const ping = hex('00000000 0102030405060708');
    const pong = hex('00010204 0102030405060708 00000003 00000064 0001f400');
    expect(await classify('udp', 50085, 64738, [ping, pong])).toBe('Mumble (DPI)');
    expect(await classify('udp', 50086, 64738, [hex('00000001 0102030405060708'), pong])).not.toBe('Mumble (DPI)');
  });

  it('IMO: a 10-byte 0x09 0x02 packet, not 0x09 0x03', async () => {
    expect(await classify('udp', 49207, 57604, [hex('0902 0000 0000 0000 0000')])).toBe('IMO (DPI)');
    expect(await classify('udp', 49208, 57604, [hex('0903 0000 0000 0000 0000')])).not.toBe('IMO (DPI)');
  });

  it('CoD_Mobile: a 12-byte "ping" on 7500, not on another port', async () => {
    const ping = Buffer.concat([Buffer.alloc(8, 3), Buffer.from('ping', 'latin1')]);
    expect(await classify('udp', 50140, 7500, [ping])).toBe('CoD_Mobile (DPI)');
    expect(await classify('udp', 50141, 7501, [ping])).not.toBe('CoD_Mobile (DPI)');
  });

  it('GenshinImpact: the UDP connect handshake, not with a different conversation word', async () => {
    const hs = hex('000000ff 00000000 12345678 499602d2 ffffffff');
    expect(await classify('udp', 50150, 22101, [hs])).toBe('GenshinImpact (DPI)');
    const bad = Buffer.from(hs);
    bad[15] = 0xd3;
    expect(await classify('udp', 50151, 22101, [bad])).not.toBe('GenshinImpact (DPI)');
  });

  it('EpicGames: a zero-padded hello and the answer with bit 3 set, not an answer without it', async () => {
    const hello = Buffer.concat([hex('871a2000 0898 22657404'), Buffer.alloc(38)]);
    const answer = Buffer.concat([hex('871a2008 1234'), Buffer.alloc(20, 5)]);
    expect(await classify('udp', 47446, 15011, [hello, answer])).toBe('EpicGames (DPI)');
    const noBit = Buffer.from(answer);
    noBit[3] = 0x00;
    expect(await classify('udp', 47447, 15011, [hello, noBit])).not.toBe('EpicGames (DPI)');
  });

  it('ISO9506-1-MMS: an initiate-request in TPKT/COTP/session to 102, not with a wrong session length', async () => {
    const mms = (sessionLen?: number) => {
      const b = Buffer.alloc(80);
      b.set([3, 0, 0, 80, 2, 0xf0, 0x80, 13, sessionLen ?? 80 - 9]);
      b.set([0x80, 0x02], 80 - 37);
      return b;
    };
    expect(await classify('tcp', 1345, 102, [mms()], [true])).toBe('ISO9506-1-MMS (DPI)');
    expect(await classify('tcp', 1346, 102, [mms(70)], [true])).not.toBe('ISO9506-1-MMS (DPI)');
  });

  it('IEC62056: an HDLC frame with a valid FCS, not with a wrong one', async () => {
    expect(await classify('tcp', 60797, 4060, [hdlc()], [true])).toBe('IEC62056 (DPI)');
    expect(await classify('tcp', 60798, 4060, [hdlc(1)], [true])).not.toBe('IEC62056 (DPI)');
  });
});
