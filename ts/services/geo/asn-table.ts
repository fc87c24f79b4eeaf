// The ASN range table of @ip-location-db/asn (RouteViews + RIRs + DB-IP
// ASN Lite, CSV: first address, last address, AS number, AS organisation),
// kept compact: sorted typed arrays searched by bisection (no object per
// row), one name per AS number (its first row's). The arrays live on SharedArrayBuffers so
// the flow decoder's thread reads the same table without a copy.
import { readFile } from 'node:fs/promises';

export interface AsnTableShare {
  /** IPv4: first, last address (u32) and AS number per range, sorted by first */
  v4: { first: Uint32Array; last: Uint32Array; asn: Uint32Array };
  /** IPv6: first and last address as two u64 halves each */
  v6: { firstHi: BigUint64Array; firstLo: BigUint64Array; lastHi: BigUint64Array; lastLo: BigUint64Array; asn: Uint32Array };
  /** AS organisation names by AS number; empty where only the numbers were shared */
  names: Map<number, string>;
}

const sharedU32 = (n: number) => new Uint32Array(new SharedArrayBuffer(Math.max(4, n * 4)));
const sharedU64 = (n: number) => new BigUint64Array(new SharedArrayBuffer(Math.max(8, n * 8)));

/**
 * Reads `first,last,asn,name` rows without a string per field: numbers are
 * taken digit by digit; `row` gets the offsets of the two address fields,
 * the AS number and where its name starts (nameAt() reads it, once per AS).
 */
function scanRows(text: string, row: (firstAt: number, firstEnd: number, lastAt: number, lastEnd: number, asn: number, nameStart: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c0 = text.charCodeAt(i);
    const nl = text.indexOf('\n', i);
    const next = nl < 0 ? n : nl + 1;
    if (c0 >= 48 && c0 <= 57) {
      const c1 = text.indexOf(',', i);
      const c2 = text.indexOf(',', c1 + 1);
      let asn = 0;
      let j = c2 + 1;
      for (let c = text.charCodeAt(j); c >= 48 && c <= 57; c = text.charCodeAt(++j)) asn = asn * 10 + (c - 48);
      row(i, c1, c1 + 1, c2, asn, text.charCodeAt(j) === 44 ? j + 1 : -1);
    }
    i = next;
  }
}

/** The name field starting at `j` (quoted as in RFC 4180 when it holds a comma). */
function nameAt(text: string, j: number): string {
  if (j < 0) return '';
  if (text.charCodeAt(j) !== 34 /* " */) {
    let e = text.indexOf('\n', j);
    if (e < 0) e = text.length;
    if (text.charCodeAt(e - 1) === 13) e--;
    return text.slice(j, e);
  }
  let name = '';
  j++;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return name + text.slice(j);
    name += text.slice(j, q);
    if (text.charCodeAt(q + 1) !== 34) return name;
    name += '"';
    j = q + 2;
  }
}

function countRows(text: string): number {
  let k = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) k++;
  return k + 1;
}

function u32At(text: string, at: number, end: number): number {
  let v = 0;
  for (let i = at; i < end; i++) v = v * 10 + (text.charCodeAt(i) - 48);
  return v;
}

const M64 = 0xffffffffffffffffn;

/** a decimal up to 2^128 as two u64 halves */
function u128At(text: string, at: number, end: number): [bigint, bigint] {
  const v = BigInt(text.slice(at, end));
  return [v >> 64n, v & M64];
}

/** Loads the `-num` CSV files (addresses as decimal integers). */
export async function loadAsnTable(v4File: string, v6File: string): Promise<AsnTableShare> {
  const [t4, t6] = await Promise.all([readFile(v4File, 'latin1'), readFile(v6File, 'latin1')]);
  // latin1 reads (one byte a character, cheap to scan); the names are decoded as UTF-8 at the end
  const raw = new Map<number, string>();
  const r4 = countRows(t4);
  const v4 = { first: sharedU32(r4), last: sharedU32(r4), asn: sharedU32(r4) };
  let n = 0;
  scanRows(t4, (fa, fe, la, le, asn, name) => {
    v4.first[n] = u32At(t4, fa, fe);
    v4.last[n] = u32At(t4, la, le);
    v4.asn[n] = asn;
    if (!raw.has(asn)) raw.set(asn, nameAt(t4, name));
    n++;
  });
  const sub4 = <T extends Uint32Array>(a: T) => a.subarray(0, n) as T;
  const v4s = { first: sub4(v4.first), last: sub4(v4.last), asn: sub4(v4.asn) };
  const r6 = countRows(t6);
  const v6 = {
    firstHi: sharedU64(r6), firstLo: sharedU64(r6), lastHi: sharedU64(r6), lastLo: sharedU64(r6),
    asn: sharedU32(r6),
  };
  let m = 0;
  scanRows(t6, (fa, fe, la, le, asn, name) => {
    [v6.firstHi[m], v6.firstLo[m]] = u128At(t6, fa, fe);
    [v6.lastHi[m], v6.lastLo[m]] = u128At(t6, la, le);
    v6.asn[m] = asn;
    if (!raw.has(asn)) raw.set(asn, nameAt(t6, name));
    m++;
  });
  const v6s = {
    firstHi: v6.firstHi.subarray(0, m), firstLo: v6.firstLo.subarray(0, m), lastHi: v6.lastHi.subarray(0, m), lastLo: v6.lastLo.subarray(0, m),
    asn: v6.asn.subarray(0, m),
  };
  assertSorted(v4s.first, v6s.firstHi, v6s.firstLo);
  const names = new Map<number, string>();
  for (const [asn, name] of raw) names.set(asn, Buffer.from(name, 'latin1').toString('utf8'));
  return { v4: v4s, v6: v6s, names };
}

function assertSorted(f4: Uint32Array, hi: BigUint64Array, lo: BigUint64Array): void {
  for (let i = 1; i < f4.length; i++) if (f4[i] < f4[i - 1]) throw new Error('ASN table: IPv4 ranges not sorted');
  for (let i = 1; i < hi.length; i++) {
    if (hi[i] < hi[i - 1] || (hi[i] === hi[i - 1] && lo[i] < lo[i - 1])) throw new Error('ASN table: IPv6 ranges not sorted');
  }
}

/** The range holding an IPv4 address (u32): its index, or -1. */
export function findV4(t: AsnTableShare, a: number): number {
  const f = t.v4.first;
  let lo = 0;
  let hi = f.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (f[mid] <= a) (at = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  return at >= 0 && t.v4.last[at] >= a ? at : -1;
}

/** The range holding an IPv6 address (two u64 halves): its index, or -1. */
export function findV6(t: AsnTableShare, ah: bigint, al: bigint): number {
  const { firstHi, firstLo, lastHi, lastLo } = t.v6;
  let lo = 0;
  let hi = firstHi.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const fh = firstHi[mid];
    if (fh < ah || (fh === ah && firstLo[mid] <= al)) (at = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  if (at < 0) return -1;
  const lh = lastHi[at];
  return lh > ah || (lh === ah && lastLo[at] >= al) ? at : -1;
}
