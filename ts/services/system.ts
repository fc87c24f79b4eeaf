// ⑧ The machine's and the service's own figures that ntopng reports as
// system_host_stats: memory from /proc/meminfo (kB, as ntopng), CPU states
// as percentages between two readings of /proc/stat (sampled every 5 s by a
// timer once started, as ntopng's 5-second callback does), this process's
// resident and virtual memory; and the volume holding a directory (statfs).
import { readFileSync, realpathSync, statfsSync } from 'node:fs';
import { loadavg } from 'node:os';

const CPU_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal', 'guest', 'guest_nice'] as const;
type CpuStates = Record<(typeof CPU_FIELDS)[number], number>;

function readCpu(): number[] {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    return line.trim().split(/\s+/).slice(1, 11).map(Number);
  } catch {
    return [];
  }
}

function readKb(file: string): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+)/.exec(line);
      if (m) out[m[1]] = Number(m[2]);
    }
  } catch {
    /* not Linux: fields stay 0 */
  }
  return out;
}

/** Percent of time in each state between two readings (first reading: since boot). */
function percentages(cur: number[], prev: number[]): CpuStates | null {
  const d = cur.map((v, i) => v - (prev[i] ?? 0));
  const total = d.reduce((a, b) => a + b, 0);
  return total > 0 ? (Object.fromEntries(CPU_FIELDS.map((f, i) => [f, ((d[i] ?? 0) * 100) / total])) as CpuStates) : null;
}

export class SystemStats {
  private prev = readCpu();
  private prevAt = Date.now();
  private states: CpuStates = percentages(this.prev, []) ?? (Object.fromEntries(CPU_FIELDS.map((f) => [f, 0])) as CpuStates);
  private sampler: NodeJS.Timeout | null = null;

  /** Samples /proc/stat every `periodMs` (default 5 s, ntopng's period); requests then only read the last delta. */
  start(periodMs = 5000): this {
    if (!this.sampler) {
      this.sampler = setInterval(() => this.sample(), periodMs);
      this.sampler.unref();
    }
    return this;
  }

  stop(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = null;
  }

  private sample(): void {
    const cur = readCpu();
    this.states = percentages(cur, this.prev) ?? this.states;
    this.prev = cur;
    this.prevAt = Date.now();
  }

  /** CPU percentages between the last two samples (not started: read now, at least a second after the previous reading). */
  cpuStates(): CpuStates {
    if (!this.sampler && Date.now() - this.prevAt >= 1000) this.sample();
    return this.states;
  }

  private cached: ReturnType<SystemStats['readNow']> | null = null;
  private cachedAt = 0;

  /** The figures, read at most once a second (the API may be asked thousands of times a second). */
  read() {
    if (!this.cached || Date.now() - this.cachedAt >= 1000) {
      this.cached = this.readNow();
      this.cachedAt = Date.now();
    }
    return this.cached;
  }

  private readNow() {
    const m = readKb('/proc/meminfo');
    const self = readKb('/proc/self/status');
    const mem_total = m.MemTotal ?? 0, mem_free = m.MemFree ?? 0, mem_buffers = m.Buffers ?? 0, mem_cached = m.Cached ?? 0;
    const mem_sreclaimable = m.SReclaimable ?? 0, mem_shmem = m.Shmem ?? 0;
    const cpu_states = this.cpuStates();
    return {
      cpu_load: loadavg()[0],
      cpu_idle: cpu_states.idle,
      cpu_states,
      mem_total,
      mem_free,
      mem_buffers,
      mem_cached,
      mem_sreclaimable,
      mem_shmem,
      // as `free` computes "used"
      mem_used: Math.max(0, mem_total - mem_free - mem_buffers - mem_cached - mem_sreclaimable + mem_shmem),
      mem_ntopng_resident: self.VmRSS ?? 0,
      mem_ntopng_virtual: self.VmSize ?? 0,
    };
  }
}

export interface VolumeInfo {
  /** the directory asked about (resolved) */
  path: string;
  /** the mount point holding it and its source (df's "Filesystem" column: ntopng's volume_dev) */
  mount: string;
  dev: string;
  /** bytes, as statfs counts them (df: used = total - free, avail = what an unprivileged writer may still use) */
  total: number;
  used: number;
  avail: number;
  /** used / (used + avail), df's Use% */
  used_pct: number;
}

/** octal escapes of /proc/self/mountinfo (\040 for a space …) */
const unescapeMount = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The mount holding `path` (longest mount point that is a prefix of it) and its source, from /proc/self/mountinfo. */
function mountOf(path: string): { mount: string; dev: string } {
  let best = { mount: '/', dev: '' };
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const f = line.split(' ');
      const sep = f.indexOf('-');
      if (f.length < 10 || sep < 6) continue;
      const mount = unescapeMount(f[4]);
      const inside = mount === '/' || path === mount || path.startsWith(mount.endsWith('/') ? mount : `${mount}/`);
      // a later line over the same mount point hides the earlier one
      if (inside && mount.length >= best.mount.length) best = { mount, dev: unescapeMount(f[sep + 2] ?? '') };
    }
  } catch {
    /* not Linux: no device name */
  }
  return best;
}

/** The volume holding `dir` (statfs; a missing or unreadable directory: null). */
export function volumeInfo(dir: string): VolumeInfo | null {
  try {
    const path = realpathSync(dir);
    const s = statfsSync(path, { bigint: false });
    const total = s.blocks * s.bsize;
    const used = (s.blocks - s.bfree) * s.bsize;
    const avail = s.bavail * s.bsize;
    return { path, ...mountOf(path), total, used, avail, used_pct: used + avail > 0 ? (used * 100) / (used + avail) : 0 };
  } catch {
    return null;
  }
}
