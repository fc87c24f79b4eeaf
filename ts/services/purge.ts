// ⑧ ntopng's delete/system/all_data.lua: a purge of the historical data is
// recorded at once (a small JSON file in the data directory, written
// atomically) and carried out at the next start, before the historical store
// is used (startHistory calls carryOutPurge right after opening it).
//
//   clickhouse — "the flows database": the flows and the stored alerts (the
//                tables ntopng keeps in ClickHouse), in whichever store runs
//                (DuckDB <data-dir>/history.duckdb or ClickHouse); the
//                timeseries stay.
//   datadir    — all the historical data: flows, alerts and timeseries. With
//                DuckDB the file <data-dir>/history.duckdb (and its WAL) is
//                deleted; with ClickHouse its flow, alert and timeseries
//                tables are emptied, and a DuckDB file left in the data
//                directory by an earlier run is deleted too.
//
// Never purged: <data-dir>/config (the LMDB configuration: users, sessions,
// API tokens, preferences, checks, pools, notifications, host aliases, learned
// devices, …) and <data-dir>/admin-password, as ntopng's purge keeps its
// preferences in Redis.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { ALERT_TABLES } from './alerts/alert-tables.js';
import type { Backend, TableDef } from './store/backend.js';
import { FLOWS_TABLE } from './store/flow-columns.js';
import { TABLES as TS_TABLES } from './timeseries/store.js';

/** the pending request, in the data directory */
export const PURGE_FILE = 'purge-request.json';
/** the DuckDB history file in the data directory (store/index.ts) and its write-ahead log */
const DUCKDB_FILES = ['history.duckdb', 'history.duckdb.wal'];

export interface PurgeRequest {
  /** purge the flows database (flows and stored alerts) */
  clickhouse: boolean;
  /** purge all the historical data (flows, alerts, timeseries) */
  datadir: boolean;
  /** epoch s of the (latest) request */
  requested_at: number;
  /** who asked (the latest request) */
  requested_by: string;
}

export interface PurgeResult {
  request: PurgeRequest;
  /** files deleted (paths) */
  files: string[];
  /** 'table/day' partitions dropped */
  partitions: string[];
}

/** The request waiting for the next start, or null. An unreadable file is reported as an error (the start stops nothing, the file stays). */
export function pendingPurge(dataDir: string): PurgeRequest | null {
  const path = join(dataDir, PURGE_FILE);
  if (!existsSync(path)) return null;
  const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<PurgeRequest>;
  if (typeof v !== 'object' || v === null) throw new Error(`${path}: not a purge request`);
  return {
    clickhouse: v.clickhouse === true,
    datadir: v.datadir === true,
    requested_at: Number(v.requested_at) || 0,
    requested_by: String(v.requested_by ?? ''),
  };
}

/**
 * Records a purge for the next start, merged with one already pending (a
 * second request adds what it asks, never cancels). Written to a temporary
 * file, synced, then renamed over the request: a crash leaves the old request
 * or the new one, never half of one.
 */
export function recordPurge(dataDir: string, want: { clickhouse: boolean; datadir: boolean }, by: string, now = Math.floor(Date.now() / 1000)): PurgeRequest {
  let prev: PurgeRequest | null = null;
  try {
    prev = pendingPurge(dataDir);
  } catch {
    /* an unreadable request is replaced */
  }
  const req: PurgeRequest = {
    clickhouse: want.clickhouse || !!prev?.clickhouse,
    datadir: want.datadir || !!prev?.datadir,
    requested_at: now,
    requested_by: by,
  };
  const path = join(dataDir, PURGE_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(req)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // the rename itself is durable once the directory is synced
  try {
    const dfd = openSync(dataDir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* a directory that cannot be opened for syncing (not Linux) */
  }
  return req;
}

/** Whether the DuckDB history files are deleted before the store opens (datadir with DuckDB, or a file left beside ClickHouse). */
export function purgeFilesFirst(dataDir: string, req: PurgeRequest): string[] {
  if (!req.datadir) return [];
  const gone: string[] = [];
  for (const f of DUCKDB_FILES) {
    const p = join(dataDir, f);
    if (existsSync(p)) {
      rmSync(p, { force: true });
      gone.push(p);
    }
  }
  return gone;
}

/** The tables a request empties in an open store. */
export function purgedTables(req: PurgeRequest): TableDef[] {
  const out: TableDef[] = [];
  if (req.clickhouse || req.datadir) out.push(FLOWS_TABLE, ...Object.values(ALERT_TABLES));
  if (req.datadir) out.push(...Object.values(TS_TABLES));
  return out;
}

/** Empties the tables of a request in an open store: every day-partition dropped (DuckDB: its day tables; ClickHouse: DROP PARTITION). */
export async function purgeTables(backend: Backend, req: PurgeRequest): Promise<string[]> {
  const dropped: string[] = [];
  for (const t of purgedTables(req)) {
    // DuckDB knows a table's day tables once ensured (idempotent, what the writers do next anyway);
    // ClickHouse lists partitions from system.parts, a missing table having none
    if (backend.dialect === 'duckdb') await backend.ensureTable(t);
    for (const p of await backend.partitions(t)) {
      await backend.dropPartition(t, p.day);
      dropped.push(`${t.name}/${p.day}`);
    }
  }
  return dropped;
}

/** Deletes the request once carried out. */
export function clearPurge(dataDir: string): void {
  rmSync(join(dataDir, PURGE_FILE), { force: true });
}

/** What a request purges, for the log line. */
export function describePurge(req: PurgeRequest): string {
  return req.datadir ? 'all the historical data (flows, alerts, timeseries)' : 'the flows database (flows and stored alerts)';
}
