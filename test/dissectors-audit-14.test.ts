// Audit 14: IRC, FTP_DATA, Thrift, FastCGI, Zattoo, collectd and
// Elasticsearch checked against nDPI 4.11's own source
// (src/lib/protocols/<name>.c). One hand-built flow per case, its messages
// built from the protocols' own documents (RFC 1459 / 2812, RFC 959, the
// Apache Thrift binary and compact protocol notes, the FastCGI
// specification, collectd's binary protocol, Elasticsearch's TcpHeader):
// what nDPI accepts is named by DPI, a near miss (one detail wrong) is not.
import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { cat, txt, u16, u32 } from './fixtures/bytes.js';
import { C, DPI, S, classifier, flowRunner, messages, replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, ipv6, tcp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';

const classify = classifier('fg-dissectors-audit-14-');
const runFlow = flowRunner('fg-dissectors-audit-14f-');
const tmp = tempDir('fg-dissectors-audit-14r-');
afterAll(() => tmp.cleanup());
const bytes = (...v: number[]) => Buffer.from(v);
const v6 = { v6: true };
/** [from the client?, payload] messages (C() / S()) through classify(). */
const run = messages(classify);

// ── IRC (RFC 2812 §2.3: [":" prefix SPACE] command params CRLF) ─────────────
const crlf = (...lines: string[]) => txt(lines.map((l) => `${l}\r\n`).join(''));
const lf = (...lines: string[]) => txt(lines.map((l) => `${l}\n`).join(''));
// The server's numeric replies after registration (§5.1: 001-004, then the LUSERS and MOTD ones).
const numerics = [
  ':irc.example.net 001 bob :Welcome to the Internet Relay Network bob!bob@host.example.org',
  ':irc.example.net 002 bob :Your host is irc.example.net, running version 2.11',
  ':irc.example.net 003 bob :This server was created Jan 1 2024',
  ':irc.example.net 004 bob irc.example.net 2.11 aoOirw abeiIklmnoOpqrRstv',
  ':irc.example.net 251 bob :There are 3 users and 0 services on 1 servers',
  ':irc.example.net 375 bob :- irc.example.net Message of the day -',
  ':irc.example.net 372 bob :- Be nice',
];
// A client opening the flow with a capability query (IRCv3; no command nDPI knows) and the
// server's prefixed answer: RTSP, which splits a flow's first packets at CRLFs, is ruled out after them.
const opening: [boolean, Buffer][] = [C(crlf('CAP LS 302')), S(crlf(':irc.example.net CAP * LS :multi-prefix'))];
const chatter = crlf('just some chatter here');

describe('IRC (irc.c)', () => {
  it('seven ":prefix" lines name the flow, counted across packets; bare-LF lines after RTSP let go; IPv4 and IPv6', async () => {
    // 1 line in the opening, 6 bare-LF lines in one packet: the 7th line
    expect(await run('tcp', 40001, 6667, [...opening, S(lf(...numerics.slice(0, 6)))])).toBe(DPI('IRC'));
    expect(await run('tcp', 40002, 6667, [...opening, S(lf(...numerics.slice(0, 6)))], v6)).toBe(DPI('IRC'));
    expect(await run('tcp', 40003, 6667, [...opening, S(lf(...numerics.slice(0, 5)))])).not.toBe(DPI('IRC'));
    // seven CRLF lines as the flow's first packet
    expect(await run('tcp', 40004, 6667, [S(crlf(...numerics))], v6)).toBe(DPI('IRC'));
  });

  it('a flow\'s first packet ending in a bare LF is split at CRLFs (RTSP split it first): its LF lines do not count', async () => {
    expect(await run('tcp', 40010, 6667, [S(lf(...numerics))])).not.toBe(DPI('IRC'));
    // registration in one bare-LF packet: named once RTSP is out, not as the first packet
    const reg = lf('NICK bob', 'USER bob 0 * :Bob Example');
    expect(await run('tcp', 40011, 6667, [...opening, C(reg)])).toBe(DPI('IRC'));
    expect(await run('tcp', 40012, 6667, [C(reg)])).not.toBe(DPI('IRC'));
    // split at every LF, a CR before it dropped: "NICK bob\r" is a NICK line, "NICK\r" none
    expect(await run('tcp', 40013, 6667, [...opening, C(txt('PASS secret\nNICK bob\r\nJOIN #c\n'))])).toBe(DPI('IRC'));
    expect(await run('tcp', 40014, 6667, [...opening, C(txt('PASS secret\nNICK\r\nJOIN #c\n'))])).not.toBe(DPI('IRC'));
  });

  it('a packet ending LF NUL counts one ":" line whatever it holds', async () => {
    const motd = (i: number) => txt(`:irc.example.net 372 bob :- line ${i}\n\0`);
    expect(await run('tcp', 40020, 6667, [0, 1, 2, 3, 4, 5, 6].map((i) => S(motd(i))))).toBe(DPI('IRC'));
    expect(await run('tcp', 40021, 6667, [0, 1, 2, 3, 4, 5].map((i) => S(motd(i))))).not.toBe(DPI('IRC'));
    // seven lines in one LF NUL packet: one
    expect(await run('tcp', 40022, 6667, [S(cat(lf(...numerics), bytes(0)))])).not.toBe(DPI('IRC'));
  });

  it('the third command packet (any command nDPI lists, or ":" with NOTICE / PRIVMSG); case as written', async () => {
    const ping = crlf('PING :irc.example.net'), pong = crlf('PONG :irc.example.net');
    const privmsg = crlf(':alice!a@host.example.org PRIVMSG #flowgate :hi bob');
    expect(await run('tcp', 40030, 6667, [C(crlf('VERSION irc.example.net')), S(privmsg), C(pong)])).toBe(DPI('IRC'));
    // (a flow opening with PING or PONG is NATS's, registered before IRC)
    expect(await run('tcp', 40031, 6667, [S(crlf(':irc.example.net NOTICE * :*** Looking up your hostname')), C(pong), C(crlf('MODE bob +i'))], v6)).toBe(DPI('IRC'));
    expect(await run('tcp', 40032, 6667, [C(crlf('NOTICE bob :hello')), C(crlf('PRIVMSG #c :hi')), C(crlf('JOIN #c'))])).toBe(DPI('IRC'));
    // lower case is no command; a prefixed message without NOTICE / PRIVMSG is none either
    expect(await run('tcp', 40033, 6667, [C(crlf('NICK bob')), S(crlf('ping :irc.example.net')), C(crlf('MODE bob +i'))])).not.toBe(DPI('IRC'));
    expect(await run('tcp', 40034, 6667, [C(crlf('NICK bob')), S(crlf(':irc.example.net PONG irc.example.net')), C(crlf('MODE bob +i'))])).not.toBe(DPI('IRC'));
    // no line end at the packet's end: not read
    expect(await run('tcp', 40035, 6667, [C(crlf('NICK bob')), S(ping), C(txt('MODE bob +i'))])).not.toBe(DPI('IRC'));
  });

  it('nDPI stops at the flow\'s 10th payload packet', async () => {
    const fill = (n: number) => Array.from({ length: n }, () => S(chatter));
    expect(await run('tcp', 40040, 6667, [C(crlf('NICK bob')), C(crlf('USER bob 0 * :Bob')), ...fill(6), C(crlf('JOIN #c'))])).toBe(DPI('IRC'));
    expect(await run('tcp', 40041, 6667, [C(crlf('NICK bob')), C(crlf('USER bob 0 * :Bob')), ...fill(7), C(crlf('JOIN #c'))])).not.toBe(DPI('IRC'));
  });

  it('after exactly one command packet, nDPI\'s web chat bodies', async () => {
    const nick = C(crlf('NICK bob'));
    expect(await run('tcp', 40050, 6667, [nick, C(txt('interface=chat&nickname=bob'))])).toBe(DPI('IRC'));
    expect(await run('tcp', 40051, 6667, [nick, C(txt('interface=chat&NickName=bob'))], v6)).toBe(DPI('IRC'));
    expect(await run('tcp', 40052, 6667, [nick, C(txt('item=7&cmd=j'))])).toBe(DPI('IRC'));
    // "cmd=" as the last bytes, "NICK=" in capitals, two commands before
    expect(await run('tcp', 40053, 6667, [nick, C(txt('item=7&cmd='))])).not.toBe(DPI('IRC'));
    expect(await run('tcp', 40054, 6667, [nick, C(txt('interface=chat&NICK=bob'))])).not.toBe(DPI('IRC'));
    expect(await run('tcp', 40055, 6667, [nick, C(crlf('PING :x')), C(txt('interface=chat&nickname=bob'))])).not.toBe(DPI('IRC'));
  });

  it('"USER " before any NUL of a command packet raises clear-text credentials, named or not', async () => {
    const user = await runFlow('tcp', 40060, 6667, [crlf(':bob!b@host PRIVMSG #c :USER bob 0 * :Bob')], [true]);
    expect(user.flow.risks).toContain('Clear-Text Credentials');
    const lower = await runFlow('tcp', 40061, 6667, [crlf(':bob!b@host PRIVMSG #c :user bob 0 * :Bob')], [true]);
    expect(lower.flow.risks).not.toContain('Clear-Text Credentials');
    const hidden = await runFlow('tcp', 40062, 6667, [cat(txt('PING :x\0'), crlf('USER bob 0 * :Bob'))], [true]);
    expect(hidden.flow.risks).not.toContain('Clear-Text Credentials');
  });
});

// ── FTP_DATA (RFC 959 §3.2-3.3) ──────────────────────────────────────────────
const listing = txt('drwxr-xr-x    2 ftp      ftp          4096 Jan 01 00:00 pub\r\n');
const fileData = (magic: Buffer | string, len = 512) => {
  const head = typeof magic === 'string' ? txt(magic) : magic;
  return cat(head, Buffer.alloc(len - head.length, 0));
};
let nFrames = 0;
/** A TCP flow's frames as given ([from the client?, flags, payload]), client 10.0.0.1 (or 2001:db8::1). */
async function frames(cport: number, sport: number, segs: [boolean, number, Buffer?][], six = false): Promise<string> {
  const seq = [999, 4999];
  const list = segs.map(([c, flags, p]) => {
    const data = p ?? Buffer.alloc(0);
    const l4 = tcp({ sport: c ? cport : sport, dport: c ? sport : cport, flags, seq: seq[c ? 0 : 1], ack: 1 }, data);
    seq[c ? 0 : 1] += data.length + (flags & TCPF.SYN ? 1 : 0);
    const [s, d] = six ? (c ? ['2001:db8::1', '2001:db8::2'] : ['2001:db8::2', '2001:db8::1']) : c ? ['10.0.0.1', '10.0.0.2'] : ['10.0.0.2', '10.0.0.1'];
    return six ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.TCP }, l4)) : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.TCP }, l4));
  });
  return replayFrames(tmp.file(`frames-${nFrames++}.pcap`), list, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}
const SYN = TCPF.SYN, SYNACK = TCPF.SYN | TCPF.ACK, ACK = TCPF.ACK, PSH = TCPF.PSH | TCPF.ACK;

describe('FTP_DATA (ftp_data.c)', () => {
  it('the first payload packet: port 20, a LIST line, a file header of 256 bytes or more; IPv4 and IPv6', async () => {
    expect(await classify('tcp', 20, 40100, [txt('anything')], [true])).toBe(DPI('FTP_DATA'));
    expect(await classify('tcp', 40101, 40102, [listing], [false], v6)).toBe(DPI('FTP_DATA'));
    expect(await classify('tcp', 40103, 40104, [fileData('%PDF-1.7\n', 256)])).toBe(DPI('FTP_DATA'));
    expect(await classify('tcp', 40105, 40106, [fileData(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))], undefined, v6)).toBe(DPI('FTP_DATA'));
    // near misses: 255 bytes, "-" / "d" only (a symlink's "l"), the second payload packet
    expect(await classify('tcp', 40107, 40108, [fileData('%PDF-1.7\n', 255)])).not.toBe(DPI('FTP_DATA'));
    expect(await classify('tcp', 40109, 40110, [txt('lrwxrwxrwx    1 ftp ftp 7 Jan 01 00:00 x -> y\r\n')])).not.toBe(DPI('FTP_DATA'));
    expect(await classify('tcp', 40111, 40112, [txt('hello'), listing], [true, false])).not.toBe(DPI('FTP_DATA'));
  });

  it('only on a flow seen from its handshake: SYN, SYN-ACK, then an ACK', async () => {
    const data = fileData('%PDF-1.7\n');
    expect(await frames(40120, 40121, [[true, SYN], [false, SYNACK], [true, ACK], [true, PSH, data]])).toBe(DPI('FTP_DATA'));
    expect(await frames(40122, 40123, [[true, SYN], [false, SYNACK], [false, PSH, listing]], true)).toBe(DPI('FTP_DATA'));
    // the client's side only (no SYN-ACK seen), or the capture starting at the SYN-ACK
    expect(await frames(40124, 40125, [[true, SYN], [true, ACK], [true, PSH, data]])).not.toBe(DPI('FTP_DATA'));
    expect(await frames(20, 40126, [[true, SYN], [true, PSH, data]])).not.toBe(DPI('FTP_DATA'));
    expect(await frames(40127, 40128, [[false, SYNACK], [true, ACK], [true, PSH, data]])).not.toBe(DPI('FTP_DATA'));
  });
});

// ── Thrift (thrift-binary-protocol.md, thrift-compact-protocol.md) ─────────
// Strict binary: 0x80, version 1, unused, type, i32 name length, name, i32 seqid, struct (stop).
const thriftBinary = (type: number, name: string | Buffer, o: { version?: number; nameLen?: number } = {}) => {
  const n = typeof name === 'string' ? txt(name) : name;
  return cat(bytes(0x80, o.version ?? 1, 0, type), u32(o.nameLen ?? n.length), n, u32(7), bytes(0));
};
// Compact: 0x82, type << 5 | version, seqid (varint, 3 bytes here), name length, name, struct (stop).
const thriftCompact = (type: number, name: string, version = 1, nameLen = name.length) =>
  cat(bytes(0x82, (type << 5) | version, 0x81, 0x80, 0x01, nameLen), txt(name), bytes(0));
const httpPost = (type: string) =>
  txt(`POST /thrift HTTP/1.1\r\nHost: api.example.org\r\nUser-Agent: thrift-client/0.19\r\nContent-Type: ${type}\r\nContent-Length: 20\r\n\r\n`);

describe('Thrift (thrift.c)', () => {
  it('strict binary over TCP, compact over UDP, one packet; IPv4 and IPv6', async () => {
    expect(await classify('tcp', 40200, 9090, [thriftBinary(1, 'getUser')])).toBe(DPI('Thrift'));
    expect(await classify('tcp', 40201, 9090, [thriftBinary(4, 'log')], undefined, v6)).toBe(DPI('Thrift'));
    // an empty name, version 0 (nDPI's limit: version up to 1)
    expect(await classify('tcp', 40202, 9090, [thriftBinary(2, '', { version: 0 })], [false])).toBe(DPI('Thrift'));
    expect(await classify('udp', 40203, 9091, [thriftCompact(1, 'emit')])).toBe(DPI('Thrift'));
    expect(await classify('udp', 40204, 9091, [thriftCompact(4, 'emit', 0)], undefined, v6)).toBe(DPI('Thrift'));
  });

  it('near misses: the other transport, version 2, type 5, a name past the packet, a packet under the header', async () => {
    expect(await classify('udp', 40210, 9091, [thriftBinary(1, 'getUser')])).not.toBe(DPI('Thrift'));
    expect(await classify('tcp', 40211, 9090, [thriftCompact(1, 'emit')])).not.toBe(DPI('Thrift'));
    expect(await classify('tcp', 40212, 9090, [thriftBinary(1, 'getUser', { version: 2 })])).not.toBe(DPI('Thrift'));
    expect(await classify('tcp', 40213, 9090, [thriftBinary(5, 'getUser')])).not.toBe(DPI('Thrift'));
    expect(await classify('tcp', 40214, 9090, [thriftBinary(1, 'getUser', { nameLen: 13 })])).not.toBe(DPI('Thrift'));
    expect(await classify('udp', 40215, 9091, [thriftCompact(2, 'emit', 2)])).not.toBe(DPI('Thrift'));
    expect(await classify('udp', 40216, 9091, [thriftCompact(1, 'emit', 1, 8)])).not.toBe(DPI('Thrift'));
    expect(await classify('tcp', 40217, 9090, [bytes(0x80, 1, 0, 1, 0, 0, 0)])).not.toBe(DPI('Thrift'));
  });

  it('risks: a name not printable, type 0, an exception', async () => {
    const odd = await runFlow('tcp', 40220, 9090, [thriftBinary(1, bytes(0x67, 0x01, 0x74))], [true]);
    expect(odd.flow.risks).toContain('Non-Printable/Invalid Chars Detected');
    const zero = await runFlow('udp', 40221, 9091, [thriftCompact(0, 'emit')], [true]);
    expect([l7Name(zero.flow.l7_master, zero.flow.l7_app), zero.flow.risks]).toEqual(['Thrift', expect.arrayContaining(['Malformed Packet'])]);
    const exc = await runFlow('tcp', 40222, 9090, [thriftBinary(3, 'getUser')], [false]);
    expect(exc.flow.risks).toContain('Error Code');
    const fine = await runFlow('tcp', 40223, 9090, [thriftBinary(1, 'getUser')], [true]);
    expect(fine.flow.risks).not.toContain('Malformed Packet');
    expect(fine.flow.risks).not.toContain('Error Code');
  });

  it('over HTTP: a Content-Type ending in one of the three Thrift types (cut at ";")', async () => {
    expect(await classify('tcp', 40230, 80, [httpPost('application/vnd.apache.thrift.binary')])).toBe(DPI('HTTP.Thrift'));
    expect(await classify('tcp', 40231, 80, [httpPost('application/vnd.apache.thrift.compact')], undefined, v6)).toBe(DPI('HTTP.Thrift'));
    expect(await classify('tcp', 40232, 80, [httpPost('application/vnd.apache.thrift.json; charset=utf-8')])).toBe(DPI('HTTP.Thrift'));
    expect(await classify('tcp', 40233, 80, [httpPost('application/x-thrift')])).toBe(DPI('HTTP'));
    expect(await classify('tcp', 40234, 80, [httpPost('application/vnd.apache.thrift.binary2')])).toBe(DPI('HTTP'));
  });
});

// ── FastCGI (FastCGI Specification 1.0 §3.3-3.4, §5) ───────────────────────
const fcgi = (type: number, content: Buffer, padding = 0, version = 1) =>
  cat(bytes(version, type), u16(1), u16(content.length), bytes(padding, 0), content, Buffer.alloc(padding, 0));
const pairs = (...kv: [string, string | Buffer][]) =>
  cat(...kv.map(([k, v]) => (typeof v === 'string' ? txt(v) : v)).map((v, i) => cat(bytes(kv[i]![0].length, v.length), txt(kv[i]![0]), v)));
const BEGIN = 1, PARAMS = 4, STDIN = 5, STDOUT = 6;
const begin = fcgi(BEGIN, cat(u16(1), Buffer.alloc(6, 0)));
const params = (host: string | Buffer, padding = 0) =>
  fcgi(PARAMS, pairs(['SCRIPT_FILENAME', '/srv/www/index.php'], ['REQUEST_METHOD', 'GET'], ['HTTP_HOST', host]), padding);
const noHost = fcgi(PARAMS, pairs(['SCRIPT_FILENAME', '/srv/www/index.php'], ['REQUEST_METHOD', 'GET']));
const endParams = fcgi(PARAMS, Buffer.alloc(0));
const stdin = fcgi(STDIN, txt('a=1&b=2'), 1);
const name = (r: { flow: { l7_master: number; l7_app: number } }) => l7Name(r.flow.l7_master, r.flow.l7_app);

describe('FastCGI (fastcgi.c)', () => {
  it('a PARAMS record names the flow by HTTP_HOST as nDPI keeps names; App.FastCGI for a known host; IPv4 and IPv6', async () => {
    const r = await runFlow('tcp', 40300, 9000, [begin, params('WWW.Example.COM  ')], [true, true]);
    expect([name(r), r.flow.host_name]).toEqual(['FastCGI', 'www.example.com']);
    const odd = await runFlow('tcp', 40301, 9000, [params(cat(txt('in'), bytes(0x01), txt('tra.example')))], [true]);
    expect([name(odd), odd.flow.host_name]).toEqual(['FastCGI', 'in?tra.example']);
    expect(await classify('tcp', 40302, 9000, [begin, params('www.google.com')], [true, true], v6)).toBe(DPI('Google.FastCGI'));
  });

  it('risks of the name: invalid characters and exploit, punycode, risky domain; pairs not filling the record: malformed', async () => {
    const bad = await runFlow('tcp', 40310, 9000, [params('www.example.com/<script>')], [true]);
    expect(bad.flow.risks).toEqual(expect.arrayContaining(['Non-Printable/Invalid Chars Detected', 'Possible Exploit Attempt']));
    const puny = await runFlow('tcp', 40311, 9000, [params('xn--bcher-kva.example')], [true]);
    expect(puny.flow.risks).toContain('IDN Domain Name');
    const risky = await runFlow('tcp', 40312, 9000, [params('shop.example.xyz')], [true]);
    expect(risky.flow.risks).toContain('Risky Domain Name');
    const fine = await runFlow('tcp', 40313, 9000, [params('www.example.com')], [true]);
    expect(fine.flow.risks).not.toContain('Possible Exploit Attempt');
    expect(fine.flow.risks).not.toContain('IDN Domain Name');
    expect(fine.flow.risks).not.toContain('Malformed Packet');
    // padding (zeros) is read as pairs too: they stop short of its end (an empty pair's header needs a byte after it)
    for (const pad of [2, 8]) {
      const padded = await runFlow('tcp', 40314 + pad, 9000, [params('www.example.com', pad)], [true]);
      expect([name(padded), padded.flow.risks, padded.flow.host_name]).toEqual(['FastCGI', expect.arrayContaining(['Malformed Packet']), '']);
    }
  });

  it('other records name it from the 3rd payload packet; a packet of two records or none rules it out', async () => {
    expect(await classify('tcp', 40320, 9000, [begin, endParams, stdin], [true, true, true])).toBe(DPI('FastCGI'));
    expect(await classify('tcp', 40321, 9000, [begin, fcgi(STDOUT, txt('Status: 200\r\n\r\nok'))], [true, false])).not.toBe(DPI('FastCGI'));
    expect(await classify('tcp', 40322, 9000, [cat(begin, params('www.example.com')), stdin, stdin])).not.toBe(DPI('FastCGI'));
    expect(await classify('tcp', 40323, 9000, [begin, stdin, fcgi(STDIN, txt('x'), 0, 2)])).not.toBe(DPI('FastCGI'));
    expect(await classify('tcp', 40324, 9000, [begin, stdin, fcgi(12, txt('x'))])).not.toBe(DPI('FastCGI'));
  });

  it('nDPI reads the 5 packets after the match: a later PARAMS renames it, a later record of another type drops the host application, an empty PARAMS ends it', async () => {
    // named at the 3rd packet, then PARAMS with a known host as the 5th packet after
    const late = await runFlow('tcp', 40330, 9000, [begin, stdin, stdin, stdin, stdin, stdin, stdin, params('www.google.com')], [true, true, true, true, true, true, true, true]);
    expect([name(late), late.flow.host_name]).toEqual(['Google.FastCGI', 'www.google.com']);
    const tooLate = await runFlow('tcp', 40331, 9000, [begin, stdin, stdin, stdin, stdin, stdin, stdin, stdin, params('www.google.com')], Array(9).fill(true));
    expect([name(tooLate), tooLate.flow.host_name]).toEqual(['FastCGI', '']);
    expect(await classify('tcp', 40332, 9000, [begin, params('www.google.com'), stdin], [true, true, true])).toBe(DPI('FastCGI'));
    expect(await classify('tcp', 40333, 9000, [begin, params('www.google.com'), endParams, stdin], [true, true, true, true])).toBe(DPI('Google.FastCGI'));
    // a second PARAMS without HTTP_HOST: no name, no application
    const again = await runFlow('tcp', 40334, 9000, [begin, params('www.google.com'), noHost], [true, true, true]);
    expect([name(again), again.flow.host_name]).toEqual(['FastCGI', '']);
  });
});

// ── Zattoo (no public document: nDPI's patterns; HTTP/1.1 requests per RFC 9112) ──
const req = (line: string, headers: string[]) => txt(`${line}\r\n${['Host: tv.example.net', ...headers].join('\r\n')}\r\n\r\n`);
const ua111 = (tag = 'Zattoo/4') =>
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) '.padEnd(86, 'x').slice(0, 86) +
  `${tag}.0.3 (Windows; x64)`.padEnd(25, '-').slice(0, 25);
const zOpen = cat(bytes(0x03, 0x04, 0x00, 0x04, 0x0a, 0x00), Buffer.alloc(60, 0x11));
const zAnswer = cat(bytes(0x03, 0x04), Buffer.alloc(60, 0x22));
const zZeroes = cat(bytes(0, 0), Buffer.alloc(600, 0x33));
const zUdp = (...head: number[]) => cat(bytes(...head), Buffer.alloc(24 - head.length, 0x11));
// "POST http://<the server's address>/ ...", a Host line, the blank line, then the stream's opening.
const zProxy = (ip: string) => cat(txt(`POST http://${ip}/zapi/watch HTTP/1.0\r\nHost: ${ip}\r\n\r\n`), bytes(0x03, 0x04, 0x00, 0x04, 0x0a, 0x00, 1, 2, 3, 4, 5));

describe('Zattoo (zattoo.c)', () => {
  it('HTTP requests (asked as HTTP\'s sub-protocol): its URLs, its User-Agent forms', async () => {
    expect(await classify('tcp', 40400, 80, [req('GET /frontdoor/fd?brand=Zattoo&v=1.5.3 HTTP/1.1', [])])).toBe(DPI('Zattoo'));
    expect(await classify('tcp', 40401, 80, [req('GET /ZattooAdRedirect/redirect.jsp?user=42 HTTP/1.1', [])], undefined, v6)).toBe(DPI('Zattoo'));
    expect(await classify('tcp', 40402, 80, [req('GET /epg/query?c=1 HTTP/1.1', ['User-Agent: Zattoo 4.0.5'])])).toBe(DPI('Zattoo'));
    expect(await classify('tcp', 40403, 80, [req('GET /watch/ard HTTP/1.1', [`user-agent:   ${ua111()} `])])).toBe(DPI('Zattoo'));
    // the line form is case-sensitive; the value form wants exactly 111 bytes
    expect(await classify('tcp', 40404, 80, [req('GET /epg/query?c=1 HTTP/1.1', ['user-agent: Zattoo 4.0.5'])])).not.toBe(DPI('Zattoo'));
    expect(await classify('tcp', 40405, 80, [req('GET /watch/ard HTTP/1.1', [`User-Agent: ${ua111().slice(1)}`])])).not.toBe(DPI('Zattoo'));
  });

  it('the binary stream: 03 04 00 04 0A 00 then 03 04 from the other side (either side first); after 00 00 only the other side', async () => {
    expect(await run('tcp', 40410, 5002, [C(zOpen), S(zAnswer)])).toBe(DPI('Zattoo'));
    expect(await run('tcp', 40411, 5002, [S(zOpen), S(chatter), C(zAnswer)], v6)).toBe(DPI('Zattoo'));
    expect(await run('tcp', 40412, 5002, [C(zOpen), C(zZeroes), S(zAnswer)])).toBe(DPI('Zattoo'));
    // the same side answering; the other side's small packet; the first side again after its 00 00 packet
    expect(await run('tcp', 40413, 5002, [C(zOpen), C(zAnswer)])).not.toBe(DPI('Zattoo'));
    expect(await run('tcp', 40414, 5002, [C(zOpen), S(bytes(3, 4, 0)), S(zAnswer)])).not.toBe(DPI('Zattoo'));
    expect(await run('tcp', 40415, 5002, [C(zOpen), C(zZeroes), C(chatter), S(zAnswer)])).not.toBe(DPI('Zattoo'));
  });

  it('"POST http://" to the packet\'s destination address with the stream after the blank line (IPv4 only)', async () => {
    expect(await run('tcp', 40420, 5002, [C(zOpen), C(zProxy('10.0.0.2'))])).toBe(DPI('Zattoo'));
    expect(await run('tcp', 40421, 5002, [C(zOpen), C(zProxy('10.0.0.9'))])).not.toBe(DPI('Zattoo'));
    expect(await run('tcp', 40422, 5002, [C(zOpen), C(cat(zProxy('10.0.0.2'), txt('\r\n')))])).not.toBe(DPI('Zattoo'));
  });

  it('UDP port 5003: two datagrams over 20 bytes of its openings; IPv4 and IPv6', async () => {
    expect(await classify('udp', 40430, 5003, [zUdp(0x03, 0x78), zUdp(0x03, 0x7a)])).toBe(DPI('Zattoo'));
    expect(await classify('udp', 5003, 40431, [zUdp(0x03, 0x01, 0x00, 0x05), zUdp(0x03, 0x05)], undefined, v6)).toBe(DPI('Zattoo'));
    expect(await classify('udp', 40432, 5003, [zUdp(0x03, 0x78), zUdp(0x03, 0x78).subarray(0, 20)])).not.toBe(DPI('Zattoo'));
    expect(await classify('udp', 40433, 5003, [zUdp(0x03, 0x04, 0x00, 0x05), zUdp(0x03, 0x78)])).not.toBe(DPI('Zattoo'));
  });
});

// ── collectd (binary protocol: parts of type, length with the header, data) ──
const part = (type: number, data: Buffer) => cat(u16(type), u16(4 + data.length), data);
const str = (type: number, s: string | Buffer) => part(type, cat(typeof s === 'string' ? txt(s) : s, bytes(0)));
const num = (type: number, v: number) => part(type, cat(u32(0), u32(v)));
const values = part(0x0006, cat(u16(1), bytes(1), Buffer.alloc(8, 0x40)));
const encrypted = (userLen: number) => {
  const data = cat(u16(userLen), txt('admin'), Buffer.alloc(16, 0xa5), Buffer.alloc(32, 0x5a));
  return cat(u16(0x0210), u16(4 + data.length), data);
};

describe('collectd (collectd.c)', () => {
  it('three known parts, any port; the host part\'s name as nDPI keeps names (read from offset 4); IPv4 and IPv6', async () => {
    const r = await runFlow('udp', 40500, 25826, [cat(str(0x0000, 'Web01.Example'), num(0x0008, 1700000000), str(0x0002, 'cpu'))], [true]);
    expect([name(r), r.flow.host_name]).toEqual(['collectd', 'web01.example']);
    const odd = await runFlow('udp', 40501, 40502, [cat(str(0x0000, cat(txt('db'), bytes(0x7f), txt('1'))), num(0x0001, 1), values)], [true], 1700000000, v6);
    expect([name(odd), odd.flow.host_name]).toEqual(['collectd', 'db?1']);
    expect(await classify('udp', 40503, 25826, [cat(num(0x0009, 10), str(0x0004, 'load'), values, str(0x0005, 'x'), str(0x0003, '0'), str(0x0099, 'y'))])).toBe(DPI('collectd'));
    expect(await classify('udp', 40504, 25826, [encrypted(5)])).toBe(DPI('collectd'));
  });

  it('near misses: two parts, an unknown type among the first three, the encryption part with a user name over the IV', async () => {
    expect(await classify('udp', 40510, 25826, [cat(str(0x0000, 'web01'), num(0x0008, 1))])).not.toBe(DPI('collectd'));
    expect(await classify('udp', 40511, 25826, [cat(str(0x0000, 'web01'), str(0x0102, 'x'), values)])).not.toBe(DPI('collectd'));
    expect(await classify('udp', 40512, 25826, [encrypted(38)])).not.toBe(DPI('collectd'));
    expect(await classify('udp', 40513, 25826, [encrypted(37)])).toBe(DPI('collectd'));
  });
});

// ── Elasticsearch (transport TcpHeader: "ES", i32 length, the rest) ─────────
const es = (len: number, rest: Buffer) => cat(txt('ES'), u32(len), rest);

describe('Elasticsearch (elastic_search.c)', () => {
  it('"ES" and a length the packet holds (the 6-byte ping wraps); any port; IPv4 and IPv6', async () => {
    const body = cat(Buffer.alloc(8, 0), bytes(0, 0x5f, 0x98, 0x0d), Buffer.alloc(10, 0x41));
    expect(await classify('tcp', 40600, 9300, [es(body.length, body)])).toBe(DPI('Elasticsearch'));
    expect(await classify('tcp', 40601, 40602, [es(0xffffffff, Buffer.alloc(0))], undefined, v6)).toBe(DPI('Elasticsearch'));
    expect(await classify('tcp', 40603, 9300, [es(body.length - 1, body)], [false])).toBe(DPI('Elasticsearch'));
    expect(await classify('tcp', 40604, 9300, [es(body.length + 1, body)])).not.toBe(DPI('Elasticsearch'));
    expect(await classify('tcp', 40605, 9300, [cat(txt('Es'), u32(0), Buffer.alloc(4))])).not.toBe(DPI('Elasticsearch'));
    expect(await classify('tcp', 40606, 9300, [es(0xfffffff0, Buffer.alloc(0))])).not.toBe(DPI('Elasticsearch'));
  });
});
