// The one way to open the historical store: embedded DuckDB in the data
// directory unless a ClickHouse URL is given.
import { join } from 'node:path';

import type { Backend } from './backend.js';
import { ClickHouseBackend, type ClickHouseOptions } from './clickhouse.js';
import { DuckDbBackend } from './duckdb.js';

export * from './backend.js';

export interface StoreOptions {
  /** the service's data directory: DuckDB keeps <dataDir>/history.duckdb */
  dataDir: string;
  /** ClickHouse instead of DuckDB (`--clickhouse`, `--clickhouse-user`, `--clickhouse-password`) */
  clickhouse?: ClickHouseOptions | null;
}

/** Opens (creating if needed) the store; throws StoreError('unavailable') with the reason. */
export function openStore(o: StoreOptions): Promise<Backend> {
  if (o.clickhouse) return ClickHouseBackend.open(o.clickhouse);
  return DuckDbBackend.open(join(o.dataDir, 'history.duckdb'));
}
