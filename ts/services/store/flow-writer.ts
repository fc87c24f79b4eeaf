// ⑧ The flow writer's front half, on the event loop: takes each engine's
// expired-flow records as the engine rings (its doorbell), drains them raw
// into a small pool of buffers and hands each buffer to the flow sink — on
// the store's worker thread (the ArrayBuffer transferred, not copied), where
// records are decoded, batched and appended (flow-sink.ts, flow-batch.ts).
// While every buffer is away (the worker is behind) the records wait in the
// engine's ring; a full ring drops and counts them (expired_ring_drops), as
// the sink counts the batches it drops: both are db.flow_export_drops.
import type { Geo } from '../geo/index.js';
import { hostname } from 'node:os';

import { Engine, expiredLayout } from '../../bindings/engine.js';
import { setFlowExclusions, type ExclusionRecord } from '../alerts/exclusion-table.js';
import { INSECURE_BREEDS, NO_PARAMS, setFlowChecks, type FlowCheckParams } from '../checks/flow-record-checks.js';
import type { ExpiredSink, MonitoredInterface } from '../interfaces.js';
import type { Backend } from './backend.js';
import { useRecordLayout, type FlowAlertNote } from './flow-batch.js';
import { FLOWS_TABLE } from './flow-columns.js';
import { FlowSink, type FlowSinkOptions, type FlowSinkStats } from './flow-sink.js';
import { WorkerBackend, type FlowChannelEvents } from './worker-backend.js';

export { Constants, FlowBatch, FlowSource } from './flow-batch.js';

const REC = expiredLayout.size;
/** records per drained buffer */
const DRAIN_RECORDS = 4096;
/** drained buffers: while all are with the sink, records wait in the engine's ring */
const POOL = 4;

export interface FlowWriterOptions {
  /** a batch is sealed at this many rows (default 16384) */
  batchRows?: number;
  /** … or once its first row waited this long (default 1000 ms) */
  flushMs?: number;
  /** sealed batches waiting behind the append in flight; beyond, new batches are dropped and counted (default 8) */
  maxQueued?: number;
  /** NTOPNG_INSTANCE_NAME (default: the host name) */
  instanceName?: string;
  /** one line per write failure streak */
  log?: (line: string) => void;
  /** the geolocation databases: the stored flows' SRC/DST_COUNTRY_CODE and SRC/DST_ASN (absent: 0) */
  geo?: Geo | null;
}

/** interface data's db.* (ntopng's flow export counters) */
export interface ExportCounters {
  /** rows written */
  flow_export_count: number;
  /** rows lost: dropped by the writer (store behind or failing) and records the engine's ring had no room for */
  flow_export_drops: number;
  /** rows written per second, over the last ~5 s */
  flow_export_rate: number;
}


interface IfState {
  iface: MonitoredInterface;
  written: number;
  drops: number;
  /** flow alerts not handed on to their listeners (a push's notes past MAX_FLOW_ALERT_NOTES) */
  alertDrops: number;
  /** (wall ms, written) once a second, last few */
  samples: [number, number][];
  scheduled: boolean;
  /** rang while no buffer was free: drained when one comes back */
  starved: boolean;
}

/** Where drained buffers go: the store worker's sink, or a sink on this thread for a Backend living here. */
interface FlowChannel {
  attach(ifid: number, runId: number, staleSec: number): void;
  /** takes the buffer; it comes back through FlowChannelEvents.buffer */
  push(ifid: number, buf: ArrayBuffer, n: number): void;
  /** the risks whose flow checks are enabled, for the records pushed from now on */
  risks(lo: number, hi: number, own: number, params: FlowCheckParams): Promise<void>;
  /** the alert exclusions, for the records pushed from now on */
  exclusions(rec: ExclusionRecord): Promise<void>;
  /** whether the records pushed from now on report their flow alerts (FlowSinkEvents.flowAlerts) */
  notes(on: boolean): Promise<void>;
  flush(): Promise<void>;
  stats(): Promise<FlowSinkStats | null>;
  close(): void;
}

function workerChannel(b: WorkerBackend, log: (l: string) => void): FlowChannel {
  return {
    attach: (ifid, runId, staleSec) => void b.attachFlows(ifid, runId, staleSec).catch((e: Error) => log(`flowgate: historical store: ${e.message}`)),
    push: (ifid, buf, n) => b.pushFlows(ifid, buf, n, n * REC),
    risks: (lo, hi, own, params) => b.setFlowRisks(lo, hi, own, params),
    exclusions: (rec) => b.setFlowExclusions(rec),
    notes: (on) => b.setFlowNotes(on),
    flush: () => b.flushFlows(),
    stats: () => b.flowStats(),
    close: () => undefined,
  };
}

function localChannel(backend: Backend, o: FlowSinkOptions, ev: FlowChannelEvents): FlowChannel {
  useRecordLayout(expiredLayout);
  const sink = new FlowSink(backend, o, ev);
  return {
    attach: (ifid, runId, staleSec) => sink.attach(ifid, runId, staleSec),
    push: (ifid, buf, n) => {
      sink.push(ifid, new Uint8Array(buf, 0, n * REC), n);
      ev.buffer(buf);
    },
    // same thread: the decoder reads this thread's copy
    risks: async (lo, hi, own, params) => setFlowChecks(lo, hi, own, params),
    exclusions: async (rec) => setFlowExclusions(rec),
    notes: async (on) => sink.setNotes(on),
    flush: () => sink.flush(),
    stats: async () => sink.stats,
    close: () => sink.close(),
  };
}

export class FlowWriter implements ExpiredSink {
  private readonly ifs = new Map<number, IfState>();
  private readonly pool: ArrayBuffer[] = [];
  /** flush() waiting for a buffer */
  private readonly waiting: (() => void)[] = [];
  private channel!: FlowChannel;
  private readonly timer: NodeJS.Timeout;
  private nextRunId = 1;
  private closed = false;
  private readonly alertListeners = new Set<(notes: FlowAlertNote[], dropped: number) => void>();
  /** whether some listener wants flow alerts now (asked before each push: notes cost the decoder only when wanted) */
  private readonly alertWants = new Set<() => boolean>();
  private notesOn = false;

  private constructor(private readonly log: (l: string) => void) {
    for (let i = 0; i < POOL; i++) this.pool.push(new ArrayBuffer(REC * DRAIN_RECORDS));
    this.timer = setInterval(() => this.tick(), 250);
    this.timer.unref();
  }

  /**
   * Creates the flows table if needed, picks run ids above the stored
   * FLOW_IDs and starts the sink: on the store's worker for a store from
   * openStore(), else on this thread (a Backend made here, as tests do).
   */
  static async open(backend: Backend, o: FlowWriterOptions = {}): Promise<FlowWriter> {
    const w = new FlowWriter(o.log ?? ((l) => console.error(l)));
    try {
      await backend.ensureTable(FLOWS_TABLE);
      const r = await backend.query({ sql: 'SELECT max(FLOW_ID) AS m FROM flows', params: [] });
      const max = Number(r[0]?.m ?? 0) || 0;
      w.nextRunId = Math.floor(max / 0x100000000) + 1;
      const so: FlowSinkOptions = {
        batchRows: o.batchRows ?? 16384,
        flushMs: o.flushMs ?? 1000,
        maxQueued: o.maxQueued ?? 8,
        instanceName: o.instanceName ?? hostname(),
        ...(o.geo ? { geo: o.geo.share() } : {}),
        insecureProtocols: Engine.info()
          .dpi.protocols.filter((p) => INSECURE_BREEDS.has(p.breed))
          .map((p) => p.id),
      };
      const ev: FlowChannelEvents = {
        buffer: (buf) => w.returned(buf),
        counts: (ifid, written, drops) => {
          const st = w.ifs.get(ifid);
          if (st) (st.written = written), (st.drops = drops);
        },
        log: w.log,
        flowAlerts: (notes, dropped) => {
          // a push is one interface's records, and notes are left out only past a full list
          const st = dropped && notes.length ? w.ifs.get(notes[0]!.ifid) : undefined;
          if (st) st.alertDrops += dropped;
          for (const l of w.alertListeners) l(notes, dropped);
        },
      };
      if (backend instanceof WorkerBackend) {
        await backend.openFlows(expiredLayout, so, ev);
        w.channel = workerChannel(backend, w.log);
      } else w.channel = localChannel(backend, so, ev);
    } catch (e) {
      clearInterval(w.timer);
      throw e;
    }
    return w;
  }

  /**
   * Hears the flow alerts of the rows written (each flow's first alerted
   * row), off the packet path, while `wanted()` says so (asked before each
   * push of records, so a change applies from the next record on).
   */
  onFlowAlerts(fn: (notes: FlowAlertNote[], dropped: number) => void, wanted: () => boolean = () => true): () => void {
    this.alertListeners.add(fn);
    this.alertWants.add(wanted);
    return () => {
      this.alertListeners.delete(fn);
      this.alertWants.delete(wanted);
    };
  }

  private syncNotes(): void {
    let on = false;
    for (const w of this.alertWants) on ||= w();
    if (on === this.notesOn) return;
    this.notesOn = on;
    this.channel.notes(on).catch((e: Error) => this.log(`flowgate: historical store: flow alert notes not switched: ${e.message}`));
  }

  /** Takes over the interface's expired records (call before its engine starts). */
  attach(i: MonitoredInterface): void {
    const e: Engine = i.engine;
    const staleSec = 3 * (e.options.periodicDumpSec || 300) + e.options.flowIdleSec + 60;
    const st: IfState = { iface: i, written: 0, drops: 0, alertDrops: 0, samples: [], scheduled: false, starved: false };
    this.ifs.set(i.ifid, st);
    this.channel.attach(i.ifid, this.nextRunId++, staleSec);
    e.onExpired(() => this.drain(st));
  }

  /** ntopng's num_flow_dropped_alerts: the interface's flow alerts its listeners (notifications) did not get */
  flowAlertDrops(ifid: number): number {
    return this.ifs.get(ifid)?.alertDrops ?? 0;
  }

  counters(ifid: number): ExportCounters {
    const st = this.ifs.get(ifid);
    if (!st) return { flow_export_count: 0, flow_export_drops: 0, flow_export_rate: 0 };
    const s = st.samples;
    let rate = 0;
    if (s.length >= 2) {
      const [t0, w0] = s[0];
      const dt = (Date.now() - t0) / 1000;
      if (dt > 0) rate = (st.written - w0) / dt;
    }
    return {
      flow_export_count: st.written,
      flow_export_drops: st.drops + st.iface.engine.stats().expired_ring_drops,
      flow_export_rate: Math.round(rate * 100) / 100,
    };
  }

  /**
   * The risks whose flow checks are enabled (bit n = nDPI risk n, as two
   * 32-bit words) and the own flow checks enabled (FLOW_CHECK_ALERTS bits):
   * flows decoded after this raise alerts only for those. Records already
   * drained keep what they were decoded with. `params`: what the configurable
   * record checks read of their configuration.
   */
  setEnabledRisks(lo: number, hi: number, own = -1, params: FlowCheckParams = NO_PARAMS): Promise<void> {
    return this.channel.risks(lo, hi, own, params);
  }

  /** The alert exclusions (exclusion-table.ts): flows decoded after this raise no excluded alert. */
  setExclusions(rec: ExclusionRecord): Promise<void> {
    return this.channel.exclusions(rec);
  }

  /** Where the sink appended (tests: the worker thread, never the event loop). */
  sinkStats(): Promise<FlowSinkStats | null> {
    return this.channel.stats();
  }

  /** Drains one buffer's worth; more on the next turns, so a full ring never holds the loop for long. */
  private drain(st: IfState): void {
    if (this.closed) return;
    const n = this.drainOne(st);
    if (n < 0) st.starved = true;
    else if (n === DRAIN_RECORDS && !st.scheduled) {
      st.scheduled = true;
      setImmediate(() => {
        st.scheduled = false;
        this.drain(st);
      });
    }
  }

  /** Records drained into one pooled buffer and sent (-1: no buffer free). */
  private drainOne(st: IfState): number {
    const buf = this.pool.pop();
    if (!buf) return -1;
    const n = st.iface.engine.drainExpiredRaw(buf);
    if (n === 0) this.pool.push(buf);
    else {
      this.syncNotes();
      this.channel.push(st.iface.ifid, buf, n);
    }
    return n;
  }

  private returned(buf: ArrayBuffer): void {
    this.pool.push(buf);
    this.waiting.shift()?.();
    for (const st of this.ifs.values()) {
      if (!st.starved) continue;
      st.starved = false;
      this.drain(st);
    }
  }

  /** Everything the ring holds, waiting for buffers as they come back. */
  private async drainAll(st: IfState): Promise<void> {
    for (;;) {
      const n = this.drainOne(st);
      if (n < 0) await new Promise<void>((r) => this.waiting.push(r));
      else if (n < DRAIN_RECORDS) return;
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const st of this.ifs.values()) {
      const s = st.samples;
      if (!s.length || now - s[s.length - 1][0] >= 1000) {
        s.push([now, st.written]);
        while (s.length > 6) s.shift();
      }
    }
  }

  /** Takes every waiting record and waits until all is written (or dropped), counters included. */
  async flush(): Promise<void> {
    for (const st of this.ifs.values()) await this.drainAll(st);
    await this.channel.flush();
  }

  /**
   * Ends every flow still active in the engines and writes them (a
   * service's shutdown, as ntopng dumps its flows when it stops).
   */
  async expireActive(): Promise<void> {
    for (const st of this.ifs.values()) while (st.iface.engine.expireActive(DRAIN_RECORDS) > 0) await this.drainAll(st);
    await this.flush();
  }

  /** Flushes, then lets the engines' records go (the store itself is closed by its owner). */
  async close(o: { expireActive?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    if (o.expireActive) await this.expireActive();
    await this.flush();
    this.closed = true;
    clearInterval(this.timer);
    this.channel.close();
    for (const st of this.ifs.values()) st.iface.engine.onExpired(null);
  }
}
