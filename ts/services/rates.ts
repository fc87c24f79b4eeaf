// ⑧ Interface rates ntopng shows per direction (upload/download) next to
// the engine's total: sampled once a second, computed over engine (packet)
// time, so a replayed capture shows the rates it was recorded at.
import type { Interfaces } from './interfaces.js';

export interface DirRates {
  upload: { bps: number; pps: number };
  download: { bps: number; pps: number };
}

interface Sample {
  t: number;
  bu: number;
  pu: number;
  bd: number;
  pd: number;
}

const MIN_SPAN_NS = 1e9;

export class Rates {
  private readonly prev = new Map<number, Sample>();
  private readonly last = new Map<number, DirRates>();
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
        this.last.set(i.ifid, zero());
        this.prev.set(i.ifid, cur);
        continue;
      }
      const dt = cur.t - p.t;
      if (dt < MIN_SPAN_NS) continue;
      const sec = dt / 1e9;
      this.last.set(i.ifid, {
        upload: { bps: ((cur.bu - p.bu) * 8) / sec, pps: (cur.pu - p.pu) / sec },
        download: { bps: ((cur.bd - p.bd) * 8) / sec, pps: (cur.pd - p.pd) / sec },
      });
      this.prev.set(i.ifid, cur);
    }
  }

  get(ifid: number): DirRates {
    return this.last.get(ifid) ?? zero();
  }
}

const zero = (): DirRates => ({ upload: { bps: 0, pps: 0 }, download: { bps: 0, pps: 0 } });
