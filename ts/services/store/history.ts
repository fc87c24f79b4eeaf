// The historical store as the service runs it: one Backend for the whole
// process, the flow writer feeding it, retention trimming it. A store that
// cannot open (ClickHouse down, a locked DuckDB file) is one log line: the
// service keeps serving the live API without history.
import { join, resolve } from 'node:path';

import type { Backend } from './backend.js';
import type { ClickHouseOptions } from './clickhouse.js';
import { FLOWS_TABLE } from './flow-columns.js';
import { FlowWriter, type FlowWriterOptions } from './flow-writer.js';
import { openStore } from './index.js';
import { Retention } from './retention.js';
import { ALERT_TABLES } from '../alerts/alert-tables.js';
import { PURGE_FILE, clearPurge, describePurge, pendingPurge, purgeFilesFirst, purgeTables, type PurgeRequest } from '../purge.js';

export interface HistoryOptions {
  dataDir: string;
  clickhouse?: ClickHouseOptions | null;
  /** --history-retention-days (default 30) */
  retentionDays?: number;
  /** --history-max-gb */
  maxGb?: number;
  writer?: FlowWriterOptions;
  /** startup line (default stdout) */
  print?: (line: string) => void;
  /** errors later on (default stderr) */
  log?: (line: string) => void;
}

export interface History {
  backend: Backend;
  writer: FlowWriter;
  retention: Retention;
  /**
   * Writes the flows still active (`expireActive`, default true: the
   * service stops), flushes the writer, stops retention, closes the store.
   */
  close(o?: { expireActive?: boolean }): Promise<void>;
}

export async function startHistory(o: HistoryOptions): Promise<History | null> {
  const print = o.print ?? ((l: string) => console.log(l));
  const log = o.log ?? ((l: string) => console.error(l));
  const dataDir = resolve(o.dataDir);
  // a purge asked for by delete/system/all_data.lua, carried out before anything uses the store
  let purge: PurgeRequest | null = null;
  try {
    purge = pendingPurge(dataDir);
  } catch (e) {
    log(`flowgate: purge request ${join(dataDir, PURGE_FILE)} unreadable, nothing purged (${(e as Error).message})`);
  }
  const purgedFiles = purge ? purgeFilesFirst(dataDir, purge) : [];
  let backend: Backend;
  try {
    backend = await openStore({ dataDir, clickhouse: o.clickhouse });
  } catch (e) {
    print(`flowgate: historical store: unavailable, flows are not stored (${(e as Error).message})`);
    if (purge) print(`flowgate: purge of ${describePurge(purge)} still pending: carried out at the next start whose historical store opens`);
    return null;
  }
  if (purge) {
    try {
      // the DuckDB file deleted is the whole store: nothing left to empty
      const parts = purgedFiles.length && backend.dialect === 'duckdb' ? [] : await purgeTables(backend, purge);
      clearPurge(dataDir);
      const what = [...purgedFiles.map((f) => `deleted ${f}`), ...(parts.length ? [`dropped ${parts.length} day partition(s) in ${backend.description}`] : [])];
      print(
        `flowgate: purged ${describePurge(purge)} as requested by ${purge.requested_by || '?'} at ${new Date(purge.requested_at * 1000).toISOString()}` +
          ` (${what.length ? what.join(', ') : 'nothing was stored'}; users and settings kept)`,
      );
    } catch (e) {
      print(`flowgate: purge of ${describePurge(purge)} failed, still pending for the next start (${(e as Error).message})`);
    }
  }
  let writer: FlowWriter;
  try {
    writer = await FlowWriter.open(backend, { log, ...o.writer });
  } catch (e) {
    print(`flowgate: historical store: unavailable, flows are not stored (${(e as Error).message})`);
    await backend.close().catch(() => undefined);
    return null;
  }
  // the alert tables live and age with the flows (created here so retention can see them from its first check)
  const alertTables = Object.values(ALERT_TABLES);
  try {
    for (const t of alertTables) await backend.ensureTable(t);
  } catch (e) {
    log(`flowgate: historical store: alert tables unavailable (${(e as Error).message})`);
    alertTables.length = 0;
  }
  const days = o.retentionDays ?? 30;
  const retention = new Retention(backend, {
    days,
    maxBytes: o.maxGb !== undefined ? o.maxGb * 2 ** 30 : undefined,
    log,
  }).track(FLOWS_TABLE);
  for (const t of alertTables) retention.track(t);
  retention.start();
  const limits = [days > 0 ? `${days} days` : 'no age limit', ...(o.maxGb !== undefined ? [`at most ${o.maxGb} GB`] : [])];
  print(`flowgate: historical store: ${backend.description} (flows kept ${limits.join(', ')})`);
  return {
    backend,
    writer,
    retention,
    close: async (c = {}) => {
      retention.stop();
      await writer.close({ expireActive: c.expireActive ?? true }).catch((e: Error) => log(`flowgate: historical store: ${e.message}`));
      await backend.close();
    },
  };
}
