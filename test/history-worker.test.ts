// The flow writer keeps DuckDB off the event loop: with the store opened as
// the service opens it (openStore), a generated capture of 60 k flows is
// written while the main thread's decoder, sink and DuckDB appender are
// spied on. They must never run here: the rows are decoded and appended on
// the store's worker thread (its thread id reported by the sink), every flow
// the engine made is in the table, and the interface counters agree. A
// change that put decoding or appends back on the event loop fails here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { generate } from '../bench/gen/generate.js';
import { Interfaces } from '../ts/services/interfaces.js';
import { DuckDbBackend } from '../ts/services/store/duckdb.js';
import { FlowBatch } from '../ts/services/store/flow-batch.js';
import { FlowSink } from '../ts/services/store/flow-sink.js';
import { FlowWriter } from '../ts/services/store/flow-writer.js';
import { openStore } from '../ts/services/store/index.js';
import { WorkerBackend } from '../ts/services/store/worker-backend.js';

const FLOWS = 60_000;

describe('flow writer on the store worker', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowgate-worker-'));
    file = join(dir, 'many.pcap');
    generate({ out: file, flows: FLOWS, packets: 4 * FLOWS, hosts: 2000, seed: 3 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes and appends on the worker thread, never on the event loop, and loses nothing', async () => {
    const add = vi.spyOn(FlowBatch.prototype, 'add');
    const push = vi.spyOn(FlowSink.prototype, 'push');
    const append = vi.spyOn(DuckDbBackend.prototype, 'append');
    const backend = await openStore({ dataDir: dir });
    expect(backend).toBeInstanceOf(WorkerBackend);
    // small batches: many appends while the engine still runs (queue deep enough for the end-of-capture burst)
    const writer = await FlowWriter.open(backend, { batchRows: 2048, maxQueued: 64, log: () => {} });
    const ifaces = new Interfaces([{ source: file }], { flushAtEnd: true, periodicDumpSec: 0 });
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    try {
      ifaces.start(writer);
      await ifaces.list[0]!.engine.waitDone();
      await writer.flush();
      loop.disable();
      const flows = ifaces.list[0]!.engine.stats().flows_created;
      expect(flows).toBeGreaterThan(FLOWS * 0.9);
      const stored = Number((await backend.query({ sql: 'SELECT count(DISTINCT FLOW_ID) AS n, count(*) AS r FROM flows', params: [] }))[0]!.n);
      expect(stored).toBe(flows);
      expect(writer.counters(0)).toMatchObject({ flow_export_count: flows, flow_export_drops: 0 });
      // where the work ran
      const s = (await writer.sinkStats())!;
      expect(s.threadId).not.toBe(threadId);
      expect(s.rows).toBe(flows);
      expect(s.batches).toBeGreaterThanOrEqual(Math.ceil(flows / 2048));
      expect(add).not.toHaveBeenCalled();
      expect(push).not.toHaveBeenCalled();
      expect(append).not.toHaveBeenCalled();
      // a figure for the log, not a test: timings vary with the machine
      console.log(`event loop worst delay while ${flows} flows were written: ${(loop.max / 1e6).toFixed(1)} ms`);
    } finally {
      await writer.close();
      ifaces.close();
      await backend.close();
      vi.restoreAllMocks();
    }
  });

  it('a Backend made on this thread gets a sink on this thread (the spies see it)', async () => {
    const push = vi.spyOn(FlowSink.prototype, 'push');
    const inner = await openStore({ dataDir: join(dir, 'local') });
    // a plain object delegating to the store: not a WorkerBackend
    const local = {
      dialect: inner.dialect,
      description: 'local',
      ensureTable: inner.ensureTable.bind(inner),
      append: inner.append.bind(inner),
      query: inner.query.bind(inner),
      partitions: inner.partitions.bind(inner),
      dropPartition: inner.dropPartition.bind(inner),
      deleteWhere: inner.deleteWhere.bind(inner),
      updateWhere: inner.updateWhere.bind(inner),
      close: inner.close.bind(inner),
    };
    const writer = await FlowWriter.open(local, { batchRows: 4096, maxQueued: 64, log: () => {} });
    const ifaces = new Interfaces([{ source: file }], { flushAtEnd: true, periodicDumpSec: 0 });
    try {
      ifaces.start(writer);
      await ifaces.list[0]!.engine.waitDone();
      await writer.flush();
      expect(push).toHaveBeenCalled();
      expect((await writer.sinkStats())!.threadId).toBe(threadId);
      const flows = ifaces.list[0]!.engine.stats().flows_created;
      expect(writer.counters(0).flow_export_count).toBe(flows);
    } finally {
      await writer.close();
      ifaces.close();
      await inner.close();
      vi.restoreAllMocks();
    }
  });
});
