// ⑧ Active monitoring (ntopng 5.x am_utils.lua, active_monitoring.lua
// callbacks, measurements/*.lua): configured hosts probed on the wall clock
// every minute, 5 minutes or hour (their granularity), each result
// - kept as the host's last update {when, value, ip} and counted in its
//   per-hour stats (ok / exceeded / unreachable, the last 24 hours);
// - written as a point of am_host:val_<granularity> (0: unreachable) on the
//   system interface, plus am_host:http(s)_stats_<granularity> for http(s);
// - alerted as alert_am_threshold_cross (entity am_host = the host key)
//   while unreachable (value 0, threshold 0, as ntopng) or beyond the
//   threshold, refreshed each round, released at the first good one.
// The configuration lives in LMDB ('active_monitoring': host key → settings);
// last updates and hour stats in memory (ntopng: its Redis cache).
//
// Bounded: MAX_HOSTS hosts, `concurrency` probes at once; each host is
// handled when its own probe ends (a slow one delays no other), and a host
// whose previous probe is still running is skipped for that round.
import type { Database } from 'lmdb';

import { SYSTEM_IFID, type AlertKey, type AlertSink } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import { DEFAULT_POOL_ID } from '../pools/types.js';
import type { Pools } from '../pools/pools.js';
import { SYSTEM_TS_IFID } from '../timeseries/schemas.js';
import type { Point } from '../timeseries/store.js';
import {
  GRANULARITIES,
  GRANULARITY_PERIODS,
  GRANULARITY_STEP,
  MEASUREMENTS,
  hostKey,
  isGranularity,
  isMeasurement,
  parseTarget,
  splitKey,
  type Granularity,
  type MeasurementKey,
  type Target,
} from './measurements.js';
import { probe, resolveName, type ProbeResult } from './probes.js';
import { measured } from '../periodic.js';

export { MEASUREMENTS, GRANULARITIES, hostKey, splitKey, type Granularity, type MeasurementKey } from './measurements.js';

/** other_alert_keys.lua alert_am_threshold_cross */
export const AM_THRESHOLD_CROSS = 4119;
/** alert_am_threshold_cross: set_score_warning (Utils::mapSeverityToScore(warning)) */
const AM_SCORE = 50;
const AM_SEVERITY = 4;
/** am_utils.addHost: threshold when none is given */
export const DEFAULT_THRESHOLD = 500;
export const MAX_HOSTS = 1024;
const MINUTE_MS = 60_000;

/** A host's settings, as ntopng keeps them (am_utils serializeAmPrefs) and exports them. */
export interface AmHostConf {
  ifname: string;
  threshold: number;
  granularity: Granularity;
  token?: string;
  save_result: boolean;
  readonly: boolean;
}

export interface LastUpdate {
  /** epoch s */
  when: number;
  value: number;
  ip: string;
  jitter?: number;
  mean?: number;
}

/** One host of the list (get_active_monitoring_hosts.lua). */
export interface AmHostView {
  key: string;
  host: string;
  measurement: MeasurementKey;
  conf: AmHostConf;
  last: LastUpdate | null;
  /** the 24 hour buckets' colours (0 no data, 1 all good, 2 all bad, 3 mixed) and the availability (%); null: no stats */
  availability: { hours: number[]; pct: number } | null;
  alerted: boolean;
  pool: number;
}

/** What a host is added or edited with (edit_active_monitoring_host.lua). */
export interface AmHostInput {
  host: string;
  measurement: string;
  /** default 500 (text accepted: the form's) */
  threshold?: string | number;
  /** default 'min' */
  granularity?: string;
  /** bind to this active_monitoring pool (0: none); absent: add → none, edit → unchanged */
  pool?: number;
  ifname?: string;
  token?: string;
  save_result?: boolean;
  readonly?: boolean;
}

/** A refused change; `code` tells the routes which answer it is. */
export class AmError extends Error {
  constructor(
    message: string,
    readonly code: 'invalid' | 'exists' | 'not_found' | 'full',
  ) {
    super(message);
  }
}

export interface ActiveMonitoringOptions {
  sink: AlertSink;
  /** where hosts are bound to active_monitoring pools (absent: no pool binding) */
  pools?: Pick<Pools, 'bindMember' | 'poolOf' | 'get'> | null;
  /** the base period ('min'); 5mins and hour are 5 and 60 of them (default 60 s; tests shorten it) */
  periodMs?: number;
  /** epoch ms of results (default Date.now) */
  now?: () => number;
  /** every probe's deadline (default: each measurement's, 3 s or 10 s for http) */
  timeoutMs?: number;
  /** probes at once (default 64) */
  concurrency?: number;
  maxHosts?: number;
  /** https: accept any certificate (ntopng's --insecure; default false) */
  insecureTls?: boolean;
  pingPath?: string;
  log?: (line: string) => void;
}

/** Where points go (the timeseries store). */
export interface PointSink {
  write(points: Iterable<Point>): void;
  /** hours and days ended by `boundary` are rolled up (TsStore.stepClosed; `clock` false: wall time, not the packet clock) */
  stepClosed?(ifid: number, boundary: number, clock?: boolean): void;
}

const HOUR_OK = 0, HOUR_EXCEEDED = 1, HOUR_UNREACHABLE = 2;

interface HourStats {
  when: number;
  /** 24 buckets by local hour: [ok, exceeded, unreachable] */
  hstats: [number, number, number][];
}

interface Entry {
  host: string;
  measurement: MeasurementKey;
  target: Target;
  conf: AmHostConf;
  /** changes with each edit: a result of an older configuration is dropped */
  gen: number;
}

const IFNAME = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$/;
const round2 = (v: number) => Math.round(v * 100) / 100;
let generation = 0;

/** am_utils.hasExceededThreshold */
const exceeded = (threshold: number, operator: string, value: number) => (operator === 'lt' ? value < threshold : value > threshold);

export class ActiveMonitoring {
  private readonly hosts = new Map<string, Entry>();
  private readonly last = new Map<string, LastUpdate>();
  private readonly hourStats = new Map<string, HourStats>();
  private readonly inFlight = new Set<string>();
  private readonly rounds = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private points: PointSink | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private pingWarned = false;
  /** configuration changes one after another */
  private chain: Promise<unknown> = Promise.resolve();
  private periodMs: number;
  private readonly now: () => number;
  private readonly log: (line: string) => void;

  private constructor(
    private readonly db: Database<unknown, string>,
    private readonly o: ActiveMonitoringOptions,
  ) {
    this.periodMs = o.periodMs ?? MINUTE_MS;
    this.now = o.now ?? Date.now;
    this.log = o.log ?? ((l) => console.error(l));
    for (const { key, value } of db.getRange()) {
      const e = this.entryOf(String(key), value);
      if (e) this.hosts.set(String(key), e);
      else this.log(`flowgate: active monitoring: ignoring the stored host '${String(key)}' (not a valid host of a known measurement)`);
    }
  }

  static open(store: ConfigStore, o: ActiveMonitoringOptions): ActiveMonitoring {
    return new ActiveMonitoring(store.db('active_monitoring'), o);
  }

  /** Where the points go (the timeseries store, once there is one); null: none written. */
  setTimeseries(points: PointSink | null): void {
    this.points = points;
  }

  // ── configuration ────────────────────────────────────────────────────

  /** The configured host keys (what active_monitoring pools take as members). */
  keys(): string[] {
    return [...this.hosts.keys()];
  }

  has(host: string, measurement: string): boolean {
    return this.hosts.has(hostKey(host, measurement));
  }

  get(host: string, measurement: string): AmHostConf | undefined {
    const e = this.hosts.get(hostKey(host, measurement));
    return e ? { ...e.conf } : undefined;
  }

  /** A stored record back into a host (null: not valid any more). */
  private entryOf(key: string, v: unknown): Entry | null {
    const k = splitKey(key);
    if (!k || !isMeasurement(k.measurement) || !v || typeof v !== 'object') return null;
    const target = parseTarget(k.measurement, k.host);
    if (typeof target === 'string') return null;
    const c = v as Partial<AmHostConf>;
    const granularity = typeof c.granularity === 'string' && isGranularity(c.granularity) ? c.granularity : 'min';
    const conf: AmHostConf = {
      ifname: typeof c.ifname === 'string' ? c.ifname : '',
      threshold: typeof c.threshold === 'number' && Number.isFinite(c.threshold) ? c.threshold : DEFAULT_THRESHOLD,
      granularity,
      save_result: c.save_result === true,
      readonly: c.readonly === true,
      ...(typeof c.token === 'string' && c.token ? { token: c.token } : {}),
    };
    return { host: k.host, measurement: k.measurement, target, conf, gen: ++generation };
  }

  /** Checks a host's input: its target, threshold, granularity, interface, pool (throws AmError 'invalid'). */
  private validate(i: AmHostInput, current?: AmHostConf): { measurement: MeasurementKey; target: Target; conf: AmHostConf } {
    if (!isMeasurement(i.measurement)) throw new AmError(`unknown measurement '${i.measurement}' (one of ${Object.keys(MEASUREMENTS).join(', ')})`, 'invalid');
    const m = MEASUREMENTS[i.measurement];
    const target = parseTarget(i.measurement, i.host);
    if (typeof target === 'string') throw new AmError(`Invalid host specified: ${target}`, 'invalid');
    let threshold = DEFAULT_THRESHOLD;
    if (i.threshold !== undefined && String(i.threshold).trim() !== '') {
      threshold = Number(i.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 0xffffffff) throw new AmError(`invalid threshold '${i.threshold}'`, 'invalid');
    }
    const granularity = i.granularity === undefined || i.granularity === '' ? 'min' : i.granularity;
    if (!isGranularity(granularity) || !m.granularities.includes(granularity)) throw new AmError(`invalid granularity '${granularity}' (one of ${m.granularities.join(', ')})`, 'invalid');
    const ifname = i.ifname ?? current?.ifname ?? '';
    if (ifname !== '' && !IFNAME.test(ifname)) throw new AmError(`invalid interface name '${ifname}'`, 'invalid');
    if (i.token !== undefined && i.token.length > 256) throw new AmError('the token is longer than 256 characters', 'invalid');
    if (i.pool !== undefined && i.pool !== DEFAULT_POOL_ID && !this.o.pools?.get('active_monitoring', i.pool)) throw new AmError(`active monitoring pool ${i.pool} does not exist`, 'invalid');
    const token = i.token ?? current?.token;
    const conf: AmHostConf = {
      ifname,
      threshold,
      granularity,
      save_result: i.save_result ?? current?.save_result ?? false,
      readonly: i.readonly ?? current?.readonly ?? false,
      ...(token ? { token } : {}),
    };
    return { measurement: i.measurement, target, conf };
  }

  /** edit_active_monitoring_host's isValidHostMeasurementCombination: a name must resolve (IPv4, else IPv6). */
  private async checkResolves(measurement: MeasurementKey, target: Target): Promise<void> {
    if (!(await resolveName(target.name, measurement === 'icmp6'))) throw new AmError('Invalid host specified', 'invalid');
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const p = this.chain.then(f);
    this.chain = p.catch(() => {});
    return p;
  }

  private async store(key: string, e: Entry, pool: number | undefined): Promise<void> {
    await this.db.put(key, e.conf);
    this.hosts.set(key, e);
    // am_pool:bind_member(host_key, pool): after it is configured (a pool member must be a host)
    if (pool !== undefined && this.o.pools) {
      try {
        await this.o.pools.bindMember('active_monitoring', key, pool, key);
      } catch (err) {
        this.log(`flowgate: active monitoring: ${key} not bound to pool ${pool}: ${(err as Error).message}`);
      }
    }
  }

  /** am_utils.addHost; refused when the host exists (AmError 'exists'), is not valid or would be one too many. */
  add(i: AmHostInput, o: { resolve?: boolean } = {}): Promise<string> {
    return this.serial(async () => {
      const v = this.validate(i);
      const key = hostKey(i.host, v.measurement);
      if (this.hosts.has(key)) throw new AmError(`Measurement ${MEASUREMENTS[v.measurement].label} already defined for ${i.host}`, 'exists');
      if (this.hosts.size >= (this.o.maxHosts ?? MAX_HOSTS)) throw new AmError(`at most ${this.o.maxHosts ?? MAX_HOSTS} hosts are monitored`, 'full');
      if (o.resolve !== false) await this.checkResolves(v.measurement, v.target);
      await this.store(key, { host: i.host, measurement: v.measurement, target: v.target, conf: v.conf, gen: ++generation }, i.pool);
      return key;
    });
  }

  /**
   * edit_active_monitoring_host.lua action=edit: another host or measurement
   * replaces the old host (deleted, its data dropped); the same one keeps its
   * data, but its hour stats go when the threshold changes and its alert is
   * released when the threshold or the granularity does (am_utils.editHost).
   */
  edit(old: { host: string; measurement: string }, i: AmHostInput, o: { resolve?: boolean } = {}): Promise<string> {
    return this.serial(async () => {
      const oldKey = hostKey(old.host, old.measurement);
      const cur = this.hosts.get(oldKey);
      if (!cur) throw new AmError(`Host "${old.host}" not found`, 'not_found');
      const v = this.validate(i, cur.conf);
      const key = hostKey(i.host, v.measurement);
      if (o.resolve !== false) await this.checkResolves(v.measurement, v.target);
      if (key !== oldKey) {
        if (this.hosts.has(key)) throw new AmError(`Measurement ${MEASUREMENTS[v.measurement].label} already defined for ${i.host}`, 'exists');
        const pool = i.pool ?? this.poolOf(oldKey);
        await this.remove(oldKey);
        await this.store(key, { host: i.host, measurement: v.measurement, target: v.target, conf: v.conf, gen: ++generation }, pool === DEFAULT_POOL_ID ? undefined : pool);
        return key;
      }
      if (cur.conf.threshold !== v.conf.threshold) this.hourStats.delete(key);
      if (cur.conf.threshold !== v.conf.threshold || cur.conf.granularity !== v.conf.granularity) this.releaseAlert(key);
      await this.store(key, { ...cur, target: v.target, conf: v.conf, gen: ++generation }, i.pool);
      return key;
    });
  }

  /** am_utils.deleteHost: its alert released, its results dropped, unbound from its pool. */
  delete(host: string, measurement: string): Promise<void> {
    return this.serial(async () => {
      const key = hostKey(host, measurement);
      if (!this.hosts.has(key)) throw new AmError(`Host "${host}" not found`, 'not_found');
      await this.remove(key);
    });
  }

  private async remove(key: string): Promise<void> {
    this.releaseAlert(key);
    this.last.delete(key);
    this.hourStats.delete(key);
    // unbound while still configured (the pool checks its members are hosts)
    if (this.o.pools) {
      try {
        await this.o.pools.bindMember('active_monitoring', key, DEFAULT_POOL_ID);
      } catch (err) {
        this.log(`flowgate: active monitoring: ${key} not unbound from its pool: ${(err as Error).message}`);
      }
    }
    this.hosts.delete(key);
    await this.db.remove(key);
  }

  /** am_import_export:export: host key → settings (config only, as ntopng's getHosts(true)). */
  exportConfig(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [key, e] of [...this.hosts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      out[key] = { show_iface: false, ...e.conf };
    }
    return out;
  }

  /**
   * am_import_export:import: each host added, or edited when it exists, in
   * the default pool (as ntopng). Entries that are not a valid host of a
   * known measurement are skipped and named in `skipped`.
   */
  async importConfig(conf: Record<string, unknown>): Promise<{ imported: string[]; skipped: string[] }> {
    const imported: string[] = [];
    const skipped: string[] = [];
    for (const [key, raw] of Object.entries(conf)) {
      const k = splitKey(key);
      const c = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
      if (!k || !c) {
        skipped.push(key);
        continue;
      }
      const input: AmHostInput = {
        host: k.host,
        measurement: k.measurement,
        threshold: typeof c.threshold === 'number' || typeof c.threshold === 'string' ? c.threshold : undefined,
        granularity: typeof c.granularity === 'string' ? c.granularity : undefined,
        ifname: typeof c.ifname === 'string' ? c.ifname : '',
        token: typeof c.token === 'string' ? c.token : undefined,
        save_result: c.save_result === true,
        readonly: c.readonly === true,
        pool: DEFAULT_POOL_ID,
      };
      try {
        // the file is taken as written: no name resolution
        if (this.hosts.has(key)) await this.edit({ host: k.host, measurement: k.measurement }, input, { resolve: false });
        else await this.add(input, { resolve: false });
        imported.push(key);
      } catch (e) {
        if (!(e instanceof AmError)) throw e;
        skipped.push(key);
      }
    }
    return { imported, skipped };
  }

  /** am_import_export:reset: every host deleted. */
  async reset(): Promise<void> {
    for (const e of [...this.hosts.values()]) await this.delete(e.host, e.measurement);
  }

  private poolOf(key: string): number {
    return this.o.pools ? this.o.pools.poolOf('am_host', SYSTEM_IFID, key) : DEFAULT_POOL_ID;
  }

  // ── what was measured ────────────────────────────────────────────────

  lastUpdate(host: string, measurement: string): LastUpdate | null {
    return this.last.get(hostKey(host, measurement)) ?? null;
  }

  /** am_utils.getHourStats: by hour of the day ('0' … '23'), null without stats. */
  hourStatsOf(host: string, measurement: string): Record<string, { num_ok: number; num_exceeded: number; num_unreachable: number }> | null {
    const s = this.hourStats.get(hostKey(host, measurement));
    if (!s) return null;
    return Object.fromEntries(s.hstats.map((b, i) => [String(i), { num_ok: b[HOUR_OK], num_exceeded: b[HOUR_EXCEEDED], num_unreachable: b[HOUR_UNREACHABLE] }]));
  }

  /** am_utils.getAvailability: per hour a colour, and the share of good results (%). */
  private availability(key: string): AmHostView['availability'] {
    const s = this.hourStats.get(key);
    if (!s) return null;
    let good = 0, bad = 0;
    const hours = s.hstats.map(([ok, ex, un]) => {
      good += ok;
      bad += ex + un;
      return ok + ex + un === 0 ? 0 : ex + un === 0 ? 1 : ok === 0 ? 2 : 3;
    });
    return { hours, pct: good + bad ? (good * 100) / (good + bad) : 0 };
  }

  /** Every host with its last result, stats, alert state and pool (sorted by key). */
  list(): AmHostView[] {
    const alerted = new Set(this.o.sink.engaged('am_host', SYSTEM_IFID).filter((a) => a.alertId === AM_THRESHOLD_CROSS).map((a) => a.entityVal));
    return [...this.hosts.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([key, e]) => ({
        key,
        host: e.host,
        measurement: e.measurement,
        conf: { ...e.conf },
        last: this.last.get(key) ?? null,
        availability: this.availability(key),
        alerted: alerted.has(key),
        pool: this.poolOf(key),
      }));
  }

  // ── rounds ───────────────────────────────────────────────────────────

  /**
   * Runs each granularity's round at its wall-clock boundary, `periodMs`
   * being the minute (again: re-armed with that period). The timer does not
   * keep the process alive.
   */
  start(periodMs = this.periodMs): this {
    this.pause();
    this.periodMs = periodMs;
    const schedule = () => {
      if (this.stopped) return;
      const t = Date.now();
      this.timer = setTimeout(() => {
        const idx = Math.round(Date.now() / this.periodMs);
        for (const g of GRANULARITIES) if (idx % GRANULARITY_PERIODS[g] === 0) void measured(`active_monitoring_${g}`, GRANULARITY_STEP[g], () => this.runRound(g));
        schedule();
      }, this.periodMs - (t % this.periodMs));
      this.timer.unref();
    };
    schedule();
    return this;
  }

  /** Stops the timer only: rounds run when asked (runRound). */
  pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops the timer, ends the probes running (their results dropped) and waits for the rounds. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pause();
    this.abort.abort();
    await Promise.all([...this.rounds]);
  }

  /**
   * One round of the hosts of a granularity (am_utils.run_am_check): every
   * host probed (at most `concurrency` at once), each handled when its probe
   * ends. Resolves when all are handled.
   */
  runRound(granularity: Granularity): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const when = Math.floor(this.now() / 1000);
    const jobs: Promise<void>[] = [];
    for (const [key, e] of this.hosts) {
      if (e.conf.granularity !== granularity || this.inFlight.has(key)) continue;
      this.inFlight.add(key);
      jobs.push(this.measure(key, e, when).finally(() => this.inFlight.delete(key)));
    }
    const round = Promise.all(jobs).then(() => {});
    this.rounds.add(round);
    void round.finally(() => this.rounds.delete(round));
    return round;
  }

  private async slot(): Promise<void> {
    if (this.running < (this.o.concurrency ?? 64)) {
      this.running++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private async measure(key: string, e: Entry, when: number): Promise<void> {
    await this.slot();
    let r: ProbeResult;
    try {
      r = await probe(e.measurement, e.target, {
        timeoutMs: this.o.timeoutMs ?? MEASUREMENTS[e.measurement].timeoutMs,
        ifname: e.conf.ifname || undefined,
        token: e.conf.token,
        insecureTls: this.o.insecureTls,
        pingPath: this.o.pingPath,
        signal: this.abort.signal,
        onPingMissing: (why) => {
          if (this.pingWarned) return;
          this.pingWarned = true;
          this.log(`flowgate: active monitoring: ping cannot be run (${why}): ICMP hosts are reported unreachable; install iputils-ping`);
        },
      });
    } finally {
      this.release();
    }
    // stopped, deleted or edited meanwhile: the result belongs to nobody
    if (this.stopped || this.hosts.get(key)?.gen !== e.gen) return;
    try {
      this.handle(key, e, when, r);
    } catch (err) {
      this.log(`flowgate: active monitoring: ${key}: ${(err as Error).message}`);
    }
  }

  private handle(key: string, e: Entry, when: number, r: ProbeResult): void {
    const m = MEASUREMENTS[e.measurement];
    const g = e.conf.granularity;
    const step = GRANULARITY_STEP[g];
    const tstamp = Math.floor(when / step) * step;
    const tags = `host=${e.host},metric=${e.measurement}`;
    const point = (schema: string, metric: string, value: number): Point => ({ ifid: SYSTEM_TS_IFID, schema, tags, metric, tstamp, value });
    const ip = r.resolvedAddr || e.host;
    if (r.value === null) {
      this.raise(key, e, when, 0, 0, ip);
      this.count(key, when, HOUR_UNREACHABLE);
      this.points?.write([point(`am_host:val_${g}`, 'value', 0)]);
      this.points?.stepClosed?.(SYSTEM_TS_IFID, tstamp, false);
      return;
    }
    const value = round2(r.value);
    const pts = [point(`am_host:val_${g}`, 'value', value)];
    if (r.http) {
      const { lookupMs, connectMs, totalMs } = r.http;
      if (e.measurement === 'https') {
        pts.push(point(`am_host:https_stats_${g}`, 'lookup_ms', lookupMs), point(`am_host:https_stats_${g}`, 'connect_ms', connectMs));
        pts.push(point(`am_host:https_stats_${g}`, 'other_ms', Math.max(0, totalMs - lookupMs - connectMs)));
      } else {
        pts.push(point(`am_host:http_stats_${g}`, 'lookup_ms', lookupMs), point(`am_host:http_stats_${g}`, 'other_ms', Math.max(0, totalMs - lookupMs)));
      }
    }
    this.points?.write(pts);
    this.points?.stepClosed?.(SYSTEM_TS_IFID, tstamp, false);
    this.last.set(key, { when, value, ip });
    if (exceeded(e.conf.threshold, m.operator, value)) {
      this.raise(key, e, when, value, e.conf.threshold, ip);
      this.count(key, when, HOUR_EXCEEDED);
    } else {
      this.releaseAlert(key, when);
      this.count(key, when, HOUR_OK);
    }
  }

  private alertKey(key: string): AlertKey {
    return { family: 'am_host', ifid: SYSTEM_IFID, entityVal: key, alertId: AM_THRESHOLD_CROSS, subtype: '' };
  }

  /** alert_am_threshold_cross.new(value, threshold, ip, host, operator, unit), engaged or refreshed. */
  private raise(key: string, e: Entry, when: number, value: number, threshold: number, ip: string): void {
    const m = MEASUREMENTS[e.measurement];
    this.o.sink.engage({
      ...this.alertKey(key),
      tstamp: when,
      score: AM_SCORE,
      severity: AM_SEVERITY,
      // the active_monitoring_alerts columns, as am_alert_store:insert takes them from the json
      fields: { resolved_ip: ip, resolved_name: e.host, measurement: e.measurement, measure_threshold: threshold, measure_value: value },
      json: {
        value,
        threshold,
        ip,
        host: { label: e.host, is_infrastructure: false, measurement: e.measurement, host: e.host },
        operator: m.operator,
        unit: m.i18nUnit,
      },
    });
  }

  private releaseAlert(key: string, when = Math.floor(this.now() / 1000)): void {
    this.o.sink.release(this.alertKey(key), when);
  }

  /** am_utils updateHourStats: the bucket of the local hour, emptied when the hour changed since the last result. */
  private count(key: string, when: number, idx: number): void {
    let s = this.hourStats.get(key);
    if (!s) {
      s = { when: 0, hstats: Array.from({ length: 24 }, () => [0, 0, 0] as [number, number, number]) };
      this.hourStats.set(key, s);
    }
    const hour = new Date(when * 1000).getHours();
    if (hour !== new Date(s.when * 1000).getHours()) s.hstats[hour] = [0, 0, 0];
    s.hstats[hour][idx]++;
    s.when = when;
  }
}
