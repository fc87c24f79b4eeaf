// Retention of the historical store: whole day-partitions dropped, oldest
// first, by age (--history-retention-days, default 30) and by total size
// (--history-max-gb, optional). Checked at start and then periodically.
//
// Age counts from the newest stored day, capped at today (UTC): on a live
// link that is today; a replayed old capture keeps its own days instead of
// being dropped the moment it is written, and a stray future timestamp
// cannot wipe the store. The newest day is never dropped for size.
import type { Backend, TableDef } from './backend.js';
import { measured } from '../periodic.js';

export interface RetentionOptions {
  /** days kept (default 30); 0 = no age limit */
  days?: number;
  /** bytes kept across the tracked tables; undefined = no size limit */
  maxBytes?: number;
  log?: (line: string) => void;
}

const dayNumber = (day: string) => Date.UTC(+day.slice(0, 4), +day.slice(4, 6) - 1, +day.slice(6, 8)) / 86400_000;

export class Retention {
  private readonly tables: TableDef[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;

  /** the period run() is measured against (start's) */
  private periodSec = 600;

  constructor(
    private readonly backend: Backend,
    readonly o: RetentionOptions = {},
  ) {}

  /** Another partitioned table under the same rules (flows, timeseries …). */
  track(t: TableDef): this {
    if (t.partitionBy && !this.tables.some((x) => x.name === t.name)) this.tables.push(t);
    return this;
  }

  start(periodMs = 10 * 60_000): this {
    this.periodSec = periodMs / 1000;
    void this.run();
    this.timer = setInterval(() => void this.run(), periodMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One check; returns what was dropped ('table/day'). Never throws (logs). */
  run(now = new Date()): Promise<string[]> {
    this.running ??= measured('historical_retention', this.periodSec, () => this.check(now))
      .catch((e: Error) => {
        this.o.log?.(`flowgate: historical store: retention check failed: ${e.message}`);
        return [];
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async check(now: Date): Promise<string[]> {
    const dropped: string[] = [];
    const parts: { t: TableDef; day: string; bytes: number }[] = [];
    for (const t of this.tables) for (const p of await this.backend.partitions(t)) parts.push({ t, day: p.day, bytes: p.bytes });
    if (!parts.length) return dropped;
    parts.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
    const today = Math.floor(now.getTime() / 86400_000);
    const newest = Math.min(dayNumber(parts[parts.length - 1].day), today);
    const days = this.o.days ?? 30;
    let total = parts.reduce((a, p) => a + p.bytes, 0);
    const newestDay = parts[parts.length - 1].day;
    for (const p of parts) {
      const old = days > 0 && dayNumber(p.day) <= newest - days;
      const over = this.o.maxBytes !== undefined && total > this.o.maxBytes && p.day !== newestDay;
      if (!old && !over) continue;
      await this.backend.dropPartition(p.t, p.day);
      total -= p.bytes;
      dropped.push(`${p.t.name}/${p.day}`);
    }
    if (dropped.length) {
      this.o.log?.(`flowgate: historical store: retention dropped ${dropped.length} day partition(s): ${dropped.join(', ')}`);
    }
    return dropped;
  }
}
