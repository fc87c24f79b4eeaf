// Terminal feedback: a progress bar per replayed file and a one-line
// summary per second.
import { Interfaces } from '../services/interfaces.js';

export function formatRate(v: number, unit: string): string {
  const steps = ['', 'k', 'M', 'G', 'T'];
  let i = 0;
  while (v >= 1000 && i < steps.length - 1) (v /= 1000), i++;
  return `${v.toFixed(i ? 2 : 0)} ${steps[i]}${unit}`;
}

export class Reporter {
  private timer: NodeJS.Timeout | null = null;
  private last = new Map<number, { packets: number; bytes: number; at: number }>();
  private ticks = 0;
  private dirty = false;

  constructor(private readonly ifaces: Interfaces, private readonly opts: { tty: boolean }) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 250);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.clearLine();
  }

  clearLine(): void {
    if (this.opts.tty && this.dirty) process.stdout.write('\r\x1b[2K');
    this.dirty = false;
  }

  private tick(): void {
    if (!this.opts.tty) return;
    this.ticks++;
    const replaying = this.ifaces.list.filter((i) => i.isFile && i.engine.state().state === 'running' && !i.engine.options.loop);
    if (replaying.length) {
      const parts = replaying.map((i) => {
        const p = i.engine.state().progress;
        const width = 30, full = Math.round(p * width);
        return `if${i.ifid} [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(p * 100).toFixed(0).padStart(3)}%`;
      });
      this.write(parts.join('  ') + '  ' + this.summary());
    } else if (this.ticks % 4 === 0) {
      this.write(this.summary());
    }
  }

  private summary(): string {
    const now = performance.now();
    return this.ifaces.list
      .map((i) => {
        const s = i.engine.stats();
        const prev = this.last.get(i.ifid) ?? { packets: 0, bytes: 0, at: now - 1000 };
        const dt = Math.max(1e-3, (now - prev.at) / 1000);
        this.last.set(i.ifid, { packets: s.packets, bytes: s.bytes, at: now });
        return (
          `if${i.ifid} ${Interfaces.shortName(i)}: ${formatRate((s.packets - prev.packets) / dt, 'pps')} ` +
          `${formatRate(((s.bytes - prev.bytes) * 8) / dt, 'bps')} | ${s.num_flows} flows ${s.num_hosts} hosts | ${s.drops} drops`
        );
      })
      .join(' || ');
  }

  private write(line: string): void {
    const cols = process.stdout.columns || 120;
    process.stdout.write('\r\x1b[2K' + line.slice(0, cols - 1));
    this.dirty = true;
  }
}
