// nDPI's Known Protocol on Non-Standard Port (ndpi_detection_process_packet,
// judged once after the packet that first names the flow by DPI): with P
// the default ports of the master (of the application when alone), the
// risk is raised when the ports suggest another protocol and the server
// port is not in P (TLS on 25), or when they suggest nothing and neither
// port is in P nor in the application's own ports (HTTP on 8123); nothing
// when the ports suggest the flow's own protocols (TLS.DoH_DoT on 853) or
// P is empty. Ports from nDPI's protocol table (../shared/pcaps/ndpi-protocols.tsv).
import { afterAll, describe, expect, it } from 'vitest';

import { capturesIn, flowFrames, nameOf } from './fixtures/dissect.js';
import { tlsClientHello } from './fixtures/apps.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-risks-ports-');
afterAll(() => tmp.cleanup());
const replay = capturesIn(tmp.dir);
const NON_STD = 'Known Proto on Non Std Port';

async function flow(l4: 'udp' | 'tcp', sport: number, msgs: [boolean, Buffer][], v6 = false) {
  const [f] = await replay(flowFrames(l4, v6 ? '2001:db8::1' : '10.0.0.1', v6 ? '2001:db8::2' : '10.0.0.2', 40000, sport, msgs));
  return { name: nameOf(f!), risks: f!.risks };
}
const get = Buffer.from('GET / HTTP/1.1\r\nHost: example.org\r\nUser-Agent: curl/8.0\r\nAccept: */*\r\n\r\n');
const ok = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
const chlo = (sni: string) => Buffer.from(tlsClientHello(sni));

describe('Known Proto on Non Std Port (nDPI)', () => {
  it('HTTP on its port: none; on a port that suggests nothing: raised, IPv4 and IPv6', async () => {
    expect((await flow('tcp', 80, [[true, get], [false, ok]])).risks).not.toContain(NON_STD);
    for (const v6 of [false, true]) {
      const f = await flow('tcp', 8123, [[true, get], [false, ok]], v6);
      expect(f.name).toBe('HTTP (DPI)');
      expect(f.risks).toContain(NON_STD);
    }
  });
  it('TLS on a port suggesting another protocol (SMTP 25): raised', async () => {
    const f = await flow('tcp', 25, [[true, chlo('www.example.org')]]);
    expect(f.name).toMatch(/^TLS/);
    expect(f.risks).toContain(NON_STD);
  });
  it('a name the ports suggest is no mismatch: TLS.DoH_DoT on 853 (DoH_DoT\'s own port)', async () => {
    const f = await flow('tcp', 853, [[true, chlo('dns.google')]]);
    expect(f.name).toBe('TLS.DoH_DoT (DPI)');
    expect(f.risks).not.toContain(NON_STD);
  });
  it('judged with the first name: plain TLS on 853 (the port suggests DoH_DoT, not TLS) is raised', async () => {
    const f = await flow('tcp', 853, [[true, chlo('www.example.org')]]);
    expect(f.name).toBe('TLS (DPI)');
    expect(f.risks).toContain(NON_STD);
  });
});

// nDPI's Unsafe Protocol (ndpi_reconcile_protocols, on every naming): either
// name of the flow with an unsafe breed in nDPI's table (FTP_CONTROL and
// FTPS are 'Unsafe', HTTP 'Acceptable').
describe('Unsafe Protocol (nDPI)', () => {
  const UNSAFE = 'Unsafe Protocol';
  const ftp = (lines: string[]) => lines.map((l, i): [boolean, Buffer] => [i % 2 === 1, Buffer.from(l)]);
  it('FTP and FTPS (after AUTH TLS) are unsafe; HTTP is not', async () => {
    const plain = await flow('tcp', 21, ftp(['220 ready\r\n', 'USER a\r\n', '331 more\r\n', 'PASS b\r\n', '230 in\r\n']));
    expect(plain.name).toBe('FTP_CONTROL (DPI)');
    expect(plain.risks).toContain(UNSAFE);
    const tls = await flow('tcp', 21, ftp(['220 ready\r\n', 'AUTH TLS\r\n', '234 Proceed\r\n']));
    expect(tls.name).toBe('FTPS (DPI)');
    expect(tls.risks).toContain(UNSAFE);
    expect((await flow('tcp', 80, [[true, get], [false, ok]])).risks).not.toContain(UNSAFE);
  });
});

// ndpi_detection_process_packet: in the first 5 payload packets of a flow
// still unknown after them, a Portable Executable or ELF file is a Binary
// Application Transfer, a "#!" script a Possible Exploit.
describe('programs in unknown flows (nDPI)', () => {
  const BIN = 'Binary App Transfer', EXPLOIT = 'Possible Exploit Attempt';
  // MZ, the PE header offset (little-endian at 0x3C), "PE\0\0" there (PE format, Microsoft).
  const pe = (at = 0x40, sig = 'PE\0\0') => {
    const b = Buffer.alloc(0x80, 0);
    b.write('MZ', 0, 'latin1');
    b.writeUInt32LE(at, 0x3c);
    if (at + 4 <= b.length) b.write(sig, at, 'latin1');
    return b;
  };
  // ELF identification (elf(5)): 0x7f 'E' 'L' 'F', then e_version (32-bit little-endian) at 20.
  const elf = (version = 1) => {
    const b = Buffer.alloc(64, 0);
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(b);
    b.writeUInt32LE(version, 20);
    return b;
  };
  const filler = (n: number) => Array.from({ length: n }, (_, i): [boolean, Buffer] => [i % 2 === 0, Buffer.from(`zq${i}xw`)]);
  it('a PE or ELF file: Binary App Transfer, TCP and UDP, IPv4 and IPv6', async () => {
    expect((await flow('tcp', 4444, [[true, pe()]])).risks).toContain(BIN);
    expect((await flow('udp', 4444, [[false, pe()]], true)).risks).toContain(BIN);
    expect((await flow('tcp', 4444, [[true, elf()]], true)).risks).toContain(BIN);
    expect((await flow('udp', 4444, [[true, elf(6)]])).risks).toContain(BIN);
  });
  it('near misses: the PE offset past the packet or no PE signature there, an ELF version above 6', async () => {
    expect((await flow('tcp', 4444, [[true, pe(0x7e)]])).risks).not.toContain(BIN);
    expect((await flow('tcp', 4444, [[true, pe(0x40, 'NE\0\0')]])).risks).not.toContain(BIN);
    expect((await flow('tcp', 4444, [[true, elf(7)]])).risks).not.toContain(BIN);
  });
  it('a "#!/" or "#! " script: Possible Exploit; "#!b" is not', async () => {
    expect((await flow('tcp', 4444, [[true, Buffer.from('#!/bin/sh\nid\n')]])).risks).toContain(EXPLOIT);
    expect((await flow('udp', 4444, [[true, Buffer.from('#! /usr/bin/env python3\n')]], true)).risks).toContain(EXPLOIT);
    expect((await flow('tcp', 4444, [[true, Buffer.from('#!bin/sh\n')]])).risks).not.toContain(EXPLOIT);
  });
  it('only in the first 5 payload packets', async () => {
    expect((await flow('tcp', 4444, [...filler(4), [true, elf()]])).risks).toContain(BIN);
    expect((await flow('tcp', 4444, [...filler(5), [true, elf()]])).risks).not.toContain(BIN);
  });
});
