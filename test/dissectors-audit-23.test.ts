// Audit 23: the HTTP dissector's framework checked against nDPI 4.11's own
// source (src/lib/protocols/http.c, src/lib/ndpi_main.c). Hand-built flows:
// - HTTP's sub-protocols (check_ndpi_subprotocols, run by
//   check_ndpi_detection_func after the match): every candidate is asked on
//   the packet that named the flow, none stops the loop, so when two match
//   the later one in nDPI's list wins; each sees the names the earlier set
//   (SOAP, RTSP and BitTorrent keep the current protocol as master: a
//   Crossfire request with a SOAPAction is Crossfire.SOAP, MapleStory's
//   request with one is MapleStory). A second pass runs over the master's
//   sub-protocols.
// - IPP's request test as ndpi_http_str2method and http.c read it.
// - http.c's risks: suspicious header names (ndpi_check_http_header), an
//   unprintable Server value, a Host IPv4 literal other than the packet's
//   destination, suspicious content (ndpi_validate_http_content), RCE URLs
//   (ndpi_check_http_url), the User-Agent as a C string, and HTTP.ntop on
//   a port of its own.

import { afterAll, describe, expect, it } from 'vitest';

import type { FlowRecord } from '../ts/bindings/native.js';
import { capturesIn, flowFrames, nameOf } from './fixtures/dissect.js';
import { tempDir } from './fixtures/pcap.js';
import { cat, txt } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-23-');
afterAll(() => tmp.cleanup());

type Msg = [boolean, Buffer];
const C4 = '10.0.0.1', S4 = '10.0.0.2', C6 = '2001:db8::1', S6 = '2001:db8::2';

const replay = capturesIn(tmp.dir);
async function flowOf(cport: number, sport: number, msgs: Msg[], v6 = false): Promise<FlowRecord> {
  const [f] = await replay(flowFrames('tcp', v6 ? C6 : C4, v6 ? S6 : S4, cport, sport, msgs));
  return f!;
}
const run = async (cport: number, sport: number, msgs: Msg[], v6 = false) => nameOf(await flowOf(cport, sport, msgs, v6));
const risksOf = async (cport: number, sport: number, msgs: Msg[], v6 = false) => (await flowOf(cport, sport, msgs, v6)).risks;
const cli = (...p: Buffer[]): Msg[] => p.map((b) => [true, b]);
const alt = (...p: Buffer[]): Msg[] => p.map((b, i) => [i % 2 === 0, b]);

/** A request: its line, then header lines, then the blank line. */
const req = (line: string, ...h: string[]) => txt([line, ...h, '', ''].join('\r\n'));
const resp = (...h: string[]) => txt(['HTTP/1.1 200 OK', ...h, '', ''].join('\r\n'));

// ── HTTP's sub-protocols: the last match wins ─────────────────────────────
describe('HTTP sub-protocols (ndpi_main.c: check_ndpi_subprotocols)', () => {
  it('IPP then MPEG-DASH on one request: HTTP.MpegDash, IPv4 and IPv6; each alone names its own', async () => {
    const ipp = (url: string) => req(`POST ${url} HTTP/1.1`, 'Host: printer.example.org', 'User-Agent: CUPS/2.4', 'Content-Type: application/ipp');
    expect(await run(41000, 631, cli(ipp('/ipp/print.mp4')))).toBe('HTTP.MpegDash (DPI)');
    expect(await run(41001, 631, cli(ipp('/ipp/print.mp4')), true)).toBe('HTTP.MpegDash (DPI)');
    expect(await run(41002, 631, cli(ipp('/ipp/print')))).toBe('HTTP.IPP (DPI)');
    expect(await run(41003, 631, cli(ipp('/print.mp4')))).toBe('HTTP.MpegDash (DPI)');
  });

  it('IPP then HL7 (its Content-Type): HTTP.HL7; MPEG-DASH then JSON-RPC: HTTP.JSON-RPC', async () => {
    const ua = 'User-Agent: t/1';
    expect(await run(41010, 80, cli(req('POST /ipp/print HTTP/1.1', 'Host: h.example.org', ua, 'Content-Type: x-application/hl7-v2+er7')))).toBe('HTTP.HL7 (DPI)');
    expect(await run(41011, 80, cli(req('POST /ipp/print HTTP/1.1', 'Host: h.example.org', ua, 'Content-Type: x-application/hl7-v2+er8')))).toBe('HTTP.IPP (DPI)');
    expect(await run(41012, 80, cli(req('GET /rpc/a.mp4 HTTP/1.1', 'Host: h.example.org', ua, 'Content-Type: application/json-rpc')), true)).toBe('HTTP.JSON-RPC (DPI)');
    expect(await run(41013, 80, cli(req('GET /rpc/a.mp4 HTTP/1.1', 'Host: h.example.org', ua, 'Content-Type: application/json')))).toBe('HTTP.MpegDash (DPI)');
  });

  it('SOAP then MPEG-DASH: HTTP.MpegDash; a request line ending RTSP/1.0 (MPEG-DASH, then RTSP): HTTP.RTSP', async () => {
    const soap = (line: string) => req(line, 'Host: h.example.org', 'User-Agent: t/1', 'SOAPAction: "urn:x#Get"');
    expect(await run(41020, 80, cli(soap('POST /svc/clip.mp4 HTTP/1.1')))).toBe('HTTP.MpegDash (DPI)');
    expect(await run(41021, 80, cli(soap('POST /svc/clip.mp4 HTTP/1.1')), true)).toBe('HTTP.MpegDash (DPI)');
    expect(await run(41022, 80, cli(soap('POST /svc/clip HTTP/1.1')))).toBe('HTTP.SOAP (DPI)');
    expect(await run(41023, 80, cli(req('GET /vod/stream RTSP/1.0', 'Host: h.example.org')))).toBe('HTTP.RTSP (DPI)');
  });

  it('SOAP then MapleStory (which names the flow without a master): MapleStory; one detail off: HTTP.SOAP', async () => {
    const maple = (ua: string) => req('GET /maplestory/notice.asp HTTP/1.1', 'Host: patch.example.org', `User-Agent: ${ua}`, 'SOAPAction: "urn:x"');
    expect(await run(41030, 80, cli(maple('AspINet')))).toBe('MapleStory (DPI)');
    expect(await run(41031, 80, cli(maple('AspINet')), true)).toBe('MapleStory (DPI)');
    expect(await run(41032, 80, cli(maple('AspINet2')))).toBe('HTTP.SOAP (DPI)');
  });

  // Crossfire's login request: exactly 8 lines (request line, 5 headers, the blank line, the empty rest).
  const xfire = (h4: string, h5: string) =>
    req('GET /notice/login_big/index.asp HTTP/1.1', 'Host: crossfire.example.com', 'User-Agent: CF/1', h4, 'Connection: close', h5);
  it('Crossfire then SOAP, RTSP (tunnelled) or BitTorrent: they keep Crossfire as master', async () => {
    expect(await run(41040, 80, cli(xfire('Accept: */*', 'SOAPAction: "urn:x"')))).toBe('Crossfire.SOAP (DPI)');
    expect(await run(41041, 80, cli(xfire('Accept: */*', 'SOAPAction: "urn:x"')), true)).toBe('Crossfire.SOAP (DPI)');
    expect(await run(41042, 80, cli(xfire('Accept: application/x-rtsp-tunnelled', 'X-Seq: 1')))).toBe('Crossfire.RTSP (DPI)');
    expect(await run(41043, 80, cli(xfire('Accept: */*', 'X-Seq: 1')))).toBe('Crossfire (DPI)');
    const bt = req('GET /notice/login_big/index.asp HTTP/1.1', 'Host: crossfire.example.com', 'User-Agent: BitTorrent/7.10', 'Accept: */*', 'Connection: close', 'X-Seq: 1');
    expect(await run(41044, 80, cli(bt))).toBe('Crossfire.BitTorrent (DPI)');
    // a sixth header line: not Crossfire's 8 lines, so HTTP, then BitTorrent under it
    const bt9 = req('GET /notice/login_big/index.asp HTTP/1.1', 'Host: crossfire.example.com', 'User-Agent: BitTorrent/7.10', 'Accept: */*', 'Connection: close', 'X-Seq: 1', 'X-Pad: 1');
    expect(await run(41045, 80, cli(bt9))).toBe('HTTP.BitTorrent (DPI)');
  });

  it('BitTorrent then Gnutella (Shareaza on a /uri-res/ URL): HTTP.Gnutella; elsewhere HTTP.BitTorrent', async () => {
    const shareaza = (url: string) =>
      req(`GET ${url} HTTP/1.1`, 'Host: 10.0.0.2:6346', 'Connection: Keep-Alive', 'Accept: */*', 'User-Agent: Shareaza 2.5.2.0', 'Range: bytes=0-', 'X-Features: g2/1.0', 'X-Nick: peer', 'X-Queue: position=1');
    expect(await run(41050, 80, cli(shareaza('/uri-res/N2R?urn:sha1:PLSTHIPQGSSZTS5FJUPAKUZWUGYQYPFB')))).toBe('HTTP.Gnutella (DPI)');
    expect(await run(41051, 80, cli(shareaza('/uri-res/N2R?urn:sha1:PLSTHIPQGSSZTS5FJUPAKUZWUGYQYPFB')), true)).toBe('HTTP.Gnutella (DPI)');
    expect(await run(41052, 80, cli(shareaza('/file.bin')))).toBe('HTTP.BitTorrent (DPI)');
  });

  it('HTTP_Proxy and HTTP_Connect have no sub-protocol dissectors (nDPI lists none for them)', async () => {
    expect(await run(41070, 8080, cli(req('GET http://h.example.org/a.mp4 HTTP/1.1', 'Host: h.example.org', 'SOAPAction: "urn:x"')))).toBe('HTTP_Proxy (DPI)');
    expect(await run(41071, 8080, cli(req('CONNECT h.example.org:443 HTTP/1.1', 'Host: h.example.org', 'SOAPAction: "urn:x"')), true)).toBe('HTTP_Connect (DPI)');
    expect(await run(41072, 8080, cli(req('GET /a.mp4 HTTP/1.1', 'Host: h.example.org', 'SOAPAction: "urn:x"')))).toBe('HTTP.MpegDash (DPI)');
  });

  it("the master's sub-protocols are asked too: HTTP.WebDAV (http.c) then MPEG-DASH is HTTP.MpegDash", async () => {
    expect(await run(41060, 80, cli(req('PROPFIND /dav/a.mp4 HTTP/1.1', 'Host: h.example.org')))).toBe('HTTP.MpegDash (DPI)');
    expect(await run(41061, 80, cli(req('PROPFIND /dav/a.mp4 HTTP/1.0', 'Host: h.example.org')), true)).toBe('HTTP.WebDAV (DPI)');
  });
});

// ── http.c's first packet: a request of its method list, or a response from either side ──
describe('HTTP first packet (http.c: ndpi_check_http_tcp)', () => {
  it('"HTTP/1." in any case opens a response, from the server or from the client', async () => {
    expect(await run(41080, 80, [[false, resp('Content-Length: 0')]])).toBe('HTTP (DPI)');
    expect(await run(41081, 80, cli(txt('http/1.0 404 nope\r\n\r\n')), true)).toBe('HTTP (DPI)');
    expect(await run(41082, 80, cli(txt('HTTP/1.')))).toBe('HTTP (DPI)');
  });
  it('HTTP/2 text, TRACE (not in the list), a request after other bytes: not HTTP', async () => {
    expect(await run(41083, 80, cli(txt('HTTP/2 200\r\n\r\n')))).not.toMatch(/^HTTP.*\(DPI\)$/);
    expect(await run(41084, 80, cli(req('TRACE / HTTP/1.1', 'Host: h.example.org')))).not.toMatch(/^HTTP.*\(DPI\)$/);
    expect(await run(41085, 80, cli(txt('hello\r\n'), req('GET / HTTP/1.1', 'Host: h.example.org')))).not.toMatch(/^HTTP.*\(DPI\)$/);
  });
});

// ── IPP (ipp.c): POST as ndpi_http_str2method codes it, the URL after the spaces ──
describe('IPP (ipp.c, an HTTP sub-protocol)', () => {
  const ipp = (line: string) => req(line, 'Host: printer.example.org', 'User-Agent: CUPS/2.4');
  it('extra spaces before the URL, "POst", the version in lower case: HTTP.IPP, IPv4 and IPv6', async () => {
    expect(await run(41100, 631, cli(ipp('POST  /ipp/print HTTP/1.1')))).toBe('HTTP.IPP (DPI)');
    expect(await run(41101, 631, cli(ipp('POst /ipp/print HTTP/1.1')), true)).toBe('HTTP.IPP (DPI)');
    expect(await run(41102, 631, cli(ipp('POST /ipp/print http/1.1')))).toBe('HTTP.IPP (DPI)');
  });
  it('"PoST" (not POST to nDPI), "/IPP/", an incomplete request line: plain HTTP', async () => {
    expect(await run(41103, 631, cli(ipp('PoST /ipp/print HTTP/1.1')))).toBe('HTTP (DPI)');
    expect(await run(41104, 631, cli(ipp('POST /IPP/print HTTP/1.1')))).toBe('HTTP (DPI)');
    expect(await run(41105, 631, cli(txt('POST /ipp/print HTTP/1.1')))).toBe('HTTP (DPI)');
  });
});

// ── http.c's risks ────────────────────────────────────────────────────────
describe('HTTP suspicious header (http.c)', () => {
  const get = (...h: string[]) => req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: Mozilla/5.0 (X11; Linux)', ...h);
  const SH = 'HTTP Susp Header';
  it("ndpi_check_http_header: a name that starts one of nDPI's keys, compared without case over its length", async () => {
    for (const [i, h] of ['Os: Linux', 'Osn: x', 'Uuid: 1234', 'TLS_version: 1.2', 'S: 1', 'X-HIRE-me: yes', 'Cores: 8'].entries())
      expect(await risksOf(41200 + i, 80, cli(get(h)))).toContain(SH);
    expect(await risksOf(41210, 80, cli(get('Mem: 8G')), true)).toContain(SH);
  });
  it('near misses: first letter in lower case, a longer name, no colon, a line after the blank one', async () => {
    for (const [i, h] of ['os: Linux', 'Ost: x', 'Server-Timing: a', 'Archive: 1', 'Uuid 1234'].entries())
      expect(await risksOf(41220 + i, 80, cli(get(h)))).not.toContain(SH);
    expect(await risksOf(41226, 80, cli(cat(get(), txt('Os: Linux'))))).not.toContain(SH);
  });
  it('ndpi_check_http_server: an unprintable byte in a Server value over 7 bytes', async () => {
    const r = req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: t/1');
    expect(await risksOf(41230, 80, alt(r, resp('Server: Apache\x7fX', 'Content-Length: 0')))).toContain(SH);
    expect(await risksOf(41231, 80, alt(r, resp('Server: Apache\x7fX', 'Content-Length: 0')), true)).toContain(SH);
    expect(await risksOf(41232, 80, alt(r, resp('Server: nginx\x01', 'Content-Length: 0')))).not.toContain(SH);
    expect(await risksOf(41233, 80, alt(r, resp('Server: nginx-proxy', 'Content-Length: 0')))).not.toContain(SH);
  });
  it("a Host IPv4 literal other than the packet's destination (inet_addr's reading), IPv4 only", async () => {
    const host = (h: string) => req('GET /a HTTP/1.1', `Host: ${h}`, 'User-Agent: t/1');
    expect(await risksOf(41240, 80, cli(host('10.0.0.9')))).toContain(SH);
    expect(await risksOf(41241, 80, cli(host('10.0.0.2x')))).toContain(SH);
    expect(await risksOf(41242, 80, cli(host('10.0.0.2:8080')))).not.toContain(SH);
    expect(await risksOf(41243, 80, cli(host('012.0.0.2')))).not.toContain(SH); // octal 012 is 10
    expect(await risksOf(41244, 80, cli(host('10.0.0.9')), true)).not.toContain(SH);
    // read as nDPI keeps the name: a trailing tab made a space, then dropped
    const tab = await risksOf(41245, 80, cli(host('10.0.0.2\t')));
    expect([tab.includes(SH), tab.includes('Non-Printable/Invalid Chars Detected')]).toEqual([false, true]);
  });
});

describe('HTTP suspicious content (http.c: ndpi_validate_http_content)', () => {
  const r = req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: t/1');
  const body = (ct: string, b: Buffer) => cat(resp(`Content-Type: ${ct}`, `Content-Length: ${b.length}`), b);
  const SC = 'HTTP Susp Content';
  it('a text, JSON or form body opening with unprintable bytes', async () => {
    expect(await risksOf(41300, 80, alt(r, body('text/html', Buffer.from([0, 1, 2, 3, 0x41, 0x41]))))).toContain(SC);
    expect(await risksOf(41301, 80, alt(r, body('application/json; charset=utf-8', Buffer.from([0x41, 0x41, 0x41, 0x80]))), true)).toContain(SC);
    expect(await risksOf(41302, 80, alt(r, body('application/x-www-form-urlencoded', Buffer.from([0x41, 0x1b, 0x41, 0x41]))))).toContain(SC);
  });
  it("gzip's magic, printable text (tab, CR, LF), another type, under 4 bytes of body: not", async () => {
    expect(await risksOf(41310, 80, alt(r, body('text/html', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2]))))).not.toContain(SC);
    expect(await risksOf(41311, 80, alt(r, body('text/plain', txt('\t\r\nok'))))).not.toContain(SC);
    expect(await risksOf(41312, 80, alt(r, body('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]))))).not.toContain(SC);
    expect(await risksOf(41313, 80, alt(r, body('text/html', Buffer.from([0, 1, 2]))))).not.toContain(SC);
  });
});

describe('HTTP URL (http.c: ndpi_check_http_url)', () => {
  const get = (url: string) => req(`GET ${url} HTTP/1.1`, 'Host: example.org', 'User-Agent: t/1');
  const RCE = 'RCE Injection', EX = 'Possible Exploit Attempt';
  it('"<php>" in the URL or "/shell?" at its start: RCE injection, IPv4 and IPv6', async () => {
    expect(await risksOf(41400, 80, cli(get('/index.php?x=<php>echo')))).toContain(RCE);
    expect(await risksOf(41401, 80, cli(get('/shell?cd+/tmp')), true)).toContain(RCE);
    expect(await risksOf(41402, 80, cli(get('/a/shell?cd')))).not.toContain(RCE);
  });
  it('a URL opening "/." is a possible exploit, unless it is already an RCE one', async () => {
    const dot = await risksOf(41410, 80, cli(get('/./etc/passwd')));
    expect([dot.includes(EX), dot.includes(RCE)]).toEqual([true, false]);
    const both = await risksOf(41411, 80, cli(get('/./<php>')));
    expect([both.includes(EX), both.includes(RCE)]).toEqual([false, true]);
  });
});

describe('HTTP User-Agent as nDPI holds it (a C string)', () => {
  const UA = 'HTTP Susp User-Agent';
  it("the value's string checks stop at a NUL: '{' after it is not suspicious", async () => {
    expect(await risksOf(41500, 80, cli(req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: Mozilla/5.0\x00{x}')))).not.toContain(UA);
    expect(await risksOf(41501, 80, cli(req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: Mozilla/5.0 {x}')))).toContain(UA);
  });
  it('the application checks on it stop at a NUL too (MSRPC after one is not MS-RPCH)', async () => {
    expect(await run(41505, 80, cli(req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: x MSRPC')))).toBe('HTTP.MS-RPCH (DPI)');
    expect(await run(41506, 80, cli(req('GET /a HTTP/1.1', 'Host: example.org', 'User-Agent: x\x00MSRPC')))).toBe('HTTP (DPI)');
  });
  it('a Host value opening with a NUL names nothing and is not judged', async () => {
    const r = await risksOf(41507, 80, cli(req('GET /a HTTP/1.1', 'Host: \x00example.org', 'User-Agent: t/1')));
    expect([r.includes('Non-Printable/Invalid Chars Detected'), r.includes('Possible Exploit Attempt')]).toEqual([false, false]);
    const s = await risksOf(41508, 80, cli(req('GET /a HTTP/1.1', 'Host: exa\x00mple.org', 'User-Agent: t/1')));
    expect([s.includes('Non-Printable/Invalid Chars Detected'), s.includes('Possible Exploit Attempt')]).toEqual([true, true]);
  });
  it('a User-Agent opening with a NUL in a later segment clears the risk until a response judges it', async () => {
    const head = txt('GET /a HTTP/1.1\r\nHost: example.org\r\n');
    const rest = txt('User-Agent: \x00x\r\n\r\n');
    expect(await risksOf(41510, 80, cli(head, rest))).not.toContain(UA);
    expect(await risksOf(41511, 80, [[true, head], [true, rest], [false, resp('Content-Length: 0')]])).toContain(UA);
    expect(await risksOf(41512, 80, cli(head))).toContain(UA);
  });
});

describe('HTTP.ntop (http.c: ntopng Server header)', () => {
  const r = req('GET / HTTP/1.1', 'Host: box', 'User-Agent: t/1');
  it('named by the Server header: never a known protocol on a non-standard port', async () => {
    const f = await flowOf(41600, 3000, alt(r, resp('Server: ntopng 6.2.0', 'Content-Length: 0')));
    expect([nameOf(f), f.risks.includes('Known Proto on Non Std Port')]).toEqual(['HTTP.ntop (DPI)', false]);
    const g = await flowOf(41601, 3000, alt(r, resp('Server: nginx-ntopng', 'Content-Length: 0')));
    expect([nameOf(g), g.risks.includes('Known Proto on Non Std Port')]).toEqual(['HTTP (DPI)', true]);
  });
});
