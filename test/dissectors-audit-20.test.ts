// Audit 20: eDonkey, Bitcoin, AMQP, STOMP, DRDA, Oracle, Lotus Notes,
// Megaco, BGP, sFlow, RADIUS, Zabbix, Gearman, OpenWire, JRMI, Ceph, rsync,
// SOAP, DNP3, EtherNet/IP and IEC 60870-5-104 checked against nDPI 4.11's
// own source (src/lib/protocols/<name>.c). One hand-built flow per case, its
// messages built from the protocols' own documents (AMQP 0-9-1, STOMP 1.2,
// DRDA DDM, TNS, RFC 4271, sFlow v5, RFC 2865, the Zabbix, Gearman,
// OpenWire, Java RMI, Ceph and rsync wire formats, SOAP 1.1, IEEE 1815,
// ODVA CIP, IEC 60870-5-104): what nDPI accepts is named by DPI, a near
// miss (one detail wrong) is not.
import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { cat, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';
import { C, DPI, S, classifier, messages, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit-20-');
const tmp = tempDir('fg-dissectors-audit-20r-');
afterAll(() => tmp.cleanup());
const bytes = (...v: number[]) => Buffer.from(v);
const v6 = { v6: true };
/** [from the client?, payload] messages (C() / S()) through classify(). */
const run = messages(classify);

// ── eDonkey / eMule (marker, u32le length of opcode + data, opcode, data) ────
const ed2k = (marker: number, body: Buffer, skew = 0) => cat(bytes(marker), le32(body.length + skew), body);
// Hello (opcode 0x01): hash size 16, user hash, client id, port, tag count 0
const hello = cat(bytes(0x01, 0x10), Buffer.alloc(16, 0xab), le32(0x0a000001), le16(4662), le32(0));

describe('eDonkey (edonkey.c)', () => {
  it('the three markers with an exact length name the flow, either side, IPv4 and IPv6', async () => {
    expect(await run('tcp', 40001, 5555, [C(ed2k(0xe3, hello))])).toBe(DPI('eDonkey'));
    expect(await run('tcp', 40002, 5555, [S(ed2k(0xc5, hello))], v6)).toBe(DPI('eDonkey'));
    expect(await run('tcp', 40003, 5555, [C(ed2k(0xd4, bytes(0x15)))])).toBe(DPI('eDonkey'));
  });
  it('a wrong length, another marker, a 5-byte packet or a first packet of something else is not', async () => {
    expect(await run('tcp', 40004, 5555, [C(ed2k(0xe3, hello, 1))])).not.toBe(DPI('eDonkey'));
    expect(await run('tcp', 40005, 5555, [C(ed2k(0xe4, hello))], v6)).not.toBe(DPI('eDonkey'));
    expect(await run('tcp', 40006, 5555, [C(ed2k(0xe3, Buffer.alloc(0))), C(ed2k(0xe3, hello))])).not.toBe(DPI('eDonkey'));
    expect(await run('tcp', 40007, 5555, [C(txt('hello there\n')), S(ed2k(0xe3, hello))])).not.toBe(DPI('eDonkey'));
  });
});

// ── Bitcoin (magic, command[12], u32le length, checksum, payload) ────────────
const btc = (magic: number) => cat(u32(magic), txt('version\0\0\0\0\0'), le32(4), bytes(0x5d, 0xf6, 0xe0, 0xe2), le32(70015));

describe('Bitcoin (bitcoin.c)', () => {
  it('each of the five magics on port 8333 (either side) names the flow, IPv4 and IPv6', async () => {
    for (const [i, m] of [0xf9beb4d9, 0xfabfb5da, 0x0b110907, 0x0a03cf40, 0xf9beb4fe].entries())
      expect(await run('tcp', 40010 + i, 8333, [C(btc(m))], i % 2 ? v6 : {})).toBe(DPI('BITCOIN'));
    expect(await run('tcp', 8333, 40016, [C(btc(0xf9beb4d9))])).toBe(DPI('BITCOIN'));
  });
  it('another port (testnet 18333), another magic, or the magic on a second packet is not', async () => {
    expect(await run('tcp', 40020, 18333, [C(btc(0xf9beb4d9))])).not.toBe(DPI('BITCOIN'));
    expect(await run('tcp', 40021, 8333, [C(btc(0xf9beb4da))], v6)).not.toBe(DPI('BITCOIN'));
    expect(await run('tcp', 40022, 8333, [C(txt('hello')), C(btc(0xf9beb4d9))])).not.toBe(DPI('BITCOIN'));
  });
});

// ── AMQP 0-9-1 (frame: type, channel, u32 size, payload, 0xCE) ───────────────
const amqpHeader = txt('AMQP\0\0\x09\x01');
const method = (cls: number, meth: number, args: Buffer, type = 1, skew = 0) => {
  const payload = cat(u16(cls), u16(meth), args);
  return cat(bytes(type), u16(0), u32(payload.length + skew), payload, bytes(0xce));
};
// Connection.Start: version 0-9, server properties (empty table), mechanisms, locales
const start = method(10, 10, cat(bytes(0, 9), u32(0), u32(5), txt('PLAIN'), u32(5), txt('en_US')));

describe('AMQP (amqp.c)', () => {
  it('a method frame of class 10-110 after the protocol header names the flow, IPv4 and IPv6', async () => {
    expect(await run('tcp', 40030, 5672, [C(amqpHeader), S(start)])).toBe(DPI('AMQP'));
    expect(await run('tcp', 40031, 5671, [C(amqpHeader), S(start)], v6)).toBe(DPI('AMQP'));
    // Channel.Open-Ok (class 20, method 11), a size larger than the segment
    expect(await run('tcp', 40032, 5555, [S(method(20, 11, u32(0), 1, 100))])).toBe(DPI('AMQP'));
  });
  it('class 111, method 121, frame type 4 or a size of 32 KiB is not', async () => {
    expect(await run('tcp', 40033, 5555, [S(method(111, 10, u32(0)))])).not.toBe(DPI('AMQP'));
    expect(await run('tcp', 40034, 5555, [S(method(60, 121, u32(0)))])).not.toBe(DPI('AMQP'));
    expect(await run('tcp', 40035, 5555, [S(method(60, 40, u32(0), 4))])).not.toBe(DPI('AMQP'));
    expect(await run('tcp', 40036, 5555, [S(method(60, 40, u32(0), 1, 32768))])).not.toBe(DPI('AMQP'));
  });
  it('looked for through the 6th payload packet, not the 7th', async () => {
    const wait = Array.from({ length: 5 }, () => C(amqpHeader));
    expect(await run('tcp', 40037, 5555, [...wait, S(start)])).toBe(DPI('AMQP'));
    expect(await run('tcp', 40038, 5555, [...wait, C(amqpHeader), S(start)])).not.toBe(DPI('AMQP'));
  });
});

// ── STOMP 1.2 (command line, headers, blank line, body, NUL) ────────────────
const frame = (cmd: string, headers: string[]) => txt(`${cmd}\n${headers.map((h) => `${h}\n`).join('')}\n\0`);
const stompConnect = frame('STOMP', ['accept-version:1.2', 'host:mq.example.com']);
const connected = frame('CONNECTED', ['version:1.2', 'heart-beat:0,0', 'server:ActiveMQ-Artemis/2.31.2', 'session:7f3e2a10-94c1-4c55-a1f0-12ab34cd56ef']);

describe('STOMP (stomp.c)', () => {
  it("the client's STOMP frame (> 26 bytes) or the server's CONNECTED (> 100 bytes) names the flow", async () => {
    expect(stompConnect.length).toBeGreaterThan(26);
    expect(connected.length).toBeGreaterThan(100);
    expect(await run('tcp', 40040, 61613, [C(stompConnect)])).toBe(DPI('STOMP'));
    expect(await run('tcp', 40041, 61613, [S(connected)], v6)).toBe(DPI('STOMP'));
  });
  it('a 1.0 CONNECT, CONNECTED of 100 bytes, STOMP from the server or a short STOMP is not', async () => {
    expect(await run('tcp', 40042, 61613, [C(frame('CONNECT', ['accept-version:1.0', 'host:mq.example.com'])), S(connected)])).not.toBe(DPI('STOMP'));
    expect(await run('tcp', 40043, 61613, [S(connected.subarray(0, 100))])).not.toBe(DPI('STOMP'));
    expect(await run('tcp', 40044, 61613, [S(stompConnect)])).not.toBe(DPI('STOMP'));
    expect(await run('tcp', 40045, 61613, [C(frame('STOMP', ['host:a']))])).not.toBe(DPI('STOMP'));
  });
});

// ── DRDA (DSS: u16 length, 0xD0, format, u16 correlation; DDM: u16 length, code point) ──
const dss = (cp: number, body: Buffer, magic = 0xd0, skew = 0) => cat(u16(10 + body.length), bytes(magic, 0x41), u16(1), u16(4 + body.length + skew), u16(cp), body);
// EXCSAT (0x1041) carrying EXTNAM (0x115e), then ACCSEC (0x106d) carrying SECMEC (0x11a2)
const excsat = dss(0x1041, cat(u16(9), u16(0x115e), txt('db2jc')));
const accsec = dss(0x106d, cat(u16(6), u16(0x11a2), u16(3)));

describe('DRDA (drda.c)', () => {
  it('one DSS, chained DSSs ending with the packet, or a DSS continued in the next segment', async () => {
    expect(await run('tcp', 40050, 50000, [C(excsat)])).toBe(DPI('DRDA'));
    expect(await run('tcp', 40051, 50000, [C(cat(excsat, accsec))], v6)).toBe(DPI('DRDA'));
    expect(await run('tcp', 40052, 50000, [C(excsat.subarray(0, 12))])).toBe(DPI('DRDA'));
  });
  it('a DDM length off by one, another magic, a stray byte after the chain or a bad second DSS is not', async () => {
    expect(await run('tcp', 40053, 50000, [C(dss(0x1041, txt('abc'), 0xd0, 1))])).not.toBe(DPI('DRDA'));
    expect(await run('tcp', 40054, 50000, [C(dss(0x1041, txt('abc'), 0xd1))])).not.toBe(DPI('DRDA'));
    expect(await run('tcp', 40055, 50000, [C(cat(excsat, accsec, bytes(0)))], v6)).not.toBe(DPI('DRDA'));
    expect(await run('tcp', 40056, 50000, [C(cat(excsat, dss(0x106d, Buffer.alloc(6), 0xd1)))])).not.toBe(DPI('DRDA'));
  });
});

// ── Oracle TNS (u16 length, u16 packet checksum, type, reserved, u16 header checksum) ──
const tns = (type: number, body: Buffer, hdrSum = 0) => cat(u16(8 + body.length), u16(0), bytes(type, 0), u16(hdrSum), body);
const connectData = txt('(DESCRIPTION=(CONNECT_DATA=(SERVICE_NAME=orcl))(ADDRESS=(PROTOCOL=TCP)(HOST=db)(PORT=1521)))');
const tnsConnect = tns(1, cat(u16(0x013a), u16(0x012c), Buffer.alloc(20), connectData));

describe('Oracle (oracle.c)', () => {
  it('a CONNECT with zero checksums on port 1521, either side, IPv4 and IPv6', async () => {
    expect(await run('tcp', 40060, 1521, [C(tnsConnect)])).toBe(DPI('Oracle'));
    expect(await run('tcp', 1521, 40061, [C(tnsConnect)], v6)).toBe(DPI('Oracle'));
  });
  it('another port, a header checksum, an ACCEPT (type 2) or a length off by one is not', async () => {
    expect(await run('tcp', 40062, 1522, [C(tnsConnect)])).not.toBe(DPI('Oracle'));
    expect(await run('tcp', 40063, 1521, [C(tns(1, connectData, 0x1234))])).not.toBe(DPI('Oracle'));
    expect(await run('tcp', 40064, 1521, [S(tns(2, connectData))])).not.toBe(DPI('Oracle'));
    expect(await run('tcp', 40065, 1521, [C(cat(tnsConnect, bytes(0)))])).not.toBe(DPI('Oracle'));
  });
});

// ── Lotus Notes (NRPC: the signature at offset 6 of the opening packet) ─────
const nrpc = cat(bytes(0x78, 0, 0, 0, 0, 0), bytes(0x00, 0x00, 0x02, 0x00, 0x00, 0x40, 0x02, 0x0f), Buffer.alloc(20, 0x11));
/** A TCP flow whose handshake lacks the server's SYN+ACK (joined as nDPI's "beginning not seen"). */
let nAt = 0;
async function withoutSynAck(cport: number, sport: number, p: Buffer): Promise<string> {
  const seg = (c: boolean, flags: number, seq: number, data?: Buffer) =>
    eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? '10.0.0.1' : '10.0.0.2', dst: c ? '10.0.0.2' : '10.0.0.1', proto: IPPROTO.TCP }, tcp({ sport: c ? cport : sport, dport: c ? sport : cport, flags, seq, ack: 1 }, data)));
  const frames = [seg(true, TCPF.SYN, 999), seg(true, TCPF.ACK, 1000), seg(true, TCPF.PSH | TCPF.ACK, 1000, p)];
  return replayFrames(tmp.file(`lotus-${nAt++}.pcap`), frames, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}

describe('Lotus Notes (lotus_notes.c)', () => {
  it("the signature in a flow's first payload packet after a full handshake, any port, IPv4 and IPv6", async () => {
    expect(await run('tcp', 40070, 1352, [C(nrpc)])).toBe(DPI('LotusNotes'));
    expect(await run('tcp', 40071, 5555, [S(nrpc)], v6)).toBe(DPI('LotusNotes'));
  });
  it('without the SYN+ACK, on the second packet, or in 16 bytes it is not', async () => {
    expect(await withoutSynAck(40072, 1352, nrpc)).not.toBe(DPI('LotusNotes'));
    expect(await run('tcp', 40073, 1352, [C(txt('hello')), C(nrpc)])).not.toBe(DPI('LotusNotes'));
    expect(await run('tcp', 40074, 1352, [C(nrpc.subarray(0, 16))])).not.toBe(DPI('LotusNotes'));
  });
});

// ── Megaco text (RFC 3525 / H.248.1 Annex B: token/version SP mId) ─────────
const megacoBody = ' \nTransaction = 9998 {\n  Context = - {\n    ServiceChange = ROOT {Services {Method=Restart, ServiceChangeAddress=55555}}\n  }\n}\n';

describe('Megaco (megaco.c)', () => {
  it('the short form with an address or a domain name, the long form with an address; UDP, IPv4 and IPv6', async () => {
    expect(await run('udp', 2944, 2944, [C(txt(`!/1 [192.0.2.10]:55555${megacoBody}`))])).toBe(DPI('Megaco'));
    expect(await run('udp', 40080, 2944, [C(txt(`!/1 <mg1.example.net>${megacoBody}`))], v6)).toBe(DPI('Megaco'));
    expect(await run('udp', 40081, 5555, [C(txt(`MEGACO/1 [192.0.2.10]:55555${megacoBody}`))])).toBe(DPI('Megaco'));
  });
  it('the long form with a domain name, the short form with a device name, lower case, or over TCP is not', async () => {
    expect(await run('udp', 40082, 2944, [C(txt(`MEGACO/1 <mg1.example.net>${megacoBody}`))])).not.toBe(DPI('Megaco'));
    expect(await run('udp', 40083, 2944, [C(txt(`!/1 mg1/port${megacoBody}`))])).not.toBe(DPI('Megaco'));
    expect(await run('udp', 40084, 2944, [C(txt(`megaco/1 [192.0.2.10]${megacoBody}`))])).not.toBe(DPI('Megaco'));
    expect(await run('tcp', 40085, 2944, [C(txt(`!/1 [192.0.2.10]:55555${megacoBody}`))])).not.toBe(DPI('Megaco'));
  });
});

// ── BGP-4 (RFC 4271 §4.1: marker, u16 length, type) ─────────────────────────
const bgp = (type: number, body: Buffer, skew = 0) => cat(Buffer.alloc(16, 0xff), u16(19 + body.length + skew), bytes(type), body);
const open = bgp(1, cat(bytes(4), u16(64512), u16(90), u32(0xc0000201), bytes(0)));

describe('BGP (bgp.c)', () => {
  it('an OPEN or a KEEPALIVE on port 179, either side; several messages in one segment; IPv4 and IPv6', async () => {
    expect(await run('tcp', 40090, 179, [C(open)])).toBe(DPI('BGP'));
    expect(await run('tcp', 179, 40091, [S(bgp(4, Buffer.alloc(0)))], v6)).toBe(DPI('BGP'));
    expect(await run('tcp', 40092, 179, [C(cat(open, bgp(4, Buffer.alloc(0))))])).toBe(DPI('BGP'));
  });
  it('ROUTE-REFRESH (type 5), a length past the segment, a broken marker or another port is not', async () => {
    expect(await run('tcp', 40093, 179, [C(bgp(5, bytes(0, 1, 0, 1)))])).not.toBe(DPI('BGP'));
    expect(await run('tcp', 40094, 179, [C(bgp(1, open.subarray(19), 1))])).not.toBe(DPI('BGP'));
    expect(await run('tcp', 40095, 179, [C(cat(bytes(0xfe), open.subarray(1)))])).not.toBe(DPI('BGP'));
    expect(await run('tcp', 40096, 1790, [C(open)], v6)).not.toBe(DPI('BGP'));
  });
});

// ── sFlow v5 datagram header ─────────────────────────────────────────────────
const sflow = (seq: number, addrType = 1) =>
  cat(u32(5), u32(addrType), addrType === 2 ? Buffer.alloc(16, 0x20) : bytes(192, 0, 2, 1), u32(0), u32(seq), u32(123456), u32(0));

describe('sFlow (sflow.c)', () => {
  it('two v5 datagrams name the flow, any port, agent IPv4 or IPv6; over IPv6 too', async () => {
    expect(await run('udp', 40100, 6343, [C(sflow(1)), C(sflow(2))], v6)).toBe(DPI('sFlow'));
    expect(await run('udp', 40101, 5555, [C(sflow(1, 2)), C(sflow(2, 2))])).toBe(DPI('sFlow'));
  });
  it('one datagram, address type 3, version 4 or a 23-byte datagram is not', async () => {
    expect(await run('udp', 40102, 6343, [C(sflow(1))])).not.toBe(DPI('sFlow'));
    expect(await run('udp', 40103, 6343, [C(sflow(1, 3)), C(sflow(2, 3))])).not.toBe(DPI('sFlow'));
    expect(await run('udp', 40104, 6343, [C(cat(u32(4), sflow(1).subarray(4))), C(sflow(2))])).not.toBe(DPI('sFlow'));
    expect(await run('udp', 40105, 6343, [C(sflow(1).subarray(0, 23)), C(sflow(2))])).not.toBe(DPI('sFlow'));
  });
});

// ── RADIUS (RFC 2865 §3: code, identifier, u16 length, authenticator, attributes) ──
const radius = (code: number, attrs: Buffer, skew = 0) => cat(bytes(code, 7), u16(20 + attrs.length + skew), Buffer.alloc(16, 0x5a), attrs);
const userName = cat(bytes(1, 7), txt('alice'));
const accessRequest = radius(1, userName);

describe('RADIUS (radius_proto.c)', () => {
  it('codes 1-13 with an exact length on 1812, 1813 or 18013, IPv4 and IPv6', async () => {
    expect(await run('udp', 40110, 1812, [C(accessRequest)])).toBe(DPI('Radius'));
    expect(await run('udp', 40111, 1813, [C(radius(4, userName))], v6)).toBe(DPI('Radius'));
    expect(await run('udp', 18013, 40112, [C(radius(13, userName))])).toBe(DPI('Radius'));
  });
  it('waits through the 4th datagram of other shapes, not the 5th; a short datagram ends it', async () => {
    const off = C(radius(1, userName, 1));
    expect(await run('udp', 40113, 1812, [off, off, off, S(radius(2, Buffer.alloc(0)))])).toBe(DPI('Radius'));
    expect(await run('udp', 40114, 1812, [off, off, off, off, S(radius(2, Buffer.alloc(0)))])).not.toBe(DPI('Radius'));
    expect(await run('udp', 40115, 1812, [C(Buffer.alloc(19, 1)), C(accessRequest)])).not.toBe(DPI('Radius'));
  });
  it('code 14, code 0, legacy port 1645 or over TCP is not', async () => {
    expect(await run('udp', 40116, 1812, [C(radius(14, userName))])).not.toBe(DPI('Radius'));
    expect(await run('udp', 40117, 1812, [C(radius(0, userName))])).not.toBe(DPI('Radius'));
    expect(await run('udp', 40118, 1645, [C(accessRequest)])).not.toBe(DPI('Radius'));
    expect(await run('tcp', 40119, 1812, [C(accessRequest)])).not.toBe(DPI('Radius'));
  });
});

// ── Zabbix, Gearman, OpenWire, JRMI, Ceph, rsync: the opening bytes ─────────
const zbxJson = txt('{"request":"active checks","host":"web01"}');
const zabbix = (sig: string) => cat(txt(sig), bytes(1), le32(zbxJson.length), le32(0), zbxJson);
const gearman = (magic: string, type: number, data: Buffer) => cat(txt(magic), u32(type), u32(data.length), data);
// WIREFORMAT_INFO: type 1, magic, version, then the marshalled properties
const wireFormat = (skew = 0) => {
  const body = cat(bytes(1), txt('ActiveMQ'), u32(12), bytes(1), u32(4), txt('{}{}'));
  return cat(u32(body.length + skew), body);
};

describe('Zabbix, Gearman, OpenWire, JRMI, Ceph (one packet decides)', () => {
  it('Zabbix: "ZBXD" opens the first packet, any flags; not "ZBXd"', async () => {
    expect(await run('tcp', 40120, 10051, [C(zabbix('ZBXD'))])).toBe(DPI('Zabbix'));
    expect(await run('tcp', 40121, 5555, [S(txt('ZBXD'))], v6)).toBe(DPI('Zabbix'));
    expect(await run('tcp', 40122, 10051, [C(zabbix('ZBXd'))])).not.toBe(DPI('Zabbix'));
    expect(await run('tcp', 40123, 10051, [C(txt('hello')), C(zabbix('ZBXD'))])).not.toBe(DPI('Zabbix'));
  });
  it('Gearman: "\\0REQ" or "\\0RES" and more than the 12-byte header', async () => {
    expect(await run('tcp', 40124, 4730, [C(gearman('\0REQ', 1, txt('reverse')))])).toBe(DPI('Gearman'));
    expect(await run('tcp', 40125, 5555, [S(gearman('\0RES', 8, txt('H:lap:1')))], v6)).toBe(DPI('Gearman'));
    expect(await run('tcp', 40126, 4730, [C(gearman('\0REQ', 9, Buffer.alloc(0)))])).not.toBe(DPI('Gearman'));
    expect(await run('tcp', 40127, 4730, [C(gearman('\0req', 1, txt('reverse')))])).not.toBe(DPI('Gearman'));
  });
  it('OpenWire: WIREFORMAT_INFO with its size prefix and magic', async () => {
    expect(await run('tcp', 40128, 61616, [C(wireFormat())])).toBe(DPI('OpenWire'));
    expect(await run('tcp', 40129, 5555, [S(wireFormat())], v6)).toBe(DPI('OpenWire'));
    expect(await run('tcp', 40130, 61616, [C(wireFormat(1))])).not.toBe(DPI('OpenWire'));
    expect(await run('tcp', 40131, 61616, [C(cat(wireFormat().subarray(0, 4), bytes(2), wireFormat().subarray(5)))])).not.toBe(DPI('OpenWire'));
  });
  it('JRMI: the magic and at least two more bytes', async () => {
    expect(await run('tcp', 40132, 1099, [C(cat(txt('JRMI'), u16(2), bytes(0x4b)))])).toBe(DPI('JRMI'));
    expect(await run('tcp', 40133, 5555, [C(cat(txt('JRMI'), u16(2)))], v6)).toBe(DPI('JRMI'));
    expect(await run('tcp', 40134, 1099, [C(cat(txt('JRMI'), bytes(0)))])).not.toBe(DPI('JRMI'));
  });
  it('Ceph: "ceph v" and at least one more byte, either banner', async () => {
    expect(await run('tcp', 40135, 6789, [S(txt('ceph v027'))])).toBe(DPI('Ceph'));
    expect(await run('tcp', 40136, 3300, [C(txt('ceph v2\n'))], v6)).toBe(DPI('Ceph'));
    expect(await run('tcp', 40137, 6789, [S(txt('ceph v'))])).not.toBe(DPI('Ceph'));
    expect(await run('tcp', 40138, 6789, [S(txt('Ceph v027'))])).not.toBe(DPI('Ceph'));
  });
});

describe('rsync (rsync.c)', () => {
  it('"@RSYNCD:" from either side through the 6th payload packet, not the 7th', async () => {
    expect(await run('tcp', 40140, 873, [S(txt('@RSYNCD: 31.0 sha512 sha256 sha1 md5 md4\n'))])).toBe(DPI('RSYNC'));
    const wait = Array.from({ length: 5 }, () => C(txt('#list')));
    expect(await run('tcp', 40141, 5555, [...wait, C(txt('@RSYNCD: 31.0\n'))], v6)).toBe(DPI('RSYNC'));
    expect(await run('tcp', 40142, 5555, [...wait, C(txt('#list')), C(txt('@RSYNCD: 31.0\n'))])).not.toBe(DPI('RSYNC'));
    expect(await run('tcp', 40143, 873, [S(txt('@RSYNCD 31.0\n'))])).not.toBe(DPI('RSYNC'));
  });
});

// ── SOAP 1.1 (SOAPAction header; the envelope's XML declaration) ────────────
const envelope = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:GetPrice xmlns:m="urn:x"><m:Item>Apples</m:Item></m:GetPrice></soap:Body></soap:Envelope>';
const soapPost = txt(`POST /StockQuote HTTP/1.1\r\nHost: www.example.org\r\nContent-Type: text/xml; charset="utf-8"\r\nContent-Length: ${envelope.length}\r\nSOAPAction: "urn:x#GetPrice"\r\n\r\n${envelope}`);
const xmlDecl = txt(`<?xml version="1.0" encoding="utf-8"?>${envelope}`);
const xmlMore = txt('<soap:Envelope><soap:Body></soap:Body></soap:Envelope>');

describe('SOAP (soap.c, an HTTP sub-protocol)', () => {
  it("an HTTP request's SOAPAction header gives HTTP.SOAP, IPv4 and IPv6", async () => {
    expect(await run('tcp', 40150, 8080, [C(soapPost)])).toBe(DPI('HTTP.SOAP'));
    expect(await run('tcp', 40151, 8080, [C(soapPost)], v6)).toBe(DPI('HTTP.SOAP'));
    expect(await run('tcp', 40152, 8080, [C(txt(soapPost.toString('latin1').replace('SOAPAction', 'SoapAction')))])).not.toBe(DPI('HTTP.SOAP'));
  });
  it('a SOAPAction line on a flow nothing named is SOAP alone; not after the empty line', async () => {
    expect(await run('tcp', 40153, 5555, [C(txt('SOAPAction: "urn:x"\r\n\r\n'))])).toBe(DPI('SOAP'));
    expect(await run('tcp', 40154, 5555, [C(txt('X-Tag: 1\r\n\r\nSOAPAction: "urn:x"\r\n'))])).not.toBe(DPI('SOAP'));
  });
  it('an XML declaration among the first three packets names the flow SOAP on its 4th, not before', async () => {
    expect(await run('tcp', 40155, 5555, [C(xmlDecl), S(xmlMore), C(xmlMore), S(xmlMore)])).toBe(DPI('SOAP'));
    expect(await run('tcp', 40156, 5555, [S(xmlMore), C(xmlMore), C(xmlDecl), S(xmlMore)], v6)).toBe(DPI('SOAP'));
    expect(await run('tcp', 40157, 5555, [C(xmlDecl), S(xmlMore), C(xmlMore)])).not.toBe(DPI('SOAP'));
    expect(await run('tcp', 40158, 5555, [S(xmlMore), C(xmlMore), C(xmlMore), C(xmlDecl), S(xmlMore)])).not.toBe(DPI('SOAP'));
    expect(await run('tcp', 40159, 5555, [C(txt('<?xml version="1.1"?><a/>')), S(xmlMore), C(xmlMore), S(xmlMore)])).not.toBe(DPI('SOAP'));
  });
});

// ── DNP3, EtherNet/IP, IEC 60870-5-104 ──────────────────────────────────────
// DNP3 link header: 05 64, length, control, destination, source, CRC
const dnp3Link = bytes(0x05, 0x64, 0x05, 0xc0, 0x01, 0x00, 0x00, 0x04, 0xe9, 0x21);
// EtherNet/IP RegisterSession (0x65): header then protocol version 1, options 0
const enip = (skew = 0) => cat(le16(0x65), le16(4 + skew), le32(0), le32(0), Buffer.alloc(8), le32(0), le16(1), le16(0));
const startdt = bytes(0x68, 0x04, 0x07, 0x00, 0x00, 0x00), startdtCon = bytes(0x68, 0x04, 0x0b, 0x00, 0x00, 0x00);

describe('DNP3, EtherNet/IP, IEC 60870-5-104 (first packet decides)', () => {
  it('DNP3: 05 64 and the 10 header bytes, any port', async () => {
    expect(await run('tcp', 40160, 20000, [C(dnp3Link)])).toBe(DPI('DNP3'));
    expect(await run('tcp', 40161, 5555, [S(dnp3Link)], v6)).toBe(DPI('DNP3'));
    expect(await run('tcp', 40162, 20000, [C(dnp3Link.subarray(0, 9))])).not.toBe(DPI('DNP3'));
  });
  it('EtherNet/IP: on 44818, the length field plus 24 is the segment', async () => {
    expect(await run('tcp', 40163, 44818, [C(enip())])).toBe(DPI('EthernetIP'));
    expect(await run('tcp', 44818, 40164, [C(enip())], v6)).toBe(DPI('EthernetIP'));
    expect(await run('tcp', 40165, 44818, [C(enip(1))])).not.toBe(DPI('EthernetIP'));
    expect(await run('tcp', 40166, 44819, [C(enip())])).not.toBe(DPI('EthernetIP'));
  });
  it('IEC 104: APDUs from the start ending with the segment', async () => {
    expect(await run('tcp', 40167, 2404, [C(startdt)])).toBe(DPI('IEC60870'));
    expect(await run('tcp', 40168, 5555, [S(cat(startdtCon, startdt))], v6)).toBe(DPI('IEC60870'));
    expect(await run('tcp', 40169, 2404, [C(cat(startdt, bytes(0)))])).not.toBe(DPI('IEC60870'));
    expect(await run('tcp', 40170, 2404, [C(bytes(0x68, 0x00, 0x68, 0x04, 0x07, 0x00))])).not.toBe(DPI('IEC60870'));
  });
});
