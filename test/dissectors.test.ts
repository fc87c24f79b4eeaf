// One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-dissectors-');
afterAll(() => tmp.cleanup());

const CLI = '10.0.0.1';
const SRV = '10.0.0.2';
let n = 0;

/** Payloads alternate client → server, server → client unless `dirs` says otherwise. */
async function classify(l4: 'udp' | 'tcp', sport: number, dport: number, payloads: Uint8Array[], dirs?: boolean[]): Promise<string> {
  const frames: Buffer[] = [];
  const fromCli = (i: number) => dirs?.[i] ?? i % 2 === 0;
  if (l4 === 'tcp') {
    const seg = (c: boolean, flags: number, seq: number, data?: Uint8Array) =>
      eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? CLI : SRV, dst: c ? SRV : CLI, proto: IPPROTO.TCP }, tcp({ sport: c ? sport : dport, dport: c ? dport : sport, flags, seq, ack: 1 }, data)));
    frames.push(seg(true, TCPF.SYN, 999), seg(false, TCPF.SYN | TCPF.ACK, 4999), seg(true, TCPF.ACK, 1000));
    payloads.forEach((p, i) => frames.push(seg(fromCli(i), TCPF.PSH | TCPF.ACK, fromCli(i) ? 1000 : 5000, p)));
  } else {
    payloads.forEach((p, i) => {
      const c = fromCli(i);
      frames.push(eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: c ? CLI : SRV, dst: c ? SRV : CLI, proto: IPPROTO.UDP }, udp({ sport: c ? sport : dport, dport: c ? dport : sport }, p))));
    });
  }
  const file = tmp.file(`case-${n++}.pcap`);
  writeFileSync(file, pcap(frames.map((data, i) => ({ tsNs: sec(1700000000 + i), data }))));
  const e = new Engine({ files: [file], flowIdleSec: 1e10 });
  e.start();
  await e.waitDone();
  const f = e.flows({ limit: 1 }).rows[0]!;
  e.close();
  return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
}

const txt = (s: string) => Buffer.from(s, 'latin1');

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

describe('dissectors', () => {
  it('SSDP: M-SEARCH / NOTIFY to 1900, not an unrelated HTTP-like datagram', async () => {
    const msearch = txt('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\nST: ssdp:all\r\n\r\n');
    expect(await classify('udp', 50000, 1900, [msearch])).toBe('SSDP (DPI)');
    expect(await classify('udp', 50001, 1900, [txt('NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n\r\n')])).toBe('SSDP (DPI)');
    expect(await classify('udp', 50002, 40000, [txt('HTTP/1.1 200 OK\r\n\r\n')])).not.toMatch(/^SSDP/);
  });

  it('STUN: binding request and answer with the magic cookie, not with a wrong length', async () => {
    const attr = Buffer.from([0x00, 0x06, 0x00, 0x04, 0x61, 0x62, 0x63, 0x64]); // USERNAME "abcd"
    expect(await classify('udp', 50010, 19302, [stun(0x0001, attr), stun(0x0101, attr)])).toBe('STUN (DPI)');
    const bad = stun(0x0001, attr);
    bad.writeUInt16BE(12, 2);
    expect(await classify('udp', 50011, 19302, [bad, bad])).not.toMatch(/^STUN/);
    // Classic STUN (no cookie) only on its port.
    const classic = stun(0x0001, Buffer.alloc(0), 0x01020304);
    expect(await classify('udp', 50012, 3478, [classic, classic])).toBe('STUN (DPI)');
    expect(await classify('udp', 50013, 3479, [classic, classic])).not.toMatch(/^STUN/);
    // An attribute only WhatsApp calls use names the application at once.
    expect(await classify('udp', 50014, 3480, [stun(0x0001, Buffer.from([0x40, 0x00, 0x00, 0x04, 1, 2, 3, 4]))])).toBe('STUN.WhatsAppCall (DPI)');
  });

  it('NTP: a v4 client request, not version 0', async () => {
    expect(await classify('udp', 50020, 123, [ntp(0x23)])).toBe('NTP (DPI)');
    expect(await classify('udp', 50021, 123, [ntp(0x03)])).not.toBe('NTP (DPI)');
  });

  it('SSH: the identification banner, not another greeting', async () => {
    expect(await classify('tcp', 50030, 2222, [txt('SSH-2.0-OpenSSH_9.6\r\n')], [false])).toBe('SSH (DPI)');
    expect(await classify('tcp', 50031, 2222, [txt('SSL-2.0-Something\r\n')], [false])).not.toMatch(/^SSH/);
  });

  it('DHCP: a DISCOVER from 68 to 67, not without the magic cookie', async () => {
    expect(await classify('udp', 68, 67, [dhcp()])).toBe('DHCP (DPI)');
    expect(await classify('udp', 68, 67, [dhcp(0x63825364)])).not.toBe('DHCP (DPI)');
  });

  it('NetBIOS: a name query on 137 and an SMBv1 session on 139, not a garbled name', async () => {
    expect(await classify('udp', 137, 137, [nbnsQuery()])).toBe('NetBIOS (DPI)');
    const garbled = nbName();
    garbled[5] = 0x5a; // 'Z' is outside the encoding
    expect(await classify('udp', 137, 137, [nbnsQuery(garbled)])).not.toBe('NetBIOS (DPI)');
    expect(await classify('tcp', 50040, 139, [nbSession(0x00, smb1(0x73))])).toBe('NetBIOS.SMBv1 (DPI)');
    expect(await classify('tcp', 50041, 139, [nbSession(0x42, smb1(0x73))])).not.toMatch(/\(DPI\)$/);
  });

  it('SNMP: a v2c GetRequest, not version 2', async () => {
    expect(await classify('udp', 50050, 161, [snmpGet(1)])).toBe('SNMP (DPI)');
    expect(await classify('udp', 50051, 161, [snmpGet(2)])).not.toBe('SNMP (DPI)');
  });

  it('Syslog: "<PRI>" to 514, not a priority out of range', async () => {
    expect(await classify('udp', 50060, 514, [txt('<34>Oct 11 22:14:15 mymachine su: failed for lonvick')])).toBe('Syslog (DPI)');
    expect(await classify('udp', 50061, 514, [txt('<345>Oct 11 22:14:15 mymachine su: failed')])).not.toBe('Syslog (DPI)');
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
});
