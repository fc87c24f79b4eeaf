// ⑧ The flow writer's back half, beside the store (on the store's worker
// thread for the real backends): raw expired-flow records in, decoded into
// batches bounded by size and age; sealed batches wait in a bounded queue
// and go out together, one append at a time. When the store falls behind
// (or fails) whole batches are dropped and counted: the packet path never
// waits for the database.
import { threadId } from 'node:worker_threads';

import type { Backend } from './backend.js';
import { Constants, FlowBatch, FlowSource, recordSize } from './flow-batch.js';
import { FLOWS_TABLE } from './flow-columns.js';

export interface FlowSinkOptions {
  /** a batch is sealed at this many rows */
  batchRows: number;
  /** … or once its first row waited this long (ms) */
  flushMs: number;
  /** sealed batches waiting behind the append in flight; beyond, new batches are dropped and counted */
  maxQueued: number;
  /** NTOPNG_INSTANCE_NAME */
  instanceName: string;
}

export interface FlowSinkEvents {
  /** an interface's totals changed: rows written, rows dropped by the sink */
  counts(ifid: number, written: number, drops: number): void;
  log(line: string): void;
}

/** Where and how much the sink appended (the tests' proof that appends leave the event loop). */
export interface FlowSinkStats {
  /** worker_threads.threadId of the thread that ran the appends (0: the main thread) */
  threadId: number;
  batches: number;
  rows: number;
}

/** records decoded per event-loop turn when a push is deferred (~1 ms) */
const SLICE = 1024;

interface Pending {
  ifid: number;
  bytes: Uint8Array;
  n: number;
  /** records decoded so far */
  at: number;
  done: () => void;
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
  private inflight: Promise<void> | null = null;
  private failing = false;
  private lastFailLog = 0;
  private lastPrune = Date.now();
  private readonly timer: NodeJS.Timeout;
  readonly stats: FlowSinkStats = { threadId, batches: 0, rows: 0 };
  /** pushes not decoded yet (push with `done`), oldest first */
  private readonly pending: Pending[] = [];
  /** flush() waiting for them */
  private readonly decoded: (() => void)[] = [];

  constructor(
    private readonly backend: Backend,
    private readonly o: FlowSinkOptions,
    private readonly ev: FlowSinkEvents,
  ) {
    this.consts = new Constants(o.batchRows, o.instanceName);
    this.timer = setInterval(() => this.tick(), Math.min(250, o.flushMs));
    this.timer.unref();
  }

  /** Starts an interface: FLOW_ID = runId × 2^32 + serial; `staleSec` prunes flows whose end record was lost. */
  attach(ifid: number, runId: number, staleSec: number): void {
    this.ifs.set(ifid, { src: new FlowSource(ifid, runId, staleSec), written: 0, drops: 0 });
  }

  /**
   * Decodes `n` records: at once (the bytes are free again on return), or,
   * given `done`, SLICE records per event-loop turn after the pushes before
   * it, calling `done` once the bytes are free. DuckDB's thread runs an
   * append and calls back on this thread to have each chunk filled: between
   * slices it does not wait long, so the append in flight and the decoding
   * of the next batch run side by side.
   */
  push(ifid: number, bytes: Uint8Array, n: number, done?: () => void): void {
    if (!done) return this.decode(ifid, bytes, 0, n);
    this.pending.push({ ifid, bytes, n, at: 0, done });
    if (this.pending.length === 1) this.step();
  }

  private readonly step = (): void => {
    const p = this.pending[0];
    if (!p) return;
    const k = Math.min(SLICE, p.n - p.at);
    this.decode(p.ifid, p.bytes, p.at, k);
    p.at += k;
    if (p.at === p.n) {
      this.pending.shift();
      p.done();
    }
    if (this.pending.length) setImmediate(this.step);
    else for (const w of this.decoded.splice(0)) w();
  };

  /** Decodes records [from, from+n) of `bytes`. */
  private decode(ifid: number, bytes: Uint8Array, from: number, n: number): void {
    const st = this.ifs.get(ifid);
    if (!st) return;
    const rec = recordSize();
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = from; i < from + n; i++) {
      let b = this.cur;
      if (!b) b = this.cur = this.spare.pop()?.reset() ?? new FlowBatch(this.o.batchRows, this.consts);
      b.add(v, bytes, i * rec, st.src);
      if (b.full) this.seal();
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
      this.reuse(b);
      return;
    }
    this.queue.push(b);
    this.pump();
  }

  private reuse(b: FlowBatch): void {
    if (this.spare.length < this.o.maxQueued) this.spare.push(b);
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

  /**
   * Writes everything queued in one append: one batch while the store keeps
   * up, the whole backlog once it fell behind (fewer, larger writes cost
   * either store less per row).
   */
  private pump(): void {
    if (this.inflight || !this.queue.length) return;
    const group = this.queue.splice(0);
    let rows = 0;
    for (const b of group) rows += b.rows;
    this.inflight = this.backend
      .append(FLOWS_TABLE, group.map((b) => b.batch()))
      .then(
        () => {
          this.stats.batches += group.length;
          this.stats.rows += rows;
          for (const b of group) this.settle(b, true);
          if (this.failing) this.ev.log(`flowgate: historical store: writing again (${this.backend.description})`);
          this.failing = false;
        },
        (e: Error) => {
          for (const b of group) this.settle(b, false);
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
        this.inflight = null;
        for (const b of group) this.reuse(b);
        this.pump();
      });
  }

  /** Seals the batch being filled and waits until everything pushed is written (or dropped). */
  async flush(): Promise<void> {
    while (this.pending.length) await new Promise<void>((r) => this.decoded.push(r));
    this.seal();
    while (this.inflight || this.queue.length) {
      this.pump();
      await this.inflight;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
