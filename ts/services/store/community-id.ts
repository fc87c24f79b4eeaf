// ⑧ Community ID v1 (github.com/corelight/community-id-spec), seed 0, for
// the flows table's COMMUNITY_ID: '1:' + base64(SHA-1 over seed, addresses,
// protocol, pad, ports), the smaller endpoint first, ICMP types/codes
// standing in for ports (request/reply types paired).
//
// The hash runs here in JS over reused buffers and its text goes straight
// into bytes: the message is at most 40 bytes (two IPv6 addresses), one
// SHA-1 block, and node:crypto's one-shot hash cost ~8 % of the writer's
// insert path in object and string allocation alone (FIPS 180-4, §6.1).

import { isV4Mapped } from '../../bindings/ip-text.js';

const ICMP4_PAIR: Record<number, number> = { 8: 0, 0: 8, 13: 14, 14: 13, 15: 16, 16: 15, 10: 9, 9: 10, 17: 18, 18: 17 };
const ICMP6_PAIR: Record<number, number> = { 128: 129, 129: 128, 133: 134, 134: 133, 135: 136, 136: 135, 130: 131, 131: 130, 144: 145, 145: 144 };

/** bytes of a Community ID's text: '1:' and 28 base64 characters */
export const COMMUNITY_ID_LEN = 30;

const msg = new Uint8Array(64);
const W = new Int32Array(80);
const H = new Int32Array(5);
const B64 = new TextEncoder().encode('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');

/** SHA-1 of msg[0..n), n ≤ 55 (a single padded block), into H. */
function sha1(n: number): void {
  msg.fill(0, n, 64);
  msg[n] = 0x80;
  for (let i = 0; i < 16; i++) W[i] = (msg[4 * i] << 24) | (msg[4 * i + 1] << 16) | (msg[4 * i + 2] << 8) | msg[4 * i + 3];
  W[15] = n * 8;
  for (let i = 16; i < 80; i++) {
    const x = W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16];
    W[i] = (x << 1) | (x >>> 31);
  }
  const h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0;
  let a = h0, b = h1, c = h2, d = h3, e = h4, t = 0, i = 0;
  // the four round functions in their own loops (no branch per round)
  for (; i < 20; i++) {
    t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[i]) | 0;
    (e = d), (d = c), (c = (b << 30) | (b >>> 2)), (b = a), (a = t);
  }
  for (; i < 40; i++) {
    t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[i]) | 0;
    (e = d), (d = c), (c = (b << 30) | (b >>> 2)), (b = a), (a = t);
  }
  for (; i < 60; i++) {
    t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + W[i]) | 0;
    (e = d), (d = c), (c = (b << 30) | (b >>> 2)), (b = a), (a = t);
  }
  for (; i < 80; i++) {
    t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + W[i]) | 0;
    (e = d), (d = c), (c = (b << 30) | (b >>> 2)), (b = a), (a = t);
  }
  H[0] = (h0 + a) | 0;
  H[1] = (h1 + b) | 0;
  H[2] = (h2 + c) | 0;
  H[3] = (h3 + d) | 0;
  H[4] = (h4 + e) | 0;
}

/** byte i of the digest in H */
const hb = (i: number) => (H[i >> 2] >>> (24 - 8 * (i & 3))) & 0xff;

/**
 * Writes the Community ID of a flow at out[at..at+30): `b` holds the client
 * and server addresses (16 bytes each, IPv4 v4-mapped) at `cli`/`srv`.
 */
export function communityIdInto(
  b: Uint8Array,
  cli: number,
  srv: number,
  proto: number,
  sport: number,
  dport: number,
  icmpType: number,
  icmpCode: number,
  out: Uint8Array,
  at: number,
): void {
  const v4 = isV4Mapped(b, cli);
  const alen = v4 ? 4 : 16;
  let s = v4 ? cli + 12 : cli;
  let d = v4 ? srv + 12 : srv;
  let oneWay = false;
  if (proto === 1 || proto === 58) {
    const pair = (proto === 1 ? ICMP4_PAIR : ICMP6_PAIR)[icmpType];
    sport = icmpType;
    if (pair === undefined) (dport = icmpCode), (oneWay = true);
    else dport = pair;
  }
  if (!oneWay) {
    let c = 0;
    for (let i = 0; i < alen && c === 0; i++) c = b[s + i] - b[d + i];
    if (c > 0 || (c === 0 && sport > dport)) {
      const t = s;
      (s = d), (d = t);
      const p = sport;
      (sport = dport), (dport = p);
    }
  }
  let o = 0;
  msg[o++] = 0;
  msg[o++] = 0; // seed
  for (let i = 0; i < alen; i++) msg[o++] = b[s + i];
  for (let i = 0; i < alen; i++) msg[o++] = b[d + i];
  msg[o++] = proto;
  msg[o++] = 0;
  if (proto === 6 || proto === 17 || proto === 132 || proto === 1 || proto === 58) {
    msg[o++] = sport >> 8;
    msg[o++] = sport & 0xff;
    msg[o++] = dport >> 8;
    msg[o++] = dport & 0xff;
  }
  sha1(o);
  out[at] = 0x31; // '1'
  out[at + 1] = 0x3a; // ':'
  let w = at + 2;
  // 20 bytes: six groups of three, then two bytes and one '='
  for (let i = 0; i < 18; i += 3) {
    const x = (hb(i) << 16) | (hb(i + 1) << 8) | hb(i + 2);
    out[w++] = B64[x >> 18];
    out[w++] = B64[(x >> 12) & 63];
    out[w++] = B64[(x >> 6) & 63];
    out[w++] = B64[x & 63];
  }
  const x = (hb(18) << 8) | hb(19);
  out[w++] = B64[x >> 10];
  out[w++] = B64[(x >> 4) & 63];
  out[w++] = B64[(x << 2) & 63];
  out[w] = 0x3d; // '='
}
