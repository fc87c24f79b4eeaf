// Address text ↔ stored form for the flows store: IPv4 as the UInt32 of
// ntopng's schema, IPv6 as the RFC 5952 text the flow writer stores (the
// engine's ipText in ts/bindings/engine.ts: lower-case hex, the longest run
// of two or more zero groups as '::', no dotted tail), so a literal in a
// where_clause becomes exactly what was stored. Kept apart from engine.ts so
// the query language loads no native code.
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** dotted quad, strictly: no leading zeros (octal in some parsers), no short forms */
const DOTTED = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

export function ipv4ToNum(text: string): number | null {
  const m = DOTTED.exec(text);
  if (!m) return null;
  return ((+m[1] << 24) | (+m[2] << 16) | (+m[3] << 8) | +m[4]) >>> 0;
}

export function numToIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** IPv6 text (RFC 4291 forms, a dotted IPv4 tail allowed) → 16 bytes; zone ids and anything else → null. */
export function ipv6ToBytes(text: string): Uint8Array | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(':')) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1 && p.includes('.')) {
        const n = ipv4ToNum(p);
        if (n === null) return null;
        out.push(n >>> 16, n & 0xffff);
      } else if (HEX_GROUP.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  // a dotted tail is only allowed at the very end
  if (halves.length === 2 && halves[0].includes('.')) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const w = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const b = new Uint8Array(16);
  w.forEach((x, i) => {
    b[2 * i] = x >> 8;
    b[2 * i + 1] = x & 255;
  });
  return b;
}

/** RFC 5952 text of 16 bytes, as the engine writes IPv6 addresses. */
export function bytesToIpv6(b: Uint8Array): string {
  const w: number[] = [];
  for (let i = 0; i < 16; i += 2) w.push((b[i] << 8) | b[i + 1]);
  // longest run of zero words (first on ties), compressed only from two words on
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (bestLen < 2) best = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += '::';
      i += bestLen - 1;
      continue;
    }
    if (out && !out.endsWith(':')) out += ':';
    out += w[i].toString(16);
  }
  return out;
}

export function ipv6Canonical(text: string): string | null {
  const b = ipv6ToBytes(text);
  return b ? bytesToIpv6(b) : null;
}
