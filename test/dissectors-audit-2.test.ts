// Audit 2: dissectors checked against nDPI 4.11's own source
// (src/lib/protocols/*.c). One hand-built flow per case: what nDPI accepts is
// named by DPI, and a near miss (one detail wrong) is not.
import { describe, expect, it } from 'vitest';

import { classifier, flowRunner } from './fixtures/dissect.js';
import { hex, txt } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-2-');
const runFlow = flowRunner('fg-dissectors-audit-2r-');

describe('audit 2: nDPI 4.11 conditions', () => {
  // egd.c: any port, > 32 bytes, 0x0d 0x01, producer id (offset 4) = the
  // sender's IPv4 address, status (BE, offset 24) < 31, reserved word 0.
  it('EthernetGlobalData: producer id = sender on any port, not another producer / status 31 / 32 bytes', async () => {
    const egd = (producer: number[], status = 0, len = 33, reserved = 0) => {
      const b = Buffer.alloc(len);
      b.set([0x0d, 0x01], 0);
      b.set(producer, 4);
      b.writeUInt32BE(status, 24);
      b.writeUInt32BE(reserved, 28);
      return b;
    };
    expect(await classify('udp', 40001, 40002, [egd([10, 0, 0, 1], 30)])).toBe('EthernetGlobalData (DPI)');
    expect(await classify('udp', 40003, 40004, [egd([10, 0, 0, 2])])).not.toBe('EthernetGlobalData (DPI)');
    expect(await classify('udp', 40005, 40006, [egd([10, 0, 0, 1], 31)])).not.toBe('EthernetGlobalData (DPI)');
    expect(await classify('udp', 40007, 40008, [egd([10, 0, 0, 1], 0, 32)])).not.toBe('EthernetGlobalData (DPI)');
    expect(await classify('udp', 40009, 40010, [egd([10, 0, 0, 1], 0, 40, 1)])).not.toBe('EthernetGlobalData (DPI)');
  });

  // mumble.c: client pings (12 bytes, 4 zero bytes) keep it waiting; after
  // one, a 24-byte packet either way names the flow.
  it('Mumble: two pings then the answer, or a client 24-byte packet; not an answer without a ping', async () => {
    const ping = hex('00000000 0102030405060708');
    const pong = hex('00010204 0102030405060708 00000003 00000064 0001f400');
    expect(await classify('udp', 50087, 64738, [ping, ping, pong], [true, true, false])).toBe('Mumble (DPI)');
    expect(await classify('udp', 50088, 64738, [ping, pong], [true, true])).toBe('Mumble (DPI)');
    expect(await classify('udp', 50089, 64738, [pong, ping], [true, true])).not.toBe('Mumble (DPI)');
    expect(await classify('udp', 50090, 64738, [ping, Buffer.concat([pong, Buffer.from([0])])])).not.toBe('Mumble (DPI)');
  });

  // mumble.c keeps the last ping's ident (mumble_ident): the answer must echo it at byte 4.
  it("Mumble: the answer must echo the last ping's ident", async () => {
    const ping = (ident: string) => hex(`00000000 ${ident}`);
    const pong = (ident: string) => hex(`00010204 ${ident} 00000003 00000064 0001f400`);
    expect(await classify('udp', 50091, 64738, [ping('0102030405060708'), pong('0102030405060709')], [true, false])).not.toBe('Mumble (DPI)');
    expect(await classify('udp', 50092, 64738, [ping('0102030405060708'), ping('1112131415161718'), pong('1112131415161718')], [true, true, false])).toBe('Mumble (DPI)');
    expect(await classify('udp', 50093, 64738, [ping('0102030405060708'), ping('1112131415161718'), pong('0102030405060708')], [true, true, false])).not.toBe('Mumble (DPI)');
    expect(await classify('udp', 50094, 64738, [ping('0102030405060708'), pong('0102030405060708')], [true, false], { v6: true })).toBe('Mumble (DPI)');
  });

  // imo.c: other packets end its turn only from the sixth on; one-byte
  // packets never do.
  it('IMO: a 10-byte 0x09 0x02 packet as the sixth, not as the seventh; one-byte packets wait', async () => {
    const junk = Buffer.alloc(20, 0xff);
    const imo = hex('0902 0000 0000 0000 0000');
    expect(await classify('udp', 49210, 57604, [...Array(5).fill(junk), imo])).toBe('IMO (DPI)');
    expect(await classify('udp', 49211, 57604, [...Array(6).fill(junk), imo])).not.toBe('IMO (DPI)');
    const ones = [0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37].map((x) => Buffer.from([x]));
    expect(await classify('udp', 49212, 57604, [...ones, imo])).toBe('IMO (DPI)');
  });

  // genshin_impact.c: over TCP, 0x01, a BE length equal to the segment,
  // 0x01/0x07 at offset 5 and 0x4da6 at offset 16.
  it('GenshinImpact: the TCP header, not with 0x02 at offset 5 or a wrong length', async () => {
    const tcpMsg = (kind: number, len = 24) => {
      const b = Buffer.alloc(24, 0x11);
      b[0] = 0x01;
      b.writeUInt32BE(len, 1);
      b[5] = kind;
      b.writeUInt16BE(0x4da6, 16);
      return b;
    };
    expect(await classify('tcp', 50200, 22102, [tcpMsg(0x07)], [true])).toBe('GenshinImpact (DPI)');
    expect(await classify('tcp', 50201, 22102, [tcpMsg(0x01)], [true])).toBe('GenshinImpact (DPI)');
    expect(await classify('tcp', 50202, 22102, [tcpMsg(0x02)], [true])).not.toBe('GenshinImpact (DPI)');
    expect(await classify('tcp', 50203, 22102, [tcpMsg(0x07, 25)], [true])).not.toBe('GenshinImpact (DPI)');
  });

  // iso9506-1-mms.c: a client segment that is no TPKT does not end the
  // turn; it ends once a side sent its third packet without a match.
  it('ISO9506-1-MMS: an initiate after a non-TPKT client segment or as the client\'s third; not after the server\'s third', async () => {
    const mms = () => {
      const b = Buffer.alloc(80);
      b.set([3, 0, 0, 80, 2, 0xf0, 0x80, 13, 80 - 9]);
      b.set([0x80, 0x02], 80 - 37);
      return b;
    };
    const junk = Buffer.alloc(70, 0x41);
    const ok = txt('ok\r\n');
    expect(await classify('tcp', 1350, 102, [junk, mms()], [true, true])).toBe('ISO9506-1-MMS (DPI)');
    expect(await classify('tcp', 1351, 102, [junk, ok, junk, ok, mms()], [true, false, true, false, true])).toBe('ISO9506-1-MMS (DPI)');
    expect(await classify('tcp', 1352, 102, [junk, ok, junk, ok, ok, mms()], [true, false, true, false, false, true])).not.toBe('ISO9506-1-MMS (DPI)');
  });

  // ftp_control.c: port 25 is left to SMTP.
  it('FTP_CONTROL: not on port 25', async () => {
    expect(await classify('tcp', 50433, 25, [txt('220 ProFTPD Server ready\r\n'), txt('USER anonymous\r\n')], [false, true])).not.toBe('FTP_CONTROL (DPI)');
  });

  // telnet.c: the third IAC packet names the flow; an IAC packet opens
  // IAC, 0xfa..0xfe, an option below 0x28, and may carry data after.
  it('Telnet: three IAC packets (data after the commands allowed), not two, not an option of 0x28', async () => {
    const iac = (opt: number) => Buffer.concat([Buffer.from([0xff, 0xfd, opt]), txt('Welcome\r\n')]);
    expect(await classify('tcp', 50442, 2323, [iac(0x18), iac(0x20), iac(0x23)], [false, true, false])).toBe('Telnet (DPI)');
    expect(await classify('tcp', 50443, 2323, [iac(0x18), iac(0x20)], [false, true])).not.toBe('Telnet (DPI)');
    expect(await classify('tcp', 50444, 2323, [iac(0x18), iac(0x20), iac(0x28)], [false, true, false])).not.toBe('Telnet (DPI)');
  });

  // sip.c: "hello", lower-case methods, a TURN ChannelData prefix, up to
  // the 7th packet; no "sips:" and no UPDATE; a non-printable first byte ends it.
  it('SIP: nDPI\'s forms, within 7 packets; not sips:, UPDATE, the 8th packet or after a binary packet', async () => {
    const body = ' SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5070\r\nCall-ID: 1@x\r\nCSeq: 1 INVITE\r\n\r\n';
    const junk = txt('zzzzzzzzzzzzzzzzzzzz');
    expect(await classify('udp', 50453, 5070, [txt('hello')])).toBe('SIP (DPI)');
    expect(await classify('udp', 50454, 5070, [txt(`invite sip:bob@example.com${body}`)])).toBe('SIP (DPI)');
    const inner = txt(`INVITE sip:bob@example.com${body}`);
    const channel = Buffer.concat([Buffer.from([0x40, 0x00, inner.length >> 8, inner.length & 255]), inner]);
    expect(await classify('udp', 50455, 5070, [channel])).toBe('SIP (DPI)');
    expect(await classify('udp', 50456, 5070, [...Array(6).fill(junk), inner], Array(7).fill(true))).toBe('SIP (DPI)');
    expect(await classify('udp', 50457, 5070, [...Array(7).fill(junk), inner], Array(8).fill(true))).not.toBe('SIP (DPI)');
    expect(await classify('udp', 50458, 5070, [txt(`INVITE sips:bob@example.com${body}`)])).not.toBe('SIP (DPI)');
    expect(await classify('udp', 50459, 5070, [txt(`UPDATE sip:bob@example.com${body}`)])).not.toBe('SIP (DPI)');
    expect(await classify('udp', 50460, 5070, [Buffer.from([1, 2, 3, 4, 5, 6]), inner], [true, true])).not.toBe('SIP (DPI)');
  });

  // rdp.c: code 0xe0 exactly from the client (type 1 / length 8 at 11 / 13
  // or "Cookie:"); 0xd0 with type 2 / length 8 from the server.
  it('RDP: a negotiation request, the server\'s confirm alone; not code 0xe1, not length 9', async () => {
    const x224 = (code: number, type: number, len: number) => {
      const b = Buffer.from([3, 0, 0, 19, 14, code, 0, 0, 0x12, 0x34, 0, type, 0, len, 0, 3, 0, 0, 0]);
      return b;
    };
    expect(await classify('tcp', 50462, 3390, [x224(0xe0, 1, 8)], [true])).toBe('RDP (DPI)');
    expect(await classify('tcp', 50463, 3390, [x224(0xd0, 2, 8)], [false])).toBe('RDP (DPI)');
    expect(await classify('tcp', 50464, 3390, [x224(0xe1, 1, 8)], [true])).not.toBe('RDP (DPI)');
    expect(await classify('tcp', 50465, 3390, [x224(0xe0, 1, 9)], [true])).not.toBe('RDP (DPI)');
    expect(await classify('tcp', 50466, 3390, [x224(0xd0, 2, 8)], [true])).not.toBe('RDP (DPI)');
  });

  // ethereum.c: discv4 types 1 to 6; mining JSON over TCP that Mining leaves.
  it('ETHEREUM: an ENRREQUEST, eth_getWork JSON with "worker"; not with a NUL before it', async () => {
    const disc = Buffer.alloc(140, 0x33);
    disc[97] = 5;
    expect(await classify('udp', 50112, 30303, [disc])).toBe('ETHEREUM (DPI)');
    const work = '{"worker": "", "jsonrpc": "2.0", "params": [], "id": 3, "method": "eth_getWork"}\n';
    expect(await classify('tcp', 40141, 9999, [txt(work)], [true])).toBe('ETHEREUM (DPI)');
    expect(await classify('tcp', 40142, 9999, [txt(`{"id": 3,\0 "worker": ""}\n`)], [true])).not.toBe('ETHEREUM (DPI)');
  });

  it('FIX: "8=FIXT.1.1" too, not "8=FIY"', async () => {
    expect(await classify('tcp', 50132, 4001, [txt('8=FIXT.1.1\x019=65\x0135=A\x01')])).toBe('FIX (DPI)');
    expect(await classify('tcp', 50133, 4001, [txt('8=FIYT.1.1\x019=65\x0135=A\x01')])).not.toBe('FIX (DPI)');
  });

  it('Controller_Area_Network: version 1 is clean, another version is a malformed packet', async () => {
    const can = (version: number) => Buffer.concat([txt('ISO11898'), Buffer.from([version, 1]), Buffer.alloc(16, 0)]);
    const ok = await runFlow('udp', 50180, 50181, [can(1)]);
    expect(ok.flow.risks).not.toContain('Malformed Packet');
    const bad = await runFlow('udp', 50182, 50183, [can(2)]);
    expect(bad.flow.risks).toContain('Malformed Packet');
  });

  // telegram.c (UDP): a packet without 0xff waits.
  it('Telegram: the 12-0xff run after a packet without 0xff, not after a packet under 40 bytes', async () => {
    const run12 = Buffer.alloc(64, 0x20);
    run12.fill(0xff, 10, 22);
    expect(await classify('udp', 50163, 533, [Buffer.alloc(48, 0x20), run12], [true, true])).toBe('Telegram (DPI)');
    expect(await classify('udp', 50164, 533, [Buffer.alloc(39, 0x20), run12], [true, true])).not.toMatch(/^Telegram/);
  });

  // raknet.c: a frame set names the flow at once unless RTP has counted
  // packets (RTP gives up on a repeated sequence number).
  it('RakNet: a lone non-RTP frame set; an RTP-shaped one on the third copy, not the second', async () => {
    // one unreliable frame of 24 bytes: 31 bytes, room for RTP's 4 CSRCs
    const frames = (b1: number) => Buffer.concat([Buffer.from([0x84, b1, 0, 0, 0x00, 0x00, 0xc0]), Buffer.alloc(24, 0x11)]);
    expect(await classify('udp', 50172, 60021, [frames(0x40)])).toBe('RakNet (DPI)');
    const rtpLike = frames(0x00);
    expect(await classify('udp', 50173, 60021, [rtpLike, rtpLike, rtpLike], [true, true, true])).toBe('RakNet (DPI)');
    expect(await classify('udp', 50174, 60021, [rtpLike, rtpLike], [true, true])).not.toBe('RakNet (DPI)');
  });

  // mail_imap.c: "<tag> AUTHENTICATE …\r\n" names the flow IMAPS at once.
  it('IMAPS: AUTHENTICATE after the greeting or after CAPABILITY; not without the tag\'s space', async () => {
    const greet = txt('* OK [CAPABILITY IMAP4rev1] ready\r\n');
    expect(await classify('tcp', 50422, 1430, [greet, txt('a001 AUTHENTICATE PLAIN\r\n')], [false, true])).toBe('IMAPS (DPI)');
    const capa = [greet, txt('a001 CAPABILITY\r\n'), txt('* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\na001 OK done\r\n'), txt('a002 AUTHENTICATE PLAIN\r\n')];
    expect(await classify('tcp', 50423, 1430, capa, [false, true, false, true])).toBe('IMAPS (DPI)');
    expect(await classify('tcp', 50424, 1430, [greet, txt('a001AUTHENTICATE PLAIN\r\n')], [false, true])).not.toBe('IMAPS (DPI)');
  });
});
