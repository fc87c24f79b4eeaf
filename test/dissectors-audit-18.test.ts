// Audit 18: SMTP checked against nDPI 4.11's own source
// (src/lib/protocols/mail_smtp.c). One hand-built flow per case, its
// messages from RFC 5321 / 4954 / 3207: what nDPI accepts is named by DPI,
// a near miss (one detail wrong) is not.
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-18-');
const runFlow = flowRunner('fg-dissectors-audit-18f-');
const v6 = { v6: true };
const S = false, C = true;

/** [from the client?, text] messages on a port nothing guesses. */
const smtp = (port: number, msgs: [boolean, string][], opts = {}) =>
  classify('tcp', port, 42525, msgs.map(([, t]) => txt(t)), msgs.map(([c]) => c), opts);
const risks = async (port: number, msgs: [boolean, string][]) =>
  (await runFlow('tcp', port, 42525, msgs.map(([, t]) => txt(t)), msgs.map(([c]) => c))).flow.risks;

const greeting: [boolean, string] = [S, '220 mail.example.org ESMTP ready\r\n'];
const ehlo: [boolean, string] = [C, 'EHLO client.example.com\r\n'];
const ehloReply: [boolean, string] = [S, '250-mail.example.org\r\n250 AUTH LOGIN PLAIN\r\n'];

describe('SMTP as nDPI: three different marks across the flow', () => {
  it('greeting, EHLO and its 250 reply name the flow (IPv4, IPv6)', async () => {
    expect(await smtp(41001, [greeting, ehlo, ehloReply])).toBe('SMTP (DPI)');
    expect(await smtp(41002, [greeting, ehlo, ehloReply], v6)).toBe('SMTP (DPI)');
  });
  it('two marks only (greeting and EHLO) do not', async () => {
    expect(await smtp(41003, [greeting, ehlo])).not.toBe('SMTP (DPI)');
    expect(await smtp(41004, [greeting, ehlo], v6)).not.toBe('SMTP (DPI)');
  });
  it('direction plays no part: HELO, NOOP, RSET from the client alone', async () => {
    expect(await smtp(41005, [[C, 'helo a.example\r\n'], [C, 'noop\r\n'], [C, 'RSET\r\n']])).toBe('SMTP (DPI)');
    // the same mark three times is one mark
    expect(await smtp(41006, [[C, 'NOOP\r\n'], [C, 'NOOP\r\n'], [C, 'NOOP\r\n']])).not.toBe('SMTP (DPI)');
  });
  it('all marks of one packet count: MAIL, RCPT, DATA pipelined (RFC 2920)', async () => {
    expect(await smtp(41007, [[C, 'MAIL FROM:<a@example.org>\r\nRCPT TO:<b@example.org>\r\nDATA\r\n']])).toBe('SMTP (DPI)');
    // MAIL without its space is no mark
    expect(await smtp(41008, [[C, 'MAIL:<a@example.org>\r\nRCPT TO:<b@example.org>\r\nDATA\r\n']])).not.toBe('SMTP (DPI)');
  });
  it('lines are read only in a packet ending CRLF', async () => {
    expect(await smtp(41009, [[C, 'MAIL FROM:<a@example.org>\r\nRCPT TO:<b@example.org>\r\nDATA\n']])).not.toBe('SMTP (DPI)');
    expect(await smtp(41010, [[S, '235 2.7.0 ok\r\n354 go on\r\n334 x\r\n']], v6)).toBe('SMTP (DPI)');
  });
  it('a first packet neither ending CRLF nor opening 220 / EHLO gives the flow up', async () => {
    expect(await smtp(41011, [[C, 'ping\r\n'], greeting, ehlo, ehloReply])).toBe('SMTP (DPI)');
    expect(await smtp(41012, [[C, 'ping'], greeting, ehlo, ehloReply])).not.toBe('SMTP (DPI)');
    // one opening "EHLO" without its line end waits
    expect(await smtp(41013, [[C, 'EHLO'], greeting, ehlo, ehloReply])).toBe('SMTP (DPI)');
  });
  it('past the 4th packet, a packet without marks goes on only while a mark is known', async () => {
    const chat: [boolean, string][] = [[C, 'xy\r\n'], [S, 'yz\r\n'], [C, 'xy\r\n'], [S, 'yz\r\n']];
    expect(await smtp(41014, [...chat, [C, 'hello there\r\n'], greeting, ehlo, ehloReply])).not.toBe('SMTP (DPI)');
    expect(await smtp(41015, [greeting, ...chat, [C, 'hello there\r\n'], ehlo, ehloReply])).toBe('SMTP (DPI)');
    // a packet without CRLF there ends it, marks or not
    expect(await smtp(41019, [greeting, ...chat, [C, 'hello there'], ehlo, ehloReply])).not.toBe('SMTP (DPI)');
  });
  it("a greeting's host name of a known application names it at once", async () => {
    expect(await smtp(41016, [[S, '220 smtp.gmail.com ESMTP ready\r\n']])).toBe('SMTP.GMail (DPI)');
    // no text after the name: no name taken
    expect(await smtp(41017, [[S, '220 smtp.gmail.com\r\n']])).not.toMatch(/GMail/);
    expect(await smtp(41018, [[S, '220 (smtp.gmail.com) ESMTP\r\n']], v6)).not.toMatch(/GMail/);
  });
});

describe('SMTP credentials and STARTTLS as nDPI', () => {
  it('AUTH PLAIN with a user in its initial response (RFC 4954)', async () => {
    // base64 of "\0alice\0secret"
    expect(await risks(41101, [greeting, ehlo, ehloReply, [C, 'AUTH PLAIN AGFsaWNlAHNlY3JldA==\r\n']])).toContain('Clear-Text Credentials');
    // base64 of "\0alice": no user/password split
    expect(await risks(41102, [greeting, ehlo, ehloReply, [C, 'AUTH PLAIN AGFsaWNl\r\n']])).not.toContain('Clear-Text Credentials');
  });
  it('AUTH LOGIN: the user name on the next line', async () => {
    const auth: [boolean, string][] = [[C, 'AUTH LOGIN\r\n'], [S, '334 VXNlcm5hbWU6\r\n']];
    expect(await risks(41103, [greeting, ehlo, ehloReply, ...auth, [C, 'YWxpY2U=\r\n']])).toContain('Clear-Text Credentials');
    // MAIL forgets the AUTH
    expect(await risks(41104, [greeting, ehlo, ehloReply, ...auth, [C, 'MAIL FROM:<a@example.org>\r\n'], [C, 'YWxpY2U=\r\n']])).not.toContain('Clear-Text Credentials');
  });
  it('STARTTLS answered 220 makes the flow SMTPS; 454 does not', async () => {
    const base: [boolean, string][] = [greeting, ehlo, ehloReply, [C, 'STARTTLS\r\n']];
    expect(await smtp(41105, [...base, [S, '220 2.0.0 Ready to start TLS\r\n']])).toBe('SMTPS (DPI)');
    expect(await smtp(41106, [...base, [S, '220 2.0.0 Ready to start TLS\r\n']], v6)).toBe('SMTPS (DPI)');
    expect(await smtp(41107, [...base, [S, '454 4.7.0 TLS not available\r\n'], [S, '220 again\r\n']])).toBe('SMTP (DPI)');
  });
  it('X-ANONYMOUSTLS as nDPI compares it', async () => {
    const base: [boolean, string][] = [greeting, ehlo, ehloReply];
    expect(await smtp(41108, [...base, [C, 'X-anonyMOUSTLS\r\n'], [S, '220 go\r\n']])).toBe('SMTPS (DPI)');
    expect(await smtp(41109, [...base, [C, 'X-ANONYmousTLS\r\n'], [S, '220 go\r\n']])).toBe('SMTP (DPI)');
  });
});

describe('POP3 as nDPI (mail_pop.c): replies and command marks', () => {
  const ok: [boolean, string] = [S, '+OK POP3 server ready <1896.697170952@dbc.mtview.ca.us>\r\n'];
  it('three replies name the flow (IPv4, IPv6)', async () => {
    const msgs: [boolean, string][] = [ok, [C, 'CAPA\r\n'], [S, '+OK Capability list follows\r\n'], [C, 'STAT\r\n'], [S, '+OK 2 320\r\n']];
    expect(await smtp(41201, msgs)).toBe('POP3 (DPI)');
    expect(await smtp(41202, msgs, v6)).toBe('POP3 (DPI)');
    // two replies and many commands: no password, not named
    expect(await smtp(41203, [ok, [C, 'CAPA\r\n'], [S, '+OK\r\n'], [C, 'STAT\r\n'], [C, 'LIST\r\n'], [C, 'UIDL\r\n']])).not.toBe('POP3 (DPI)');
  });
  it('a password names it with one reply and three marks in all', async () => {
    expect(await smtp(41204, [ok, [C, 'USER mrose\r\n'], [C, 'PASS tanstaaf\r\n']])).toBe('POP3 (DPI)');
    // PASS without its password
    expect(await smtp(41205, [ok, [C, 'USER mrose\r\n'], [C, 'PASS\r\n']])).not.toBe('POP3 (DPI)');
  });
  it('USER raises clear-text credentials, named or not', async () => {
    expect(await risks(41206, [ok, [C, 'USER mrose\r\n']])).toContain('Clear-Text Credentials');
    expect(await risks(41207, [ok, [C, 'USR mrose\r\n']])).not.toContain('Clear-Text Credentials');
  });
  it('a fourth reply counts as none (nDPI keeps the count in 2 bits)', async () => {
    const four: [boolean, string][] = [ok, [S, '+OK\r\n'], [S, '-ERR no\r\n']];
    expect(await smtp(41208, [...four])).toBe('POP3 (DPI)');
    expect(await smtp(41209, [[S, '+OK one\r\n'], [S, '+OK two\r\n'], [S, '+OK\r'], [S, '+OK four\r\n']])).not.toBe('POP3 (DPI)');
  });
  it('STLS answered +OK makes the flow POPS', async () => {
    expect(await smtp(41210, [ok, [C, 'STLS\r\n'], [S, '+OK Begin TLS negotiation\r\n']])).toBe('POPS (DPI)');
    expect(await smtp(41211, [ok, [C, 'STLS\r\n'], [S, '-ERR not now\r\n'], [S, '+OK fine\r\n']], v6)).not.toBe('POPS (DPI)');
  });
  it('a packet that is neither reply, command nor CRLF-ended gives it up', async () => {
    expect(await smtp(41212, [[C, 'hello'], ok, [S, '+OK\r\n'], [S, '+OK\r\n']])).not.toBe('POP3 (DPI)');
    expect(await smtp(41213, [[C, 'hello\r\n'], ok, [S, '+OK\r\n'], [S, '+OK\r\n']])).toBe('POP3 (DPI)');
  });
});

describe('IMAP as nDPI (mail_imap.c): IMAP lines counted', () => {
  const greet: [boolean, string] = [S, '* OK IMAP4rev2 Service Ready\r\n'];
  it('a LOGIN with a user at the third line names it (IPv4, IPv6)', async () => {
    const msgs: [boolean, string][] = [greet, [C, 'a001 CAPABILITY\r\n'], [C, 'a002 LOGIN SMITH SESAME\r\n']];
    expect(await smtp(41301, msgs)).toBe('IMAP (DPI)');
    expect(await smtp(41302, msgs, v6)).toBe('IMAP (DPI)');
    // LOGIN without a user: needs the 7th line
    expect(await smtp(41303, [greet, [C, 'a001 CAPABILITY\r\n'], [C, 'a002 LOGIN ""\r\n']])).not.toBe('IMAP (DPI)');
  });
  it('seven lines name it without a user', async () => {
    const lines: [boolean, string][] = [greet, [C, 'a1 CAPABILITY\r\n'], [S, 'a1 OK done\r\n'], [C, 'a2 NOOP\r\n'], [S, 'a2 OK done\r\n'], [C, 'SELECT INBOX\r\n'], [S, 'OK [READ-WRITE] done\r\n']];
    expect(await smtp(41304, lines)).toBe('IMAP (DPI)');
    expect(await smtp(41305, lines.slice(0, 6))).not.toBe('IMAP (DPI)');
  });
  it('LOGIN raises clear-text credentials', async () => {
    expect(await risks(41306, [greet, [C, 'a002 LOGIN "smith" "sesame"\r\n']])).toContain('Clear-Text Credentials');
    expect(await risks(41307, [greet, [C, 'a002 LOGIN \r\n']])).not.toContain('Clear-Text Credentials');
  });
  it('AUTHENTICATE names IMAPS; STARTTLS then OK names IMAPS', async () => {
    expect(await smtp(41308, [greet, [C, 'a001 AUTHENTICATE PLAIN\r\n']])).toBe('IMAPS (DPI)');
    expect(await smtp(41309, [greet, [C, 'a001 AUTHENTICAT PLAIN\r\n']])).not.toBe('IMAPS (DPI)');
    expect(await smtp(41310, [greet, [C, 'a001 STARTTLS\r\n'], [S, 'a001 OK Begin TLS negotiation now\r\n']], v6)).toBe('IMAPS (DPI)');
    expect(await smtp(41311, [greet, [C, 'a001 STARTTLS\r\n'], [S, 'a001 NO not now\r\n'], [S, 'a002 OK x\r\n']])).not.toBe('IMAPS (DPI)');
  });
  it('a tag with another character gives the flow up', async () => {
    expect(await smtp(41312, [[S, '+ OK\r\n'], [C, 'a001 CAPABILITY\r\n'], [C, 'a002 LOGIN SMITH SESAME\r\n']])).not.toBe('IMAP (DPI)');
  });
});
