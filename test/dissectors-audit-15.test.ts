// Audit 15: game dissectors checked against nDPI 4.11's own source
// (src/lib/protocols/<name>.c): World of Warcraft, Dofus, StarCraft,
// Warcraft3, Armagetron, MapleStory, Xbox, Activision, CrossFire, Source
// Engine, Guild Wars, EpicGames, HoTS, TES Online, Gaijin, NetEase games,
// LoL Wild Rift, CoD Mobile and TocaBoca. One hand-built flow per case, its
// messages built from the forms nDPI states: what nDPI accepts is named by
// DPI, a near miss (one detail wrong) is not.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { l7Name } from '../ts/bindings/engine.js';
import { classifier, replayFrames, tcpSession } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, ipv6, udp } from './fixtures/frames.js';
import { tempDir } from './fixtures/pcap.js';
import { fill, le16, le32, txt, u16, u32 } from './fixtures/bytes.js';

const classify = classifier('fg-dissectors-audit-15-');
const tmp = tempDir('fg-dissectors-audit-15r-');
afterAll(() => tmp.cleanup());
const v6 = { v6: true };
const bytes = (...b: number[]) => Buffer.from(b);
type Msg = [boolean, Buffer];

/**
 * One flow between chosen addresses (IPv6 when they are): messages [from the
 * client?, payload], over UDP or a TCP session; its "name (confidence)".
 * `resend`: indexes of TCP messages sent twice (the copy, same sequence
 * number, is a retransmission no dissector sees).
 */
let nAt = 0;
async function flowAt(l4: 'udp' | 'tcp', cli: string, srv: string, cport: number, sport: number, msgs: Msg[], resend: number[] = []): Promise<string> {
  const six = cli.includes(':');
  let frames: Buffer[];
  if (l4 === 'tcp') {
    const all = tcpSession(cli, srv, cport, sport, msgs);
    frames = all.slice(0, 3);
    all.slice(3).forEach((f, i) => {
      frames.push(f);
      if (resend.includes(i)) frames.push(f);
    });
  } else {
    frames = msgs.map(([c, p]) => {
      const l4data = udp({ sport: c ? cport : sport, dport: c ? sport : cport }, p);
      const [s, d] = c ? [cli, srv] : [srv, cli];
      return six
        ? eth(MAC_B, MAC_A, ETH.IPV6, ipv6({ src: s, dst: d, next: IPPROTO.UDP }, l4data))
        : eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: s, dst: d, proto: IPPROTO.UDP }, l4data));
    });
  }
  return replayFrames(join(tmp.dir, `at-${nAt++}.pcap`), frames, (e) => {
    const f = e.flows({ limit: 1 }).rows[0]!;
    return `${l7Name(f.l7_master, f.l7_app)} (${f.l7_confidence})`;
  });
}
const dirsOf = (msgs: Msg[]) => msgs.map(([c]) => c);
const payloadsOf = (msgs: Msg[]) => msgs.map(([, p]) => p);
/** classify() of [from the client?, payload] messages. */
const run = (l4: 'udp' | 'tcp', cport: number, sport: number, msgs: Msg[], opts = {}) => classify(l4, cport, sport, payloadsOf(msgs), dirsOf(msgs), opts);
const C = (p: Buffer): Msg => [true, p];
const S = (p: Buffer): Msg => [false, p];

// ── World of Warcraft (world_of_warcraft.c) ─────────────────────────────────
// AUTH_LOGON_CHALLENGE: cmd, error, size, "WoW\0", version 1.12.1, build, platform, OS, country, zone, IP, name.
const logon = (name: string, shift = 0) =>
  Buffer.concat([bytes(0x00), fill(shift, 0x03), bytes(0x03), u16(30 + name.length), txt('WoW\0'), bytes(1, 12, 1), le16(5875), txt('68x\0niW\0SUne'), le32(60), bytes(192, 168, 1, 2), bytes(name.length), txt(name)]).subarray(0, 34 + name.length + shift);
const framed = (body: Buffer) => Buffer.concat([u16(body.length), body]);
describe('World of Warcraft (world_of_warcraft.c)', () => {
  it('single-packet forms, IPv4 and IPv6, and their near misses', async () => {
    expect(logon('PLAYER1').length).toBe(41);
    expect(await run('tcp', 41000, 3724, [C(logon('PLAYER1'))], v6)).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41001, 3724, [C(logon('PLAYER1', 1))])).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41002, 3725, [C(logon('PLAYER1'))])).not.toBe('WorldOfWarcraft (DPI)');
    const banner = Buffer.concat([u16(48), txt('WORLD OF WARCRAFT CONNECTION - SERVER TO CLIENT\n')]);
    expect(await run('tcp', 41003, 8085, [S(banner)], v6)).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41004, 8085, [S(Buffer.concat([banner, bytes(0)]))])).not.toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41005, 3724, [S(Buffer.concat([u32(0x0006ec01), u32(7)]))])).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41006, 3724, [S(Buffer.concat([u32(0x0006ec02), u32(7)]))])).not.toBe('WorldOfWarcraft (DPI)');
    const bnet = (n: number) => Buffer.concat([u32(0x40000aed), u32(0xea070aed), fill(n - 8, 0x10)]);
    expect(await run('tcp', 41007, 1119, [C(bnet(77))], v6)).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41008, 1119, [C(bnet(76))])).not.toBe('WorldOfWarcraft (DPI)');
  });

  it('the staged exchange from a WoW port: stage 2 waits through the second payload packet', async () => {
    const s2 = framed(Buffer.concat([u32(0xec010100), fill(10, 0x22)]));
    expect(await run('tcp', 41010, 6112, [S(s2), C(bytes(1, 2, 3, 4))])).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41011, 6112, [S(s2), C(Buffer.concat([u32(9), bytes(0x0c), fill(11)]))], v6)).toBe('WorldOfWarcraft (DPI)');
    // 17 bytes with 0x0C at 4: too long
    expect(await run('tcp', 41012, 6112, [S(s2), C(Buffer.concat([u32(9), bytes(0x0c), fill(12)]))])).not.toBe('WorldOfWarcraft (DPI)');
    // a packet fitting nothing is waited through only as the second payload packet
    expect(await run('tcp', 41013, 6112, [S(s2), C(fill(20)), S(bytes(1, 2, 3, 4))])).toBe('WorldOfWarcraft (DPI)');
    expect(await run('tcp', 41018, 6112, [S(s2), C(fill(20)), S(fill(20)), C(bytes(1, 2, 3, 4))])).not.toBe('WorldOfWarcraft (DPI)');
    // the staged opening from a port that is not WoW's, or with its length off by one
    expect(await run('tcp', 41014, 6115, [S(s2), C(bytes(1, 2, 3, 4))])).not.toBe('WorldOfWarcraft (DPI)');
    const off = Buffer.from(s2);
    off.writeUInt16BE(15, 0);
    expect(await run('tcp', 41015, 6112, [S(off), C(bytes(1, 2, 3, 4))])).not.toBe('WorldOfWarcraft (DPI)');
    // stage 1 (41 bytes, 19 60) → 2 (framed, 12 05 00 00 at 2) → a 4-byte packet
    const s1 = framed(Buffer.concat([u16(0x1960), fill(37, 0x33)]));
    expect(await run('tcp', 41016, 4000, [S(s1), C(framed(Buffer.concat([u32(0x12050000), fill(30)]))), S(bytes(0, 0, 0, 0))])).toBe('WorldOfWarcraft (DPI)');
    // stage 1 then a framed packet of 32 bytes only
    expect(await run('tcp', 41017, 4000, [S(s1), C(framed(Buffer.concat([u32(0x12050000), fill(26)]))), S(bytes(0, 0, 0, 0))])).not.toBe('WorldOfWarcraft (DPI)');
  });
});

// ── Dofus (dofus.c) ─────────────────────────────────────────────────────────
// Dofus 2 message: 16-bit header (id << 2 | length size), length, body; strings as u16 length + UTF-8.
const str16 = (s: string) => Buffer.concat([u16(s.length), txt(s)]);
describe('Dofus (dofus.c)', () => {
  it('Dofus 1: a 13-byte packet, or a NUL-ended text message then AT / Ak', async () => {
    const v1 = (end: number) => Buffer.concat([bytes(0x01), u16(0x0508), fill(2, 0x10), u16(0x04a0), fill(4, 0x20), u16(end)]);
    expect(v1(0x0194).length).toBe(13);
    expect(await run('tcp', 41100, 5555, [C(v1(0x0194))], v6)).toBe('Dofus (DPI)');
    expect(await run('tcp', 41101, 5555, [C(v1(0x0195))])).not.toBe('Dofus (DPI)');
    // HC + key (35 bytes), then the ticket AT… (11 bytes) or a 5-byte Ak
    const hc = Buffer.concat([txt('HC'), fill(32, 0x61), bytes(0)]);
    expect(await run('tcp', 41102, 5555, [S(hc), C(Buffer.concat([txt('AT12345678'), bytes(0)]))])).toBe('Dofus (DPI)');
    expect(await run('tcp', 41103, 443, [S(txt('HG\0')), C(Buffer.concat([txt('Ak0a'), bytes(0)]))], v6)).toBe('Dofus (DPI)');
    // any NUL-ended text but "Ad…" is a first step
    expect(await run('tcp', 41104, 5555, [S(txt('Zz\0')), C(Buffer.concat([txt('ATk0'), bytes(0)]))])).toBe('Dofus (DPI)');
    expect(await run('tcp', 41105, 5555, [S(txt('Ad\0')), C(Buffer.concat([txt('ATk0'), bytes(0)]))])).not.toBe('Dofus (DPI)');
    // not NUL-ended, and an answer of the wrong shape
    expect(await run('tcp', 41106, 5555, [S(txt('HG\n')), C(Buffer.concat([txt('ATk0'), bytes(0)]))])).not.toBe('Dofus (DPI)');
    expect(await run('tcp', 41107, 5555, [S(txt('HG\0')), C(Buffer.concat([txt('AX'), fill(8), bytes(0)]))])).not.toBe('Dofus (DPI)');
  });

  it('Dofus 1: the answer after a retransmission is still read (nDPI counts the copy, its call comes next)', async () => {
    const msgs: Msg[] = [S(txt('HG\0')), C(Buffer.concat([txt('ATk0'), bytes(0)]))];
    expect(await flowAt('tcp', '10.0.0.1', '10.0.0.2', 41110, 5555, msgs, [0])).toBe('Dofus (DPI)');
    expect(await flowAt('tcp', '10.0.0.1', '10.0.0.2', 41111, 5555, [S(txt('HG\0')), C(Buffer.concat([txt('AXk0'), bytes(0)]))], [0])).not.toBe('Dofus (DPI)');
  });

  it('Dofus 2: ProtocolRequired, the 01 B9 26 login and the Identification message', async () => {
    const req = (n: 11 | 13 | 49) => {
      const b = Buffer.concat([u32(0x00050800), u16(0x0005), fill(2, 0x07), u16(0x0005), bytes(0x18), fill(n - 11, 0x01)]);
      if (n === 13) b.writeUInt16BE(0x0194, 11);
      if (n === 49) b.writeUInt16BE(32, 15);
      return b;
    };
    for (const n of [11, 13, 49] as const) expect(await run('tcp', 41120 + n, 5555, [S(req(n))])).toBe('Dofus (DPI)');
    const bad13 = req(13);
    bad13[12] = 0x95;
    expect(await run('tcp', 41150, 5555, [S(bad13)])).not.toBe('Dofus (DPI)');
    const bad49 = req(49);
    bad49.writeUInt16BE(31, 15);
    expect(await run('tcp', 41151, 5555, [S(bad49)])).not.toBe('Dofus (DPI)');
    // 01 B9 26, then two strings filling the packet exactly
    const login = (extra = 0) => Buffer.concat([u16(0x01b9), bytes(0x26), str16('a'.repeat(20)), str16('b'.repeat(14)), fill(extra, 0x2e)]);
    expect(login().length).toBe(41);
    expect(await run('tcp', 41152, 5555, [C(login())], v6)).toBe('Dofus (DPI)');
    expect(await run('tcp', 41153, 5555, [C(login(1))])).not.toBe('Dofus (DPI)');
    // Identification: the fixed opening, two strings, a final 0x01, 56 bytes in all
    const ident = (last: number) => Buffer.concat([bytes(0x00, 0x11, 0x35, 0x02, 0x03, 0x00, 0x93, 0x96, 0x01, 0x00), str16('u'.repeat(20)), str16('p'.repeat(21)), bytes(last)]);
    expect(ident(1).length).toBe(56);
    expect(await run('tcp', 41154, 5555, [C(ident(1))])).toBe('Dofus (DPI)');
    expect(await run('tcp', 41155, 5555, [C(ident(2))])).not.toBe('Dofus (DPI)');
  });
});

// ── StarCraft (starcraft.c) ─────────────────────────────────────────────────
const scLogin = (lead: number) => Buffer.concat([bytes(lead, 0x00, 0x00, 0x0a, 0x66, 0x02, 0x0a, 0xed, 0x2d, 0x66), fill(30, 0x12)]);
const sizes = (...n: number[]) => n.map((k) => fill(k, 0x5c));
describe('StarCraft (starcraft.c)', () => {
  it('TCP: the login to a Battle.net logon server, IPv4 only', async () => {
    expect(await flowAt('tcp', '10.0.0.1', '202.9.66.76', 41200, 1119, [C(scLogin(0x49))])).toBe('Starcraft (DPI)');
    expect(await flowAt('tcp', '10.0.0.1', '202.9.66.77', 41201, 1119, [C(scLogin(0x49))])).not.toBe('Starcraft (DPI)');
    expect(await run('tcp', 41202, 1119, [C(scLogin(0x49))], v6)).not.toBe('Starcraft (DPI)');
  });

  it('UDP on 1119: the size run 20, 20, 75|85, 20, 548 ×3, 484, either way, others passing over', async () => {
    const dirs = (n: number) => Array.from({ length: n }, (_, i) => i % 3 !== 2);
    const go = (cport: number, sport: number, ps: Buffer[], opts = {}) => classify('udp', cport, sport, ps, dirs(ps.length), opts);
    expect(await go(41210, 1119, sizes(20, 20, 75, 20, 548, 548, 548, 484))).toBe('Starcraft (DPI)');
    expect(await go(1119, 41211, sizes(20, 33, 20, 85, 100, 20, 548, 548, 20, 548, 484), v6)).toBe('Starcraft (DPI)');
    // one step missing (a single 20 before the 75), the last one 485, and port 1120
    // (cut short, the flow is left to the port guess at the end of nDPI's 25-packet window)
    expect(await go(41212, 1119, [...sizes(20, 75, 20, 548, 548, 548, 484, 20, 75, 20), ...sizes(...Array<number>(15).fill(100))])).toBe('Starcraft (Match by port)');
    expect(await go(41213, 1119, sizes(20, 20, 75, 20, 548, 548, 548, 485))).not.toBe('Starcraft (DPI)');
    expect(await go(41214, 1120, sizes(20, 20, 75, 20, 548, 548, 548, 484))).not.toBe('Starcraft (DPI)');
  });

  it("UDP: the run's step shares a byte with Activision's directions, neither disturbing the other", async () => {
    // Activision keeps the flow for four packets (its first magics both ways, then 0x29 / 0x28),
    // while StarCraft's run advances; the fifth rules Activision out and the run goes on.
    const act = (lead: number[], n: number) => Buffer.concat([Buffer.from(lead), fill(n - lead.length, 0)]);
    const msgs: Msg[] = [C(act([0x0c, 0x02], 30)), S(act([0x0d, 0x02], 30)), C(act([0x29], 20)), S(act([0x28], 20)), C(act([0], 75)), S(fill(20)), C(fill(548)), S(fill(548)), C(fill(548)), S(fill(484))];
    expect(await run('udp', 41220, 1119, msgs)).toBe('Starcraft (DPI)');
    msgs[9] = S(fill(483));
    expect(await run('udp', 41221, 1119, msgs)).not.toBe('Starcraft (DPI)');
    // and Activision's pattern kept to the fifth packet names it while the run advanced under it
    expect(await run('udp', 41222, 1119, [...msgs.slice(0, 4), C(act([0x29], 75))])).toBe('Activision (DPI)');
  });
});

// ── Warcraft3 (warcraft3.c) ─────────────────────────────────────────────────
// BNCS / W3GS header: 0xFF or 0xF7, message id, u16 little-endian length (header included).
const w3 = (lead: number, id: number, body: Buffer) => Buffer.concat([bytes(lead, id), le16(body.length + 4), body]);
describe('Warcraft3 (warcraft3.c)', () => {
  it('the third payload packet that keeps the message framing names the flow, TCP and UDP', async () => {
    const auth = w3(0xff, 0x50, fill(20, 0x01));
    const ping = w3(0xff, 0x25, u32(0x12345678));
    expect(await run('tcp', 41300, 6112, [C(bytes(0x01)), C(auth), S(ping)])).toBe('Warcraft3 (DPI)');
    expect(await run('tcp', 41301, 6112, [C(bytes(0x01)), C(auth), S(ping)], v6)).toBe('Warcraft3 (DPI)');
    // a 0xFF message followed by two whole 0xF7 ones
    const chain = Buffer.concat([w3(0xff, 0x0a, fill(4)), w3(0xf7, 0x01, fill(6)), w3(0xf7, 0x02, fill(3))]);
    expect(await run('udp', 41302, 6112, [C(w3(0xf7, 0x2f, fill(8))), S(chain), C(w3(0xf7, 0x30, fill(8)))], v6)).toBe('Warcraft3 (DPI)');
    // two packets only: not yet
    expect(await run('udp', 41303, 6112, [C(w3(0xf7, 0x2f, fill(8))), S(chain)])).not.toBe('Warcraft3 (DPI)');
    // a chained message of length 2 (≤ 2) breaks the walk short of the end
    const short = Buffer.concat([w3(0xff, 0x0a, fill(4)), bytes(0xf7, 0x01, 0x02, 0x00), fill(2)]);
    expect(await run('udp', 41304, 6112, [C(w3(0xf7, 0x2f, fill(8))), S(short), C(w3(0xf7, 0x30, fill(8)))])).not.toBe('Warcraft3 (DPI)');
    // the 1-byte selector only as the flow's first payload packet
    expect(await run('tcp', 41305, 6112, [C(auth), C(bytes(0x01)), S(ping)])).not.toBe('Warcraft3 (DPI)');
  });
});

// ── Armagetron (armagetron.c) ───────────────────────────────────────────────
// descriptor, message id, data length in 16-bit words, data, sender id (0 from a client).
describe('Armagetron (armagetron.c)', () => {
  it('login, sync and net-sync datagrams; a near miss of each', async () => {
    const login = (words: number) => Buffer.concat([u16(0x000b), u16(0), u16(words), u16(0x0008), fill(6, 0x30), u16(0)]);
    expect(await run('udp', 41400, 4534, [C(login(4))])).toBe('Armagetron (DPI)');
    expect(await run('udp', 41401, 4534, [C(login(4))], v6)).toBe('Armagetron (DPI)');
    expect(await run('udp', 41402, 4534, [C(login(5))])).not.toBe('Armagetron (DPI)');
    const sync = (id: number) => Buffer.concat([u16(0x001c), u16(id), u16(4), u32(0x00000500), u32(0x00010000), u16(0)]);
    expect(await run('udp', 41403, 4534, [S(sync(7))])).toBe('Armagetron (DPI)');
    expect(await run('udp', 41404, 4534, [S(sync(0))])).not.toBe('Armagetron (DPI)');
    const netSync = (w12: number) => Buffer.concat([u16(0x0018), u16(0x0102), u16(20), u16(1), u16(0x4242), u16(9), u16(w12), u16(10), fill(10, 0x55), u32(0x00000001), fill(28, 0x66), u16(0)]);
    expect(netSync(0x4242).length).toBe(60);
    expect(await run('udp', 41405, 4534, [S(netSync(0x4242))])).toBe('Armagetron (DPI)');
    expect(await run('udp', 41406, 4534, [S(netSync(0x4243))])).not.toBe('Armagetron (DPI)');
    expect(await run('tcp', 41407, 4534, [C(login(4))])).not.toBe('Armagetron (DPI)');
  });
});

// ── MapleStory (maplestory.c) ───────────────────────────────────────────────
const mapleGet = (path: string, headers: string[], eol = '\r\n') => txt(`GET ${path} HTTP/1.1${eol}${headers.join(eol)}${eol}${eol}`);
describe('MapleStory (maplestory.c)', () => {
  it('the 16-byte hello', async () => {
    const hello = (w: number, v: number) => Buffer.concat([u32(w), u16(0x0100), bytes(v), fill(9, 0)]);
    expect(await run('tcp', 41500, 8484, [S(hello(0x0e003b00, 0x33))], v6)).toBe('MapleStory (DPI)');
    expect(await run('tcp', 41501, 8484, [S(hello(0x0e004200, 0x32))])).toBe('MapleStory (DPI)');
    expect(await run('tcp', 41502, 8484, [S(hello(0x0e004200, 0x34))])).not.toBe('MapleStory (DPI)');
  });

  it("the updater's requests, header values as nDPI's line parser keeps them", async () => {
    expect(await run('tcp', 41510, 80, [C(mapleGet('/maple/patch/v1.wz', ['Host: patch.nexon.net', 'User-Agent: Patcher']))])).toBe('MapleStory (DPI)');
    // trailing spaces are trimmed; the last User-Agent line wins
    expect(await run('tcp', 41511, 80, [C(mapleGet('/maple/patch/v1.wz', ['Host: patch.nexon.net', 'User-Agent: Patcher  ']))], v6)).toBe('MapleStory (DPI)');
    expect(await run('tcp', 41512, 80, [C(mapleGet('/maple/patch/v1.wz', ['User-Agent: curl', 'Host: patch.nexon.net', 'User-Agent: Patcher']))])).toBe('MapleStory (DPI)');
    expect(await run('tcp', 41513, 80, [C(mapleGet('/maple/patch/v1.wz', ['User-Agent: Patcher', 'Host: patch.nexon.net', 'User-Agent: curl']))])).not.toBe('MapleStory (DPI)');
    // lines ended by LF alone are no lines to nDPI: no User-Agent is read
    expect(await run('tcp', 41514, 80, [C(mapleGet('/maple/patch/v1.wz', ['Host: patch.nexon.net', 'User-Agent: Patcher'], '\n'))])).not.toBe('MapleStory (DPI)');
    // the host must be longer than "patch."
    expect(await run('tcp', 41515, 80, [C(mapleGet('/maple/patch/v1.wz', ['Host: patch.', 'User-Agent: Patcher']))])).not.toBe('MapleStory (DPI)');
    expect(await run('tcp', 41516, 80, [C(mapleGet('/maplestory/news', ['Host: example.com', 'User-Agent: AspINet']))], v6)).toBe('MapleStory (DPI)');
    expect(await run('tcp', 41517, 80, [C(mapleGet('/maplestory/news', ['Host: example.com', 'User-Agent: AspINet2']))])).not.toBe('MapleStory (DPI)');
  });
});

// ── Xbox (xbox.c) ───────────────────────────────────────────────────────────
describe('Xbox (xbox.c)', () => {
  const headed = (k: number, v: number, b5 = 0x58) => Buffer.concat([u32(0), bytes(k, b5, v, 0, 0, 0), fill(6, 0x11)]);
  it('the headed datagram on any port; the fixed shapes twice with 3074 on a side', async () => {
    for (const [i, [k, v]] of [[0x0c, 0x76], [0x02, 0x18], [0x0b, 0x80], [0x03, 0x40], [0x06, 0x4e]].entries())
      expect(await run('udp', 41600 + i, 9000, [C(headed(k!, v!))], i === 0 ? v6 : {})).toBe('Xbox (DPI)');
    expect(await run('udp', 41605, 9000, [C(headed(0x0c, 0x76, 0x59))])).not.toBe('Xbox (DPI)');
    expect(await run('udp', 41606, 9000, [C(headed(0x0c, 0x18))])).not.toBe('Xbox (DPI)');
    const s24 = Buffer.concat([bytes(0), fill(23, 0x21)]);
    const s40 = Buffer.concat([u32(0xcf5f3202), fill(36, 0x21)]);
    expect(await run('udp', 41607, 3074, [C(s24), S(s40)], v6)).toBe('Xbox (DPI)');
    expect(await run('udp', 3074, 41608, [C(s40)])).not.toBe('Xbox (DPI)');
    expect(await run('udp', 41609, 3075, [C(s24), S(s40)])).not.toBe('Xbox (DPI)');
  });

  it('other datagrams wait until the fifth payload packet rules the flow out', async () => {
    const junk = fill(30, 0x99);
    expect(await run('udp', 41610, 9000, [C(junk), S(junk), C(junk), S(junk), C(headed(0x0c, 0x76))])).toBe('Xbox (DPI)');
    expect(await run('udp', 41611, 9000, [C(junk), S(junk), C(junk), S(junk), C(junk), S(headed(0x0c, 0x76))])).not.toBe('Xbox (DPI)');
  });
});

// ── Activision (activision.c) ───────────────────────────────────────────────
describe('Activision (activision.c)', () => {
  const first = (magic: number, n = 29, mark = false) => {
    const b = Buffer.concat([u16(magic), fill(n - 2, 0x01)]);
    if (mark) bytes(0xc0, 0xa8, 0x00, 0x15, 0x02, 0x0c).copy(b, 17);
    return b;
  };
  const later = (lead: number) => Buffer.concat([bytes(lead), fill(17, 0x02)]);
  it('first magics per nDPI direction, then 0x29 / 0x28: the fifth payload packet names the flow', async () => {
    // client 41700 → 30000: the client's packets are direction 0 (0c02, then 0x29)
    const five: Msg[] = [C(first(0x0c02)), S(first(0x0d02)), C(later(0x29)), S(later(0x28)), C(later(0x29))];
    expect(await run('udp', 41700, 30000, five)).toBe('Activision (DPI)');
    expect(await run('udp', 41701, 30000, five, v6)).toBe('Activision (DPI)');
    expect(await run('udp', 41702, 30000, five.slice(0, 4))).not.toBe('Activision (DPI)');
    // client below the server's port: its packets are direction 1 (0d02, then 0x28)
    expect(await run('udp', 3000, 41703, [C(first(0x0d02)), S(first(0x0c02)), C(later(0x28)), S(later(0x29)), C(later(0x28))])).toBe('Activision (DPI)');
    expect(await run('udp', 3000, 41704, five)).not.toBe('Activision (DPI)');
    // a first packet of 28 bytes, a later one of 17
    expect(await run('udp', 41705, 30000, [C(first(0x0c02, 28)), ...five.slice(1)])).not.toBe('Activision (DPI)');
    expect(await run('udp', 41706, 30000, [...five.slice(0, 4), C(later(0x29).subarray(0, 17))])).not.toBe('Activision (DPI)');
  });

  it('the c0a800 15020c mark names the flow on a first packet; equal ports go by address', async () => {
    expect(await run('udp', 41710, 30000, [C(first(0x0c02, 40, true))])).toBe('Activision (DPI)');
    expect(await run('udp', 41711, 30000, [S(later(0x28)), C(first(0x0c02, 40, true))])).not.toBe('Activision (DPI)');
    // IPv4, equal ports: the lower address sends direction 1
    expect(await flowAt('udp', '10.0.0.1', '10.0.0.2', 3074, 3074, [C(first(0x0d02, 29, true))])).toBe('Activision (DPI)');
    expect(await flowAt('udp', '10.0.0.2', '10.0.0.1', 3074, 3074, [C(first(0x0d02, 29, true))])).not.toBe('Activision (DPI)');
    // IPv6, equal ports: every packet is direction 1
    expect(await flowAt('udp', '2001:db8::2', '2001:db8::1', 3074, 3074, [C(first(0x0d02, 29, true))])).toBe('Activision (DPI)');
    expect(await flowAt('udp', '2001:db8::1', '2001:db8::2', 3074, 3074, [C(first(0x0c02, 29, true))])).not.toBe('Activision (DPI)');
  });
});

// ── CrossFire (crossfire.c) ─────────────────────────────────────────────────
describe('CrossFire (crossfire.c)', () => {
  const cfUdp = (w22: number) => Buffer.concat([u32(0xc7d91999), u16(0x0200), fill(16, 0x31), u16(w22), bytes(0)]);
  const notice = (path: string, host: string, n = 4) =>
    mapleGet(`/${path}`, [`Host: ${host}`, 'User-Agent: Mozilla/4.0', 'Accept: */*', 'Connection: Keep-Alive', 'Pragma: no-cache'].slice(0, n + 1));
  it('the 25-byte datagram and the login-notice request of exactly 8 lines', async () => {
    expect(await run('udp', 41800, 12060, [C(cfUdp(0x7d00))], v6)).toBe('Crossfire (DPI)');
    expect(await run('udp', 41801, 12060, [C(cfUdp(0x7d01))])).not.toBe('Crossfire (DPI)');
    expect(await run('tcp', 41802, 80, [C(notice('notice/login_small/index.asp', 'crossfire.example'))], v6)).toBe('Crossfire (DPI)');
    expect(await run('tcp', 41803, 80, [C(notice('notice/login_small/index.asp', 'crossfire.example', 3))])).not.toBe('Crossfire (DPI)');
    expect(await run('tcp', 41804, 80, [C(notice('notice/login_small/index.asp', 'crossfire.ex'))])).not.toBe('Crossfire (DPI)');
  });
});

// ── Source Engine (source_engine.c) ─────────────────────────────────────────
describe('Source Engine (source_engine.c)', () => {
  it('the datagram ending "Source Engine Query" and NUL', async () => {
    expect(await run('udp', 41900, 27015, [C(Buffer.concat([u32(0xffffffff), txt('TSource Engine Query\0')]))], v6)).toBe('Source_Engine (DPI)');
    expect(await run('udp', 41901, 27015, [C(txt('Source Engine Query\0'))])).toBe('Source_Engine (DPI)');
    expect(await run('udp', 41902, 27015, [C(txt('Source Engine Query\0\0'))])).not.toBe('Source_Engine (DPI)');
    expect(await run('udp', 41903, 27015, [C(txt('Source Engine Querx\0'))])).not.toBe('Source_Engine (DPI)');
  });
});

// ── Guild Wars (guildwars.c) ────────────────────────────────────────────────
describe('Guild Wars (guildwars.c)', () => {
  it('its three packets, each with a near miss', async () => {
    const a = Buffer.concat([bytes(0x00), u16(0x050c), fill(47, 0x10), txt('@2&P'), fill(10, 0x10)]);
    const b = Buffer.concat([bytes(0x00), u16(0x040c), bytes(0x00), u16(0xa672), fill(2), bytes(0x01), fill(3), bytes(0x04), fill(3)]);
    const c = Buffer.concat([u16(0x0100), fill(3), u32(0xf1001000), bytes(0x01), fill(11)]);
    expect([a.length, b.length, c.length]).toEqual([64, 16, 21]);
    expect(await run('tcp', 42000, 6112, [C(a)], v6)).toBe('Guildwars (DPI)');
    expect(await run('tcp', 42001, 6112, [C(b)])).toBe('Guildwars (DPI)');
    expect(await run('tcp', 42002, 6112, [C(c)])).toBe('Guildwars (DPI)');
    expect(await run('tcp', 42003, 6112, [C(Buffer.concat([a, bytes(0)]))])).not.toBe('Guildwars (DPI)');
    const b2 = Buffer.from(b);
    b2[12] = 0x05;
    expect(await run('tcp', 42004, 6112, [C(b2)])).not.toBe('Guildwars (DPI)');
    const c2 = Buffer.from(c);
    c2[9] = 0x02;
    expect(await run('tcp', 42005, 6112, [C(c2)])).not.toBe('Guildwars (DPI)');
  });
});

// ── EpicGames (epicgames.c) ─────────────────────────────────────────────────
describe('EpicGames (epicgames.c)', () => {
  const hello = (w: number) => Buffer.concat([u32(w), fill(6, 0x77), fill(24, 0), fill(6, 0x55)]);
  const answer = (w: number) => Buffer.concat([u32(w), fill(20, 0x66)]);
  it('the answer from the other nDPI direction repeats the first word with bit 3 set', async () => {
    expect(await run('udp', 42100, 7777, [C(hello(0x12345670)), S(answer(0x12345678))])).toBe('EpicGames (DPI)');
    expect(await run('udp', 42101, 7777, [C(hello(0x12345670)), S(answer(0x12345678))], v6)).toBe('EpicGames (DPI)');
    // another word with bit 3 set is no answer
    expect(await run('udp', 42102, 7777, [C(hello(0x12345670)), S(answer(0x12345679 | 0x08))])).not.toBe('EpicGames (DPI)');
    // bit 3 set in the first word, and a non-zero byte at 33
    expect(await run('udp', 42103, 7777, [C(hello(0x12345678)), S(answer(0x12345678))])).not.toBe('EpicGames (DPI)');
    const dirty = hello(0x12345670);
    dirty[33] = 1;
    expect(await run('udp', 42104, 7777, [C(dirty), S(answer(0x12345678))])).not.toBe('EpicGames (DPI)');
  });

  it('datagrams repeating the first direction wait up to the fourth payload packet', async () => {
    const h = hello(0x00000100);
    expect(await run('udp', 42110, 7777, [C(h), C(h), C(h), S(answer(0x00000108))])).toBe('EpicGames (DPI)');
    expect(await run('udp', 42111, 7777, [C(h), C(h), C(h), C(h), S(answer(0x00000108))])).not.toBe('EpicGames (DPI)');
    // equal ports: IPv4 tells the sides apart by address; IPv6 never does
    expect(await flowAt('udp', '10.0.0.1', '10.0.0.2', 7777, 7777, [C(h), S(answer(0x00000108))])).toBe('EpicGames (DPI)');
    expect(await flowAt('udp', '2001:db8::1', '2001:db8::2', 7777, 7777, [C(h), S(answer(0x00000108))])).not.toBe('EpicGames (DPI)');
  });
});

// ── Heroes of the Storm (hots.c) ────────────────────────────────────────────
describe('Heroes of the Storm (hots.c)', () => {
  const g = (b2: number, b14 = 0x40) => Buffer.concat([bytes(0x11, 0x22, b2, 0x00), fill(10, 0x05), bytes(b14, 0x00), fill(8, 0x09)]);
  it('on its ports, IPv4 only', async () => {
    // (bytes 2-3 03 00, HoTS's other form, are Viber's first: Viber is asked before it)
    expect(await run('udp', 42200, 1120, [C(g(0x34))])).toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 6113, 42201, [C(g(0x34))])).toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 42202, 1119, [C(Buffer.concat([fill(14, 0), bytes(0x40, 0x00), fill(4, 1)]))])).toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 42203, 1120, [C(g(0x34))], v6)).not.toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 42204, 1121, [C(g(0x34))])).not.toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 42205, 1120, [C(g(0x35))])).not.toBe('Heroes_of_the_Storm (DPI)');
    expect(await run('udp', 42206, 1120, [C(g(0x34, 0x41))])).not.toBe('Heroes_of_the_Storm (DPI)');
  });
});

// ── TES Online (teso.c) ─────────────────────────────────────────────────────
describe('TES Online (teso.c)', () => {
  const msg = (n: number, mark: Buffer, lenDelta = 0) => {
    const b = Buffer.concat([u32(n - 4 + lenDelta), fill(100, 0x20), mark, fill(n - 104 - mark.length, 0x20)]);
    return b;
  };
  it('600+ bytes, its length first, "eso.live" or 8B 78 9C 01 inside', async () => {
    expect(await run('tcp', 42300, 24100, [C(msg(600, txt('eso.live')))], v6)).toBe('TES_Online (DPI)');
    expect(await run('tcp', 42301, 24100, [S(msg(700, bytes(0x8b, 0x78, 0x9c, 0x01)))])).toBe('TES_Online (DPI)');
    expect(await run('tcp', 42302, 24100, [C(msg(599, txt('eso.live')))])).not.toBe('TES_Online (DPI)');
    expect(await run('tcp', 42303, 24100, [C(msg(600, txt('eso.live'), 1))])).not.toBe('TES_Online (DPI)');
    expect(await run('tcp', 42304, 24100, [C(msg(600, txt('eso.lime')))])).not.toBe('TES_Online (DPI)');
  });
});

// ── Gaijin Entertainment (gaijin_entertainment.c) ───────────────────────────
describe('Gaijin (gaijin_entertainment.c)', () => {
  it('the 52-byte connection packet and the launcher events over 100 bytes', async () => {
    const conn = (b2: number) => Buffer.concat([u16(0x8fff), bytes(b2, 0x10), u32(0x82ff0001), fill(44, 0x01)]);
    expect(await run('udp', 42400, 20010, [C(conn(0))], v6)).toBe('GaijinEntertainment (DPI)');
    expect(await run('udp', 42401, 20010, [C(conn(1))])).not.toBe('GaijinEntertainment (DPI)');
    const ev = (s: string, n: number) => Buffer.concat([txt(s), fill(n - s.length, 0x20)]);
    expect(await run('udp', 42402, 20010, [C(ev('app.stage', 101))])).toBe('GaijinEntertainment (DPI)');
    expect(await run('udp', 42403, 20010, [C(ev('embeddedupdater.', 101))])).toBe('GaijinEntertainment (DPI)');
    expect(await run('udp', 42404, 20010, [C(ev('app.start', 100))])).not.toBe('GaijinEntertainment (DPI)');
  });
});

// ── NetEase games (netease_games.c) ─────────────────────────────────────────
describe('NetEase games (netease_games.c)', () => {
  const hello = Buffer.concat([bytes(0x01, 0x00), le16(0x01d0), fill(4, 0x33), le32(0x01010100)]);
  it("the 12-byte hello from nDPI's client; the Lost Light and Naraka openings", async () => {
    expect(await run('udp', 42500, 6000, [C(hello)], v6)).toBe('NetEaseGames (DPI)');
    // sent from a port below 1024 to one above: nDPI's client is the receiver
    expect(await run('udp', 900, 42501, [C(hello)])).not.toBe('NetEaseGames (DPI)');
    expect(await run('udp', 1024, 42502, [C(hello)])).toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42503, 900, [C(hello)])).toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42504, 6000, [C(Buffer.concat([hello, bytes(0)]))])).not.toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42505, 6000, [S(Buffer.concat([u32(0xb3af8de8), fill(26)]))])).toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42506, 6000, [S(Buffer.concat([u32(0xb3af8de8), fill(25)]))])).not.toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42507, 6000, [S(Buffer.concat([le32(0x0c080807), fill(27)]))])).toBe('NetEaseGames (DPI)');
    expect(await run('udp', 42508, 6000, [S(Buffer.concat([le32(0x0c080807), fill(26)]))])).not.toBe('NetEaseGames (DPI)');
  });
});

// ── LoL Wild Rift (lol_wild_rift.c) ─────────────────────────────────────────
describe('LoL Wild Rift (lol_wild_rift.c)', () => {
  it('the 22-byte datagram; 69 bytes then 359', async () => {
    expect(await run('udp', 42600, 5100, [C(Buffer.concat([u32(0x0102c841), fill(14), txt('A0B1')]))], v6)).toBe('LoLWildRift (DPI)');
    expect(await run('udp', 42601, 5100, [C(Buffer.concat([u32(0x0102c841), fill(14), txt('A0B2')]))])).not.toBe('LoLWildRift (DPI)');
    const step = Buffer.concat([u32(0x04000000), fill(65)]);
    const big = Buffer.concat([u32(0x10000000), fill(355)]);
    expect(await run('udp', 42602, 5100, [C(step), C(step), S(big)])).toBe('LoLWildRift (DPI)');
    expect(await run('udp', 42603, 5100, [C(big), S(big)])).not.toBe('LoLWildRift (DPI)');
  });
});

// ── CoD Mobile (cod_mobile.c) ───────────────────────────────────────────────
describe('CoD Mobile (cod_mobile.c)', () => {
  it('the ping on 7500 and the loadout packet, up to the fourth payload packet', async () => {
    const ping = Buffer.concat([fill(8, 0x01), txt('ping')]);
    expect(await run('udp', 42700, 7500, [C(ping)], v6)).toBe('CoD_Mobile (DPI)');
    expect(await run('udp', 42701, 7501, [C(ping)])).not.toBe('CoD_Mobile (DPI)');
    const loadout = Buffer.concat([bytes(0xce), fill(200, 0x20), txt('LOC_PREFAB_LOADOUTNAME_1'), fill(150, 0x20)]);
    const junk = fill(40, 0x42);
    expect(await run('udp', 42702, 9000, [C(junk), S(junk), C(junk), S(loadout)])).toBe('CoD_Mobile (DPI)');
    expect(await run('udp', 42703, 9000, [C(junk), S(junk), C(junk), S(junk), C(loadout)])).not.toBe('CoD_Mobile (DPI)');
  });
});

// ── TocaBoca (tocaboca.c) ───────────────────────────────────────────────────
describe('TocaBoca (tocaboca.c)', () => {
  it('eight 0x7d, the first-packet hello, the 32-byte form', async () => {
    expect(await run('udp', 42800, 5056, [C(Buffer.concat([fill(8, 0x7d), fill(5)]))], v6)).toBe('TocaBoca (DPI)');
    const first = Buffer.concat([u32(0xffff0001), fill(8), u32(0x02ff0104), fill(8)]);
    expect(await run('udp', 42801, 5056, [C(first)])).toBe('TocaBoca (DPI)');
    expect(await run('udp', 42802, 5056, [C(fill(30, 0x01)), S(first)])).not.toBe('TocaBoca (DPI)');
    const form = (kind: number) => Buffer.concat([u16(0x1234), u16(kind), fill(8), u32(0x01ff0000), u32(0x14), fill(12)]);
    expect(await run('udp', 42803, 5056, [C(form(3))])).toBe('TocaBoca (DPI)');
    expect(await run('udp', 42804, 5056, [C(form(4))])).not.toBe('TocaBoca (DPI)');
  });
});
