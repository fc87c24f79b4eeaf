// Packet builders: Ethernet II, optional 802.1Q tag, IPv4 (with header checksum) / IPv6,
// TCP / UDP with correct checksums (pseudo-header included).
//
// The low-level API writes straight into a caller-provided buffer (the pcap write buffer)
// so that the generator does not allocate per packet:
//   const p = writeHeaders(buf, off, spec, payloadLen);   // headers, IPv4 checksum
//   ...write payloadLen bytes at buf[p..]...
//   finishL4(buf, off, spec, payloadLen);                 // TCP/UDP checksum
// `writeFrame` / `buildFrame` are convenience wrappers.

export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_IPV6 = 0x86dd;
export const ETHERTYPE_VLAN = 0x8100;

export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

/** Everything needed to lay out one frame's headers (one direction of a flow). */
export interface FrameSpec {
  srcMac: Uint8Array; // 6 bytes
  dstMac: Uint8Array; // 6 bytes
  vlan: number; // 0 = untagged, else 802.1Q VLAN id (1..4094)
  v6: boolean;
  src: Uint8Array; // 4 or 16 bytes
  dst: Uint8Array; // 4 or 16 bytes
  ttl: number; // TTL / hop limit
  ipId: number; // IPv4 identification (caller increments)
  flowLabel: number; // IPv6 flow label (20 bits)
  proto: number; // IPPROTO_TCP | IPPROTO_UDP
  sport: number;
  dport: number;
  // TCP only
  seq: number;
  ack: number;
  flags: number;
  window: number;
  tcpOptions: Uint8Array | null; // length must be a multiple of 4
}

export function newSpec(partial: Partial<FrameSpec> & Pick<FrameSpec, 'src' | 'dst' | 'proto'>): FrameSpec {
  return {
    srcMac: partial.srcMac ?? new Uint8Array([0x02, 0, 0, 0, 0, 1]),
    dstMac: partial.dstMac ?? new Uint8Array([0x02, 0, 0, 0, 0, 2]),
    vlan: partial.vlan ?? 0,
    v6: partial.v6 ?? partial.src.length === 16,
    src: partial.src,
    dst: partial.dst,
    ttl: partial.ttl ?? 64,
    ipId: partial.ipId ?? 0,
    flowLabel: partial.flowLabel ?? 0,
    proto: partial.proto,
    sport: partial.sport ?? 0,
    dport: partial.dport ?? 0,
    seq: partial.seq ?? 0,
    ack: partial.ack ?? 0,
    flags: partial.flags ?? 0,
    window: partial.window ?? 65535,
    tcpOptions: partial.tcpOptions ?? null,
  };
}

export function l2HeaderLen(s: FrameSpec): number {
  return s.vlan ? 18 : 14;
}

export function l3HeaderLen(s: FrameSpec): number {
  return s.v6 ? 40 : 20;
}

export function l4HeaderLen(s: FrameSpec): number {
  return s.proto === IPPROTO_TCP ? 20 + (s.tcpOptions ? s.tcpOptions.length : 0) : 8;
}

/** Total length of all headers (L2..L4) for this spec. */
export function headerLen(s: FrameSpec): number {
  return l2HeaderLen(s) + l3HeaderLen(s) + l4HeaderLen(s);
}

/** Sum of big-endian 16-bit words of b[start, end) (one's complement accumulator, unfolded). */
export function sum16(b: Uint8Array, start: number, end: number, acc = 0): number {
  const n = end - start;
  const last = start + (n & ~1);
  let i = start;
  // unrolled by 8 bytes
  const last8 = start + (n & ~7);
  for (; i < last8; i += 8) {
    acc += ((b[i]! << 8) | b[i + 1]!) + ((b[i + 2]! << 8) | b[i + 3]!) + ((b[i + 4]! << 8) | b[i + 5]!) + ((b[i + 6]! << 8) | b[i + 7]!);
  }
  for (; i < last; i += 2) acc += (b[i]! << 8) | b[i + 1]!;
  if (n & 1) acc += b[end - 1]! << 8;
  return acc;
}

/** Fold an accumulator into the final 16-bit one's-complement checksum. */
export function foldChecksum(acc: number): number {
  while (acc > 0xffff) acc = (acc & 0xffff) + Math.floor(acc / 65536);
  return ~acc & 0xffff;
}

/** Internet checksum (RFC 1071) over b[start, end). */
export function inetChecksum(b: Uint8Array, start: number, end: number): number {
  return foldChecksum(sum16(b, start, end));
}

/**
 * Write L2/L3/L4 headers for a frame carrying `payloadLen` bytes at buf[off].
 * The IPv4 header checksum is computed; the TCP/UDP checksum field is left 0 —
 * call finishL4() once the payload is in place. Returns the payload offset.
 */
function copySmall(dst: Uint8Array, at: number, src: Uint8Array): void {
  for (let i = 0; i < src.length; i++) dst[at + i] = src[i]!;
}

export function writeHeaders(buf: Uint8Array, off: number, s: FrameSpec, payloadLen: number): number {
  let p = off;
  copySmall(buf, p, s.dstMac);
  copySmall(buf, p + 6, s.srcMac);
  p += 12;
  if (s.vlan) {
    buf[p] = 0x81;
    buf[p + 1] = 0x00;
    buf[p + 2] = (s.vlan >> 8) & 0x0f; // PCP 0, DEI 0
    buf[p + 3] = s.vlan & 0xff;
    p += 4;
  }
  const tcp = s.proto === IPPROTO_TCP;
  const optLen = tcp && s.tcpOptions ? s.tcpOptions.length : 0;
  const l4Len = (tcp ? 20 + optLen : 8) + payloadLen;
  if (!s.v6) {
    buf[p] = 0x08;
    buf[p + 1] = 0x00;
    p += 2;
    const ip = p;
    const total = 20 + l4Len;
    buf[ip] = 0x45;
    buf[ip + 1] = 0x00;
    buf[ip + 2] = total >> 8;
    buf[ip + 3] = total & 0xff;
    buf[ip + 4] = (s.ipId >> 8) & 0xff;
    buf[ip + 5] = s.ipId & 0xff;
    buf[ip + 6] = tcp ? 0x40 : 0x00; // DF for TCP
    buf[ip + 7] = 0x00;
    buf[ip + 8] = s.ttl;
    buf[ip + 9] = s.proto;
    buf[ip + 10] = 0;
    buf[ip + 11] = 0;
    copySmall(buf, ip + 12, s.src);
    copySmall(buf, ip + 16, s.dst);
    const c = inetChecksum(buf, ip, ip + 20);
    buf[ip + 10] = c >> 8;
    buf[ip + 11] = c & 0xff;
    p += 20;
  } else {
    buf[p] = 0x86;
    buf[p + 1] = 0xdd;
    p += 2;
    const ip = p;
    const fl = s.flowLabel & 0xfffff;
    buf[ip] = 0x60;
    buf[ip + 1] = (fl >> 16) & 0x0f;
    buf[ip + 2] = (fl >> 8) & 0xff;
    buf[ip + 3] = fl & 0xff;
    buf[ip + 4] = l4Len >> 8;
    buf[ip + 5] = l4Len & 0xff;
    buf[ip + 6] = s.proto;
    buf[ip + 7] = s.ttl;
    copySmall(buf, ip + 8, s.src);
    copySmall(buf, ip + 24, s.dst);
    p += 40;
  }
  const l4 = p;
  buf[l4] = s.sport >> 8;
  buf[l4 + 1] = s.sport & 0xff;
  buf[l4 + 2] = s.dport >> 8;
  buf[l4 + 3] = s.dport & 0xff;
  if (tcp) {
    const seq = s.seq >>> 0;
    const ack = s.ack >>> 0;
    buf[l4 + 4] = seq >>> 24;
    buf[l4 + 5] = (seq >>> 16) & 0xff;
    buf[l4 + 6] = (seq >>> 8) & 0xff;
    buf[l4 + 7] = seq & 0xff;
    const withAck = (s.flags & TCP_ACK) !== 0;
    const a = withAck ? ack : 0;
    buf[l4 + 8] = a >>> 24;
    buf[l4 + 9] = (a >>> 16) & 0xff;
    buf[l4 + 10] = (a >>> 8) & 0xff;
    buf[l4 + 11] = a & 0xff;
    buf[l4 + 12] = ((20 + optLen) / 4) << 4;
    buf[l4 + 13] = s.flags & 0xff;
    buf[l4 + 14] = (s.window >> 8) & 0xff;
    buf[l4 + 15] = s.window & 0xff;
    buf[l4 + 16] = 0; // checksum
    buf[l4 + 17] = 0;
    buf[l4 + 18] = 0; // urgent pointer
    buf[l4 + 19] = 0;
    if (optLen) copySmall(buf, l4 + 20, s.tcpOptions!);
    p = l4 + 20 + optLen;
  } else {
    buf[l4 + 4] = l4Len >> 8;
    buf[l4 + 5] = l4Len & 0xff;
    buf[l4 + 6] = 0;
    buf[l4 + 7] = 0;
    p = l4 + 8;
  }
  return p;
}

/**
 * Compute and store the TCP/UDP checksum (pseudo-header + segment) of a frame at buf[off].
 * Normally the whole payload is summed from buf. A caller that already knows the sum of the
 * payload's tail may pass `summedLen` (<= payloadLen) = how many leading payload bytes to sum
 * from buf, and `tailAcc` = the unfolded 16-bit-word sum of the remaining bytes, aligned as they
 * sit in the segment (see PoolChecksum).
 */
export function finishL4(buf: Uint8Array, off: number, s: FrameSpec, payloadLen: number, summedLen = payloadLen, tailAcc = 0): void {
  const l3 = off + l2HeaderLen(s);
  const l4 = l3 + (s.v6 ? 40 : 20);
  const l4Len = l4HeaderLen(s) + payloadLen;
  // pseudo header
  let acc = s.v6 ? sum16(buf, l3 + 8, l3 + 40) : sum16(buf, l3 + 12, l3 + 20);
  acc += s.proto + l4Len;
  acc = sum16(buf, l4, l4 + l4Len - (payloadLen - summedLen), acc) + tailAcc;
  let c = foldChecksum(acc);
  const tcp = s.proto === IPPROTO_TCP;
  if (!tcp && c === 0) c = 0xffff; // UDP: 0 means "no checksum"
  const at = l4 + (tcp ? 16 : 6);
  buf[at] = c >> 8;
  buf[at + 1] = c & 0xff;
}

/**
 * Write a complete frame (headers + payload copy + checksums) at buf[off].
 * Returns the frame length.
 */
export function writeFrame(
  buf: Uint8Array,
  off: number,
  s: FrameSpec,
  payload: Uint8Array | null,
  pOff = 0,
  pLen = payload ? payload.length - pOff : 0,
): number {
  const p = writeHeaders(buf, off, s, pLen);
  if (payload && pLen) {
    if (pOff === 0 && pLen === payload.length) buf.set(payload, p);
    else buf.set(payload.subarray(pOff, pOff + pLen), p);
  }
  finishL4(buf, off, s, pLen);
  return p + pLen - off;
}

/** Allocate and return a complete frame. */
export function buildFrame(s: FrameSpec, payload: Uint8Array | null = null): Buffer {
  const len = headerLen(s) + (payload ? payload.length : 0);
  const b = Buffer.alloc(len);
  writeFrame(b, 0, s, payload);
  return b;
}

/**
 * Precomputed headers of one direction of a flow (addresses, MACs, VLAN, ports, TTL, flow label)
 * in one contiguous array: per packet only lengths, IP id, seq/ack/flags/window and the
 * checksums are patched. Much cheaper than writeHeaders() when many flows are interleaved
 * (one small array to copy instead of half a dozen scattered objects).
 */
export class HeaderTemplate {
  readonly tmpl: Uint8Array; // L2..L4 headers without TCP options
  readonly l3: number; // offset of the IP header
  readonly l4: number; // offset of the TCP/UDP header
  readonly tcp: boolean;
  readonly v6: boolean;
  readonly proto: number;
  private readonly pseudo: number; // unfolded sum of the pseudo-header addresses

  constructor(s: FrameSpec) {
    const base: FrameSpec = { ...s, tcpOptions: null, seq: 0, ack: 0, flags: 0, window: 0, ipId: 0 };
    this.tmpl = new Uint8Array(headerLen(base));
    writeHeaders(this.tmpl, 0, base, 0);
    this.l3 = l2HeaderLen(s);
    this.l4 = this.l3 + l3HeaderLen(s);
    if (!s.v6) {
      this.tmpl[this.l3 + 10] = 0; // IPv4 header checksum: recomputed per packet
      this.tmpl[this.l3 + 11] = 0;
    }
    this.tcp = s.proto === IPPROTO_TCP;
    this.v6 = s.v6;
    this.proto = s.proto;
    this.pseudo = s.v6 ? sum16(this.tmpl, this.l3 + 8, this.l3 + 40) : sum16(this.tmpl, this.l3 + 12, this.l3 + 20);
  }

  /** Header length for a segment with `optLen` bytes of TCP options. */
  len(optLen = 0): number {
    return this.tmpl.length + optLen;
  }

  /** Write the headers at buf[off]; returns the payload offset. The L4 checksum is left 0 (see finish). */
  write(
    buf: Uint8Array,
    off: number,
    payloadLen: number,
    ipId: number,
    seq: number,
    ack: number,
    flags: number,
    window: number,
    options: Uint8Array | null,
  ): number {
    const t = this.tmpl;
    const n = t.length;
    for (let i = 0; i < n; i++) buf[off + i] = t[i]!;
    const optLen = options ? options.length : 0;
    const l4Len = (this.tcp ? 20 + optLen : 8) + payloadLen;
    const ip = off + this.l3;
    if (!this.v6) {
      const total = 20 + l4Len;
      buf[ip + 2] = total >> 8;
      buf[ip + 3] = total & 0xff;
      buf[ip + 4] = (ipId >> 8) & 0xff;
      buf[ip + 5] = ipId & 0xff;
      const c = inetChecksum(buf, ip, ip + 20); // checksum field is 0 in the template
      buf[ip + 10] = c >> 8;
      buf[ip + 11] = c & 0xff;
    } else {
      buf[ip + 4] = l4Len >> 8;
      buf[ip + 5] = l4Len & 0xff;
    }
    const l4 = off + this.l4;
    if (!this.tcp) {
      buf[l4 + 4] = l4Len >> 8;
      buf[l4 + 5] = l4Len & 0xff;
      return l4 + 8;
    }
    buf[l4 + 4] = seq >>> 24;
    buf[l4 + 5] = (seq >>> 16) & 0xff;
    buf[l4 + 6] = (seq >>> 8) & 0xff;
    buf[l4 + 7] = seq & 0xff;
    const a = flags & TCP_ACK ? ack : 0;
    buf[l4 + 8] = a >>> 24;
    buf[l4 + 9] = (a >>> 16) & 0xff;
    buf[l4 + 10] = (a >>> 8) & 0xff;
    buf[l4 + 11] = a & 0xff;
    buf[l4 + 12] = ((20 + optLen) / 4) << 4;
    buf[l4 + 13] = flags & 0xff;
    buf[l4 + 14] = (window >> 8) & 0xff;
    buf[l4 + 15] = window & 0xff;
    if (options) for (let i = 0; i < optLen; i++) buf[l4 + 20 + i] = options[i]!;
    return l4 + 20 + optLen;
  }

  /**
   * Store the TCP/UDP checksum of the frame at buf[off] (written by write()). `summedLen` /
   * `tailAcc` as in finishL4().
   */
  finish(buf: Uint8Array, off: number, payloadLen: number, optLen = 0, summedLen = payloadLen, tailAcc = 0): void {
    const l4 = off + this.l4;
    const l4Len = (this.tcp ? 20 + optLen : 8) + payloadLen;
    let acc = this.pseudo + this.proto + l4Len;
    acc = sum16(buf, l4, l4 + l4Len - (payloadLen - summedLen), acc) + tailAcc;
    let c = foldChecksum(acc);
    if (!this.tcp && c === 0) c = 0xffff;
    const at = l4 + (this.tcp ? 16 : 6);
    buf[at] = c >> 8;
    buf[at + 1] = c & 0xff;
  }
}

/**
 * O(1) checksum contribution of any slice of a fixed byte pool (opaque payload source):
 * prefix sums of the 16-bit words starting at every offset, per parity.
 */
export class PoolChecksum {
  private readonly pre: Float64Array;

  constructor(readonly pool: Uint8Array) {
    const n = pool.length;
    const pre = new Float64Array(n + 2);
    for (let i = 0; i + 1 < n; i++) pre[i + 2] = pre[i]! + ((pool[i]! << 8) | pool[i + 1]!);
    this.pre = pre;
  }

  /**
   * Unfolded sum contribution of pool[start, start+len) placed at segment offset parity `odd`
   * (true when the slice starts at an odd byte offset from the start of the L4 header) and
   * ending the segment (an odd trailing byte is zero-padded).
   */
  sum(start: number, len: number, odd: boolean): number {
    const words = len >> 1;
    let e = this.pre[start + 2 * words]! - this.pre[start]!;
    if (len & 1) e += this.pool[start + len - 1]! << 8;
    // shifting a byte string by one position multiplies its sum by 256 (mod 0xffff)
    return odd ? (e % 0xffff) * 256 : e;
  }
}

// ---- TCP options ----------------------------------------------------------------------

/** Client SYN options: MSS, NOP, WS, NOP, NOP, SACK_PERM (12 bytes). */
export function synOptions(mss: number, wscale: number): Uint8Array {
  return new Uint8Array([2, 4, mss >> 8, mss & 0xff, 1, 3, 3, wscale, 1, 1, 4, 2]);
}

/** Server SYN-ACK options: MSS, NOP, NOP, SACK_PERM, NOP, WS (12 bytes). */
export function synAckOptions(mss: number, wscale: number): Uint8Array {
  return new Uint8Array([2, 4, mss >> 8, mss & 0xff, 1, 1, 4, 2, 1, 3, 3, wscale]);
}

// ---- addresses -------------------------------------------------------------------------

export function ipv4Bytes(a: number, b: number, c: number, d: number): Uint8Array {
  return new Uint8Array([a, b, c, d]);
}

export function parseIpv4(s: string): Uint8Array {
  const parts = s.split('.').map((x) => Number(x));
  if (parts.length !== 4 || parts.some((x) => !(x >= 0 && x <= 255))) throw new Error(`bad IPv4 ${s}`);
  return new Uint8Array(parts);
}

/** Parse an IPv6 address (with optional :: compression, no embedded IPv4). */
export function parseIpv6(s: string): Uint8Array {
  const out = new Uint8Array(16);
  const halves = s.split('::');
  if (halves.length > 2) throw new Error(`bad IPv6 ${s}`);
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  if (halves.length === 1 && head.length !== 8) throw new Error(`bad IPv6 ${s}`);
  const groups = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  for (let i = 0; i < 8; i++) {
    const v = parseInt(groups[i]!, 16);
    if (!(v >= 0 && v <= 0xffff)) throw new Error(`bad IPv6 ${s}`);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 0xff;
  }
  return out;
}

export function formatIpv4(b: Uint8Array): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

/** RFC 5952 canonical text form (lower case, longest zero run compressed). */
export function formatIpv6(b: Uint8Array): string {
  const g: number[] = [];
  for (let i = 0; i < 8; i++) g.push((b[2 * i]! << 8) | b[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestStart = -1;
  const hex = (x: number): string => x.toString(16);
  if (bestStart < 0) return g.map(hex).join(':');
  const left = g.slice(0, bestStart).map(hex).join(':');
  const right = g.slice(bestStart + bestLen).map(hex).join(':');
  return `${left}::${right}`;
}

export function formatIp(b: Uint8Array): string {
  return b.length === 4 ? formatIpv4(b) : formatIpv6(b);
}

export function parseIp(s: string): Uint8Array {
  return s.includes(':') ? parseIpv6(s) : parseIpv4(s);
}
