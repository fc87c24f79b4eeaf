// ⑧ The historical store's thread: it opens the store (DuckDB's one
// instance in this process, or the ClickHouse client), runs every Backend
// call the main thread sends, and appends the flow writer's batches. The
// main thread only drains the engines' rings into pooled buffers and
// transfers them here; they go on to the decoding thread (flow-decoder.ts,
// started here with the flow sink) and come back as batches. Decoding and
// DuckDB's synchronous appends thus run side by side, neither on the event
// loop. Protocol: worker-backend.ts (main ↔ here), DecoderIn/DecoderOut
// (here ↔ decoder).
import { parentPort, Worker, workerData } from 'node:worker_threads';

import type { TableDef } from './backend.js';
import { StoreError, type Backend } from './backend.js';
import { unpackBatch, type WireBatch } from './batch-wire.js';
import { openStoreInThread, type StoreOptions } from './index.js';
import { workerEntry } from './worker-entry.js';
import type { FromWorker, ToWorker, WireError } from './worker-backend.js';
import type { FlowAlertNote } from './flow-batch.js';

export type DecoderIn =
  | { op: 'call'; id: number; name: string; args: unknown[] }
  | { op: 'push'; ifid: number; n: number; bytes: number; buf: ArrayBuffer }
  | { op: 'appended'; id: number; error?: WireError };
export type DecoderOut =
  | { op: 'reply'; id: number; value?: unknown; error?: WireError }
  | { op: 'append'; id: number; table: TableDef; batch: WireBatch }
  | { op: 'buf'; buf: ArrayBuffer }
  | { op: 'counts'; ifid: number; written: number; drops: number }
  | { op: 'flowAlerts'; notes: FlowAlertNote[]; dropped: number }
  | { op: 'log'; line: string };

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
const errorOf = (e: unknown) => ({ kind: e instanceof StoreError ? e.kind : undefined, message: (e as Error)?.message ?? String(e) });

let backend: Backend;
let decoder: Worker | null = null;
let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function startDecoder(): Worker {
  const w = new Worker(workerEntry('flow-decoder'));
  w.on('message', (m: DecoderOut) => {
    switch (m.op) {
      case 'buf':
        return post(m, [m.buf]);
      case 'counts':
      case 'flowAlerts':
      case 'log':
        return post(m);
      case 'append':
        // one at a time (the decoder's sink waits for each): DuckDB's append is synchronous here
        backend.append(m.table, unpackBatch(m.batch)).then(
          () => w.postMessage({ op: 'appended', id: m.id } satisfies DecoderIn),
          (e) => w.postMessage({ op: 'appended', id: m.id, error: errorOf(e) } satisfies DecoderIn),
        );
        return;
      case 'reply': {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p?.reject(new Error(m.error.message));
        else p?.resolve(m.value);
      }
    }
  });
  w.on('error', (e) => post({ op: 'log', line: `flowgate: historical store: flow decoder failed: ${e.message}` }));
  return w;
}

/** A call on the decoder's flow sink. */
function sinkCall(name: string, args: unknown[]): Promise<unknown> {
  if (!decoder) return Promise.resolve(null);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    decoder!.postMessage({ op: 'call', id, name, args } satisfies DecoderIn);
  });
}

async function call(op: string, args: unknown[]): Promise<unknown> {
  const a = args as never[];
  switch (op) {
    case 'ensureTable':
      return backend.ensureTable(a[0]);
    case 'append':
      return backend.append(a[0], unpackBatch(a[1]));
    case 'query':
      return backend.query(a[0]);
    case 'partitions':
      return backend.partitions(a[0]);
    case 'dropPartition':
      return backend.dropPartition(a[0], a[1]);
    case 'deleteWhere':
      return backend.deleteWhere(a[0], a[1]);
    case 'updateWhere':
      return backend.updateWhere(a[0], a[1], a[2]);
    case 'close':
      if (decoder) {
        await sinkCall('close', []);
        await decoder.terminate();
        decoder = null;
      }
      return backend.close();
    case 'flows.open':
      decoder ??= startDecoder();
      return sinkCall(op, [...args, backend.description]);
    // the checks configuration, the alert exclusions: rows decoded from now on use them
    case 'flows.risks':
    case 'flows.exclusions':
    case 'flows.notes':
    case 'flows.attach':
    case 'flows.flush':
    case 'flows.stats':
      return sinkCall(op, args);
    default:
      throw new Error(`store worker: unknown call ${op}`);
  }
}

port.on('message', (m: ToWorker) => {
  if (m.op === 'push') {
    // on to the decoder, which hands the buffer back to the main thread's pool
    if (decoder) decoder.postMessage(m satisfies DecoderIn, [m.buf]);
    else post({ op: 'buf', buf: m.buf }, [m.buf]);
    return;
  }
  call(m.name, m.args).then(
    (value) => post({ op: 'reply', id: m.id, value }),
    (e) => post({ op: 'reply', id: m.id, error: errorOf(e) }),
  );
});

try {
  backend = await openStoreInThread(workerData as StoreOptions);
  post({ op: 'ready', dialect: backend.dialect, description: backend.description });
} catch (e) {
  post({ op: 'failed', error: errorOf(e) });
}
