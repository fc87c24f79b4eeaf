// ⑧ The historical store as the main thread sees it: a Backend whose calls
// run on the store's worker thread (store-worker.ts), plus the raw channel
// the flow writer feeds. DuckDB allows one instance per file and its handles
// belong to the isolate that made them, so the worker owns the store and
// queries travel to it too (rows come back by structured clone).
//
// Messages: main → worker `call`s (a Backend method and its arguments) and `{op:'push'}` raw
// records (the ArrayBuffer transferred, not copied); worker → main `reply`,
// `buf` (the buffer handed back, decoded), `counts` and `log` of the flow sink.
import type { ExclusionRecord } from '../alerts/exclusion-table.js';
import type { FlowCheckParams } from '../checks/flow-record-checks.js';
import { Worker } from 'node:worker_threads';

import { StoreError, type Backend, type Batch, type Query, type Row, type SqlValue, type TableDef } from './backend.js';
import type { FlowAlertNote, RecordLayout } from './flow-batch.js';
import type { FlowSinkOptions, FlowSinkStats } from './flow-sink.js';
import type { StoreOptions } from './index.js';
import { packBatch } from './batch-wire.js';
import { workerEntry } from './worker-entry.js';

export type ToWorker =
  | { op: 'call'; id: number; name: string; args: unknown[] }
  | { op: 'push'; ifid: number; n: number; bytes: number; buf: ArrayBuffer };

export type WireError = { kind?: 'unavailable' | 'query'; message: string };
export type FromWorker =
  | { op: 'ready'; dialect: Backend['dialect']; description: string }
  | { op: 'failed'; error: WireError }
  | { op: 'reply'; id: number; value?: unknown; error?: WireError }
  | { op: 'buf'; buf: ArrayBuffer }
  | { op: 'counts'; ifid: number; written: number; drops: number }
  | { op: 'flowAlerts'; notes: FlowAlertNote[]; dropped: number }
  | { op: 'log'; line: string };

/** What the flow writer hears back from the worker. */
export interface FlowChannelEvents {
  buffer(buf: ArrayBuffer): void;
  counts(ifid: number, written: number, drops: number): void;
  log(line: string): void;
  flowAlerts?(notes: FlowAlertNote[], dropped: number): void;
}

const toError = (e: WireError) => (e.kind ? new StoreError(e.kind, e.message) : new Error(e.message));

export class WorkerBackend implements Backend {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private flows: FlowChannelEvents | null = null;
  private closed = false;

  private constructor(
    private readonly worker: Worker,
    readonly dialect: Backend['dialect'],
    readonly description: string,
  ) {
    worker.on('message', (m: FromWorker) => this.onMessage(m));
    worker.on('error', (e) => this.failAll(new StoreError('unavailable', `store worker: ${e.message}`, { cause: e })));
    worker.on('exit', () => this.failAll(new StoreError('unavailable', `${this.description}: closed`)));
    worker.unref();
  }

  /** Starts the worker and opens the store in it; throws StoreError('unavailable') with the reason. */
  static open(o: StoreOptions): Promise<WorkerBackend> {
    const worker = new Worker(workerEntry('store-worker'), { workerData: o });
    return new Promise((resolve, reject) => {
      const first = (m: FromWorker) => {
        worker.off('error', early);
        if (m.op === 'ready') resolve(new WorkerBackend(worker, m.dialect, m.description));
        else {
          void worker.terminate();
          reject(m.op === 'failed' ? toError(m.error) : new Error(`store worker: unexpected ${m.op}`));
        }
      };
      const early = (e: Error) => reject(new StoreError('unavailable', `store worker: ${e.message}`, { cause: e }));
      worker.once('message', first);
      worker.once('error', early);
    });
  }

  private onMessage(m: FromWorker): void {
    switch (m.op) {
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (!this.pending.size) this.worker.unref();
        if (m.error) p.reject(toError(m.error));
        else p.resolve(m.value);
        return;
      }
      case 'buf':
        return this.flows?.buffer(m.buf);
      case 'counts':
        return this.flows?.counts(m.ifid, m.written, m.drops);
      case 'log':
        return this.flows?.log(m.line);
      case 'flowAlerts':
        return this.flows?.flowAlerts?.(m.notes, m.dropped);
    }
  }

  private failAll(e: Error): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** One call on the worker; the worker keeps the process alive only while calls are pending. */
  private call<T>(op: string, ...args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError('unavailable', `${this.description}: closed`));
    const id = this.nextId++;
    if (!this.pending.size) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ op: 'call', id, name: op, args } satisfies ToWorker);
    });
  }

  ensureTable(t: TableDef): Promise<void> {
    return this.call('ensureTable', t);
  }
  /** Batches are copied to the worker as batch-wire.ts packs them (the caller keeps its arrays); flows travel raw (flowChannel). */
  append(t: TableDef, batch: Batch): Promise<void> {
    return this.call('append', t, packBatch(batch).wire);
  }
  query(q: Query): Promise<Row[]> {
    return this.call('query', q);
  }
  partitions(t: TableDef): Promise<{ day: string; bytes: number; rows: number }[]> {
    return this.call('partitions', t);
  }
  dropPartition(t: TableDef, day: string): Promise<void> {
    return this.call('dropPartition', t, day);
  }
  deleteWhere(t: TableDef, where: Query): Promise<number> {
    return this.call('deleteWhere', t, where);
  }
  updateWhere(t: TableDef, set: readonly { column: string; value: SqlValue }[], where: Query): Promise<number> {
    return this.call('updateWhere', t, set, where);
  }
  async close(): Promise<void> {
    if (this.closed) return;
    await this.call('close');
    this.closed = true;
    await this.worker.terminate();
  }

  // ---------------------------------------------------------------- flows

  /** Starts the worker's flow sink (one per store) and routes its events. */
  async openFlows(layout: RecordLayout, o: FlowSinkOptions, ev: FlowChannelEvents): Promise<void> {
    await this.call('flows.open', layout, o);
    this.flows = ev;
  }
  attachFlows(ifid: number, runId: number, staleSec: number): Promise<void> {
    return this.call('flows.attach', ifid, runId, staleSec);
  }
  /** Hands `n` records (the buffer's first `bytes`) to the worker; the buffer is detached here until `buffer()` returns it. */
  pushFlows(ifid: number, buf: ArrayBuffer, n: number, bytes: number): void {
    this.worker.postMessage({ op: 'push', ifid, n, bytes, buf } satisfies ToWorker, [buf]);
  }
  /** The risks whose flow checks are enabled (see catalogue.ts setEnabledRisks); records pushed after this use them. */
  setFlowRisks(lo: number, hi: number, own: number, params: FlowCheckParams): Promise<void> {
    return this.call('flows.risks', lo, hi, own, params);
  }
  /** The alert exclusions (exclusion-table.ts); records pushed after this obey them. */
  setFlowExclusions(rec: ExclusionRecord): Promise<void> {
    return this.call('flows.exclusions', rec);
  }
  /** Whether records pushed after this report their flow alerts. */
  setFlowNotes(on: boolean): Promise<void> {
    return this.call('flows.notes', on);
  }
  /** Resolves once every record pushed before is written or dropped (and counted). */
  flushFlows(): Promise<void> {
    return this.call('flows.flush');
  }
  flowStats(): Promise<FlowSinkStats | null> {
    return this.call('flows.stats');
  }
}
