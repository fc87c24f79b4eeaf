// One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).

import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-');


function stun(type: number, attrs: Buffer, cookie = 0x2112a442): Buffer {
  const h = Buffer.alloc(20);
  h.writeUInt16BE(type, 0);
  h.writeUInt16BE(attrs.length, 2);
  h.writeUInt32BE(cookie, 4);
  h.fill(7, 8, 20);
  return Buffer.concat([h, attrs]);
}

function ntp(first: number, size = 48): Buffer {
  const b = Buffer.alloc(size);
  b[0] = first;
  return b;
}

function dhcp(cookie = 0x63825363): Buffer {
  const b = Buffer.alloc(300);
  b[0] = 1; // BOOTREQUEST
  b[1] = 1;
  b[2] = 6;
  b.writeUInt32BE(cookie, 236);
  b.set([53, 1, 1, 255], 240); // DHCPDISCOVER
  return b;
}

// "FRED" in NetBIOS first-level encoding, padded with spaces.
const nbName = () => Buffer.concat([Buffer.from([0x20]), txt(Buffer.from('FRED'.padEnd(15, ' ') + '\0').toString('latin1').split('').map((ch) => {
  const c = ch.charCodeAt(0);
  return String.fromCharCode(0x41 + (c >> 4), 0x41 + (c & 15));
}).join('')), Buffer.from([0])]);

function nbnsQuery(name = nbName()): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt16BE(0x1234, 0);
  h.writeUInt16BE(0x0110, 2); // query, recursion desired, broadcast
  h.writeUInt16BE(1, 4);
  return Buffer.concat([h, name, Buffer.from([0, 0x20, 0, 1])]);
}

function nbSession(type: number, body: Buffer): Buffer {
  const h = Buffer.alloc(4);
  h[0] = type;
  h.writeUInt16BE(body.length, 2);
  return Buffer.concat([h, body]);
}

function smb1(cmd: number): Buffer {
  const b = Buffer.alloc(32);
  b.set([0xff, 0x53, 0x4d, 0x42, cmd]);
  return b;
}

function snmpGet(version: number): Buffer {
  const community = Buffer.concat([Buffer.from([0x04, 6]), txt('public')]);
  const pdu = Buffer.from([0xa0, 0x0e, 0x02, 0x01, 0x01, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x03, 0x30, 0x01, 0x05]);
  const body = Buffer.concat([Buffer.from([0x02, 0x01, version]), community, pdu]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

const btHandshake = () => Buffer.concat([Buffer.from([19]), txt('BitTorrent protocol'), Buffer.alloc(8), Buffer.alloc(20, 1), Buffer.alloc(20, 2)]);

const dnscryptCertQuery = () => {
  const h = Buffer.alloc(12);
  h.writeUInt16BE(0x4242, 0);
  h.writeUInt16BE(0x0100, 2);
  h.writeUInt16BE(1, 4);
  const q = Buffer.concat([Buffer.from([1]), txt('2'), Buffer.from([13]), txt('dnscrypt-cert'), Buffer.from([7]), txt('example'), Buffer.from([3]), txt('com'), Buffer.from([0, 0, 16, 0, 1])]);
  return Buffer.concat([h, q]);
};

const be32 = (v: number, size: number) => {
  const b = Buffer.alloc(size);
  b.writeUInt32BE(v >>> 0, 0);
  return b;
};

function sdRtn(zero = 0): Buffer {
  const name = txt('edge.agora.io');
  const b = Buffer.alloc(19 + name.length);
  b[6] = 0x21;
  b.writeUInt32BE(0x04534e49, 12); // "\x04SNI"
  b.writeUInt16BE(name.length, 16);
  b[18] = zero;
  name.copy(b, 19);
  return b;
}

function aliCloud(len?: number): Buffer {
  const b = Buffer.alloc(40, 0x55);
  b.writeUInt32BE(0xcefabeba, 0);
  b.writeUInt32BE(len ?? b.length - 8, 4);
  return b;
}

function hpVirtGrp(third = 0): Buffer {
  const b = Buffer.alloc(48, 0x11);
  b[0] = 0x16;
  b.writeUInt16BE(b.length, 1);
  b[3] = third;
  return b;
}

function telegramUdp(run: number): Buffer {
  const b = Buffer.alloc(64, 0x20);
  b.fill(0xff, 10, 10 + run);
  return b;
}

describe('dissectors', () => {
  it('SSDP: M-SEARCH / NOTIFY to 1900, not an unrelated HTTP-like datagram', async () => {
    const msearch = txt('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\nST: ssdp:all\r\n\r\n');
    expect(await classify('udp', 50000, 1900, [msearch])).toBe('SSDP (DPI)');
    expect(await classify('udp', 50001, 1900, [txt('NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n\r\n')])).toBe('SSDP (DPI)');
    // nDPI's ssdp.c takes "HTTP/1.1 200 OK\r\n" on any port in 19 bytes or
    // more: the near miss is a shorter datagram
    expect(await classify('udp', 50002, 40000, [txt('HTTP/1.1 200 OK\r\n\r\n')])).toBe('SSDP (DPI)');
    expect(await classify('udp', 50003, 40000, [txt('HTTP/1.1 200 OK\r\n')])).not.toMatch(/^SSDP/);
  });

  it('STUN: binding request and answer with the magic cookie, not with a wrong length', async () => {
    const attr = Buffer.from([0x00, 0x06, 0x00, 0x04, 0x61, 0x62, 0x63, 0x64]); // USERNAME "abcd"
    expect(await classify('udp', 50010, 19302, [stun(0x0001, attr), stun(0x0101, attr)])).toBe('STUN (DPI)');
    const bad = stun(0x0001, attr);
    bad.writeUInt16BE(12, 2);
    expect(await classify('udp', 50011, 19302, [bad, bad])).not.toMatch(/^STUN/);
    // Classic STUN (no cookie), on any port as nDPI takes it, when its attributes fit the packet.
    const classic = stun(0x0001, Buffer.alloc(0), 0x01020304);
    expect(await classify('udp', 50012, 3478, [classic, classic])).toBe('STUN (DPI)');
    expect(await classify('udp', 50013, 3479, [classic, classic])).toBe('STUN (DPI)');
    const overrun = stun(0x0001, Buffer.from([0x00, 0x06, 0x00, 0x08, 0x61, 0x62, 0x63, 0x64]), 0x01020304);
    expect(await classify('udp', 50015, 3479, [overrun, overrun])).not.toMatch(/^STUN/);
    // An attribute only WhatsApp calls use names the application at once.
    expect(await classify('udp', 50014, 3480, [stun(0x0001, Buffer.from([0x40, 0x00, 0x00, 0x04, 1, 2, 3, 4]))])).toBe('STUN.WhatsAppCall (DPI)');
  });

  // nDPI's ntp.c takes any version up to 4 (0 included): version 5 is the miss
  it('NTP: a v4 client request, not version 5', async () => {
    expect(await classify('udp', 50020, 123, [ntp(0x23)])).toBe('NTP (DPI)');
    expect(await classify('udp', 50021, 123, [ntp(0x2b)])).not.toBe('NTP (DPI)');
  });

  it('SSH: the identification banner, not another greeting', async () => {
    expect(await classify('tcp', 50030, 2222, [txt('SSH-2.0-OpenSSH_9.6\r\n')], [false])).toBe('SSH (DPI)');
    expect(await classify('tcp', 50031, 2222, [txt('SSL-2.0-Something\r\n')], [false])).not.toMatch(/^SSH/);
  });

  it('DHCP: a DISCOVER from 68 to 67, not without the magic cookie', async () => {
    expect(await classify('udp', 68, 67, [dhcp()])).toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [dhcp(0x63825364)])).not.toBe('DHCP (DPI)');
  });

  it('NetBIOS: a name query on 137, a session request to 139 (RFC 1002 §4.3.2), SMBv1 on 445; not a garbled name', async () => {
    expect(await classify('udp', 137, 137, [nbnsQuery()])).toBe('NetBIOS (DPI)');
    const garbled = nbName();
    garbled[5] = 0x5a; // 'Z' is outside the encoding
    // nDPI's netbios.c takes flags 0x0110 with one question and nothing else
    // on its header alone (the name is not checked): still NetBIOS.
    expect(await classify('udp', 137, 137, [nbnsQuery(garbled)])).toBe('NetBIOS (DPI)');
    // called and calling names, 34 bytes each (length 32, encoded name, root label)
    const names = Buffer.concat([nbName(), nbName()]);
    expect(names.length).toBe(68);
    expect(await classify('tcp', 50039, 139, [Buffer.concat([Buffer.from([0x81, 0, 0, 68]), names])])).toBe('NetBIOS (DPI)');
    // header, then word count, parameter words and byte count: over nDPI's 40 bytes
    const setup = Buffer.concat([smb1(0x73), Buffer.from([2, 0xff, 0, 0, 0, 0, 0])]);
    expect(await classify('tcp', 50040, 445, [nbSession(0x00, setup)])).toBe('NetBIOS.SMBv1 (DPI)');
    // SMB on 139 is not SMB to nDPI (smb.c looks at 445 only), nor a bad session type
    expect(await classify('tcp', 50042, 139, [nbSession(0x00, smb1(0x73))])).not.toMatch(/SMB.*\(DPI\)$/);
    expect(await classify('tcp', 50041, 445, [nbSession(0x42, smb1(0x73))])).not.toMatch(/\(DPI\)$/);
  });

  it('SNMP: a v2c GetRequest, not version 2', async () => {
    expect(await classify('udp', 50050, 161, [snmpGet(1)])).toBe('SNMP (DPI)');
    expect(await classify('udp', 50051, 161, [snmpGet(2)])).not.toBe('SNMP (DPI)');
  });

  // nDPI's syslog.c reads up to three digits without a range check: the
  // miss is a fourth digit where '>' must be
  it('Syslog: "<PRI>" to 514, not four digits', async () => {
    expect(await classify('udp', 50060, 514, [txt('<34>Oct 11 22:14:15 mymachine su: failed for lonvick')])).toBe('Syslog (DPI)');
    expect(await classify('udp', 50061, 514, [txt('<3456>Oct 11 22:14:15 mymachine su: failed')])).not.toBe('Syslog (DPI)');
  });

  it('BitTorrent: the peer handshake and a DHT query, not a near copy', async () => {
    expect(await classify('tcp', 50070, 6881, [btHandshake()])).toBe('BitTorrent (DPI)');
    const bad = btHandshake();
    bad[0] = 18;
    expect(await classify('tcp', 50071, 6881, [bad])).not.toMatch(/^BitTorrent/);
    const dht = Buffer.concat([txt('d1:ad2:id20:'), Buffer.alloc(20, 3), txt('e1:q4:ping1:t2:aa1:y1:qe')]);
    expect(await classify('udp', 50072, 6881, [dht])).toBe('BitTorrent (DPI)');
    expect(await classify('udp', 50073, 6881, [txt('d1:xd2:id20:').subarray(0, 12)])).not.toMatch(/^BitTorrent/);
  });
  it('DNScrypt: the certificate query or the resolver magic, on 443 before the QUIC guess, not a near copy', async () => {
    expect(await classify('udp', 50080, 443, [dnscryptCertQuery()])).toBe('DNScrypt (DPI)');
    expect(await classify('tcp', 50081, 443, [Buffer.alloc(64, 9), Buffer.concat([txt('r6fnvWj8'), Buffer.alloc(64, 1)])])).toBe('DNScrypt (DPI)');
    expect(await classify('udp', 50082, 443, [Buffer.alloc(64, 9), Buffer.concat([txt('r6fnvWj9'), Buffer.alloc(64, 1)])])).not.toMatch(/^DNScrypt/);
  });

  it('Discord: IP discovery request and response of 74 bytes, not with a wrong response type', async () => {
    expect(await classify('udp', 50090, 50001, [be32(0x00010046, 74), be32(0x00020046, 74)])).toBe('Discord (DPI)');
    expect(await classify('udp', 50091, 50001, [be32(0x00010046, 74), be32(0x00030046, 74)])).not.toMatch(/^Discord/);
  });

  it('SD-RTN: the "\\x04SNI" tag with its name, not with a bad separator', async () => {
    expect(await classify('udp', 50100, 4700, [sdRtn()])).toBe('SD-RTN (DPI)');
    expect(await classify('udp', 50101, 4700, [sdRtn(1)])).not.toMatch(/^SD-RTN/);
  });

  it('ETHEREUM: devp2p discovery on 30303, not an unknown packet type', async () => {
    const disc = (type: number) => {
      const b = Buffer.alloc(140, 0x33);
      b[97] = type;
      return b;
    };
    expect(await classify('udp', 50110, 30303, [disc(1)])).toBe('ETHEREUM (DPI)');
    // nDPI's ethereum.c takes types 1 to 6 (ENRREQUEST 5 too): 7 is unknown
    expect(await classify('udp', 50111, 30303, [disc(7)])).not.toBe('ETHEREUM (DPI)');
  });

  it('AliCloud: the 0xcefabeba header with its PDU length, not a wrong length', async () => {
    expect(await classify('tcp', 50120, 9000, [aliCloud()])).toBe('AliCloud (DPI)');
    expect(await classify('tcp', 50121, 9000, [aliCloud(7)])).not.toMatch(/^AliCloud/);
  });

  it('FIX: the "8=FIX." BeginString, not a near copy', async () => {
    expect(await classify('tcp', 50130, 4000, [txt('8=FIX.4.2\x019=65\x0135=A\x0149=CLIENT\x0156=SERVER\x01')])).toBe('FIX (DPI)');
    expect(await classify('tcp', 50131, 4000, [txt('8=FIY.4.2\x019=65\x0135=A\x01')])).not.toBe('FIX (DPI)');
  });

  it('HP_VIRTGRP: 0x16 with the packet length first in the flow, not with a non-zero fourth byte', async () => {
    expect(await classify('tcp', 50140, 1500, [hpVirtGrp()])).toBe('HP_VIRTGRP (DPI)');
    expect(await classify('tcp', 50141, 1500, [hpVirtGrp(1)])).not.toMatch(/^HP_VIRTGRP/);
  });

  it('Controller_Area_Network: the "ISO11898" signature, not a near copy', async () => {
    expect(await classify('udp', 50150, 9999, [Buffer.concat([txt('ISO11898'), Buffer.from([1, 1, 0, 0, 0, 1])])])).toBe('Controller_Area_Network (DPI)');
    expect(await classify('udp', 50151, 9999, [Buffer.concat([txt('ISO11899'), Buffer.from([1, 1, 0, 0, 0, 1])])])).not.toMatch(/^Controller/);
  });

  it('Telegram: 12 0xff bytes to a low UDP port and MTProto 0xef on 443, not a run of 13', async () => {
    expect(await classify('udp', 50160, 533, [telegramUdp(12)])).toBe('Telegram (DPI)');
    expect(await classify('udp', 50161, 533, [telegramUdp(13)])).not.toMatch(/^Telegram/);
    // nDPI 4.11's telegram.c has no TCP payload test (only Telegram's addresses, Match by IP)
    expect(await classify('tcp', 50162, 443, [Buffer.concat([Buffer.from([0xef, 0x7f]), Buffer.alloc(62, 4)])])).not.toMatch(/^Telegram/);
  });

  it('RakNet: an ACK whose records fill the packet, not an unknown record type', async () => {
    expect(await classify('udp', 50170, 19132, [Buffer.from([0xc0, 0x00, 0x01, 0x01, 0x00, 0x00, 0x05])])).toBe('RakNet (DPI)');
    expect(await classify('udp', 50171, 19132, [Buffer.from([0xc0, 0x00, 0x01, 0x02, 0x00, 0x00, 0x05])])).not.toMatch(/^RakNet/);
  });

  it('MerakiCloud: 0xfef72891 on 7351, not on another port', async () => {
    expect(await classify('udp', 50180, 7351, [be32(0xfef72891, 46)])).toBe('MerakiCloud (DPI)');
    expect(await classify('udp', 50181, 7352, [be32(0xfef72891, 46)])).not.toMatch(/^MerakiCloud/);
  });
  it('RTP: three version-2 packets with a media payload type, not with an RTCP-range type', async () => {
    const rtp = (first: number, pt: number, seq: number) => {
      const b = Buffer.alloc(172, 0x5a);
      b[0] = first;
      b[1] = pt;
      b.writeUInt16BE(seq, 2);
      b.writeUInt32BE(0x11223344, 8);
      return b;
    };
    const dirs = [true, true, true];
    expect(await classify('udp', 50190, 16384, [rtp(0x80, 0, 10), rtp(0x80, 0, 11), rtp(0x80, 0, 12)], dirs)).toBe('RTP (DPI)');
    expect(await classify('udp', 50191, 16384, [rtp(0x80, 72, 10), rtp(0x80, 72, 11), rtp(0x80, 72, 12)], dirs)).not.toMatch(/^RTP/);
  });

  it('BACnet: a BVLC header with the packet length, not a wrong length', async () => {
    const bvlc = (len: number) => Buffer.from([0x81, 0x0a, 0x00, len, 0x01, 0x20, 0xff, 0xff, 0x00, 0xff, 0x10, 0x08]);
    expect(await classify('udp', 47808, 47808, [bvlc(12)])).toBe('BACnet (DPI)');
    expect(await classify('udp', 47809, 47808, [bvlc(13)])).not.toBe('BACnet (DPI)');
  });

  it('FINS: a UDP command header and FINS/TCP, not with a wrong gateway count', async () => {
    const fins = (gct: number) => Buffer.from([0x80, 0x00, gct, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x19, 0x01, 0x01]);
    expect(await classify('udp', 50200, 9600, [fins(2)])).toBe('FINS (DPI)');
    expect(await classify('udp', 50201, 9600, [fins(3)])).not.toBe('FINS (DPI)');
    expect(await classify('tcp', 50202, 9600, [Buffer.concat([txt('FINS'), Buffer.alloc(16)])])).toBe('FINS (DPI)');
  });
  it('VNC: the RFB banner from both ends, not a malformed version', async () => {
    expect(await classify('tcp', 50210, 5900, [txt('RFB 003.008\n'), txt('RFB 003.008\n')], [false, true])).toBe('VNC (DPI)');
    // nDPI reads only "RFB 003" / "RFB 004" and the final line feed, so
    // "RFB 003-008\n" is a banner to it; another major version is not.
    expect(await classify('tcp', 50211, 5900, [txt('RFB 005.000\n'), txt('RFB 005.000\n')], [false, true])).not.toBe('VNC (DPI)');
  });

  it('MGCP: a command verb with the protocol version, not an unknown verb', async () => {
    expect(await classify('udp', 2427, 2427, [txt('RQNT 1 *@gw.example.com MGCP 0.1\r\nR: l/hd(n)\r\n')])).toBe('MGCP (DPI)');
    expect(await classify('udp', 2428, 2427, [txt('XXXX 1 *@gw.example.com MGCP 0.1\r\nR: l/hd(n)\r\n')])).not.toBe('MGCP (DPI)');
  });

  it('Syncthing: the discovery magic, not a near copy', async () => {
    expect(await classify('udp', 21027, 21027, [be32(0x2ea7d90b, 40)])).toBe('Syncthing (DPI)');
    expect(await classify('udp', 21028, 21027, [be32(0x2ea7d90c, 40)])).not.toBe('Syncthing (DPI)');
  });

  it('RipeAtlas: a 25-byte "MGLNDD" probe, not another size', async () => {
    const probe = (size: number) => Buffer.concat([txt('MGLNDD_'), Buffer.alloc(size - 7, 0x31)]);
    expect(await classify('udp', 50220, 33434, [probe(25)])).toBe('RipeAtlas (DPI)');
    expect(await classify('udp', 50221, 33434, [probe(26)])).not.toMatch(/^RipeAtlas/);
  });

  it('CryNetwork: the length byte and fixed fields, not a wrong length', async () => {
    const cry = (len0: number) => {
      // nDPI wants the length byte 0x3c (a 70-byte datagram) and reads nothing at 3
      const b = Buffer.alloc(70);
      b[0] = len0;
      b[16] = 0x01;
      b[20] = 0x07;
      b.writeUInt16BE(0x0307, 24);
      return b;
    };
    expect(await classify('udp', 50230, 64100, [cry(0x3c)])).toBe('CryNetwork (DPI)');
    expect(await classify('udp', 50231, 64100, [cry(0x3d)])).not.toMatch(/^CryNetwork/);
  });
  it('KCP: a segment header whose length covers the rest, not an unknown command', async () => {
    const kcp = (cmd: number) => {
      const b = Buffer.alloc(24 + 16, 0x42);
      b.writeUInt32LE(0x01020304, 0);
      b[4] = cmd;
      b.writeUInt32LE(16, 20);
      return b;
    };
    expect(await classify('udp', 50240, 4000, [kcp(81)])).toBe('KCP (DPI)');
    expect(await classify('udp', 50241, 4000, [kcp(85)])).not.toMatch(/^KCP/);
  });

  it('Xiaomi: the push header with its length, not a wrong marker', async () => {
    const xm = (marker: number) => {
      const b = Buffer.alloc(40, 0x20);
      b.writeUInt32BE(0xc2fe0005, 0);
      b.writeUInt32BE(28, 4);
      b.writeUInt32BE(marker, 8);
      return b;
    };
    expect(await classify('tcp', 50250, 5222, [xm(0x00020016)])).toBe('Xiaomi (DPI)');
    expect(await classify('tcp', 50251, 5222, [xm(0x00020017)])).not.toBe('Xiaomi (DPI)');
  });

  it('ZUG: "\\0ZUG" then 0x10, not another fifth byte', async () => {
    expect(await classify('udp', 50260, 34553, [Buffer.concat([Buffer.from([0, 0x7a, 0x55, 0x47, 0x10]), Buffer.alloc(30, 1)])])).toBe('ZUG (DPI)');
    expect(await classify('udp', 50261, 34553, [Buffer.concat([Buffer.from([0, 0x7a, 0x55, 0x47, 0x11]), Buffer.alloc(30, 1)])])).not.toMatch(/^ZUG/);
  });

  it('Monero: the Levin signature, not a near copy', async () => {
    const levin = (last: number) => Buffer.concat([Buffer.from([0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, last]), Buffer.alloc(25, 0)]);
    expect(await classify('tcp', 50270, 18080, [levin(0x01)])).toBe('Monero (DPI)');
    expect(await classify('tcp', 50271, 18080, [levin(0x02)])).not.toBe('Monero (DPI)');
  });
  it('AMQP: a method frame (Connection.Start), not an unknown class', async () => {
    const frame = (cls: number) => {
      const b = Buffer.alloc(40, 0);
      b[0] = 1; // method frame
      b.writeUInt16BE(0, 1);
      b.writeUInt32BE(32, 3);
      b.writeUInt16BE(cls, 7);
      b.writeUInt16BE(10, 9);
      b[39] = 0xce;
      return b;
    };
    expect(await classify('tcp', 50280, 5672, [frame(10)], [false])).toBe('AMQP (DPI)');
    expect(await classify('tcp', 50281, 5672, [frame(111)], [false])).not.toBe('AMQP (DPI)');
  });

  it('Corba: a GIOP message, not one too long', async () => {
    const giop = (size: number) => Buffer.concat([txt('GIOP'), Buffer.from([1, 2, 1, 0]), Buffer.alloc(size - 8, 0)]);
    expect(await classify('tcp', 50290, 2809, [giop(64)])).toBe('Corba (DPI)');
    // nDPI sets no upper bound on a GIOP packet's size: a long one is Corba too
    expect(await classify('tcp', 50291, 2809, [giop(200)])).toBe('Corba (DPI)');
  });

  it('HL7: an MLLP-framed message with the MSH segment, not with other delimiters', async () => {
    const msg = (msh: string) => Buffer.concat([Buffer.from([0x0b]), txt(`${msh}SENDER|FAC|RECEIVER|FAC|20240101120000||ADT^A01|MSG00001|P|2.5\rPID|1||12345^^^HOSP^MR||DOE^JOHN\r`), Buffer.from([0x1c, 0x0d])]);
    expect(await classify('tcp', 50300, 2575, [msg('MSH|^~\\&|')])).toBe('HL7 (DPI)');
    expect(await classify('tcp', 50301, 2575, [msg('MSH|^~/&|')])).not.toBe('HL7 (DPI)');
  });

  it('TencentGames: a known header, not a near copy', async () => {
    const tg = (second: number) => {
      const b = Buffer.alloc(64, 0x21);
      b.writeUInt32BE(0x3366000b, 0);
      b.writeUInt16BE(second, 4);
      return b;
    };
    expect(await classify('tcp', 50310, 17500, [tg(0x000b)])).toBe('TencentGames (DPI)');
    expect(await classify('tcp', 50311, 17500, [tg(0x000c)])).not.toBe('TencentGames (DPI)');
  });
  it('TeamSpeak: "TS3INIT1" over UDP, not a near copy', async () => {
    expect(await classify('udp', 50320, 9987, [Buffer.concat([txt('TS3INIT1'), Buffer.alloc(26, 0x65)])])).toBe('TeamSpeak (DPI)');
    expect(await classify('udp', 50321, 9987, [Buffer.concat([txt('TS3INIT2'), Buffer.alloc(26, 0x65)])])).not.toBe('TeamSpeak (DPI)');
  });

  it('MPEG_TS: whole 188-byte packets with the sync byte, not a missing sync', async () => {
    const ts = (sync2: number) => {
      const b = Buffer.alloc(188 * 2, 0x10);
      b[0] = 0x47;
      b[188] = sync2;
      return b;
    };
    expect(await classify('udp', 50330, 1234, [ts(0x47)])).toBe('MPEG_TS (DPI)');
    expect(await classify('udp', 50331, 1234, [ts(0x48)])).not.toBe('MPEG_TS (DPI)');
  });
});
