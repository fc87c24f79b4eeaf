// One hand-built flow per case, replayed through the engine: each dissector
// recognises its protocol by DPI, and a near miss (one detail wrong) is not
// classified as that protocol by DPI (a guess by port may still name it).

import { describe, expect, it } from 'vitest';

import { classifier } from './fixtures/dissect.js';
import { txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-3a-');


function tpkt(x224: Buffer): Buffer {
  const h = Buffer.from([3, 0, 0, 0, x224.length]);
  h.writeUInt16BE(x224.length + 5, 2);
  return Buffer.concat([h, x224]);
}

describe('dissectors 3a: mail, FTP, Telnet, SIP, RDP', () => {
  it('SMTP: a 220 greeting, EHLO and its 250 (nDPI: three marks), not another command', async () => {
    const dirs = [false, true, false];
    expect(await classify('tcp', 50400, 25, [txt('220 mail.example.com ESMTP Postfix\r\n'), txt('EHLO client.example.com\r\n'), txt('250 mail.example.com\r\n')], dirs)).toBe('SMTP (DPI)');
    expect(await classify('tcp', 50401, 2525, [txt('220 mail.example.com ESMTP Postfix\r\n'), txt('XHLO client.example.com\r\n'), txt('250 mail.example.com\r\n')], dirs)).not.toBe('SMTP (DPI)');
  });

  it('SMTPS: TLS on 465, plain TLS elsewhere', async () => {
    const serverHello = Buffer.from([0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00]);
    expect(await classify('tcp', 50402, 465, [serverHello], [false])).toBe('SMTPS (DPI)');
    expect(await classify('tcp', 50403, 4650, [serverHello], [false])).not.toBe('SMTPS (DPI)');
  });

  it('POP3: a +OK greeting, USER and PASS (nDPI: three in all, a password), not an -ERR greeting without PASS', async () => {
    const dirs = [false, true, true];
    expect(await classify('tcp', 50410, 110, [txt('+OK POP3 server ready\r\n'), txt('USER bob\r\n'), txt('PASS secret\r\n')], dirs)).toBe('POP3 (DPI)');
    expect(await classify('tcp', 50411, 1100, [txt('-ERR go away\r\n'), txt('USER bob\r\n'), txt('PASS\r\n')], dirs)).not.toBe('POP3 (DPI)');
  });

  it('IMAP: a * OK greeting, a tagged command and a LOGIN with a user (nDPI: third line), not an untagged command', async () => {
    const dirs = [false, true, true];
    expect(await classify('tcp', 50420, 143, [txt('* OK [CAPABILITY IMAP4rev1] ready\r\n'), txt('a001 CAPABILITY\r\n'), txt('a002 LOGIN bob secret\r\n')], dirs)).toBe('IMAP (DPI)');
    expect(await classify('tcp', 50421, 1430, [txt('* OK [CAPABILITY IMAP4rev1] ready\r\n'), txt('a001CAPABILITY\r\n'), txt('a002 LOGIN bob secret\r\n')], dirs)).not.toBe('IMAP (DPI)');
  });

  it('FTP_CONTROL: a reply to a password or a failed login (FTPS: a reply to AUTH TLS), not a request alone', async () => {
    const login = [txt('220 ProFTPD Server ready\r\n'), txt('USER anonymous\r\n'), txt('331 Password required\r\n'), txt('PASS guest\r\n'), txt('230 Logged in\r\n')];
    expect(await classify('tcp', 50430, 21, login, [false, true, false, true, false])).toBe('FTP_CONTROL (DPI)');
    expect(await classify('tcp', 50433, 21, login.slice(0, 3), [false, true, false])).not.toBe('FTP_CONTROL (DPI)'); // no password yet
    expect(await classify('tcp', 50434, 21, [login[0]!, login[1]!, txt('530 Login incorrect\r\n')], [false, true, false])).toBe('FTP_CONTROL (DPI)');
    expect(await classify('tcp', 50431, 21, [txt('220 ProFTPD Server ready\r\n'), txt('AUTH TLS\r\n'), txt('234 Proceed\r\n')], [false, true, false])).toBe('FTPS (DPI)');
    expect(await classify('tcp', 50432, 2121, [txt('USER anonymous\r\n')], [true])).not.toBe('FTP_CONTROL (DPI)');
  });

  it('Telnet: IAC option negotiation, not another IAC command', async () => {
    // nDPI's telnet.c names the flow on its third IAC packet, not the first.
    const doOpts = Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20, 0xff, 0xfd, 0x23, 0xff, 0xfd, 0x27]);
    const willOpts = Buffer.from([0xff, 0xfb, 0x18, 0xff, 0xfb, 0x20]);
    expect(await classify('tcp', 50440, 23, [doOpts, willOpts, Buffer.from([0xff, 0xfa, 0x18, 0x01, 0xff, 0xf0])], [false, true, false])).toBe('Telnet (DPI)');
    expect(await classify('tcp', 50441, 2323, [Buffer.from([0xff, 0x01, 0x18, 0xff, 0xfd, 0x20])], [false])).not.toBe('Telnet (DPI)');
  });

  it('SIP: INVITE sip: and a SIP/2.0 answer, not another URI scheme', async () => {
    const invite = (uri: string) => txt(`INVITE ${uri} SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5060\r\nCall-ID: 1@x\r\nCSeq: 1 INVITE\r\n\r\n`);
    expect(await classify('udp', 50450, 5060, [invite('sip:bob@example.com'), txt('SIP/2.0 100 Trying\r\n\r\n')])).toBe('SIP (DPI)');
    expect(await classify('tcp', 50451, 5060, [txt('REGISTER sip:example.com SIP/2.0\r\n\r\n')])).toBe('SIP (DPI)');
    expect(await classify('udp', 50452, 5070, [invite('http://example.com')])).not.toBe('SIP (DPI)');
  });

  it('RDP: an X.224 connection request with the mstshash cookie, not an ISO transport with TSAPs', async () => {
    const cookie = Buffer.concat([Buffer.from([0xe0, 0, 0, 0, 0, 0]), txt('Cookie: mstshash=user\r\n'), Buffer.from([1, 0, 8, 0, 3, 0, 0, 0])]);
    expect(await classify('tcp', 50460, 3389, [tpkt(cookie)])).toBe('RDP (DPI)');
    const mms = Buffer.from([0xe0, 0, 0, 0, 1, 0, 0xc1, 2, 0, 1, 0xc2, 2, 0, 1, 0xc0, 1, 0x0a]);
    expect(await classify('tcp', 50461, 102, [tpkt(mms)])).not.toBe('RDP (DPI)');
  });
});
