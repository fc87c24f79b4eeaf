// nDPI's reading after a match (ndpi_main.c ndpi_process_extra_packet): the
// reading-on function (extra_packets_func) gets every packet of the flow,
// each counted toward its budget (max_extra_packets_to_check), payload or
// not, retransmitted or not. TLS's reading (tls.c) lasts 12 packets after
// its match and passes retransmissions and empty segments by; a protocol
// handing over to TLS (FTP's AUTH TLS, a mail STARTTLS) keeps its count;
// TLS inside RDP keeps RDP's 5; POP3's reading (mail_pop.c) reads a
// retransmission as any packet. The certificate-subject list
// (tls_certificate_match) is matched without regard to case, and of two
// fragments the one ending last wins. Every case's pcap was also run
// through ndpiReader 4.11, which gave the names and risks expected here
// (FLOWGATE_TEST_PCAPS=dir keeps them there).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { rdpConnectionConfirm, rdpConnectionRequest } from './fixtures/apps.js';
import { u16, u24, vec8, vec16 } from './fixtures/bytes.js';
import { type TcpMsg as Msg, sessionReplayer } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';

const tmp = tempDir('fg-extra-reading-'); // certificates
afterAll(() => tmp.cleanup());
const replay = sessionReplayer('extra');

interface Conv {
  v6?: boolean;
  ports: [number, number]; // client, server
  isn?: [number, number];
  msgs: Msg[];
}

async function classify(c: Conv): Promise<{ name: string; risks: string[] }> {
  const f = await replay(c.v6 ? ['2001:db8::1', '2001:db8::2'] : ['10.0.0.1', '10.0.0.2'], c.ports, c.msgs, { isn: c.isn });
  return { name: l7Name(f.l7_master, f.l7_app), risks: f.risks };
}

const b = (s: string) => Buffer.from(s, 'latin1');
const ACK = new Uint8Array(0);
/** `k` bare ACKs from the client. */
const acks = (k: number): Msg[] => Array.from({ length: k }, (): Msg => [true, ACK]);

// TLS 1.2 records (RFC 5246 §6.2, §7.4): a ClientHello without SNI, the server's ServerHello + Certificate
const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(body)]);
const handshake = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const hello = record(22, handshake(1, Buffer.concat([u16(0x0303), Buffer.alloc(32, 7), vec8(Buffer.alloc(0)), vec16(u16(0xc02f)), vec8(Buffer.from([0])), vec16(Buffer.alloc(0))])));
const serverHello = record(22, handshake(2, Buffer.concat([u16(0x0303), Buffer.alloc(32, 5), vec8(Buffer.alloc(0)), u16(0xc02f), Buffer.from([0])])));
const withCert = (der: Buffer) => Buffer.concat([serverHello, record(22, handshake(11, Buffer.concat([u24(der.length + 3), u24(der.length), der])))]);

const certs = new Map<string, Buffer>();
/** A self-signed certificate with that subject (openssl's -subj form), made by openssl. */
function cert(subj: string): Buffer {
  let der = certs.get(subj);
  if (!der) {
    const key = join(tmp.dir, 'k.pem'), pem = join(tmp.dir, 'c.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', pem, '-days', '90', '-subj', subj, '-addext', 'subjectAltName=DNS:fw.test'], { stdio: 'ignore' });
    der = execFileSync('openssl', ['x509', '-in', pem, '-outform', 'DER']);
    certs.set(subj, der);
  }
  return der;
}
// nDPI's list names FortiClient by "OU=FortiGate" in the subject
const FORTIGATE = '/C=US/O=Fortinet/OU=FortiGate/CN=fw';

describe("TLS's reading after its match: 12 packets of any kind", () => {
  // the ClientHello is the flow's 4th packet (after the handshake): nDPI reads packets 5–16
  it('a certificate in the 12th packet after the ClientHello names the flow, in the 13th it does not', async () => {
    for (const [k, want] of [[0, 'TLS.FortiClient'], [11, 'TLS.FortiClient'], [12, 'TLS'], [20, 'TLS']] as const) {
      const r = await classify({ ports: [40000 + k, 443], msgs: [[true, hello], ...acks(k), [false, withCert(cert(FORTIGATE))]] });
      expect(r.name, `${k} ACKs between`).toBe(want);
    }
  });

  it('retransmissions count too (and are not read)', async () => {
    for (const [k, want] of [[11, 'TLS.FortiClient'], [12, 'TLS']] as const) {
      const again = Array.from({ length: k }, (): Msg => [true, hello, 'again']);
      const r = await classify({ ports: [41000 + k, 443], msgs: [[true, hello], ...again, [false, withCert(cert(FORTIGATE))]] });
      expect(r.name, `${k} retransmissions between`).toBe(want);
    }
  });

  it("after FTP's AUTH TLS the count goes on from FTPS's match", async () => {
    // FTPS is matched on the server's 234 (the flow's 6th packet); its ClientHello is the 7th,
    // so the certificate may come up to 10 packets after it
    const ftp: Msg[] = [[false, b('220 ftp\r\n')], [true, b('AUTH TLS\r\n')], [false, b('234 go ahead\r\n')], [true, hello]];
    for (const [k, want] of [[10, 'FTPS.FortiClient'], [11, 'FTPS']] as const) {
      const r = await classify({ ports: [42000 + k, 21], msgs: [...ftp, ...acks(k), [false, withCert(cert(FORTIGATE))]] });
      expect(r.name, `${k} ACKs between`).toBe(want);
    }
  });

  it("TLS inside RDP keeps RDP's 5 packets", async () => {
    // an X.224 Connection Request asking for TLS, matched as RDP (the flow's 4th packet)
    const cr = rdpConnectionRequest(), cc = rdpConnectionConfirm();
    expect(cr[43]).toBe(1);
    // the ClientHello as the 5th packet after the request, then as the 6th
    for (const [k, want] of [[3, 'TLS.RDP'], [4, 'RDP']] as const) {
      const r = await classify({ ports: [43000 + k, 3389], msgs: [[true, cr], [false, cc], ...acks(k), [true, hello]] });
      expect(r.name, `${k} ACKs between`).toBe(want);
    }
  });
});

describe("nDPI's certificate-subject list", () => {
  const named = async (subj: string, port: number) => (await classify({ ports: [port, 443], msgs: [[true, hello], [false, withCert(cert(subj))]] })).name;

  it('names by its fragments, whatever their case: OU=FortiGate, not O=Fortinet alone', async () => {
    expect(await named(FORTIGATE, 44000)).toBe('TLS.FortiClient');
    expect(await named('/C=US/OU=fortigate/CN=fw', 44001)).toBe('TLS.FortiClient');
    expect(await named('/C=US/O=Fortinet/CN=FortiGate', 44002)).toBe('TLS');
  });

  it('of two fragments, the one ending last in the subject', async () => {
    expect(await named('/C=US/O=Netflix/OU=FortiGate', 44010)).toBe('TLS.FortiClient');
    expect(await named('/C=US/OU=FortiGate/O=Netflix', 44011)).toBe('TLS.NetFlix');
  });
});

describe('a retransmission after the match is read by POP3', () => {
  // IPv6 between equal ports: nDPI's one slot of next bytes holds the server's side (its
  // numbers far from the client's), so the client's segments are retransmissions to nDPI —
  // unread before the match (USER), read after it (PASS)
  const pop: Msg[] = [
    [false, b('+OK POP3 server ready <1@pop>\r\n')],
    [true, b('CAPA\r\n')],
    [false, b('+OK\r\nCAPA\r\nTOP\r\nUIDL\r\n.\r\n')],
    [true, b('USER alice\r\n')],
    [false, b('+OK\r\n')], // the third reply: POP3
  ];
  it('the password after the match raises Clear-Text Credentials', async () => {
    const c: Conv = { v6: true, ports: [110, 110], isn: [0xf2000000, 0x30000000], msgs: [...pop, [true, b('PASS secret\r\n')]] };
    const r = await classify(c);
    expect(r.name).toBe('POP3');
    expect(r.risks).toContain('Clear-Text Credentials');
    // without it, nothing of the client's was read
    const without = await classify({ ...c, msgs: pop });
    expect(without.name).toBe('POP3');
    expect(without.risks).not.toContain('Clear-Text Credentials');
  });
});
