// ⑦ Address text, shared by the engine's record decoders and the flow
// store's worker (which must not load the addon).

/** A 16-byte address (IPv4 v4-mapped) as text: dotted quad, or RFC 5952 IPv6. */
export function ipText(b: Uint8Array, at: number): string {
  // v4-mapped (::ffff:a.b.c.d) is how the engine stores IPv4.
  let v4 = b[at + 10] === 0xff && b[at + 11] === 0xff;
  for (let i = 0; v4 && i < 10; i++) v4 = b[at + i] === 0;
  if (v4) return `${b[at + 12]}.${b[at + 13]}.${b[at + 14]}.${b[at + 15]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[at + i] << 8) | b[at + i + 1]).toString(16));
  // RFC 5952: compress the longest run of two or more zero groups.
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) (best = i), (bestLen = j - i);
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}
