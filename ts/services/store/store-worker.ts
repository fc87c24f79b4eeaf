// ⑧ The historical store's thread: it opens the store (DuckDB's one
// instance in this process, or the ClickHouse client), runs every Backend
// call the main thread sends, and hosts the flow writer's back half
// (FlowSink: decode, batch, append, checkpoint). The main thread only drains
// the engines' rings into pooled buffers and transfers them here, so neither
// decoding nor DuckDB's synchronous appends ever hold up the event loop.
// Protocol: worker-backend.ts.
import { parentPort, workerData } from 'node:worker_threads';

import { setEnabledRisks } from '../alerts/catalogue.js';
import { setFlowExclusions } from '../alerts/exclusion-table.js';
import { StoreError, type Backend } from './backend.js';
import { useRecordLayout, type RecordLayout } from './flow-batch.js';
import { FlowSink, type FlowSinkOptions } from './flow-sink.js';
import { openStoreInThread, type StoreOptions } from './index.js';
import type { FromWorker, ToWorker } from './worker-backend.js';

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
const errorOf = (e: unknown) => ({ kind: e instanceof StoreError ? e.kind : undefined, message: (e as Error)?.message ?? String(e) });

let backend: Backend;
let sink: FlowSink | null = null;

async function call(op: string, args: unknown[]): Promise<unknown> {
  const a = args as never[];
  switch (op) {
    case 'ensureTable':
      return backend.ensureTable(a[0]);
    case 'append':
      return backend.append(a[0], a[1]);
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
      sink?.close();
      return backend.close();
    case 'flows.open': {
      useRecordLayout(a[0] as RecordLayout);
      sink?.close();
      sink = new FlowSink(backend, a[1] as FlowSinkOptions, {
        counts: (ifid, written, drops) => post({ op: 'counts', ifid, written, drops }),
        log: (line) => post({ op: 'log', line }),
      });
      return;
    }
    case 'flows.risks':
      // the checks configuration changed: rows decoded from now on use it
      return setEnabledRisks(a[0], a[1]);
    case 'flows.exclusions':
      // the alert exclusions changed: rows decoded from now on obey them
      return setFlowExclusions(a[0]);
    case 'flows.attach':
      return sink!.attach(a[0], a[1], a[2]);
    case 'flows.flush':
      return sink?.flush();
    case 'flows.stats':
      return sink?.stats ?? null;
    default:
      throw new Error(`store worker: unknown call ${op}`);
  }
}

port.on('message', (m: ToWorker) => {
  if (m.op === 'push') {
    // decoded at once (the rows now live in the batch), the buffer goes back to the pool
    sink?.push(m.ifid, new Uint8Array(m.buf, 0, m.bytes), m.n);
    post({ op: 'buf', buf: m.buf }, [m.buf]);
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
