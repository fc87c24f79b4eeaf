// Address text ↔ stored form for the flows store: IPv4 as the UInt32 of
// ntopng's schema, IPv6 as the text glibc's inet_ntop writes (what the
// engine prints, RFC 5952 with IPv4-mapped/compatible tails in dotted form),
// so a literal in a where_clause is turned into exactly what was stored.
import ipaddr from 'ipaddr.js';

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

export function ipv6ToBytes(text: string): Uint8Array | null {
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text) || text.includes('%')) return null;
  return Uint8Array.from(ipaddr.IPv6.parse(text).toByteArray());
}

/** inet_ntop(AF_INET6) of 16 bytes. */
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
  const dotted = `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  // ::a.b.c.d and ::ffff:a.b.c.d keep the IPv4 tail dotted
  if (best === 0 && (bestLen === 6 || (bestLen === 5 && w[5] === 0xffff))) {
    return bestLen === 6 ? `::${dotted}` : `::ffff:${dotted}`;
  }
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
