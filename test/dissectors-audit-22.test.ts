// Audit 22: QUIC's detection rules checked against nDPI 4.11's own source
// (src/lib/protocols/quic.c: may_be_initial_pkt, is_version_supported,
// get_clear_payload, get_crypto_data and its reassembler, process_chlo,
// may_be_0rtt, may_be_sh, may_be_gquic_rej, the Version Negotiation and
// Snapchat extra readings). Every Initial is built and protected here from
// the documents: RFC 9000 §17.2.2 (long header), RFC 9001 §5 (v1 salt, key
// schedule, AEAD, header protection), RFC 9369 §3 (v2 salt, labels, type
// bits), draft-ietf-quic-tls-22/-23/-29 §5.2 (draft salts), Chromium's
// initial salts for Q050/T051; Google QUIC's clear CHLO from its public
// header and tag layout; tshark reads the builder's Initials back (v1, v2,
// drafts, a hello over two Initials) as an independent check. What nDPI
// names is named by DPI, a near miss (one detail wrong) is not.

import { execFileSync } from 'node:child_process';
import { createCipheriv, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import type { FlowRecord } from '../ts/bindings/native.js';
import { capturesIn, flowFrames, nameOf } from './fixtures/dissect.js';
import { quicInitial } from './fixtures/apps.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { cat, fill, hex, le16, le32, txt, u16, u32, vec8 } from './fixtures/bytes.js';

const tmp = tempDir('fg-dissectors-audit-22-');
afterAll(() => tmp.cleanup());

type Msg = [boolean, Buffer];
const C4 = '10.0.0.1', S4 = '10.0.0.2', C6 = '2001:db8::1', S6 = '2001:db8::2';
const replay = capturesIn(tmp.dir);
const flowOf = async (cport: number, sport: number, msgs: Msg[], v6 = false): Promise<FlowRecord> => {
  const [f] = await replay(flowFrames('udp', v6 ? C6 : C4, v6 ? S6 : S4, cport, sport, msgs));
  return f!;
};
const run = async (cport: number, sport: number, msgs: Msg[], v6 = false) => nameOf(await flowOf(cport, sport, msgs, v6));
const cli = (...p: Buffer[]): Msg[] => p.map((b) => [true, b]);
const srv = (...p: Buffer[]): Msg[] => p.map((b) => [false, b]);

// ── Keys (RFC 9001 §5.1–5.2, RFC 9369 §3.3) ─────────────────────────────────
const SALT = {
  v1: '38762cf7f55934b34d179ae6a4c80cadccbb7f0a', // RFC 9001 §5.2
  v2: '0dede3def700a6db819381be6e269dcbf9bd2ed9', // RFC 9369 §3.3.1
  d29: 'afbfec289993d24c9e9786f19c6111e04390a899', // draft-ietf-quic-tls-29 §5.2
  d23: 'c3eef712c72ebb5a11a7d2432bb46365bef9f502', // draft-ietf-quic-tls-23 §5.2 (to -28)
  d22: '7fbcdb0e7c66bbe9193a96cd21519ebd7a02644a', // draft-ietf-quic-tls-22 §5.2
  q050: '504574efd066fe2f9d945cfcdbd3a7f0d3b56b45', // Chromium, Q050
  t051: '7a4edef4e7ccee5fa4506c19124fc8ccda6e033d', // Chromium, T051
};
const V1 = 1, V2 = 0x6b3343cf;
const expandLabel = (secret: Buffer, label: string, length: number) => {
  const full = txt(`tls13 ${label}`);
  const info = cat(u16(length), Buffer.from([full.length]), full, Buffer.from([0, 1]));
  return createHmac('sha256', secret).update(info).digest().subarray(0, length);
};
/** QUIC's variable-length integer (RFC 9000 §16), the shortest form. */
const vi = (v: number) => (v < 64 ? Buffer.from([v]) : v < 16384 ? u16(0x4000 | v) : u32(0x80000000 + v));

interface Initial {
  version: number;
  salt: keyof typeof SALT;
  v2labels?: boolean; // "quicv2 key/iv/hp" (RFC 9369 §3.3.2)
  frames: Buffer; // the plaintext, PADDING frames added up to `size`
  first?: number; // the first byte before protection: form, fixed bit, type, packet number length
  dcid?: Buffer;
  scid?: Buffer;
  keyDcid?: Buffer; // the DCID the keys come from (RFC 9001 §5.2), if not this packet's
  side?: 'client in' | 'server in';
  size?: number; // UDP payload
}
const DCID = hex('8394c8f03e515708');
/** A protected long-header packet (RFC 9000 §17.2, RFC 9001 §5.3–5.4). */
function initial(o: Initial): Buffer {
  const first = o.first ?? 0xc3, pnLen = (first & 3) + 1;
  const dcid = o.dcid ?? DCID, scid = o.scid ?? Buffer.alloc(0);
  const secret = createHmac('sha256', hex(SALT[o.salt])).update(o.keyDcid ?? dcid).digest();
  const side = expandLabel(secret, o.side ?? 'client in', 32);
  const p = o.v2labels ? 'quicv2' : 'quic';
  const key = expandLabel(side, `${p} key`, 16), iv = expandLabel(side, `${p} iv`, 12), hp = expandLabel(side, `${p} hp`, 16);
  const head0 = cat(Buffer.from([first]), u32(o.version), vec8(dcid), vec8(scid), vi(0));
  const plainLen = (o.size ?? 1200) - head0.length - 2 - pnLen - 16;
  if (o.frames.length > plainLen) throw new Error('frames too long');
  const plain = cat(o.frames, Buffer.alloc(plainLen - o.frames.length));
  const pn = Buffer.alloc(pnLen);
  const head = cat(head0, u16(0x4000 | (pnLen + plainLen + 16)), pn);
  const gcm = createCipheriv('aes-128-gcm', key, iv); // packet number 0: the nonce is the IV
  gcm.setAAD(head);
  const sealed = cat(gcm.update(plain), gcm.final(), gcm.getAuthTag());
  const mask = createCipheriv('aes-128-ecb', hp, null).update(sealed.subarray(4 - pnLen, 20 - pnLen));
  const out = cat(head, sealed);
  out[0] ^= mask[0]! & (first & 0x80 ? 0x0f : 0x1f);
  for (let i = 0; i < pnLen; i++) out[head.length - pnLen + i] ^= mask[1 + i]!;
  return out;
}
/** CRYPTO (RFC 9000 §19.6), PING, ACK frames. */
const crypto = (off: number, data: Buffer) => cat(Buffer.from([0x06]), vi(off), vi(data.length), data);
const PING = Buffer.from([0x01]);
const ACK = hex('02 00 00 00 00');

/** A TLS 1.3 ClientHello (handshake message, RFC 8446 §4.1.2); `big` bytes of key share before the SNI when asked. */
function hello(sni: string, o: { alpn?: string[]; big?: number; tp?: Buffer; tpType?: number } = {}): Buffer {
  const ext = (type: number, body: Buffer) => cat(u16(type), u16(body.length), body);
  const name = txt(sni);
  const sniExt = ext(0, cat(u16(name.length + 3), Buffer.from([0]), u16(name.length), name));
  const names = cat(...(o.alpn ?? ['h3']).map((a) => vec8(txt(a))));
  const exts = cat(
    ext(0x2b, hex('02 0304')),
    ext(0x0a, hex('0002 001d')),
    o.big ? ext(0x33, cat(u16(o.big + 4), u16(0x11ec), u16(o.big), fill(o.big, 0x77))) : Buffer.alloc(0),
    sniExt,
    ext(0x10, cat(u16(names.length), names)),
    o.tp ? ext(o.tpType ?? 0x39, o.tp) : Buffer.alloc(0),
  );
  const body = cat(hex('0303'), fill(32, 0x5a), hex('00'), u16(6), hex('1301 1302 1303'), hex('0100'), u16(exts.length), exts);
  return cat(Buffer.from([1]), Buffer.from([body.length >> 16, (body.length >> 8) & 255, body.length & 255]), body);
}
const v1Initial = (h: Buffer, o: Partial<Initial> = {}) => initial({ version: V1, salt: 'v1', frames: crypto(0, h), ...o });

// ── Google QUIC in clear: the CHLO (tag count, per tag its name and end offset, then the values) ──
function chlo(tags: [string, Buffer][]): Buffer {
  let end = 0;
  const index = tags.map(([t, v]) => cat(txt(t), le32((end += v.length))));
  return cat(txt('CHLO'), le16(tags.length), Buffer.alloc(2), ...index, ...tags.map(([, v]) => v));
}
const pad = (b: Buffer, n = 1350) => cat(b, Buffer.alloc(Math.max(0, n - b.length)));
/** Q043 (public header 0x09: version, 8-byte CID, 1-byte packet number, 12-byte hash; stream 1 frame). */
const q043 = (m: Buffer, first = 0x09) =>
  pad(cat(Buffer.from([first]), fill(8, 0x11), txt('Q043'), Buffer.from([1]), fill(12, 0x22), Buffer.from([0xa0, 0x01]), u16(m.length), m));
/** Q046 (long header 0xc3, 0x50: 8-byte DCID, 4-byte packet number, 12-byte hash). */
const q046 = (m: Buffer, first = 0xc3, cids = 0x50) =>
  pad(cat(Buffer.from([first]), txt('Q046'), Buffer.from([cids]), fill(8, 0x11), hex('00000001'), fill(12, 0x22), Buffer.from([0xa0, 0x01]), u16(m.length), m));
/** Q050 / T05x: IETF framing, a type-0x08 stream frame with varint offset and length. */
const frame08 = (data: Buffer) => cat(Buffer.from([0x08]), vi(0), vi(data.length), data);
const sniTag = (s: string): [string, Buffer] => ['SNI\0', txt(s)];

// ── The builder against independent readers ─────────────────────────────────
describe('the Initials built here', () => {
  it("are the fixture's v1 Initial byte for byte, and tshark decrypts every version's and reads the SNI", () => {
    const yt = hello('www.youtube.com');
    expect(v1Initial(yt).equals(quicInitial(yt))).toBe(true);
    const big = hello('www.youtube.com', { big: 1500 });
    // one connection (DCID, port) per version, the split hello's two Initials on one
    const cid = (n: number) => fill(8, n);
    const pkts: [string, Buffer][] = [
      ['v1', v1Initial(yt, { dcid: cid(1) })],
      ['v2', initial({ version: V2, salt: 'v2', v2labels: true, first: 0xd3, frames: crypto(0, yt), dcid: cid(2) })],
      ['d29', initial({ version: 0xff00001d, salt: 'd29', frames: crypto(0, yt), dcid: cid(3) })],
      ['d27', initial({ version: 0xff00001b, salt: 'd23', frames: crypto(0, yt), dcid: cid(4) })],
      ['split', v1Initial(big, { frames: crypto(0, big.subarray(0, 1000)), dcid: cid(5) })],
      ['split', v1Initial(big, { frames: crypto(1000, big.subarray(1000)), dcid: cid(5) })],
    ];
    const file = join(tmp.dir, 'tshark.pcap');
    const port = (i: number) => 50900 + Math.min(i, 4);
    writeFileSync(file, pcap(pkts.map(([, p], i) => ({ tsNs: sec(1700000000 + i), data: flowFrames('udp', C4, S4, port(i), 443, [[true, p]])[0]! }))));
    const out = execFileSync('tshark', ['-n', '-r', file, '-T', 'fields', '-e', 'quic.version', '-e', 'tls.handshake.extensions_server_name'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim().split('\n');
    const sni = 'www.youtube.com';
    expect(out).toEqual([`0x00000001\t${sni}`, `0x6b3343cf\t${sni}`, `0xff00001d\t${sni}`, `0xff00001b\t${sni}`, '0x00000001\t', `0x00000001\t${sni}`]);
  });
});

// ── IETF QUIC Initials ──────────────────────────────────────────────────────
describe('QUIC Initials (may_be_initial_pkt, get_clear_payload)', () => {
  const yt = hello('www.youtube.com');
  it('v1 and v2 (its own salt, labels and Initial type 1) name the app by SNI, IPv4 and IPv6', async () => {
    expect(await run(50001, 443, cli(v1Initial(yt)))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50002, 443, cli(v1Initial(yt)), true)).toBe('QUIC.YouTube (DPI)');
    const v2 = initial({ version: V2, salt: 'v2', v2labels: true, first: 0xd3, frames: crypto(0, yt) });
    expect(await run(50003, 443, cli(v2))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50004, 443, cli(v2), true)).toBe('QUIC.YouTube (DPI)');
  });
  it("v2 with v1's Initial type, or under 1200 bytes: no Initial (and nothing else), so no QUIC", async () => {
    const v2 = initial({ version: V2, salt: 'v2', v2labels: true, first: 0xc3, frames: crypto(0, yt) });
    expect(await run(50005, 4433, cli(v2))).not.toMatch(/^QUIC/);
    const small = v1Initial(yt, { size: 1199 });
    expect(await run(50006, 4433, cli(small))).not.toMatch(/^QUIC/);
    expect(await run(50007, 4433, cli(v1Initial(yt, { size: 1200 })))).toBe('QUIC.YouTube (DPI)');
  });
  it('the fixed bit is not required (only forced negotiation needs it); a datagram over 2048 bytes is read', async () => {
    expect(await run(50008, 443, cli(v1Initial(yt, { first: 0x83 })))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50009, 443, cli(v1Initial(yt, { size: 2500 })))).toBe('QUIC.YouTube (DPI)');
  });
  it('a CID over 20 bytes is no Initial; an empty DCID is QUIC without reading it', async () => {
    expect(await run(50010, 4433, cli(v1Initial(yt, { dcid: fill(21, 3) })))).not.toMatch(/^QUIC/);
    expect(await run(50011, 4433, cli(v1Initial(yt, { scid: fill(21, 3) })))).not.toMatch(/^QUIC/);
    expect(await run(50012, 4433, cli(v1Initial(yt, { dcid: fill(20, 3), scid: fill(20, 4) })))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50013, 4433, cli(v1Initial(yt, { dcid: Buffer.alloc(0), keyDcid: Buffer.alloc(0) })))).toBe('QUIC (DPI)');
  });
  it("a server's Initial (either direction) is QUIC by its shape, first packet of the flow or not", async () => {
    const reply = v1Initial(yt, { dcid: fill(8, 9), keyDcid: DCID, side: 'server in' });
    expect(await run(50014, 443, srv(reply))).toBe('QUIC (DPI)');
    expect(await run(50015, 443, srv(reply), true)).toBe('QUIC (DPI)');
  });
});

describe('QUIC versions (is_version_supported, quic_derive_initial_secrets)', () => {
  const yt = hello('www.youtube.com');
  const fb = hello('graph.facebook.com');
  it('drafts 23–28 take the draft-23 salt, 29–32 the draft-29 one; mvfst 27 the draft-23 one', async () => {
    expect(await run(50100, 443, cli(initial({ version: 0xff00001b, salt: 'd23', frames: crypto(0, yt) })))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50101, 443, cli(initial({ version: 0xff00001d, salt: 'd29', frames: crypto(0, yt) })), true)).toBe('QUIC.YouTube (DPI)');
    expect(await run(50102, 443, cli(initial({ version: 0xff00001d, salt: 'v1', frames: crypto(0, yt) })))).toBe('QUIC (DPI)');
    expect(await run(50103, 443, cli(initial({ version: 0xfaceb002, salt: 'd23', frames: crypto(0, fb) })))).toBe('QUIC.Facebook (DPI)');
  });
  it('drafts before 23 are QUIC but not read; mvfst 22 is, with the draft-22 salt', async () => {
    expect(await run(50104, 443, cli(initial({ version: 0xff000016, salt: 'd22', frames: crypto(0, yt) })))).toBe('QUIC (DPI)');
    expect(await run(50105, 443, cli(initial({ version: 0xfaceb001, salt: 'd22', frames: crypto(0, fb) })))).toBe('QUIC.Facebook (DPI)');
  });
  it("drafts past 34 are read with v2's salt and labels (and v1's Initial type)", async () => {
    const d35 = (salt: keyof typeof SALT, v2labels: boolean) => initial({ version: 0xff000023, salt, v2labels, frames: crypto(0, yt) });
    expect(await run(50106, 443, cli(d35('v2', true)))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50107, 443, cli(d35('v1', false)))).toBe('QUIC (DPI)');
  });
  it('any 0xfaceb??? version is QUIC (mvfst), unread unless known; an unknown version is not QUIC', async () => {
    expect(await run(50108, 4433, cli(initial({ version: 0xfaceb123, salt: 'd23', frames: crypto(0, fb) })))).toBe('QUIC (DPI)');
    expect(await run(50109, 4433, cli(initial({ version: 0xfacec001, salt: 'd23', frames: crypto(0, fb) })))).not.toMatch(/^QUIC/);
  });
  it('T051 (TLS, its salt, v1 labels) and Q050 (CHLO, its salt) in a type-0x08 frame', async () => {
    expect(await run(50110, 443, cli(initial({ version: 0x54303531, salt: 't051', frames: frame08(yt) })))).toBe('QUIC.YouTube (DPI)');
    const m = chlo([['PAD\0', fill(16, 0)], sniTag('www.youtube.com'), ['VER\0', txt('Q050')]]);
    expect(await run(50111, 443, cli(initial({ version: 0x51303530, salt: 'q050', frames: frame08(m) })), true)).toBe('QUIC.YouTube (DPI)');
    // T051 read as IETF QUIC (CRYPTO frame) is not its framing
    expect(await run(50112, 443, cli(initial({ version: 0x54303531, salt: 't051', frames: crypto(0, yt) })))).toBe('QUIC (DPI)');
  });
});

describe('Google QUIC in clear (Q043, Q046: get_clear_payload, process_chlo)', () => {
  const m = (...t: [string, Buffer][]) => chlo([['PAD\0', fill(16, 0)], ...t, ['VER\0', txt('Q043')]]);
  it('Q043 and Q046 CHLOs name the app by their SNI tag, IPv4 and IPv6', async () => {
    expect(await run(50200, 443, cli(q043(m(sniTag('www.youtube.com')))))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50201, 443, cli(q046(m(sniTag('www.youtube.com')))), true)).toBe('QUIC.YouTube (DPI)');
  });
  it('Q043 needs its public-header flags (a long header is not it); Q046 its two low bits; Q046 another CID byte is QUIC unread', async () => {
    expect(await run(50202, 4433, cli(q043(m(sniTag('www.youtube.com')), 0xc3)))).not.toMatch(/^QUIC/);
    expect(await run(50203, 4433, cli(q043(m(sniTag('www.youtube.com')), 0x19)))).not.toMatch(/^QUIC/);
    expect(await run(50204, 4433, cli(q046(m(sniTag('www.youtube.com')), 0xc1)))).not.toMatch(/^QUIC/);
    expect(await run(50205, 4433, cli(q046(m(sniTag('www.youtube.com')), 0xc3, 0x08)))).toBe('QUIC (DPI)');
  });
  it('no SNI tag: Missing SNI; an SNI with a space: invalid characters and a possible exploit', async () => {
    const none = await flowOf(50206, 443, cli(q043(m(['UAID', txt('Chrome/120.0 Linux x86_64')]))));
    expect(nameOf(none)).toBe('QUIC (DPI)');
    expect(none.risks).toContain('Missing SNI TLS Extn');
    const bad = await flowOf(50207, 443, cli(q043(m(sniTag('www.exa mple.com')))));
    expect(bad.risks).toEqual(expect.arrayContaining(['Non-Printable/Invalid Chars Detected', 'Possible Exploit Attempt']));
    const good = await flowOf(50208, 443, cli(q043(m(sniTag('www.example.com')))));
    expect(good.risks).not.toContain('Missing SNI TLS Extn');
    expect(good.risks).not.toContain('Non-Printable/Invalid Chars Detected');
  });
  it("UAID is the client's User-Agent, checked as HTTP's; read once SNI and UAID are both there", async () => {
    const bot = await flowOf(50209, 443, cli(q043(m(sniTag('www.example.com'), ['UAID', txt('Mozilla/5.0 (compatible; Googlebot/2.1)')]))));
    expect(bot.risks).toContain('Crawler/Bot');
    const odd = await flowOf(50210, 443, cli(q043(m(sniTag('www.example.com'), ['UAID', txt('test agent')]))));
    expect(odd.risks).toContain('HTTP Susp User-Agent');
    const fine = await flowOf(50211, 443, cli(q043(m(sniTag('www.example.com'), ['UAID', txt('Chrome/120.0 Linux x86_64')]))));
    expect(fine.risks).not.toContain('HTTP Susp User-Agent');
    // an empty SNI after the UAID: the walk stops there, before the missing-SNI check
    const empty = await flowOf(50212, 443, cli(q043(m(['UAID', txt('Chrome/120.0 Linux x86_64')], sniTag('')))));
    expect(empty.risks).not.toContain('Missing SNI TLS Extn');
    const alone = await flowOf(50213, 443, cli(q043(m(sniTag('')))));
    expect(alone.risks).toContain('Missing SNI TLS Extn');
  });
});

// ── tls.c on a QUIC hello: the transport parameters' user agent (0x3129) ──
describe("QUIC transport parameters: Google's user agent (tls.c, http_process_user_agent)", () => {
  // RFC 9000 §18: id and length as varints; before draft 27, a 16-bit list length, 16-bit ids and lengths
  const tpVar = (id: number, v: Buffer) => cat(vi(0x01), vi(2), u16(30000), vi(id), vi(v.length), v);
  const tpOld = (id: number, v: Buffer) => {
    const list = cat(u16(0x01), u16(2), u16(30000), u16(id), u16(v.length), v);
    return cat(u16(list.length), list);
  };
  const ua = (s: string) => txt(s);
  it('a suspicious or crawler user agent raises the HTTP risks; a browser one does not', async () => {
    const odd = await flowOf(50250, 443, cli(v1Initial(hello('www.example.com', { tp: tpVar(0x3129, ua('test client')) }))));
    expect(nameOf(odd)).toBe('QUIC (DPI)');
    expect(odd.risks).toContain('HTTP Susp User-Agent');
    const bot = await flowOf(50251, 443, cli(v1Initial(hello('www.example.com', { tp: tpVar(0x3129, ua('Chrome/120 Googlebot')) }))), true);
    expect(bot.risks).toContain('Crawler/Bot');
    const fine = await flowOf(50252, 443, cli(v1Initial(hello('www.example.com', { tp: tpVar(0x3129, ua('Chrome/120.0.6099.71 Windows NT 10.0; Win64; x64')) }))));
    expect(fine.risks).not.toContain('HTTP Susp User-Agent');
  });
  it('another parameter id, or the pre-27 encoding read with varints, is no user agent', async () => {
    expect((await flowOf(50253, 443, cli(v1Initial(hello('www.example.com', { tp: tpVar(0x3128, ua('test client')) }))))).risks).not.toContain('HTTP Susp User-Agent');
    const d23 = (tp: Buffer) => initial({ version: 0xff000017, salt: 'd23', frames: crypto(0, hello('www.example.com', { tp, tpType: 0xffa5 })) });
    expect((await flowOf(50254, 443, cli(d23(tpOld(0x3129, ua('test client')))))).risks).toContain('HTTP Susp User-Agent');
    expect((await flowOf(50255, 443, cli(d23(tpVar(0x3129, ua('test client')))))).risks).not.toContain('HTTP Susp User-Agent');
  });
});

// ── The ClientHello over several CRYPTO frames and Initials (get_crypto_data, __reassemble) ──
describe('CRYPTO reassembly', () => {
  const big = hello('www.youtube.com', { big: 1500 }); // the SNI after 1.5 kB of key share
  const cut = 1000;
  it('a hello over two Initials is read once whole: the SNI in the second part names it, IPv4 and IPv6', async () => {
    const a = v1Initial(big, { frames: crypto(0, big.subarray(0, cut)) });
    const b = v1Initial(big, { frames: crypto(cut, big.subarray(cut)) });
    expect(await run(50300, 443, cli(a, b))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50301, 443, cli(a, b), true)).toBe('QUIC.YouTube (DPI)');
    // the parts in the other order, a server packet between them
    expect(await run(50302, 443, [[true, b], [false, fill(60, 0x45)], [true, a]])).toBe('QUIC.YouTube (DPI)');
  });
  it('the second Initial is opened with the first one\'s DCID keys, whatever its own DCID', async () => {
    const a = v1Initial(big, { frames: crypto(0, big.subarray(0, cut)) });
    const other = fill(8, 0x66);
    const byFirst = v1Initial(big, { frames: crypto(cut, big.subarray(cut)), dcid: other, keyDcid: DCID });
    const byOwn = v1Initial(big, { frames: crypto(cut, big.subarray(cut)), dcid: other });
    expect(await run(50303, 443, cli(a, byFirst))).toBe('QUIC.YouTube (DPI)');
    expect(await run(50304, 443, cli(a, byOwn))).toBe('QUIC (DPI)');
  });
  it('a hello never whole is not read, even with its SNI in the first part', async () => {
    const early = hello('www.youtube.com', { alpn: ['h3', 'x'.repeat(200)], big: 0 });
    const sniFirst = Buffer.from(early);
    expect(await run(50305, 443, cli(v1Initial(sniFirst, { frames: crypto(0, sniFirst.subarray(0, sniFirst.length - 20)) })))).toBe('QUIC (DPI)');
    // a CRYPTO frame longer than the hello it holds is not a whole hello either
    expect(await run(50306, 443, cli(v1Initial(early, { frames: crypto(0, cat(early, fill(10, 0))) })))).toBe('QUIC (DPI)');
  });
  it('frames out of order in one Initial, PING and PADDING between: read; an ACK before the hello ends the reading', async () => {
    const h = hello('www.youtube.com');
    const parts = cat(crypto(60, h.subarray(60)), PING, Buffer.alloc(5), crypto(30, h.subarray(30, 60)), crypto(0, h.subarray(0, 30)));
    expect(await run(50307, 443, cli(v1Initial(h, { frames: parts })))).toBe('QUIC.YouTube (DPI)');
    // an empty frame past the hello's end, read first, moves the furthest byte: never whole
    expect(await run(50310, 443, cli(v1Initial(h, { frames: cat(crypto(h.length + 1, Buffer.alloc(0)), parts) })))).toBe('QUIC (DPI)');
    expect(await run(50308, 443, cli(v1Initial(h, { frames: cat(ACK, crypto(0, h)) })))).toBe('QUIC (DPI)');
    expect(await run(50309, 443, cli(v1Initial(h, { frames: cat(crypto(0, h), ACK) })))).toBe('QUIC.YouTube (DPI)');
  });
});

// ── Without an Initial (ndpi_search_quic's heuristics) ───────────────────────
describe('0-RTT, short headers, REJ (may_be_0rtt, may_be_sh, may_be_gquic_rej)', () => {
  const longHdr = (first: number, version = V1, dcidLen = 8) => cat(Buffer.from([first]), u32(version), vec8(fill(dcidLen, 0x31)), vec8(Buffer.alloc(0)), fill(60, 0x99));
  const zeroRtt = longHdr(0xd3), handshake = longHdr(0xe3);
  it('0-RTT waits for the Initial: three packets, or another packet after it, name the flow QUIC', async () => {
    expect(await run(50400, 4433, cli(zeroRtt, zeroRtt, zeroRtt))).toBe('QUIC (DPI)');
    expect(await run(50401, 4433, cli(zeroRtt, handshake))).toBe('QUIC (DPI)');
    expect(await run(50402, 4433, cli(zeroRtt, zeroRtt), true)).not.toMatch(/^QUIC/);
    expect(await run(50403, 4433, cli(zeroRtt, v1Initial(hello('www.youtube.com'))))).toBe('QUIC.YouTube (DPI)');
    // v2's 0-RTT is type 2 (RFC 9369 §3.2)
    expect(await run(50404, 4433, cli(longHdr(0xe3, V2), handshake))).toBe('QUIC (DPI)');
  });
  it('near misses: a Handshake packet, a 21-byte CID, a gQUIC version are no 0-RTT', async () => {
    expect(await run(50405, 4433, cli(handshake, handshake, handshake))).not.toMatch(/^QUIC/);
    expect(await run(50406, 4433, cli(longHdr(0xd3, V1, 21), handshake, handshake))).not.toMatch(/^QUIC/);
    expect(await run(50407, 4433, cli(longHdr(0xd3, 0x51303530), handshake, handshake))).not.toMatch(/^QUIC/);
  });
  const sh = (last: number, cid = fill(8, 0x5c)) => cat(Buffer.from([0x43]), cid, fill(40, 0x21), Buffer.from([last]));
  it('three client short headers to 443 with the same 8 bytes after the first and different last bytes: QUIC', async () => {
    expect(await run(50410, 443, cli(sh(1), sh(2), sh(3)))).toBe('QUIC (DPI)');
    expect(await run(50411, 443, cli(sh(1), sh(2), sh(3)), true)).toBe('QUIC (DPI)');
    // the server's packets (from 443) wait
    expect(await run(50412, 443, [[true, sh(1)], [false, sh(9, fill(8, 1))], [true, sh(2)], [false, sh(9, fill(8, 2))], [true, sh(3)]])).toBe('QUIC (DPI)');
  });
  it('near misses: a repeated last byte, another CID, the fixed bit clear, another port, past the tenth packet', async () => {
    expect(await run(50413, 443, cli(sh(1), sh(2), sh(2), sh(3)))).not.toBe('QUIC (DPI)');
    expect(await run(50414, 443, cli(sh(1), sh(2, fill(8, 0x5d)), sh(3)))).not.toBe('QUIC (DPI)');
    const noFixed = (last: number) => cat(Buffer.from([0x03]), fill(8, 0x5c), fill(40, 0x21), Buffer.from([last]));
    expect(await run(50415, 443, cli(noFixed(1), noFixed(2), noFixed(3)))).not.toBe('QUIC (DPI)');
    expect(await run(50416, 4443, cli(sh(1), sh(2), sh(3)))).not.toMatch(/^QUIC/);
    const server = (n: number): Msg[] => Array.from({ length: n }, (_, i) => [false, sh(i, fill(8, 7))] as Msg);
    // nDPI gives up on the second short header past the tenth packet; the third names it up to the eleventh
    expect(await run(50417, 443, [...server(8), ...cli(sh(1), sh(2), sh(3))])).toBe('QUIC (DPI)');
    expect(await run(50418, 443, [...server(9), ...cli(sh(1), sh(2), sh(3))])).not.toBe('QUIC (DPI)');
  });
  it("the heuristic's state is kept in the flow's TLS entry: no metadata shown for a flow it does not name", async () => {
    const miss = await flowOf(50419, 443, cli(sh(1), sh(2)));
    expect(nameOf(miss)).not.toBe('QUIC (DPI)');
    expect(miss.tls).toBeUndefined();
    expect((await flowOf(50409, 443, cli(sh(1), sh(2), sh(3)))).tls?.quic).toBe(true);
  });
  const rej = (at = 0) => cat(Buffer.from([0x08]), fill(8, 0x44), Buffer.from([1]), fill(12, 0x55), fill(at, 0x20), txt('REJ\0'), fill(40, 0x66));
  it("a gQUIC REJ from port 443 (a capture of the server's side) is QUIC; not later than 16 bytes after the hash, nor from another port", async () => {
    expect(await run(50420, 443, srv(rej()))).toBe('QUIC (DPI)');
    expect(await run(50421, 443, srv(rej(12)), true)).toBe('QUIC (DPI)');
    expect(await run(50422, 443, srv(rej(13)))).not.toBe('QUIC (DPI)');
    expect(await run(50423, 8443, srv(rej()))).not.toMatch(/^QUIC/);
    expect(await run(50424, 443, cli(rej()))).not.toBe('QUIC (DPI)');
  });
});

describe('Version Negotiation (ndpi_search_quic_extra_vn)', () => {
  const forcing = pad(cat(hex('c3 1a2a3a4a'), vec8(DCID), vec8(Buffer.alloc(0))), 1200);
  const vn = cat(hex('80 00000000'), vec8(fill(8, 0x12)), vec8(DCID), u32(V1));
  const yt = v1Initial(hello('www.youtube.com'));
  it('a forcing Initial is QUIC; after the server\'s VN the client\'s next Initial names it, IPv4 and IPv6', async () => {
    expect(await run(50500, 443, cli(forcing))).toBe('QUIC (DPI)');
    expect(await run(50501, 443, [[true, forcing], [false, vn], [true, yt]])).toBe('QUIC.YouTube (DPI)');
    expect(await run(50502, 443, [[true, forcing], [false, vn], [true, yt]], true)).toBe('QUIC.YouTube (DPI)');
  });
  it('without the VN in between, or with a VN of another version, the flow stays QUIC', async () => {
    expect(await run(50503, 443, cli(forcing, yt))).toBe('QUIC (DPI)');
    const notVn = Buffer.from(vn);
    notVn.writeUInt32BE(1, 1);
    expect(await run(50504, 443, [[true, forcing], [false, notVn], [true, yt]])).toBe('QUIC (DPI)');
    // forced negotiation needs the fixed bit
    const noFixed = Buffer.from(forcing);
    noFixed[0] = 0x83;
    expect(await run(50505, 4433, cli(noFixed))).not.toMatch(/^QUIC/);
  });
});

describe('Snapchat calls: RTP after the QUIC packets (eval_extra_processing)', () => {
  const rtp = cat(hex('80 60 0001 00000001 12345678'), fill(40, 0x33));
  const shortHdr = cat(Buffer.from([0x45]), fill(30, 9));
  it('v1 to *.addlive.io: the first packet without the fixed bit, RTP, makes it a Snapchat call', async () => {
    const a = v1Initial(hello('media.addlive.io'));
    expect(await run(50600, 443, [[true, a], [false, shortHdr], [false, rtp]])).toBe('QUIC.SnapchatCall (DPI)');
    expect(await run(50601, 443, [[true, a], [false, shortHdr], [false, fill(40, 0)]])).toBe('QUIC.Snapchat (DPI)');
  });
  it('v2, or the bare addlive.io, stay Snapchat', async () => {
    const v2 = initial({ version: V2, salt: 'v2', v2labels: true, first: 0xd3, frames: crypto(0, hello('media.addlive.io')) });
    expect(await run(50602, 443, [[true, v2], [false, rtp]])).toBe('QUIC.Snapchat (DPI)');
    expect(await run(50603, 443, [[true, v1Initial(hello('addlive.io'))], [false, rtp]])).toBe('QUIC.Snapchat (DPI)');
  });
  it('Q046 without SNI still reads on for RTP; with an SNI it does not', async () => {
    const m = (...t: [string, Buffer][]) => chlo([['PAD\0', fill(16, 0)], ...t, ['VER\0', txt('Q046')]]);
    expect(await run(50604, 443, [[true, q046(m())], [false, rtp]])).toBe('QUIC.SnapchatCall (DPI)');
    expect(await run(50605, 443, [[true, q046(m(sniTag('www.example.com')))], [false, rtp]])).toBe('QUIC (DPI)');
  });
});
