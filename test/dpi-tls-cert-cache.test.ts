// nDPI's certificate cache (tls.c checkTLSSubprotocol, lru.tls_cert): when
// a server's certificate subject names the application (nDPI's subject list,
// e.g. OU=FortiGate → FortiClient), later TLS flows to the same server address
// and port that nothing else named are named alike at their ClientHello (or
// ServerHello), with confidence "DPI (cache)". Certificates are made by
// openssl in the test.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { u16, u24, vec8, vec16 } from './fixtures/bytes.js';
import { replayFrames, tcpSession } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-tls-cert-cache-');
afterAll(() => tmp.cleanup());
let n = 0;

function cert(subj: string): Buffer {
  const key = join(tmp.dir, 'k.pem'), pem = join(tmp.dir, 'c.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', '90', '-subj', subj, '-addext', 'subjectAltName=DNS:fw.test'], { stdio: 'ignore' });
  return execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
}
// TLS 1.2 records (RFC 5246 §6.2, §7.4): a ClientHello without SNI, the server's ServerHello + Certificate
const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(body)]);
const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const hello = record(22, handshake(1, Buffer.concat([u16(0x0303), Buffer.alloc(32, 7), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(Buffer.alloc(0))])));
const serverHello = record(22, handshake(2, Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02f), Buffer.from([0])])));
const withCert = (der: Buffer) => Buffer.concat([serverHello, record(22, handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der])))]);
const FORTINET = () => cert('/C=US/O=Fortinet/OU=FortiGate/CN=fw');

type Flow = { cport: number; sport: number; msgs: [boolean, Buffer][] }; // [from the client?, payload]
/** TCP flows in order (handshake, then each flow's messages in sequence); name per client port. */
async function run(flows: Flow[], v6 = false): Promise<Record<number, string>> {
  const C = v6 ? '2001:db8::1' : '10.0.0.1', S = v6 ? '2001:db8::2' : '10.0.0.2';
  const frames: Buffer[] = [];
  for (const f of flows) frames.push(...tcpSession(C, S, f.cport, f.sport, f.msgs));
  return replayFrames(tmp.file(`c-${n++}.pcap`), frames, (e: Engine) =>
    Object.fromEntries(e.flows({ limit: 20 }).rows.map((r) => [r.client.port, `${l7Name(r.l7_master, r.l7_app)} (${r.l7_confidence})`])),
  );
}

describe("nDPI's TLS certificate cache", () => {
  it('a later flow to the same server and port is named from the cache at its ClientHello', async () => {
    const der = FORTINET();
    const got = await run([
      { cport: 40300, sport: 10443, msgs: [[true, hello], [false, withCert(der)]] },
      { cport: 40301, sport: 10443, msgs: [[true, hello]] },
      { cport: 40302, sport: 10444, msgs: [[true, hello]] }, // another port of the same address
    ]);
    expect(got[40300]).toBe('TLS.FortiClient (DPI)');
    expect(got[40301]).toBe('TLS.FortiClient (DPI (cache))');
    expect(got[40302]).toBe('TLS (DPI)');
  });

  it('over IPv6 too; and a ServerHello without a certificate (a resumed session) is named from it', async () => {
    const der = FORTINET();
    const got = await run([
      { cport: 40310, sport: 10443, msgs: [[true, hello], [false, withCert(der)]] },
      { cport: 40311, sport: 10443, msgs: [[false, serverHello]] },
    ], true);
    expect(got[40310]).toBe('TLS.FortiClient (DPI)');
    expect(got[40311]).toBe('TLS.FortiClient (DPI (cache))');
  });

  it('nothing is cached before the certificate, nor from a subject of no application', async () => {
    const got = await run([
      { cport: 40320, sport: 10443, msgs: [[true, hello]] },
      { cport: 40321, sport: 10443, msgs: [[true, hello], [false, withCert(FORTINET())]] },
    ]);
    expect(got[40320]).toBe('TLS (DPI)');
    const other = await run([
      { cport: 40322, sport: 10443, msgs: [[true, hello], [false, withCert(cert('/C=US/O=Fortigate Inc/CN=Fortinet'))]] },
      { cport: 40323, sport: 10443, msgs: [[true, hello]] },
    ]);
    expect([other[40322], other[40323]]).toEqual(['TLS (DPI)', 'TLS (DPI)']);
  });
});
