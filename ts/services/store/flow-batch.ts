// ⑧ Flow rows from the engine's raw expired-flow records: decoded straight
// from the drained bytes into column arrays (no object per flow). Runs on the
// store's worker thread, which never loads the addon: the record layout
// (offsets from the addon) arrives as data, once, through useRecordLayout().
//
// Periodic snapshots (records of kind 'periodic', emitted by the engine every
// `periodicDumpSec` of a flow's life) carry the flow's counters so far;
// FlowSource keeps, per long-lived flow, what its rows already hold and the
// next row stores the difference, so SUM over a FLOW_ID's rows equals the
// flow's totals, each row covering [end of the previous row, last packet].
import { hash } from 'node:crypto';

import { ipText } from '../../bindings/ip-text.js';
import type { Batch } from './backend.js';
import { AlertColumnArrays } from '../alerts/catalogue.js';
import { flowExclusions } from '../alerts/exclusion-table.js';
import { FLOW_COLUMNS } from './flow-columns.js';

/** The expired-flow record's layout (engine.ts's expiredLayout): size and, per field, offset and capacity. */
export interface RecordLayout {
  size: number;
  fields: Record<string, { off: number; type: string; len: number }>;
}

let REC = 0;
let F: Record<string, number> = {};
let LEN_INFO = 0;
let LEN_NAME = 0;

/** Sets the record layout the decoders read (once per thread, before any FlowBatch). */
export function useRecordLayout(l: RecordLayout): void {
  REC = l.size;
  F = Object.fromEntries(Object.entries(l.fields).map(([k, v]) => [k, v.off]));
  LEN_INFO = l.fields.info.len;
  LEN_NAME = l.fields.cli_name.len;
}

/** bytes per record (0 before useRecordLayout) */
export const recordSize = () => REC;

const utf8 = new TextDecoder('utf-8');
function cstr(b: Uint8Array, at: number, cap: number): string {
  let end = at;
  const stop = at + cap;
  while (end < stop && b[end] !== 0) end++;
  if (end === at) return '';
  for (let i = at; i < end; i++) if (b[i] >= 0x80) return utf8.decode(b.subarray(at, end));
  return String.fromCharCode.apply(null, b.subarray(at, end) as unknown as number[]);
}

const isV4Mapped = (b: Uint8Array, at: number) =>
  b[at + 10] === 0xff && b[at + 11] === 0xff && (b[at] | b[at + 1] | b[at + 2] | b[at + 3] | b[at + 4] | b[at + 5] | b[at + 6] | b[at + 7] | b[at + 8] | b[at + 9]) === 0;

const v4 = (b: Uint8Array, at: number) => ((b[at + 12] << 24) | (b[at + 13] << 16) | (b[at + 14] << 8) | b[at + 15]) >>> 0;
const mac48 = (b: Uint8Array, at: number) => (b[at] * 0x10000 + b[at + 1] * 0x100 + b[at + 2]) * 0x1000000 + b[at + 3] * 0x10000 + b[at + 4] * 0x100 + b[at + 5];
/** u64 little-endian as a number (exact below 2^53: byte counters) */
const u64 = (v: DataView, at: number) => v.getUint32(at + 4, true) * 0x100000000 + v.getUint32(at, true);
/** nanoseconds → whole seconds (float ns is within 256 ns: µs-stamped packets never cross a second) */
const secs = (v: DataView, at: number) => Math.floor(u64(v, at) / 1e9);

// Community ID v1 (github.com/corelight/community-id-spec), seed 0: SHA-1
// over seed, addresses, protocol, pad, ports — the smaller endpoint first,
// ICMP types/codes standing in for ports (request/reply types paired).
const ICMP4_PAIR: Record<number, number> = { 8: 0, 0: 8, 13: 14, 14: 13, 15: 16, 16: 15, 10: 9, 9: 10, 17: 18, 18: 17 };
const ICMP6_PAIR: Record<number, number> = { 128: 129, 129: 128, 133: 134, 134: 133, 135: 136, 136: 135, 130: 131, 131: 130, 144: 145, 145: 144 };
const cidBuf = Buffer.alloc(40);

export function communityId(b: Uint8Array, base: number, proto: number, sport: number, dport: number, icmpType: number, icmpCode: number): string {
  const v6 = !isV4Mapped(b, base + F.cli_ip);
  const alen = v6 ? 16 : 4;
  let s = base + F.cli_ip + (v6 ? 0 : 12);
  let d = base + F.srv_ip + (v6 ? 0 : 12);
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
      [s, d] = [d, s];
      [sport, dport] = [dport, sport];
    }
  }
  let o = 0;
  cidBuf[o++] = 0;
  cidBuf[o++] = 0; // seed
  for (let i = 0; i < alen; i++) cidBuf[o++] = b[s + i];
  for (let i = 0; i < alen; i++) cidBuf[o++] = b[d + i];
  cidBuf[o++] = proto;
  cidBuf[o++] = 0;
  if (proto === 6 || proto === 17 || proto === 132 || proto === 1 || proto === 58) {
    cidBuf.writeUInt16BE(sport, o);
    cidBuf.writeUInt16BE(dport, o + 2);
    o += 4;
  }
  return `1:${hash('sha1', cidBuf.subarray(0, o), 'base64')}`;
}

/** What a long-lived flow's rows already hold (periodic snapshots). */
interface Written {
  b0: number;
  b1: number;
  p0: number;
  p1: number;
  /** LAST_SEEN of its last row (seconds), the next row's FIRST_SEEN */
  last: number;
}

/** Per interface: run id (FLOW_ID's high part) and the long-lived flows' written counters. */
export class FlowSource {
  readonly written = new Map<number, Written>();
  /** newest LAST_SEEN seen (seconds): prunes entries of flows whose end record was lost */
  newest = 0;
  constructor(
    readonly ifid: number,
    /** FLOW_ID = runId × 2^32 + serial */
    readonly runId: number,
    /** seconds after which a flow not snapshotted again is gone (3 periods + idle) */
    readonly staleSec: number,
  ) {}

  prune(): void {
    const limit = this.newest - this.staleSec;
    for (const [k, w] of this.written) if (w.last < limit) this.written.delete(k);
  }
}

/**
 * Rows of the flows table, column-major, filled from raw records. Columns
 * whose value is the same on every row (ntopng's unknown values, the
 * instance name) share one constant array.
 */
export class FlowBatch {
  rows = 0;
  /** rows per ifid (counted as written or dropped with the batch) */
  readonly perIf = new Map<number, number>();
  /** wall ms of the first row */
  since = 0;
  private readonly cols: ArrayLike<unknown>[];
  private readonly flowId: Float64Array;
  private readonly ipVer: Uint8Array;
  private readonly first: Uint32Array;
  private readonly last: Uint32Array;
  private readonly vlan: Uint16Array;
  private readonly packets: Uint32Array;
  private readonly totalBytes: Float64Array;
  private readonly b0: Float64Array;
  private readonly b1: Float64Array;
  private readonly dscp0: Uint8Array;
  private readonly dscp1: Uint8Array;
  private readonly proto: Uint8Array;
  private readonly src4: Uint32Array;
  private readonly src6: string[];
  private readonly sport: Uint16Array;
  private readonly dst4: Uint32Array;
  private readonly dst6: string[];
  private readonly dport: Uint16Array;
  private readonly l7: Uint16Array;
  private readonly l7m: Uint16Array;
  private readonly l7c: Uint16Array;
  /** FLOW_RISK as 64-bit values, written as two 32-bit halves (nDPI risk ids reach 56: a double would round them) */
  private readonly risk: Uint32Array;
  private readonly info: string[];
  private readonly ifidCol: Uint16Array;
  private readonly srcLabel: string[];
  private readonly dstLabel: string[];
  private readonly srcMac: Float64Array;
  private readonly dstMac: Float64Array;
  private readonly cid: string[];
  private readonly flags0: Uint8Array;
  private readonly flags1: Uint8Array;
  private readonly cliLoc: Uint8Array;
  private readonly srvLoc: Uint8Array;
  private readonly p0: Uint32Array;
  private readonly p1: Uint32Array;
  private readonly alerts: AlertColumnArrays;

  constructor(
    readonly capacity: number,
    consts: Constants,
  ) {
    if (!REC) throw new Error('FlowBatch: useRecordLayout() first');
    const n = capacity;
    const own = new Map<string, ArrayLike<unknown>>([
      ['FLOW_ID', (this.flowId = new Float64Array(n))],
      ['IP_PROTOCOL_VERSION', (this.ipVer = new Uint8Array(n))],
      ['FIRST_SEEN', (this.first = new Uint32Array(n))],
      ['LAST_SEEN', (this.last = new Uint32Array(n))],
      ['VLAN_ID', (this.vlan = new Uint16Array(n))],
      ['PACKETS', (this.packets = new Uint32Array(n))],
      ['TOTAL_BYTES', (this.totalBytes = new Float64Array(n))],
      ['SRC2DST_BYTES', (this.b0 = new Float64Array(n))],
      ['DST2SRC_BYTES', (this.b1 = new Float64Array(n))],
      ['SRC2DST_DSCP', (this.dscp0 = new Uint8Array(n))],
      ['DST2SRC_DSCP', (this.dscp1 = new Uint8Array(n))],
      ['PROTOCOL', (this.proto = new Uint8Array(n))],
      ['IPV4_SRC_ADDR', (this.src4 = new Uint32Array(n))],
      ['IPV6_SRC_ADDR', (this.src6 = new Array<string>(n))],
      ['IP_SRC_PORT', (this.sport = new Uint16Array(n))],
      ['IPV4_DST_ADDR', (this.dst4 = new Uint32Array(n))],
      ['IPV6_DST_ADDR', (this.dst6 = new Array<string>(n))],
      ['IP_DST_PORT', (this.dport = new Uint16Array(n))],
      ['L7_PROTO', (this.l7 = new Uint16Array(n))],
      ['L7_PROTO_MASTER', (this.l7m = new Uint16Array(n))],
      ['L7_CATEGORY', (this.l7c = new Uint16Array(n))],
      ['FLOW_RISK', new BigUint64Array((this.risk = new Uint32Array(2 * n)).buffer)],
      ['INFO', (this.info = new Array<string>(n))],
      ['INTERFACE_ID', (this.ifidCol = new Uint16Array(n))],
      ['SRC_LABEL', (this.srcLabel = new Array<string>(n))],
      ['DST_LABEL', (this.dstLabel = new Array<string>(n))],
      ['SRC_MAC', (this.srcMac = new Float64Array(n))],
      ['DST_MAC', (this.dstMac = new Float64Array(n))],
      ['COMMUNITY_ID', (this.cid = new Array<string>(n))],
      ['SRC2DST_TCP_FLAGS', (this.flags0 = new Uint8Array(n))],
      ['DST2SRC_TCP_FLAGS', (this.flags1 = new Uint8Array(n))],
      ['CLIENT_LOCATION', (this.cliLoc = new Uint8Array(n))],
      ['SERVER_LOCATION', (this.srvLoc = new Uint8Array(n))],
      ['SRC2DST_PACKETS', (this.p0 = new Uint32Array(n))],
      ['DST2SRC_PACKETS', (this.p1 = new Uint32Array(n))],
      ['NTOPNG_INSTANCE_NAME', consts.instance],
      ...(this.alerts = new AlertColumnArrays(n)).entries(), // alerts: SCORE STATUS ALERTS_MAP SEVERITY ALERT_CATEGORY
    ]);
    // every other column holds ntopng's unknown value (flow-columns.ts says why)
    this.cols = FLOW_COLUMNS.map((c) => own.get(c.name) ?? (c.type === 'str' ? consts.emptyStr : consts.zero));
  }

  /** as Batch: the columns in FLOWS_TABLE's order (arrays longer than `rows` are read up to `rows`) */
  batch(): Batch {
    return { rows: this.rows, columns: this.cols };
  }

  get full(): boolean {
    return this.rows >= this.capacity;
  }

  /** Empties the batch for reuse (its arrays are kept: no garbage per batch). */
  reset(): this {
    this.rows = 0;
    this.perIf.clear();
    this.since = 0;
    return this;
  }

  /**
   * Appends the record at `base` (false when a snapshot or end adds nothing
   * to what the flow's rows already hold).
   */
  add(v: DataView, b: Uint8Array, base: number, src: FlowSource): boolean {
    const serial = v.getUint32(base + F.serial, true);
    let c0 = u64(v, base + F.cli2srv_bytes);
    let c1 = u64(v, base + F.srv2cli_bytes);
    let k0 = v.getUint32(base + F.cli2srv_pkts, true);
    let k1 = v.getUint32(base + F.srv2cli_pkts, true);
    let firstSec = secs(v, base + F.first_ns);
    const lastSec = secs(v, base + F.last_ns);
    if (lastSec > src.newest) src.newest = lastSec;
    const periodic = b[base + F.kind] === 1;
    const prev = src.written.get(serial);
    if (prev !== undefined || periodic) {
      if (prev !== undefined) {
        const d0 = c0 - prev.b0, d1 = c1 - prev.b1, q0 = k0 - prev.p0, q1 = k1 - prev.p1;
        if (periodic) (prev.b0 = c0), (prev.b1 = c1), (prev.p0 = k0), (prev.p1 = k1);
        else src.written.delete(serial);
        if (q0 + q1 === 0) return false;
        firstSec = prev.last;
        if (periodic) prev.last = lastSec;
        (c0 = d0), (c1 = d1), (k0 = q0), (k1 = q1);
      } else {
        src.written.set(serial, { b0: c0, b1: c1, p0: k0, p1: k1, last: lastSec });
      }
    }
    const r = this.rows++;
    if (r === 0) this.since = Date.now();
    this.perIf.set(src.ifid, (this.perIf.get(src.ifid) ?? 0) + 1);
    this.flowId[r] = src.runId * 0x100000000 + serial;
    const mapped = isV4Mapped(b, base + F.cli_ip);
    this.ipVer[r] = mapped ? 4 : 6;
    this.first[r] = firstSec;
    this.last[r] = lastSec;
    this.vlan[r] = v.getUint16(base + F.vlan, true);
    this.b0[r] = c0;
    this.b1[r] = c1;
    this.totalBytes[r] = c0 + c1;
    this.p0[r] = k0;
    this.p1[r] = k1;
    this.packets[r] = k0 + k1;
    this.dscp0[r] = b[base + F.dscp_cli];
    this.dscp1[r] = b[base + F.dscp_srv];
    const proto = (this.proto[r] = b[base + F.proto]);
    const sport = (this.sport[r] = v.getUint16(base + F.cli_port, true));
    const dport = (this.dport[r] = v.getUint16(base + F.srv_port, true));
    if (mapped) {
      this.src4[r] = v4(b, base + F.cli_ip);
      this.dst4[r] = v4(b, base + F.srv_ip);
      this.src6[r] = '::';
      this.dst6[r] = '::';
    } else {
      this.src4[r] = 0;
      this.dst4[r] = 0;
      this.src6[r] = ipText(b, base + F.cli_ip);
      this.dst6[r] = ipText(b, base + F.srv_ip);
    }
    const master = v.getUint16(base + F.l7_master, true);
    const app = v.getUint16(base + F.l7_app, true);
    this.l7[r] = app || master;
    this.l7m[r] = master;
    this.l7c[r] = v.getUint16(base + F.l7_category, true);
    const riskLo = v.getUint32(base + F.risks, true), riskHi = v.getUint32(base + F.risks + 4, true);
    this.risk[2 * r] = riskLo;
    this.risk[2 * r + 1] = riskHi;
    const info = (this.info[r] = cstr(b, base + F.info, LEN_INFO));
    this.ifidCol[r] = src.ifid;
    this.srcLabel[r] = cstr(b, base + F.cli_name, LEN_NAME);
    const srvName = (this.dstLabel[r] = cstr(b, base + F.srv_name, LEN_NAME));
    // alerts hook: the flow alert columns derive from the risk mask (services/alerts), less
    // the alerts excluded for its hosts or server name (null while no exclusion exists)
    const ex = flowExclusions();
    if (ex && (riskLo | riskHi) && ex.flowExcluded(b, base + F.cli_ip, base + F.srv_ip, this.vlan[r], info, srvName)) {
      this.alerts.fill(r, riskLo & ~ex.lo, riskHi & ~ex.hi);
    } else this.alerts.fill(r, riskLo, riskHi);
    this.srcMac[r] = mac48(b, base + F.cli_mac);
    this.dstMac[r] = mac48(b, base + F.srv_mac);
    this.cid[r] = communityId(b, base, proto, sport, dport, b[base + F.icmp_type], b[base + F.icmp_code]);
    this.flags0[r] = b[base + F.cli_flags];
    this.flags1[r] = b[base + F.srv_flags];
    this.cliLoc[r] = b[base + F.cli_location];
    this.srvLoc[r] = b[base + F.srv_location];
    return true;
  }
}

/** The shared constant columns of every batch (as long as a batch's capacity). */
export class Constants {
  readonly zero: Uint8Array;
  readonly emptyStr: string[];
  readonly instance: string[];
  constructor(capacity: number, instanceName: string) {
    this.zero = new Uint8Array(capacity);
    this.emptyStr = new Array<string>(capacity).fill('');
    this.instance = new Array<string>(capacity).fill(instanceName);
  }
}
