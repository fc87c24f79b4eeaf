// ⑧ The flow writer's back half, beside the store (on the store's worker
// thread for the real backends): raw expired-flow records in, decoded into
// batches bounded by size and age, appended one at a time. Sealed batches
// wait in a bounded queue; when the store falls behind (or fails) whole
// batches are dropped and counted: the packet path never waits for the
// database.
import { threadId } from 'node:worker_threads';

import type { Backend } from './backend.js';
import { Constants, FlowBatch, FlowSource, recordSize, type FlowAlertNote } from './flow-batch.js';
import { FLOWS_TABLE } from './flow-columns.js';
import { setInsecureProtocols } from '../checks/flow-record-checks.js';
import { FlowGeo } from '../geo/flow-geo.js';
import type { GeoShare } from '../geo/index.js';

export interface FlowSinkOptions {
  /** a batch is sealed at this many rows */
  batchRows: number;
  /** … or once its first row waited this long (ms) */
  flushMs: number;
  /** sealed batches waiting behind the appends in flight; beyond, new batches are dropped and counted */
  maxQueued: number;
  /**
   * appends in flight at once (default 1). The decoding thread sends its
   * batches to the store worker's queue: with one only, the next would wait
   * for the answer to the last, and that answer waits behind the records
   * still to decode.
   */
  inflight?: number;
  /** NTOPNG_INSTANCE_NAME */
  instanceName: string;
  /** nDPI protocol ids whose breed is insecure (the remote-to-local insecure flow check; from the engine's registry) */
  insecureProtocols?: readonly number[];
  /** the geolocation databases (shared buffers: no copy on the decoder's thread); absent: country and AS columns 0 */
  geo?: GeoShare;
}

export interface FlowSinkEvents {
  /** an interface's totals changed: rows written, rows dropped by the sink */
  counts(ifid: number, written: number, drops: number): void;
  log(line: string): void;
  /** the flow alerts of the records just decoded (at most MAX_FLOW_ALERT_NOTES a push; `dropped`: those left out) */
  flowAlerts?(notes: FlowAlertNote[], dropped: number): void;
}

/** flow alerts handed on per push of records: a storm of risky flows is bounded here, what is left out is counted */
export const MAX_FLOW_ALERT_NOTES = 1024;

/** Where and how much the sink appended (the tests' proof that appends leave the event loop). */
export interface FlowSinkStats {
  /** worker_threads.threadId of the thread that ran the appends (0: the main thread) */
  threadId: number;
  batches: number;
  rows: number;
}

interface IfCounts {
  src: FlowSource;
  written: number;
  drops: number;
}

export class FlowSink {
  private readonly consts: Constants;
  private readonly ifs = new Map<number, IfCounts>();
  private cur: FlowBatch | null = null;
  private readonly queue: FlowBatch[] = [];
  /** written batches kept for reuse */
  private readonly spare: FlowBatch[] = [];
  private running = 0;
  /** flush() waiting for the appends to end */
  private idle: (() => void)[] = [];
  private failing = false;
  private lastFailLog = 0;
  private lastPrune = Date.now();
  private readonly timer: NodeJS.Timeout;
  readonly stats: FlowSinkStats = { threadId, batches: 0, rows: 0 };
  /** flow alerts reported only while someone wants them (setNotes) */
  private wantNotes = false;
  private notes: FlowAlertNote[] = [];
  private notesDropped = 0;
  private readonly note = (n: FlowAlertNote) => {
    if (this.notes.length < MAX_FLOW_ALERT_NOTES) this.notes.push(n);
    else this.notesDropped++;
  };

  constructor(
    private readonly backend: Backend,
    private readonly o: FlowSinkOptions,
    private readonly ev: FlowSinkEvents,
  ) {
    this.consts = new Constants(o.batchRows, o.instanceName, o.geo ? new FlowGeo(o.geo) : null);
    setInsecureProtocols(o.insecureProtocols ?? []);
    this.timer = setInterval(() => this.tick(), Math.min(250, o.flushMs));
    this.timer.unref();
  }

  /** Whether the records pushed from now on report their flow alerts (FlowSinkEvents.flowAlerts). */
  setNotes(on: boolean): void {
    this.wantNotes = on && !!this.ev.flowAlerts;
  }

  /** Starts an interface: FLOW_ID = runId × 2^32 + serial; `staleSec` prunes flows whose end record was lost. */
  attach(ifid: number, runId: number, staleSec: number): void {
    this.ifs.set(ifid, { src: new FlowSource(ifid, runId, staleSec), written: 0, drops: 0 });
  }

  /** Decodes `n` records (the bytes are free again on return). */
  push(ifid: number, bytes: Uint8Array, n: number): void {
    const st = this.ifs.get(ifid);
    if (!st) return;
    const rec = recordSize();
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) {
      let b = this.cur;
      if (!b) b = this.cur = this.spare.pop()?.reset() ?? new FlowBatch(this.o.batchRows, this.consts);
      b.onAlert = this.wantNotes ? this.note : null;
      b.add(v, bytes, i * rec, st.src);
      if (b.full) this.seal();
    }
    if (this.notes.length || this.notesDropped) {
      this.ev.flowAlerts?.(this.notes, this.notesDropped);
      this.notes = [];
      this.notesDropped = 0;
    }
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastPrune >= 60_000) {
      this.lastPrune = now;
      for (const st of this.ifs.values()) st.src.prune();
    }
    if (this.cur && this.cur.rows && now - this.cur.since >= this.o.flushMs) this.seal();
  }

  private seal(): void {
    const b = this.cur;
    this.cur = null;
    if (!b || !b.rows) return;
    if (this.queue.length >= this.o.maxQueued) {
      this.settle(b, false);
      if (this.spare.length < 2 && !b.detached) this.spare.push(b);
      return;
    }
    this.queue.push(b);
    this.pump();
  }

  /** Counts a batch as written or lost, per interface. */
  private settle(b: FlowBatch, written: boolean): void {
    for (const [ifid, n] of b.perIf) {
      const st = this.ifs.get(ifid);
      if (!st) continue;
      if (written) st.written += n;
      else st.drops += n;
      this.ev.counts(ifid, st.written, st.drops);
    }
  }

  private pump(): void {
    while (this.running < (this.o.inflight ?? 1) && this.queue.length) this.write(this.queue.shift()!);
    if (!this.running && !this.queue.length) for (const f of this.idle.splice(0)) f();
  }

  private write(b: FlowBatch): void {
    this.running++;
    void this.backend
      .append(FLOWS_TABLE, b.batch())
      .then(
        () => {
          this.stats.batches++;
          this.stats.rows += b.rows;
          this.settle(b, true);
          if (this.failing) this.ev.log(`flowgate: historical store: writing again (${this.backend.description})`);
          this.failing = false;
        },
        (e: Error) => {
          this.settle(b, false);
          const now = Date.now();
          if (!this.failing || now - this.lastFailLog > 60_000) {
            const drops = [...this.ifs.values()].reduce((a, s) => a + s.drops, 0);
            this.ev.log(`flowgate: historical store: write failed, flows dropped (${drops} so far): ${e.message}`);
            this.lastFailLog = now;
          }
          this.failing = true;
        },
      )
      .finally(() => {
        this.running--;
        if (this.spare.length < 2 && !b.detached) this.spare.push(b);
        this.pump();
      });
  }

  /** Seals the batch being filled and waits until everything pushed is written (or dropped). */
  async flush(): Promise<void> {
    this.seal();
    if (!this.running && !this.queue.length) return;
    await new Promise<void>((resolve) => {
      this.idle.push(resolve);
      this.pump();
    });
  }

  close(): void {
    clearInterval(this.timer);
  }
}
