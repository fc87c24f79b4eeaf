// A ClientHello longer than its first segment (a post-quantum key share,
// over 1.2 KB, put before the server name as browsers may order their
// extensions): nDPI reassembles the handshake message and reads it whole
// (tls.c ndpi_search_tls_memory), so the name, the metadata and the risks
// come from every segment; a missing segment leaves the flow plain TLS.
// The hello is gathered here in a per-thread buffer (tls.cpp
// hello_gather_*). Every case's pcap was also run through ndpiReader 4.11,
// which gave the names and risks expected here (FLOWGATE_TEST_PCAPS=dir
// keeps them there).
import { describe, expect, it } from 'vitest';

import { type ExpiredFlow, l7Name } from '../ts/bindings/engine.js';
import { rdpConnectionConfirm, rdpConnectionRequest } from './fixtures/apps.js';
import { type TcpMsg as Msg, sessionReplayer } from './fixtures/dissect.js';

const replay = sessionReplayer('hello-split');
const run = (cport: number, msgs: Msg[], sport = 443): Promise<ExpiredFlow> => replay(['10.0.0.1', '10.0.0.2'], [cport, sport], msgs, { acks: true });
const name = (f: ExpiredFlow) => l7Name(f.l7_master, f.l7_app);

const u16 = (v: number) => Buffer.from([v >> 8, v & 0xff]);
const ext = (type: number, body: Buffer) => Buffer.concat([u16(type), u16(body.length), body]);
/** A TLS 1.3 ClientHello (RFC 8446 §4.1.2) whose key share (X25519MLKEM768, 1,216 bytes) and padding come before the server name. */
function bigHello(sni: string | null, alpn = 'h2'): Buffer {
  const share = Buffer.concat([u16(0x11ec), u16(1216), Buffer.alloc(1216, 0x42)]);
  const exts = [
    ext(0x000a, Buffer.concat([u16(4), u16(0x11ec), u16(0x001d)])), // supported_groups
    ext(0x0033, Buffer.concat([u16(share.length), share])), // key_share
    ext(0x0015, Buffer.alloc(160)), // padding (RFC 7685)
    ...(sni === null ? [] : [ext(0x0000, Buffer.concat([u16(sni.length + 3), Buffer.from([0]), u16(sni.length), Buffer.from(sni, 'latin1')]))]),
    ext(0x0010, Buffer.concat([u16(alpn.length + 1), Buffer.from([alpn.length]), Buffer.from(alpn, 'latin1')])), // ALPN
    ext(0x002b, Buffer.from([4, 0x03, 0x04, 0x03, 0x03])), // supported_versions
    ext(0x000d, Buffer.concat([u16(4), u16(0x0403), u16(0x0804)])), // signature_algorithms
  ];
  const suites = Buffer.from([0x13, 0x01, 0x13, 0x02, 0xc0, 0x2f]);
  const all = Buffer.concat(exts);
  const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32, 0x5a), Buffer.from([0]), u16(suites.length), suites, Buffer.from([1, 0]), u16(all.length), all]);
  const hs = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), u16(hs.length), hs]);
}
/** The hello cut at those offsets: one client segment per piece. */
const pieces = (b: Buffer, ...at: number[]): Msg[] => [0, ...at].map((s, i, a): Msg => [true, b.subarray(s, a[i + 1] ?? b.length)]);

describe('a ClientHello over several segments is read whole', () => {
  const hello = bigHello('www.netflix.com');

  it('its server name in the second segment names the flow, as in one', async () => {
    expect(hello.length).toBeGreaterThan(1448);
    expect(hello.indexOf('www.netflix.com')).toBeGreaterThan(1448); // in the second segment
    const whole = await run(40200, [[true, hello]]);
    expect(name(whole)).toBe('TLS.NetFlix');
    const split = await run(40201, pieces(hello, 1448));
    expect(name(split)).toBe('TLS.NetFlix');
    expect(split.risks).toEqual(whole.risks);
  });

  it('wherever it is cut, and in three pieces', async () => {
    expect(name(await run(40210, pieces(hello, 8)))).toBe('TLS.NetFlix'); // the record header and little more
    expect(name(await run(40212, pieces(hello, 600, 1300)))).toBe('TLS.NetFlix');
    // the server's ACKs in between: TLS's 12 packets count from the whole hello, not from its start
    const [p0, p1, p2] = pieces(hello, 600, 1300);
    const acks = Array.from({ length: 12 }, (): Msg => [false, new Uint8Array(0)]);
    expect(name(await run(40213, [p0!, ...acks, p1!, p2!]))).toBe('TLS.NetFlix');
  });

  it("the whole hello's risks: a missing server name, a generated-looking one", async () => {
    const none = await run(40220, pieces(bigHello(null), 1448));
    expect(name(none)).toBe('TLS');
    expect(none.risks).toContain('Missing SNI TLS Extn');
    const dga = await run(40221, pieces(bigHello('kkw.pnkxdyng.org'), 1448));
    expect(dga.risks).toContain('Susp DGA Domain name');
  });

  it('a lost segment leaves it plain TLS', async () => {
    // the middle piece never arrives: the third starts past a gap
    const msgs = pieces(hello, 600, 1300);
    const lost = await run(40230, [msgs[0]!, [true, msgs[1]![1], 'lost'], msgs[2]!]);
    expect(name(lost)).toBe('TLS');
  });
});

describe("inside RDP, nDPI's TLS reading sees only segments that open with a record", () => {
  it('a hello cut in two is never whole to it: the flow stays RDP', async () => {
    const hello = bigHello('rdp.example.org');
    const start: Msg[] = [[true, rdpConnectionRequest()], [false, rdpConnectionConfirm()]];
    expect(name(await run(40240, [...start, [true, hello]], 3389))).toBe('TLS.RDP');
    expect(name(await run(40241, [...start, ...pieces(hello, 600)], 3389))).toBe('RDP');
  });
});
