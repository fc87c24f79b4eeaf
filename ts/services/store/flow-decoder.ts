// ⑧ The flow writer's decoding thread, started by the store worker: raw
// expired-flow records in (transferred from the main thread through the
// store worker), FlowSink's batches out, their buffers transferred to the
// store worker, which appends them. Decoding the next batch here while the
// store worker's DuckDB append (synchronous) writes the last one puts the
// writer's two halves on two cores.
// Protocol: store-worker.ts (DecoderIn / DecoderOut).
import { parentPort, threadId } from 'node:worker_threads';

import { setFlowExclusions } from '../alerts/exclusion-table.js';
import { NO_PARAMS, setFlowChecks } from '../checks/flow-record-checks.js';
import { StoreError, type Backend, type Batch, type TableDef } from './backend.js';
import { packBatch } from './batch-wire.js';
import { useRecordLayout, type RecordLayout } from './flow-batch.js';
import { FlowSink, type FlowSinkOptions } from './flow-sink.js';
import type { DecoderIn, DecoderOut } from './store-worker.js';

const port = parentPort!;
const post = (m: DecoderOut, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);

let sink: FlowSink | null = null;
let nextId = 1;
const appends = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

/** The sink's Backend here: append() hands the batch (buffers transferred) to the store worker. */
const remote = {
  dialect: 'duckdb',
  description: 'store worker',
  append(t: TableDef, batch: Batch): Promise<void> {
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      const { wire, transfer } = packBatch(batch);
      appends.set(id, { resolve, reject });
      post({ op: 'append', id, table: t, batch: wire }, transfer);
    });
  },
} as unknown as Backend;

function call(op: string, a: never[]): unknown {
  switch (op) {
    case 'flows.open':
      useRecordLayout(a[0] as RecordLayout);
      sink?.close();
      (remote as { description: string }).description = a[2];
      // three batches at the store worker at once: it always has the next one to append
      sink = new FlowSink(remote, { ...(a[1] as FlowSinkOptions), inflight: 3 }, {
        counts: (ifid, written, drops) => post({ op: 'counts', ifid, written, drops }),
        log: (line) => post({ op: 'log', line }),
        flowAlerts: (notes, dropped) => post({ op: 'flowAlerts', notes, dropped }),
      });
      return;
    case 'flows.risks':
      return setFlowChecks(a[0], a[1], a[2], a[3] ?? NO_PARAMS);
    case 'flows.exclusions':
      return setFlowExclusions(a[0]);
    case 'flows.notes':
      return sink?.setNotes(a[0] as boolean);
    case 'flows.attach':
      return sink!.attach(a[0], a[1], a[2]);
    case 'flows.flush':
      return sink?.flush();
    case 'flows.stats':
      return sink ? { ...sink.stats, threadId } : null;
    case 'close':
      return sink?.close();
    default:
      throw new Error(`flow decoder: unknown call ${op}`);
  }
}

/**
 * Records and calls in arrival order, one a turn: the store worker's answers
 * ('appended', taken at once) are heard in between, and a call (flush, the
 * risks, the exclusions) applies after the records pushed before it.
 */
const todo: Exclude<DecoderIn, { op: 'appended' }>[] = [];

function next(): void {
  const m = todo.shift();
  if (!m) return;
  if (m.op === 'push') {
    // the rows now live in the batch: the buffer goes back to the main thread's pool
    sink?.push(m.ifid, new Uint8Array(m.buf, 0, m.bytes), m.n);
    post({ op: 'buf', buf: m.buf }, [m.buf]);
  } else {
    Promise.resolve()
      .then(() => call(m.name, m.args as never[]))
      .then(
        (value) => post({ op: 'reply', id: m.id, value }),
        (e: Error) => post({ op: 'reply', id: m.id, error: { message: e?.message ?? String(e) } }),
      );
  }
  if (todo.length) setImmediate(next);
}

port.on('message', (m: DecoderIn) => {
  if (m.op !== 'appended') {
    if (todo.push(m) === 1) setImmediate(next);
    return;
  }
  const p = appends.get(m.id);
  appends.delete(m.id);
  if (m.error) p?.reject(new StoreError(m.error.kind ?? 'query', m.error.message));
  else p?.resolve();
});
