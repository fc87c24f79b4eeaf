// Deterministic seeded PRNG (sfc32 state, seeded through a splitmix32/murmur finaliser).
// Never use Math.random in the generator: same seed + options => byte-identical output.

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of two 32-bit values into one (used to derive independent sub-streams). */
export function hash2(a: number, b: number): number {
  return fmix32((fmix32(a >>> 0) ^ Math.imul((b >>> 0) + 0x7f4a7c15, 0x9e3779b1)) >>> 0);
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `seed` is the user seed, `stream` selects an independent sub-sequence. */
  constructor(seed: number, stream = 0) {
    // seeds may exceed 32 bits: fold the high part in
    const hi = Math.floor(seed / 4294967296) >>> 0;
    const lo = seed >>> 0;
    let s = hash2(hash2(lo, hi), stream);
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      return fmix32(s);
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** uniform uint32 */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** uniform in [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** uniform integer in [0, n) for n <= 2^32 */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** uniform integer in [lo, hi] (inclusive) */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** true with probability p */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** exponential variate with the given mean */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.float());
  }

  /** log-uniform in [lo, hi] */
  logUniform(lo: number, hi: number): number {
    return lo * Math.exp(this.float() * Math.log(hi / lo));
  }

  pick<T>(arr: readonly T[]): T {
    return arr[this.int(arr.length)]!;
  }

  /** fill buf[off, off+len) with random bytes */
  fill(buf: Uint8Array, off = 0, len = buf.length - off): Uint8Array {
    let i = off;
    const end = off + len;
    while (i + 4 <= end) {
      const v = this.u32();
      buf[i] = v & 0xff;
      buf[i + 1] = (v >>> 8) & 0xff;
      buf[i + 2] = (v >>> 16) & 0xff;
      buf[i + 3] = v >>> 24;
      i += 4;
    }
    if (i < end) {
      let v = this.u32();
      while (i < end) {
        buf[i++] = v & 0xff;
        v >>>= 8;
      }
    }
    return buf;
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    this.fill(b);
    return b;
  }
}
