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
import type { FlowGeo } from '../geo/flow-geo.js';
import { ipText, ipTextInto, isV4Mapped } from '../../bindings/ip-text.js';
import type { Batch, Column } from './backend.js';
import { AlertColumnArrays } from '../alerts/catalogue.js';
import { flowExclusions } from '../alerts/exclusion-table.js';
import { BIT_BLACKLISTED_COUNTRY, BIT_DEVICE_PROTOCOL, countryHits, deviceProtocolPeer, recordCheckBits, type RecordFacts } from '../checks/flow-record-checks.js';
import { COMMUNITY_ID_LEN, communityIdInto } from './community-id.js';
import { FLOW_COLUMNS } from './flow-columns.js';
import { TextColumn } from './text-column.js';

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

const v4 = (b: Uint8Array, at: number) => ((b[at + 12] << 24) | (b[at + 13] << 16) | (b[at + 14] << 8) | b[at + 15]) >>> 0;
/** u64 little-endian as a number (exact below 2^53: byte counters) */
const u64 = (v: DataView, at: number) => v.getUint32(at + 4, true) * 0x100000000 + v.getUint32(at, true);
/** nanoseconds → whole seconds (float ns is within 256 ns: µs-stamped packets never cross a second) */
const secs = (v: DataView, at: number) => Math.floor(u64(v, at) / 1e9);

/** the row being decoded, as the record checks read it (one object, refilled per row) */
const facts: RecordFacts = {
  proto: 0, l7: 0, category: 0, cliLocation: 0, srvLocation: 0, cliFlags: 0, srvFlags: 0, srvBroadcast: false, vlan: 0, bidirectional: false, packets: 0, retr: 0, ooo: 0, lost: 0, tcpState: 0, goodputPct: 0, blacklisted: 0, end: false, cliBroadcast: false,
  lower: 0, cliPort: 0, srvPort: 0, cliPkts: 0, srvPkts: 0, cliCountry: 0, srvCountry: 0, buf: new Uint8Array(0), cliIpAt: 0, srvIpAt: 0,
  master: 0, app: 0, devtypes: 0, cliMacOk: false, srvMacOk: false,
};
const isBroadcastMac = (b: Uint8Array, at: number) => (b[at] & b[at + 1] & b[at + 2] & b[at + 3] & b[at + 4] & b[at + 5]) === 0xff;
/** a device's MAC: not zero, not a group address (multicast / broadcast bit) */
const isDeviceMac = (b: Uint8Array, at: number) => (b[at] & 1) === 0 && (b[at] | b[at + 1] | b[at + 2] | b[at + 3] | b[at + 4] | b[at + 5]) !== 0;

/** The NUL-terminated text at b[at..at+cap) as a string (what the exclusions match). */
function cstr(b: Uint8Array, at: number, cap: number): string {
  let end = at;
  const stop = at + cap;
  while (end < stop && b[end] !== 0) end++;
  return utf8.decode(b.subarray(at, end));
}

/** Row r of `col` := the NUL-terminated text at b[at..at+cap), as cString reads it (ASCII as is, else UTF-8 with U+FFFD for bad bytes). */
function cText(col: TextColumn, r: number, b: Uint8Array, at: number, cap: number): void {
  const o = col.room(cap);
  const out = col.bytes;
  let n = 0, high = 0;
  for (; n < cap; n++) {
    const c = b[at + n];
    if (c === 0) break;
    out[o + n] = c;
    high |= c;
  }
  if (high < 0x80) col.commit(r, n);
  else col.set(r, utf8.decode(b.subarray(at, at + n)));
}

/** Row r := the address at b[at..at+16) as text (ipText's). */
function ipAt(col: TextColumn, r: number, b: Uint8Array, at: number): void {
  const o = col.room(45);
  col.commit(r, ipTextInto(b, at, col.bytes, o));
}

/** Row r := '::' (an IPv4 flow's IPV6_* columns). */
function twoColons(col: TextColumn, r: number): void {
  const o = col.room(2);
  col.bytes[o] = col.bytes[o + 1] = 0x3a;
  col.commit(r, 2);
}

/** Row r of a u64 column held as 32-bit halves := x (an integer below 2^53). */
function u64At(a: Uint32Array, r: number, x: number): void {
  a[2 * r] = x >>> 0;
  a[2 * r + 1] = Math.floor(x / 0x100000000) >>> 0;
}

/** Row r := the 48-bit MAC at b[at..at+6) as a number (u64 halves). */
function macAt(a: Uint32Array, r: number, b: Uint8Array, at: number): void {
  a[2 * r] = ((b[at + 2] << 24) | (b[at + 3] << 16) | (b[at + 4] << 8) | b[at + 5]) >>> 0;
  a[2 * r + 1] = (b[at] << 8) | b[at + 1];
}

/** What a long-lived flow's rows already hold (periodic snapshots). */
interface Written {
  b0: number;
  b1: number;
  p0: number;
  p1: number;
  /** LAST_SEEN of its last row (seconds), the next row's FIRST_SEEN */
  last: number;
  /** a row of it carried an alert already (notified once per flow) */
  alerted?: boolean;
}

/**
 * A flow alert as it is notified (ntopng's flow alert notification fields):
 * taken from the first row of a flow that carries one, after exclusions.
 */
export interface FlowAlertNote {
  ifid: number;
  tstamp: number;
  alert_id: number;
  score: number;
  severity: number;
  alert_category: number;
  cli_ip: string;
  srv_ip: string;
  cli_port: number;
  srv_port: number;
  vlan_id: number;
  proto: number;
  l7_proto: number;
  l7_master_proto: number;
  info: string;
  cli_name: string;
  srv_name: string;
  cli_host_pool_id: number;
  srv_host_pool_id: number;
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
 * Rows of the flows table, column-major, filled from raw records: numbers in
 * typed arrays of the column's width (u64 as two 32-bit halves under a
 * BigUint64Array view, so backends copy them as they are), text as UTF-8
 * bytes (TextColumn). Columns whose value is the same on every row (ntopng's
 * unknown values, the instance name) share one constant array.
 */
export class FlowBatch {
  rows = 0;
  /** rows per ifid (counted as written or dropped with the batch) */
  readonly perIf = new Map<number, number>();
  /** wall ms of the first row */
  since = 0;
  private readonly cols: Column[];
  /** u64 columns: 32-bit halves, little-endian (BigUint64Array views in the batch) */
  private readonly flowId: Uint32Array;
  private readonly ipVer: Uint8Array;
  private readonly first: Uint32Array;
  private readonly last: Uint32Array;
  private readonly vlan: Uint16Array;
  private readonly packets: Uint32Array;
  private readonly totalBytes: Uint32Array;
  private readonly b0: Uint32Array;
  private readonly b1: Uint32Array;
  private readonly dscp0: Uint8Array;
  private readonly dscp1: Uint8Array;
  private readonly proto: Uint8Array;
  private readonly src4: Uint32Array;
  private readonly src6: TextColumn;
  private readonly sport: Uint16Array;
  private readonly dst4: Uint32Array;
  private readonly dst6: TextColumn;
  private readonly dport: Uint16Array;
  private readonly l7: Uint16Array;
  private readonly l7m: Uint16Array;
  private readonly l7c: Uint16Array;
  /** FLOW_RISK as 64-bit values, written as two 32-bit halves (nDPI risk ids reach 56: a double would round them) */
  private readonly risk: Uint32Array;
  private readonly info: TextColumn;
  private readonly ifidCol: Uint16Array;
  private readonly srcLabel: TextColumn;
  private readonly dstLabel: TextColumn;
  private readonly srcMac: Uint32Array;
  private readonly dstMac: Uint32Array;
  private readonly cid: TextColumn;
  private readonly texts: TextColumn[];
  private readonly flags0: Uint8Array;
  private readonly flags1: Uint8Array;
  private readonly cliLoc: Uint8Array;
  private readonly pool0: Uint16Array;
  private readonly bl0: Uint8Array;
  private readonly bl1: Uint8Array;
  private readonly pool1: Uint16Array;
  private readonly cc0: Uint16Array;
  private readonly cc1: Uint16Array;
  private readonly asn0: Uint32Array;
  private readonly asn1: Uint32Array;
  private readonly srvLoc: Uint8Array;
  private readonly p0: Uint32Array;
  private readonly p1: Uint32Array;
  private readonly lat0: Uint32Array;
  private readonly lat1: Uint32Array;
  private readonly alerts: AlertColumnArrays;

  constructor(
    readonly capacity: number,
    private readonly consts: Constants,
  ) {
    if (!REC) throw new Error('FlowBatch: useRecordLayout() first');
    const n = capacity;
    const u64 = (a: Uint32Array) => new BigUint64Array(a.buffer);
    const own = new Map<string, Column>([
      ['FLOW_ID', u64((this.flowId = new Uint32Array(2 * n)))],
      ['IP_PROTOCOL_VERSION', (this.ipVer = new Uint8Array(n))],
      ['FIRST_SEEN', (this.first = new Uint32Array(n))],
      ['LAST_SEEN', (this.last = new Uint32Array(n))],
      ['VLAN_ID', (this.vlan = new Uint16Array(n))],
      ['PACKETS', (this.packets = new Uint32Array(n))],
      ['TOTAL_BYTES', u64((this.totalBytes = new Uint32Array(2 * n)))],
      ['SRC2DST_BYTES', u64((this.b0 = new Uint32Array(2 * n)))],
      ['DST2SRC_BYTES', u64((this.b1 = new Uint32Array(2 * n)))],
      ['SRC2DST_DSCP', (this.dscp0 = new Uint8Array(n))],
      ['DST2SRC_DSCP', (this.dscp1 = new Uint8Array(n))],
      ['PROTOCOL', (this.proto = new Uint8Array(n))],
      ['IPV4_SRC_ADDR', (this.src4 = new Uint32Array(n))],
      ['IPV6_SRC_ADDR', (this.src6 = new TextColumn(n, 2))],
      ['IP_SRC_PORT', (this.sport = new Uint16Array(n))],
      ['IPV4_DST_ADDR', (this.dst4 = new Uint32Array(n))],
      ['IPV6_DST_ADDR', (this.dst6 = new TextColumn(n, 2))],
      ['IP_DST_PORT', (this.dport = new Uint16Array(n))],
      ['L7_PROTO', (this.l7 = new Uint16Array(n))],
      ['L7_PROTO_MASTER', (this.l7m = new Uint16Array(n))],
      ['L7_CATEGORY', (this.l7c = new Uint16Array(n))],
      ['FLOW_RISK', new BigUint64Array((this.risk = new Uint32Array(2 * n)).buffer)],
      ['INFO', (this.info = new TextColumn(n, 8))],
      ['INTERFACE_ID', (this.ifidCol = new Uint16Array(n))],
      ['SRC_LABEL', (this.srcLabel = new TextColumn(n, 8))],
      ['DST_LABEL', (this.dstLabel = new TextColumn(n, 8))],
      ['SRC_MAC', u64((this.srcMac = new Uint32Array(2 * n)))],
      ['DST_MAC', u64((this.dstMac = new Uint32Array(2 * n)))],
      ['COMMUNITY_ID', (this.cid = new TextColumn(n, COMMUNITY_ID_LEN))],
      ['SRC2DST_TCP_FLAGS', (this.flags0 = new Uint8Array(n))],
      ['DST2SRC_TCP_FLAGS', (this.flags1 = new Uint8Array(n))],
      ['CLIENT_LOCATION', (this.cliLoc = new Uint8Array(n))],
      ['SERVER_LOCATION', (this.srvLoc = new Uint8Array(n))],
      ['SRC_HOST_POOL_ID', (this.pool0 = new Uint16Array(n))],
      ['DST_HOST_POOL_ID', (this.pool1 = new Uint16Array(n))],
      ['IS_CLI_BLACKLISTED', (this.bl0 = new Uint8Array(n))],
      ['IS_SRV_BLACKLISTED', (this.bl1 = new Uint8Array(n))],
      ['SRC_COUNTRY_CODE', (this.cc0 = new Uint16Array(n))],
      ['DST_COUNTRY_CODE', (this.cc1 = new Uint16Array(n))],
      ['SRC_ASN', (this.asn0 = new Uint32Array(n))],
      ['DST_ASN', (this.asn1 = new Uint32Array(n))],
      ['SRC2DST_PACKETS', (this.p0 = new Uint32Array(n))],
      ['DST2SRC_PACKETS', (this.p1 = new Uint32Array(n))],
      ['CLIENT_NW_LATENCY_US', (this.lat0 = new Uint32Array(n))],
      ['SERVER_NW_LATENCY_US', (this.lat1 = new Uint32Array(n))],
      ['NTOPNG_INSTANCE_NAME', consts.instance],
      ...(this.alerts = new AlertColumnArrays(n)).entries(), // alerts: SCORE STATUS ALERTS_MAP SEVERITY ALERT_CATEGORY IS_{CLI,SRV}_{ATTACKER,VICTIM}
    ]);
    // every other column holds ntopng's unknown value (flow-columns.ts says why)
    this.cols = FLOW_COLUMNS.map((c) => own.get(c.name) ?? (c.type === 'str' ? consts.emptyStr : consts.zero));
    this.texts = [this.src6, this.dst6, this.info, this.srcLabel, this.dstLabel, this.cid];
  }

  /** as Batch: the columns in FLOWS_TABLE's order (arrays longer than `rows` are read up to `rows`) */
  batch(): Batch {
    return { rows: this.rows, columns: this.cols, shared: this.consts.shared };
  }

  /** its arrays were moved to another thread (batch-wire.ts): not reusable */
  get detached(): boolean {
    return this.ipVer.byteLength === 0;
  }

  get full(): boolean {
    return this.rows >= this.capacity;
  }

  /** Empties the batch for reuse (its arrays are kept: no garbage per batch). */
  private note(b: Uint8Array, base: number, ifid: number, r: number, tstamp: number): FlowAlertNote {
    return {
      ifid,
      tstamp,
      alert_id: this.alerts.status[r],
      score: this.alerts.score[r],
      severity: this.alerts.severity[r],
      alert_category: this.alerts.category[r],
      cli_ip: ipText(b, base + F.cli_ip),
      srv_ip: ipText(b, base + F.srv_ip),
      cli_port: this.sport[r],
      srv_port: this.dport[r],
      vlan_id: this.vlan[r],
      proto: this.proto[r],
      l7_proto: this.l7[r],
      l7_master_proto: this.l7m[r],
      info: cstr(b, base + F.info, LEN_INFO),
      cli_name: cstr(b, base + F.cli_name, LEN_NAME),
      srv_name: cstr(b, base + F.srv_name, LEN_NAME),
      cli_host_pool_id: this.pool0[r],
      srv_host_pool_id: this.pool1[r],
    };
  }

  reset(): this {
    this.rows = 0;
    this.perIf.clear();
    this.since = 0;
    for (const t of this.texts) t.reset();
    return this;
  }

  /**
   * Appends the record at `base` (false when a snapshot or end adds nothing
   * to what the flow's rows already hold).
   */
  /** where the flow alerts of the rows added go (null: not collected) */
  onAlert: ((n: FlowAlertNote) => void) | null = null;

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
    this.flowId[2 * r] = serial;
    this.flowId[2 * r + 1] = src.runId;
    const mapped = isV4Mapped(b, base + F.cli_ip);
    this.ipVer[r] = mapped ? 4 : 6;
    this.first[r] = firstSec;
    this.last[r] = lastSec;
    this.vlan[r] = v.getUint16(base + F.vlan, true);
    u64At(this.b0, r, c0);
    u64At(this.b1, r, c1);
    u64At(this.totalBytes, r, c0 + c1);
    this.p0[r] = k0;
    this.p1[r] = k1;
    this.packets[r] = k0 + k1;
    this.dscp0[r] = b[base + F.dscp_cli];
    this.dscp1[r] = b[base + F.dscp_srv];
    this.pool0[r] = b[base + F.cli_pool];
    this.pool1[r] = b[base + F.srv_pool];
    this.lat0[r] = v.getUint32(base + F.cli_nw_latency_us, true);
    this.lat1[r] = v.getUint32(base + F.srv_nw_latency_us, true);
    const bl = b[base + F.blacklisted];
    this.bl0[r] = bl & 1;
    this.bl1[r] = (bl >> 1) & 1;
    const proto = (this.proto[r] = b[base + F.proto]);
    const sport = (this.sport[r] = v.getUint16(base + F.cli_port, true));
    const dport = (this.dport[r] = v.getUint16(base + F.srv_port, true));
    if (mapped) {
      this.src4[r] = v4(b, base + F.cli_ip);
      this.dst4[r] = v4(b, base + F.srv_ip);
      twoColons(this.src6, r);
      twoColons(this.dst6, r);
    } else {
      this.src4[r] = 0;
      this.dst4[r] = 0;
      ipAt(this.src6, r, b, base + F.cli_ip);
      ipAt(this.dst6, r, b, base + F.srv_ip);
    }
    // the hosts' countries (ntopng's u16 of the two letters) and ASes: one lookup per address (FlowGeo's cache)
    const geo = this.consts.geo;
    if (geo) {
      if (mapped) geo.v4(this.src4[r]);
      else geo.v6(b, base + F.cli_ip);
      this.cc0[r] = geo.country;
      this.asn0[r] = geo.as;
      if (mapped) geo.v4(this.dst4[r]);
      else geo.v6(b, base + F.srv_ip);
      this.cc1[r] = geo.country;
      this.asn1[r] = geo.as;
    } else {
      this.cc0[r] = this.cc1[r] = 0;
      this.asn0[r] = this.asn1[r] = 0;
    }
    const master = v.getUint16(base + F.l7_master, true);
    const app = v.getUint16(base + F.l7_app, true);
    this.l7[r] = app || master;
    this.l7m[r] = master;
    this.l7c[r] = v.getUint16(base + F.l7_category, true);
    const riskLo = v.getUint32(base + F.risks, true), riskHi = v.getUint32(base + F.risks + 4, true);
    this.risk[2 * r] = riskLo;
    this.risk[2 * r + 1] = riskHi;
    // alerts hook: the flow alert columns derive from the risk mask and ntopng's own flow
    // checks on the record (services/alerts, services/checks), less the alerts excluded for
    // its hosts or server name (null while no exclusion exists: the texts are decoded as
    // strings only then)
    facts.proto = proto;
    facts.l7 = app || master;
    facts.category = this.l7c[r];
    facts.cliLocation = this.cliLoc[r] = b[base + F.cli_location];
    facts.srvLocation = this.srvLoc[r] = b[base + F.srv_location];
    facts.cliFlags = this.flags0[r] = b[base + F.cli_flags];
    facts.srvFlags = this.flags1[r] = b[base + F.srv_flags];
    facts.srvBroadcast = (mapped && (this.dst4[r] === 0xffffffff || this.dst4[r] === 0)) || isBroadcastMac(b, base + F.srv_mac);
    facts.vlan = this.vlan[r];
    // the flow's totals (a snapshot row holds only its window's bytes)
    facts.bidirectional = u64(v, base + F.cli2srv_bytes) > 0 && u64(v, base + F.srv2cli_bytes) > 0;
    facts.cliPkts = v.getUint32(base + F.cli2srv_pkts, true);
    facts.srvPkts = v.getUint32(base + F.srv2cli_pkts, true);
    facts.packets = facts.cliPkts + facts.srvPkts;
    facts.lower = master || app;
    facts.cliPort = sport;
    facts.srvPort = dport;
    facts.buf = b;
    facts.cliIpAt = base + F.cli_ip;
    facts.srvIpAt = base + F.srv_ip;
    facts.retr = v.getUint32(base + F.retr, true);
    facts.ooo = v.getUint32(base + F.ooo, true);
    facts.lost = v.getUint32(base + F.lost, true);
    facts.tcpState = b[base + F.tcp_state];
    facts.goodputPct = b[base + F.goodput_pct];
    facts.blacklisted = b[base + F.blacklisted];
    facts.end = !periodic;
    facts.cliBroadcast = mapped && (this.src4[r] === 0xffffffff || this.src4[r] === 0);
    facts.cliCountry = this.cc0[r];
    facts.srvCountry = this.cc1[r];
    facts.master = master;
    facts.app = app;
    facts.devtypes = b[base + F.devtypes];
    facts.cliMacOk = isDeviceMac(b, base + F.cli_mac);
    facts.srvMacOk = isDeviceMac(b, base + F.srv_mac);
    const own = recordCheckBits(facts);
    const listed = own & BIT_BLACKLISTED_COUNTRY ? countryHits(facts) : 0;
    // the device whose protocol is not allowed is the attacker, on unicast flows (DeviceProtocolNotAllowed::buildAlert)
    const device = own & BIT_DEVICE_PROTOCOL && facts.srvLocation !== 2 && !facts.srvBroadcast ? deviceProtocolPeer(facts) : 0;
    const ex = flowExclusions();
    if (ex && (riskLo | riskHi | own) && ex.flowExcluded(b, base + F.cli_ip, base + F.srv_ip, this.vlan[r], cstr(b, base + F.info, LEN_INFO), cstr(b, base + F.srv_name, LEN_NAME))) {
      this.alerts.fill(r, riskLo & ~ex.lo, riskHi & ~ex.hi, own & ~ex.own, facts.blacklisted, listed, device);
    } else this.alerts.fill(r, riskLo, riskHi, own, facts.blacklisted, listed, device);
    // a flow's alert is notified with its first row that carries one (a long flow has several rows)
    if (this.alerts.status[r] && this.onAlert && !prev?.alerted) {
      const w = src.written.get(serial); // still tracked: more rows of it will come
      if (w) w.alerted = true;
      this.onAlert(this.note(b, base, src.ifid, r, lastSec));
    }
    cText(this.info, r, b, base + F.info, LEN_INFO);
    this.ifidCol[r] = src.ifid;
    cText(this.srcLabel, r, b, base + F.cli_name, LEN_NAME);
    cText(this.dstLabel, r, b, base + F.srv_name, LEN_NAME);
    macAt(this.srcMac, r, b, base + F.cli_mac);
    macAt(this.dstMac, r, b, base + F.srv_mac);
    const cid = this.cid;
    const at = cid.room(COMMUNITY_ID_LEN); // first: it may replace cid.bytes
    communityIdInto(b, base + F.cli_ip, base + F.srv_ip, proto, sport, dport, b[base + F.icmp_type], b[base + F.icmp_code], cid.bytes, at);
    cid.commit(r, COMMUNITY_ID_LEN);
    return true;
  }
}

/** The shared constant columns of every batch (as long as a batch's capacity). */
export class Constants {
  readonly zero: Uint8Array;
  readonly emptyStr: string[];
  readonly instance: TextColumn;
  /** the three, as Batch.shared */
  readonly shared: ReadonlySet<unknown>;
  constructor(
    capacity: number,
    instanceName: string,
    /** the geolocation columns' lookups (null: none, ntopng's unknown 0) */
    readonly geo: FlowGeo | null = null,
  ) {
    this.zero = new Uint8Array(capacity);
    this.emptyStr = new Array<string>(capacity).fill('');
    this.instance = TextColumn.constant(capacity, instanceName);
    this.shared = new Set<unknown>([this.zero, this.emptyStr, this.instance]);
  }
}
