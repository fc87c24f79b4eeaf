// ntopng's three IEC 60870-5-104 flow checks (IEC104Stats::processPacket):
// iec_unexpected_type_id (55), iec_invalid_transition (37) and
// iec_invalid_command_transition (74), all off by default. Captures built
// here (a handshake, then APDUs written byte by byte below) are replayed
// with the historical store; the flow alert list must hold exactly the
// alerts worked out by hand in the comments, read from each flow's
// ALERTS_MAP (per client port). The same capture through a bare engine
// must give the same record bits (tcp_state), also after a table resize;
// the side pool's refusals, the learning option, the configuration the
// engines are sent and the catalogue rows are checked on their own.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, cString, expiredLayout } from '../ts/bindings/engine.js';
import { FLOW_CHECK_ALERTS, flowAlertColumnsOf, alertRoles } from '../ts/services/alerts/catalogue.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { OWN_FLOW_CHECKS, checkDef } from '../ts/services/checks/definitions.js';
import { applyFlowChecks, enabledRiskMask, iecAllowedTypeIds } from '../ts/services/checks/flow-checks.js';
import {
  BIT_IEC_INVALID_COMMAND_TRANSITION,
  BIT_IEC_INVALID_TRANSITION,
  BIT_IEC_UNEXPECTED_TYPE_ID,
  BIT_LOW_GOODPUT,
  TCP_DATA,
  TCP_IEC_INVALID_COMMAND_TRANSITION,
  TCP_IEC_INVALID_TRANSITION,
  TCP_IEC_UNEXPECTED_TYPE_ID,
  recordCheckBits,
  type RecordFacts,
} from '../ts/services/checks/flow-record-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { startApi, v2, type ApiService, type StartOptions } from './fixtures/api.js';
import { ETH, IPPROTO, TCPF, eth, ipv4, mac, tcp, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const UNEXPECTED = 55, TRANSITION = 37, COMMAND = 74;
const IEC_IDS = [UNEXPECTED, TRANSITION, COMMAND];
const LEARNING = 21600; // ntopng's CONST_IEC104_LEARNING_TIME, the engine's default

// ── APDUs (IEC 60870-5-104 §5) ───────────────────────────────────────────
// a 15-bit sequence number in its two control octets (shifted left once, little-endian)
const sq = (n: number) => [(n << 1) & 0xff, (n >> 7) & 0xff];
/**
 * I-format: start 0x68, length 14 (4 control octets + a 10-octet ASDU:
 * type id, VSQ 1, cause of transmission (P/N 0x40) and originator, common
 * address (2), one information object: address (3) and a value octet).
 */
const I = (ns: number, nr: number, type: number, o: { cot?: number; negative?: boolean; ca?: number } = {}) => {
  const ca = o.ca ?? 1;
  return Buffer.from([0x68, 14, ...sq(ns), ...sq(nr), type, 0x01, (o.cot ?? 3) | (o.negative ? 0x40 : 0), 0x00, ca & 0xff, ca >> 8, 0x01, 0x00, 0x00, 0x00]);
};
/** S-format: receive sequence number only */
const S = (nr: number) => Buffer.from([0x68, 4, 0x01, 0x00, ...sq(nr)]);
/** U-format: a function bit in control octet 1 (above its 0b11) */
const U = (f: number) => Buffer.from([0x68, 4, (f << 2) | 0x03, 0, 0, 0]);
const STARTDT_ACT = U(0x01), STARTDT_CON = U(0x02), TESTFR_ACT = U(0x10), TESTFR_CON = U(0x20);
const bytes = (...b: number[]) => Buffer.from(b);

// ── captures: TCP conversations between a controlling station and an RTU (port 2404) ──
const CLI = '192.168.60.10', RTU = '192.168.60.20';
const CM = mac('02:00:00:00:60:10'), RM = mac('02:00:00:00:60:20');
// eight hours ago: the learning flows reach past six hours and stay inside the store's retention
const T0 = Math.floor(Date.now() / 1000) - 8 * 3600;

class Capture {
  readonly packets: Packet[] = [];
  private n = 0;
  /** the frame at second t; a counter keeps frames of one second in the order they were written */
  push(t: number, data: Buffer): void {
    this.packets.push({ tsNs: sec(t) + BigInt(this.n++) * 1000n, data });
  }
  /** a connection from the client's port to the RTU, its handshake at t */
  conn(port: number, t: number): Conn {
    return new Conn(this, port, t);
  }
  file(): Buffer {
    return pcap([...this.packets].sort((a, b) => (a.tsNs < b.tsNs ? -1 : a.tsNs > b.tsNs ? 1 : 0)));
  }
}

class Conn {
  private cseq = 1000;
  private sseq = 9000;
  private last: { fromCli: boolean; seq: number; data: Buffer } | null = null;
  constructor(private cap: Capture, readonly port: number, t: number) {
    this.seg(t, true, TCPF.SYN, this.cseq++, Buffer.alloc(0));
    this.seg(t, false, TCPF.SYN | TCPF.ACK, this.sseq++, Buffer.alloc(0));
    this.seg(t, true, TCPF.ACK, this.cseq, Buffer.alloc(0));
  }
  private seg(t: number, fromCli: boolean, flags: number, seq: number, data: Buffer): void {
    const l4 = fromCli
      ? tcp({ sport: this.port, dport: 2404, flags, seq, ack: this.sseq }, data)
      : tcp({ sport: 2404, dport: this.port, flags, seq, ack: this.cseq }, data);
    this.cap.push(t, fromCli ? eth(RM, CM, ETH.IPV4, ipv4({ src: CLI, dst: RTU, proto: IPPROTO.TCP }, l4)) : eth(CM, RM, ETH.IPV4, ipv4({ src: RTU, dst: CLI, proto: IPPROTO.TCP }, l4)));
  }
  private data(t: number, fromCli: boolean, parts: Buffer[]): this {
    const d = Buffer.concat(parts);
    const seq = fromCli ? this.cseq : this.sseq;
    this.seg(t, fromCli, TCPF.PSH | TCPF.ACK, seq, d);
    if (fromCli) this.cseq += d.length;
    else this.sseq += d.length;
    this.last = { fromCli, seq, data: d };
    return this;
  }
  /** one segment from the client (controlling station) */
  c(t: number, ...apdus: Buffer[]): this {
    return this.data(t, true, apdus);
  }
  /** one segment from the RTU (source port 2404) */
  s(t: number, ...apdus: Buffer[]): this {
    return this.data(t, false, apdus);
  }
  /** the last segment again, same TCP sequence number (a TCP retransmission) */
  again(t: number): this {
    const l = this.last!;
    this.seg(t, l.fromCli, TCPF.PSH | TCPF.ACK, l.seq, l.data);
    return this;
  }
}

/** the main capture: flows by client port, each with its expected IEC alerts */
function mainCapture(): { file: Buffer; expected: Map<number, number[]> } {
  const cap = new Capture();
  const expected = new Map<number, number[]>();
  let t = T0;

  // 41001: several APDUs per segment, every type id allowed (100, 13, 9, 30, 36), both ways.
  // Type ids in order: 100 (c), 100, 13, 9, 100, 30, 36 (s): transitions 100→100 (command →
  // command 1), 100→13 (command → monitor 1), 13→9, 9→100 (monitor → command 1), 100→30
  // (command → monitor 2), 30→36; short of the limits (20, 20, 5), all learned (the flow lasts
  // seconds). Nothing.
  t += 10;
  cap.conn(41001, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).c(t + 1, I(0, 0, 100))
    .s(t + 1, I(0, 1, 100), I(1, 1, 13), I(2, 1, 9), I(3, 1, 100))
    .c(t + 2, S(4))
    .s(t + 2, I(4, 1, 30), I(5, 1, 36), TESTFR_ACT)
    .c(t + 3, TESTFR_CON);
  expected.set(41001, []);

  // 41002: the RTU sends M_SP_NA_1 (1), not in the default list (9, 13, 36, 45, 46, 48, 30,
  // 103, 100, 37): unexpected type id. Transitions 100→100, 100→1 (command → monitor), 1→1: no
  // other alert. INFO: its last APDU, I(2, 1) from port 2404: "-> I, RX 1, TX 2".
  t += 10;
  cap.conn(41002, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).c(t + 1, I(0, 0, 100))
    .s(t + 1, I(0, 1, 100, { cot: 7 }), I(1, 1, 1, { cot: 20 }))
    .s(t + 2, I(2, 1, 1, { cot: 3 }));
  expected.set(41002, [UNEXPECTED]);

  // 41003: type id 200 (from 128 up ntopng never checks one) beside allowed ones: nothing.
  t += 10;
  cap.conn(41003, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).c(t + 1, I(0, 0, 100)).s(t + 1, I(0, 1, 13), I(1, 1, 200));
  expected.set(41003, []);

  // 41004: malformed and truncated APDUs, each hiding type id 1 (not allowed) where a wrong walk
  // would read it; the walk of a segment stops at the first bad APDU. Nothing.
  t += 10;
  const i1 = I(0, 0, 1);
  cap.conn(41004, t).c(t, STARTDT_ACT).s(t, STARTDT_CON)
    // the length runs past the segment (10 of its 16 octets)
    .s(t + 1, i1.subarray(0, 10))
    // a bad start octet
    .s(t + 1, Buffer.concat([bytes(0x69), i1.subarray(1)]))
    // a short I-APDU: length 6, a 2-octet ASDU (type 1, VSQ) without cause or common address
    .s(t + 1, bytes(0x68, 6, 0, 0, 0, 0, 1, 1))
    // an I-APDU without ASDU (length 4)
    .s(t + 1, bytes(0x68, 4, 0, 0, 0, 0))
    // a good one (13: the flow's first I-APDU), then a length past the end with type 1 inside
    .s(t + 2, I(0, 0, 13), bytes(0x68, 0xfd, 2, 0, 0, 0, 1, 1, 3, 0, 1, 0))
    // a U-APDU of length 5, then an I-APDU the walk never reaches
    .s(t + 2, bytes(0x68, 5, 0x43, 0, 0, 0, 0), I(1, 0, 1))
    // one and two octets (shorter than any APDU)
    .s(t + 3, bytes(0x68))
    .s(t + 3, bytes(0x68, 14))
    // a good one (9: pair 13→9, learned), then the next cut short by 3 octets
    .s(t + 3, I(2, 0, 9), I(3, 0, 1).subarray(0, 13))
    // length 0, then an APDU
    .s(t + 4, bytes(0x68, 0), I(4, 0, 1))
    // a length over 253
    .s(t + 4, Buffer.concat([bytes(0x68, 0xff), Buffer.alloc(255, 1)]));
  expected.set(41004, []);

  // 41005: the controlling station sends C_SC_TA_1 (58), not allowed: unexpected type id from
  // the client's side. INFO: the RTU's S(1) last: "-> S, RX 1".
  t += 10;
  cap.conn(41005, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).c(t + 1, I(0, 0, 58, { cot: 6 })).s(t + 1, S(1));
  expected.set(41005, [UNEXPECTED]);

  // 41006: retransmissions change nothing.
  // - I(1, 1) of type 1 repeats the RTU's last (N(S), N(R)): a retransmission, not looked at;
  // - a segment opening with I(1, 1) again: ntopng leaves the segment, so its I(2, 1, 1) is not
  //   looked at either;
  // - a 2-APDU segment [I(2, 1, 45), I(3, 1, 13)] sent once (transitions 13→45 monitor →
  //   command, 45→13 command → monitor: 1 each) and then 21 more times as TCP retransmissions
  //   (same TCP sequence number): walked again they would count 22 and 23, past 20.
  // Nothing.
  t += 10;
  const c6 = cap.conn(41006, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).c(t + 1, I(0, 0, 100)).s(t + 1, I(0, 1, 100), I(1, 1, 13))
    .s(t + 2, I(1, 1, 1))
    .s(t + 2, I(1, 1, 13), I(2, 1, 1))
    .s(t + 3, I(2, 1, 45), I(3, 1, 13));
  for (let k = 0; k < 21; k++) c6.again(t + 3);
  expected.set(41006, []);

  // 41007 and 41008: learning. Type ids 36, 9, 13, 36 in the first seconds learn 36→9, 9→13,
  // 13→36. After the learning period (duration 1 + 21700 s > 21600):
  // 41007 shows only learned pairs: [I(9), I(13)] (36→9, 9→13); that segment again as a TCP
  // retransmission (walked again: 13→9, new); I(5, 0) of type 37 repeating the last (N(S),
  // N(R)) (walked: 13→37, new); I(6, 0, 36) (13→36). Nothing. (Every id allowed, all monitoring.)
  // 41008 shows a new pair after learning: I(9) (36→9), then I(37): 9→37, never seen: invalid
  // transition.
  t += 10;
  for (const port of [41007, 41008]) {
    const c = cap.conn(port, t).c(t, STARTDT_ACT).s(t, STARTDT_CON)
      .s(t + 1, I(0, 0, 36)).s(t + 2, I(1, 0, 9)).s(t + 3, I(2, 0, 13)).s(t + 4, I(3, 0, 36));
    const late = t + LEARNING + 100;
    if (port === 41007) c.s(late, I(4, 0, 9), I(5, 0, 13)).again(late + 1).s(late + 2, I(5, 0, 37)).s(late + 3, I(6, 0, 36)).c(late + 4, S(7));
    else c.s(late, I(4, 0, 9)).s(late + 1, I(5, 0, 37));
  }
  expected.set(41007, []);
  expected.set(41008, [TRANSITION]);

  // 41009 and 41010: monitor → command transitions. The RTU sends 13 (monitoring), then the
  // station 45 (command) and the RTU 13, 20 times: 20 monitor → command and 20 command →
  // monitor: not more than 20, nothing. 41010 adds one more 45: 21 monitor → command, invalid
  // command transition. (13 and 45 are allowed; the flows last seconds.)
  t += 10;
  for (const port of [41009, 41010]) {
    const c = cap.conn(port, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).s(t + 1, I(0, 0, 13));
    for (let k = 1; k <= 20; k++) c.c(t + 1, I(k - 1, k, 45, { cot: 6 })).s(t + 1, I(k, k, 13, { cot: 7 }));
    if (port === 41010) c.c(t + 2, I(20, 21, 45, { cot: 6 }));
  }
  expected.set(41009, []);
  expected.set(41010, [COMMAND]);

  // 41011 and 41012: command → command. 41011: the station sends 45, 46, 45, 46, 45, 46, 45
  // (one per segment): 6 command → command transitions, more than 5: invalid command
  // transition. 41012: six of them, 5 transitions: nothing.
  t += 10;
  for (const [port, n] of [[41011, 7], [41012, 6]] as const) {
    const c = cap.conn(port, t).c(t, STARTDT_ACT).s(t, STARTDT_CON);
    for (let k = 0; k < n; k++) c.c(t + 1, I(k, 0, k % 2 ? 46 : 45, { cot: 6 }));
  }
  expected.set(41011, [COMMAND]);
  expected.set(41012, []);

  // 41013: bytes of no protocol after a good first segment (a fixed pseudo-random sequence,
  // 0x68 and small lengths frequent): no expectation but that the replay runs through
  t += 10;
  const g = cap.conn(41013, t).c(t, STARTDT_ACT);
  let x = 12345;
  const rnd = () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let k = 0; k < 200; k++) {
    const b = Buffer.from(Array.from({ length: 1 + (rnd() % 64) }, () => (rnd() < 64 ? 0x68 : rnd() < 128 ? rnd() % 20 : rnd())));
    if (k % 2) g.c(t + 1, b);
    else g.s(t + 1, b);
  }

  return { file: cap.file(), expected };
}

/** the capture for the changed items list */
function itemsCapture(): Buffer {
  const cap = new Capture();
  let t = T0 + 5;
  // 41101: 1, 13 and 30, all in the new list: nothing
  cap.conn(41101, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).s(t + 1, I(0, 0, 1), I(1, 0, 13), I(2, 0, 30));
  // 41102: 9, allowed by default, not by the new list: unexpected
  t += 10;
  cap.conn(41102, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).s(t + 1, I(0, 0, 9));
  // 41103: 44 (300's low octet, which the list must not stand for): unexpected
  t += 10;
  cap.conn(41103, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).s(t + 1, I(0, 0, 44));
  return cap.file();
}

// ── the flow alert list ──────────────────────────────────────────────────

/** every alerted row in the window, its alert ids (ALERTS_MAP) merged per client port */
async function alertsByPort(s: ApiService, filter: Record<string, string> = {}): Promise<{ ids: Map<number, Set<number>>; rows: any[] }> {
  const r = await s.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: T0 - 60, epoch_end: T0 + 8 * 3600, length: 10000, ...filter } });
  expect(r.body.rc, r.text).toBe(0);
  const ids = new Map<number, Set<number>>();
  const rows = r.body.rsp.records as any[];
  for (const x of rows) {
    const port = Number(x.cli_port.value);
    const map = BigInt(`0x${x.alerts_map || '0'}`);
    const set = ids.get(port) ?? new Set<number>();
    for (let i = 0; i < 128; i++) if ((map >> BigInt(i)) & 1n) set.add(i);
    ids.set(port, set);
  }
  return { ids, rows };
}
const iecOf = (ids: Map<number, Set<number>>, port: number) => [...(ids.get(port) ?? [])].filter((i) => IEC_IDS.includes(i)).sort((a, b) => a - b);

const enableAll: StartOptions['configure'] = async (checks) => {
  await checks.setEnabled('flow', 'iec_unexpected_type_id', true);
  await checks.setEnabled('flow', 'iec_invalid_transition', true);
  await checks.setEnabled('flow', 'iec_invalid_command_transition', true);
};

describe('IEC 60870-5-104 checks on a capture, all three enabled', () => {
  const tmp = tempDir('flowgate-iec-');
  const main = mainCapture();
  const file = tmp.file('iec.pcap', main.file);
  let s: ApiService;
  beforeAll(async () => {
    s = await startApi({ files: [file], history: true, dataDir: join(tmp.dir, 'data'), engine: { flushAtEnd: true }, configure: enableAll });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('raises exactly the alerts worked out by hand, flow by flow', async () => {
    const { ids } = await alertsByPort(s);
    const got = new Map([...main.expected.keys()].map((port) => [port, iecOf(ids, port)]));
    expect(got).toEqual(main.expected);
  });

  it('stores them as the flows’ predominant alerts with ntopng’s scores (the alert_id filter finds them)', async () => {
    for (const [id, ports, score] of [[UNEXPECTED, [41002, 41005], 100], [TRANSITION, [41008], 60], [COMMAND, [41010, 41011], 100]] as const) {
      const rows = (await alertsByPort(s, { alert_id: `${id};eq` })).rows.filter((x) => main.expected.has(Number(x.cli_port.value)));
      expect([...new Set(rows.map((x) => Number(x.cli_port.value)))].sort(), `alert ${id}`).toEqual([...ports]);
      for (const x of rows) {
        expect(x.score.value).toBeGreaterThanOrEqual(score);
        expect(x.alert_category.value).toBe('1');
        expect([x.cli_ip.value, x.srv_ip.value, x.srv_port.value]).toEqual([CLI, RTU, '2404']);
      }
    }
  });

  it("carries ntopng's IEC INFO: the flow's last APDU", async () => {
    const { rows } = await alertsByPort(s, { alert_id: `${UNEXPECTED};eq` });
    const info = new Map(rows.map((x) => [Number(x.cli_port.value), x.info.value]));
    expect(info.get(41002)).toBe('-> I, RX 1, TX 2');
    expect(info.get(41005)).toBe('-> S, RX 1');
  });

  it('kept every IEC flow’s state (no refusal)', async () => {
    expect(s.ifaces.list[0].engine.stats().flow_iec_full).toBe(0);
    const r = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(r.body.rsp.refused.flow_iec).toBe(0);
  });
});

/** the record bits (tcp_state) each alert id stands for */
const STATE_BIT: Record<number, number> = { [UNEXPECTED]: 4, [TRANSITION]: 8, [COMMAND]: 16 };

/**
 * The capture through a bare engine (no store, no TS checks): the allowed ids
 * set first, the flow table resized once the replay is done (the IEC state
 * moves with its flows), then every flow ended; per client port, the IEC
 * alert ids of its end record's tcp_state and its INFO.
 */
async function engineRecords(file: string, allowed: number[] | null, opts: { iecLearningSec?: number; maxFlows?: number; flowIdleSec?: number } = {}, stats?: (e: Engine) => void) {
  const e = new Engine({ files: [file], flowIdleSec: 1e9, localHostIdleSec: 1e9, remoteHostIdleSec: 1e9, ringRecords: 1 << 16, ...opts });
  try {
    e.setIecConfig({ allowedTypeIds: allowed });
    e.start();
    await e.waitDone();
    stats?.(e);
    e.setLimits({ maxFlows: 1 << 18 });
    e.expireActive(1 << 16);
    const F = expiredLayout.fields;
    const buf = new ArrayBuffer(expiredLayout.size * (1 << 16));
    const n = e.drainExpiredRaw(buf);
    const v = new DataView(buf), b = new Uint8Array(buf);
    const out = new Map<number, { ids: number[]; info: string }>();
    for (let i = 0; i < n; i++) {
      const at = i * expiredLayout.size;
      if (v.getUint8(at + F.kind.off) !== 0) continue; // periodic snapshots
      const state = v.getUint8(at + F.tcp_state.off);
      out.set(v.getUint16(at + F.cli_port.off, true), { ids: IEC_IDS.filter((id) => state & STATE_BIT[id]).sort((x, y) => x - y), info: cString(b, at + F.info.off, F.info.len) });
    }
    return out;
  } finally {
    e.close();
  }
}

describe('IEC 60870-5-104 checks in the engine: the record bits', () => {
  const tmp = tempDir('flowgate-iec-engine-');
  const main = mainCapture();
  const file = tmp.file('iec.pcap', main.file);
  afterAll(() => tmp.cleanup());
  const DEFAULT_ITEMS = [9, 13, 36, 45, 46, 48, 30, 103, 100, 37];

  it('sets the bits worked out by hand, kept across a table resize; INFO is the last APDU', async () => {
    const r = await engineRecords(file, DEFAULT_ITEMS);
    expect(new Map([...main.expected.keys()].map((p) => [p, r.get(p)?.ids]))).toEqual(main.expected);
    expect(r.get(41002)!.info).toBe('-> I, RX 1, TX 2');
    expect(r.get(41005)!.info).toBe('-> S, RX 1');
    // the client's last APDU (U TESTFR con, from the side not on port 2404)
    expect(r.get(41001)!.info).toBe('<- U (TESTFR con)');
    // 41009's last I-APDU is the RTU's I(20, 20): "-> I, RX 20, TX 20"; 41010's the station's
    // I(20, 21), swapped as ntopng does for the side not on 2404 (RX one ahead): "<- I, RX 21, TX 21"
    expect([r.get(41009)!.info, r.get(41010)!.info]).toEqual(['-> I, RX 20, TX 20', '<- I, RX 21, TX 21']);
  }, 60_000);

  it('the learning period is an engine option: never over, 41008 is not alerted; 0 s, every new pair after the first is', async () => {
    const long = await engineRecords(file, DEFAULT_ITEMS, { iecLearningSec: 1e9 });
    expect(long.get(41008)!.ids).toEqual([]);
    // learning 0: 41001's 100→100 (the RTU's first I-APDU after the station's) is new at once
    const none = await engineRecords(file, null, { iecLearningSec: 0 });
    expect(none.get(41001)!.ids).toEqual([TRANSITION]);
    // and with every type id allowed, 41002's type 1 is not unexpected
    expect(none.get(41002)!.ids).toEqual([TRANSITION]);
  }, 60_000);
});

describe('IEC 60870-5-104 checks in the engine: the side pool', () => {
  // 20 IEC flows, each sending type id 1 (not allowed by the list given); a flow table of 64
  // entries holds IEC state for 16 flows (a 256th of the table, at least 16). `apart`: the first 16 at T0,
  // then 600 UDP packets of another flow from T0 + 50 (the engine sweeps between its batches of
  // 256 packets: the 16 idle out after 10 s), then the last 4 at T0 + 100; else all 20 at T0.
  const tmp = tempDir('flowgate-iec-pool-');
  afterAll(() => tmp.cleanup());
  const capture = (apart: boolean) => {
    const cap = new Capture();
    for (let k = 0; k < 20; k++) {
      const t = apart && k >= 16 ? T0 + 100 : T0;
      cap.conn(42000 + k, t).c(t, STARTDT_ACT).s(t, STARTDT_CON).s(t + 1, I(0, 0, 1));
    }
    if (apart)
      for (let k = 0; k < 600; k++)
        cap.push(T0 + 50 + k / 100, eth(RM, CM, ETH.IPV4, ipv4({ src: '192.168.60.30', dst: '192.168.60.31', proto: IPPROTO.UDP }, udp({ sport: 5000, dport: 6000 }, Buffer.alloc(8)))));
    return tmp.file(`pool-${apart}.pcap`, cap.file());
  };
  const ports = [...Array(20).keys()].map((k) => 42000 + k);

  it('all at once: the first 16 are checked, the other 4 refused and counted once each', async () => {
    let full = -1;
    const r = await engineRecords(capture(false), [9, 13], { maxFlows: 64 }, (e) => void (full = e.stats().flow_iec_full));
    expect(ports.map((p) => r.get(p)?.ids)).toEqual(ports.map((_, k) => (k < 16 ? [UNEXPECTED] : [])));
    expect(full).toBe(4);
  }, 60_000);

  it('one after another: a flow that ends gives its entry back', async () => {
    let full = -1;
    const r = await engineRecords(capture(true), [9, 13], { maxFlows: 64, flowIdleSec: 10 }, (e) => void (full = e.stats().flow_iec_full));
    expect(ports.map((p) => r.get(p)?.ids)).toEqual(ports.map(() => [UNEXPECTED]));
    expect(full).toBe(0);
  }, 60_000);
});

describe('IEC 60870-5-104 checks: configuration', () => {
  it('off by default: the same capture raises none of the three', async () => {
    const tmp = tempDir('flowgate-iec-off-');
    const file = tmp.file('iec.pcap', mainCapture().file);
    const s = await startApi({ files: [file], history: true, dataDir: join(tmp.dir, 'data'), engine: { flushAtEnd: true } });
    try {
      const { ids } = await alertsByPort(s);
      for (const port of mainCapture().expected.keys()) expect(iecOf(ids, port), `port ${port}`).toEqual([]);
    } finally {
      await s.close();
      tmp.cleanup();
    }
  }, 120_000);

  it('a changed items list: its integers 0-255 are the allowed type ids, anything else is ignored', async () => {
    const tmp = tempDir('flowgate-iec-items-');
    const file = tmp.file('items.pcap', itemsCapture());
    const s = await startApi({
      files: [file],
      history: true,
      dataDir: join(tmp.dir, 'data'),
      engine: { flushAtEnd: true },
      // allowed: 1, 13, 30 (a numeric string, spaces trimmed); 'x', 300, -1, 1.5 and null are not type ids
      configure: async (checks) => checks.update('flow', 'iec_unexpected_type_id', { all: { enabled: true, script_conf: { items: [1, '13', ' 30 ', 'x', 300, -1, 1.5, null] } } }),
    });
    try {
      const { ids } = await alertsByPort(s);
      expect([41101, 41102, 41103].map((p) => iecOf(ids, p))).toEqual([[], [UNEXPECTED], [UNEXPECTED]]);
    } finally {
      await s.close();
      tmp.cleanup();
    }
  }, 120_000);

  it('the engines get the allowed ids on every change: the items while enabled, null (all) while disabled', async () => {
    const tmp = tempDir('flowgate-iec-cfg-');
    const store = new ConfigStore(tmp.dir);
    const cfg = ChecksConfig.open(store);
    const sent: (number[] | null)[] = [];
    const engine = { setRiskScores: () => {}, setIecConfig: (c: { allowedTypeIds: readonly number[] | null }) => void sent.push(c.allowedTypeIds && [...c.allowedTypeIds]) };
    const fc = applyFlowChecks(cfg, null, () => {}, [engine]);
    try {
      await fc.ready;
      expect(sent).toEqual([null]);
      await cfg.setEnabled('flow', 'iec_unexpected_type_id', true);
      await cfg.update('flow', 'iec_unexpected_type_id', { all: { enabled: true, script_conf: { items: [100, '7', 7, 256, 'abc'] } } });
      await cfg.setEnabled('flow', 'iec_unexpected_type_id', false);
      expect(sent).toEqual([null, [9, 13, 30, 36, 37, 45, 46, 48, 100, 103], [7, 100], null]);
      // the other two checks change nothing the engines are sent
      await cfg.setEnabled('flow', 'iec_invalid_transition', true);
      expect(sent.at(-1)).toBeNull();
      expect(iecAllowedTypeIds({ isEnabled: () => true, scriptConf: () => ({ items: 'not a list' }) })).toEqual([]);
    } finally {
      fc.stop();
      await store.close();
      tmp.cleanup();
    }
  });

  it('Engine.setIecConfig takes null or integers 0-255, nothing else', () => {
    const tmp = tempDir('flowgate-iec-eng-');
    const e = new Engine({ files: [tmp.file('x.pcap', pcap([]))] });
    try {
      e.setIecConfig({ allowedTypeIds: null });
      e.setIecConfig({ allowedTypeIds: [0, 127, 128, 255] });
      for (const bad of [[256], [-1], [1.5], ['3' as unknown as number]]) expect(() => e.setIecConfig({ allowedTypeIds: bad })).toThrow(/0-255/);
    } finally {
      e.close();
      tmp.cleanup();
    }
  });
});

describe('IEC 60870-5-104 checks: the record bits and the catalogue', () => {
  const base = { proto: 6, l7: 0, category: 0, cliLocation: 1, srvLocation: 1, cliFlags: 0, srvFlags: 0, srvBroadcast: false, vlan: 0, bidirectional: true, packets: 2, retr: 0, ooo: 0, lost: 0, tcpState: TCP_DATA, goodputPct: 90, blacklisted: 0, end: true, cliBroadcast: false, lower: 0, cliPort: 41000, srvPort: 2404, cliPkts: 1, srvPkts: 1, cliCountry: 0, srvCountry: 0, master: 0, app: 0, devtypes: 0, cliMacOk: false, srvMacOk: false, buf: new Uint8Array(32), cliIpAt: 0, srvIpAt: 16 } as RecordFacts;
  const bits = (tcpState: number) => recordCheckBits({ ...base, tcpState }) & (BIT_IEC_UNEXPECTED_TYPE_ID | BIT_IEC_INVALID_TRANSITION | BIT_IEC_INVALID_COMMAND_TRANSITION);

  it("maps tcp_state bits 2, 3, 4 to the own-check bits 20, 21, 22 and those to ntopng's alert ids", () => {
    expect([TCP_IEC_UNEXPECTED_TYPE_ID, TCP_IEC_INVALID_TRANSITION, TCP_IEC_INVALID_COMMAND_TRANSITION]).toEqual([4, 8, 16]);
    expect([BIT_IEC_UNEXPECTED_TYPE_ID, BIT_IEC_INVALID_TRANSITION, BIT_IEC_INVALID_COMMAND_TRANSITION]).toEqual([1 << 20, 1 << 21, 1 << 22]);
    expect(bits(TCP_DATA)).toBe(0);
    expect(bits(TCP_DATA | TCP_IEC_UNEXPECTED_TYPE_ID)).toBe(BIT_IEC_UNEXPECTED_TYPE_ID);
    expect(bits(TCP_IEC_INVALID_TRANSITION)).toBe(BIT_IEC_INVALID_TRANSITION);
    expect(bits(TCP_IEC_INVALID_COMMAND_TRANSITION | TCP_IEC_UNEXPECTED_TYPE_ID)).toBe(BIT_IEC_INVALID_COMMAND_TRANSITION | BIT_IEC_UNEXPECTED_TYPE_ID);
    expect([20, 21, 22].map((b) => [FLOW_CHECK_ALERTS[b].alertId, FLOW_CHECK_ALERTS[b].key, FLOW_CHECK_ALERTS[b].category, FLOW_CHECK_ALERTS[b].score])).toEqual([
      [55, 'iec_unexpected_type_id', 1, 100],
      [37, 'iec_invalid_transition', 1, 60],
      [74, 'iec_invalid_command_transition', 1, 100],
    ]);
    expect([20, 21, 22].map((b) => OWN_FLOW_CHECKS[b])).toEqual(['iec_unexpected_type_id', 'iec_invalid_transition', 'iec_invalid_command_transition'].map((k) => checkDef('flow', k)));
    for (const k of ['iec_unexpected_type_id', 'iec_invalid_transition', 'iec_invalid_command_transition']) expect(checkDef('flow', k)).toMatchObject({ runs: true, defaultEnabled: false });
  });

  it('the alert columns: security, the highest score predominant over low goodput, no roles', () => {
    expect(flowAlertColumnsOf(0, 0, BIT_IEC_UNEXPECTED_TYPE_ID | BIT_LOW_GOODPUT)).toMatchObject({ SCORE: 110, STATUS: 55, SEVERITY: 5, ALERT_CATEGORY: 1 });
    expect(flowAlertColumnsOf(0, 0, BIT_IEC_INVALID_TRANSITION)).toMatchObject({ SCORE: 60, STATUS: 37, SEVERITY: 4 });
    expect(flowAlertColumnsOf(0, 0, BIT_IEC_INVALID_TRANSITION | BIT_IEC_INVALID_COMMAND_TRANSITION)).toMatchObject({ SCORE: 160, STATUS: 74 });
    for (const id of IEC_IDS) expect(alertRoles(id, 0)).toBe(0);
  });

  it('the enabled mask carries the three bits only while their checks are enabled', async () => {
    const tmp = tempDir('flowgate-iec-mask-');
    const store = new ConfigStore(tmp.dir);
    try {
      const cfg = ChecksConfig.open(store);
      const iec = () => enabledRiskMask(cfg)[2] & (BIT_IEC_UNEXPECTED_TYPE_ID | BIT_IEC_INVALID_TRANSITION | BIT_IEC_INVALID_COMMAND_TRANSITION);
      expect(iec()).toBe(0);
      await cfg.setEnabled('flow', 'iec_invalid_transition', true);
      expect(iec()).toBe(BIT_IEC_INVALID_TRANSITION);
    } finally {
      await store.close();
      tmp.cleanup();
    }
  });
});
