// ⑧ Interface rates ntopng shows per direction (upload/download) next to
// the engine's total: sampled once a second, computed over engine (packet)
// time, so a replayed capture shows the rates it was recorded at.
import type { Interfaces } from './interfaces.js';

/** ntopng's ValueTrend against the previous sample: 1 up, 2 down, 3 stable */
export type Trend = 1 | 2 | 3;
export interface DirRate {
  /** bytes per second, as ntopng's EthStats throughput (named bps) */
  bps: number;
  pps: number;
  bps_trend: Trend;
  pps_trend: Trend;
}
export interface DirRates {
  upload: DirRate;
  download: DirRate;
}

const trend = (now: number, before: number): Trend => (now > before ? 1 : now < before ? 2 : 3);
const rate = (bps: number, pps: number, before: DirRate | undefined): DirRate => ({
  bps, pps, bps_trend: trend(bps, before?.bps ?? 0), pps_trend: trend(pps, before?.pps ?? 0),
});

interface Sample {
  t: number;
  bu: number;
  pu: number;
  bd: number;
  pd: number;
}

const MIN_SPAN_NS = 1e9;
/** seconds of per-second traffic kept per interface (the realtime chart) */
export const RECENT_POINTS = 60;

/** One sample of the recent traffic: the engine's epoch second it ended at, bytes per second each way. */
export interface RecentPoint {
  t: number;
  sent: number;
  rcvd: number;
}

/** ntopng's RoundTripStats: the last 30 throughput points each way, one per periodic stats update */
export const CHART_POINTS = 30;
/** seconds between two points (interface data's periodic_stats_update_frequency_secs) */
export const CHART_STEP_SECS = 5;
export interface Chart {
  /** KB/s received (ingress) and sent (egress), oldest first */
  download: number[];
  upload: number[];
}

export class Rates {
  private readonly prev = new Map<number, Sample>();
  // the chart's points: the sample the next one is measured from (engine time), the points, the quiet samples since the last
  private readonly chartPrev = new Map<number, Sample>();
  private readonly charts = new Map<number, Chart>();
  private readonly quiet = new Map<number, number>();
  private readonly last = new Map<number, DirRates>();
  private readonly recentPoints = new Map<number, RecentPoint[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly interfaces: Interfaces) {}

  start(periodMs = 1000): this {
    this.timer = setInterval(() => this.sample(), periodMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  sample(): void {
    for (const i of this.interfaces.list) {
      const s = i.engine.stats();
      const cur: Sample = { t: s.now_ns, bu: s.bytes_upload, pu: s.packets_upload, bd: s.bytes_download, pd: s.packets_download };
      const p = this.prev.get(i.ifid);
      if (!p) {
        this.prev.set(i.ifid, cur);
        continue;
      }
      const state = i.engine.state().state;
      if (state !== 'running') {
        // A replay that ended or a stopped capture carries no traffic now.
        const b = this.last.get(i.ifid);
        this.last.set(i.ifid, { upload: rate(0, 0, b?.upload), download: rate(0, 0, b?.download) });
        this.prev.set(i.ifid, cur);
        // and its chart goes on with zeros, a point per step of wall time
        const q = (this.quiet.get(i.ifid) ?? 0) + 1;
        this.quiet.set(i.ifid, q % CHART_STEP_SECS);
        if (q === CHART_STEP_SECS) this.chartPoint(i.ifid, 0, 0);
        this.chartPrev.set(i.ifid, cur);
        continue;
      }
      const cp = this.chartPrev.get(i.ifid) ?? this.chartPrev.set(i.ifid, p).get(i.ifid)!;
      if (cur.t - cp.t >= CHART_STEP_SECS * 1e9) {
        // ethStats' throughput at the update: bytes per second since the previous one, in KB (truncated)
        const sec = (cur.t - cp.t) / 1e9;
        this.chartPoint(i.ifid, Math.trunc((cur.bd - cp.bd) / sec / 1000), Math.trunc((cur.bu - cp.bu) / sec / 1000));
        this.chartPrev.set(i.ifid, cur);
      }
      const dt = cur.t - p.t;
      if (dt < MIN_SPAN_NS) continue;
      const sec = dt / 1e9;
      const b = this.last.get(i.ifid);
      this.last.set(i.ifid, {
        upload: rate((cur.bu - p.bu) / sec, (cur.pu - p.pu) / sec, b?.upload),
        download: rate((cur.bd - p.bd) / sec, (cur.pd - p.pd) / sec, b?.download),
      });
      const ring = this.recentPoints.get(i.ifid) ?? this.recentPoints.set(i.ifid, []).get(i.ifid)!;
      ring.push({ t: Math.floor(cur.t / 1e9), sent: (cur.bu - p.bu) / sec, rcvd: (cur.bd - p.bd) / sec });
      if (ring.length > RECENT_POINTS) ring.shift();
      this.prev.set(i.ifid, cur);
    }
  }

  private chartPoint(ifid: number, download: number, upload: number): void {
    const c = this.charts.get(ifid) ?? this.charts.set(ifid, emptyChart()).get(ifid)!;
    c.download.push(download), c.upload.push(upload);
    c.download.shift(), c.upload.shift();
  }

  /** interface data's download_upload_chart: 30 points each way, oldest first (zeros before the first) */
  chart(ifid: number): Chart {
    const c = this.charts.get(ifid);
    return c ? { download: [...c.download], upload: [...c.upload] } : emptyChart();
  }

  /** The last RECENT_POINTS samples of a running interface, oldest first (a replay's last minute once it ended). */
  recent(ifid: number): readonly RecentPoint[] {
    return this.recentPoints.get(ifid) ?? [];
  }

  get(ifid: number): DirRates {
    return this.last.get(ifid) ?? zero();
  }
}

const emptyChart = (): Chart => ({ download: Array(CHART_POINTS).fill(0), upload: Array(CHART_POINTS).fill(0) });
const zero = (): DirRates => ({ upload: rate(0, 0, undefined), download: rate(0, 0, undefined) });
