// HTTP's request test as nDPI's (http.c: http_request_url_offset and
// is_request): the first byte one of its methods' upper-case initials, the
// method in any case after that, its whole method list (WebDAV, REPORT, RPC
// over HTTP), and a URL that is no rtsp:// one.
import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-http-request-');
const req = (line: string) => txt(`${line}\r\nHost: example.org\r\nUser-Agent: t/1\r\n\r\n`);

describe('HTTP request test (nDPI)', () => {
  it('methods in any case after an upper-case first byte; REPORT; RPC over HTTP is HTTP.MS_RPCH', async () => {
    expect(await classify('tcp', 41000, 8080, [req('GET /a HTTP/1.1')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 41001, 8080, [req('Get /a HTTP/1.1')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 41002, 8080, [req('POST   /a HTTP/1.1')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 41003, 8080, [req('REPORT /cal HTTP/1.1')])).toBe('HTTP (DPI)');
    expect(await classify('tcp', 41004, 8080, [req('PROPFIND /dav HTTP/1.1')])).toBe('HTTP.WebDAV (DPI)');
    expect(await classify('tcp', 41005, 8080, [req('RPC_IN_DATA /rpc/rpcproxy.dll?ex:6001 HTTP/1.1')])).toBe('HTTP.MS-RPCH (DPI)');
    expect(await classify('tcp', 41006, 8080, [req('RPC_OUT_DATA /rpc/rpcproxy.dll?ex:6001 HTTP/1.1')], undefined, { v6: true })).toBe('HTTP.MS-RPCH (DPI)');
  });

  it('near misses: a lower-case first byte, an unknown method, an rtsp:// URL, nothing after the method', async () => {
    expect(await classify('tcp', 41010, 8080, [req('get /a HTTP/1.1')])).not.toMatch(/^HTTP/);
    expect(await classify('tcp', 41011, 8080, [req('GRAB /a HTTP/1.1')])).not.toMatch(/^HTTP/);
    expect(await classify('tcp', 41012, 8080, [req('OPTIONS rtsp://cam.example.org/live RTSP/1.0')])).not.toMatch(/^HTTP/);
    expect(await classify('tcp', 41013, 8080, [req('DESCRIBE rtsp://cam.example.org/live RTSP/1.0')])).not.toMatch(/^HTTP/);
    expect(await classify('tcp', 41014, 8080, [txt('GET ')])).not.toMatch(/^HTTP/);
  });
});
