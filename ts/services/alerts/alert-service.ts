// ⑧ The alert service: what checks raise (AlertSink) held and stored.
//
// Engaged alerts live in memory per interface, keyed by alertKeyText, at
// most `maxEngaged` per interface (a refused one is counted). A release
// stores the alert with its first and last time; an emit stores a one-shot
// alert at once. Writes go through ONE bounded queue, flushed in batches (per
// family table) on a timer or when a batch is full: a storm never blocks the
// caller nor grows memory, what does not fit is counted as dropped, as
// ntopng's NetworkInterface::incNumDroppedAlerts does. Without a store
// (history null) engaged alerts still work and every stored one is dropped.
// A restart keeps stored alerts; engaged ones are raised again by their checks.
import { systemError } from '../system-errors.js';
import type { Backend, Batch } from '../store/backend.js';
import { ALERT_TABLES } from './alert-tables.js';
import { alertColumns } from './alert-row.js';
import { AlertStore } from './alert-store.js';
import { hostEntity } from './alert-row.js';
import { alertKeyText, ALERT_FAMILIES, type AlertFamily, type AlertInput, type AlertKey, type AlertSink, type EngagedAlert } from './types.js';

export interface AlertServiceOptions {
  /** engaged alerts held per interface (default 16384) */
  maxEngaged?: number;
  /** alerts waiting to be written (default 65536) */
  maxQueued?: number;
  /** rows per append (default 4096) */
  batchRows?: number;
  /** the longest an alert waits to be written (default 1000 ms) */
  flushMs?: number;
  /** hosts whose total alert count is kept per interface (default 65536) */
  maxHosts?: number;
  log?: (line: string) => void;
}

/** ntopng's AlertLevelGroup (ntop_typedefs.h): the engaged counts per severity group */
export type SeverityGroup = 'notice' | 'warning' | 'error' | 'critical' | 'emergency';
export const severityGroup = (severity: number): SeverityGroup =>
  severity <= 3 ? 'notice' : severity === 4 ? 'warning' : severity === 5 ? 'error' : severity === 6 ? 'critical' : 'emergency';

export interface InterfaceAlertCounters {
  /** engaged alerts now (NetworkInterface::getNumEngagedAlerts) */
  engaged: number;
  engagedBySeverity: Record<SeverityGroup, number>;
  /** per family (ntopng's num_alerts_engaged_by_entity, by family name) */
  engagedByFamily: Partial<Record<AlertFamily, number>>;
  /** alerts not handled: queue full, store missing or failing, engaged table full */
  dropped: number;
  /** of those, host alerts and the others (ntopng's num_host_dropped_alerts, num_other_dropped_alerts; flow alerts go through the flow writer) */
  droppedBy: DroppedBy;
  /** of those, engage() refused because the interface already holds maxEngaged */
  refused: number;
  /** alerts written to the store */
  written: number;
  /** queries on the stored alerts of this interface */
  queries: number;
}

interface Pending {
  a: AlertInput;
  /** first raised (tstamp) and ended (tstamp_end) */
  begin: number;
  end: number;
  count: number;
}

export interface DroppedBy {
  host: number;
  other: number;
}

interface IfaceState {
  engaged: Map<string, EngagedAlert>;
  dropped: number;
  droppedBy: DroppedBy;
  refused: number;
  written: number;
  queries: number;
  /** 'ip@vlan' → engaged now / raised in total (host entities) */
  hosts: Map<string, { engaged: number; total: number }>;
}

const GROUPS: SeverityGroup[] = ['notice', 'warning', 'error', 'critical', 'emergency'];

export class AlertService implements AlertSink {
  /** the alerts as the endpoints read them (stored ones need a store: `stored`) */
  readonly store: AlertStore;
  private readonly ifaces = new Map<number, IfaceState>();
  private queue: Pending[] = [];
  private readonly subscribers: AlertSink[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly maxEngaged: number;
  private readonly maxQueued: number;
  private readonly batchRows: number;
  private readonly flushMs: number;
  private readonly maxHosts: number;
  private readonly log: (line: string) => void;
  /** a host's pool when its alert is raised (the host_pool_id column); none: 0 */
  private hostPool: ((ifid: number, entityVal: string) => number) | null = null;

  private constructor(
    private readonly backend: Backend | null,
    o: AlertServiceOptions,
  ) {
    this.maxEngaged = o.maxEngaged ?? 16384;
    this.maxQueued = o.maxQueued ?? 65536;
    this.batchRows = o.batchRows ?? 4096;
    this.flushMs = o.flushMs ?? 1000;
    this.maxHosts = o.maxHosts ?? 65536;
    this.log = o.log ?? ((l) => console.error(l));
    this.store = new AlertStore(backend, this);
  }

  /** Creates the family tables (when a store is given); a store that refuses them is one log line and no store. */
  /** alerts waiting to be written now (at most maxQueued) */
  get queued(): number {
    return this.queue.length;
  }

  /** alerts are written to a store */
  get stored(): boolean {
    return this.backend !== null;
  }

  static async open(history: Backend | null, o: AlertServiceOptions = {}): Promise<AlertService> {
    let be = history;
    if (be) {
      try {
        for (const f of ALERT_FAMILIES) await be.ensureTable(ALERT_TABLES[f]);
      } catch (e) {
        (o.log ?? console.error)(`flowgate: alerts: cannot create the alert tables, alerts are not stored (${(e as Error).message})`);
        be = null;
      }
    }
    return new AlertService(be, o);
  }

  private iface(ifid: number): IfaceState {
    let s = this.ifaces.get(ifid);
    if (!s) this.ifaces.set(ifid, (s = { engaged: new Map(), dropped: 0, droppedBy: { host: 0, other: 0 }, refused: 0, written: 0, queries: 0, hosts: new Map() }));
    return s;
  }

  /** one alert not handled, counted by its family */
  private drop(s: IfaceState, family: AlertFamily): void {
    s.dropped++;
    s.droppedBy[family === 'host' ? 'host' : 'other']++;
  }

  private host(s: IfaceState, a: AlertKey): { engaged: number; total: number } | null {
    if (a.family !== 'host') return null;
    let h = s.hosts.get(a.entityVal);
    if (!h) {
      if (s.hosts.size >= this.maxHosts) return null;
      s.hosts.set(a.entityVal, (h = { engaged: 0, total: 0 }));
    }
    return h;
  }

  // ── AlertSink ────────────────────────────────────────────────────────

  /** Another sink that sees every engage, release and emit after this service (notification recipients, tests). */
  /** How a host alert learns its host's pool (pools are opened after this service). */
  setHostPool(fn: (ifid: number, entityVal: string) => number): void {
    this.hostPool = fn;
  }

  /** a host alert carries its host's pool at the time it is raised, as ntopng's host alerts do */
  private withPool(a: AlertInput): AlertInput {
    if (a.family !== 'host' || !this.hostPool || a.fields.host_pool_id !== undefined) return a;
    return { ...a, fields: { ...a.fields, host_pool_id: this.hostPool(a.ifid, a.entityVal) } };
  }

  subscribe(sink: AlertSink): () => void {
    this.subscribers.push(sink);
    return () => void this.subscribers.splice(this.subscribers.indexOf(sink) >>> 0, 1);
  }

  engage(a: AlertInput): void {
    a = this.withPool(a);
    const s = this.iface(a.ifid);
    const k = alertKeyText(a);
    const cur = s.engaged.get(k);
    if (cur) {
      // a refresh: the latest measure, one more trigger
      cur.tstamp = a.tstamp;
      cur.score = a.score;
      cur.severity = a.severity;
      cur.fields = a.fields;
      cur.json = a.json;
      cur.count++;
      for (const x of this.subscribers) x.engage(a);
      return;
    }
    if (s.engaged.size >= this.maxEngaged) {
      // refused: not engaged, so nobody is told it was
      s.refused++;
      this.drop(s, a.family);
      return;
    }
    s.engaged.set(k, { ...a, firstSeen: a.tstamp, count: 1 });
    for (const x of this.subscribers) x.engage(a);
    const h = this.host(s, a);
    if (h) {
      h.engaged++;
      h.total++;
    }
  }

  release(key: AlertKey, tstamp: number): void {
    for (const x of this.subscribers) x.release(key, tstamp);
    const s = this.ifaces.get(key.ifid);
    const k = alertKeyText(key);
    const cur = s?.engaged.get(k);
    if (!s || !cur) return;
    s.engaged.delete(k);
    const h = s.hosts.get(key.entityVal);
    if (h && key.family === 'host') h.engaged--;
    this.enqueue({ a: cur, begin: cur.firstSeen, end: tstamp, count: cur.count });
  }

  engaged(family: AlertFamily, ifid: number): EngagedAlert[] {
    const out: EngagedAlert[] = [];
    for (const a of this.ifaces.get(ifid)?.engaged.values() ?? []) if (a.family === family) out.push({ ...a });
    return out;
  }

  /**
   * Ends the engaged alerts of a family that `match` picks without storing
   * them (an exclusion added with delete_alerts: they are gone, not history).
   * Returns how many went.
   */
  discardEngaged(family: AlertFamily, match: (a: EngagedAlert) => boolean): number {
    let n = 0;
    for (const s of this.ifaces.values()) {
      for (const [k, a] of s.engaged) {
        if (a.family !== family || !match(a)) continue;
        s.engaged.delete(k);
        const h = family === 'host' ? s.hosts.get(a.entityVal) : undefined;
        if (h) h.engaged--;
        for (const x of this.subscribers) x.forget?.(a);
        n++;
      }
    }
    return n;
  }

  emit(a: AlertInput): void {
    a = this.withPool(a);
    for (const x of this.subscribers) x.emit(a);
    const s = this.iface(a.ifid);
    const h = this.host(s, a);
    if (h) h.total++;
    this.enqueue({ a, begin: a.tstamp, end: a.tstamp, count: 1 });
  }

  // ── counters ─────────────────────────────────────────────────────────

  /** Every engaged alert of an interface (all families), a snapshot. */
  allEngaged(ifid: number): EngagedAlert[] {
    return [...(this.ifaces.get(ifid)?.engaged.values() ?? [])].map((a) => ({ ...a }));
  }

  counters(ifid: number): InterfaceAlertCounters {
    const s = this.ifaces.get(ifid);
    const bySev = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<SeverityGroup, number>;
    const byFam: Partial<Record<AlertFamily, number>> = {};
    for (const a of s?.engaged.values() ?? []) {
      bySev[severityGroup(a.severity)]++;
      byFam[a.family] = (byFam[a.family] ?? 0) + 1;
    }
    return {
      engaged: s?.engaged.size ?? 0,
      engagedBySeverity: bySev,
      engagedByFamily: byFam,
      dropped: s?.dropped ?? 0,
      droppedBy: { ...(s?.droppedBy ?? { host: 0, other: 0 }) },
      refused: s?.refused ?? 0,
      written: s?.written ?? 0,
      queries: s?.queries ?? 0,
    };
  }

  /** system_host_stats' figures: summed over every interface, the system one included (ntopng's ntop.systemHostStat) */
  systemCounters(): { dropped_alerts: number; written_alerts: number; alerts_queries: number } {
    let dropped = 0, written = 0, queries = 0;
    for (const s of this.ifaces.values()) {
      dropped += s.dropped;
      written += s.written;
      queries += s.queries;
    }
    return { dropped_alerts: dropped, written_alerts: written, alerts_queries: queries };
  }

  /** A host's engaged alerts now and alerts raised in total (Host::lua num_alerts / total_alerts); entity 'ip@vlan' or 'ip'. */
  hostAlerts(ifid: number, ip: string, vlan: number): { engaged: number; total: number } {
    const h = this.ifaces.get(ifid)?.hosts.get(hostEntity(ip, vlan));
    return { engaged: h?.engaged ?? 0, total: h?.total ?? 0 };
  }

  /** counts one query on the stored alerts (alerts_queries) */
  countQuery(ifid: number): void {
    this.iface(ifid).queries++;
  }

  // ── the write queue ──────────────────────────────────────────────────

  private enqueue(p: Pending): void {
    if (!this.backend || this.closed || this.queue.length >= this.maxQueued) {
      this.drop(this.iface(p.a.ifid), p.a.family);
      return;
    }
    this.queue.push(p);
    if (this.queue.length >= this.batchRows) this.kick();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Starts writing unless a write is under way (which goes on until the queue is empty): no allocation per call. */
  private kick(): void {
    if (!this.flushing && this.queue.length) this.flushing = this.drain().finally(() => (this.flushing = null));
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const take = this.queue;
      this.queue = [];
      await this.write(take);
    }
  }

  /** Writes everything queued; resolves once it is written or dropped. */
  flush(): Promise<void> {
    this.kick();
    return this.flushing ?? Promise.resolve();
  }

  private async write(items: Pending[]): Promise<void> {
    const byFamily = new Map<AlertFamily, Pending[]>();
    for (const p of items) {
      let l = byFamily.get(p.a.family);
      if (!l) byFamily.set(p.a.family, (l = []));
      l.push(p);
    }
    for (const [family, rows] of byFamily) {
      for (let off = 0; off < rows.length; off += this.batchRows) {
        const part = rows.slice(off, off + this.batchRows);
        try {
          await this.backend!.append(ALERT_TABLES[family], alertBatch(family, part));
          for (const p of part) this.iface(p.a.ifid).written++;
        } catch (e) {
          for (const p of part) this.drop(this.iface(p.a.ifid), p.a.family);
          this.log(`flowgate: alerts: ${part.length} ${family} alert(s) not stored: ${(e as Error).message}`);
          systemError(`alerts: ${part.length} ${family} alert(s) not stored: ${(e as Error).message}`);
        }
      }
    }
  }

  /** Stores what is queued and stops taking more (engaged alerts are not stored: their checks raise them again). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    this.closed = true;
  }
}


function alertBatch(family: AlertFamily, rows: Pending[]): Batch {
  const cols = ALERT_TABLES[family].columns;
  const data = rows.map((p) => alertColumns(family, p.a, p.begin, p.end, p.count));
  return { rows: rows.length, columns: cols.map((c) => data.map((r) => r[c.name])) };
}
