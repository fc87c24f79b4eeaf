// Audit 9: HTTP against nDPI 4.11's http.c and its line parser
// (ndpi_parse_packet_line_info). Requests and responses are built from RFC
// 9112 (request line, status line, header fields ending in CRLF) and RFC
// 9110 (Host, User-Agent, Server, Content-Type, Origin, Referer); each case
// that nDPI accepts has a near miss it rejects. The request-line test itself
// (first byte, methods, rtsp://) is covered in dissectors-http-request.
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';
import { l7Name } from '../ts/bindings/engine.js';

const classify = classifier('fg-dissectors-audit-9-');
const run = flowRunner('fg-dissectors-audit-9r-');

// RFC 9112 §3: method SP request-target SP HTTP-version CRLF, then fields.
const req = (line: string, ...fields: string[]) => txt(`${line}\r\n${fields.map((f) => `${f}\r\n`).join('')}\r\n`);
// RFC 9112 §4: HTTP-version SP status-code SP reason CRLF, fields, body.
const resp = (status: string, fields: string[] = [], body = '') => txt(`${status}\r\n${fields.map((f) => `${f}\r\n`).join('')}\r\n${body}`);
const ua = 'User-Agent: curl/8.5.0';
const ok = resp('HTTP/1.1 200 OK', ['Content-Length: 0']);
const v6 = { v6: true };
const named = async (sport: number, dport: number, payloads: Uint8Array[], dirs?: boolean[], opts = {}) => {
  const { flow } = await run('tcp', sport, dport, payloads, dirs, undefined, opts);
  return { name: l7Name(flow.l7_master, flow.l7_app), risks: flow.risks as string[], host: flow.host_name };
};

describe('HTTP as nDPI 4.11 reads it (audit 9)', () => {
  it('the first payload packet decides: a request or a response either way, anything else rules HTTP out', async () => {
    // a response first (a capture starting mid-connection) is HTTP
    expect(await classify('tcp', 46000, 80, [ok], [false])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46001, 80, [ok], [false], v6)).toBe('HTTP (DPI)');
    // nDPI compares "HTTP/1." in any case and wants 7 bytes only
    expect(await classify('tcp', 46002, 80, [txt('http/1.1 200 OK\r\n\r\n')], [false])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46003, 80, [txt('HTTP/1.')], [false])).toBe('HTTP (DPI)');
    // near misses: another version; a server banner before the request
    expect(await classify('tcp', 46004, 80, [txt('HTTP/2 200\r\n\r\n')], [false])).not.toBe('HTTP (DPI)');
    const banner = await classify('tcp', 46005, 80, [txt('hello from the server\r\n'), req('GET / HTTP/1.1', 'Host: www.example.org', ua)], [false, true]);
    expect(banner).not.toMatch(/^HTTP.* \(DPI\)$/);
    const banner6 = await classify('tcp', 46006, 80, [txt('hello from the server\r\n'), req('GET / HTTP/1.1', 'Host: www.example.org', ua)], [false, true], v6);
    expect(banner6).not.toMatch(/^HTTP.* \(DPI\)$/);
  });

  it('a flow seen from its response is renamed by the request that follows (Host, proxy)', async () => {
    const yt = req('GET /watch HTTP/1.1', 'Host: www.youtube.com', ua);
    expect(await classify('tcp', 46010, 80, [ok, yt], [false, true])).toBe('HTTP.YouTube (DPI)');
    expect(await classify('tcp', 46011, 80, [ok, yt], [false, true], v6)).toBe('HTTP.YouTube (DPI)');
    const proxy = req('GET http://www.example.org/ HTTP/1.1', 'Host: www.example.org', ua);
    expect(await classify('tcp', 46012, 80, [ok, proxy], [false, true])).toBe('HTTP_Proxy (DPI)');
    // near miss: the client's packet is no request
    expect(await classify('tcp', 46013, 80, [ok, txt('Host: www.youtube.com')], [false, true])).toBe('HTTP (DPI)');
  });

  it('HTTP_Proxy only from a complete first line ending " HTTP/1.x"; HTTP_Connect from "CONNECT " in any case after the capital C, one space', async () => {
    expect(await classify('tcp', 46020, 3128, [req('GET http://www.example.org/a HTTP/1.1', 'Host: www.example.org', ua)])).toBe('HTTP_Proxy (DPI)');
    expect(await classify('tcp', 46021, 3128, [req('GET http://www.example.org/a HTTP/1.1', 'Host: www.example.org', ua)], undefined, v6)).toBe('HTTP_Proxy (DPI)');
    // near misses: another version; the first line cut (no CRLF in the packet)
    expect(await classify('tcp', 46022, 3128, [req('GET http://www.example.org/a HTTP/2.0', 'Host: www.example.org', ua)])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46023, 3128, [txt('GET http://www.example.org/a HTTP/1.1')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46024, 8080, [req('Connect www.example.org:443 HTTP/1.1', 'Host: www.example.org:443', ua)])).toBe('HTTP_Connect (DPI)');
    expect(await classify('tcp', 46025, 8080, [req('CONNECT www.example.org:443 HTTP/1.1', 'Host: www.example.org:443', ua)], undefined, v6)).toBe('HTTP_Connect (DPI)');
    // near miss: two spaces before the target
    expect(await classify('tcp', 46026, 8080, [req('CONNECT  www.example.org:443 HTTP/1.1', 'Host: www.example.org:443', ua)])).toBe('HTTP (DPI)');
  });

  it('header lines as nDPI splits them: CRLF only; a later client segment is read too', async () => {
    // LF-only lines: nDPI has no lines, so no Host
    expect(await classify('tcp', 46030, 80, [txt('GET / HTTP/1.1\nHost: www.youtube.com\nUser-Agent: x/1\n\n')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46031, 80, [req('GET / HTTP/1.1', 'Host: www.youtube.com', ua)])).toBe('HTTP.YouTube (DPI)');
    // "Host :" is not the Host line
    expect(await classify('tcp', 46032, 80, [req('GET / HTTP/1.1', 'Host : www.youtube.com', ua)])).toBe('HTTP (DPI)');
    // the Host line in the request's next segment names the flow (IPv6)
    const head = txt('GET /watch HTTP/1.1\r\nUser-Agent: curl/8.5.0\r\n');
    expect(await classify('tcp', 46033, 80, [head, txt('Host: www.youtube.com\r\n\r\n')], [true, true], v6)).toBe('HTTP.YouTube (DPI)');
  });

  it('WebDAV and MS-RPCH from the method as ndpi_http_str2method reads it (complete first line, case as written)', async () => {
    expect(await classify('tcp', 46040, 80, [req('UNLOCK /dav/a.txt HTTP/1.1', 'Host: www.example.org', ua)])).toBe('HTTP.WebDAV (DPI)');
    expect(await classify('tcp', 46041, 80, [req('PROPFIND /dav/ HTTP/1.1', 'Host: www.example.org', ua)], undefined, v6)).toBe('HTTP.WebDAV (DPI)');
    // near misses: "Propfind" (second letter lower case); no HTTP version on the line
    expect(await classify('tcp', 46042, 80, [req('Propfind /dav/ HTTP/1.1', 'Host: www.example.org', ua)])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46043, 80, [req('PROPFIND /dav/', 'Host: www.example.org', ua)])).toBe('HTTP (DPI)');
  });

  it('Content-Type sub-protocols: "application/ocsp-" and HLS as nDPI compares them', async () => {
    const ocsp = req('POST / HTTP/1.1', 'Host: ocsp.example.org', ua, 'Content-Type: application/ocsp-request', 'Content-Length: 0');
    expect(await classify('tcp', 46050, 80, [ocsp])).toBe('HTTP.OCSP (DPI)');
    expect(await classify('tcp', 46051, 80, [ocsp], undefined, v6)).toBe('HTTP.OCSP (DPI)');
    // any "application/ocsp-…", in the response too
    const r = resp('HTTP/1.1 200 OK', ['Content-Type: application/ocsp-anything', 'Content-Length: 0']);
    expect(await classify('tcp', 46052, 80, [req('GET / HTTP/1.1', 'Host: ocsp.example.org', ua), r])).toBe('HTTP.OCSP (DPI)');
    // near miss: case differs
    expect(await classify('tcp', 46053, 80, [req('POST / HTTP/1.1', 'Host: ocsp.example.org', ua, 'Content-Type: Application/ocsp-request')])).toBe('HTTP (DPI)');
    const hls = (ct: string) => [req('GET /live.m3u8 HTTP/1.1', 'Host: media.example.org', ua), resp('HTTP/1.1 200 OK', [`Content-Type: ${ct}`])];
    expect(await classify('tcp', 46054, 80, hls('application/vnd.apple.mpegurl'))).toBe('HTTP.HLS (DPI)');
    // near miss: nDPI wants more than 28 characters, so the short name alone is not enough
    expect(await classify('tcp', 46055, 80, hls('application/x-mpegURL'))).toBe('HTTP (DPI)');
  });

  it('names from the URL, Origin, Referer, Server and User-Agent (ndpi_http_parse_subprotocol)', async () => {
    // the URL is the Host value then the target
    expect(await classify('tcp', 46060, 80, [req('GET /micloud.xiaomi.net/sync HTTP/1.1', 'Host: api.example.org', ua)])).toBe('HTTP.Xiaomi (DPI)');
    expect(await classify('tcp', 46061, 80, [req('GET /micloud.xiaomi.com/sync HTTP/1.1', 'Host: api.example.org', ua)])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46062, 8080, [req('GET /downloading?n=0.123 HTTP/1.1', 'Host: speed.example.org:8080', ua)], undefined, v6)).toBe('HTTP.Ookla (DPI)');
    expect(await classify('tcp', 46063, 8081, [req('GET /downloading?n=0.123 HTTP/1.1', 'Host: speed.example.org:8081', ua)])).toBe('HTTP (DPI)');
    // Origin's host, when it is not the Host
    expect(await classify('tcp', 46064, 80, [req('POST /api HTTP/1.1', 'Host: api.example.org', ua, 'Origin: https://www.youtube.com')])).toBe('HTTP.YouTube (DPI)');
    expect(await classify('tcp', 46065, 80, [req('POST /api HTTP/1.1', 'Host: api.example.org', ua, 'Origin: www.youtube.com')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46066, 80, [req('GET /x HTTP/1.1', 'Host: api.example.org', ua, 'Referer: http://www.speedtest.net/')])).toBe('HTTP.Ookla (DPI)');
    // ntopng's web server
    const srv = (s: string) => [req('GET / HTTP/1.1', 'Host: mon.example.org', ua), resp('HTTP/1.1 200 OK', [`Server: ${s}`, 'Content-Length: 0'])];
    expect(await classify('tcp', 46067, 3000, srv('ntopng 6.2.0'))).toBe('HTTP.ntop (DPI)');
    expect(await classify('tcp', 46068, 3000, srv('ntopng'))).toBe('HTTP (DPI)');
    expect(await classify('tcp', 46069, 80, [req('GET /depot HTTP/1.1', 'Host: cdn.example.org', 'User-Agent: Valve/Steam HTTP Client 1.0')])).toBe('HTTP.Steam (DPI)');
    expect(await classify('tcp', 46070, 80, [req('GET /depot HTTP/1.1', 'Host: cdn.example.org', 'User-Agent: Valve/Steam HTTP client 1.0')])).toBe('HTTP (DPI)');
  });

  it('request risks: crawler, suspicious agent, numeric host, invalid host characters, URL starting with a dot', async () => {
    const bot = await named(46080, 80, [req('GET / HTTP/1.1', 'Host: www.example.org', 'User-Agent: Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')]);
    expect(bot.risks).toContain('Crawler/Bot');
    const plain = await named(46081, 80, [req('GET / HTTP/1.1', 'Host: www.example.org', 'User-Agent: Mozilla/5.0 (X11; Linux x86_64)')], undefined, v6);
    expect(plain.risks).not.toContain('Crawler/Bot');
    expect(plain.risks).not.toContain('HTTP Susp User-Agent');
    expect((await named(46082, 80, [req('GET / HTTP/1.1', 'Host: www.example.org')])).risks).toContain('HTTP Susp User-Agent');
    // a dotted quad as inet_ntoa writes it; not with a leading zero
    expect((await named(46083, 80, [req('GET / HTTP/1.1', 'Host: 10.0.0.2:80', ua)])).risks).toContain('HTTP/TLS/QUIC Numeric Hostname/SNI');
    expect((await named(46084, 80, [req('GET / HTTP/1.1', 'Host: 010.0.0.2', ua)])).risks).not.toContain('HTTP/TLS/QUIC Numeric Hostname/SNI');
    // an IPv6 literal: not numeric for nDPI, but '[' is an invalid host character
    const lit = await named(46085, 80, [req('GET / HTTP/1.1', 'Host: [2001:db8::2]', ua)], undefined, v6);
    expect(lit.risks).not.toContain('HTTP/TLS/QUIC Numeric Hostname/SNI');
    expect(lit.risks).toEqual(expect.arrayContaining(['Non-Printable/Invalid Chars Detected', 'Possible Exploit Attempt']));
    expect((await named(46086, 80, [req('GET /.env HTTP/1.1', 'Host: www.example.org', ua)])).risks).toContain('Possible Exploit Attempt');
    expect((await named(46087, 80, [req('GET /a/.env HTTP/1.1', 'Host: www.example.org', ua)])).risks).not.toContain('Possible Exploit Attempt');
    // a machine-made host name: judged while the flow has no master; a
    // sub-protocol (here WebDAV from the method) skips the test
    expect((await named(46088, 80, [req('GET / HTTP/1.1', 'Host: bbcbedxhgjmdobdprmen.com', ua)])).risks).toContain('Susp DGA Domain name');
    expect((await named(46089, 80, [req('MKCOL /d/ HTTP/1.1', 'Host: bbcbedxhgjmdobdprmen.com', ua)], undefined, v6)).risks).not.toContain('Susp DGA Domain name');
  });

  it('response risks: status 400–509, obsolete Apache / nginx, downloads, executables', async () => {
    const get = req('GET /f HTTP/1.1', 'Host: files.example.org', ua);
    expect((await named(46090, 80, [get, resp('HTTP/1.1 404 Not Found', ['Content-Length: 0'])])).risks).toContain('Error Code');
    expect((await named(46091, 80, [get, resp('HTTP/1.1 510 Not Extended', ['Content-Length: 0'])])).risks).not.toContain('Error Code');
    expect((await named(46092, 80, [get, resp('HTTP/1.1 200 OK', ['Server: Apache/2.2.34 (Unix)'])], undefined, v6)).risks).toContain('HTTP Obsolete Server');
    expect((await named(46093, 80, [get, resp('HTTP/1.1 200 OK', ['Server: Apache/2.4.0 (Unix)'])])).risks).not.toContain('HTTP Obsolete Server');
    expect((await named(46094, 80, [get, resp('HTTP/1.1 200 OK', ['Server: nginx/1.21.6'])])).risks).toContain('HTTP Obsolete Server');
    expect((await named(46095, 80, [get, resp('HTTP/1.1 200 OK', ['Server: nginx/1.22'])])).risks).not.toContain('HTTP Obsolete Server');
    const exe = resp('HTTP/1.1 200 OK', ['Content-Type: application/x-dosexec', 'Content-Length: 4'], 'abcd');
    expect((await named(46096, 80, [get, exe])).risks).toContain('Binary App Transfer');
    // Microsoft's update hosts are an exception
    const wu = req('GET /f HTTP/1.1', 'Host: download.windowsupdate.com', ua);
    expect((await named(46097, 80, [wu, exe], undefined, v6)).risks).not.toContain('Binary App Transfer');
    const oct = resp('HTTP/1.1 200 OK', ['Content-Type: application/octet-stream']);
    expect((await named(46098, 80, [get, oct])).risks).toContain('Binary File/Data Transfer (Attempt)');
    expect((await named(46099, 80, [get, resp('HTTP/1.1 200 OK', ['Content-Type: text/plain'])])).risks).not.toContain('Binary File/Data Transfer (Attempt)');
    // a script in the body (#!/), once host and status are known
    const sh = resp('HTTP/1.1 200 OK', ['Content-Type: text/plain'], '#!/bin/sh\necho hi\n');
    expect((await named(46100, 80, [get, sh])).risks).toContain('Binary App Transfer');
    const txtBody = resp('HTTP/1.1 200 OK', ['Content-Type: text/plain'], '# !/bin/sh\n');
    expect((await named(46101, 80, [get, txtBody])).risks).not.toContain('Binary App Transfer');
    // a response alone: no User-Agent seen
    expect((await named(46102, 80, [ok], [false])).risks).toContain('HTTP Susp User-Agent');
  });
});
