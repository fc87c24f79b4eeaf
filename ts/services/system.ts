// ⑧ The machine's and the service's own figures that ntopng reports as
// system_host_stats: memory from /proc/meminfo (kB, as ntopng), CPU states
// as percentages between two readings of /proc/stat, this process's
// resident and virtual memory.
import { readFileSync } from 'node:fs';
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

  /** CPU percentages since the previous reading (at least a second apart). */
  cpuStates(): CpuStates {
    if (Date.now() - this.prevAt >= 1000) {
      const cur = readCpu();
      this.states = percentages(cur, this.prev) ?? this.states;
      this.prev = cur;
      this.prevAt = Date.now();
    }
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
