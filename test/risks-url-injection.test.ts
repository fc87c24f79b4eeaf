// nDPI's URL validation (ndpi_validate_url, src/lib/ndpi_utils.c) asks its
// copy of libinjection about each URL-decoded query value before the RCE
// patterns: XSS first (libinjection_xss: "XSS Attack"), then SQL injection
// (libinjection_is_sqli: "SQL Injection"), the first risky value ending the
// walk. Ours: dpi/xss.cpp and dpi/sqli.cpp, written from libinjection's
// algorithm with its tables (data/xss.tsv, data/sqli.tsv).
//
// Every expectation below is libinjection's own answer (nDPI 3b1286ab's
// libinjection compiled as an oracle while writing them, along with a
// randomized comparison over millions of strings), its false positives and
// misses included: the point is to agree with nDPI, not to judge better.
// SQL fingerprints are libinjection's documented outputs (token types: s
// string, & logic operator, o operator, 1 number, n bare word, U union, E
// expression keyword, f function, c comment, X unparsable...).

import { afterAll, describe, expect, it } from 'vitest';

import { addon } from '../ts/bindings/native.js';
import { tempDir } from './fixtures/pcap.js';
import { get, ok, urlRiskRunner } from './fixtures/url-risks.js';

const tmp = tempDir('fg-risks-url-inj-');
afterAll(() => tmp.cleanup());
const { urlRisks, targets } = urlRiskRunner(tmp.dir);

const XSS = ['XSS Attack'], SQLI = ['SQL Injection'], RCE = ['RCE Injection'], SUSP = ['HTTP Susp URL'], NONE: string[] = [];
/** the query value v, %-encoded so that nDPI's decoding gives v back */
const q = (v: string) => `/a?f=${encodeURIComponent(v)}`;

// [decoded value, fingerprint that decided, what]
const sqliHits: [string, string, string][] = [
  ["1' OR '1'='1", 's&sos', 'tautology on quoted strings'],
  ["' OR ''='", 's&sos', 'tautology on empty strings'],
  ["x' AND 'a'='a", 's&sos', 'AND tautology'],
  ['" OR "1"="1', 's&sos', 'double-quoted tautology'],
  ['1 OR 1=1', '1&1', 'numeric tautology'],
  ['-1 OR 1=1', '1&1', 'numeric, a leading unary minus'],
  ['1 AND 1=2', '1&1', 'numeric AND'],
  ['1) OR (1=1', '1)&(1', 'closing a parenthesis'],
  ['1 UNION SELECT 1,2,3', '1UE1', 'UNION SELECT'],
  ['1 UNION ALL SELECT username,password FROM users', '1UEnk', 'UNION ALL (two words, one keyword)'],
  ['-1 UNION SELECT null,version()--', '1UEv,', 'UNION with a function and a comment'],
  ["' UNION SELECT password FROM users WHERE '1'='1", 'sUEnk', 'UNION after a closing quote'],
  ['0x414243 UNION SELECT 1', '1UE1', 'hex number'],
  ['1 union select', '1UE', 'UNION SELECT, lower case'],
  ["admin'--", 'sc', 'comment-terminated'],
  ["admin' --", 'sc', 'comment-terminated, space'],
  ["admin'/*", 'sc', 'C comment'],
  ['1234 --', '1c', 'a number and a comment'],
  ['1; DROP TABLE users', '1;Tnn', 'stacked query'],
  ["1'; DROP TABLE users--", 's;Tnn', 'stacked query after a quote'],
  ["1;waitfor delay '0:0:5'--", '1;Esc', 'stacked T-SQL WAITFOR'],
  ['1/*!50000UNION*/SELECT 1', 'X', "MySQL's executable comment: unparsable, blacklisted"],
  ["1' AND SLEEP(5)#", 's&f(1', "MySQL '#' comment"],
  ["1' AND SLEEP(5)-- -", 's&f(1', "'-- -' comment"],
  ["1' /*x*/ OR '1'='1", 's&sos', 'a comment inside'],
  ["1' ORDER BY 1--", 'sB1c', 'ORDER BY probing'],
  ["1' or 1=1 limit 1 -- -", 's&1B1', 'LIMIT'],
  ['1 or sleep(5)', '1&f(1', 'time-based'],
  ['1 AND (SELECT 1 FROM dual)', '1&(E1', 'sub-select'],
  ["it''s' OR 1=1--", 's&1c', "a doubled quote stays inside the string"],
  ["x\\\\' OR 1=1--", 's&1c', 'two backslashes do not escape the quote'],
  ['1 UNION SELECT @@version', '1UEv', 'a system variable'],
];
// [decoded value, what]: no SQL injection for libinjection
const sqliMisses: [string, string][] = [
  ['select a product', 'SQL words in a phrase'],
  ['select', 'a keyword alone'],
  ['where is it', ''],
  ['order by date', ''],
  ['insert coin', ''],
  ['union station', ''],
  ['drop me a line', ''],
  ['1 union', "'1 union' alone (two tokens)"],
  ["O'Brien", 'a name with an apostrophe'],
  ["O'Brien & Sons", ''],
  ["N'Djamena", "N'…' reads as a national string: still harmless"],
  ["don't stop", ''],
  ["it's 5 o'clock", ''],
  ["rock 'n' roll", ''],
  ['42', 'a number'],
  ['3.14', ''],
  ['1e10', ''],
  ['1-2-3', ''],
  ['$100', ''],
  ['100%', ''],
  ['john.doe@example.com', 'an email address'],
  ['search terms here', 'plus-encoded text'],
  ['a or b', "'or' between words"],
  ['1 or 2', ''],
  ['true or false', ''],
  ['sexy and 17', "libinjection's own example of a harmless s&n"],
  ['hello -- world', "'--' inside text"],
  ['hello world --', "a word then '--'"],
  ['a-b--c', ''],
  ['C# tutorial', "'#'"],
  ["admin' #", "a '#' comment alone (too many false positives, libinjection says)"],
  ['1#', ''],
  ["1\\' OR 1=1--", 'one backslash escapes the quote: all of it is one string'],
];
// [decoded value, what]: XSS for libinjection
const xssHits: [string, string][] = [
  ['<script>alert(1)</script>', 'script tag'],
  ['<script>', 'an opening script tag alone'],
  ['<SCRIPT SRC=//e.com/x.js></SCRIPT>', 'upper case'],
  ['<img src=x onerror=alert(1)>', 'event handler attribute'],
  ['<img src="x" onerror="alert(1)">', 'quoted event handler'],
  ['<body onload=alert(1)>', ''],
  ['<svg onload=alert(1)>', 'SVG'],
  ['<svg/onload=alert(1)>', "SVG, '/' for a space"],
  ['<svg>', 'any svg… tag'],
  ['<xsl:value-of>', 'any xsl… tag'],
  ['<a href="javascript:alert(1)">x</a>', 'javascript: in a URL attribute'],
  ['<a href=javascript:alert(1)>x</a>', 'unquoted'],
  ['<a href=" javascript:alert(1)">x</a>', 'leading space'],
  ['<a href="&#106;avascript:alert(1)">x</a>', 'a decimal HTML entity'],
  ['<a href="&#x6A;avascript:alert(1)">x</a>', 'a hex HTML entity'],
  ['<img src=&#x6A&#x61&#x76&#x61script:alert(1)>', 'entities without ";"'],
  ['<a href="data:text/html,x">x</a>', 'data: URL'],
  ['<a href="vbscript:msgbox(1)">x</a>', 'vbscript: URL'],
  ['<form action=javascript:alert(1)>', ''],
  ['<button formaction=javascript:alert(1)>', ''],
  ['<img dynsrc=javascript:alert(1)>', ''],
  ['<div style="color:red">', 'any style attribute'],
  ['<a xlink:href=x>', 'xlink… attribute'],
  ['<a xmlns:x=y>', 'xmlns… attribute'],
  ['<set attributeName=onmouseover to=alert(1)>', "SVG's attribute named in a value"],
  ['<iframe src=//e.com>', 'blacklisted tags'],
  ['<object data=x>', ''],
  ['<embed src=x>', ''],
  ['<base href=//e.com>', ''],
  ['<link rel=stylesheet>', ''],
  ['<meta http-equiv=refresh>', ''],
  ['<style>', ''],
  ['<frameset>', ''],
  ['<xss>', ''],
  ['<!DOCTYPE html>', 'a doctype'],
  ['<!doctype x>', ''],
  ['<!--[if IE]>x<![endif]-->', 'IE conditional comment'],
  ['<!-- a `comment` -->', "'`' in a comment"],
  ['<?import namespace=t>', "IE's <?import"],
  ['<?xml version="1.0"?>', ''],
  ['" onmouseover="alert(1)', 'breaking out of a double-quoted attribute'],
  ["' onfocus=alert(1) autofocus '", 'out of a single-quoted one'],
  ['x onclick=alert(1)', 'out of an unquoted one'],
  ['online=yes', "libinjection's own false positive: an on… attribute with a value"],
  ['style=x', 'likewise: a style attribute'],
];
// [decoded value, what]: no XSS for libinjection
const xssMisses: [string, string][] = [
  ['a<b', "'<' between words"],
  ['x > 3', ''],
  ['I <3 you', ''],
  ['<<>>', ''],
  ['x<y>z', ''],
  ['<b>', 'harmless tags'],
  ['<b>bold</b>', ''],
  ['<i>', ''],
  ['<p>hello</p>', ''],
  ['<div class="x">hi</div>', ''],
  ['<img src=cat.png>', 'a URL attribute with a plain URL'],
  ['<a href="https://example.com/">link</a>', ''],
  ['<a href="/javascript/guide">x</a>', "'javascript' not at the start"],
  ['javascript:alert(1)', 'a javascript: URL outside an attribute'],
  ['</script>', 'a closing tag'],
  ['<x:script>', 'a namespaced tag'],
  ['<![CDATA[<script>]]>', 'inside CDATA'],
  ['<!-- a comment -->', 'a plain comment'],
  ['<% x %>', ''],
  ['&#60;script&#62;', 'entities outside attributes are not decoded'],
  ['%3Cscript%3E', 'decoded once only'],
  ['one=1', 'not on… enough: a short attribute'],
  ['onion rings', 'an on… word without a value'],
];

describe("libinjection's verdicts on a decoded value (the addon's diagnostics)", () => {
  it('SQL injections with their fingerprints', () => {
    for (const [v, fp, what] of sqliHits) expect(addon.libinjection(v), `${v}: ${what}`).toEqual({ xss: false, sqli: true, fingerprint: fp });
  });
  it('benign values: no SQL injection', () => {
    for (const [v, what] of sqliMisses) expect(addon.libinjection(v).sqli, `${v}: ${what}`).toBe(false);
  });
  it('XSS, and benign near misses', () => {
    for (const [v, what] of xssHits) expect(addon.libinjection(v).xss, `${v}: ${what}`).toBe(true);
    for (const [v, what] of xssMisses) expect(addon.libinjection(v).xss, `${v}: ${what}`).toBe(false);
  });
  it('the value is read as a C string: up to a NUL', () => {
    expect(addon.libinjection(Buffer.from("abc\0' OR '1'='1", 'latin1')).sqli).toBe(false);
    expect(addon.libinjection(Buffer.from("' OR '1'='1\0abc", 'latin1'))).toEqual({ xss: false, sqli: true, fingerprint: 's&sos' });
  });
  it('a value both XSS and SQL injection', () => {
    expect(addon.libinjection("<script>' OR '1'='1")).toEqual({ xss: true, sqli: true, fingerprint: 's&sos' });
  });
});

describe('nDPI URL validation: XSS Attack and SQL Injection on flows', () => {
  it('each SQL injection is the flow\'s "SQL Injection", IPv4 and IPv6', async () => {
    for (const v6 of [false, true]) {
      const got = await targets(sqliHits.map(([v]) => q(v)), v6);
      sqliHits.forEach(([v, , what], i) => expect(got[i], `${v}: ${what}${v6 ? ' (IPv6)' : ''}`).toEqual(SQLI));
    }
  });

  it('each XSS is the flow\'s "XSS Attack", IPv4 and IPv6', async () => {
    for (const v6 of [false, true]) {
      const got = await targets(xssHits.map(([v]) => q(v)), v6);
      xssHits.forEach(([v, what], i) => expect(got[i], `${v}: ${what}${v6 ? ' (IPv6)' : ''}`).toEqual(XSS));
    }
  });

  it('near misses of both: no URL risk at all', async () => {
    const misses = [...sqliMisses, ...xssMisses].filter(([v]) => !sqliHits.some(([h]) => h === v) && !xssHits.some(([h]) => h === v));
    const got = await targets(misses.map(([v]) => q(v)));
    misses.forEach(([v, what], i) => expect(got[i], `${v}: ${what}`).toEqual(NONE));
  });

  it("libinjection's own false positives count as nDPI counts them", async () => {
    const cases: [string, string[]][] = [
      ['sexy and 17<18', SQLI], // 'n&1' with a comparison folded in
      ['1 < 2 and 3 > 2', SQLI],
      ['1234-ABC--', SQLI], // '1c': the number is followed by '-', then "--" in ANSI SQL
      ['online=yes', XSS],
      ['style=x', XSS],
    ];
    const got = await targets(cases.map(([v]) => q(v)));
    cases.forEach(([v, want], i) => expect(got[i], v).toEqual(want));
  });
});

describe('which URL risk wins', () => {
  it("per value: XSS, then SQL injection, then RCE (nDPI's order); across values: the first risky one", async () => {
    const cases: [string, string[], string][] = [
      [q("<script>' OR '1'='1"), XSS, 'XSS and SQL injection in one value'],
      [q('<script>;ls'), XSS, 'XSS and a shell command'],
      [q("1' OR '1'='1;ls"), SQLI, 'SQL injection and a shell command'],
      [q("$(id)' OR '1'='1"), SQLI, "SQL injection and a shell expression"],
      [q(';ls'), RCE, 'a shell command alone'],
      [`/a?f=${encodeURIComponent('<script>')}&g=${encodeURIComponent("1' OR '1'='1")}`, XSS, 'XSS first'],
      [`/a?f=${encodeURIComponent("1' OR '1'='1")}&g=${encodeURIComponent('<script>')}`, SQLI, 'SQL injection first'],
      [`/a?f=%3Bls&g=${encodeURIComponent('<script>')}`, RCE, 'a shell command first'],
      [`/a?f=ok&g=${encodeURIComponent('<svg>')}&h=%3Bls`, XSS, 'after a harmless value'],
      [`/a/../b?f=${encodeURIComponent('<script>')}`, XSS, "an injection before '..'"],
      [`/a/../b?f=${encodeURIComponent("O'Brien")}`, SUSP, "no injection: '..' counts"],
      [`/a?x&f=${encodeURIComponent('<script>')}`, NONE, "the walk stops at a parameter without '='"],
      [`/a?f=${encodeURIComponent('<script>')}%zz&g=1`, NONE, 'an invalid escape skips the value'],
      [`/a?f=${encodeURIComponent('<script>')}%zz&g=${encodeURIComponent("1' OR '1'='1")}`, SQLI, '…and the next one counts'],
    ];
    for (const v6 of [false, true]) {
      const got = await targets(cases.map(([t]) => t), v6);
      cases.forEach(([t, want, what], i) => expect(got[i], `${t}: ${what}${v6 ? ' (IPv6)' : ''}`).toEqual(want));
    }
  });

  it('what the decoding makes of the value: %XX and "+" decoded once, %00 ends it', async () => {
    const cases: [string, string[]][] = [
      ['/a?f=%3Cscript%3E', XSS],
      ['/a?f=%3cSCRIPT%3e', XSS],
      ['/a?f=<script>', XSS], // raw
      ['/a?f=%253Cscript%253E', NONE], // "%3Cscript%3E" after one decoding
      ['/a?f=<svg+onload=alert(1)>', XSS], // '+' a space
      ['/a?f=<svg%2Bonload=alert(1)>', XSS], // "<svg+onload…>": still an svg… tag
      ['/a?f=<b%2Bonload=alert(1)>', NONE], // "<b+onload=…>": a tag named "b+onload=alert(1)"
      ['/a?f=<b+onload=alert(1)>', XSS],
      ["/a?f=1'+OR+'1'%3D'1", SQLI],
      ["/a?f=1%27%20OR%20%271%27%3D%271", SQLI],
      ["/a?f=abc%00'+OR+'1'%3D'1", NONE], // the C string "abc"
      ['/a?f=%00&g=<script>', XSS], // nothing left of f: skipped
      ["/a?f=admin%27--", SQLI],
      ["/a?f=admin%27-%2D", SQLI],
    ];
    const got = await targets(cases.map(([t]) => t));
    cases.forEach(([t, want], i) => expect(got[i], t).toEqual(want));
  });

  it("the first 255 bytes of Host + target: an injection cut there is judged as cut", async () => {
    const host = 'h.example.org'; // 13 bytes
    const t = (k: number, v: string) => `/${'a'.repeat(k)}?f=${v}`; // 13 + 1 + k + 3 + |v| bytes
    const cases: [string, string[]][] = [
      [t(233, '<svg>'), XSS], // 255 bytes: all of it
      [t(234, '<svg>'), XSS], // "<svg": still an svg… tag
      [t(235, '<svg>'), NONE], // "<sv": too short a tag name
      [t(229, "1'+OR+1=1"), SQLI], // 255 bytes: "1' OR 1=1"
      [t(230, "1'+OR+1=1"), NONE], // "1' OR 1=": no fingerprint of the blacklist
      [t(231, "1'+OR+1=1"), SQLI], // "1' OR 1" ('s&1')
      [t(233, "1'+OR+1=1"), NONE], // "1' OR"
    ];
    const got = await urlRisks(cases.map(([tg]) => [[true, get(tg, host)], [false, ok]]));
    cases.forEach(([tg, want], i) => expect(got[i], `${tg.length}-byte target`).toEqual(want));
  });
});
