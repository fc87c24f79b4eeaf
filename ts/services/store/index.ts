// The one way to open the historical store: embedded DuckDB in the data
// directory unless a ClickHouse URL is given, run on the store's worker
// thread (worker-backend.ts).
import { join } from 'node:path';

import type { Backend } from './backend.js';
import { ClickHouseBackend, type ClickHouseOptions } from './clickhouse.js';
import { DuckDbBackend } from './duckdb.js';
import { WorkerBackend } from './worker-backend.js';

export * from './backend.js';

export interface StoreOptions {
  /** the service's data directory: DuckDB keeps <dataDir>/history.duckdb */
  dataDir: string;
  /** ClickHouse instead of DuckDB (`--clickhouse`, `--clickhouse-user`, `--clickhouse-password`) */
  clickhouse?: ClickHouseOptions | null;
}

/** Opens (creating if needed) the store on its worker thread; throws StoreError('unavailable') with the reason. */
export function openStore(o: StoreOptions): Promise<WorkerBackend> {
  return WorkerBackend.open(o);
}

/** Opens the store on the calling thread (the store worker; DuckDB: once per process). */
export function openStoreInThread(o: StoreOptions): Promise<Backend> {
  if (o.clickhouse) return ClickHouseBackend.open(o.clickhouse);
  return DuckDbBackend.open(join(o.dataDir, 'history.duckdb'));
}
