// The stored flows' geolocation columns (SRC/DST_COUNTRY_CODE in ntopng's
// u16 form, SRC/DST_ASN), decoded on the flow decoder's thread from the
// 16-byte addresses of the expired-flow records: a per-address cache in
// front of the databases (shared with the main thread: Geo.fromShare), so a
// host's many flows cost one lookup.
import { Geo, countryU16, type GeoShare } from './index.js';

const CACHE_MAX = 65536;

export class FlowGeo {
  private readonly geo: Geo;
  /** IPv4 (u32) → index into cc/asn; IPv6 (hex text) → index */
  private readonly by4 = new Map<number, number>();
  private readonly by6 = new Map<string, number>();
  private cc: number[] = [];
  private asn: number[] = [];
  /** the last lookup's answer */
  country = 0;
  as = 0;

  constructor(share: GeoShare) {
    this.geo = Geo.fromShare(share);
  }

  private answer(i: number): void {
    this.country = this.cc[i];
    this.as = this.asn[i];
  }

  private store(ip: string): number {
    if (this.cc.length >= CACHE_MAX) {
      // whole generations: cheaper than an LRU per row, and bounded
      this.by4.clear();
      this.by6.clear();
      this.cc = [];
      this.asn = [];
    }
    const g = this.geo.lookup(ip);
    this.cc.push(countryU16(g.country));
    return this.asn.push(g.asn) - 1;
  }

  /** Looks up an IPv4 address (u32): the answer in `country` and `as`. */
  v4(a: number): void {
    let i = this.by4.get(a);
    if (i === undefined) {
      i = this.store(`${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`);
      this.by4.set(a, i);
    }
    this.answer(i);
  }

  /** Looks up the IPv6 address of 16 bytes at `at`: the answer in `country` and `as`. */
  v6(b: Uint8Array, at: number): void {
    let key = '';
    for (let k = 0; k < 16; k += 2) key += (k ? ':' : '') + ((b[at + k] << 8) | b[at + k + 1]).toString(16);
    let i = this.by6.get(key);
    if (i === undefined) {
      i = this.store(key);
      this.by6.set(key, i);
    }
    this.answer(i);
  }
}
