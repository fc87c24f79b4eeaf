// ⑧ A poll run on the wall clock's step boundaries (every `stepSec`, the
// next run after the last one ended), at most one at a time: a call while
// one runs gets that run. What the SNMP devices, the infrastructure
// instances and the scans' scheduler are polled by; each run is measured
// as the periodic activity `name` (periodic.ts).
import { measured } from './periodic.js';

export class StepPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly name: string,
    private readonly stepSec: number,
    private readonly run: (now: number) => Promise<void>,
  ) {}

  /** A poll at `now` (epoch s), or the one already running. */
  poll(now = Math.floor(Date.now() / 1000)): Promise<void> {
    if (!this.running) this.running = measured(this.name, this.stepSec, () => this.run(now)).finally(() => (this.running = null));
    return this.running;
  }

  start(): void {
    const next = () => {
      const now = Date.now() / 1000;
      const wait = (Math.floor(now / this.stepSec) + 1) * this.stepSec - now;
      this.timer = setTimeout(() => void this.poll().finally(next), wait * 1000);
      this.timer.unref();
    };
    next();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
