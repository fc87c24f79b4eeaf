// One hand-built flow per case: each dissector added in this round
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { classifier, CLI, flowRunner, SRV } from './fixtures/dissect.js';
import { ETH, eth, ipv4, MAC_A, MAC_B } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-6-');
const runFlow = flowRunner('fg-dissectors-6r-');
// The fixture stamps packet i at 1700000000 + i.
const T0 = 1700000000;

describe('dissectors 6', () => {
  it('NetFlow: a v5 export with one record and a plausible export time; not with a count that does not fit', async () => {
    const v5 = (count: number, secs: number) =>
      Buffer.concat([u16(5), u16(count), u32(123456), u32(secs), Buffer.alloc(12), Buffer.alloc(48, 1)]);
    expect(await classify('udp', 40000, 2055, [v5(1, T0 - 10)], [true])).toBe('NetFlow (DPI)');
    expect(await classify('udp', 40001, 2055, [v5(2, T0 - 10)], [true])).not.toMatch(/\(DPI\)/);
    // An export time in the future is no NetFlow. nDPI compares with the
    // classifying machine's clock, not the packet's time: 0xf0000000 is 2097.
    expect(await classify('udp', 40002, 2055, [v5(1, 0xf0000000)], [true])).not.toMatch(/\(DPI\)/);
  });

  it('HAProxy: a PROXY v1 line followed by data; not the line alone', async () => {
    const line = 'PROXY TCP4 192.0.2.1 192.0.2.2 56324 443\r\n';
    expect(await classify('tcp', 40010, 8443, [txt(line + 'hello')])).toBe('HAProxy (DPI)');
    expect(await classify('tcp', 40011, 8443, [txt(line)])).not.toMatch(/^HAProxy/);
  });

  it('HTTP2: the prior-knowledge preface; not a mangled one', async () => {
    const preface = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';
    expect(await classify('tcp', 40020, 8080, [Buffer.concat([txt(preface), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])])])).toBe('HTTP2 (DPI)');
    expect(await classify('tcp', 40021, 8080, [txt(preface.replace('SM', 'XM'))])).not.toMatch(/^HTTP2/);
  });

  it('WebSocket: an unmasked text frame whose length is the segment; not with a wrong length', async () => {
    const body = txt('Welcome!');
    expect(await classify('tcp', 40030, 12345, [Buffer.concat([Buffer.from([0x81, body.length]), body])], [false])).toBe('WebSocket (DPI)');
    expect(await classify('tcp', 40031, 12345, [Buffer.concat([Buffer.from([0x81, body.length + 1]), body])], [false])).not.toMatch(/^WebSocket/);
  });

  it('SOMEIP: a request with its length, version 1 and a known type; not with protocol version 2', async () => {
    const msg = (version: number, type: number) =>
      Buffer.concat([u32(0x12340008), u32(8 + 5), u32(0x00010001), Buffer.from([version, 1, type, 0]), Buffer.alloc(5, 0xab)]);
    expect(await classify('udp', 49191, 49201, [msg(1, 0x00)], [true])).toBe('SOMEIP (DPI)');
    expect(await classify('udp', 49192, 49201, [msg(1, 0x20)], [true])).toBe('SOMEIP (DPI)');  // TP segment
    expect(await classify('udp', 49193, 49201, [msg(2, 0x00)], [true])).not.toMatch(/^SOMEIP/);
    expect(await classify('udp', 49194, 49201, [msg(1, 0x03)], [true])).not.toMatch(/^SOMEIP/);
  });

  it('GTP: GTP-C v2 and GTP prime by port and header; a GTP-C v2 length off by one is not', async () => {
    const c2 = (extra: number) => Buffer.concat([Buffer.from([0x48, 0x20]), u16(8 + 4 + extra), u32(0), u32(0x000100), Buffer.alloc(4, 7)]);
    expect(await classify('udp', 1024, 2123, [c2(0)], [true])).toBe('GTP.GTP_C (DPI)');
    expect(await classify('udp', 1025, 2123, [c2(1)], [true])).not.toMatch(/GTP_C \(DPI\)/);
    const prime = (type: number) => Buffer.concat([Buffer.from([0x2e, type]), u16(4), u16(1), Buffer.alloc(4, 1)]);
    expect(await classify('udp', 64580, 3386, [prime(4)], [true])).toBe('GTP.GTP_PRIME (DPI)');
    expect(await classify('udp', 64581, 3386, [prime(0)], [true])).not.toMatch(/GTP_PRIME/);
  });

  it('NFS: an ONC RPC call to program 100003 over UDP; not to another program', async () => {
    const call = (prog: number) => Buffer.concat([u32(0x11223344), u32(0), u32(2), u32(prog), u32(2), u32(1), Buffer.alloc(24)]);
    expect(await classify('udp', 800, 2050, [call(100003)], [true])).toBe('NFS (DPI)');
    expect(await classify('udp', 801, 2050, [call(100021)], [true])).not.toMatch(/^NFS \(DPI\)/);
  });

  it('Mining: a stratum login over TCP; not a JSON object without its keys', async () => {
    expect(await classify('tcp', 40040, 3333, [txt('{"id":1,"method":"mining.subscribe","params":[]}\n')])).toBe('Mining (DPI)');
    expect(await classify('tcp', 40041, 3333, [txt('{"id":1,"result":true}\n')])).not.toMatch(/^Mining/);
  });
});

describe('Modbus/TCP', () => {
  const mbap = (fc: number, pdu: Buffer, proto = 0) => Buffer.concat([u16(1), u16(proto), u16(2 + pdu.length), Buffer.from([1, fc]), pdu]);
  it('a read request on port 502 is Modbus; function 0x5A is Modbus.UMAS', async () => {
    expect(await classify('tcp', 40100, 502, [mbap(3, Buffer.from([0, 0, 0, 2]))])).toBe('Modbus (DPI)');
    expect(await classify('tcp', 40101, 502, [mbap(0x5a, Buffer.from([0, 2]))])).toBe('Modbus.UMAS (DPI)');
  });
  it('a non-zero protocol id, a length that does not fit, or another port is not Modbus by DPI', async () => {
    expect(await classify('tcp', 40102, 502, [mbap(3, Buffer.from([0, 0, 0, 2]), 7)])).not.toMatch(/\(DPI\)/);
    expect(await classify('tcp', 40103, 502, [Buffer.concat([mbap(3, Buffer.from([0, 0, 0, 2])), Buffer.from([9])])])).not.toMatch(/\(DPI\)/);
    expect(await classify('tcp', 40104, 5020, [mbap(3, Buffer.from([0, 0, 0, 2]))])).not.toMatch(/^Modbus/);
  });
});

describe('RTSP', () => {
  it('a SETUP request line ending in RTSP/1.0, and an answer, are RTSP', async () => {
    expect(await classify('tcp', 40110, 8554, [txt('SETUP rtsp://192.0.2.9:8554/trackID=1 RTSP/1.0\r\nCSeq: 4\r\n\r\n')])).toBe('RTSP (DPI)');
    // nDPI takes an answer only from the direction opposite the flow's first
    // payload packet (an answer seen alone is not enough)
    expect(await classify('tcp', 40111, 8554, [txt('DESCRIBE rtsp://192.0.2.9/'), txt('RTSP/1.0 200 OK\r\nCSeq: 4\r\n\r\n')], [true, false])).toBe('RTSP (DPI)');
  });
  it('the same method with an HTTP version is not RTSP', async () => {
    expect(await classify('tcp', 40112, 8554, [txt('OPTIONS rtsp://192.0.2.9/ HTTP/1.1\r\nHost: a\r\n\r\n')])).not.toMatch(/^RTSP/);
  });
});

describe('eDonkey', () => {
  const le32 = (v: number) => Buffer.from([v & 255, (v >> 8) & 255, (v >> 16) & 255, v >>> 24]);
  const msg = (marker: number, body: Buffer, extra = 0) => Buffer.concat([Buffer.from([marker]), le32(body.length + extra), body]);
  it('a Hello with the 0xE3 marker and an exact length is eDonkey', async () => {
    expect(await classify('tcp', 40120, 7551, [msg(0xe3, Buffer.concat([Buffer.from([0x01, 0x10]), Buffer.alloc(20, 7)]))])).toBe('eDonkey (DPI)');
  });
  it('a length one byte off, or another marker, is not', async () => {
    expect(await classify('tcp', 40121, 7551, [msg(0xe3, Buffer.alloc(22, 1), 1)])).not.toMatch(/^eDonkey/);
    expect(await classify('tcp', 40122, 7551, [msg(0xe4, Buffer.alloc(22, 1))])).not.toMatch(/^eDonkey/);
  });
});

describe('Yojimbo', () => {
  it('a netcode.io connection request is Yojimbo; another version string is not', async () => {
    const req = (v: string) => Buffer.concat([Buffer.from([0]), txt(v), Buffer.alloc(40, 3)]);
    expect(await classify('udp', 40130, 40000, [req('NETCODE 1.02\0')], [true])).toBe('Yojimbo (DPI)');
    expect(await classify('udp', 40131, 40000, [req('NETKODE 1.02\0')], [true])).not.toMatch(/^Yojimbo/);
  });
});

describe('protocols known from the IP protocol number', () => {
  const tmp = tempDir('fg-ipproto-');
  afterAll(() => tmp.cleanup());
  const classifyProto = async (proto: number) => {
    const file = join(tmp.dir, `p${proto}.pcap`);
    const frame = eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: CLI, dst: SRV, proto }, Buffer.alloc(24, 1)));
    writeFileSync(file, pcap([{ tsNs: sec(T0), data: frame }]));
    const e = new Engine({ files: [file] });
    e.start();
    await e.waitDone();
    const f = e.flows({ limit: 10 }).rows;
    e.close();
    expect(f.length).toBe(1);
    return `${l7Name(f[0].l7_master, f[0].l7_app)} (${f[0].l7_confidence})`;
  };

  it('PGM is IP protocol 113; 114 is not', async () => {
    expect(await classifyProto(113)).toBe('PGM (DPI)');
    expect(await classifyProto(114)).not.toMatch(/^PGM/);
  });

  it('HTTP: a Host line in the request\'s second segment names the flow; a body line does not', async () => {
    const url = '/' + 'a'.repeat(1400);
    const first = txt(`GET ${url}`);
    const rest = txt(' HTTP/1.1\r\nUser-Agent: curl/8.0\r\nHost: www.youtube.com\r\n\r\n');
    const split = await runFlow('tcp', 40100, 80, [first, rest], [true, true]);
    expect([l7Name(split.flow.l7_master, split.flow.l7_app), split.flow.host_name]).toEqual(['HTTP.YouTube', 'www.youtube.com']);
    // nDPI's http.c parses every further client packet before the response
    // as header lines (its first line too, when it holds a ':'): a "host:"
    // line there names the flow even after the headers ended (audit 9)
    const post = txt('POST /x HTTP/1.1\r\nUser-Agent: curl/8.0\r\nContent-Length: 30\r\n\r\n');
    const body = txt('host: www.youtube.com\r\nabcdef');
    const whole = await runFlow('tcp', 40101, 80, [post, body], [true, true]);
    expect([l7Name(whole.flow.l7_master, whole.flow.l7_app), whole.flow.host_name]).toEqual(['HTTP.YouTube', 'www.youtube.com']);
    // without a CRLF nDPI has no lines: nothing named
    const body2 = txt('host: www.youtube.com');
    const none = await runFlow('tcp', 40102, 80, [post, body2], [true, true]);
    expect([l7Name(none.flow.l7_master, none.flow.l7_app), none.flow.host_name]).toEqual(['HTTP', '']);
  });

  it('Syslog over TCP on any port: RFC 5424 or RFC 3164 headers after <PRI>; not a bare <PRI> there', async () => {
    const r5424 = '<22>1 2021-04-18T14:51:48+04:00 host app - - - message text';
    expect(await classify('tcp', 40110, 52173, [txt(r5424)], [true])).toBe('Syslog (DPI)');
    expect(await classify('tcp', 40111, 52174, [txt('<13>Feb  5 17:32:18 10.0.0.99 Use the BFG!')], [true])).toBe('Syslog (DPI)');
    expect(await classify('tcp', 40112, 52175, [txt('<22>hello, this is not a syslog header at all')], [true])).not.toMatch(/^Syslog/);
    // nDPI's syslog.c reads only the word after <PRI> (letters and digits up
    // to ' ', ':', '=', '[' or '-'): a '.' there is the miss
    expect(await classify('tcp', 40113, 52176, [txt('<22>1.x021-04-18T14:51:48+04:00 host app')], [true])).not.toMatch(/^Syslog/);
  });

  it('WireGuard.TunnelBear: its 204-byte initiation and 100-byte response; not a 204-byte initiation alone', async () => {
    const msg = (type: number, len: number) => Buffer.concat([Buffer.from([type, 0, 0, 0]), Buffer.alloc(len - 4, 7)]);
    expect(await classify('udp', 40120, 51820, [msg(1, 204), msg(2, 100)])).toBe('WireGuard.TunnelBear (DPI)');
    // a lone initiation waits for its answer (nDPI's wireguard.c); one sent again names the flow
    expect(await classify('udp', 40121, 51821, [msg(1, 148)], [true])).not.toMatch(/\(DPI\)/);
    expect(await classify('udp', 40123, 51821, [msg(1, 148), msg(1, 148)], [true, true])).toBe('WireGuard (DPI)');
    expect(await classify('udp', 40122, 51822, [msg(1, 204)], [true])).not.toMatch(/\(DPI\)/);
  });

  it('SOCKS 4 and 5: the request answered by the proxy; not the request alone or a wrong answer', async () => {
    const s4 = Buffer.from([4, 1, 0, 80, 93, 184, 216, 119, 0]);
    const s4ok = Buffer.from([0, 0x5a, 0, 0, 0, 0, 0, 0]);
    expect(await classify('tcp', 40130, 21400, [s4, s4ok])).toBe('SOCKS (DPI)');
    expect(await classify('tcp', 40131, 21401, [Buffer.from([5, 1, 0]), Buffer.from([5, 0])])).toBe('SOCKS (DPI)');
    expect(await classify('tcp', 40132, 21402, [Buffer.from([5, 1, 0]), Buffer.from([5, 0xff, 1])])).not.toMatch(/^SOCKS/);
    expect(await classify('tcp', 40133, 21403, [s4], [true])).not.toMatch(/^SOCKS \(DPI/);
  });

  it('mining-pool JSON-RPC (eth_submitLogin with "worker") is Mining, not ETHEREUM', async () => {
    const login = '{"worker": "eth1.0", "jsonrpc": "2.0", "params": ["0x9c99", "x"], "id": 2, "method": "eth_submitLogin"}\n';
    expect(await classify('tcp', 40140, 9999, [txt(login)], [true])).toBe('Mining (DPI)');
  });
});

