// ⑧ Infrastructure instances (ntopng's pro infrastructure dashboard): other
// flowgate / ntopng instances, each polled with its REST API token every
// minute (its interfaces' data summed: hosts, flows, throughput up and
// down, engaged alerts, alerted flows) and the RTT of the poll measured.
// Kept in LMDB (db 'infrastructure'), with ntopng's checks and codes. As
// ntopng's infrastructure_utils, each instance is also an active monitoring
// host (its URL measured over HTTP(S) every minute, its token kept, read
// only), whose RTT threshold raises the am_host threshold alert; the
// bandwidth threshold is checked at each poll against the instance's
// throughput: the same alert (measurement 'bandwidth'), engaged while the
// throughput is over it, released once a poll finds it under.
import { randomBytes } from 'node:crypto';

import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import { scoreToSeverity } from '../alerts/catalogue.js';
import { SYSTEM_IFID, type AlertKey, type AlertSink } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import { StepPoller } from '../step-poller.js';

export interface Instance {
  instance_id: string;
  alias: string;
  url: string;
  token: string;
  /** ms */
  rtt_threshold: number;
  /** bit/s */
  bandwidth_threshold: number;
}

/** What the last poll of an instance collected (ntopng's collected_stats). */
export interface InstanceData {
  instance_id: string;
  alias: string;
  url: string;
  rtt_threshold: number;
  bandwidth_threshold: number;
  /** the poll got the instance's data */
  reachable: boolean;
  /** why it did not ('' when it did) */
  error: string;
  /** ms of the poll's first request */
  rtt: number;
  /** epoch seconds of the last poll (0: never) */
  last_update: number;
  hosts: number;
  flows: number;
  /** bit/s: total, download, upload */
  throughput: number;
  download: number;
  upload: number;
  engaged_alerts: number;
  flow_alerts: number;
  rtt_exceeded: boolean;
  bandwidth_exceeded: boolean;
}

export type InstanceParams = Partial<Record<'instance_id' | 'alias' | 'url' | 'token' | 'rtt_threshold' | 'bandwidth_threshold', string>>;

/** What the instances register their URL with (services/active-monitoring). */
export interface AmRegistry {
  add(i: { host: string; measurement: string; threshold: number; granularity: string; token: string; readonly: boolean }, o: { resolve?: boolean }): Promise<string>;
  delete(host: string, measurement: string): Promise<void>;
}

export const POLL_SEC = 60;
const TIMEOUT_MS = 5000;
/** other_alert_keys.lua: alert_am_threshold_cross (OTHER_BASE_KEY + 23), raised as active monitoring raises it */
const AM_THRESHOLD_CROSS = 4119;
const SCORE = 50;

export class Infrastructure {
  private readonly db: Database<Instance, string>;
  private readonly data = new Map<string, InstanceData>();
  /** URLs whose bandwidth alert is engaged */
  private readonly overBandwidth = new Set<string>();
  private readonly poller = new StepPoller('infrastructure_instances', POLL_SEC, async () => {
    await Promise.all(this.all().map((i) => this.poll(i)));
  });

  constructor(
    store: ConfigStore,
    private readonly opts: { timeoutMs?: number; am?: AmRegistry | null; alerts?: Pick<AlertSink, 'engage' | 'release'> | null; log?: (l: string) => void } = {},
  ) {
    this.db = store.db<Instance>('infrastructure');
  }

  private async amAdd(i: Instance): Promise<void> {
    const measurement = i.url.startsWith('https:') ? 'https' : 'http';
    try {
      await this.opts.am?.add({ host: i.url, measurement, threshold: i.rtt_threshold, granularity: 'min', token: i.token, readonly: true }, { resolve: false });
    } catch (e) {
      this.opts.log?.(`flowgate: infrastructure: ${i.url} not added to active monitoring: ${(e as Error).message}`);
    }
  }

  private async amDelete(i: Instance): Promise<void> {
    await this.opts.am?.delete(i.url, i.url.startsWith('https:') ? 'https' : 'http').catch(() => undefined);
    this.releaseBandwidth(i.url, Math.floor(Date.now() / 1000));
  }

  private releaseBandwidth(url: string, t: number): void {
    if (this.overBandwidth.delete(url)) this.opts.alerts?.release(bandwidthKey(url), t);
  }

  all(): Instance[] {
    return [...this.db.getRange()].map((e) => e.value).sort((a, b) => a.alias.localeCompare(b.alias));
  }

  get(id: string): Instance | undefined {
    return this.db.get(id);
  }

  /** add/infrastructure/instance: the new instance's id */
  async add(p: InstanceParams): Promise<Instance> {
    const i = { instance_id: newId(), ...this.check(p, null) };
    await this.db.put(i.instance_id, i);
    await this.amAdd(i);
    return i;
  }

  async edit(p: InstanceParams): Promise<Instance> {
    const id = this.existing(p.instance_id);
    const i = { instance_id: id, ...this.check(p, id) };
    const old = this.db.get(id)!;
    await this.db.put(id, i);
    this.data.delete(id);
    await this.amDelete(old);
    await this.amAdd(i);
    return i;
  }

  async delete(idParam: string | undefined): Promise<void> {
    const id = this.existing(idParam);
    const old = this.db.get(id)!;
    await this.db.remove(id);
    this.data.delete(id);
    await this.amDelete(old);
  }

  private existing(id: string | undefined): string {
    const v = id?.trim() ?? '';
    if (!v) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_ID);
    if (!this.db.get(v)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_NOT_FOUND, `no instance '${v.slice(0, 64)}'`);
    return v;
  }

  /** ntopng's checks, in its order: empty fields, then duplicates of another instance. */
  private check(p: InstanceParams, self: string | null): Omit<Instance, 'instance_id'> {
    const t = (v: string | undefined) => v?.trim() ?? '';
    const alias = t(p.alias), url = t(p.url).replace(/\/+$/, ''), token = t(p.token);
    if (!alias) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_ALIAS);
    if (!url) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_URL);
    if (!token) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_TOKEN);
    if (!t(p.rtt_threshold)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_RTT_THRESHOLD);
    if (!t(p.bandwidth_threshold)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD);
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new ApiError(RC.INVALID_ARGUMENTS, 'url must be an http:// or https:// URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ApiError(RC.INVALID_ARGUMENTS, 'url must be an http:// or https:// URL');
    const n = (v: string, what: string) => {
      if (!/^\d{1,10}$/.test(v) || Number(v) > 2 ** 31 - 1) throw new ApiError(RC.INVALID_ARGUMENTS, `${what} must be a whole number`);
      return Number(v);
    };
    const rtt = n(t(p.rtt_threshold), 'rtt_threshold'), bw = n(t(p.bandwidth_threshold), 'bandwidth_threshold');
    const others = this.all().filter((i) => i.instance_id !== self);
    if (others.some((i) => i.alias === alias && i.url === url && i.token === token)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_ALREADY_EXISTING);
    if (others.some((i) => i.alias === alias)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_SAME_ALIAS);
    if (others.some((i) => i.url === url)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_SAME_URL);
    if (others.some((i) => i.token === token)) throw new ApiError(RC.INFRASTRUCTURE_INSTANCE_SAME_TOKEN);
    return { alias, url, token, rtt_threshold: rtt, bandwidth_threshold: bw };
  }

  /** Polls every instance each minute of wall time. */
  start(): this {
    this.poller.start();
    return this;
  }

  stop(): void {
    this.poller.stop();
  }

  /** Polls every instance (at once); a call during a poll waits for it. */
  pollAll(): Promise<void> {
    return this.poller.poll();
  }

  /** get/infrastructure/data: what the last poll of each instance collected (an instance never polled is polled now). */
  async collected(): Promise<InstanceData[]> {
    const all = this.all();
    if (all.some((i) => !this.data.has(i.instance_id))) await this.pollAll();
    return all.map((i) => this.data.get(i.instance_id) ?? blank(i));
  }

  private async poll(i: Instance): Promise<void> {
    const d = blank(i);
    const headers = { authorization: `Token ${i.token}` };
    const get = async (path: string) => {
      const res = await fetch(`${i.url}${path}`, { headers, signal: AbortSignal.timeout(this.opts.timeoutMs ?? TIMEOUT_MS), redirect: 'manual' });
      if (res.status === 401 || res.status === 403) throw new Error('authorization failed: invalid token');
      if (res.status === 404) throw new Error(`not found: ${path}`);
      let body: { rc?: number; rsp?: unknown };
      try {
        body = (await res.json()) as { rc?: number; rsp?: unknown };
      } catch {
        throw new Error('invalid response: expected JSON');
      }
      if (body.rc !== 0) throw new Error(`the instance answered rc ${body.rc}`);
      return body.rsp;
    };
    try {
      const t0 = performance.now();
      const ifaces = (await get('/lua/rest/v2/get/ntopng/interfaces.lua')) as { ifid: number | string }[];
      d.rtt = Math.round((performance.now() - t0) * 100) / 100;
      for (const x of Array.isArray(ifaces) ? ifaces : []) {
        const r = (await get(`/lua/rest/v2/get/interface/data.lua?ifid=${encodeURIComponent(String(x.ifid))}`)) as Record<string, any>;
        d.hosts += Number(r.num_hosts) || 0;
        d.flows += Number(r.num_flows) || 0;
        // interface data's throughputs are bytes per second (ntopng's, and flowgate's like it): bit/s here
        d.throughput += (Number(r.throughput_bps) || 0) * 8;
        d.download += (Number(r.throughput?.download?.bps) || 0) * 8;
        d.upload += (Number(r.throughput?.upload?.bps) || 0) * 8;
        d.engaged_alerts += Number(r.engaged_alerts) || 0;
        d.flow_alerts += Number(r.alerted_flows) || 0;
      }
      d.reachable = true;
    } catch (e) {
      const err = e as Error;
      d.error = err.name === 'TimeoutError' ? 'unreachable: no answer in time' : err.message.startsWith('fetch failed') ? `unreachable: ${(err.cause as Error)?.message ?? err.message}` : err.message;
    }
    d.last_update = Math.floor(Date.now() / 1000);
    d.rtt_exceeded = d.reachable && d.rtt > i.rtt_threshold;
    d.bandwidth_exceeded = d.reachable && d.throughput > i.bandwidth_threshold;
    // an edit or delete during the poll wins
    if (this.db.get(i.instance_id)?.url !== i.url) return;
    this.data.set(i.instance_id, d);
    if (d.bandwidth_exceeded) this.raiseBandwidth(i, d);
    else if (d.reachable) this.releaseBandwidth(i.url, d.last_update);
  }

  /** alert_am_threshold_cross.new(value, threshold, ip, host, operator, unit) of the instance's throughput (bit/s) */
  private raiseBandwidth(i: Instance, d: InstanceData): void {
    let ip = '';
    try {
      ip = new URL(i.url).hostname.replace(/^\[|\]$/g, '');
    } catch {
      /* checked when added */
    }
    this.overBandwidth.add(i.url);
    this.opts.alerts?.engage({
      ...bandwidthKey(i.url),
      tstamp: d.last_update,
      score: SCORE,
      severity: scoreToSeverity(SCORE),
      fields: { resolved_ip: ip, resolved_name: i.alias, measurement: 'bandwidth', measure_threshold: i.bandwidth_threshold, measure_value: d.throughput },
      json: {
        value: d.throughput,
        threshold: i.bandwidth_threshold,
        ip,
        host: { label: i.alias, is_infrastructure: true, measurement: 'bandwidth', host: i.url },
        operator: 'gt',
        unit: 'field_units.bps',
      },
    });
  }

  exportConfig(): Instance[] {
    return this.all();
  }

  async importConfig(conf: unknown[]): Promise<string[]> {
    const skipped: string[] = [];
    for (const x of conf) {
      try {
        const p = Object.fromEntries(Object.entries((x ?? {}) as Record<string, unknown>).map(([k, v]) => [k, v === undefined || v === null ? '' : String(v)])) as InstanceParams;
        const id = p.instance_id?.trim() || newId();
        const i = { instance_id: id, ...this.check(p, id) };
        const old = this.db.get(id);
        await this.db.put(id, i);
        if (old) await this.amDelete(old);
        await this.amAdd(i);
      } catch (e) {
        skipped.push(`instance: ${(e as Error).message}`);
      }
    }
    return skipped;
  }

  async reset(): Promise<void> {
    for (const i of this.all()) await this.amDelete(i);
    await this.db.clearAsync();
    this.data.clear();
  }
}

const newId = () => randomBytes(8).toString('hex');
/** the instance's bandwidth alert: an active monitoring host alert keyed as ntopng keys them ('<measurement>@<host>') */
const bandwidthKey = (url: string): AlertKey => ({ family: 'am_host', ifid: SYSTEM_IFID, entityVal: `bandwidth@${url}`, alertId: AM_THRESHOLD_CROSS, subtype: '' });

function blank(i: Instance): InstanceData {
  return {
    instance_id: i.instance_id, alias: i.alias, url: i.url, rtt_threshold: i.rtt_threshold, bandwidth_threshold: i.bandwidth_threshold,
    reachable: false, error: '', rtt: 0, last_update: 0, hosts: 0, flows: 0, throughput: 0, download: 0, upload: 0, engaged_alerts: 0, flow_alerts: 0,
    rtt_exceeded: false, bandwidth_exceeded: false,
  };
}
