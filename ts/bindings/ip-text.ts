// ⑦ Address text, shared by the engine's record decoders and the flow
// store's worker (which must not load the addon).

/** The 16 bytes at b[at..] are an IPv4 address, v4-mapped (::ffff:a.b.c.d), as the engine stores IPv4. */
export const isV4Mapped = (b: Uint8Array, at: number) =>
  b[at + 10] === 0xff && b[at + 11] === 0xff && (b[at] | b[at + 1] | b[at + 2] | b[at + 3] | b[at + 4] | b[at + 5] | b[at + 6] | b[at + 7] | b[at + 8] | b[at + 9]) === 0;

const textBuf = new Uint8Array(45);

/** A 16-byte address (IPv4 v4-mapped) as text: dotted quad, or RFC 5952 IPv6 (ipTextInto's bytes). */
export function ipText(b: Uint8Array, at: number): string {
  const n = ipTextInto(b, at, textBuf, 0);
  return String.fromCharCode.apply(null, textBuf.subarray(0, n) as unknown as number[]);
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]; // '0'-'9', 'a'-'f'

/**
 * An address's text as ASCII bytes at out[o..], without a string (the flow
 * store's writer writes them as they are); returns the bytes written (at
 * most 45: room for them is the caller's).
 */
export function ipTextInto(b: Uint8Array, at: number, out: Uint8Array, o: number): number {
  const w0 = o;
  if (isV4Mapped(b, at)) {
    for (let i = 12; i < 16; i++) {
      const x = b[at + i];
      if (i > 12) out[o++] = 46; // '.'
      if (x >= 100) out[o++] = 48 + ((x / 100) | 0);
      if (x >= 10) out[o++] = 48 + (((x / 10) | 0) % 10);
      out[o++] = 48 + (x % 10);
    }
    return o - w0;
  }
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes '::'
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (b[at + 2 * i] | b[at + 2 * i + 1]) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && (b[at + 2 * j] | b[at + 2 * j + 1]) === 0) j++;
    if (j - i > bestLen && j - i > 1) (best = i), (bestLen = j - i);
    i = j;
  }
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out[o++] = 58;
      out[o++] = 58; // '::'
      i += bestLen - 1;
      continue;
    }
    if (i > 0 && i !== best + bestLen) out[o++] = 58; // ':'
    const g = (b[at + 2 * i] << 8) | b[at + 2 * i + 1];
    if (g >= 0x1000) out[o++] = HEX[g >> 12];
    if (g >= 0x100) out[o++] = HEX[(g >> 8) & 15];
    if (g >= 0x10) out[o++] = HEX[(g >> 4) & 15];
    out[o++] = HEX[g & 15];
  }
  return o - w0;
}
